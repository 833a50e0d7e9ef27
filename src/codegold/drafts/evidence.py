"""Reading engineering traces into evidence: what was asked, and what was looked at.

Three JSONL formats (one record a line, blank lines ignored):

``search-log``
    ``{"query": "...", "opened": [{"file": "src/a.py", "line": 42}, ...]}``: a search
    and the files the engineer opened or accepted after it (``line`` optional; a bare
    string is a file). Optional ``revision`` (a commit) and ``at`` (a timestamp).
``assistant-trace``
    An answer that failed: ``query``, the context sent (``contextIds`` or ``files``:
    ``path``, ``path:42``, ``path:10-30`` or ``path#Symbol``) and its ``verdict``.
    Records whose verdict says the answer was right (``pass``, ``correct`` ...) are
    not failures and are skipped.
``review-comments``
    ``{"body": "...", "path": "src/a.py", "line": 42, "commit": "<sha>"}``: the body's
    first sentence is the query, the commented line the evidence.

A malformed line (not JSON, a required field missing or of the wrong type) is bad
input naming file, line and field: the whole file is refused.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from codegold.errors import InputError

FORMATS = ("search-log", "assistant-trace", "review-comments")
PASSING_VERDICTS = frozenset({"pass", "passed", "correct", "ok", "good", "accepted", "success"})


@dataclass(frozen=True, slots=True)
class Opened:
    """One file (and optionally a line, a span or a symbol) the trace points at."""

    file: str
    line: int | None = None
    end_line: int | None = None
    symbol: str | None = None


@dataclass(frozen=True, slots=True)
class Evidence:
    """One traced question and what it points at, with the line it was read from."""

    query: str
    opened: tuple[Opened, ...]
    revision: str | None
    line: int
    note: str | None = None


@dataclass
class ReadStats:
    lines: int = 0
    records: int = 0
    passing: int = 0


def _fail(path: Path, line: int, field: str | None, message: str) -> InputError:
    return InputError(message, file=str(path), line=line, field=field)


def _string(raw: dict[str, Any], key: str, path: Path, line: int, *, required: bool) -> str | None:
    value = raw.get(key)
    if value is None:
        if required:
            raise _fail(path, line, key, f"missing {key!r}")
        return None
    if not isinstance(value, str):
        raise _fail(path, line, key, f"expected a string, got {type(value).__name__}")
    if required and not value.strip():
        raise _fail(path, line, key, f"{key!r} is empty")
    return value


def _line_number(value: Any, path: Path, line: int, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _fail(path, line, field, f"expected a line number (an integer >= 1), got {value!r}")
    return value


_SPAN = re.compile(r"^(?P<file>.+?)(?::(?P<start>\d+)(?:-(?P<end>\d+))?|#(?P<symbol>.+))$")


def parse_reference(text: str) -> Opened:
    """``path``, ``path:42``, ``path:10-30`` or ``path#Symbol`` as an :class:`Opened`."""
    m = _SPAN.match(text.strip())
    if m is None or (m.group("start") is None and m.group("symbol") is None):
        return Opened(file=text.strip())
    if m.group("symbol") is not None:
        return Opened(file=m.group("file"), symbol=m.group("symbol"))
    start = int(m.group("start"))
    end = int(m.group("end")) if m.group("end") else None
    return Opened(file=m.group("file"), line=start, end_line=end)


def _opened(value: Any, path: Path, line: int, field: str) -> tuple[Opened, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise _fail(path, line, field, f"expected a list, got {type(value).__name__}")
    out: list[Opened] = []
    for i, item in enumerate(value):
        where = f"{field}[{i}]"
        if isinstance(item, str) and item.strip():
            out.append(parse_reference(item))
            continue
        if not isinstance(item, dict):
            raise _fail(path, line, where, "expected a file path or {file, line}")
        file = item.get("file") or item.get("path")
        if not isinstance(file, str) or not file.strip():
            raise _fail(path, line, f"{where}.file", "missing 'file'")
        start = _line_number(item.get("line"), path, line, f"{where}.line")
        out.append(Opened(file=file.strip(), line=start))
    return tuple(out)


def _records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a JSONL file", file=str(path)) from None
    decoder = msgspec.json.Decoder()
    for number, raw_line in enumerate(data.split(b"\n"), start=1):
        if not raw_line.strip():
            continue
        try:
            value = decoder.decode(raw_line)
        except msgspec.DecodeError as exc:
            raise _fail(path, number, None, f"invalid JSON: {exc}") from None
        if not isinstance(value, dict):
            raise _fail(path, number, None, "expected a JSON object")
        yield number, value


_SENTENCE = re.compile(r"(?<=[.!?])\s")


def _first_sentence(body: str, limit: int = 200) -> str:
    first = body.strip().split("\n", 1)[0].strip()
    first = _SENTENCE.split(first, 1)[0].strip()
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def read_evidence(fmt: str, path: Path, stats: ReadStats | None = None) -> Iterator[Evidence]:
    """The evidence records of a trace file of format ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise InputError(f"unknown trace format {fmt!r} (one of: {', '.join(FORMATS)})")
    stats = stats if stats is not None else ReadStats()
    for number, raw in _records(path):
        stats.records += 1
        stats.lines = number
        revision = _string(raw, "revision" if fmt != "review-comments" else "commit", path, number,
                           required=False)  # fmt: skip
        if fmt == "search-log":
            query = _string(raw, "query", path, number, required=True) or ""
            yield Evidence(query, _opened(raw.get("opened"), path, number, "opened"), revision,
                           number)  # fmt: skip
        elif fmt == "assistant-trace":
            query = _string(raw, "query", path, number, required=True) or ""
            verdict = raw.get("verdict")
            if isinstance(verdict, str) and verdict.strip().lower() in PASSING_VERDICTS:
                stats.passing += 1
                continue
            key = "contextIds" if "contextIds" in raw else "files"
            refs = _opened(raw.get(key), path, number, key)
            note = f"verdict {verdict}" if isinstance(verdict, str | int | float) else None
            yield Evidence(query, refs, revision, number, note)
        else:
            body = _string(raw, "body", path, number, required=True) or ""
            file = _string(raw, "path", path, number, required=True) or ""
            start = _line_number(raw.get("line"), path, number, "line")
            yield Evidence(_first_sentence(body), (Opened(file.strip(), start),), revision, number)
