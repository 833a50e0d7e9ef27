"""The HTML page: complete, faithful to summary.json, escaped, offline, deterministic."""

from __future__ import annotations

import datetime
import random
import re
from typing import Any

import msgspec
import pytest

from codegold.evaluate.records import CaseResult, Diagnosis
from codegold.evaluate.summary import summarize
from codegold.report.html import METRIC_COLUMNS, rank_histogram, render_html
from tests.report.helpers import (
    PLANTED_PASSWORD,
    REV,
    STRIPE,
    display_pct,
    entry,
    parse_tables,
    record,
)


def _check_row(row: dict[str, dict[str, str]], agg: dict[str, Any]) -> None:
    for key, _, kind in METRIC_COLUMNS:
        cell = row[key]
        value = agg[key]
        if value is None:
            assert cell["text"] == "–" and cell["data-value"] == ""
            continue
        assert cell["data-value"] == (repr(value) if isinstance(value, float) else str(value))
        if kind == "pct":
            assert display_pct(cell["text"]) == pytest.approx(value, abs=0.0005)
        elif kind == "num":
            assert float(cell["text"]) == pytest.approx(value, abs=0.0005)
        else:
            assert int(cell["text"]) == value


def test_overall_numbers_match_summary(page: str, run_summary: dict[str, Any]) -> None:
    tables = parse_tables(page)
    (row,) = tables.rows("metrics-overall")
    overall = run_summary["overall"]
    _check_row(row, overall)
    assert display_pct(row["passRate"]["text"]) == pytest.approx(3 / 7, abs=0.0005)
    assert row["cases"]["text"] == "8" and row["invalid"]["text"] == "1"
    assert float(row["mrr"]["text"]) == pytest.approx(overall["mrr"], abs=0.0005)


def test_every_slice_has_its_row_under_its_kind(page: str, run_summary: dict[str, Any]) -> None:
    tables = parse_tables(page)
    seen = 0
    for name, agg in run_summary["slices"].items():
        kind, _, value = name.partition(":")
        rows = {r["slice"]["data-value"]: r for r in tables.rows(f"metrics-{kind}")}
        _check_row(rows[value], agg)
        seen += 1
    assert seen == len(run_summary["slices"]) > 10
    assert {
        "metrics-queryClass",
        "metrics-tag",
        "metrics-language",
        "metrics-area",
        "metrics-role",
    } <= tables.tables.keys()


def test_every_failed_record_has_its_section(page: str, run_records: list[CaseResult]) -> None:
    failed = sorted(r.case_id for r in run_records if not r.passed)
    assert parse_tables(page).case_ids == failed
    for r in run_records:
        if not r.passed:
            assert r.query in page  # these queries hold no secrets
            assert r.diagnosis is not None
            assert f'<span class="cause">{r.diagnosis.cause}</span>' in page
    assert 'id="case-1"' in page and 'href="#case-1"' in page


def test_failed_section_shows_ranks_past_the_cutoff(page: str) -> None:
    section = page.split('data-case="retry-policy-definition"', 1)[1].split("</section>", 1)[0]
    assert "cutoff 5: nothing below this line" in section
    assert '<tr class="match-accepted"><td class="num">6</td>' in section
    assert "below_cutoff" in section and "→" in section
    header = section.split("<thead>", 1)[1].split("</thead>", 1)[0]
    assert re.findall(r"<th[^>]*>([^<]+)</th>", header) == [
        "rank",
        "file",
        "lines",
        "symbol",
        "role",
        "revision",
        "match",
        "score",
    ]


def test_rank_histogram_counts(page: str, run_records: list[CaseResult]) -> None:
    bins = dict(rank_histogram(run_records))
    assert bins == {"1": 2, "2": 2, "3": 1, "4": 0, "5": 0, "past cutoff": 2, "never": 0}
    rows = parse_tables(page).rows("rank-histogram")
    assert {r["bin"]["text"]: int(r["count"]["text"]) for r in rows} == bins
    assert sum(bins.values()) == sum(1 for r in run_records if r.valid)


@pytest.mark.parametrize(
    ("ranked", "first", "expected"),
    [
        ([entry(1, "accepted")], 1, "1"),
        ([entry(1), entry(7, "accepted")], None, "past cutoff"),
        ([entry(1), entry(2, "supporting")], None, "never"),
        ([], None, "never"),
    ],
    ids=["at-rank-1", "past-cutoff", "supporting-is-not-relevant", "empty"],
)
def test_rank_histogram_bins(ranked: list[Any], first: int | None, expected: str) -> None:
    rec = record(ranked=ranked, first_relevant_rank=first, passed=first is not None)
    invalid = record("other", valid=False, passed=False)
    bins = dict(rank_histogram([rec, invalid]))
    assert bins[expected] == 1 and sum(bins.values()) == 1


def test_cause_and_owner_breakdown_match_summary(page: str, run_summary: dict[str, Any]) -> None:
    tables = parse_tables(page)
    causes = {r["cause"]["text"]: int(r["count"]["text"]) for r in tables.rows("causes-table")}
    owners = {r["owner"]["text"]: int(r["count"]["text"]) for r in tables.rows("owners-table")}
    assert causes == run_summary["overall"]["causes"]
    assert owners == run_summary["overall"]["owners"]
    assert tables.svg_count >= 3  # histogram, causes, owners


def test_run_identity_is_shown(page: str, run_summary: dict[str, Any]) -> None:
    assert run_summary["suite"]["digest"] in page
    assert run_summary["evaluatorVersion"] in page
    rows = parse_tables(page).tables["indexes"]
    build_ids = {row[0]["text"] for row in rows[1:]}
    assert build_ids == {m["buildId"] for m in run_summary["indexes"]}


_FETCHING_ATTRS = {
    "src",
    "href",
    "xlink:href",
    "action",
    "formaction",
    "poster",
    "data",
    "srcset",
    "background",
    "manifest",
    "ping",
}


def test_nothing_is_fetched_and_nothing_links_out(page: str) -> None:
    tables = parse_tables(page)
    for tag, attr, value in tables.attributes:
        if attr in _FETCHING_ATTRS:
            assert attr == "href" and value.startswith("#"), (tag, attr, value)
        assert tag not in {"link", "img", "iframe", "object", "embed", "base", "video", "audio"}
    assert not re.search(r"url\(|@import", page, re.IGNORECASE)
    assert "http://" not in page and "https://" not in page
    assert "default-src 'none'" in page


def test_secrets_in_evidence_are_redacted(page: str) -> None:
    assert STRIPE not in page and PLANTED_PASSWORD not in page
    assert "[REDACTED:stripe_key]" in page and "[REDACTED:password]" in page
    assert "secret(s) redacted" in page


def test_everything_from_the_data_is_escaped() -> None:
    evil = '<script>alert("x")</script>'
    rec = record(
        'case"<b>',
        query=evil,
        passed=False,
        query_class="<i>class</i>",
        tags=["<u>tag</u>"],
        ranked=[entry(1, file="<img src=x onerror=alert(1)>", symbol="a<b>")],
        first_relevant_rank=None,
        diagnosis=Diagnosis("retrieval_miss", "<owner>", evil, {"<k>": [evil, {"a": evil}]}),
    )
    page = render_html([rec], summarize([rec], {"suite": {"name": evil}}), title=evil)
    for raw in ("<script>alert", "<b>", "<i>", "<u>", "<img", "<owner>", "<k>"):
        assert raw not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # ours, at the end


def test_output_is_deterministic(
    run_records: list[CaseResult], run_summary: dict[str, Any]
) -> None:
    first = render_html(run_records, run_summary)
    shuffled = list(run_records)
    random.Random(7).shuffle(shuffled)
    assert render_html(shuffled, run_summary) == first
    assert datetime.date.today().isoformat() not in first


def test_inputs_are_not_modified(
    run_records: list[CaseResult], run_summary: dict[str, Any]
) -> None:
    before = (msgspec.json.encode(run_records), msgspec.json.encode(run_summary))
    render_html(run_records, run_summary)
    assert (msgspec.json.encode(run_records), msgspec.json.encode(run_summary)) == before


def test_comparison_fragment_is_embedded(
    run_records: list[CaseResult], run_summary: dict[str, Any]
) -> None:
    page = render_html(run_records, run_summary, comparison_html="<section><h2>Cmp</h2></section>")
    assert '<section id="comparison">\n<section><h2>Cmp</h2></section>' in page
    assert 'href="#comparison"' in page


def test_invalid_record_and_revision_mismatch_are_marked() -> None:
    rec = record(
        valid=False,
        passed=False,
        invalid_reason="index idx-1 was built from another revision",
        ranked=[entry(1, "accepted", repository_revision="b" * 40)],
    )
    page = render_html([rec], summarize([rec], {}))
    assert '<span class="badge invalid">invalid</span>' in page
    assert "invalid run: index idx-1 was built from another revision" in page
    assert 'class="rev-mismatch"' in page and "bbbbbbbbbbbb</code> ≠" in page
    assert "No diagnosis recorded" in page


def test_empty_run_and_unknown_identity_render() -> None:
    page = render_html([], summarize([], {}))
    tables = parse_tables(page)
    (row,) = tables.rows("metrics-overall")
    assert row["passRate"]["text"] == "–" and row["cases"]["text"] == "0"
    assert "unknown: no summary.json identity" in page
    assert "<h2>Failed cases</h2><p>None.</p>" in page


def test_failed_sections_are_capped_with_a_note() -> None:
    recs = [record(f"c{i}", passed=False, first_relevant_rank=None) for i in range(5)]
    page = render_html(recs, summarize(recs, {}), max_failed=2)
    assert parse_tables(page).case_ids == ["c0", "c1"]
    assert "3 more failed records in results.json" in page


def test_title_defaults_to_suite_name(page: str) -> None:
    assert "<title>codegold report: acme-payments-recorded</title>" in page
    assert render_html([], {"overall": {}}, title="X").count("<title>X</title>") == 1


def test_cutoff_and_revision_facts(page: str) -> None:
    section = page.split('data-case="session-expiry"', 1)[1].split("</section>", 1)[0]
    assert f"<dt>expected revision</dt><dd><code>{REV}</code></dd>" in section
    assert "<dt>cutoff</dt><dd>5</dd>" in section
    assert "forbidden src/legacy/session.ts at rank 1" in section


@pytest.mark.parametrize("present", [True, False], ids=["carried", "absent"])
def test_optional_columns_follow_the_summary(present: bool) -> None:
    rec = record()
    summary = summarize([rec], {})
    summary["overall"] = dict(summary["overall"])
    if present:
        summary["overall"]["nondeterministic"] = 2
    else:
        summary["overall"].pop("nondeterministic", None)
    (row,) = parse_tables(render_html([rec], summary)).rows("metrics-overall")
    assert ("nondeterministic" in row) is present
    if present:
        assert row["nondeterministic"]["text"] == "2"
