"""The chunking boundary: is the target cut into a chunk that says what it is?

Live runs ask codegold's own index; recorded runs compare the returned chunks' spans
with the target's span. Each answer is ``(cause, detail)`` or None to pass on.
"""

from __future__ import annotations

from codegold.attempts import Attempt, RetrievedChunk
from codegold.cases.match import chunk_matches, file_matches
from codegold.corpus.model import FileStatus
from codegold.diagnose.targets import TargetFacts
from codegold.roles import Cause

NOT_INDEXED = (
    FileStatus.EXCLUDED,
    FileStatus.BINARY,
    FileStatus.OVERSIZE,
    FileStatus.UNREADABLE,
    FileStatus.LFS_POINTER,
)

Found = tuple[Cause, str]


def _indexed(f: TargetFacts) -> bool:
    return f.exists and any(e.status not in NOT_INDEXED for e in f.inventory)


def _split(f: TargetFacts) -> Found:
    spans = ", ".join(f"{c.start_line}-{c.end_line}" for c in f.boundary_chunks)
    where = f"{f.span[0]}-{f.span[1]}" if f.span else "?"
    return (
        Cause.CHUNK_BOUNDARY,
        f"{f.target.describe()} spans lines {where}; split across chunks {spans}",
    )


def _whole(f: TargetFacts) -> bool:
    """Some chunk that satisfies the target covers its whole span."""
    return f.span is None or any(
        c.start_line <= f.span[0] and c.end_line >= f.span[1] for c in f.matching_chunks
    )


def split_unnamed(f: TargetFacts) -> bool:
    """The labelled span is cut into consecutive chunks and some of them do not satisfy
    the target (a class cut into methods that do not carry the class's name)."""
    return bool(f.boundary_chunks) and not all(
        chunk_matches(c, f.target) for c in f.boundary_chunks
    )


def _live_found(indexed: list[TargetFacts]) -> Found | None:
    """Some alternative is indexed with the right file, symbol and role: only a labelled
    span that every such alternative has split, leaving part of it in chunks that do not
    satisfy the label, is the chunker's doing. Pieces that each carry the label (a long
    function cut at statements, every piece named by it) all satisfy it: whichever piece
    ranks would pass, so the boundary that broke is retrieval or ranking."""
    if any(_whole(f) for f in indexed) or not all(split_unnamed(f) for f in indexed):
        return None
    return _split(indexed[0])


def _live_missed(existing: list[TargetFacts]) -> Found:
    """No chunk satisfies any alternative: wrong metadata, a split, or no chunk at all."""
    for f in existing:
        c = f.covering_chunk
        if c is not None:
            return (
                Cause.METADATA_MISMATCH,
                f"chunk {c.chunk_id} ({c.file}:{c.start_line}-{c.end_line}) covers "
                f"{f.target.describe()} but says symbol={c.symbol!r} role={c.role}",
            )
    for f in existing:
        if f.boundary_chunks:
            return _split(f)
    f = existing[0]
    return (
        Cause.NOT_CHUNKED,
        f"{f.target.describe()} exists (lines {f.span}) but no chunk covers it",
    )


def live_chunking_cause(existing: list[TargetFacts]) -> Found | None:
    indexed = [f for f in existing if f.matching_chunks]
    if indexed:
        return _live_found(indexed)
    return _live_missed(existing)


def _covering_mismatch(
    f: TargetFacts, same_file: list[RetrievedChunk], start: int, end: int
) -> Found | None:
    for r in same_file:
        if r.start_line <= start and r.end_line >= end and not chunk_matches(r, f.target):
            return (
                Cause.METADATA_MISMATCH,
                f"returned chunk {r.chunk_id} ({r.file}:{r.start_line}-{r.end_line}) covers "
                f"{f.target.describe()} at {start}-{end} but says "
                f"symbol={r.symbol!r} role={r.role}",
            )
    return None


def _uncovered(
    parts: list[tuple[int, int]], start: int, end: int, blank: frozenset[int]
) -> tuple[int, int] | None:
    """The first run of code lines in ``start..end`` that no part covers (blank lines
    between two chunks belong to neither)."""
    covered = {n for a, b in parts for n in range(max(a, start), min(b, end) + 1)}
    missing = [n for n in range(start, end + 1) if n not in covered and n not in blank]
    if not missing:
        return None
    last = missing[0]
    for n in missing[1:]:
        if n != last + 1:
            break
        last = n
    return missing[0], last


def _recorded_target(f: TargetFacts, returned: list[RetrievedChunk]) -> Found | None:
    if f.span is None:
        return None
    start, end = f.span
    same_file = [c for c in returned if file_matches(c.file, f.target)]
    found = _covering_mismatch(f, same_file, start, end)
    if found is not None:
        return found
    parts = sorted(
        {
            (r.start_line, r.end_line)
            for r in same_file
            if r.end_line >= start and r.start_line <= end
        }
    )
    whole = len(parts) >= 2 and parts[0][0] <= start and max(p[1] for p in parts) >= end
    if whole and _uncovered(parts, start, end, f.blank_lines) is None:
        return (
            Cause.CHUNK_BOUNDARY,
            f"{f.target.describe()} at {start}-{end} came back split as {parts}",
        )
    return _recorded_gap(f, same_file, start, end)


_NEAR = 2  # without the file's text: how far a neighbouring chunk may end from the span


def _recorded_gap(
    f: TargetFacts, same_file: list[RetrievedChunk], start: int, end: int
) -> Found | None:
    """The retriever's chunks reach the target from both sides and skip (part of) it:
    its chunker left those lines out of every chunk."""
    before, after = f.around or (start - _NEAR, end + _NEAR)
    near = sorted(
        {
            (r.start_line, r.end_line)
            for r in same_file
            if r.end_line >= before and r.start_line <= after
        }
    )
    left = any(a <= start for a, _ in near)
    right = any(b >= end for _, b in near)
    gap = _uncovered(near, start, end, f.blank_lines)
    if not (left and right) or gap is None:
        return None
    return (
        Cause.NOT_CHUNKED,
        f"{f.target.describe()} at {start}-{end}: the returned chunks {near} reach it from "
        f"both sides, but lines {gap[0]}-{gap[1]} are in none of them",
    )


def recorded_chunking_cause(
    existing: list[TargetFacts], attempt: Attempt, cutoff: int
) -> Found | None:
    returned = list(attempt.ranked[:cutoff]) + list(attempt.candidates or ())
    for f in existing:
        found = _recorded_target(f, returned)
        if found is not None:
            return found
    return None


def chunking_cause(
    facts: list[TargetFacts], attempt: Attempt, cutoff: int, *, live: bool
) -> Found | None:
    """The chunking cause for one missing group, or None when chunking is not to blame."""
    existing = [f for f in facts if _indexed(f)]
    if not existing:
        return None
    if live:
        return live_chunking_cause(existing)
    return recorded_chunking_cause(existing, attempt, cutoff)
