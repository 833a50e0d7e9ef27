"""Aggregates computed from per-case records, overall and per slice (SPEC §3)."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import itemgetter
from typing import Any

from codegold.evaluate.metrics import METRICS, Aggregation
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
    tally = Tally()
    for record in records:
        tally.add(record)
    return tally.aggregate(range(len(tally)))


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


@dataclass(frozen=True, slots=True)
class TallyColumns:
    """A :class:`Tally`'s columns as plain, picklable values (see :meth:`Tally.columns`)."""

    numbers: list[array[float]]
    undefined: list[bool]
    case_ids: list[str]
    causes: list[str | None]
    owners: list[str | None]
    teams: list[str | None]
    slices: dict[str, array[int]]
    mode_rows: dict[str, array[int]]


class Tally:
    """What summary.json needs of each record, kept column by column (a number per
    metric, the case id, the mode, the cause, owner and team, the slices it is in), so
    the records themselves need not stay in memory: feed them with :meth:`add` as
    they are scored, in any order, then ask for :meth:`summary`.

    Every aggregate is order-free (exactly rounded sums, counts, sets, sorted
    counters), so the figures are those of the records in any order."""

    def __init__(self) -> None:
        self._metrics = list(METRICS.values())
        self._numbers = [array("d") for _ in self._metrics]
        pairs = list(zip(self._metrics, self._numbers, strict=True))
        self._means = [
            (i, m.value, column)
            for i, (m, column) in enumerate(pairs)
            if m.aggregation is Aggregation.MEAN
        ]
        """per mean: its metric's index, how to read its value, its column"""
        self._counted = [
            (m.value, column) for m, column in pairs if m.aggregation is not Aggregation.MEAN
        ]
        """per counted metric: how to read whether a record counts, its column"""
        """per metric: its value (a mean's number, NaN when undefined or the record is
        invalid), or 1.0/0.0 for whether a counted record or case qualifies"""
        self._undefined = [False] * len(self._metrics)
        self._case_ids: list[str] = []
        self._causes: list[str | None] = []
        self._owners: list[str | None] = []
        self._teams: list[str | None] = []
        self._slices: dict[str, array[int]] = {}
        self._mode_rows: dict[str, array[int]] = {}

    def __len__(self) -> int:
        return len(self._case_ids)

    def add(self, record: CaseResult) -> int:
        """Count ``record`` in; its row (for :meth:`update`)."""
        row = len(self._case_ids)
        undefined = self._undefined
        if record.valid:
            for i, value_of, column in self._means:
                value = value_of(record)
                if value is None:
                    undefined[i] = True
                    column.append(_NAN)
                else:
                    column.append(float(value))
        else:  # an invalid record defines no mean
            for i, _, column in self._means:
                undefined[i] = True
                column.append(_NAN)
        for value_of, column in self._counted:
            column.append(1.0 if value_of(record) else 0.0)
        self._case_ids.append(record.case_id)
        mode = record.mode or "unknown"
        self._mode_rows.setdefault(mode, array("q")).append(row)
        diagnosis = None if record.passed else record.diagnosis
        if diagnosis is None:
            self._causes.append(None)
            self._owners.append(None)
            self._teams.append(None)
        else:
            self._causes.append(diagnosis.cause)
            self._owners.append(diagnosis.owner)
            self._teams.append(diagnosis.team)
        slices = self._slices
        for name in slice_names(record):
            rows = slices.get(name)
            if rows is None:
                rows = slices[name] = array("q")
            rows.append(row)
        return row

    def columns(self) -> TallyColumns:
        """What the tally holds, as plain values (to send from another process)."""
        return TallyColumns(
            numbers=self._numbers,
            undefined=self._undefined,
            case_ids=self._case_ids,
            causes=self._causes,
            owners=self._owners,
            teams=self._teams,
            slices=self._slices,
            mode_rows=self._mode_rows,
        )

    def extend(self, other: TallyColumns) -> None:
        """Count in the records of another tally's :meth:`columns`, as rows after these
        (in the order that tally added them)."""
        offset = len(self._case_ids)
        for i, mine in enumerate(self._numbers):
            mine.extend(other.numbers[i])
            other.numbers[i] = array("d")  # let it go now: one copy at a time
        self._undefined = [a or b for a, b in zip(self._undefined, other.undefined, strict=True)]
        self._case_ids.extend(other.case_ids)
        self._causes.extend(other.causes)
        self._owners.extend(other.owners)
        self._teams.extend(other.teams)
        for table, more in ((self._slices, other.slices), (self._mode_rows, other.mode_rows)):
            for name, rows in more.items():
                table.setdefault(name, array("q")).extend(r + offset for r in rows)

    def update(self, row: int, record: CaseResult) -> None:
        """Count ``record`` in place of the one added at ``row``: a record changed after
        it was counted (flagged nondeterministic), its case, mode and slices the same."""
        for i, value in enumerate(self._values(record)):
            self._numbers[i][row] = value
        self._causes[row] = _cause(record)
        self._owners[row] = _owner(record)
        self._teams[row] = _team(record)

    def _values(self, record: CaseResult) -> list[float]:
        out: list[float] = []
        for i, m in enumerate(self._metrics):
            if m.aggregation is Aggregation.MEAN:
                value = m.value(record) if record.valid else None
                if value is None:
                    self._undefined[i] = True
                    out.append(_NAN)
                else:
                    out.append(float(value))
            else:
                out.append(1.0 if m.value(record) else 0.0)
        return out

    def aggregate(self, rows: Sequence[int]) -> dict[str, Any]:
        """The aggregate of the records at ``rows`` (as :func:`aggregate` gives it)."""
        pick = _picker(rows)
        figures: dict[str, Any] = {}
        for i, m in enumerate(self._metrics):
            values = pick(self._numbers[i])
            if m.aggregation is Aggregation.RECORDS:
                figures[m.name] = int(sum(values))  # 1.0 per counted record: exact
            elif m.aggregation is Aggregation.CASES:
                figures[m.name] = len(set(compress(pick(self._case_ids), values)))
            else:
                defined = [v for v in values if v == v] if self._undefined[i] else values
                figures[m.name] = math.fsum(defined) / len(defined) if defined else None
        figures["causes"] = _counted(pick(self._causes))
        figures["owners"] = _counted(pick(self._owners))
        teams = _counted(pick(self._teams))
        if teams:  # only with an [owners] table
            figures["teams"] = teams
        return figures

    def summary(self, identity: dict[str, Any]) -> dict[str, Any]:
        """The summary.json document (as :func:`summarize` gives it)."""
        modes = {mode: len(rows) for mode, rows in sorted(self._mode_rows.items())}
        summary: dict[str, Any] = dict(identity)
        if modes:
            # the mode that produced every record, or "mixed" (then `modes` says how many)
            summary["mode"] = next(iter(modes)) if len(modes) == 1 else "mixed"
            summary["modes"] = modes
        overall = summary["overall"] = self.aggregate(range(len(self)))
        every: array[int] | None = None  # every row, to compare a slice's with

        def figures(rows: array[int]) -> dict[str, Any]:
            # a slice every record is in (one language, one mode...) is the overall
            # figures again: the same numbers, without summing every column once more
            nonlocal every
            if len(rows) == len(self):
                if every is None:
                    every = array("q", range(len(self)))
                if rows == every:
                    return {k: dict(v) if isinstance(v, dict) else v for k, v in overall.items()}
            return self.aggregate(rows)

        slices = sorted(self._slices.items())
        summary["slices"] = {name: figures(rows) for name, rows in slices}
        if len(modes) > 1:
            summary["slicesByMode"] = {mode: self._split(mode) for mode in modes}
        return summary

    def _split(self, mode: str) -> dict[str, Any]:
        """:func:`split_slices` of ``mode``, aggregated."""
        mine = self._mode_rows[mode]
        chosen = set(mine)
        by_slice: dict[str, Sequence[int]] = {"overall": mine}
        for name, rows in self._slices.items():
            if not name.startswith("mode:"):
                kept = [r for r in rows if r in chosen]
                if kept:
                    by_slice[name] = kept
        ordered = sorted(by_slice.items(), key=lambda kv: (kv[0] != "overall", kv[0]))
        return {name: self.aggregate(rows) for name, rows in ordered}


_NAN = float("nan")


def _picker(rows: Sequence[int]) -> Callable[[Sequence[Any]], Sequence[Any]]:
    """A function taking the items at ``rows`` of a column (at C speed)."""
    if len(rows) == 0:
        return lambda column: ()
    if len(rows) == 1:
        only = rows[0]
        return lambda column: (column[only],)
    if isinstance(rows, range) and rows.start == 0 and rows.step == 1:
        return lambda column: column[: rows.stop]
    return itemgetter(*rows)


def _counted(values: Iterable[str | None]) -> dict[str, int]:
    return dict(sorted(Counter(filter(None, values)).items()))


def summarize(records: Sequence[CaseResult], identity: dict[str, Any]) -> dict[str, Any]:
    """The summary.json document: run identity, overall and per-slice aggregates."""
    tally = Tally()
    for record in records:
        tally.add(record)
    return tally.summary(identity)


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
