"""One revision as codegold's index sees it: chunks and spans by path and symbol, the
inventory, file text."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from codegold.cases.match import symbol_matches
from codegold.cases.model import Lines, Target
from codegold.chunking.languages import get_language
from codegold.chunking.structural import closes_block
from codegold.diagnose.targets import TargetFacts, code_span, target_facts
from codegold.errors import InputError
from codegold.index.store import IndexedChunk, LoadedIndex
from codegold.lint.model import _MAX_TEXT_READS, _SPAN_GAP, ReadText

_SHOWN_SPANS = 8  # spans listed in a message


@dataclass(frozen=True, slots=True)
class _Span:
    file: str
    start: int
    end: int
    symbol: str  # the name the index gives the definition
    primary: bool  # the chunk's own symbol (False: a member listed in ``symbols``)
    container: str | None = None  # a member's chunk symbol (its class, impl, ...)
    role: str = "definition"  # the role of the (first) chunk
    language: str = ""

    def describe(self) -> str:
        return f"{self.start}-{self.end}"


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

        The pieces of one long definition make one span: a chunk carrying the symbol
        without defining it (a long function's ``window`` continuation, the rest of a
        split container's body) extends the span before it. A chunk that defines the
        symbol again starts a span of its own: overloads share one name, and their lines
        tell them apart.
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
                        and c.symbol not in c.symbols
                        and c.start_line <= last.end + _SPAN_GAP
                    ):
                        primary[-1] = replace(last, end=max(last.end, c.end_line))
                    else:
                        primary.append(
                            _Span(
                                path,
                                c.start_line,
                                c.end_line,
                                c.symbol,
                                True,
                                role=c.role,
                                language=c.language,
                            )
                        )
                elif symbol_matches(symbol, None, c.symbols):
                    # The first name symbol_matches accepted (it folds `#`, `::`, so a raw
                    # comparison can miss: `notFoundHandler` matches `Hono.#notFoundHandler`).
                    name = next(n for n in c.symbols if symbol_matches(symbol, None, (n,)))
                    members.append(
                        _Span(
                            path,
                            c.start_line,
                            c.end_line,
                            name,
                            False,
                            c.symbol,
                            role=c.role,
                            language=c.language,
                        )
                    )
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
                nearest_span(spans)
                if spans
                else _Span(path, chunks[0].start_line, chunks[0].end_line, name, False)
            )
            roles = tuple(sorted({c.role for c in chunks}))
            out.append(_Candidate(path, name, span, roles))
        return out


def _lines_agree(lines: Lines, spans: Sequence[_Span], text: Callable[[str], str | None]) -> bool:
    """A labelled span agrees when it lies inside a definition and ends where its code does.

    The start may differ: a chunk carries the comments and decorators above a
    definition, a label may not. The end is compared on code: lines between the label's
    end and the chunk's that hold only closers, comments or nothing are outside the
    definition, either way round (a chunk that ends before a closing ``}`` or ``end``
    the label takes in, as the last member of a split class does since chunker 16, or
    one running on through them). Blank lines at the label's ends do not count either
    (as in diagnosis). A member inside a container
    (``Client.send`` in the ``Client`` chunk) can only be checked for containment.
    ``text`` reads a file of the spans.
    """
    for s in spans:
        source = text(s.file)
        start, end = code_span((lines.start, lines.end), source)
        if (
            source is not None
            and s.start <= start <= s.end < end <= source.count("\n") + 1
            and _only_trailers(source, s.end + 1, end, s.language)
        ):
            end = s.end
        if not (s.start <= start and end <= s.end):
            continue
        if not s.primary or end == s.end:
            return True
        if source is not None and _only_trailers(source, end + 1, s.end, s.language):
            return True
    return False


def nearest_span(
    spans: Sequence[_Span], lines: Lines | None = None, roles: Sequence[str] | None = None
) -> _Span:
    """The span a label most likely means: one in a role it accepts (a definition over a
    forward declaration when it names none), then the one overlapping its lines most,
    then the nearest; a definition of the symbol before a member listed in a container."""

    def key(s: _Span) -> tuple[bool, int, int, bool, int, int]:
        misfit = s.role not in roles if roles else s.role == "declaration"
        if lines is None:
            return misfit, 0, 0, not s.primary, s.start, s.end
        overlap = min(lines.end, s.end) - max(lines.start, s.start) + 1
        gap = max(lines.start - s.end, s.start - lines.end, 0)
        return misfit, -max(overlap, 0), gap, not s.primary, s.start, s.end

    return min(spans, key=key)


def describe_spans(chosen: _Span, spans: Sequence[_Span]) -> str:
    """What else defines the name: the overloads beside ``chosen``, its declarations."""
    mine = [s for s in spans if s.primary and s.file == chosen.file and s.symbol == chosen.symbol]
    definitions = [s for s in mine if s.role != "declaration"]
    declarations = [s for s in mine if s.role == "declaration" and s != chosen]
    out = ""
    if len(definitions) > 1:
        shown = ", ".join(s.describe() for s in definitions[:_SHOWN_SPANS])
        more = (
            f" and {len(definitions) - _SHOWN_SPANS} more"
            if len(definitions) > _SHOWN_SPANS
            else ""
        )
        out += (
            f"; {len(definitions)} definitions share the name there (overloads; their "
            f"lines tell them apart): {shown}{more}"
        )
    if declarations:
        out += f"; declared at {', '.join(s.describe() for s in declarations[:_SHOWN_SPANS])}"
    return out


_COMMENT_STARTS = ("//", "/*", "*", "#", "--")


def _only_trailers(text: str, first: int, last: int, language: str) -> bool:
    """Lines ``first``..``last`` (1-based) hold only closers, comments or nothing."""
    words = _closing_words(language)
    lines = text.split("\n")[first - 1 : last]
    return all(
        not line.strip() or line.lstrip().startswith(_COMMENT_STARTS) or closes_block(line, words)
        for line in lines
    )


@functools.cache
def _closing_words(language: str) -> frozenset[str]:
    try:
        return get_language(language).closing_words
    except InputError:  # a language the structural chunker does not parse
        return frozenset()


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
