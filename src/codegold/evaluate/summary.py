"""Aggregates computed from per-case records, overall and per slice (SPEC §3)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from codegold.evaluate.metrics import METRICS
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


def aggregate(records: Sequence[CaseResult]) -> dict[str, Any]:
    """Every registered metric over a set of records (rates over valid records, None
    when there are none), then the failures' causes and owners."""
    figures: dict[str, Any] = {m.name: m.compute(records) for m in METRICS.values()}
    figures["causes"] = dict(sorted(Counter(_cause(r) for r in records if _cause(r)).items()))
    figures["owners"] = dict(sorted(Counter(_owner(r) for r in records if _owner(r)).items()))
    return figures


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
