"""Small helpers on repository-relative paths."""

from __future__ import annotations

from collections.abc import Iterable


def by_file_name(paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The paths by their file name (``a/util.c`` and ``b/util.c`` under ``util.c``),
    each name's paths in sorted order."""
    table: dict[str, list[str]] = {}
    for path in sorted(paths):
        table.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    return {name: tuple(found) for name, found in table.items()}
