"""The check both naming tables run: which names a file's chunks define, and which
case labels match a chunk (SPEC §1's suffix rule, through symbol_matches)."""

from __future__ import annotations

import textwrap

from codegold.cases.match import symbol_matches
from codegold.chunking import Chunk, chunk_file
from codegold.corpus.model import FileRole


def chunks_of(path: str, source: str, role: FileRole) -> tuple[Chunk, ...]:
    result = chunk_file(path, textwrap.dedent(source), file_role=role)
    assert result.parse_ok
    return result.chunks


def check_naming(
    path: str,
    source: str,
    role: FileRole,
    present: set[str],
    absent: set[str],
    labels: list[str],
) -> None:
    """Every name of ``present`` is defined, none of ``absent``, and every label
    matches some chunk."""
    chunks = chunks_of(path, source, role)
    defined = {name for chunk in chunks for name in chunk.symbols}
    assert present <= defined, f"missing {sorted(present - defined)}; got {sorted(defined)}"
    assert not (absent & defined), f"unexpected {sorted(absent & defined)}"
    unmatched = [
        label
        for label in labels
        if not any(symbol_matches(label, c.symbol, c.symbols) for c in chunks)
    ]
    assert not unmatched, f"labels matching no chunk: {unmatched}; names {sorted(defined)}"
