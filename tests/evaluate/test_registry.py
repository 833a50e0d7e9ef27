"""The metric registry is the one definition every reader of the figures uses."""

from __future__ import annotations

import pytest

from codegold.evaluate.metrics import METRICS, Aggregation, Metric, metric
from codegold.evaluate.records import CaseResult
from codegold.evaluate.summary import aggregate
from codegold.gate import RULES
from codegold.report.html import METRIC_COLUMNS, OPTIONAL_COLUMNS


def _record(case_id: str, *, passed: bool, valid: bool = True, rr: float = 1.0) -> CaseResult:
    return CaseResult(
        case_id=case_id,
        query="q",
        query_class=None,
        repository_revision="r" * 40,
        cutoff=5,
        attempt_id=f"{case_id}#1",
        valid=valid,
        invalid_reason=None if valid else "no manifest",
        passed=passed and valid,
        first_relevant_rank=1 if passed else None,
        reciprocal_rank=rr if passed else 0.0,
        group_recall=1.0 if passed else 0.0,
        missing_group_ids=[],
        supporting_found=[],
        forbidden_chunk_ids=[],
        revision_mismatches=[],
        tags=[],
        language=None,
        area=None,
        target_roles=[],
        ranked=[],
    )


RECORDS = [
    _record("a", passed=True, rr=0.5),
    _record("b", passed=False),
    _record("c", passed=True, valid=False),
]


def test_every_aggregate_is_a_registered_metric() -> None:
    figures = aggregate(RECORDS)
    assert [k for k in figures if k not in ("causes", "owners")] == list(METRICS)
    assert figures["passRate"] == 0.5 and figures["mrr"] == 0.25
    assert figures["invalid"] == 1 and figures["cases"] == 3


def test_gate_rules_and_report_columns_come_from_the_registry() -> None:
    for rule in RULES.values():
        m = metric(rule.metric)
        assert m.gate_key == rule.key and m.bound == rule.bound
    assert {m.gate_key for m in METRICS.values() if m.gate_key} == set(RULES)
    for key, label, fmt in (*METRIC_COLUMNS, *OPTIONAL_COLUMNS):
        assert (label, fmt) == (metric(key).label, metric(key).format)


def test_a_new_metric_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    top1 = Metric(
        "top1Rate",
        "top-1",
        "pct",
        "higher",
        Aggregation.MEAN,
        lambda r: 1.0 if r.first_relevant_rank == 1 else 0.0,
        "an accepted chunk at rank 1",
    )
    monkeypatch.setitem(METRICS, top1.name, top1)
    assert aggregate(RECORDS)["top1Rate"] == 0.5
    assert top1.render(0.5) == "50.0%"


def test_an_unknown_metric_names_the_known_ones() -> None:
    with pytest.raises(KeyError, match="passRate"):
        metric("nope")
