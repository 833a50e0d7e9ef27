"""Renamed definitions: a body substantially the same under a new name or in a new file.

A target whose symbol is gone at the new revision may have been renamed
(``parse_header_links`` → ``_parse_header_links``) or renamed and moved at once. Its
body at the old revision is compared, token by token and with the definition's own
name blanked, with every definition of the same language at the new revision; the
closest one at or above :data:`THRESHOLD` is proposed.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from codegold.index.store import IndexedChunk
from codegold.lint.revision import _Revision, _Span, _under

THRESHOLD = 0.8
_TOKEN = re.compile(r"[A-Za-z_$][\w$]*|\d+|[^\w\s]")
_DEFINING = frozenset({"definition", "declaration", "test"})


@dataclass(frozen=True, slots=True)
class SimilarBody:
    file: str
    symbol: str
    span: _Span
    ratio: float


def _tokens(text: str, name: str) -> list[str]:
    return ["\0" if t == name else t for t in _TOKEN.findall(text)]


def _last(symbol: str) -> str:
    return symbol.rsplit(".", 1)[-1]


def _old_body(old: _Revision, file: str, symbol: str) -> tuple[str, str] | None:
    """The target's text at the old revision, and its language."""
    spans = [s for s in old.spans([file], symbol) if s.primary]
    text = old.text(file)
    if not spans or text is None:
        return None
    span = spans[0]
    lines = text.split("\n")[span.start - 1 : span.end]
    chunks = [c for c in old.chunks([file]) if c.start_line <= span.start <= c.end_line]
    language = chunks[0].language if chunks else ""
    return "\n".join(lines), language


def _pieces(new: _Revision, language: str) -> dict[tuple[str, str], list[IndexedChunk]]:
    """Definition chunks at the new revision by (file, symbol), in line order."""
    out: dict[tuple[str, str], list[IndexedChunk]] = {}
    for c in new.index.chunks:
        if c.symbol and c.language == language and c.role in _DEFINING:
            out.setdefault((c.file, c.symbol), []).append(c)
    return out


def similar_body(
    old: _Revision,
    new: _Revision,
    file: str,
    symbol: str,
    forbidden: Sequence[str],
) -> SimilarBody | None:
    """The definition at ``new`` whose body is closest to ``file#symbol`` at ``old``."""
    found = _old_body(old, file, symbol)
    if found is None:
        return None
    body, language = found
    want = _tokens(body, _last(symbol))
    if len(want) < 12:  # too small to tell a rename from a coincidence
        return None
    best: SimilarBody | None = None
    for (path, name), chunks in sorted(_pieces(new, language).items()):
        if _under(path, forbidden) is not None:
            continue
        text = "\n".join(c.text for c in sorted(chunks, key=lambda c: c.start_line))
        have = _tokens(text, _last(name))
        if not 0.67 <= len(have) / len(want) <= 1.5:
            continue
        matcher = difflib.SequenceMatcher(None, want, have, autojunk=False)
        if matcher.real_quick_ratio() < THRESHOLD or matcher.quick_ratio() < THRESHOLD:
            continue
        ratio = matcher.ratio()
        if ratio >= THRESHOLD and (best is None or ratio > best.ratio):
            start = min(c.start_line for c in chunks)
            end = max(c.end_line for c in chunks)
            best = SimilarBody(path, name, _Span(path, start, end, name, True), ratio)
    return best
