"""Where a gold target lives at a revision: the revision's text, and codegold's own index."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.cases.match import chunk_matches, file_matches, symbol_matches
from codegold.cases.model import Target
from codegold.corpus.model import FileStatus
from codegold.diagnose.presence import definition_line, mention_line
from codegold.index.store import IndexedChunk, LoadedIndex, StoredInventoryEntry

_NO_TEXT = (FileStatus.LFS_POINTER, FileStatus.UNREADABLE)


@dataclass(frozen=True)
class TargetFacts:
    """What the index knows about one target at the pinned revision."""

    target: Target
    files: tuple[str, ...]  # paths at the revision the target's file/pattern names
    inventory: tuple[StoredInventoryEntry, ...]
    exists: bool  # the file (and symbol, when named) exists at the revision
    symbol_found: bool | None  # None when the target names no symbol
    span: tuple[int, int] | None  # where the target is: labelled lines, or found
    matching_chunks: tuple[IndexedChunk, ...]  # chunks that satisfy the target fully
    covering_chunk: IndexedChunk | None  # one chunk covering the span (metadata may differ)
    boundary_chunks: tuple[IndexedChunk, ...]  # consecutive chunks that cover it together
    blank_lines: frozenset[int] = frozenset()  # blank lines of the span (when text is known)
    around: tuple[int, int] | None = None  # the nearest code lines before and after the span

    def as_evidence(self) -> dict[str, object]:
        return {
            "target": self.target.describe(),
            "files": list(self.files),
            "inventory": [
                {
                    "path": e.path,
                    "status": str(e.status),
                    "role": str(e.role),
                    "rule": e.rule,
                    "chunks": e.chunks,
                }
                for e in self.inventory
            ],
            "exists": self.exists,
            "symbolFound": self.symbol_found,
            "span": list(self.span) if self.span else None,
            "indexedMatches": [_chunk_ref(c) for c in self.matching_chunks[:5]],
            "coveringChunk": _chunk_ref(self.covering_chunk) if self.covering_chunk else None,
            "boundaryChunks": [_chunk_ref(c) for c in self.boundary_chunks],
        }


def _chunk_ref(chunk: IndexedChunk) -> dict[str, object]:
    return {
        "chunkId": chunk.chunk_id,
        "file": chunk.file,
        "lines": [chunk.start_line, chunk.end_line],
        "symbol": chunk.symbol,
        "role": chunk.role,
    }


_DEFINING_ROLES = frozenset({"definition", "declaration", "test"})
_MENTION_ROLES = frozenset({"call_site", "docs", "configuration", "migration", "generated"})


def _wants_mention(target: Target) -> bool:
    """A label on call sites, docs or configuration only asks that the name be there."""
    return bool(target.roles) and all(r in _MENTION_ROLES for r in target.roles or ())


def _text_line(target: Target, path: str, text: str) -> int | None:
    symbol = target.symbol or ""
    if _wants_mention(target):
        return mention_line(text, symbol)
    return definition_line(text, symbol, path)


def _role_fits(target: Target, chunk: IndexedChunk) -> bool:
    if target.roles:
        return chunk.role in target.roles
    return chunk.role in _DEFINING_ROLES


def _locate_symbol(
    target: Target,
    chunks: list[IndexedChunk],
    files: tuple[str, ...],
    file_text: dict[str, str],
) -> tuple[bool, tuple[int, int] | None]:
    """Whether the symbol is there at the revision, and where.

    The file's text decides (see :mod:`codegold.diagnose.presence`); a chunk that names
    the symbol in a role the label accepts is evidence too. Only when no text is at hand
    does any chunk naming the symbol count, as the chunker's word alone.
    """
    symbol = target.symbol or ""
    named = [c for c in chunks if symbol_matches(symbol, c.symbol, c.symbols)]
    fitting = [c for c in named if _role_fits(target, c)]
    if fitting:
        best = min(fitting, key=lambda c: (c.file, c.start_line))
        return True, (best.start_line, best.end_line)
    texts = [(p, file_text[p]) for p in files if p in file_text]
    for path, text in texts:
        line = _text_line(target, path, text)
        if line is not None:
            return True, (line, line)
    if texts or not named:
        return False, None
    best = min(named, key=lambda c: (c.file, c.start_line))
    return True, (best.start_line, best.end_line)


def _target_files(index: LoadedIndex, target: Target) -> tuple[str, ...]:
    """Paths at the revision that the target's file or glob names."""
    if target.file is not None:
        return tuple(p for p in (target.file,) if p in index.inventory_by_path)
    return tuple(p for p in sorted(index.inventory_by_path) if file_matches(p, target))


def code_span(span: tuple[int, int], text: str | None) -> tuple[int, int]:
    """A labelled span without the blank lines at its ends: spans compare on code."""
    if text is None:
        return span
    lines = text.split("\n")
    start, end = span

    def blank(n: int) -> bool:
        return 1 <= n <= len(lines) and not lines[n - 1].strip()

    while end > start and blank(end):
        end -= 1
    while start < end and blank(start):
        start += 1
    return start, end


def _cover(
    chunks: list[IndexedChunk], file: str, span: tuple[int, int]
) -> tuple[IndexedChunk | None, tuple[IndexedChunk, ...]]:
    """One chunk of ``file`` covering the span, else consecutive chunks covering it."""
    in_file = sorted(
        (c for c in chunks if c.file == file), key=lambda c: (c.start_line, c.end_line)
    )
    covering = next((c for c in in_file if c.start_line <= span[0] and c.end_line >= span[1]), None)
    if covering is not None:
        return covering, ()
    overlapping = [c for c in in_file if c.end_line >= span[0] and c.start_line <= span[1]]
    if overlapping and _contiguous_cover(overlapping, span):
        return None, tuple(overlapping)
    return None, ()


def target_facts(index: LoadedIndex, target: Target, file_text: dict[str, str]) -> TargetFacts:
    """Facts about one target; ``file_text`` supplies file contents by path when needed."""
    files = _target_files(index, target)
    inventory = tuple(index.inventory_by_path[p] for p in files)
    chunks = [index.chunks[r] for p in files for r in index.rows_by_file.get(p, [])]
    matching = tuple(c for c in chunks if chunk_matches(c, target))
    symbol_found: bool | None = None
    span = None
    text = file_text.get(files[0]) if files else None
    if target.lines is not None:
        span = code_span((target.lines.start, target.lines.end), text)
    if target.symbol is not None:
        symbol_found, found_span = _locate_symbol(target, chunks, files, file_text)
        span = span or found_span
    if symbol_found is False and inventory and all(e.status in _NO_TEXT for e in inventory):
        symbol_found = None  # a Git LFS pointer or a missing blob: nothing to look in
    exists = bool(files) and symbol_found is not False
    covering: IndexedChunk | None = None
    boundary: tuple[IndexedChunk, ...] = ()
    if span is not None and files:
        covering, boundary = _cover(chunks, files[0], span)
    return TargetFacts(
        target=target,
        files=files,
        inventory=inventory,
        exists=exists,
        symbol_found=symbol_found,
        span=span,
        matching_chunks=matching,
        covering_chunk=covering,
        boundary_chunks=boundary,
        blank_lines=_blank_lines(text, span),
        around=_around(text, span),
    )


def _around(text: str | None, span: tuple[int, int] | None) -> tuple[int, int] | None:
    """The last code line before the span and the first after it (the span's own ends
    at the file's edges)."""
    if text is None or span is None:
        return None
    lines = text.split("\n")
    before = next((n for n in range(span[0] - 1, 0, -1) if lines[n - 1].strip()), span[0])
    after = next((n for n in range(span[1] + 1, len(lines) + 1) if lines[n - 1].strip()), span[1])
    return before, after


def _blank_lines(text: str | None, span: tuple[int, int] | None) -> frozenset[int]:
    if text is None or span is None:
        return frozenset()
    lines = text.split("\n")
    last = min(span[1], len(lines))
    return frozenset(n for n in range(span[0], last + 1) if not lines[n - 1].strip())


def _contiguous_cover(chunks: list[IndexedChunk], span: tuple[int, int]) -> bool:
    reach = span[0] - 1
    for c in chunks:
        if c.start_line > reach + 3:  # blank lines between chunks belong to no chunk
            return False
        reach = max(reach, c.end_line)
    return reach >= span[1]
