"""Chunks for text without a grammar: line windows, and sections for Markdown and RST.

* Markdown (ATX and setext headings, fenced code skipped) and reStructuredText
  (underlined, optionally overlined titles) are cut at every heading into ``section``
  chunks; the text before the first heading is a section too. A section longer than
  ``max_chunk_lines`` is cut into overlapping windows that carry its heading in
  ``header``. Sections have no ``symbol`` and no ``symbols`` (headings are prose, not
  names); their ``references`` are the identifiers quoted in backticks.
* YAML, TOML and INI windows list the keys and section names they define at column 0
  in ``symbols`` so that a ``symbol: timeout`` target can name a setting.
* Code in a language without a grammar (see :mod:`~codegold.chunking.heuristic`: Perl,
  R, Elixir, Dart, Zig, SQL, ...) is cut at the definition lines a regex heuristic finds:
  each definition (with the comment lines right above it) starts a new run, runs are
  packed into windows of at most ``window_lines`` lines, and a longer run is windowed
  with overlap. A window's ``symbols`` are the names defined on its lines, its ``symbol``
  the first of them; it is a ``definition`` when it defines one. The chunk language is
  the heuristic's language name (``perl``, ``sql``, ...).
* Everything else is cut into ``window_lines`` windows overlapping by ``window_overlap``.

Roles: the file's role wins (see :func:`~codegold.chunking.config.role_for_file`); in a
source-like file, documents are ``docs``, configuration formats ``configuration`` and
other text ``call_site``.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import pairwise

from codegold.chunking.config import DEFAULT_CONFIG, ChunkerConfig, ChunkResult, role_for_file
from codegold.chunking.heuristic import Family, family_for_path, find_definitions
from codegold.chunking.model import Chunk
from codegold.corpus.model import FileRole
from codegold.roles import Role

__all__ = ["chunk_text", "heuristic_chunks", "text_format_for_path", "window_chunks"]

_FORMATS: dict[str, str] = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".rst": "rst",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".json": "json",
    ".jsonc": "json",
    ".ini": "ini",
    ".cfg": "ini",
    ".conf": "ini",
    ".properties": "ini",
    ".env": "ini",
}
_DOCUMENT_FORMATS = frozenset({"markdown", "rst"})
_CONFIG_FORMATS = frozenset({"yaml", "toml", "json", "ini"})
_KEYED_FORMATS = frozenset({"yaml", "toml", "ini"})


def text_format_for_path(path: str) -> str:
    """``markdown``, ``rst``, ``yaml``, ``toml``, ``json``, ``ini`` or ``text``."""
    name = path.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    if dot < 0:
        return "text"
    return _FORMATS.get(name[dot:], "text")


def _natural_role(text_format: str) -> Role:
    if text_format in _DOCUMENT_FORMATS:
        return Role.DOCS
    if text_format in _CONFIG_FORMATS:
        return Role.CONFIGURATION
    return Role.CALL_SITE


def chunk_text(
    path: str, text: str, *, file_role: FileRole, config: ChunkerConfig = DEFAULT_CONFIG
) -> ChunkResult:
    """Chunk a file no grammar covers: sections for documents, windows otherwise."""
    text_format = text_format_for_path(path)
    role = role_for_file(file_role, _natural_role(text_format))
    lines = text.split("\n")
    if text_format == "text":
        family = family_for_path(path, text)
        if family is not None:
            chunks = heuristic_chunks(
                path,
                lines,
                language=family.name,
                family=family,
                file_role=file_role,
                natural=Role.CALL_SITE,
                config=config,
            )
            return ChunkResult(chunks=tuple(chunks), parse_ok=True, language=family.name)
    if text_format in _DOCUMENT_FORMATS:
        chunks = _section_chunks(path, lines, text_format, role, config)
    else:
        chunks = window_chunks(path, lines, language=text_format, role=role, config=config)
    return ChunkResult(chunks=tuple(chunks), parse_ok=True, language=text_format)


def _blank(line: str) -> bool:
    return not line.strip()


def _trim(lines: Sequence[str], start: int, end: int) -> tuple[int, int] | None:
    """``[start, end]`` without blank lines at either edge, or None if all blank."""
    while start <= end and _blank(lines[start]):
        start += 1
    while end >= start and _blank(lines[end]):
        end -= 1
    return (start, end) if start <= end else None


def _spans(
    lines: Sequence[str], start: int, end: int, size: int, overlap: int
) -> list[tuple[int, int]]:
    """Windows of ``size`` lines stepping by ``size - overlap`` over ``[start, end]``.

    Each window is trimmed of blank edge lines; windows that add no new non-blank line
    are dropped, so every non-blank line is covered and no window is redundant.
    """
    spans: list[tuple[int, int]] = []
    whole = _trim(lines, start, end)
    if whole is None:
        return spans
    start, end = whole
    covered = start - 1
    step = size - overlap
    first = start
    while first <= end:
        last = min(first + size - 1, end)
        trimmed = _trim(lines, first, last)
        if trimmed is not None and trimmed[1] > covered:
            spans.append(trimmed)
            covered = trimmed[1]
        if last >= end:
            break
        first += step
    return spans


_KEY = re.compile(r"^([A-Za-z_][\w.-]*)\s*[:=]")
_SECTION = re.compile(r"^\[+\s*([^\]\s][^\]]*?)\s*\]+\s*$")


def _keys(lines: Sequence[str], start: int, end: int) -> tuple[str, ...]:
    found: dict[str, None] = {}
    for line in lines[start : end + 1]:
        match = _SECTION.match(line) or _KEY.match(line)
        if match:
            found[match.group(1)] = None
    return tuple(found)


def _text(lines: Sequence[str], start: int, end: int) -> str:
    return "\n".join(lines[start : end + 1])


def window_chunks(
    path: str,
    lines: Sequence[str],
    *,
    language: str,
    role: Role,
    config: ChunkerConfig,
) -> list[Chunk]:
    """Overlapping line windows over a whole file (``lines`` split on ``\\n``)."""
    chunks: list[Chunk] = []
    keyed = language in _KEYED_FORMATS
    for start, end in _spans(lines, 0, len(lines) - 1, config.window_lines, config.window_overlap):
        chunks.append(
            Chunk(
                file=path,
                start_line=start + 1,
                end_line=end + 1,
                language=language,
                kind="window",
                role=role,
                symbol=None,
                symbols=_keys(lines, start, end) if keyed else (),
                references=(),
                text=_text(lines, start, end),
            )
        )
    return chunks


def heuristic_chunks(
    path: str,
    lines: Sequence[str],
    *,
    language: str,
    family: Family,
    file_role: FileRole,
    natural: Role,
    config: ChunkerConfig,
) -> list[Chunk]:
    """Windows cut at the definition lines the regex heuristic finds (see module doc).

    ``natural`` is the role of a window that defines nothing (before the file's role
    is applied).
    """
    definitions = find_definitions(family, lines)
    comments = family.comments
    # Each definition starts a run, taking in the comment lines right above it.
    starts = [0]
    for d in definitions:
        start = d.row
        while (
            start - 1 > starts[-1]
            and lines[start - 1].strip()
            and lines[start - 1].lstrip().startswith(comments)
        ):
            start -= 1
        if start > starts[-1]:
            starts.append(start)
    bounds = [*starts, len(lines)]
    size = config.window_lines
    spans: list[tuple[int, int]] = []
    pending: tuple[int, int] | None = None
    for begin, stop in pairwise(bounds):
        run = _trim(lines, begin, stop - 1)
        if run is None:
            continue
        if run[1] - run[0] + 1 > size:
            if pending is not None:
                spans.append(pending)
                pending = None
            spans.extend(_spans(lines, run[0], run[1], size, config.window_overlap))
        elif pending is not None and run[1] - pending[0] + 1 <= size:
            pending = (pending[0], run[1])
        else:
            if pending is not None:
                spans.append(pending)
            pending = run
    if pending is not None:
        spans.append(pending)

    rows = [d.row for d in definitions]
    chunks: list[Chunk] = []
    for start, end in spans:
        first = bisect_left(rows, start)
        last = bisect_right(rows, end)
        names = tuple(dict.fromkeys(d.name for d in definitions[first:last] if d.name))
        role = Role.DEFINITION if names else natural
        # A window continuing a long definition carries its first line as header.
        header = ""
        if first == last and first > 0 and definitions[first - 1].name:
            header = lines[rows[first - 1]].strip()
        chunks.append(
            Chunk(
                file=path,
                start_line=start + 1,
                end_line=end + 1,
                language=language,
                kind="window",
                role=role_for_file(file_role, role),
                symbol=names[0] if names else None,
                symbols=names,
                references=(),
                text=_text(lines, start, end),
                header=header,
            )
        )
    return chunks


# ---- documents ------------------------------------------------------------

_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.!$%&,/;?@\\|])\1{2,}[ \t]*$")
#: The characters an adornment line starts with (a cheap test before the regex).
_ADORNMENT_CHARS = frozenset("=-`:'\"~^_*+#<>.!$%&,/;?@\\|")
_CODE_SPAN = re.compile(r"`+([^`\n]+?)`+")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _markdown_headings(lines: Sequence[str]) -> dict[int, int]:
    """Markdown headings: first row -> last row (a setext heading spans two)."""
    headings: dict[int, int] = {}
    fence: str | None = None
    front_matter = bool(lines) and lines[0].strip() == "---"
    for row, line in enumerate(lines):
        if front_matter:
            if row > 0 and line.strip() in ("---", "..."):
                front_matter = False
            continue
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            continue
        if match:
            fence = match.group(1)
            continue
        if _ATX.match(line):
            headings[row] = row
        elif (
            row > 0
            and _SETEXT.match(line)
            and not _blank(lines[row - 1])
            and (row - 1) not in headings
            and (row < 2 or _blank(lines[row - 2]))
        ):
            headings[row - 1] = row
    return headings


def _rst_headings(lines: Sequence[str]) -> dict[int, int]:
    """RST section titles: first row (the overline, if any) -> last row (the underline)."""
    headings: dict[int, int] = {}
    row = 1
    while row < len(lines):
        line = lines[row]
        title = lines[row - 1]
        if (
            line[:1] in _ADORNMENT_CHARS
            and _RST_ADORNMENT.match(line)
            and not _blank(title)
            and not _RST_ADORNMENT.match(title)
            and len(line.rstrip()) >= len(title.strip())
            and not title.startswith((" ", "\t"))
        ):
            start = row - 1
            if start > 0 and lines[start - 1].rstrip() == line.rstrip():
                start -= 1
            headings[start] = row
            row += 2
            continue
        row += 1
    return headings


def _code_references(lines: Sequence[str], start: int, end: int, cap: int) -> tuple[str, ...]:
    names: set[str] = set()
    for line in lines[start : end + 1]:
        if "`" not in line:
            continue
        for span in _CODE_SPAN.findall(line):
            names.update(_IDENTIFIER.findall(span))
    return tuple(sorted(names)[:cap])


def _section_chunks(
    path: str, lines: Sequence[str], text_format: str, role: Role, config: ChunkerConfig
) -> list[Chunk]:
    headings = _markdown_headings(lines) if text_format == "markdown" else _rst_headings(lines)
    bounds = [0, *(row for row in sorted(headings) if row > 0), len(lines)]
    chunks: list[Chunk] = []
    for begin, stop in pairwise(bounds):
        section = _trim(lines, begin, stop - 1)
        if section is None:
            continue
        first, last = section
        heading = _text(lines, first, headings[first]) if first in headings else ""
        if last - first + 1 <= config.max_chunk_lines:
            pieces = [(first, last)]
        else:
            pieces = _spans(lines, first, last, config.window_lines, config.window_overlap)
        for start, end in pieces:
            chunks.append(
                Chunk(
                    file=path,
                    start_line=start + 1,
                    end_line=end + 1,
                    language=text_format,
                    kind="section",
                    role=role,
                    symbol=None,
                    symbols=(),
                    references=_code_references(lines, start, end, config.max_references),
                    text=_text(lines, start, end),
                    header=heading if start != first else "",
                )
            )
    return chunks
