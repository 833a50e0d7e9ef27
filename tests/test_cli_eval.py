"""`codegold eval` and `codegold schema` through a real subprocess."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "recorded"


def test_eval_on_the_shipped_example(tmp_path: Path) -> None:
    proc = run_cli(
        "eval",
        "--cases",
        str(EXAMPLE / "suite.yaml"),
        "--attempts",
        str(EXAMPLE / "attempts.jsonl"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    by_id = {r["caseId"]: r for r in results}
    assert by_id["session-expiry"]["passed"] is False
    assert by_id["session-expiry"]["forbiddenChunkIds"] == ["c-legacy"]
    assert by_id["session-expiry"]["firstRelevantRank"] == 3
    assert by_id["webhook-parse-open-file"]["passed"] is True
    assert by_id["webhook-parse-no-context"]["firstRelevantRank"] is None
    assert by_id["retry-policy-definition"]["ranked"][5]["match"] == "accepted"
    assert by_id["retry-policy-configured"]["groupRecall"] == 0.5
    assert by_id["retry-policy-configured"]["missingGroupIds"] == ["configuration"]
    assert by_id["refund-stale-index"]["valid"] is False
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["overall"]["invalid"] == 1
    assert summary["slices"]["tag:high-risk"]["cases"] == 2
    assert "session-expiry" in proc.stdout and "forbidden src/legacy/session.ts" in proc.stdout


def test_eval_is_byte_identical_across_runs(tmp_path: Path) -> None:
    outs = []
    for name in ("one", "two"):
        out = tmp_path / name
        run_cli(
            "eval",
            "--cases",
            str(EXAMPLE / "suite.yaml"),
            "--attempts",
            str(EXAMPLE / "attempts.jsonl"),
            "--out",
            str(out),
            "--quiet",
            check=True,
        )
        outs.append(((out / "results.json").read_bytes(), (out / "summary.json").read_bytes()))
    assert outs[0] == outs[1]


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq is not installed")
def test_article_jq_command_runs_unchanged(tmp_path: Path) -> None:
    run_cli(
        "eval",
        "--cases",
        str(EXAMPLE / "suite.yaml"),
        "--attempts",
        str(EXAMPLE / "attempts.jsonl"),
        "--out",
        str(tmp_path),
        "--quiet",
        check=True,
    )
    program = (
        '.[] | select(.passed == false) | "CASE \\(.caseId) query=\\(.query)",'
        ' ("  expected_revision=" + .repositoryRevision),'
        ' (.ranked[:5][] | "  rank=\\(.rank) file=\\(.file) symbol=\\(.symbol // "-")'
        ' role=\\(.role) revision=\\(.repositoryRevision)")'
    )
    out = subprocess.run(
        ["jq", "-r", program, str(tmp_path / "results.json")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (
        "CASE session-expiry query=How does createSession handle an expired refresh token?" in out
    )
    assert "rank=1 file=src/legacy/session.ts symbol=createSession role=definition" in out


def test_bad_attempts_exit_2_and_write_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "attempts.jsonl"
    good_line = (EXAMPLE / "attempts.jsonl").read_text().splitlines()[0]
    record = json.loads(good_line)
    record["caseId"] = "no-such-case"
    record["attemptId"] = "a-new"
    bad.write_text(good_line + "\n" + json.dumps(record) + "\n")
    out = tmp_path / "out"
    proc = run_cli(
        "eval", "--cases", str(EXAMPLE / "suite.yaml"), "--attempts", str(bad), "--out", str(out)
    )
    assert proc.returncode == 2
    assert f"{bad}:2" in proc.stderr and "no-such-case" in proc.stderr and "caseId" in proc.stderr
    assert not out.exists()


def test_a_malformed_manifest_makes_its_own_case_invalid_not_the_run(tmp_path: Path) -> None:
    lines = (EXAMPLE / "attempts.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    del first["index"]["complete"]
    bad = tmp_path / "attempts.jsonl"
    bad.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    out = tmp_path / "out"
    proc = run_cli(
        "eval", "--cases", str(EXAMPLE / "suite.yaml"), "--attempts", str(bad), "--out", str(out)
    )
    assert proc.returncode == 0, proc.stderr
    by_id = {r["caseId"]: r for r in json.loads((out / "results.json").read_text())}
    broken = by_id[first["caseId"]]
    assert broken["valid"] is False
    assert "malformed" in broken["invalidReason"] and "complete" in broken["invalidReason"]
    assert broken["diagnosis"]["cause"] == "invalid_run"
    # invalid means never scored
    assert broken["firstRelevantRank"] is None
    assert broken["reciprocalRank"] is None and broken["groupRecall"] is None
    others = [r for r in by_id.values() if r["caseId"] != first["caseId"] and r["valid"]]
    assert others and all(isinstance(r["reciprocalRank"], float) for r in others)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["overall"]["invalid"] == 2


def test_unknown_role_in_a_chunk_invalidates_its_case_not_the_run(tmp_path: Path) -> None:
    lines = (EXAMPLE / "attempts.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["ranked"][1]["role"] = "usage"
    bad = tmp_path / "a.jsonl"
    bad.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    proc = run_cli(
        "eval",
        "--cases",
        str(EXAMPLE / "suite.yaml"),
        "--attempts",
        str(bad),
        "--out",
        str(tmp_path / "o"),
    )
    assert proc.returncode == 0, proc.stderr
    results = {r["caseId"]: r for r in json.loads((tmp_path / "o" / "results.json").read_text())}
    broken = results[record["caseId"]]
    assert broken["valid"] is False
    assert broken["invalidReason"].startswith("chunk 2: Invalid enum value 'usage'")
    assert "field 'role'" in broken["invalidReason"]
    others = [r for cid, r in results.items() if cid != record["caseId"]]
    assert any(r["valid"] for r in others)
    assert not any((r["invalidReason"] or "").startswith("chunk") for r in others)


def test_existing_outputs_survive_bad_input(tmp_path: Path) -> None:
    run_cli(
        "eval",
        "--cases",
        str(EXAMPLE / "suite.yaml"),
        "--attempts",
        str(EXAMPLE / "attempts.jsonl"),
        "--out",
        str(tmp_path),
        "--quiet",
        check=True,
    )
    before = (tmp_path / "results.json").read_bytes()
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    proc = run_cli(
        "eval",
        "--cases",
        str(empty),
        "--attempts",
        str(EXAMPLE / "attempts.jsonl"),
        "--out",
        str(tmp_path),
    )
    assert proc.returncode == 2 and "empty suite file" in proc.stderr
    assert (tmp_path / "results.json").read_bytes() == before


@pytest.mark.parametrize("kind", ["suite", "attempts", "results"])
def test_schema_prints_json_schema(kind: str) -> None:
    proc = run_cli("schema", kind)
    assert proc.returncode == 0
    doc = json.loads(proc.stdout)
    assert doc["$schema"].startswith("https://json-schema.org/")
    text = json.dumps(doc)
    assert {
        "suite": "forbiddenPathPrefixes",
        "attempts": "rewrittenQuery",
        "results": "firstRelevantRank",
    }[kind] in text


def test_missing_option_is_a_usage_error() -> None:
    proc = run_cli("eval", "--cases", "x.yaml")
    assert proc.returncode == 2
