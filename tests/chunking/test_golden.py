"""Each fixture file's chunks against a reviewed golden JSON next to it.

A mismatch prints a unified diff; ``pytest tests/chunking --update-golden`` rewrites
the golden files (review the diff before committing them). A fixture named like a test
(``*.test.ts``, ``*_spec.rb``, ``*_test.rs``) is chunked as ``test/<name>`` with the test
file role; the others as ``src/<name>`` with the source role.
"""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path

import pytest

from codegold.chunking import ChunkResult, chunk_file
from codegold.corpus.model import FileRole

FIXTURES = Path(__file__).parent / "fixtures"
SOURCES = sorted(p for p in FIXTURES.iterdir() if not p.name.endswith(".golden.json"))
_TEST_NAME = re.compile(r"\.(?:test|spec)\.\w+$|_(?:spec|test)\.\w+$")


def render(path: str, result: ChunkResult) -> str:
    """The golden form: one chunk per block, lists kept on one line for review."""
    out = [
        "{",
        f'  "file": {json.dumps(path)},',
        f'  "language": {json.dumps(result.language)},',
        f'  "parseOk": {json.dumps(result.parse_ok)},',
        '  "chunks": [',
    ]
    for index, chunk in enumerate(result.chunks):
        fields = {
            "lines": [chunk.start_line, chunk.end_line],
            "kind": chunk.kind,
            "role": str(chunk.role),
            "symbol": chunk.symbol,
            "symbols": list(chunk.symbols),
            "references": list(chunk.references),
            "header": chunk.header,
        }
        body = ",\n".join(f"      {json.dumps(k)}: {json.dumps(v)}" for k, v in fields.items())
        comma = "," if index < len(result.chunks) - 1 else ""
        out.append("    {\n" + body + "\n    }" + comma)
    out += ["  ]", "}", ""]
    return "\n".join(out)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: p.name)
def test_golden(source: Path, update_golden: bool) -> None:
    is_test = _TEST_NAME.search(source.name) is not None
    path = f"test/{source.name}" if is_test else f"src/{source.name}"
    role = FileRole.TEST if is_test else FileRole.SOURCE
    result = chunk_file(path, source.read_text(encoding="utf-8"), file_role=role)
    actual = render(path, result)
    golden = source.with_name(source.name + ".golden.json")
    if update_golden or not golden.exists():
        golden.write_text(actual, encoding="utf-8")
        if not update_golden:
            pytest.fail(f"wrote missing golden file {golden.name}; review it and rerun")
    expected = golden.read_text(encoding="utf-8")
    json.loads(expected)  # the golden file must stay valid JSON
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{golden.name} (golden)",
                tofile=f"{golden.name} (actual)",
            )
        )
        pytest.fail(f"chunks of {source.name} differ from the golden file:\n{diff}", pytrace=False)
