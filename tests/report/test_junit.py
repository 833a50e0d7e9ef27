"""JUnit XML: parses, counts match summary.json, one testcase per record."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from codegold.evaluate.records import CaseResult, Diagnosis
from codegold.evaluate.summary import summarize
from codegold.report.junit import failure_message, render_junit
from tests.report.helpers import PLANTED_PASSWORD, STRIPE, entry, record


@pytest.fixture(scope="module")
def junit(run_records: list[CaseResult], run_summary: dict[str, Any]) -> ET.Element:
    return ET.fromstring(render_junit(run_records, run_summary))


def _cases(root: ET.Element) -> dict[str, ET.Element]:
    return {tc.attrib["name"]: tc for tc in root.iter("testcase")}


def test_counts_match_summary(junit: ET.Element, run_summary: dict[str, Any]) -> None:
    overall = run_summary["overall"]
    (suite,) = junit.findall("testsuite")
    for element in (junit, suite):
        assert int(element.attrib["tests"]) == overall["records"] == 8
        assert int(element.attrib["failures"]) == overall["failed"] == 4
        assert int(element.attrib["errors"]) == overall["invalid"] == 1
    assert len(suite.findall("testcase")) == 8
    assert len(suite.findall("testcase/failure")) == 4
    assert len(suite.findall("testcase/error")) == 1
    assert suite.attrib["name"] == "acme-payments-recorded"


def test_properties_carry_the_aggregates(junit: ET.Element, run_summary: dict[str, Any]) -> None:
    props = {p.attrib["name"]: p.attrib["value"] for p in junit.iter("property")}
    overall = run_summary["overall"]
    for key in ("passRate", "hitRate", "meanGroupRecall", "mrr", "forbiddenRate"):
        assert float(props[key]) == overall[key]
    assert props["suite.digest"] == run_summary["suite"]["digest"]
    assert props["evaluatorVersion"] == run_summary["evaluatorVersion"]
    assert props["indexes"] == "idx-2024-05-20, idx-2024-06-01"


def test_testcase_names_and_classnames(junit: ET.Element, run_records: list[CaseResult]) -> None:
    cases = _cases(junit)
    assert sorted(cases) == sorted(r.case_id for r in run_records)
    assert cases["session-expiry"].attrib["classname"] == "behavior"
    assert cases["webhook-parse-open-file"].find("failure") is None


def test_failure_message_is_one_line_with_cause_groups_and_files(junit: ET.Element) -> None:
    failure = _cases(junit)["session-expiry"].find("failure")
    assert failure is not None
    message = failure.attrib["message"]
    assert "\n" not in message
    assert message.startswith("forbidden_source → ranking / index policy")
    assert "forbidden: src/legacy/session.ts" in message
    assert failure.attrib["type"] == "forbidden_source"
    configured = _cases(junit)["retry-policy-configured"].find("failure")
    assert configured is not None
    assert "missing groups within top 2: configuration" in configured.attrib["message"]


def test_failure_body_lists_the_top_cutoff(junit: ET.Element) -> None:
    failure = _cases(junit)["retry-policy-definition"].find("failure")
    assert failure is not None and failure.text is not None
    ranks = [line for line in failure.text.splitlines() if line.startswith("  rank=")]
    assert [r.split()[0] for r in ranks] == [f"rank={i}" for i in range(1, 6)]
    assert "first accepted chunk past the cutoff: rank 6" in failure.text
    assert "query: what is RetryPolicy?" in failure.text


def test_invalid_record_is_an_error(junit: ET.Element) -> None:
    tc = _cases(junit)["refund-stale-index"]
    assert tc.find("failure") is None
    error = tc.find("error")
    assert error is not None and error.attrib["type"] == "invalid_run"
    assert error.attrib["message"].startswith("invalid run: index idx-2024-05-20 was built")


def test_secrets_never_reach_the_xml(
    run_records: list[CaseResult], run_summary: dict[str, Any]
) -> None:
    rec = record(
        query=f"password={PLANTED_PASSWORD} fails",
        passed=False,
        first_relevant_rank=None,
        diagnosis=Diagnosis("retrieval_miss", "retrieval", f"key {STRIPE}", {}),
    )
    text = render_junit([*run_records, rec], run_summary)
    assert STRIPE not in text and PLANTED_PASSWORD not in text
    assert "[REDACTED:stripe_key]" in text


def test_repeated_attempts_get_distinct_names() -> None:
    recs = [record("c1", attempt_id="a2"), record("c1", attempt_id="a1"), record("c2")]
    root = ET.fromstring(render_junit(recs, summarize(recs, {})))
    assert [tc.attrib["name"] for tc in root.iter("testcase")] == ["c1 [a1]", "c1 [a2]", "c2"]
    assert root.find("testsuite").attrib["name"] == "codegold"  # type: ignore[union-attr]


def test_characters_xml_cannot_carry_are_replaced() -> None:
    rec = record(
        "c\x00",
        query="bell \x07 and \ud800",
        passed=False,
        first_relevant_rank=None,
        ranked=[entry(1, file="a\x1b.py")],
    )
    root = ET.fromstring(render_junit([rec], summarize([rec], {})))
    tc = next(root.iter("testcase"))
    assert tc.attrib["name"] == "c\ufffd"
    assert "bell \ufffd and \ufffd" in (tc.find("failure").text or "")  # type: ignore[union-attr]


def test_output_is_deterministic(
    run_records: list[CaseResult], run_summary: dict[str, Any]
) -> None:
    first = render_junit(run_records, run_summary)
    shuffled = list(run_records)
    random.Random(3).shuffle(shuffled)
    assert render_junit(shuffled, run_summary) == first
    assert first.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')
    assert "timestamp" not in first


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({}, "failed"),
        ({"missing_group_ids": ["g1", "g2"]}, "missing groups within top 5: g1, g2"),
        ({"revision_mismatches": ["c1"]}, "1 chunk(s) from another revision"),
        ({"diagnosis": Diagnosis("below_cutoff", "ranking", "d", {})}, "below_cutoff → ranking"),
    ],
    ids=["bare", "missing-groups", "revision", "diagnosis"],
)
def test_failure_message_table(fields: dict[str, Any], expected: str) -> None:
    assert failure_message(record(passed=False, **fields)) == expected
