"""Where a gold target lives at a revision, according to codegold's own index."""

from __future__ import annotations

import re
from dataclasses import dataclass

from codegold.cases.model import Target
from codegold.corpus.model import FileStatus
from codegold.evaluate.match import file_matches, symbol_matches
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


def indexed_chunk_matches(chunk: IndexedChunk, target: Target) -> bool:
    if not file_matches(chunk.file, target):
        return False
    if target.symbol is not None and not symbol_matches(target.symbol, chunk.symbol, chunk.symbols):
        return False
    return not (target.roles and chunk.role not in target.roles)


_DEF_HINT = (
    r"(?:def|class|function|func|fn|interface|type|struct|enum|trait|impl|const|let|var|"
    r"static|public|private|protected|async|export)"
)


def find_symbol_line(text: str, symbol: str) -> int | None:
    """The 1-based line where ``symbol``'s last part looks defined, by text alone.

    Used only when no chunk claims the symbol: it separates "the label names
    something that is not there" (stale) from "the chunker missed it".
    """
    name = re.escape(symbol.rsplit(".", 1)[-1])
    patterns = [
        rf"\b{_DEF_HINT}\b[^\n]*?\b{name}\b",
        rf"^\s*(?:[\w<>\[\],?]+\s+)+{name}\s*\(",  # Java/C-like method declarations
        rf"^\s*{name}\s*[:=(]",
        rf"\b{name}\s*=\s*(?:function|\(|async)",
    ]
    for pattern in patterns:
        m = re.search(pattern, text, re.MULTILINE)
        if m:
            return text.count("\n", 0, m.start()) + 1
    return None


def _target_files(index: LoadedIndex, target: Target) -> tuple[str, ...]:
    """Paths at the revision that the target's file or glob names."""
    if target.file is not None:
        return tuple(p for p in (target.file,) if p in index.inventory_by_path)
    return tuple(p for p in sorted(index.inventory_by_path) if file_matches(p, target))


def _locate_symbol(
    symbol: str,
    chunks: list[IndexedChunk],
    files: tuple[str, ...],
    file_text: dict[str, str],
) -> tuple[bool, tuple[int, int] | None]:
    """Whether the symbol is found, and where: by a chunk that names it, else by text."""
    named = [c for c in chunks if symbol_matches(symbol, c.symbol, c.symbols)]
    if named:
        best = min(named, key=lambda c: (c.file, c.start_line))
        return True, (best.start_line, best.end_line)
    for path in files:
        text = file_text.get(path)
        line = find_symbol_line(text, symbol) if text is not None else None
        if line is not None:
            return True, (line, line)
    return False, None


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
    matching = tuple(c for c in chunks if indexed_chunk_matches(c, target))
    symbol_found: bool | None = None
    span = (target.lines.start, target.lines.end) if target.lines is not None else None
    if target.symbol is not None:
        symbol_found, found_span = _locate_symbol(target.symbol, chunks, files, file_text)
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
    )


def _contiguous_cover(chunks: list[IndexedChunk], span: tuple[int, int]) -> bool:
    reach = span[0] - 1
    for c in chunks:
        if c.start_line > reach + 3:  # blank lines between chunks belong to no chunk
            return False
        reach = max(reach, c.end_line)
    return reach >= span[1]
