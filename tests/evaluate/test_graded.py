"""Graded evidence (supporting recall, graded nDCG), the context budget and the
context slices: table-driven edge cases (evaluate.graded)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from codegold.evaluate import evaluate_case
from codegold.evaluate.summary import slice_names
from tests.evaluate.helpers import attempt, chunk, filler, make_case

DEF = {"file": "src/retry.ts", "symbol": "RetryPolicy", "roles": ["definition"]}
GOOD = chunk("src/retry.ts", "RetryPolicy", start=1, end=10)
TEST = {"file": "test/retry.spec.ts", "roles": ["test"]}
SPEC = chunk("test/retry.spec.ts", "t", role="test", start=1, end=20)
D = [1 / math.log2(i + 1) for i in range(1, 12)]  # D[r-1]: discount at rank r


def _ndcg(gains: list[int], ideal: list[int]) -> float:
    dcg = sum(g * D[i] for i, g in enumerate(gains))
    return dcg / sum(g * D[i] for i, g in enumerate(ideal))


NDCG: list[tuple[str, dict[str, Any], list[dict[str, Any]], float]] = [
    ("required-at-1", {"accepted": [DEF]}, [GOOD, *filler(4)], 1.0),
    ("required-at-2", {"accepted": [DEF]}, [*filler(1), GOOD], _ndcg([0, 2], [2])),
    ("required-past-cutoff-is-in-the-pool", {"accepted": [DEF]}, [*filler(5), GOOD], 0.0),
    ("nothing-retrieved", {"accepted": [DEF]}, [], 0.0),
    (
        "supporting-above-required",
        {"accepted": [DEF], "supporting": [TEST]},
        [SPEC, GOOD],
        _ndcg([1, 2], [2, 1]),
    ),
    (
        "unretrieved-supporting-lowers-the-ideal-only-by-grade-1",
        {"accepted": [DEF], "supporting": [TEST]},
        [GOOD],
        _ndcg([2], [2, 1]),
    ),
    (
        "unretrieved-group-stands-in-the-ideal",
        {
            "groups": [
                {"id": "a", "anyOf": [DEF]},
                {"id": "b", "anyOf": [{"file": "config/retry.ts"}]},
            ]
        },
        [GOOD],
        _ndcg([2], [2, 2]),
    ),
    (
        "forbidden-copy-gains-nothing",
        {
            "accepted": [{"symbol": "RetryPolicy", "filePattern": "**/*.ts"}],
            "forbiddenPathPrefixes": ["src/legacy/"],
        },
        [chunk("src/legacy/retry.ts", "RetryPolicy"), GOOD],
        _ndcg([0, 2], [2]),
    ),
    (
        "two-required-chunks-both-count",
        {"accepted": [{"file": "src/retry.ts"}]},
        [GOOD, chunk("src/retry.ts", "other", start=11, end=20)],
        1.0,
    ),
    (
        "same-chunk-id-twice-gains-once",
        {"accepted": [DEF], "cutoff": 3},
        [*filler(1), GOOD, GOOD],
        _ndcg([0, 2, 0], [2]),
    ),
    (
        "cutoff-one",
        {"accepted": [DEF], "supporting": [TEST], "cutoff": 1},
        [SPEC, GOOD],
        _ndcg([1], [2]),
    ),
]


@pytest.mark.parametrize(
    ("fields", "ranked", "expected"), [c[1:] for c in NDCG], ids=[c[0] for c in NDCG]
)
def test_graded_ndcg(fields: dict[str, Any], ranked: list[dict[str, Any]], expected: float) -> None:
    result = evaluate_case(make_case(**fields), attempt(ranked))
    assert result.graded_ndcg == pytest.approx(expected, abs=1e-12)
    assert 0.0 <= (result.graded_ndcg or 0.0) <= 1.0


SUPPORTING: list[tuple[str, dict[str, Any], list[dict[str, Any]], float | None]] = [
    ("no-supporting-targets-is-undefined", {"accepted": [DEF]}, [GOOD], None),
    ("found-within-cutoff", {"accepted": [DEF], "supporting": [TEST]}, [GOOD, SPEC], 1.0),
    (
        "past-cutoff-is-not-found",
        {"accepted": [DEF], "supporting": [TEST], "cutoff": 1},
        [GOOD, SPEC],
        0.0,
    ),
    (
        "one-of-two",
        {"accepted": [DEF], "supporting": [TEST, {"file": "docs/retry.md"}]},
        [GOOD, SPEC],
        0.5,
    ),
    (
        "a-forbidden-chunk-is-not-supporting-evidence",
        {
            "accepted": [DEF],
            "supporting": [{"filePattern": "**/*.spec.ts"}],
            "forbiddenPathPrefixes": ["test/old/"],
        },
        [GOOD, chunk("test/old/retry.spec.ts", "t", role="test")],
        0.0,
    ),
]


@pytest.mark.parametrize(
    ("fields", "ranked", "expected"),
    [c[1:] for c in SUPPORTING],
    ids=[c[0] for c in SUPPORTING],
)
def test_supporting_recall(
    fields: dict[str, Any], ranked: list[dict[str, Any]], expected: float | None
) -> None:
    assert evaluate_case(make_case(**fields), attempt(ranked)).supporting_recall == expected


def test_no_attempt_has_zero_graded_figures() -> None:
    result = evaluate_case(make_case(accepted=[DEF], supporting=[TEST]), None)
    assert result.graded_ndcg == 0.0
    assert result.supporting_recall == 0.0
    assert result.unretrieved == ["group:accepted", "supporting:test/retry.spec.ts [test]"]
    assert result.context_budget is not None and result.context_budget.unfilled == 1.0


def _excerpt(c: dict[str, Any], text: str) -> dict[str, Any]:
    return {**c, "excerpt": text}


# shares of a cutoff of 5, in the order accepted, supporting, forbidden, duplicate, other, unfilled
BUDGET: list[tuple[str, dict[str, Any], list[dict[str, Any]], tuple[int, ...]]] = [
    ("empty", {"accepted": [DEF]}, [], (0, 0, 0, 0, 0, 5)),
    ("all-other", {"accepted": [DEF]}, filler(7), (0, 0, 0, 0, 5, 0)),
    (
        "one-of-each",
        {"accepted": [DEF], "supporting": [TEST], "forbiddenPathPrefixes": ["old/"]},
        [GOOD, SPEC, chunk("old/r.ts", "r"), *filler(1)],
        (1, 1, 1, 0, 1, 1),
    ),
    (
        "overlapping-span-in-the-same-file-is-a-duplicate",
        {"accepted": [DEF]},
        [GOOD, chunk("src/retry.ts", "RetryPolicy", start=8, end=30, cid="wider")],
        (1, 0, 0, 1, 0, 3),
    ),
    (
        "adjacent-span-is-not-a-duplicate",
        {"accepted": [{"file": "src/retry.ts"}]},
        [GOOD, chunk("src/retry.ts", "next", start=11, end=30)],
        (2, 0, 0, 0, 0, 3),
    ),
    (
        "same-span-in-another-file-is-not-a-duplicate",
        {"accepted": [DEF]},
        [GOOD, chunk("src/other.ts", "RetryPolicy", start=1, end=10)],
        (1, 0, 0, 0, 1, 3),
    ),
    (
        "identical-text-in-another-file-is-a-duplicate",
        {"accepted": [DEF]},
        [
            _excerpt(GOOD, "class RetryPolicy {}\n"),
            _excerpt(chunk("vendor/retry.ts", "RetryPolicy"), "class RetryPolicy {}"),
        ],
        (1, 0, 0, 1, 0, 3),
    ),
    (
        "blank-excerpts-are-not-identical-text",
        {"accepted": [DEF]},
        [_excerpt(GOOD, "  "), _excerpt(chunk("src/b.ts", "b"), "")],
        (1, 0, 0, 0, 1, 3),
    ),
    (
        "duplicate-of-accepted-costs-a-slot",
        {"accepted": [DEF], "cutoff": 2},
        [GOOD, chunk("src/retry.ts", "RetryPolicy", start=5, end=9, cid="inner")],
        (1, 0, 0, 1, 0, 0),
    ),
    (
        "a-forbidden-duplicate-is-forbidden",
        {"accepted": [DEF], "forbiddenPathPrefixes": ["old/"]},
        [chunk("old/r.ts", "r", cid="o1"), chunk("old/r.ts", "r", start=5, end=12, cid="o2")],
        (0, 0, 2, 0, 0, 3),
    ),
    (
        "past-the-cutoff-costs-nothing",
        {"accepted": [DEF], "cutoff": 1},
        [GOOD, GOOD, *filler(3)],
        (1, 0, 0, 0, 0, 0),
    ),
]


@pytest.mark.parametrize(
    ("fields", "ranked", "slots"), [c[1:] for c in BUDGET], ids=[c[0] for c in BUDGET]
)
def test_context_budget(
    fields: dict[str, Any], ranked: list[dict[str, Any]], slots: tuple[int, ...]
) -> None:
    case = make_case(**fields)
    budget = evaluate_case(case, attempt(ranked)).context_budget
    assert budget is not None
    shares = (
        budget.accepted,
        budget.supporting,
        budget.forbidden,
        budget.duplicate,
        budget.other,
        budget.unfilled,
    )
    assert shares == tuple(s / case.cutoff for s in slots)
    assert math.fsum(shares) == pytest.approx(1.0)


def test_duplicate_of_names_the_rank_above() -> None:
    ranked = [GOOD, *filler(1), chunk("src/retry.ts", "x", start=9, end=12, cid="dup")]
    result = evaluate_case(make_case(accepted=[DEF]), attempt(ranked))
    assert [e.duplicate_of for e in result.ranked] == [None, None, 1]


CONTEXT: list[tuple[str, dict[str, Any] | None, list[str]]] = [
    ("none", None, ["context:none"]),
    ("empty-context-is-none", {}, ["context:none"]),
    ("open-file", {"openFile": "src/a.ts"}, ["context:openFile"]),
    (
        "several",
        {"openFile": "src/a.ts", "pathPrefix": "src/", "language": "typescript", "package": "p"},
        ["context:language", "context:openFile", "context:package", "context:pathPrefix"],
    ),
]


@pytest.mark.parametrize(
    ("context", "slices"), [c[1:] for c in CONTEXT], ids=[c[0] for c in CONTEXT]
)
def test_context_slices(context: dict[str, Any] | None, slices: list[str]) -> None:
    fields: dict[str, Any] = {"accepted": [DEF]}
    if context is not None:
        fields["context"] = context
    record = evaluate_case(make_case(**fields), attempt([GOOD]))
    assert sorted(s for s in slice_names(record) if s.startswith("context:")) == slices


@pytest.mark.parametrize(
    ("given", "declared", "expected"),
    [
        ("live", None, "live"),
        ("recorded", None, "recorded"),
        ("recorded", "imported", "imported"),
        ("live", "imported", "imported"),
    ],
    ids=["live", "recorded", "imported-attempt", "imported-wins"],
)
def test_mode_on_every_record(given: str, declared: str | None, expected: str) -> None:
    extra = {"mode": declared} if declared else {}
    record = evaluate_case(make_case(accepted=[DEF]), attempt([GOOD], **extra), mode=given)
    assert record.mode == expected
    assert f"mode:{expected}" in slice_names(record)


def test_summary_aggregates_graded_figures_and_splits_by_mode() -> None:
    from codegold.evaluate.summary import summarize

    with_support = make_case(id="s", accepted=[DEF], supporting=[TEST], tags=["t"])
    without = make_case(id="n", accepted=[DEF], tags=["t"])
    records = [
        evaluate_case(with_support, attempt([GOOD, SPEC], caseId="s"), mode="live"),
        evaluate_case(without, attempt([*filler(1), GOOD], caseId="n"), mode="recorded"),
    ]
    summary = summarize(records, {})
    overall = summary["overall"]
    assert overall["supportingRecall"] == 1.0  # the case without supporting targets is skipped
    assert overall["gradedNdcg"] == pytest.approx((1.0 + _ndcg([0, 2], [2])) / 2)
    assert overall["budgetAccepted"] == pytest.approx(0.2)
    assert overall["budgetSupporting"] == pytest.approx(0.1)
    assert overall["budgetOther"] == pytest.approx(0.1)
    assert overall["budgetUnfilled"] == pytest.approx(0.6)
    assert summary["mode"] == "mixed" and summary["modes"] == {"live": 1, "recorded": 1}
    assert summary["slices"]["mode:live"]["cases"] == 1
    by_mode = summary["slicesByMode"]
    assert set(by_mode) == {"live", "recorded"}
    assert by_mode["live"]["overall"]["cases"] == 1 and "tag:t" in by_mode["recorded"]
    assert not any(name.startswith("mode:") for name in by_mode["live"])


def test_one_mode_needs_no_split() -> None:
    from codegold.evaluate.summary import summarize

    record = evaluate_case(make_case(accepted=[DEF]), attempt([GOOD]), mode="live")
    summary = summarize([record], {})
    assert summary["mode"] == "live" and "slicesByMode" not in summary
