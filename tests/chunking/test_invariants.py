"""Properties every chunking must have, checked on the fixtures under several configs."""

from __future__ import annotations

import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

from codegold.chunking import ChunkerConfig, ChunkResult, chunk_file, format_chunks
from codegold.corpus.model import FileRole

FIXTURES = Path(__file__).parent / "fixtures"
SOURCES = sorted(p for p in FIXTURES.iterdir() if not p.name.endswith(".golden.json"))
CONFIGS = {
    "default": ChunkerConfig(),
    "tight": ChunkerConfig(max_chunk_lines=8, min_member_lines=1),
    "tiny": ChunkerConfig(max_chunk_lines=2, long_definition_factor=1, min_member_lines=0),
}
KINDS = {
    "function", "method", "class", "interface", "type", "struct", "enum",
    "impl", "trait", "module", "window", "section",
}  # fmt: skip


def chunk(source: Path, config: ChunkerConfig) -> ChunkResult:
    return chunk_file(
        f"src/{source.name}", source.read_text(encoding="utf-8"),
        file_role=FileRole.SOURCE, config=config,
    )  # fmt: skip


@pytest.mark.parametrize("config_name", sorted(CONFIGS))
@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_chunks_are_sorted_disjoint_and_cover_every_non_blank_line(
    source: Path, config_name: str
) -> None:
    config = CONFIGS[config_name]
    result = chunk(source, config)
    lines = source.read_text(encoding="utf-8").split("\n")
    spans = [(c.start_line, c.end_line) for c in result.chunks]
    assert spans == sorted(spans)
    for (_, end), (start, _) in pairwise(spans):
        assert end < start, "structural chunks never overlap"
    covered = {line for start, end in spans for line in range(start, end + 1)}
    missing = [n for n, text in enumerate(lines, 1) if text.strip() and n not in covered]
    assert missing == []
    for c in result.chunks:
        assert c.kind in KINDS
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
        assert lines[c.start_line - 1].strip() and lines[c.end_line - 1].strip()
        assert len(c.references) <= config.max_references
        assert list(c.references) == sorted(set(c.references))


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_no_chunk_exceeds_the_limits(source: Path) -> None:
    config = CONFIGS["tight"]
    limit = config.max_chunk_lines * config.long_definition_factor
    for c in chunk(source, config).chunks:
        assert c.end_line - c.start_line + 1 <= limit, (c.symbol, c.start_line)


def test_chunking_is_deterministic_across_processes() -> None:
    script = (
        "import sys, pathlib\n"
        "from codegold.chunking import chunk_file, CHUNKER_VERSION\n"
        "from codegold.corpus.model import FileRole\n"
        "print(CHUNKER_VERSION)\n"
        "for arg in sys.argv[1:]:\n"
        "    p = pathlib.Path(arg)\n"
        "    r = chunk_file(p.name, p.read_text(), file_role=FileRole.SOURCE)\n"
        "    print(repr(r.chunks))\n"
    )
    args = [sys.executable, "-c", script, *map(str, SOURCES)]
    first, second = (
        subprocess.run(args, capture_output=True, text=True, check=True).stdout for _ in range(2)
    )
    assert first == second
    _version, *reprs = first.splitlines()
    for source, printed in zip(SOURCES, reprs, strict=True):
        in_process = chunk_file(source.name, source.read_text(), file_role=FileRole.SOURCE)
        assert repr(in_process.chunks) == printed


def test_format_chunks_is_a_table() -> None:
    result = chunk(FIXTURES / "session.go", ChunkerConfig())
    table = format_chunks(result.chunks).splitlines()
    assert table[0].split() == ["lines", "kind", "role", "symbol", "symbols", "refs"]
    assert len(table) == len(result.chunks) + 1
    assert "Service.Refresh" in format_chunks(result.chunks)
