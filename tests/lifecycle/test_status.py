"""`status: draft|reviewed`: drafts are skipped by run and gate unless asked; a drafted
case becomes reviewed only with a rationale."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegold.cases.suite import load_suite
from codegold.errors import InputError
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

APP = "def helper(x):\n    return x + 1\n\n\ndef other():\n    return 2\n"


def _suite(path: Path, sha: str, *, second: str) -> Path:
    path.write_text(
        f"repository: {{revision: {sha}}}\n"
        "cases:\n"
        "- id: reviewed\n  query: helper\n  accepted: [{file: src/app.py, symbol: helper}]\n"
        "  rationale: helper is defined there\n"
        f"- id: drafted\n  query: other\n  accepted: [{{file: src/app.py, symbol: other}}]\n{second}"
    )
    return path


def test_status_contract(tmp_path: Path) -> None:
    sha = "a" * 40
    suite = load_suite(_suite(tmp_path / "s.yaml", sha, second="  status: draft\n"))
    assert [c.status for c in suite.cases] == ["reviewed", "draft"]
    assert suite.drafts == ("drafted",)
    assert "draft" in suite.cases[1].tags and "draft" not in suite.cases[0].tags
    # a drafted case (it has an origin) turned reviewed without a rationale: refused
    bad = _suite(tmp_path / "b.yaml", sha, second="  origin: search-log line 3\n"
                 "  rationale: 'TODO: say why'\n")  # fmt: skip
    with pytest.raises(InputError) as err:
        load_suite(bad)
    assert "case 'drafted', field 'rationale'" in str(err.value)
    assert "reviewed only with a rationale" in str(err.value)
    ok = _suite(tmp_path / "o.yaml", sha, second="  origin: search-log line 3\n"
                "  status: reviewed\n  rationale: other returns the constant\n")  # fmt: skip
    assert load_suite(ok).cases[1].status == "reviewed"
    typo = _suite(tmp_path / "t.yaml", sha, second="  status: drafty\n")
    with pytest.raises(InputError, match="field 'status'"):
        load_suite(typo)


def test_run_and_gate_skip_drafts_unless_asked(tmp_path: Path) -> None:
    repo, shas = make_repo(tmp_path, [{"src/app.py": APP}])
    cases = _suite(tmp_path / "s.yaml", shas[0], second="  status: draft\n")
    out = tmp_path / "out"
    done = run_cli("run", "--cases", str(cases), "--repo", str(repo), "--out", str(out),
                   "--retriever", "bm25-file")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "skipping 1 draft case(s) of 2" in done.stderr
    ids = [r["caseId"] for r in json.loads((out / "results.json").read_text())]
    assert ids == ["reviewed"]
    both = tmp_path / "both"
    run_cli("run", "--cases", str(cases), "--repo", str(repo), "--out", str(both),
            "--retriever", "bm25-file", "--include-drafts", check=True)  # fmt: skip
    records = json.loads((both / "results.json").read_text())
    assert [(r["caseId"], "draft" in r["tags"]) for r in records] == [
        ("reviewed", False),
        ("drafted", True),
    ]
    policy = tmp_path / "gate.toml"
    policy.write_text("[gate]\nminPassRate = 0.0\n")
    gated = run_cli("gate", str(both / "results.json"), "--policy", str(policy), "--json",
                    str(tmp_path / "g.json"))  # fmt: skip
    assert "left out 1 draft case(s) (--include-drafts)" in gated.stdout + gated.stderr, gated
    # lint warns about drafts and placeholder rationales
    lint = run_cli("lint", str(cases), "--repo", str(repo))
    assert "draft" in lint.stdout and "run and gate skip it" in lint.stdout, lint.stdout
    only = tmp_path / "only.yaml"
    only.write_text(
        f"repository: {{revision: {shas[0]}}}\ncases:\n- id: d\n  query: q\n"
        "  accepted: [{file: src/app.py}]\n  status: draft\n"
    )
    refused = run_cli(
        "run", "--cases", str(only), "--repo", str(repo), "--out", str(tmp_path / "o")
    )
    assert refused.returncode == 2 and "all 1 cases are drafts" in refused.stderr
