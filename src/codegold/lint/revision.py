"""One revision as codegold's index sees it: chunks and spans by path and symbol, the
inventory, file text."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from codegold.cases.match import symbol_matches
from codegold.cases.model import Lines, Target
from codegold.diagnose.targets import TargetFacts, target_facts
from codegold.index.store import IndexedChunk, LoadedIndex
from codegold.lint.model import _MAX_TEXT_READS, _SPAN_GAP, ReadText


@dataclass(frozen=True, slots=True)
class _Span:
    file: str
    start: int
    end: int
    symbol: str  # the name the index gives the definition
    primary: bool  # the chunk's own symbol (False: a member listed in ``symbols``)
    container: str | None = None  # a member's chunk symbol (its class, impl, ...)


@dataclass(frozen=True, slots=True)
class _Candidate:
    """Where a symbol is defined at a revision (one per file and qualified name)."""

    file: str
    symbol: str
    span: _Span
    roles: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.file}#{self.symbol} ({self.span.start}-{self.span.end})"


class _Revision:
    """Facts about one revision: its index, its paths, and file text on demand."""

    def __init__(self, index: LoadedIndex, revision: str, read_text: ReadText) -> None:
        self.index = index
        self.revision = revision
        self.short = revision[:12]
        self._read_text = read_text
        self.paths = sorted(index.inventory_by_path)
        self._texts: dict[str, str | None] = {}
        self._facts: dict[Target, TargetFacts] = {}

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._read_text(self.revision, path)
        return self._texts[path]

    def has_prefix(self, prefix: str) -> bool:
        i = bisect.bisect_left(self.paths, prefix)
        return i < len(self.paths) and self.paths[i].startswith(prefix)

    def facts(self, target: Target) -> TargetFacts:
        """:func:`target_facts`, reading file text only when no chunk names the symbol."""
        cached = self._facts.get(target)
        if cached is not None:
            return cached
        facts = target_facts(self.index, target, {})
        if target.symbol is not None and facts.files and facts.symbol_found is False:
            texts: dict[str, str] = {}
            for path in facts.files[:_MAX_TEXT_READS]:
                text = self.text(path)
                if text is not None:
                    texts[path] = text
            facts = target_facts(self.index, target, texts)
        self._facts[target] = facts
        return facts

    def chunks(self, files: Sequence[str]) -> list[IndexedChunk]:
        rows = self.index.rows_by_file
        return [self.index.chunks[r] for f in files for r in rows.get(f, ())]

    def spans(self, files: Sequence[str], symbol: str) -> list[_Span]:
        """Where ``symbol`` is defined in ``files``: definitions first, then members.

        The pieces of one long definition (consecutive chunks with the same symbol)
        make one span.
        """
        primary: list[_Span] = []
        members: list[_Span] = []
        for path in files:
            chunks = sorted(self.chunks([path]), key=lambda c: (c.start_line, c.end_line))
            for c in chunks:
                if c.symbol is not None and symbol_matches(symbol, c.symbol, None):
                    last = primary[-1] if primary else None
                    if (
                        last is not None
                        and last.file == path
                        and last.symbol == c.symbol
                        and c.start_line <= last.end + _SPAN_GAP
                    ):
                        primary[-1] = _Span(
                            path, last.start, max(last.end, c.end_line), c.symbol, True
                        )
                    else:
                        primary.append(_Span(path, c.start_line, c.end_line, c.symbol, True))
                elif symbol_matches(symbol, None, c.symbols):
                    # The first name symbol_matches accepted (it folds `#`, `::`, so a raw
                    # comparison can miss: `notFoundHandler` matches `Hono.#notFoundHandler`).
                    name = next(n for n in c.symbols if symbol_matches(symbol, None, (n,)))
                    members.append(_Span(path, c.start_line, c.end_line, name, False, c.symbol))
        return primary + members

    def definitions(self, symbol: str, *, exact: bool) -> list[_Candidate]:
        """Every (file, name) defining ``symbol`` (``exact``) or its last name component."""
        last = symbol.rsplit(".", 1)[-1]
        found: dict[tuple[str, str], list[IndexedChunk]] = {}
        for c in self.index.chunks:
            names = c.symbols or ((c.symbol,) if c.symbol else ())
            for n in names:
                hit = n == symbol if exact else (n == last or n.endswith("." + last))
                if hit:
                    found.setdefault((c.file, n), []).append(c)
        out: list[_Candidate] = []
        for (path, name), chunks in sorted(found.items()):
            spans = [s for s in self.spans([path], name) if s.symbol == name]
            span = (
                spans[0]
                if spans
                else _Span(path, chunks[0].start_line, chunks[0].end_line, name, False)
            )
            roles = tuple(sorted({c.role for c in chunks}))
            out.append(_Candidate(path, name, span, roles))
        return out


def _lines_agree(lines: Lines, spans: Sequence[_Span]) -> bool:
    """A labelled span agrees when it lies inside a definition and ends where it ends.

    The start may differ: a chunk carries the comments and decorators above a
    definition, a label may not. A member inside a container (``Client.send`` in the
    ``Client`` chunk) can only be checked for containment.
    """
    for s in spans:
        inside = s.start <= lines.start and lines.end <= s.end
        if inside and (not s.primary or lines.end == s.end):
            return True
    return False


def _similar_paths(rev: _Revision, path: str) -> list[str]:
    name = path.rsplit("/", 1)[-1]
    return [p for p in rev.paths if p.rsplit("/", 1)[-1] == name][:3]


def _literal_prefix(pattern: str) -> str:
    m = re.search(r"[*?\[]", pattern)
    return pattern if m is None else pattern[: m.start()]


def _under(path: str, prefixes: Sequence[str]) -> str | None:
    return next((p for p in prefixes if path.startswith(p)), None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
