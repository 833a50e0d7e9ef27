"""The metric registry: every figure a run reports, defined once.

A :class:`Metric` says what summary.json calls it (``name``), how a person reads it
(``label``, ``short`` for narrow tables, ``description``), how it is printed
(``format``), which way is better (``direction``) and how it aggregates over a set of
records (``aggregation`` of the per-record ``value``). Summary, gate, compare, tune, the
HTML and JUnit reports and the terminal table all read :data:`METRICS`; adding a metric
is one entry here (a mean over valid records needs only a ``value`` function of one
:class:`~codegold.evaluate.records.CaseResult`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from codegold.evaluate.records import CaseResult

Format = Literal["pct", "num", "int"]
Direction = Literal["higher", "lower"]


class Aggregation(StrEnum):
    """How a metric folds the records of a slice into one figure."""

    MEAN = "mean over valid records"  # None when no valid record defines it
    RECORDS = "number of records"
    CASES = "number of distinct cases"


@dataclass(frozen=True, slots=True)
class Metric:
    """One reported figure. ``value`` is the per-record number for a mean, or the
    predicate a counted record (or case) must meet."""

    name: str
    label: str
    format: Format
    direction: Direction
    aggregation: Aggregation
    value: Callable[[CaseResult], float | bool | None]
    """None: not defined for this record (a case without supporting targets has no
    supporting recall; a record written before the metric existed); a mean skips it."""
    description: str
    short: str = ""
    gate_key: str | None = None
    """The policy key that bounds it (``minX`` for higher-is-better, ``maxX`` else)."""
    optional: bool = False
    """Meaningful only for some runs (repeated attempts): tables show it when present."""
    family: Literal["core", "graded", "budget"] = "core"
    """``graded``: graded evidence; ``budget``: the context budget, shares of the
    cutoff's slots that sum to 1 (a table of its own rather than columns of the
    metrics table)."""

    @property
    def heading(self) -> str:
        """The label for a narrow table."""
        return self.short or self.label

    @property
    def bound(self) -> Literal["min", "max"]:
        return "min" if self.direction == "higher" else "max"

    def compute(self, records: Sequence[CaseResult]) -> float | int | None:
        """The figure over ``records`` (a slice, or a whole run)."""
        if self.aggregation is Aggregation.RECORDS:
            return sum(1 for r in records if self.value(r))
        if self.aggregation is Aggregation.CASES:
            return len({r.case_id for r in records if self.value(r)})
        values = [self.value(r) for r in records if r.valid]
        defined = [float(v) for v in values if v is not None]
        return math.fsum(defined) / len(defined) if defined else None

    def render(self, value: float | int | None, *, missing: str = "-") -> str:
        """``value`` as tables print it: a percentage, three decimals, or a count."""
        if value is None:
            return missing
        if self.format == "pct":
            return f"{float(value) * 100:.1f}%"
        if self.format == "num":
            return f"{float(value):.3f}"
        return str(value)


def _always(record: CaseResult) -> bool:
    return True


_BUDGET_ROWS: tuple[tuple[str, Direction, str | None, str], ...] = (
    ("accepted", "higher", None, "share of the cutoff filled by required evidence"),
    ("supporting", "higher", None, "share of the cutoff filled by supporting evidence"),
    ("forbidden", "lower", None, "share of the cutoff filled by forbidden chunks"),
    (
        "duplicate",
        "lower",
        "maxBudgetDuplicate",
        "share of the cutoff filled by duplicates of a chunk above (same file and "
        "overlapping span, or identical text)",
    ),
    ("other", "lower", None, "share of the cutoff filled by anything else"),
    ("unfilled", "lower", None, "share of the cutoff the retriever left empty"),
)
BUDGET_KINDS = tuple(row[0] for row in _BUDGET_ROWS)


def _budget(kind: str) -> Callable[[CaseResult], float | None]:
    def share(record: CaseResult) -> float | None:
        budget = record.context_budget
        return None if budget is None else float(getattr(budget, kind))

    return share


_ENTRIES = (
    Metric(
        "cases", "cases", "int", "higher", Aggregation.CASES, _always,
        "distinct cases with a record",
    ),
    Metric(
        "records", "records", "int", "higher", Aggregation.RECORDS, _always,
        "records: one per (case, attempt)",
    ),
    Metric(
        "valid", "valid", "int", "higher", Aggregation.RECORDS, lambda r: r.valid,
        "records whose attempt can be scored (index manifest of the pinned revision)",
    ),
    Metric(
        "invalid", "invalid", "int", "lower", Aggregation.RECORDS, lambda r: not r.valid,
        "records never scored: manifest missing, incomplete or of another revision",
        gate_key="maxInvalid",
    ),
    Metric(
        "passed", "passed", "int", "higher", Aggregation.RECORDS,
        lambda r: r.valid and r.passed,
        "valid records that passed",
    ),
    Metric(
        "failed", "failed", "int", "lower", Aggregation.RECORDS,
        lambda r: r.valid and not r.passed,
        "valid records that failed",
    ),
    Metric(
        "passRate", "pass rate", "pct", "higher", Aggregation.MEAN,
        lambda r: 1.0 if r.passed else 0.0,
        "every required group within the cutoff, nothing forbidden, one revision",
        short="pass", gate_key="minPassRate",
    ),
    Metric(
        "hitRate", "hit@cutoff", "pct", "higher", Aggregation.MEAN,
        lambda r: 1.0 if r.first_relevant_rank else 0.0,
        "an accepted chunk within the cutoff",
        short="hit", gate_key="minHitRate",
    ),
    Metric(
        "meanGroupRecall", "group recall", "num", "higher", Aggregation.MEAN,
        lambda r: r.group_recall or 0.0,  # None only on invalid records, never averaged
        "share of required evidence groups satisfied within the cutoff, mean",
        gate_key="minGroupRecall",
    ),
    Metric(
        "mrr", "MRR", "num", "higher", Aggregation.MEAN, lambda r: r.reciprocal_rank or 0.0,
        "reciprocal rank of the first relevant chunk within the cutoff, mean",
        gate_key="minMRR",
    ),
    Metric(
        "forbiddenRate", "forbidden", "pct", "lower", Aggregation.MEAN,
        lambda r: 1.0 if r.forbidden_chunk_ids else 0.0,
        "a forbidden chunk within the cutoff",
        gate_key="maxForbiddenRate",
    ),
    Metric(
        "revisionMismatchRate", "rev. mismatch", "pct", "lower", Aggregation.MEAN,
        lambda r: 1.0 if r.revision_mismatches else 0.0,
        "a chunk of another revision within the cutoff",
        short="rev.", gate_key="maxRevisionMismatchRate",
    ),
    Metric(
        "supportingRecall", "supporting recall", "num", "higher", Aggregation.MEAN,
        lambda r: r.supporting_recall,
        "share of supporting targets matched within the cutoff, mean over the cases "
        "that name any",
        short="supp.", gate_key="minSupportingRecall", family="graded",
    ),
    Metric(
        "gradedNdcg", "graded nDCG@cutoff", "num", "higher", Aggregation.MEAN,
        lambda r: r.graded_ndcg,
        "nDCG at the cutoff, required evidence 2, supporting 1, else 0 (ideal from the "
        "judged pool and the unretrieved gold; ir_measures nDCG@k on export-trec)",
        short="nDCG", gate_key="minGradedNdcg", family="graded",
    ),
    *(
        Metric(
            f"budget{kind.capitalize()}", f"context: {kind}", "pct", direction,
            Aggregation.MEAN, _budget(kind), text,
            short=kind, gate_key=gate_key, family="budget",
        )
        for kind, direction, gate_key, text in _BUDGET_ROWS
    ),
    Metric(
        "nondeterministic", "nondeterministic", "int", "lower", Aggregation.CASES,
        lambda r: bool(r.nondeterministic),
        "cases whose identical repeated attempts ranked differently",
        optional=True,
    ),
)  # fmt: skip

METRICS: dict[str, Metric] = {m.name: m for m in _ENTRIES}
"""Every metric, in summary.json order."""


def metric(name: str) -> Metric:
    """The registered metric ``name`` (KeyError naming the known ones otherwise)."""
    try:
        return METRICS[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r} (known: {', '.join(METRICS)})") from None


def means() -> tuple[Metric, ...]:
    """The metrics that are means over valid records (rates, recall, MRR)."""
    return tuple(m for m in METRICS.values() if m.aggregation is Aggregation.MEAN)


def family(name: str) -> tuple[Metric, ...]:
    """The metrics of one family (``core``, ``graded``, ``budget``), in registry order."""
    return tuple(m for m in METRICS.values() if m.family == name)


def counts() -> tuple[Metric, ...]:
    """The metrics that count records or cases."""
    return tuple(m for m in METRICS.values() if m.aggregation is not Aggregation.MEAN)


def gated() -> dict[str, Metric]:
    """Metrics a gate policy can bound, by policy key."""
    return {m.gate_key: m for m in METRICS.values() if m.gate_key is not None}
