"""Properties of the evaluator that must hold for any ranking."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from codegold._io import encode_json
from codegold.evaluate import evaluate_case
from tests.evaluate.helpers import OTHER, REV, attempt, chunk, make_case

FILES = ["src/a.py", "src/b.py", "src/legacy/a.py", "test/a_test.py"]
SYMBOLS = [None, "f", "A.f", "g"]
ROLES = ["definition", "call_site", "test"]

chunks_st = st.builds(
    lambda f, s, r, rev, i: chunk(f, s, r, rev=rev, cid=f"k{i}"),
    st.sampled_from(FILES),
    st.sampled_from(SYMBOLS),
    st.sampled_from(ROLES),
    st.sampled_from([REV, REV, REV, OTHER]),
    st.integers(0, 10_000),
)
CASE = make_case(
    cutoff=3,
    accepted=[{"file": "src/a.py", "symbol": "f", "roles": ["definition"]}],
    groups=[{"id": "g", "anyOf": [{"file": "src/b.py"}]}],
    forbiddenPathPrefixes=["src/legacy/"],
)


def _public(result: Any) -> dict[str, Any]:
    fields = (
        "passed",
        "first_relevant_rank",
        "reciprocal_rank",
        "group_recall",
        "missing_group_ids",
        "forbidden_chunk_ids",
        "revision_mismatches",
        "supporting_found",
    )
    return {f: getattr(result, f) for f in fields}


@settings(max_examples=200, deadline=None)
@given(st.lists(chunks_st, min_size=3, max_size=3), st.lists(chunks_st, max_size=8))
def test_chunks_past_cutoff_do_not_change_the_verdict(
    head: list[dict[str, Any]], tail: list[dict[str, Any]]
) -> None:
    assert len(head) == CASE.cutoff
    assert _public(evaluate_case(CASE, attempt(head))) == _public(
        evaluate_case(CASE, attempt(head + tail))
    )


@settings(max_examples=200, deadline=None)
@given(st.lists(chunks_st, max_size=10))
def test_pass_implies_rank_within_cutoff(ranked: list[dict[str, Any]]) -> None:
    result = evaluate_case(CASE, attempt(ranked))
    if result.passed:
        assert result.first_relevant_rank is not None
        assert 1 <= result.first_relevant_rank <= CASE.cutoff
        assert result.group_recall == 1.0
    assert 0.0 <= result.group_recall <= 1.0
    assert result.reciprocal_rank == (
        1 / result.first_relevant_rank if result.first_relevant_rank else 0
    )


@settings(max_examples=100, deadline=None)
@given(st.lists(chunks_st, max_size=10))
def test_evaluation_is_byte_identical(ranked: list[dict[str, Any]]) -> None:
    first = encode_json(evaluate_case(CASE, attempt(ranked)))
    second = encode_json(evaluate_case(CASE, attempt(list(ranked))))
    assert first == second
