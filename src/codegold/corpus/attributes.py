"""The ``linguist-*`` attributes a revision's ``.gitattributes`` files give its paths.

Only three attributes matter to codegold: ``linguist-generated``,
``linguist-vendored`` and ``linguist-documentation``. Every ``.gitattributes`` in the
tree is read; a file's patterns apply below its directory, deeper files and later
lines win, as in git.

Matching follows gitignore rules (via pathspec), which is slightly more lenient than
git's own: a ``dir/`` pattern also marks the files inside ``dir``, which is what
people who write ``vendor/ linguist-vendored`` mean.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Final

import pathspec

__all__ = [
    "ATTRIBUTES_FILE",
    "LINGUIST_ATTRIBUTES",
    "AttributeValue",
    "GitAttributes",
    "parse_gitattributes",
]

ATTRIBUTES_FILE: Final = ".gitattributes"
LINGUIST_ATTRIBUTES: Final = (
    "linguist-generated",
    "linguist-vendored",
    "linguist-documentation",
)
_TRUE: Final = frozenset({"true", "1", "yes"})
_FALSE: Final = frozenset({"false", "0", "no"})


@dataclass(frozen=True, slots=True)
class AttributeValue:
    """An attribute set (``True``) or unset (``False``) for a path, and by which line."""

    value: bool
    file: str  # the .gitattributes file that decided it, e.g. "api/.gitattributes"
    pattern: str  # the pattern on the line that decided it


@dataclass(frozen=True, slots=True)
class _Line:
    base: str  # directory of the .gitattributes file, "" or "a/b/"
    pattern: str
    file: str
    values: tuple[tuple[str, bool | None], ...]  # None: "!attr" (back to unspecified)
    regex: re.Pattern[str]


def _compile(pattern: str) -> re.Pattern[str] | None:
    compiled = pathspec.GitIgnoreSpec.from_lines([pattern]).patterns
    regex = getattr(compiled[0], "regex", None) if compiled else None
    return regex if isinstance(regex, re.Pattern) else None


def _unquote(pattern: str) -> str:
    # git allows a C-style quoted pattern; the common escapes are enough here.
    body = pattern[1:-1]
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\" and i + 1 < len(body):
            i += 1
            ch = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(body[i], body[i])
        out.append(ch)
        i += 1
    return "".join(out)


def _split_line(line: str) -> tuple[str, str] | None:
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    if line.startswith('"'):
        end = 1
        while end < len(line) and (line[end] != '"' or line[end - 1] == "\\"):
            end += 1
        if end >= len(line):
            return None
        return _unquote(line[: end + 1]), line[end + 1 :]
    pattern, _, rest = line.partition(" ")
    if "\t" in pattern:
        pattern, _, more = pattern.partition("\t")
        rest = more + " " + rest
    return pattern, rest


def _parse_values(rest: str) -> tuple[tuple[str, bool | None], ...]:
    values: list[tuple[str, bool | None]] = []
    for token in rest.split():
        if token.startswith("-"):
            name, value = token[1:], False
        elif token.startswith("!"):
            name, value = token[1:], None
        elif "=" in token:
            name, _, raw = token.partition("=")
            low = raw.lower()
            if low in _TRUE:
                value = True
            elif low in _FALSE:
                value = False
            else:
                continue
        else:
            name, value = token, True
        if name in LINGUIST_ATTRIBUTES:
            values.append((name, value))
    return tuple(values)


class GitAttributes:
    """The linguist attributes of a revision, looked up per path."""

    def __init__(self, lines: Iterable[_Line] = ()) -> None:
        self._lines = tuple(lines)

    def __bool__(self) -> bool:
        return bool(self._lines)

    def lookup(self, path: str) -> Mapping[str, AttributeValue]:
        """The linguist attributes that are set or unset for ``path`` (absent: unspecified)."""
        found: dict[str, AttributeValue] = {}
        for line in self._lines:
            if line.base and not path.startswith(line.base):
                continue
            if line.regex.match(path[len(line.base) :]) is None:
                continue
            for name, value in line.values:
                if value is None:
                    found.pop(name, None)
                else:
                    found[name] = AttributeValue(value, line.file, line.pattern)
        return found


def parse_gitattributes(files: Iterable[tuple[str, str]]) -> GitAttributes:
    """Build the lookup from ``(path of a .gitattributes file, its text)`` pairs."""
    ordered = sorted(files, key=lambda f: (f[0].count("/"), f[0]))
    lines: list[_Line] = []
    for file_path, text in ordered:
        base = file_path[: -len(ATTRIBUTES_FILE)]
        for raw in text.split("\n"):
            split = _split_line(raw)
            if split is None:
                continue
            pattern, rest = split
            if pattern.startswith("!"):
                continue  # negative patterns are forbidden in .gitattributes
            values = _parse_values(rest)
            regex = _compile(pattern)
            if not values or regex is None:
                continue
            lines.append(
                _Line(
                    base=base,
                    pattern=pattern,
                    file=file_path,
                    values=values,
                    regex=regex,
                )
            )
    return GitAttributes(lines)
