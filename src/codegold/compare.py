"""Compare two runs case by case and slice by slice (SPEC §6 *compare*).

A case is compared on **one record per side: its first valid attempt in attemptId
order** (a case whose attempts are all invalid is represented by its first attempt
and is never scored). Pass/fail stays binary, so "passed before, fails now" keeps
one meaning; variation between repeated attempts is judged where they are scored (the
``nondeterministic`` flag of ``run --repeat N`` and ``eval``), and cases carrying
several attempts are counted in a note.

Per case, with both sides valid:

* ``regressed``: passed → failed; or the same pass state and group recall went down;
  or the same recall with a required group lost (another one gained instead).
* ``improved``: failed → passed, or the same pass state and group recall went up.
* ``rank_moved``: the same evidence groups satisfied, only the reciprocal rank moved.
  Swapping two acceptable chunks is not an evidence regression.
* ``unchanged``; ``new`` / ``removed`` (in one run only); ``invalid`` (in both runs,
  unscorable in at least one).

Per slice (``overall``, ``queryClass:X``, ``tag:X``, ``language:X``, ``area:X``,
``role:X``; a case is in a slice when either run labels it so) over the cases valid
in both runs: pass rate, MRR and mean group recall, base/head/delta, win/tie/loss,
a two-sided paired sign-flip randomization test and a paired percentile-bootstrap
95% interval on the difference of means. Both are drawn from
``numpy.random.default_rng([seed, crc32(slice), metric])``, so a slice's figures do
not depend on which other slices exist. Both work on the distinct values of the
per-case differences (of the ``c`` cases sharing a value, Binomial(c, ½) keep their sign,
drawn as a popcount of ``c`` random bits; a bootstrap resample is one multinomial draw
over the values' frequencies): the same distributions as flipping or resampling case
by case, at a cost that follows the number of distinct values, not of cases. The
p-value is ``(1 + #as extreme) / (1 + resamples)``, never 0. When the ``m`` cases that
moved have no more sign assignments than there are resamples (``2**m <= resamples``),
the p-value is exact instead: every assignment is counted.

Slices come out regressed first (pass rate down, or flat with group recall down), then
mixed (not worse on the whole but holding regressed cases), then improved, then
unchanged; ``overall`` first and then by name within each. A better overall mean never
hides a regressed slice.
"""

from __future__ import annotations

import html
import itertools
import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from codegold.errors import InputError
from codegold.evaluate.metrics import metric
from codegold.evaluate.records import CaseResult, RecordLike, as_records
from codegold.evaluate.summary import slice_names
from codegold.owners import owner_label

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt
    from rich.console import RenderableType

__all__ = [
    "CaseChange",
    "CaseSide",
    "ChangeStatus",
    "Comparison",
    "MetricDelta",
    "Record",
    "RecordLike",
    "SliceComparison",
    "SliceStatus",
    "compare_runs",
    "pair_runs",
    "record_slices",
    "select_attempts",
]

OVERALL = "overall"
MIN_CASES = 10
"""Below this many paired cases a slice's difference is reported as not meaningful."""

_COMPARED = tuple(metric(name) for name in ("passRate", "mrr", "meanGroupRecall"))
"""The registered metrics compared per slice, from each case's selected record."""
_TESTED = frozenset(("passRate", "mrr"))  # group recall: base/head/delta only
_TOL = 1e-12


class ChangeStatus(StrEnum):
    """What happened to one case between the base and the head run."""

    REGRESSED = "regressed"
    IMPROVED = "improved"
    RANK_MOVED = "rank_moved"
    UNCHANGED = "unchanged"
    NEW = "new"
    REMOVED = "removed"
    INVALID = "invalid"


class SliceStatus(StrEnum):
    """A slice's verdict; also its listing order."""

    REGRESSED = "regressed"
    MIXED = "mixed"
    IMPROVED = "improved"
    UNCHANGED = "unchanged"


_SLICE_ORDER = {s: i for i, s in enumerate(SliceStatus)}
_CASE_ORDER = {s: i for i, s in enumerate(ChangeStatus)}


# -- reading records -------------------------------------------------------------------

Record = CaseResult
"""A results.json record, as compare and gate read it: the type that wrote it."""
_R = TypeVar("_R", bound=CaseResult)


def select_attempts(records: Sequence[_R], *, source: str | None = None) -> dict[str, _R]:
    """One record per case: its first valid attempt in attemptId order, else its first.

    A repeated (caseId, attemptId) pair is an :class:`InputError`: two runs pasted into
    one file must not be compared silently.
    """
    by_case: dict[str, list[_R]] = {}
    for record in records:
        by_case.setdefault(record.case_id, []).append(record)
    chosen: dict[str, _R] = {}
    for case_id in sorted(by_case):
        attempts = sorted(by_case[case_id], key=lambda r: r.attempt_id or "")
        for a, b in itertools.pairwise(attempts):
            if a.attempt_id == b.attempt_id:
                raise InputError(
                    f"attempt {a.attempt_id!r} appears twice",
                    file=source,
                    case_id=case_id,
                    field="attemptId",
                )
        chosen[case_id] = next((r for r in attempts if r.valid), attempts[0])
    return chosen


def record_slices(record: Record) -> list[str]:
    """The slices a record belongs to, named as summary.json names them."""
    return slice_names(record)


# -- the comparison --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaseSide:
    """The record one run holds for a case (its selected attempt)."""

    attempt_id: str | None
    valid: bool
    passed: bool
    reciprocal_rank: float
    group_recall: float
    missing_group_ids: tuple[str, ...]
    first_relevant_rank: int | None
    forbidden: int
    revision_mismatches: int
    attempts: int
    values: tuple[float, ...] = ()
    """The record's value of each compared metric."""
    owner: str | None = None
    """Who acts on the record's failure: its diagnosis owner and team, if any."""

    @classmethod
    def of(cls, record: Record, attempts: int) -> CaseSide:
        return cls(
            attempt_id=record.attempt_id,
            valid=record.valid,
            passed=record.passed,
            reciprocal_rank=record.reciprocal_rank or 0.0,  # read only for valid sides
            group_recall=record.group_recall or 0.0,
            missing_group_ids=tuple(sorted(record.missing_group_ids)),
            first_relevant_rank=record.first_relevant_rank,
            forbidden=len(record.forbidden_chunk_ids),
            revision_mismatches=len(record.revision_mismatches),
            attempts=attempts,
            values=tuple(float(m.value(record) or 0.0) for m in _COMPARED),
            owner=(
                owner_label(record.diagnosis.owner, record.diagnosis.team)
                if record.diagnosis is not None and not record.passed
                else None
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "attemptId": self.attempt_id,
            "attempts": self.attempts,
            "valid": self.valid,
            "passed": self.passed,
            "reciprocalRank": _round(self.reciprocal_rank) if self.valid else None,
            "groupRecall": _round(self.group_recall) if self.valid else None,
            "missingGroupIds": list(self.missing_group_ids),
            "firstRelevantRank": self.first_relevant_rank,
            "forbiddenChunks": self.forbidden,
            "revisionMismatches": self.revision_mismatches,
        }


@dataclass(frozen=True, slots=True)
class CaseChange:
    """One case across the two runs."""

    case_id: str
    status: ChangeStatus
    reason: str
    slices: tuple[str, ...]
    base: CaseSide | None
    head: CaseSide | None

    @property
    def paired(self) -> bool:
        """Valid in both runs, hence scored."""
        return (
            self.base is not None and self.head is not None and self.base.valid and self.head.valid
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "caseId": self.case_id,
            "status": self.status.value,
            "reason": self.reason,
            "slices": list(self.slices),
            "base": self.base.to_dict() if self.base else None,
            "head": self.head.to_dict() if self.head else None,
        }


@dataclass(frozen=True, slots=True)
class MetricDelta:
    """One metric of one slice over its paired cases. ``None`` when there are none."""

    name: str
    base: float | None
    head: float | None
    delta: float | None
    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    wins: int
    ties: int
    losses: int

    @property
    def interval_spans_zero(self) -> bool:
        return (
            self.ci_low is not None
            and self.ci_high is not None
            and self.ci_low <= 0 <= self.ci_high
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": _round(self.base),
            "head": _round(self.head),
            "delta": _round(self.delta),
            "pValue": _round(self.p_value),
            "ci95": None if self.ci_low is None else [_round(self.ci_low), _round(self.ci_high)],
            "win": self.wins,
            "tie": self.ties,
            "loss": self.losses,
        }


@dataclass(frozen=True, slots=True)
class SliceComparison:
    """One slice across the two runs."""

    name: str
    status: SliceStatus
    paired: int
    new: int
    removed: int
    invalid: int
    regressed: int
    improved: int
    rank_moved: int
    unchanged: int
    metrics: tuple[MetricDelta, ...]
    notes: tuple[str, ...]

    def metric(self, name: str) -> MetricDelta:
        return next(m for m in self.metrics if m.name == name)

    @property
    def flagged(self) -> bool:
        """Regressed, or holding regressed cases although not worse on the whole."""
        return self.status in (SliceStatus.REGRESSED, SliceStatus.MIXED)

    def to_dict(self) -> dict[str, Any]:
        return {
            "slice": self.name,
            "status": self.status.value,
            "flagged": self.flagged,
            "cases": {
                "paired": self.paired,
                "new": self.new,
                "removed": self.removed,
                "invalid": self.invalid,
                "regressed": self.regressed,
                "improved": self.improved,
                "rankMoved": self.rank_moved,
                "unchanged": self.unchanged,
            },
            **{m.name: m.to_dict() for m in self.metrics},
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """The result of :func:`compare_runs`: dict, rich table and HTML views."""

    base_label: str
    head_label: str
    seed: int
    resamples: int
    cases: tuple[CaseChange, ...]
    slices: tuple[SliceComparison, ...]
    notes: tuple[str, ...]
    incomparable: tuple[str, ...] = ()  # why the two runs do not measure the same thing

    def by_status(self, status: ChangeStatus) -> tuple[CaseChange, ...]:
        return tuple(c for c in self.cases if c.status == status)

    @property
    def regressed_cases(self) -> tuple[CaseChange, ...]:
        return self.by_status(ChangeStatus.REGRESSED)

    @property
    def improved_cases(self) -> tuple[CaseChange, ...]:
        return self.by_status(ChangeStatus.IMPROVED)

    @property
    def flagged_slices(self) -> tuple[SliceComparison, ...]:
        return tuple(s for s in self.slices if s.flagged)

    def slice(self, name: str) -> SliceComparison:
        return next(s for s in self.slices if s.name == name)

    def counts(self) -> dict[str, int]:
        return {s.value: len(self.by_status(s)) for s in ChangeStatus}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, camelCase, deterministic; floats rounded to 6 decimals."""
        return {
            "base": self.base_label,
            "head": self.head_label,
            "seed": self.seed,
            "resamples": self.resamples,
            "test": "paired sign-flip randomization, two-sided",
            "interval": "paired percentile bootstrap, 95%",
            "attemptSelection": "first valid attempt by attemptId",
            "counts": self.counts(),
            "flaggedSlices": [s.name for s in self.flagged_slices],
            "slices": [s.to_dict() for s in self.slices],
            "cases": [c.to_dict() for c in self.cases],
            "notes": list(self.notes),
            "comparable": not self.incomparable,
            "incomparable": list(self.incomparable),
        }

    def to_rich(self, *, max_cases: int = 30) -> RenderableType:
        """A rich renderable: the slice table, then regressed and improved cases."""
        return _render_rich(self, max_cases=max_cases)

    def to_markdown(self, *, max_cases: int = 30) -> str:
        """GitHub-flavoured Markdown, for a CI step summary."""
        return _render_markdown(self, max_cases=max_cases)

    def to_html(self, *, max_cases: int = 500) -> str:
        """An HTML fragment (one ``<section>``, no scripts, no external assets)."""
        return _render_html(self, max_cases=max_cases)


def compare_runs(
    base: Sequence[RecordLike],
    head: Sequence[RecordLike],
    *,
    seed: int = 0,
    resamples: int = 10_000,
    base_label: str = "base",
    head_label: str = "head",
    incomparable: Sequence[str] = (),
) -> Comparison:
    """Compare two runs' results.json records. Inputs are never modified.

    ``incomparable`` (from :func:`run_differences`) says why the runs do not measure
    the same thing; it is printed first and kept in the JSON."""
    if resamples < 1:
        raise InputError("must be at least 1", field="resamples")
    if seed < 0:
        raise InputError("must be a non-negative integer", field="seed")
    changes, notes = pair_runs(base, head, base_label=base_label, head_label=head_label)
    members: dict[str, list[CaseChange]] = {OVERALL: list(changes)}
    for change in changes:
        for name in change.slices:
            members.setdefault(name, []).append(change)
    slices = [
        _compare_slice(name, members[name], seed=seed, resamples=resamples)
        for name in sorted(members)
    ]
    slices.sort(key=lambda s: (_SLICE_ORDER[s.status], s.name != OVERALL, s.name))
    ordered = sorted(changes, key=lambda c: (_CASE_ORDER[c.status], c.case_id))
    return Comparison(
        base_label=base_label,
        head_label=head_label,
        seed=seed,
        resamples=resamples,
        cases=tuple(ordered),
        slices=tuple(slices),
        notes=tuple(notes),
        incomparable=tuple(incomparable),
    )


def pair_runs(
    base: Sequence[RecordLike],
    head: Sequence[RecordLike],
    *,
    base_label: str = "base",
    head_label: str = "head",
) -> tuple[list[CaseChange], list[str]]:
    """Classify every case of either run (no statistics). Returns changes by case id,
    and run-level notes."""
    base_records = as_records(base, source=base_label)
    head_records = as_records(head, source=head_label)
    base_sel = select_attempts(base_records, source=base_label)
    head_sel = select_attempts(head_records, source=head_label)
    base_n = _attempt_counts(base_records)
    head_n = _attempt_counts(head_records)
    changes: list[CaseChange] = []
    for case_id in sorted(base_sel.keys() | head_sel.keys()):
        b = base_sel.get(case_id)
        h = head_sel.get(case_id)
        names = set()
        if b is not None:
            names.update(record_slices(b))
        if h is not None:
            names.update(record_slices(h))
        b_side = CaseSide.of(b, base_n[case_id]) if b is not None else None
        h_side = CaseSide.of(h, head_n[case_id]) if h is not None else None
        status, reason = _classify(b_side, h_side, base_label, head_label)
        changes.append(CaseChange(case_id, status, reason, tuple(sorted(names)), b_side, h_side))
    notes: list[str] = []
    repeated = sum(
        1 for c in changes if (c.base and c.base.attempts > 1) or (c.head and c.head.attempts > 1)
    )
    if repeated:
        notes.append(
            f"{_cases(repeated)} with repeated attempts; each side is compared on its first "
            "valid attempt by attemptId (their stability is the `nondeterministic` flag "
            "that `codegold run --repeat N` and `codegold eval` set)"
        )
    return changes, notes


def _attempt_counts(records: Sequence[Record]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in records:
        counts[r.case_id] = counts.get(r.case_id, 0) + 1
    return counts


def _classify(
    b: CaseSide | None, h: CaseSide | None, base_label: str, head_label: str
) -> tuple[ChangeStatus, str]:
    if b is None:
        return ChangeStatus.NEW, f"only in {head_label}"
    if h is None:
        return ChangeStatus.REMOVED, f"only in {base_label}"
    if not (b.valid and h.valid):
        where = [lbl for lbl, side in ((base_label, b), (head_label, h)) if not side.valid]
        return ChangeStatus.INVALID, f"invalid in {' and '.join(where)}: not scored"
    lost = sorted(set(h.missing_group_ids) - set(b.missing_group_ids))
    gained = sorted(set(b.missing_group_ids) - set(h.missing_group_ids))
    facts: list[str] = []
    if abs(h.group_recall - b.group_recall) > _TOL:
        facts.append(f"group recall {b.group_recall:.3g} → {h.group_recall:.3g}")
    if lost:
        facts.append(f"lost group {', '.join(lost)}")
    if gained:
        facts.append(f"gained group {', '.join(gained)}")
    if h.forbidden != b.forbidden:
        facts.append(f"forbidden chunks {b.forbidden} → {h.forbidden}")
    if h.revision_mismatches != b.revision_mismatches:
        facts.append(f"revision mismatches {b.revision_mismatches} → {h.revision_mismatches}")
    if h.first_relevant_rank != b.first_relevant_rank:
        facts.append(
            f"first relevant rank {_rank(b.first_relevant_rank)} → {_rank(h.first_relevant_rank)}"
        )
    detail = "; ".join(facts)
    if b.passed != h.passed:
        status = ChangeStatus.IMPROVED if h.passed else ChangeStatus.REGRESSED
        flip = "failed → passed" if h.passed else "passed → failed"
        return status, f"{flip}; {detail}" if detail else flip
    state = f"still {'passes' if h.passed else 'fails'}"
    if h.group_recall < b.group_recall - _TOL:
        return ChangeStatus.REGRESSED, f"{state}; {detail}"
    if h.group_recall > b.group_recall + _TOL:
        return ChangeStatus.IMPROVED, f"{state}; {detail}"
    if lost:
        return ChangeStatus.REGRESSED, f"{state}; evidence swapped: {detail}"
    if abs(h.reciprocal_rank - b.reciprocal_rank) > _TOL:
        return ChangeStatus.RANK_MOVED, f"{state}, same evidence groups; {detail}"
    return ChangeStatus.UNCHANGED, f"{state}; {detail}" if detail else state


def _cases(count: int) -> str:
    return f"{count} case" if count == 1 else f"{count} cases"


def _rank(rank: int | None) -> str:
    return "-" if rank is None else str(rank)


def _compare_slice(
    name: str, changes: Sequence[CaseChange], *, seed: int, resamples: int
) -> SliceComparison:
    import numpy as np

    counts = {s: 0 for s in ChangeStatus}
    for c in changes:
        counts[c.status] += 1
    sides = [(c.base, c.head) for c in changes if c.paired and c.base and c.head]
    n = len(sides)
    # one row per compared metric, one column per paired case
    rows = len(_COMPARED)
    base = np.array(
        [[b.values[k] for b, _ in sides] for k in range(rows)], dtype=np.float64
    ).reshape(rows, n)
    head = np.array(
        [[h.values[k] for _, h in sides] for k in range(rows)], dtype=np.float64
    ).reshape(rows, n)
    metrics = tuple(
        _metric_delta(
            m.name,
            base[k],
            head[k],
            seed=[seed, zlib.crc32(name.encode()), k],
            resamples=resamples if m.name in _TESTED else 0,
        )
        for k, m in enumerate(_COMPARED)
    )
    by_name = {m.name: m for m in metrics}
    regressed = counts[ChangeStatus.REGRESSED]
    improved = counts[ChangeStatus.IMPROVED]
    pass_delta = by_name["passRate"].delta or 0.0
    recall_delta = by_name["meanGroupRecall"].delta or 0.0
    if pass_delta < -_TOL or (abs(pass_delta) <= _TOL and recall_delta < -_TOL):
        status = SliceStatus.REGRESSED
    elif regressed:
        status = SliceStatus.MIXED
    elif improved:
        status = SliceStatus.IMPROVED
    else:
        status = SliceStatus.UNCHANGED
    return SliceComparison(
        name=name,
        status=status,
        paired=n,
        new=counts[ChangeStatus.NEW],
        removed=counts[ChangeStatus.REMOVED],
        invalid=counts[ChangeStatus.INVALID],
        regressed=regressed,
        improved=improved,
        rank_moved=counts[ChangeStatus.RANK_MOVED],
        unchanged=counts[ChangeStatus.UNCHANGED],
        metrics=metrics,
        notes=tuple(_slice_notes(n, status, regressed, metrics, counts)),
    )


def _slice_notes(
    n: int,
    status: SliceStatus,
    regressed: int,
    metrics: Sequence[MetricDelta],
    counts: Mapping[ChangeStatus, int],
) -> list[str]:
    notes: list[str] = []
    if n == 0:
        notes.append("no case is valid in both runs: nothing to compare")
    elif n < MIN_CASES:
        notes.append(
            f"only {n} paired case{'s' if n != 1 else ''}: too few for a difference "
            "in rates to mean anything; read the cases"
        )
    if status == SliceStatus.MIXED:
        notes.append(f"{_cases(regressed)} regressed although the slice is not worse on the whole")
    for m in metrics:
        if m.name not in _TESTED or n == 0 or m.delta is None or abs(m.delta) <= _TOL:
            continue
        if m.interval_spans_zero:
            notes.append(
                f"{m.name} {m.delta:+.3f}: 95% interval [{m.ci_low:.3f}, {m.ci_high:.3f}] "
                f"spans 0 (p={m.p_value:.3g}); may be noise"
            )
    if counts[ChangeStatus.INVALID]:
        notes.append(f"{_cases(counts[ChangeStatus.INVALID])} invalid in a run: not scored")
    if counts[ChangeStatus.NEW] or counts[ChangeStatus.REMOVED]:
        notes.append(
            f"{counts[ChangeStatus.NEW]} new and {counts[ChangeStatus.REMOVED]} removed case(s) "
            "are not in the paired figures"
        )
    return notes


def _metric_delta(
    name: str,
    base: npt.NDArray[np.float64],
    head: npt.NDArray[np.float64],
    *,
    seed: list[int],
    resamples: int,
) -> MetricDelta:
    n = int(base.size)
    if n == 0:
        return MetricDelta(name, None, None, None, None, None, None, 0, 0, 0)
    diff = head - base
    wins = int((diff > _TOL).sum())
    losses = int((diff < -_TOL).sum())
    p_value: float | None = None
    low: float | None = None
    high: float | None = None
    if resamples:
        p_value, low, high = _paired_tests(diff, seed=seed, resamples=resamples)
    b_mean = math.fsum(base.tolist()) / n
    h_mean = math.fsum(head.tolist()) / n
    return MetricDelta(
        name=name,
        base=b_mean,
        head=h_mean,
        delta=h_mean - b_mean,
        p_value=p_value,
        ci_low=low,
        ci_high=high,
        wins=wins,
        ties=n - wins - losses,
        losses=losses,
    )


def _paired_tests(
    diff: npt.NDArray[np.float64], *, seed: list[int], resamples: int
) -> tuple[float, float, float]:
    """Two-sided sign-flip p-value and percentile-bootstrap 95% interval of mean(diff).

    Cases sharing a difference value are interchangeable, so both resamplings run over
    the distinct values: a sign flip of ``c`` cases keeps Binomial(c, 1/2) of them
    positive (drawn as the popcount of ``c`` random bits), and a bootstrap resample of
    all ``n`` cases is one multinomial draw over the values' frequencies.
    """
    import numpy as np

    n = diff.size
    # Float noise in a difference must not count as a move.
    diff = np.where(np.abs(diff) <= _TOL, 0.0, diff)
    values, counts = np.unique(diff, return_counts=True)
    rng = np.random.default_rng(seed)

    nonzero = values != 0.0
    v, c = values[nonzero], counts[nonzero]
    if v.size == 0:
        p_value = 1.0
    elif int(c.sum()) < 63 and 1 << int(c.sum()) <= resamples:
        p_value = _exact_sign_flip_p(v, c)
    else:
        observed = abs(float(c @ v))
        words = (c + 63) // 64
        offsets = np.concatenate(([0], np.cumsum(words)[:-1]))
        mask = np.full(int(words.sum()), np.iinfo(np.uint64).max, dtype=np.uint64)
        tail = c - 64 * (words - 1)
        mask[offsets + words - 1] = np.array([(1 << int(t)) - 1 for t in tail], dtype=np.uint64)
        block = max(1, min(resamples, 2_000_000 // mask.size))
        as_extreme = 0
        for start in range(0, resamples, block):
            size = min(block, resamples - start)
            bits = rng.integers(0, 1 << 64, size=(size, mask.size), dtype=np.uint64) & mask
            kept = np.add.reduceat(_popcount(bits), offsets, axis=1, dtype=np.int64)
            sums = (2 * kept - c) @ v
            as_extreme += int((np.abs(sums) >= observed - 1e-9 * max(1.0, observed)).sum())
        p_value = (as_extreme + 1) / (resamples + 1)

    probs = counts / n
    means = np.empty(resamples)
    block = max(1, min(resamples, 4_000_000 // values.size))
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        drawn = rng.multinomial(n, probs, size=size)
        means[start : start + size] = (drawn @ values) / n
    low, high = np.quantile(means, [0.025, 0.975])
    return p_value, float(low), float(high)


def _exact_sign_flip_p(values: npt.NDArray[np.float64], counts: npt.NDArray[np.int64]) -> float:
    """The exact two-sided sign-flip p-value, by enumerating every assignment of signs.

    Used when the ``m`` non-zero differences have no more than ``resamples`` sign
    assignments (2**m), so a Monte Carlo estimate would only add noise: with 8 cases
    all improved by the same amount, p is exactly 2/256. Assignments are counted per
    distinct value (``comb(c, k)`` ways to keep ``k`` of its ``c`` cases positive).
    """
    from math import comb

    observed = abs(float(counts @ values))
    tol = 1e-9 * max(1.0, observed)
    sums: dict[float, int] = {0.0: 1}
    for value, count in zip(values.tolist(), counts.tolist(), strict=True):
        step: dict[float, int] = {}
        for total, ways in sums.items():
            for kept in range(count + 1):
                key = round(total + (2 * kept - count) * value, 9)
                step[key] = step.get(key, 0) + ways * comb(count, kept)
        sums = step
    as_extreme = sum(ways for total, ways in sums.items() if abs(total) >= observed - tol)
    return as_extreme / (1 << int(counts.sum()))


def _popcount(words: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """Set bits per 64-bit word (numpy >= 2 has it built in; SWAR otherwise)."""
    import numpy as np

    count = getattr(np, "bitwise_count", None)
    if count is not None:
        result: npt.NDArray[np.uint64] = count(words)
        return result
    x = words - ((words >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    swar: npt.NDArray[np.uint64] = (x * np.uint64(0x0101010101010101)) >> np.uint64(56)
    return swar


def _round(value: float | None) -> float | None:
    if value is None:
        return None
    rounded = round(value, 6)
    return 0.0 if rounded == 0 else rounded


# -- views -----------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.1f}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _delta(m: MetricDelta, scale: float) -> str:
    if m.delta is None:
        return "-"
    digits = 1 if scale == 100 else 3
    text = f"{m.delta * scale:+.{digits}f}"
    if m.ci_low is not None and m.ci_high is not None:
        text += f" [{m.ci_low * scale:+.{digits}f}, {m.ci_high * scale:+.{digits}f}]"
    return text


def _p(m: MetricDelta) -> str:
    return "-" if m.p_value is None else f"{m.p_value:.2g}"


def _caveats(s: SliceComparison) -> str:
    """Short markers for the terminal; the full sentences are in ``notes``."""
    marks: list[str] = []
    if s.paired == 0:
        marks.append("nothing paired")
    elif s.paired < MIN_CASES:
        marks.append(f"n<{MIN_CASES}")
    noisy = [
        m.name
        for m in s.metrics
        if m.delta is not None and abs(m.delta) > _TOL and m.interval_spans_zero
    ]
    if noisy:
        marks.append("CI spans 0: " + ",".join(noisy))
    unpaired = s.new + s.removed + s.invalid
    if unpaired:
        marks.append(f"{unpaired} unpaired")
    return "; ".join(marks)


_PASS, _MRR = metric("passRate"), metric("mrr")
_COLUMNS = (
    "slice",
    "status",
    "n",
    f"{_PASS.heading} % base→head",
    "Δ pts [95% CI]",
    "p",
    f"{_MRR.heading} base→head",
    "Δ [95% CI]",
    "p",
    "reg/imp/rank",
    "caveats",
)


def _slice_row(s: SliceComparison) -> list[str]:
    pr = s.metric(_PASS.name)
    mrr = s.metric(_MRR.name)
    return [
        s.name,
        s.status.value.upper() if s.flagged else s.status.value,
        str(s.paired),
        f"{_pct(pr.base)}→{_pct(pr.head)}",
        _delta(pr, 100),
        _p(pr),
        f"{_num(mrr.base)}→{_num(mrr.head)}",
        _delta(mrr, 1),
        _p(mrr),
        f"{s.regressed}/{s.improved}/{s.rank_moved}",
        _caveats(s),
    ]


_NARROW_ORDER = (0, 1, 2, 3, 5, 9, 4, 6, 8, 7)
"""Column indexes of :data:`_COLUMNS` (caveats aside) by importance, for a narrow
terminal: slice, status, n, pass rate, its p, reg/imp/rank, then the rest."""


def _render_rich(cmp: Comparison, *, max_cases: int) -> RenderableType:
    return _RichComparison(cmp, max_cases)


class _RichComparison:
    """The comparison for a terminal, laid out for its width: regressed and improved
    cases first, then the slice table with the columns that fit (most important
    first, slice names never cut), then the caveats."""

    def __init__(self, cmp: Comparison, max_cases: int) -> None:
        self.cmp, self.max_cases = cmp, max_cases

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich import box
        from rich.table import Table
        from rich.text import Text

        cmp = self.cmp
        if cmp.incomparable:
            yield Text("not comparable: " + "; ".join(cmp.incomparable), style="bold red")
        counts = cmp.counts()
        yield Text("cases: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()))
        for status, style in ((ChangeStatus.REGRESSED, "red"), (ChangeStatus.IMPROVED, "green")):
            cases = cmp.by_status(status)
            if not cases:
                continue
            yield Text(f"{status.value} cases ({len(cases)}):", style=f"bold {style}")
            for c in cases[: self.max_cases]:
                owner = f" (owner: {c.head.owner})" if c.head and c.head.owner else ""
                yield Text(f"  {c.case_id}: {c.reason}{owner}", style=style)
            if len(cases) > self.max_cases:
                yield Text(f"  … {len(cases) - self.max_cases} more (use --json)")
        rows = [_slice_row(s) for s in cmp.slices]
        width = options.max_width
        names = max(len(r[0]) for r in rows) if rows else 5
        wide = width >= 150
        order = tuple(range(len(_COLUMNS))) if wide else _NARROW_ORDER
        used, chosen = 0, list[int]()
        for i in order:
            cell = max([len(_COLUMNS[i]), *(len(r[i]) for r in rows)]) + 3
            if i == 0:
                cell = names + 2
            if used + cell > width and len(chosen) >= 3:
                break
            used += cell
            chosen.append(i)
        table = Table(
            title=f"codegold compare: {cmp.base_label} → {cmp.head_label}",
            title_justify="left",
            caption=(
                "paired over cases valid in both runs; p: two-sided sign-flip test; "
                f"CI: paired bootstrap; {cmp.resamples} resamples, seed {cmp.seed}; "
                "reg/imp/rank: regressed, improved, rank-moved cases"
            ),
            caption_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
        )
        for i in chosen:
            col = _COLUMNS[i]
            left = col in ("slice", "status", "caveats")
            table.add_column(
                col,
                justify="left" if left else "right",
                no_wrap=col != "caveats",
                min_width=names if i == 0 else None,
            )
        for s, row in zip(cmp.slices, rows, strict=True):
            row_style = {SliceStatus.REGRESSED: "bold red", SliceStatus.MIXED: "yellow"}.get(
                s.status
            )
            table.add_row(*(Text(row[i]) for i in chosen), style=row_style)
        yield table
        left_out = [_COLUMNS[i] for i in range(len(_COLUMNS) - 1) if i not in chosen]
        if left_out:
            yield Text(f"(not shown at {width} columns: {', '.join(left_out)}; --json has them)")
        for s in cmp.flagged_slices:
            for note in s.notes:
                yield Text(f"{s.name}: {note}", style="yellow")
        for note in cmp.notes:
            yield Text(f"note: {note}")


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _render_markdown(cmp: Comparison, *, max_cases: int) -> str:
    flagged = len(cmp.flagged_slices)
    verdict = f"{flagged} slice(s) flagged" if flagged else "no slice flagged"
    out = [
        f"### codegold compare: {_md_cell(cmp.base_label)} → {_md_cell(cmp.head_label)}"
        f" ({verdict})",
        "",
        *(
            [f"**Not comparable:** {_md_cell('; '.join(cmp.incomparable))}", ""]
            if cmp.incomparable
            else []
        ),
        "| " + " | ".join(_COLUMNS) + " |",
        "|"
        + "|".join("---" if c in ("slice", "status", "caveats") else "---:" for c in _COLUMNS)
        + "|",
    ]
    for s in cmp.slices:
        row = _slice_row(s)
        if s.flagged:
            row[0] = f"**{row[0]}**"
        out.append("| " + " | ".join(_md_cell(c) for c in row) + " |")
    out.append("")
    out.append(
        f"Paired over cases valid in both runs; p: two-sided sign-flip test; CI: paired "
        f"bootstrap ({cmp.resamples} resamples, seed {cmp.seed})."
    )
    for s in cmp.flagged_slices:
        for note in s.notes:
            out.append(f"- **{_md_cell(s.name)}**: {_md_cell(note)}")
    counts = cmp.counts()
    out.append("")
    out.append("Cases: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()))
    for status in (ChangeStatus.REGRESSED, ChangeStatus.IMPROVED):
        cases = cmp.by_status(status)
        if not cases:
            continue
        out += ["", f"**{status.value} cases ({len(cases)})**", ""]
        out += [
            f"- `{c.case_id}`: {_md_cell(c.reason)}"
            + (f" (owner: {_md_cell(c.head.owner)})" if c.head and c.head.owner else "")
            for c in cases[:max_cases]
        ]
        if len(cases) > max_cases:
            out.append(f"- … {len(cases) - max_cases} more (`--json` has them all)")
    out += [f"\n> {_md_cell(n)}" for n in cmp.notes]
    return "\n".join(out) + "\n"


def _render_html(cmp: Comparison, *, max_cases: int) -> str:
    e = html.escape
    out: list[str] = [
        '<section class="codegold-compare">',
        f"<h2>Compare: {e(cmp.base_label)} → {e(cmp.head_label)}</h2>",
        "<p>Paired over cases valid in both runs; two-sided sign-flip randomization test "
        f"and paired percentile-bootstrap 95% interval, {cmp.resamples} resamples, "
        f"seed {cmp.seed}. Flagged slices come first.</p>",
        "<table>",
        "<thead><tr>" + "".join(f"<th>{e(c)}</th>" for c in _COLUMNS[:-1]) + "</tr></thead>",
        "<tbody>",
    ]
    for s in cmp.slices:
        cells = "".join(f"<td>{e(v)}</td>" for v in _slice_row(s)[:-1])
        out.append(f'<tr class="status-{s.status.value}">{cells}</tr>')
    out.append("</tbody></table>")
    # notes under the table, only for the slices that have some (most have none)
    noted = [s for s in cmp.slices if s.notes]
    if noted:
        out.append('<ul class="slice-notes">')
        out.extend(f"<li><b>{e(s.name)}</b>: {e('; '.join(s.notes))}</li>" for s in noted)
        out.append("</ul>")
    for status in (ChangeStatus.REGRESSED, ChangeStatus.IMPROVED, ChangeStatus.RANK_MOVED):
        cases = cmp.by_status(status)
        if not cases:
            continue
        label = status.value.replace("_", " ")
        out.append(f'<h3 class="cases-{status.value}">{e(label)} cases ({len(cases)})</h3>')
        out.append("<ul>")
        out.extend(
            f"<li><code>{e(c.case_id)}</code>: {e(c.reason)}</li>" for c in cases[:max_cases]
        )
        if len(cases) > max_cases:
            out.append(f"<li>… {len(cases) - max_cases} more in the JSON output</li>")
        out.append("</ul>")
    out.extend(f'<p class="note">{e(note)}</p>' for note in cmp.notes)
    out.append("</section>")
    return "\n".join(out) + "\n"


# -- comparability ---------------------------------------------------------------------


_SUMMARY = "summary.json"  # report.artifacts.SUMMARY (report imports compare)


def run_summary(path: str | Path) -> dict[str, Any] | None:
    """The summary.json beside a results.json (or in a run folder), when there is one."""
    p = Path(path)
    where = p / _SUMMARY if p.is_dir() else p.parent / _SUMMARY
    try:
        data = msgspec.json.decode(where.read_bytes())
    except (OSError, msgspec.DecodeError):
        return None
    return data if isinstance(data, dict) else None


def _mode(summary: Mapping[str, Any]) -> str:
    mode = summary.get("mode")
    if isinstance(mode, str):
        return mode
    return "recorded" if summary.get("attemptsDigest") else "live"


def _identity_differences(base: Mapping[str, Any], head: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    b_suite, h_suite = base.get("suite") or {}, head.get("suite") or {}
    if b_suite.get("digest") != h_suite.get("digest"):
        out.append(
            f"different suites (cases digest {str(b_suite.get('digest'))[:12]} vs "
            f"{str(h_suite.get('digest'))[:12]}): a label change can pass for a ranking change"
        )
    if base.get("evaluatorVersion") != head.get("evaluatorVersion"):
        out.append(
            f"different evaluator versions ({base.get('evaluatorVersion')} vs "
            f"{head.get('evaluatorVersion')})"
        )
    if _mode(base) != _mode(head):
        out.append(f"different modes ({_mode(base)} vs {_mode(head)} attempts)")
    return out


def _cutoff_differences(base: Sequence[CaseResult], head: Sequence[CaseResult]) -> list[str]:
    b = {r.case_id: r.cutoff for r in base}
    h = {r.case_id: r.cutoff for r in head}
    moved = sorted(c for c in b.keys() & h.keys() if b[c] != h[c])
    if not moved:
        return []
    shown = ", ".join(f"{c}: {b[c]} → {h[c]}" for c in moved[:3])
    more = f" and {len(moved) - 3} more" if len(moved) > 3 else ""
    return [f"different cutoffs for {_cases(len(moved))} ({shown}{more})"]


def run_differences(
    base: Sequence[RecordLike],
    head: Sequence[RecordLike],
    base_summary: Mapping[str, Any] | None,
    head_summary: Mapping[str, Any] | None,
) -> list[str]:
    """Why two runs do not measure the same thing (empty when they do): another suite
    (digest), other cutoffs, another evaluator version, or live against recorded."""
    out: list[str] = []
    if base_summary is not None and head_summary is not None:
        out.extend(_identity_differences(base_summary, head_summary))
    out.extend(_cutoff_differences(as_records(base), as_records(head)))
    return out
