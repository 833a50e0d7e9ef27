"""Writing a run's artifacts: atomic, deterministic, jq-friendly."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec

from codegold import EVALUATOR_VERSION, __version__
from codegold._io import write_json_atomic
from codegold.attempts import Attempt
from codegold.cases.suite import Suite
from codegold.evaluate.records import CaseResult
from codegold.evaluate.summary import summarize

RESULTS = "results.json"
SUMMARY = "summary.json"
ATTEMPTS = "attempts.jsonl"


def run_identity(
    suite: Suite, attempts: Sequence[Attempt], *, attempts_digest: str | None = None
) -> dict[str, Any]:
    manifests: dict[str, Any] = {}
    for attempt in attempts:
        if attempt.index is not None:
            manifests.setdefault(attempt.index.build_id, msgspec.to_builtins(attempt.index))
    retrievers = sorted(
        {
            f"{a.retriever.name}/{a.retriever.version or '?'}"
            for a in attempts
            if a.retriever is not None
        }
    )
    return {
        "codegoldVersion": __version__,
        "evaluatorVersion": EVALUATOR_VERSION,
        "suite": {
            "name": suite.name,
            "file": Path(suite.path).name,
            "digest": suite.digest,
            "repository": suite.repository_name,
            "revisions": list(suite.revisions),
        },
        "attemptsDigest": attempts_digest,
        "retrievers": retrievers,
        "indexes": [manifests[k] for k in sorted(manifests)],
    }


def write_results(
    out_dir: str | Path,
    records: Sequence[CaseResult],
    identity: dict[str, Any],
) -> dict[str, Any]:
    """Write results.json then summary.json; returns the summary."""
    out = Path(out_dir)
    summary = summarize(records, identity)
    write_json_atomic(out / RESULTS, list(records), pretty=False)
    write_json_atomic(out / SUMMARY, summary)
    return summary


def load_results(path: str | Path) -> list[CaseResult]:
    """Read a results.json back (for compare, gate, report, diagnose)."""
    from codegold.errors import InputError

    p = Path(path)
    if p.is_dir():
        p = p / RESULTS
    try:
        return msgspec.json.decode(p.read_bytes(), type=list[CaseResult])
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise InputError(f"not a codegold results file: {exc}", file=str(p)) from None
