"""Does a chunk satisfy a target? The SPEC §1 matching rule, written once beside the
case contract it reads: file (or glob), then symbol, then role; and the labelled span.

Every stage asks here: the evaluator (retrieved chunks), diagnosis and lint (codegold's
own indexed chunks), TREC export and answer joins.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Protocol

from codegold.cases.model import Target


class ChunkLike(Protocol):
    """What matching reads of a chunk, retrieved or indexed."""

    @property
    def file(self) -> str: ...

    @property
    def symbol(self) -> str | None: ...

    @property
    def symbols(self) -> tuple[str, ...] | None: ...

    @property
    def role(self) -> str: ...


def chunk_matches(chunk: ChunkLike, target: Target) -> bool:
    """The SPEC §1 rule: file (or glob), then symbol, then role."""
    if not file_matches(chunk.file, target):
        return False
    if target.symbol is not None and not symbol_matches(target.symbol, chunk.symbol, chunk.symbols):
        return False
    return not (target.roles and chunk.role not in target.roles)


@lru_cache(maxsize=4096)
def glob_regex(pattern: str) -> re.Pattern[str]:
    """Compile a path glob: ``*`` and ``?`` stay inside one segment, ``**`` spans any.

    ``src/**/session.ts`` matches ``src/session.ts`` and ``src/a/b/session.ts``.
    """
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def file_matches(file: str, target: Target) -> bool:
    if target.file is not None:
        return file == target.file
    assert target.file_pattern is not None
    return glob_regex(target.file_pattern).match(file) is not None


_RECEIVER = re.compile(r"^\(\*?([\w$]+)\)\.")


@lru_cache(maxsize=65536)
def normalize_symbol(name: str) -> str:
    """Spellings people write for the same qualified name, folded to the spec's ``.``:
    Rust/C++ ``Type::method``, Ruby/Java docs ``Class#method``, Go ``(*Type).Method``,
    JavaScript ``X.prototype.m`` (``X.m``)."""
    name = _RECEIVER.sub(r"\1.", name.strip())
    name = name.replace("::", ".").replace("#", ".").replace("->", ".")
    return name.replace(".prototype.", ".")


def symbol_matches(wanted: str, symbol: str | None, symbols: tuple[str, ...] | None) -> bool:
    """SPEC §1: a target matches a name equal to it or ending with ``.`` + it, both
    sides in their normalised spelling (``Client.send`` matches ``http.Client.send``,
    never ``AsyncClient.send``). A name with a space (a test title) matches only itself."""
    names: tuple[str, ...] = symbols or ()
    if symbol is not None:
        names = (symbol, *names)
    if not names:
        return False
    raw = wanted.strip()
    if raw in names:
        return True
    wanted = normalize_symbol(raw)
    suffix = "." + wanted
    titled = any(ch.isspace() for ch in wanted)
    for name in names:
        canonical = normalize_symbol(name)
        if canonical == wanted:
            return True
        if not titled and canonical.endswith(suffix) and not any(ch.isspace() for ch in name):
            return True
    return False


def span_covers(target: Target, start_line: int, end_line: int) -> bool:
    """True when the chunk's span covers the target's labelled ``lines``."""
    if target.lines is None:
        return False
    return start_line <= target.lines.start and end_line >= target.lines.end


def target_area(target: Target) -> str | None:
    """The first path segment of a target: its repository area."""
    path = target.file or target.file_pattern or ""
    head = path.split("/", 1)[0]
    if not head or any(ch in head for ch in "*?["):
        return None
    return head if "/" in path else "(root)"
