"""`codegold report` through a real subprocess."""

from __future__ import annotations

import importlib.util
import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_cli
from tests.report.helpers import PLANTED_PASSWORD, STRIPE, diagnosed_run, parse_tables


def test_writes_html_junit_and_json_from_a_run_folder(
    run_dir: Path, tmp_path: Path, run_summary: dict[str, Any]
) -> None:
    html, junit, doc = tmp_path / "r.html", tmp_path / "out" / "j.xml", tmp_path / "r.json"
    proc = run_cli(
        "report", str(run_dir), "--html", str(html), "--junit", str(junit), "--json", str(doc)
    )
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {html}" in proc.stdout and f"wrote {junit}" in proc.stdout
    (row,) = parse_tables(html.read_text()).rows("metrics-overall")
    assert row["passRate"]["data-value"] == repr(run_summary["overall"]["passRate"])
    assert ET.parse(junit).getroot().attrib["tests"] == "8"
    data = json.loads(doc.read_text())
    assert set(data) == {"summary", "failed"}
    assert data["summary"] == run_summary
    results = json.loads((run_dir / "results.json").read_text())
    assert [r["caseId"] for r in data["failed"]] == sorted(
        r["caseId"] for r in results if not r["passed"]
    )
    assert set(data["failed"][0]) == set(results[0]) | {"diagnosis"}
    for text in (html.read_text(), junit.read_text(), doc.read_text()):
        assert STRIPE not in text and PLANTED_PASSWORD not in text
    assert not list(tmp_path.rglob(".*.tmp"))  # atomic writes leave no temp files


def test_results_file_uses_the_summary_beside_it(run_dir: Path, tmp_path: Path) -> None:
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    run_cli("report", str(run_dir), "--html", str(a), check=True)
    run_cli("report", str(run_dir / "results.json"), "--html", str(b), check=True)
    assert a.read_bytes() == b.read_bytes()


def test_output_is_byte_identical_across_runs(run_dir: Path, tmp_path: Path) -> None:
    outs = []
    for name in ("one", "two"):
        out = tmp_path / name
        run_cli(
            "report",
            str(run_dir),
            "--html",
            str(out / "r.html"),
            "--junit",
            str(out / "j.xml"),
            "--json",
            str(out / "r.json"),
            check=True,
        )
        outs.append([(out / f).read_bytes() for f in ("r.html", "j.xml", "r.json")])
    assert outs[0] == outs[1]


def test_without_summary_it_is_recomputed(
    run_dir: Path, tmp_path: Path, run_summary: dict[str, Any]
) -> None:
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(run_dir / "results.json", lone / "results.json")
    doc = tmp_path / "r.json"
    proc = run_cli("report", str(lone / "results.json"), "--json", str(doc))
    assert proc.returncode == 0, proc.stderr
    assert "recomputed from the records" in proc.stderr
    summary = json.loads(doc.read_text())["summary"]
    assert summary["overall"] == run_summary["overall"]
    assert "suite" not in summary


def test_summary_of_another_run_is_refused(run_dir: Path, tmp_path: Path) -> None:
    other = tmp_path / "summary.json"
    other.write_text(json.dumps({"overall": {"records": 3}, "slices": {}}))
    proc = run_cli(
        "report", str(run_dir), "--summary", str(other), "--html", str(tmp_path / "r.html")
    )
    assert proc.returncode == 2
    assert str(other) in proc.stderr and "not the same run" in proc.stderr
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        ("missing-results", "no such file"),
        ("corrupt-results", "not a codegold results file"),
        ("corrupt-summary", "not JSON"),
        ("summary-not-a-summary", "no 'overall' object"),
        ("missing-summary", "no such file"),
    ],
    ids=[
        "missing-results",
        "corrupt-results",
        "corrupt-summary",
        "summary-not-a-summary",
        "missing-summary",
    ],
)
def test_bad_input_exits_2_naming_the_file(
    run_dir: Path, tmp_path: Path, setup: str, message: str
) -> None:
    results, summary = tmp_path / "results.json", tmp_path / "summary.json"
    shutil.copy(run_dir / "results.json", results)
    shutil.copy(run_dir / "summary.json", summary)
    named = summary
    if setup == "missing-results":
        results.unlink()
        named = results
    elif setup == "corrupt-results":
        results.write_text("[{")
        named = results
    elif setup == "corrupt-summary":
        summary.write_text("{")
    elif setup == "summary-not-a-summary":
        summary.write_text("[]")
    elif setup == "missing-summary":
        summary = tmp_path / "nope.json"
        named = summary
    proc = run_cli(
        "report", str(results), "--summary", str(summary), "--junit", str(tmp_path / "j.xml")
    )
    assert proc.returncode == 2, proc.stderr
    assert str(named) in proc.stderr and message in proc.stderr
    assert proc.stderr.count("\n") == 1  # one line, no traceback
    assert not (tmp_path / "j.xml").exists()


def test_unwritable_output_exits_3(run_dir: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    target = blocker / "r.html"  # its folder is a regular file: the environment, exit 3
    proc = run_cli("report", str(run_dir), "--html", str(target))
    assert proc.returncode == 3
    assert "cannot write" in proc.stderr and str(target) in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_no_output_option_prints_the_summary(run_dir: Path) -> None:
    proc = run_cli("report", str(run_dir))
    assert proc.returncode == 0, proc.stderr
    assert "overall" in proc.stdout and "session-expiry" in proc.stdout


def test_report_is_listed_in_help() -> None:
    proc = run_cli("--help")
    assert proc.returncode == 0 and "report" in proc.stdout
    proc = run_cli("report", "--help")
    assert "--compare" in proc.stdout and "--junit" in proc.stdout


@pytest.mark.skipif(
    importlib.util.find_spec("codegold.compare") is None, reason="codegold.compare is not built yet"
)
def test_compare_is_embedded(run_dir: Path, tmp_path: Path) -> None:
    # the base run: the same example without diagnoses is a run of its own
    base = diagnosed_run(tmp_path / "base") / "results.json"
    html, doc = tmp_path / "r.html", tmp_path / "r.json"
    proc = run_cli(
        "report", str(run_dir), "--compare", str(base), "--html", str(html), "--json", str(doc)
    )
    assert proc.returncode == 0, proc.stderr
    page = html.read_text()
    assert '<section id="comparison">' in page and 'href="#comparison"' in page
    assert "http://" not in page and "https://" not in page
    assert "comparison" in json.loads(doc.read_text())
