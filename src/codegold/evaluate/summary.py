"""Aggregates computed from per-case records, overall and per slice (SPEC §3)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any

from codegold.evaluate.metrics import METRICS
from codegold.evaluate.records import CaseResult

SLICE_KINDS = ("queryClass", "tag", "language", "area", "role", "context", "mode")


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
    if record.context_kinds is not None:  # None: a record older than context slices
        names.extend(f"context:{k}" for k in record.context_kinds or ["none"])
    if record.mode:
        names.append(f"mode:{record.mode}")
    return names


def aggregate(records: Sequence[CaseResult]) -> dict[str, Any]:
    """Every registered metric over a set of records (rates over valid records, None
    when there are none), then the failures' causes and owners."""
    figures: dict[str, Any] = {m.name: m.compute(records) for m in METRICS.values()}
    figures["causes"] = dict(sorted(Counter(_cause(r) for r in records if _cause(r)).items()))
    figures["owners"] = dict(sorted(Counter(_owner(r) for r in records if _owner(r)).items()))
    teams = Counter(_team(r) for r in records if _team(r))
    if teams:  # only with an [owners] table
        figures["teams"] = dict(sorted(teams.items()))
    return figures


def _team(record: CaseResult) -> str | None:
    if record.passed or record.diagnosis is None:
        return None
    return record.diagnosis.team


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
    modes = Counter(r.mode or "unknown" for r in ordered)
    summary: dict[str, Any] = dict(identity)
    if modes:
        # the mode that produced every record, or "mixed" (then `modes` says how many)
        summary["mode"] = next(iter(modes)) if len(modes) == 1 else "mixed"
        summary["modes"] = dict(sorted(modes.items()))
    summary["overall"] = aggregate(ordered)
    summary["slices"] = {name: aggregate(rs) for name, rs in sorted(by_slice.items())}
    if len(modes) > 1:
        summary["slicesByMode"] = {
            mode: {name: aggregate(rs) for name, rs in split_slices(ordered, mode).items()}
            for mode in sorted(modes)
        }
    return summary


def split_slices(records: Sequence[CaseResult], mode: str) -> dict[str, list[CaseResult]]:
    """The slice table of the records ``mode`` produced (``overall`` first): a slice
    table split by mode is this for each mode."""
    mine = [r for r in records if (r.mode or "unknown") == mode]
    by_slice: dict[str, list[CaseResult]] = {"overall": mine}
    for record in mine:
        for name in slice_names(record):
            if not name.startswith("mode:"):
                by_slice.setdefault(name, []).append(record)
    return dict(sorted(by_slice.items(), key=lambda kv: (kv[0] != "overall", kv[0])))
