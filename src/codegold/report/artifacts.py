"""Writing a run's artifacts: atomic, deterministic, jq-friendly."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from codegold import EVALUATOR_VERSION, __version__
from codegold._io import write_json_array_atomic, write_json_atomic
from codegold.attempts import Attempt
from codegold.cases.suite import Suite
from codegold.evaluate.records import RESULTS, CaseResult, load_results
from codegold.evaluate.summary import summarize

SUMMARY = "summary.json"
ATTEMPTS = "attempts.jsonl"

__all__ = [
    "ATTEMPTS",
    "RESULTS",
    "SUMMARY",
    "AttemptLedger",
    "load_results",
    "run_identity",
    "write_results",
]


class AttemptLedger:
    """Remembers, as attempts stream past, the run identity they carry."""

    def __init__(self) -> None:
        self.manifests: dict[str, Any] = {}
        self.retrievers: set[str] = set()

    def watch(self, attempts: Iterable[Attempt]) -> Iterator[Attempt]:
        for attempt in attempts:
            if attempt.index is not None and attempt.index.build_id not in self.manifests:
                self.manifests[attempt.index.build_id] = msgspec.to_builtins(attempt.index)
            if attempt.retriever is not None:
                self.retrievers.add(f"{attempt.retriever.name}/{attempt.retriever.version or '?'}")
            yield attempt


def run_identity(
    suite: Suite, attempts: Iterable[Attempt] | AttemptLedger, *, attempts_digest: str | None = None
) -> dict[str, Any]:
    if isinstance(attempts, AttemptLedger):
        ledger = attempts
    else:
        ledger = AttemptLedger()
        for _ in ledger.watch(attempts):
            pass
    manifests = ledger.manifests
    retrievers = sorted(ledger.retrievers)
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
    """Write results.json then summary.json; returns the summary. Free text (queries,
    invalid reasons, diagnoses) is written redacted."""
    from codegold.redact import redact_record

    out = Path(out_dir)
    records = [redact_record(r)[0] for r in records]
    summary = summarize(records, identity)
    write_json_array_atomic(out / RESULTS, records)
    write_json_atomic(out / SUMMARY, summary)
    return summary
