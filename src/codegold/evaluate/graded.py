"""Graded evidence and the context budget of one ranked list (pure functions).

**Grades.** Required evidence (a chunk marked ``accepted``) has grade 2, supporting
evidence 1, everything else (forbidden and unmatched chunks) 0. ``gradedNdcg`` is
nDCG at the cutoff over those grades with the usual ``1 / log2(rank + 1)`` discount and
linear gain. Its ideal ranking is drawn from the judged pool: every distinct chunk of
the whole ranked list with a grade above 0, plus one unretrieved document of grade 2
for each required group no chunk of the list satisfies, and one of grade 1 for each
supporting target no chunk of the list matches (the record names them in
``unretrieved``). That pool is exactly what ``export-trec`` writes as graded qrels, so
ir_measures' ``nDCG@k`` on the export gives the same figure case by case. A chunk id
seen again lower in the list gains nothing the second time.

**The context budget.** The answer stage pays for every chunk of its cutoff, so each of
the ``cutoff`` slots is put in exactly one class, in this order: ``forbidden`` (a trap
is a trap), ``duplicate`` (same file and an overlapping span as a chunk above it, the
same chunk id again, or the identical text of a chunk above, when the attempt carries
excerpts), ``accepted``, ``supporting``, ``other``; slots the retriever left empty are
``unfilled``. A duplicate of accepted evidence is a duplicate: it adds no evidence and
costs a slot. Shares are slots divided by the cutoff, so the six sum to 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from codegold.attempts import RetrievedChunk
from codegold.evaluate.records import ContextBudget, RankedEntry
from codegold.roles import Match

GRADES: dict[str, int] = {
    Match.ACCEPTED.value: 2,
    Match.SUPPORTING.value: 1,
    Match.FORBIDDEN.value: 0,
    Match.NONE.value: 0,
}
UNRETRIEVED_GROUP = "group:"
UNRETRIEVED_SUPPORTING = "supporting:"


def grade_of(entry: RankedEntry) -> int:
    return GRADES.get(entry.match, 0)


def unretrieved_grade(name: str) -> int:
    """The grade of an ``unretrieved`` entry of a record (``group:ID`` 2, else 1)."""
    return 2 if name.startswith(UNRETRIEVED_GROUP) else 1


def duplicate_ranks(chunks: Sequence[RetrievedChunk]) -> list[int | None]:
    """For each chunk, the rank of the first chunk above it that it duplicates: the same
    chunk id, the same file with an overlapping span, or the identical (non-blank)
    excerpt. None when it brings something new."""
    out: list[int | None] = []
    by_file: dict[str, list[tuple[int, int, int]]] = {}
    ids: dict[str, int] = {}
    texts: dict[str, int] = {}
    for rank, chunk in enumerate(chunks, start=1):
        found: int | None = ids.get(chunk.chunk_id)
        for start, end, above in by_file.get(chunk.file, ()):
            if chunk.start_line <= end and start <= chunk.end_line:
                found = above if found is None else min(found, above)
                break
        text = chunk.excerpt.strip() if chunk.excerpt else ""
        if text and text in texts:
            found = texts[text] if found is None else min(found, texts[text])
        out.append(found)
        ids.setdefault(chunk.chunk_id, rank)
        by_file.setdefault(chunk.file, []).append((chunk.start_line, chunk.end_line, rank))
        if text:
            texts.setdefault(text, rank)
    return out


_CLASSES = ("accepted", "supporting", "forbidden", "duplicate", "other", "unfilled")


def budget_class(entry: RankedEntry) -> str:
    """The context-budget class of one ranked chunk (see the module docstring)."""
    if entry.match == Match.FORBIDDEN:
        return "forbidden"
    if entry.duplicate_of is not None:
        return "duplicate"
    if entry.match == Match.ACCEPTED:
        return "accepted"
    if entry.match == Match.SUPPORTING:
        return "supporting"
    return "other"


def context_budget(ranked: Sequence[RankedEntry], cutoff: int) -> ContextBudget:
    """Shares of the ``cutoff`` slots by class; they sum to 1."""
    counts = dict.fromkeys(_CLASSES, 0)
    visible = ranked[:cutoff]
    for entry in visible:
        counts[budget_class(entry)] += 1
    counts["unfilled"] = cutoff - len(visible)
    return ContextBudget(**{k: v / cutoff for k, v in counts.items()})


def _dcg(gains: Sequence[int]) -> float:
    return math.fsum(g / math.log2(i + 2) for i, g in enumerate(gains) if g)


def graded_ndcg(ranked: Sequence[RankedEntry], cutoff: int, unretrieved: Sequence[str]) -> float:
    """nDCG@cutoff with grades 2/1/0 and the ideal drawn from the judged pool."""
    seen: set[str] = set()
    pool: dict[str, int] = {}
    gains: list[int] = []
    for entry in ranked:
        grade = grade_of(entry)
        first = entry.chunk_id not in seen
        seen.add(entry.chunk_id)
        if entry.rank <= cutoff:
            gains.append(grade if first else 0)
        if grade:
            pool[entry.chunk_id] = max(grade, pool.get(entry.chunk_id, 0))
    return graded_from(gains, pool.values(), unretrieved, cutoff)


def graded_from(
    gains: Sequence[int], pool: Iterable[int], unretrieved: Sequence[str], cutoff: int
) -> float:
    """nDCG@cutoff of the ``gains`` within the cutoff (a chunk id seen again gains 0),
    the ideal drawn from the judged ``pool`` (the best grade of each distinct chunk
    graded above 0) and the ``unretrieved`` gold."""
    ideal = sorted([*pool, *(unretrieved_grade(u) for u in unretrieved)], reverse=True)
    best = _dcg(ideal[:cutoff])
    return _dcg(gains) / best if best else 0.0
