"""Metric edge cases, table-driven (SPEC §3)."""

from __future__ import annotations

from typing import Any

import pytest

from codegold.evaluate import evaluate_case
from tests.evaluate.helpers import OTHER, attempt, chunk, filler, make_case, manifest

DEF = {"file": "src/retry.ts", "symbol": "RetryPolicy", "roles": ["definition"]}
GOOD = chunk("src/retry.ts", "RetryPolicy")


CASES: list[tuple[str, dict[str, Any], list[dict[str, Any]], dict[str, Any]]] = [
    (
        "empty-ranking",
        {"accepted": [DEF]},
        [],
        {"passed": False, "first_relevant_rank": None, "reciprocal_rank": 0.0, "group_recall": 0.0},
    ),
    (
        "just-inside-cutoff",
        {"accepted": [DEF]},
        [*filler(4), GOOD],
        {"passed": True, "first_relevant_rank": 5, "reciprocal_rank": 0.2},
    ),
    (
        "just-past-cutoff",
        {"accepted": [DEF]},
        [*filler(5), GOOD],
        {"passed": False, "first_relevant_rank": None, "reciprocal_rank": 0.0},
    ),
    (
        "accepted-and-forbidden-inside",
        {"accepted": [DEF], "forbiddenPathPrefixes": ["src/legacy/"]},
        [chunk("src/legacy/retry.ts", "RetryPolicy", cid="old"), GOOD],
        {"passed": False, "first_relevant_rank": 2, "forbidden_chunk_ids": ["old"]},
    ),
    (
        "forbidden-past-cutoff-does-not-count",
        {"accepted": [DEF], "forbiddenPathPrefixes": ["src/legacy/"]},
        [GOOD, *filler(4), chunk("src/legacy/retry.ts", "RetryPolicy", cid="old")],
        {"passed": True, "forbidden_chunk_ids": []},
    ),
    (
        "revision-mismatch",
        {"accepted": [DEF]},
        [chunk("src/retry.ts", "RetryPolicy", rev=OTHER, cid="stale")],
        {"passed": False, "first_relevant_rank": 1, "revision_mismatches": ["stale"]},
    ),
    (
        "group-recall-half-article",
        {
            "cutoff": 2,
            "groups": [
                {
                    "id": "public_contract",
                    "anyOf": [{"file": "src/retry.ts", "symbol": "RetryPolicy"}],
                },
                {"id": "configuration", "anyOf": [{"file": "config/retry.ts"}]},
            ],
        },
        [
            chunk("test/retry.spec.ts", symbols=["RetryPolicy"], role="test"),
            chunk("src/retry.ts", symbols=["RetryPolicy"]),
        ],
        {"passed": False, "group_recall": 0.5, "missing_group_ids": ["configuration"]},
    ),
    (
        "file-pattern",
        {"accepted": [{"filePattern": "test/**/fake-*.ts", "roles": ["test"]}]},
        [chunk("test/helpers/deep/fake-client.ts", "Fake", role="test")],
        {"passed": True, "first_relevant_rank": 1},
    ),
    (
        "file-pattern-star-stays-in-segment",
        {"accepted": [{"filePattern": "test/*.ts"}]},
        [chunk("test/helpers/fake.ts", "Fake", role="test")],
        {"passed": False},
    ),
    (
        "bare-symbol-matches-qualified",
        {"accepted": [{"file": "src/client.py", "symbol": "send"}]},
        [chunk("src/client.py", "Client.send")],
        {"passed": True},
    ),
    (
        "qualified-symbol-matches-only-itself",
        {"accepted": [{"file": "src/client.py", "symbol": "Client.send"}]},
        [chunk("src/client.py", "Other.send"), chunk("src/client.py", "send")],
        {"passed": False},
    ),
    (
        "symbol-in-symbols-list",
        {"accepted": [{"file": "src/client.py", "symbol": "Client.send"}]},
        [chunk("src/client.py", "Client", symbols=["Client", "Client.send"])],
        {"passed": True},
    ),
    (
        "span-covers-but-role-wrong",
        {"accepted": [{**DEF, "lines": [3, 8]}]},
        [chunk("src/retry.ts", "RetryPolicy", role="call_site", start=1, end=10)],
        {"passed": False, "first_relevant_rank": None},
    ),
    (
        "no-roles-means-any-role",
        {"accepted": [{"file": "src/retry.ts"}]},
        [chunk("src/retry.ts", None, role="docs")],
        {"passed": True},
    ),
    (
        "supporting-is-graded-not-required",
        {"accepted": [DEF], "supporting": [{"file": "test/retry.spec.ts", "roles": ["test"]}]},
        [chunk("test/retry.spec.ts", "t", role="test")],
        {"passed": False, "supporting_found": ["test/retry.spec.ts [test]"]},
    ),
]


@pytest.mark.parametrize(
    ("case_fields", "ranked", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_metric_edge_cases(
    case_fields: dict[str, Any], ranked: list[dict[str, Any]], expected: dict[str, Any]
) -> None:
    result = evaluate_case(make_case(**case_fields), attempt(ranked))
    for key, value in expected.items():
        assert getattr(result, key) == value, key


def test_span_cover_flag_set_even_when_metadata_disagrees() -> None:
    case = make_case(accepted=[{**DEF, "lines": [3, 8]}])
    result = evaluate_case(case, attempt([chunk("src/retry.ts", "x", role="call_site")]))
    assert result.ranked[0].covers_target_span is True
    assert result.ranked[0].match == "none"


@pytest.mark.parametrize(
    ("index", "reason"),
    [
        (None, "index manifest missing"),
        (manifest(complete=False), "incomplete"),
        (manifest(rev=OTHER), "was built from"),
    ],
    ids=["missing", "incomplete", "other-revision"],
)
def test_invalid_runs_are_reported_not_scored(index: dict[str, Any] | None, reason: str) -> None:
    result = evaluate_case(make_case(accepted=[DEF]), attempt([GOOD], index=index))
    assert result.valid is False
    assert result.passed is False
    assert reason in (result.invalid_reason or "")
    assert result.diagnosis is not None and result.diagnosis.cause == "invalid_run"


def test_match_labels_on_every_rank() -> None:
    case = make_case(
        accepted=[DEF],
        supporting=[{"file": "test/retry.spec.ts"}],
        forbiddenPathPrefixes=["src/legacy/"],
    )
    ranked = [
        chunk("src/legacy/r.ts", "RetryPolicy"),
        chunk("test/retry.spec.ts", "t", role="test"),
        GOOD,
        chunk("src/x.ts", "x"),
    ]
    result = evaluate_case(case, attempt(ranked))
    assert [e.match for e in result.ranked] == ["forbidden", "supporting", "accepted", "none"]


def test_glob_target_never_satisfied_by_forbidden_chunk() -> None:
    case = make_case(
        accepted=[{"filePattern": "src/**/session.ts", "symbol": "createSession"}],
        forbiddenPathPrefixes=["src/legacy/"],
    )
    result = evaluate_case(case, attempt([chunk("src/legacy/session.ts", "createSession")]))
    assert result.first_relevant_rank is None
    assert result.missing_group_ids == ["accepted"]


def test_no_attempt_is_a_failed_case() -> None:
    result = evaluate_case(make_case(accepted=[DEF]), None)
    assert result.passed is False and result.valid is True
    assert result.diagnosis is not None and result.diagnosis.cause == "no_attempt"


@pytest.mark.parametrize(
    "written",
    ["Client::send", "Client#send", "(*Client).send", "(Client).send", "Client.send"],
)
def test_other_spellings_of_a_qualified_target(written: str) -> None:
    case = make_case(accepted=[{"file": "src/client.go", "symbol": written}])
    assert evaluate_case(case, attempt([chunk("src/client.go", "Client.send")])).passed
