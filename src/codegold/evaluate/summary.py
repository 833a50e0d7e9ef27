"""Aggregates computed from per-case records, overall and per slice (SPEC §3)."""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from codegold.evaluate.records import CaseResult

SLICE_KINDS = ("queryClass", "tag", "language", "area", "role")


def slice_names(record: CaseResult) -> list[str]:
    """Every slice a record belongs to, named ``kind:value``."""
    names: list[str] = []
    if record.query_class:
        names.append(f"queryClass:{record.query_class}")
    names.extend(f"tag:{t}" for t in record.tags)
    if record.language:
        names.append(f"language:{record.language}")
    if record.area:
        names.append(f"area:{record.area}")
    names.extend(f"role:{r}" for r in record.target_roles)
    return names


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def aggregate(records: Sequence[CaseResult]) -> dict[str, Any]:
    """Metrics over a set of records. Rates are over valid records; None when there are none."""
    valid = [r for r in records if r.valid]
    failed = [r for r in valid if not r.passed]
    return {
        "cases": len({r.case_id for r in records}),
        "records": len(records),
        "valid": len(valid),
        "invalid": len(records) - len(valid),
        "passed": sum(1 for r in valid if r.passed),
        "failed": len(failed),
        "passRate": _mean([1.0 if r.passed else 0.0 for r in valid]),
        "hitRate": _mean([1.0 if r.first_relevant_rank else 0.0 for r in valid]),
        "meanGroupRecall": _mean([r.group_recall for r in valid]),
        "mrr": _mean([r.reciprocal_rank for r in valid]),
        "forbiddenRate": _mean([1.0 if r.forbidden_chunk_ids else 0.0 for r in valid]),
        "revisionMismatchRate": _mean([1.0 if r.revision_mismatches else 0.0 for r in valid]),
        # cases whose identical repeated attempts ranked differently (see evaluate.repeat)
        "nondeterministic": len({r.case_id for r in records if r.nondeterministic}),
        "causes": dict(sorted(Counter(_cause(r) for r in records if _cause(r)).items())),
        "owners": dict(sorted(Counter(_owner(r) for r in records if _owner(r)).items())),
    }


def _cause(record: CaseResult) -> str | None:
    if record.passed or record.diagnosis is None:
        return None
    return record.diagnosis.cause


def _owner(record: CaseResult) -> str | None:
    if record.passed or record.diagnosis is None:
        return None
    return record.diagnosis.owner


def summarize(records: Sequence[CaseResult], identity: dict[str, Any]) -> dict[str, Any]:
    """The summary.json document: run identity, overall and per-slice aggregates."""
    ordered = sorted(records, key=lambda r: (r.case_id, r.attempt_id or ""))
    by_slice: dict[str, list[CaseResult]] = defaultdict(list)
    for record in ordered:
        for name in slice_names(record):
            by_slice[name].append(record)
    return {
        **identity,
        "overall": aggregate(ordered),
        "slices": {name: aggregate(rs) for name, rs in sorted(by_slice.items())},
    }
