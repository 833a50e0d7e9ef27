"""The evaluator's one pass over a ranked list gives what the separate, plain
definitions give: the match of each chunk, its covered span, its duplicate, the graded
nDCG and the context budget (graded.py keeps those definitions)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.cases.match import chunk_matches, file_matches, span_covers
from codegold.evaluate import evaluate_case
from codegold.evaluate.graded import context_budget, duplicate_ranks, graded_ndcg
from codegold.roles import Match
from tests.evaluate.helpers import REV, attempt, make_case

FILES = ["src/a.py", "src/b.py", "src/legacy/a.py", "docs/a.md", "src/c.py"]
SYMBOLS = [None, "A", "A.run", "B", "run"]
ROLES = ["definition", "call_site", "test", "docs"]

target = st.fixed_dictionaries(
    {},
    optional={
        "symbol": st.sampled_from(["A", "run", "B"]),
        "roles": st.lists(st.sampled_from(ROLES), min_size=1, max_size=2, unique=True),
        "lines": st.tuples(st.integers(1, 30), st.integers(0, 10)).map(
            lambda p: [p[0], p[0] + p[1]]
        ),
    },
).flatmap(
    lambda extra: st.one_of(
        st.sampled_from(["src/a.py", "src/b.py", "docs/a.md"]).map(lambda f: {"file": f, **extra}),
        st.sampled_from(["src/*.py", "**/a.*"]).map(lambda g: {"filePattern": g, **extra}),
    )
)

chunk = st.builds(
    lambda file, symbol, role, start, length, cid, excerpt: {
        "chunkId": f"k{cid}",
        "file": file,
        "startLine": start,
        "endLine": start + length,
        "role": role,
        "repositoryRevision": REV,
        "score": 1.0,
        **({"symbol": symbol} if symbol else {}),
        **({"excerpt": excerpt} if excerpt is not None else {}),
    },
    st.sampled_from(FILES),
    st.sampled_from(SYMBOLS),
    st.sampled_from(ROLES),
    st.integers(1, 40),
    st.integers(0, 15),
    st.integers(0, 12),
    st.sampled_from([None, "", "  ", "def a(): pass", "x = 1"]),
)


def _expected_match(case: Any, c: Any) -> str:
    if case.forbidden_path_prefixes and c.file.startswith(case.forbidden_path_prefixes):
        return Match.FORBIDDEN.value
    if any(chunk_matches(c, t) for g in case.groups for t in g.any_of):
        return Match.ACCEPTED.value
    if any(chunk_matches(c, t) for t in case.supporting):
        return Match.SUPPORTING.value
    return Match.NONE.value


@settings(max_examples=300, deadline=None)
@given(
    accepted=st.lists(target, min_size=1, max_size=2),
    supporting=st.lists(target, max_size=2),
    ranked=st.lists(chunk, max_size=14),
    cutoff=st.integers(1, 6),
    forbid=st.booleans(),
)
def test_one_pass_matches_the_plain_definitions(
    accepted: list[dict[str, Any]],
    supporting: list[dict[str, Any]],
    ranked: list[dict[str, Any]],
    cutoff: int,
    forbid: bool,
) -> None:
    fields: dict[str, Any] = {"accepted": accepted, "cutoff": cutoff}
    if supporting:
        fields["supporting"] = supporting
    if forbid:
        fields["forbiddenPathPrefixes"] = ["src/legacy/"]
    try:
        case = make_case(**fields)
    except Exception:  # a generated case the suite rules refuse (a trap as gold, ...)
        return
    att = attempt(ranked)
    record = evaluate_case(case, att)
    chunks = att.ranked
    assert [e.rank for e in record.ranked] == list(range(1, len(chunks) + 1))
    assert [e.match for e in record.ranked] == [_expected_match(case, c) for c in chunks]
    assert [e.duplicate_of for e in record.ranked] == duplicate_ranks(chunks)
    spanned = [t for g in case.groups for t in g.any_of if t.lines is not None]
    assert [e.covers_target_span for e in record.ranked] == [
        any(file_matches(c.file, t) and span_covers(t, c.start_line, c.end_line) for t in spanned)
        for c in chunks
    ]
    assert record.graded_ndcg == graded_ndcg(record.ranked, cutoff, record.unretrieved)
    assert record.context_budget == context_budget(record.ranked, cutoff)
    visible = record.ranked[:cutoff]
    satisfied = {
        i
        for i, g in enumerate(case.groups)
        for c, e in zip(chunks, visible, strict=False)
        if e.match == Match.ACCEPTED and any(chunk_matches(c, t) for t in g.any_of)
    }
    assert record.missing_group_ids == [
        g.id for i, g in enumerate(case.groups) if i not in satisfied
    ]
