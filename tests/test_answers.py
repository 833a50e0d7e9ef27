"""`codegold answers`: answers joined to their own attempts, failures classed, the run
marked invalid when an answer's context cannot be resolved.

The runs are real: the shipped example repository, `codegold run --repeat 2`, and a
recorded copy of its attempts (one with a chunk from another revision, one served by
an incomplete index) evaluated with `codegold eval`."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli

V1 = "9f210384ffd7ad4e0a4fb79e712a823e1def56d3"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("answers")
    shutil.copytree(
        ROOT / "examples", root / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"], cwd=root, check=True, capture_output=True
    )
    suite = root / "examples" / "acme" / "suite.yaml"
    live = root / "live"
    run_cli(
        "run",
        "--cases",
        str(suite),
        "--repo",
        str(root / "examples" / "repo"),
        "--out",
        str(live),
        "--repeat",
        "2",
        "--embedder",
        "none",
        "--quiet",
        check=True,
    )
    # a recorded copy: one attempt holds a chunk of another revision, one an incomplete index
    attempts = _lines(live / "attempts.jsonl")
    for attempt in attempts:
        if attempt["attemptId"] == "webhook-signature#1":
            attempt["ranked"][1]["repositoryRevision"] = V1
        if attempt["attemptId"] == "retry-policy-definition#1":
            attempt["index"]["complete"] = False
    recorded = root / "recorded"
    recorded.mkdir()
    (recorded / "attempts.jsonl").write_text("".join(json.dumps(a) + "\n" for a in attempts))
    run_cli(
        "eval",
        "--cases",
        str(suite),
        "--attempts",
        str(recorded / "attempts.jsonl"),
        "--out",
        str(recorded),
        "--quiet",
        check=True,
    )
    return {"live": live, "recorded": recorded, "suite": suite}


def _copy(run: Path, tmp_path: Path) -> Path:
    out = tmp_path / run.name
    shutil.copytree(run, out, ignore=shutil.ignore_patterns("index"))
    return out


def _attempt(run: Path, attempt_id: str) -> dict[str, Any]:
    return next(a for a in _lines(run / "attempts.jsonl") if a["attemptId"] == attempt_id)


def _record(run: Path, attempt_id: str) -> dict[str, Any]:
    records = json.loads((run / "results.json").read_text())
    return next(r for r in records if r["attemptId"] == attempt_id)


def _top(run: Path, attempt_id: str) -> list[str]:
    return list(_attempt(run, attempt_id)["contextIds"])


def _chunk_ids(run: Path, attempt_id: str, match: str) -> list[str]:
    record = _record(run, attempt_id)
    return [e["chunkId"] for e in record["ranked"][: record["cutoff"]] if e["match"] == match]


def _answers(
    tmp_path: Path, run: Path, lines: list[dict[str, Any]], *extra: str
) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]], dict[str, Any]]:
    log = tmp_path / "answers.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc = run_cli("answers", str(log), "--results", str(run), *extra)
    out = Path(extra[extra.index("--out") + 1]) if "--out" in extra else run
    by_id = {a["answerId"]: a for a in json.loads((out / "answers.json").read_text())}
    summary = json.loads((out / "answers_summary.json").read_text())
    return proc, by_id, summary


def test_a_retry_chain_with_a_new_attempt(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["live"], tmp_path)
    proc, by_id, summary = _answers(
        tmp_path,
        run,
        [
            {
                "answerId": "a1",
                "caseId": "session-expiry",
                "attemptId": "session-expiry#1",
                "contextIds": _top(run, "session-expiry#1"),
                "verdict": "fail",
            },
            {
                "answerId": "a2",
                "caseId": "session-expiry",
                "attemptId": "session-expiry#2",
                "contextIds": _top(run, "session-expiry#2"),
                "verdict": "pass",
                "retryOf": "session-expiry#1",
            },
        ],
    )
    assert proc.returncode == 0, proc.stderr
    a1, a2 = by_id["a1"], by_id["a2"]
    assert a2["retryOfAttemptId"] == "session-expiry#1" and a2["newAttempt"] is True
    assert a1["supersededBy"] == ["a2"] and a1["final"] is False and a2["final"] is True
    assert a1["class"] == "evidence_present_ignored"
    assert a1["cause"] == "answer_ignored_evidence" and a1["owner"] == "answer generation"
    assert a2["class"] is None
    assert summary["valid"] is True
    assert summary["retries"] == 1
    assert summary["final"] == {"answers": 1, "passed": 1, "failed": 0, "recoveredByRetry": ["a2"]}


def test_a_retry_may_reanswer_from_the_attempt_it_retries(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(runs["live"], tmp_path)
    ctx = _top(run, "refund-cap#1")
    proc, by_id, _ = _answers(
        tmp_path,
        run,
        [
            {
                "answerId": "first",
                "caseId": "refund-cap",
                "attemptId": "refund-cap#1",
                "contextIds": ctx,
                "verdict": False,
            },
            {
                "answerId": "second",
                "caseId": "refund-cap",
                "attemptId": "refund-cap#1",
                "contextIds": ctx,
                "verdict": "correct",
                "retryOf": "first",
            },
        ],
    )
    assert proc.returncode == 0, proc.stderr
    assert by_id["second"]["newAttempt"] is False
    assert by_id["first"]["supersededBy"] == ["second"]


def test_each_failure_class_and_the_join_by_attempt_id(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(runs["recorded"], tmp_path)
    stale_ctx = _top(run, "webhook-signature#1")
    none_ids = _chunk_ids(run, "retry-policy-configured#1", "none")
    proc, by_id, summary = _answers(
        tmp_path,
        run,
        [
            # a chunk of another revision reached the context
            {
                "answerId": "stale",
                "caseId": "webhook-signature",
                "attemptId": "webhook-signature#1",
                "contextIds": stale_ctx,
                "verdict": "fail",
            },
            # the same case, its other attempt: joined to that attempt, not to the case
            {
                "answerId": "ignored",
                "caseId": "webhook-signature",
                "attemptId": "webhook-signature#2",
                "contextIds": _top(run, "webhook-signature#2"),
                "verdict": "incorrect",
            },
            # the attempt's index was incomplete
            {
                "answerId": "invalid-attempt",
                "caseId": "retry-policy-definition",
                "attemptId": "retry-policy-definition#1",
                "contextIds": _top(run, "retry-policy-definition#1"),
                "verdict": "fail",
            },
            # nothing acceptable in the context
            {
                "answerId": "absent",
                "caseId": "retry-policy-configured",
                "attemptId": "retry-policy-configured#1",
                "contextIds": none_ids,
                "verdict": "fail",
            },
        ],
    )
    assert proc.returncode == 0, proc.stderr
    assert by_id["stale"]["class"] == "evidence_stale"
    assert by_id["stale"]["staleChunkIds"] == [
        _attempt(run, "webhook-signature#1")["ranked"][1]["chunkId"]
    ]
    assert by_id["ignored"]["class"] == "evidence_present_ignored"
    assert by_id["invalid-attempt"]["class"] == "evidence_stale"
    assert "invalid" in by_id["invalid-attempt"]["detail"]
    assert by_id["absent"]["class"] == "evidence_absent"
    assert by_id["absent"]["evidenceChunkIds"] == []
    assert summary["classes"] == {
        "evidence_absent": 1,
        "evidence_present_ignored": 1,
        "evidence_stale": 2,
    }
    # records: only the present-but-ignored attempt gets the answer cause
    records = {r["attemptId"]: r for r in json.loads((run / "results.json").read_text())}
    assert records["webhook-signature#2"]["diagnosis"]["cause"] == "answer_ignored_evidence"
    assert records["webhook-signature#1"]["diagnosis"] is None  # revision mismatch, no --repo
    assert records["retry-policy-definition#1"]["diagnosis"]["cause"] == "invalid_run"
    assert records["retry-policy-configured#1"]["diagnosis"] is None


def test_an_unresolvable_context_makes_the_run_invalid(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(runs["live"], tmp_path)
    results_before = (run / "results.json").read_bytes()
    summary_before = (run / "summary.json").read_bytes()
    other = _top(run, "refund-cap#1")[0]
    proc, by_id, summary = _answers(
        tmp_path,
        run,
        [
            {
                "answerId": "ok",
                "caseId": "session-expiry",
                "attemptId": "session-expiry#1",
                "contextIds": _top(run, "session-expiry#1"),
                "verdict": "fail",
            },
            {
                "answerId": "foreign-chunk",
                "caseId": "session-expiry",
                "attemptId": "session-expiry#1",
                "contextIds": [*_top(run, "session-expiry#1")[:2], other],
                "verdict": "fail",
            },
            {
                "answerId": "no-attempt",
                "caseId": "session-expiry",
                "attemptId": "session-expiry#9",
                "contextIds": [],
                "verdict": "fail",
            },
            {
                "answerId": "wrong-case-retry",
                "caseId": "session-expiry",
                "attemptId": "session-expiry#2",
                "contextIds": [],
                "verdict": "pass",
                "retryOf": "refund-cap#1",
            },
            {
                "answerId": "dangling-retry",
                "caseId": "session-expiry",
                "attemptId": "session-expiry#2",
                "contextIds": [],
                "verdict": "pass",
                "retryOf": "nothing-by-this-name",
            },
        ],
    )
    assert proc.returncode == 2
    assert "invalid" in proc.stderr
    assert summary["valid"] is False
    reasons = {r["answerId"]: r["reason"] for r in summary["invalidReasons"]}
    assert set(reasons) == {"foreign-chunk", "no-attempt", "wrong-case-retry", "dangling-retry"}
    assert other in reasons["foreign-chunk"]
    assert "session-expiry#9" in reasons["no-attempt"]
    assert "refund-cap" in reasons["wrong-case-retry"]
    assert by_id["no-attempt"]["resolved"] is False and by_id["ok"]["resolved"] is True
    # an invalid join changes no run file
    assert (run / "results.json").read_bytes() == results_before
    assert (run / "summary.json").read_bytes() == summary_before


def test_the_run_folder_keeps_the_retrieval_diagnosis_and_can_be_reapplied(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    run = _copy(runs["live"], tmp_path)
    before = json.loads((run / "summary.json").read_text())
    ctx = _top(run, "token-expired-trace#1")
    proc, _, _ = _answers(
        tmp_path,
        run,
        [
            {
                "caseId": "token-expired-trace",
                "attemptId": "token-expired-trace#1",
                "contextIds": ctx,
                "verdict": "fail",
            }
        ],
    )
    assert proc.returncode == 0, proc.stderr
    record = _record(run, "token-expired-trace#1")
    assert record["passed"] is True  # retrieval at the cutoff: unchanged
    assert record["diagnosis"]["cause"] == "answer_ignored_evidence"
    assert record["diagnosis"]["evidence"]["retrievalDiagnosis"] is None
    assert record["diagnosis"]["evidence"]["answerIds"] == ["line-1"]
    summary = json.loads((run / "summary.json").read_text())
    assert summary["suite"] == before["suite"] and summary["indexes"] == before["indexes"]
    assert summary["nondeterminism"] == before["nondeterminism"]
    assert summary["overall"] == before["overall"]
    assert summary["answers"]["classes"]["evidence_present_ignored"] == 1
    # a later log without that failure puts the retrieval diagnosis back
    proc, _, _ = _answers(
        tmp_path,
        run,
        [
            {
                "caseId": "token-expired-trace",
                "attemptId": "token-expired-trace#1",
                "contextIds": ctx,
                "verdict": "pass",
            }
        ],
    )
    assert proc.returncode == 0, proc.stderr
    assert _record(run, "token-expired-trace#1")["diagnosis"] is None


def test_out_elsewhere_leaves_the_run_alone(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["live"], tmp_path)
    before = (run / "results.json").read_bytes()
    proc, by_id, _ = _answers(
        tmp_path,
        run,
        [
            {
                "answerId": "x",
                "caseId": "refund-cap",
                "attemptId": "refund-cap#1",
                "contextIds": _top(run, "refund-cap#1"),
                "verdict": "fail",
            }
        ],
        "--out",
        str(tmp_path / "elsewhere"),
    )
    assert proc.returncode == 0, proc.stderr
    assert by_id["x"]["class"] == "evidence_present_ignored"
    assert (run / "results.json").read_bytes() == before
    assert not (run / "answers.json").exists()


def test_groups_are_judged_one_by_one_with_the_suite(runs: dict[str, Path], tmp_path: Path) -> None:
    run = _copy(runs["live"], tmp_path)
    service = _chunk_ids(run, "session-expiry#1", "accepted")[0]  # the service group only
    line = {
        "answerId": "half",
        "caseId": "session-expiry",
        "attemptId": "session-expiry#1",
        "contextIds": [service],
        "verdict": "fail",
    }
    out = tmp_path / "o"
    _, by_record, _ = _answers(tmp_path, run, [line], "--out", str(out / "record"))
    proc, by_suite, _ = _answers(
        tmp_path, run, [line], "--cases", str(runs["suite"]), "--out", str(out / "suite")
    )
    assert proc.returncode == 0, proc.stderr
    assert by_record["half"]["evidenceCheck"] == "record"
    assert by_record["half"]["class"] == "evidence_present_ignored"  # approximate without the suite
    assert by_suite["half"]["evidenceCheck"] == "suite"
    assert by_suite["half"]["class"] == "evidence_absent"
    assert by_suite["half"]["missingGroupIds"] == ["validator"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"caseId": "c", "attemptId": "a", "contextIds": [], "verdict": "maybe"}, "verdict"),
        ({"caseId": "c", "attemptId": "a", "verdict": "pass"}, "contextIds"),
        ({"caseId": "c", "attemptId": "a", "contextIds": "x", "verdict": "pass"}, "contextIds"),
    ],
    ids=["unknown-verdict", "no-context", "context-not-a-list"],
)
def test_malformed_lines_are_bad_input(
    runs: dict[str, Path], tmp_path: Path, line: dict[str, Any], message: str
) -> None:
    log = tmp_path / "answers.jsonl"
    log.write_text("\n" + json.dumps(line) + "\n")
    proc = run_cli(
        "answers", str(log), "--results", str(runs["live"]), "--out", str(tmp_path / "o")
    )
    assert proc.returncode == 2
    assert f"{log}:2" in proc.stderr and message in proc.stderr
