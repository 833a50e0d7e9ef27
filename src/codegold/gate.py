"""Decide whether a run blocks CI (SPEC §6 *gate*).

The policy is TOML::

    [gate]
    minPassRate = 0.9                 # overall
    maxForbiddenRate = 0.0
    maxRevisionMismatchRate = 0.0
    maxInvalid = 0
    noRegression = ["tag:high-risk"]  # needs a baseline run
    [gate.slices."tag:high-risk"]
    minPassRate = 1.0

Thresholds, overall (``[gate]``) or per slice (``[gate.slices."kind:value"]``):
``minPassRate``, ``maxForbiddenRate``, ``maxRevisionMismatchRate``, ``maxInvalid``, and
the rank metrics ``minMRR``, ``minHitRate``, ``minGroupRecall``, which are gated only
when named (otherwise they are reported for trend). Any other key is an
:class:`~codegold.errors.InputError` naming the file and the key.

Semantics, chosen to match ``summary.json`` so a threshold means what the summary shows:

* Rates are over the **valid records** of the slice (every attempt counts), exactly the
  figures ``summary.json`` reports; ``maxInvalid`` counts invalid records.
* A named slice with no valid record is **not blocking**: its rate rules are reported as
  skipped with a warning (a misspelt slice name shows up there). The exception is
  ``overall``: a run with no valid record at all blocks every overall rate rule, since a
  gate that passes a run it could not score would be green for the wrong reason.
* ``noRegression`` lists slices in which no case that passed in the baseline may fail
  now (an evidence regression; cases compared on their first valid attempt by
  attemptId, as ``codegold compare`` does). The slice pass-rate delta over paired cases
  is reported with it. Cases that passed in the baseline but are missing or invalid now
  are warned about, not counted (``maxInvalid`` covers invalid runs).
* A policy with ``noRegression`` and no baseline is an :class:`InputError`: silently
  skipping a rule the team asked for would let CI pass unchecked.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from codegold.compare import OVERALL, CaseChange, pair_runs, record_slices
from codegold.errors import InputError
from codegold.evaluate.metrics import Metric, gated, means
from codegold.evaluate.records import CaseResult, RecordLike, as_records
from codegold.evaluate.summary import SLICE_KINDS, aggregate

__all__ = [
    "RULES",
    "GateCheck",
    "GateDecision",
    "GatePolicy",
    "Rule",
    "evaluate_gate",
    "load_policy",
    "parse_policy",
]

_TOL = 1e-12
_Fail = Callable[[str, str], InputError]


@dataclass(frozen=True, slots=True)
class Rule:
    """A threshold key: which registered metric it reads and which way it bounds it."""

    key: str
    metric: str
    bound: Literal["min", "max"]
    kind: Literal["rate", "count"]

    @classmethod
    def of(cls, m: Metric) -> Rule:
        assert m.gate_key is not None
        return cls(m.gate_key, m.name, m.bound, "count" if m.format == "int" else "rate")


def _in_order(metrics: Iterable[Metric], first: Sequence[str]) -> list[Metric]:
    """``metrics`` with the names of ``first`` first, in that order; the rest by name."""
    rank = {name: i for i, name in enumerate(first)}
    return sorted(metrics, key=lambda m: (rank.get(m.name, len(rank)), m.name))


RULES: dict[str, Rule] = {
    r.key: r
    for r in map(
        Rule.of,
        _in_order(
            gated().values(),
            ("passRate", "forbiddenRate", "revisionMismatchRate", "invalid", "mrr", "hitRate"),
        ),
    )
}
"""Every threshold a policy understands, in reporting order: one per registered metric
with a ``gate_key``."""

_TREND = tuple(
    m.name for m in _in_order(means(), ("passRate", "hitRate", "mrr", "meanGroupRecall"))
)
"""The means reported for trend when no rule gates them."""


@dataclass(frozen=True, slots=True)
class GatePolicy:
    """A parsed policy: ``(slice, rule key, threshold)`` triples and noRegression slices."""

    thresholds: tuple[tuple[str, str, float], ...]
    no_regression: tuple[str, ...] = ()
    source: str | None = None

    @property
    def slices(self) -> tuple[str, ...]:
        """Every slice the policy names, ``overall`` first."""
        named = {s for s, _, _ in self.thresholds} | set(self.no_regression)
        return tuple(sorted(named, key=lambda s: (s != OVERALL, s)))


@dataclass(frozen=True, slots=True)
class GateCheck:
    """One rule applied to one slice. ``observed`` is None when it could not be measured."""

    rule: str
    slice: str
    observed: float | None
    threshold: float
    passed: bool
    skipped: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "slice": self.slice,
            "observed": _round(self.observed),
            "threshold": self.threshold,
            "passed": self.passed,
            "skipped": self.skipped,
            "detail": self.detail,
        }

    def line(self) -> str:
        mark = "SKIP" if self.skipped else ("ok  " if self.passed else "FAIL")
        return f"{mark} {self.rule} [{self.slice}]: {self.detail}"


@dataclass(frozen=True, slots=True)
class GateDecision:
    """Every check, the warnings, and the aggregates the checks read."""

    checks: tuple[GateCheck, ...]
    warnings: tuple[str, ...]
    slices: tuple[tuple[str, Mapping[str, Any]], ...]
    policy: str | None
    baseline: str | None

    @property
    def reasons(self) -> tuple[GateCheck, ...]:
        """The failed checks: why the run is blocked (empty when it is not)."""
        return tuple(c for c in self.checks if not c.passed)

    @property
    def blocked(self) -> bool:
        return bool(self.reasons)

    def to_dict(self) -> dict[str, Any]:
        return {
            "blocked": self.blocked,
            "policy": self.policy,
            "baseline": self.baseline,
            "reasons": [c.to_dict() for c in self.reasons],
            "checks": [c.to_dict() for c in self.checks],
            "warnings": list(self.warnings),
            "slices": {name: _round_all(agg) for name, agg in self.slices},
        }

    def to_markdown(self) -> str:
        """The verdict as GitHub-flavoured Markdown, for a CI step summary: one table
        row per check, failed checks first."""
        verdict = (
            f"BLOCKED: {len(self.reasons)} of {len(self.checks)} checks failed"
            if self.blocked
            else f"PASSED: {len(self.checks)} checks"
        )
        out = [f"### codegold gate: {verdict}", ""]
        if self.policy:
            out += [
                f"Policy `{self.policy}`"
                + (f", baseline `{self.baseline}`" if self.baseline else ""),
                "",
            ]
        out += ["| | rule | slice | observed | threshold | detail |", "|---|---|---|---:|---:|---|"]
        for c in (*self.reasons, *(c for c in self.checks if c.passed)):
            mark = "⏭️" if c.skipped else ("✅" if c.passed else "❌")
            cells = (mark, c.rule, c.slice, _fmt(c.observed), _fmt(c.threshold), c.detail)
            out.append("| " + " | ".join(str(x).replace("|", "\\|") for x in cells) + " |")
        if self.warnings:
            out.append("")
            out += [f"> warning: {w}" for w in self.warnings]
        overall = dict(self.slices).get(OVERALL)
        if overall is not None:
            gated = {RULES[c.rule].metric for c in self.checks if c.slice == OVERALL}
            trend = [f"{m} {_fmt(overall.get(m))}" for m in _TREND if m not in gated]
            if trend:
                out += ["", "Trend (not gated): " + ", ".join(trend)]
        return "\n".join(out) + "\n"

    def lines(self) -> list[str]:
        """A plain-text verdict for CI logs: every reason, then the other checks."""
        verdict = (
            f"BLOCKED: {len(self.reasons)} of {len(self.checks)} checks failed"
            if self.blocked
            else f"PASSED: {len(self.checks)} checks"
        )
        out = [f"codegold gate: {verdict}" + (f" (policy {self.policy})" if self.policy else "")]
        out += [f"  {c.line()}" for c in self.reasons]
        out += [f"  {c.line()}" for c in self.checks if c.passed]
        out += [f"warning: {w}" for w in self.warnings]
        overall = dict(self.slices).get(OVERALL)
        if overall is not None:
            gated = {RULES[c.rule].metric for c in self.checks if c.slice == OVERALL}
            trend = [f"{m} {_fmt(overall.get(m))}" for m in _TREND if m not in gated]
            if trend:
                out.append("trend (not gated): " + ", ".join(trend))
        return out


# -- policy ----------------------------------------------------------------------------


def load_policy(path: str | Path) -> GatePolicy:
    """Read and validate a TOML policy file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    except (IsADirectoryError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read policy: {exc}", file=str(p)) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"not valid TOML: {exc}", file=str(p)) from None
    return parse_policy(data, source=str(p))


def parse_policy(data: Mapping[str, Any], *, source: str | None = None) -> GatePolicy:
    """Validate a decoded policy. An unknown key, a bad value or a bad slice name raises
    :class:`InputError` naming ``source`` and the key."""

    def fail(message: str, key: str) -> InputError:
        return InputError(message, file=source, field=key)

    for key in data:
        if key != "gate":
            raise fail("unknown key (the policy lives under [gate])", key)
    gate = data.get("gate")
    if not isinstance(gate, Mapping):
        raise fail("missing [gate] table", "gate")
    thresholds: list[tuple[str, str, float]] = []
    no_regression: tuple[str, ...] = ()
    for key, value in gate.items():
        where = f"gate.{key}"
        if key == "noRegression":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise fail("must be a list of slice names", where)
            for name in value:
                _check_slice_name(name, where, fail)
            no_regression = tuple(sorted(set(value), key=lambda s: (s != OVERALL, s)))
        elif key == "slices":
            if not isinstance(value, Mapping):
                raise fail('must be a table of slices, e.g. [gate.slices."tag:high-risk"]', where)
            for name in sorted(value):
                table_key = f'gate.slices."{name}"'
                _check_slice_name(name, table_key, fail)
                if name == OVERALL:
                    raise fail("put overall thresholds directly under [gate]", table_key)
                rules = value[name]
                if not isinstance(rules, Mapping):
                    raise fail("must be a table of thresholds", table_key)
                for rule_key, threshold in rules.items():
                    rule_where = f"{table_key}.{rule_key}"
                    if rule_key not in RULES:
                        raise fail(_unknown(rule_key), rule_where)
                    thresholds.append(
                        (name, rule_key, _threshold(RULES[rule_key], threshold, rule_where, fail))
                    )
        elif key in RULES:
            thresholds.append((OVERALL, key, _threshold(RULES[key], value, where, fail)))
        else:
            raise fail(_unknown(key), where)
    order = list(RULES)
    thresholds.sort(key=lambda t: (t[0] != OVERALL, t[0], order.index(t[1])))
    return GatePolicy(tuple(thresholds), no_regression, source)


def _unknown(key: str) -> str:
    known = ", ".join([*RULES, "noRegression", "slices"])
    return f"unknown key {key!r} (known: {known})"


def _check_slice_name(name: str, where: str, fail: _Fail) -> None:
    kind, sep, value = name.partition(":")
    if name == OVERALL or (sep and kind in SLICE_KINDS and value):
        return
    kinds = ", ".join(f"{k}:X" for k in SLICE_KINDS)
    raise fail(f"bad slice name {name!r} (use overall, {kinds})", where)


def _threshold(rule: Rule, value: Any, where: str, fail: _Fail) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(f"must be a number, not {type(value).__name__}", where)
    if rule.kind == "count":
        if not isinstance(value, int) or value < 0:
            raise fail("must be a whole number >= 0", where)
        return float(value)
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise fail("must be between 0 and 1", where)
    return float(value)


# -- evaluation ------------------------------------------------------------------------


def evaluate_gate(
    results: Sequence[RecordLike],
    policy: GatePolicy,
    baseline: Sequence[RecordLike] | None = None,
    *,
    results_label: str = "results",
    baseline_label: str = "baseline",
) -> GateDecision:
    """Apply ``policy`` to a run's results.json records (and a baseline run's, for
    ``noRegression``). Inputs are never modified; every check is returned."""
    if policy.no_regression and baseline is None:
        raise InputError(
            f"noRegression {list(policy.no_regression)} needs a baseline run (--baseline)",
            file=policy.source,
            field="gate.noRegression",
        )
    records = as_records(results, source=results_label)
    by_slice: dict[str, list[CaseResult]] = {name: [] for name in policy.slices}
    by_slice[OVERALL] = list(records)
    for record in records:
        for name in record_slices(record):
            members = by_slice.get(name)
            if members is not None:
                members.append(record)
    # The same function summary.json uses, on the same records.
    aggregates = {name: aggregate(rs) for name, rs in by_slice.items()}

    checks: list[GateCheck] = []
    warnings: list[str] = []
    empty_warned: set[str] = set()
    for name, key, threshold in policy.thresholds:
        agg = aggregates[name]
        check = _check(RULES[key], name, agg, threshold)
        if check.skipped and name not in empty_warned:
            empty_warned.add(name)
            warnings.append(
                f"slice {name} has no valid record in {results_label}: its rate rules were "
                "not evaluated (is the slice name right?)"
            )
        checks.append(check)

    if policy.no_regression and baseline is not None:
        changes, _ = pair_runs(
            baseline, records, base_label=baseline_label, head_label=results_label
        )
        for name in policy.no_regression:
            check, warning = _no_regression(name, changes, baseline_label)
            checks.append(check)
            if warning:
                warnings.append(warning)

    ordered_slices = sorted(aggregates, key=lambda s: (s != OVERALL, s))
    return GateDecision(
        checks=tuple(checks),
        warnings=tuple(warnings),
        slices=tuple((s, aggregates[s]) for s in ordered_slices),
        policy=policy.source,
        baseline=baseline_label if baseline is not None else None,
    )


def _check(rule: Rule, name: str, agg: Mapping[str, Any], threshold: float) -> GateCheck:
    observed = agg[rule.metric]
    valid = agg["valid"]
    if observed is None:
        if name == OVERALL:
            return GateCheck(
                rule.key,
                name,
                None,
                threshold,
                False,
                False,
                "no valid record in the run: nothing to gate on",
            )
        return GateCheck(rule.key, name, None, threshold, True, True, "no valid record in slice")
    value = float(observed)
    ok = value >= threshold - _TOL if rule.bound == "min" else value <= threshold + _TOL
    op = ">=" if rule.bound == "min" else "<="
    basis = (
        f"{agg['invalid']} invalid of {agg['records']} records"
        if rule.kind == "count"
        else f"over {valid} valid records"
    )
    detail = f"observed {_fmt(value)}, required {op} {_fmt(threshold)} ({basis})"
    return GateCheck(rule.key, name, value, threshold, ok, False, detail)


def _no_regression(
    name: str, changes: Sequence[CaseChange], baseline_label: str
) -> tuple[GateCheck, str | None]:
    members = [c for c in changes if name == OVERALL or name in c.slices]
    # (base passed, head passed) for cases valid in both runs
    paired: list[tuple[str, bool, bool]] = []
    lost: list[str] = []
    for c in members:
        if c.paired and c.base is not None and c.head is not None:
            paired.append((c.case_id, c.base.passed, c.head.passed))
        elif c.base is not None and c.base.valid and c.base.passed:
            lost.append(c.case_id)
    regressed = [case_id for case_id, before, now in paired if before and not now]
    warning = None
    if lost:
        warning = (
            f"noRegression [{name}]: {len(lost)} case(s) passed in {baseline_label} and are "
            f"missing or invalid now: {_list(lost)}"
        )
    if not paired:
        check = GateCheck(
            "noRegression",
            name,
            None,
            0.0,
            True,
            True,
            "no case valid in both runs: nothing to compare",
        )
        return check, warning or f"noRegression [{name}]: no case valid in both runs"
    base_rate = sum(1 for _, before, _ in paired if before) / len(paired)
    head_rate = sum(1 for _, _, now in paired if now) / len(paired)
    detail = (
        f"{len(regressed)} of {len(paired)} paired cases passed in {baseline_label} and fail "
        f"now; pass rate {_fmt(base_rate)} → {_fmt(head_rate)} ({head_rate - base_rate:+.3f})"
    )
    if regressed:
        detail += f": {_list(regressed)}"
    check = GateCheck(
        "noRegression", name, float(len(regressed)), 0.0, not regressed, False, detail
    )
    return check, warning


def _list(ids: Sequence[str], limit: int = 20) -> str:
    shown = ", ".join(ids[:limit])
    return shown + (f" … and {len(ids) - limit} more" if len(ids) > limit else "")


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.3f}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def _round_all(agg: Mapping[str, Any]) -> dict[str, Any]:
    return {k: round(v, 6) if isinstance(v, float) else v for k, v in agg.items()}
