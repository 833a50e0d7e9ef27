"""Chunking a file leaves no reference cycle behind.

A build keeps the cyclic garbage collector off (it would rescan millions of live
objects); whatever a chunked file leaves in a cycle -- definitions linked to their
parents and back, each holding a node and so the file's whole syntax tree, or a
recursive closure holding the file's lines -- then lives until the build ends, and is
freed there in one long collection.
"""

from __future__ import annotations

import gc
from collections import Counter

from codegold.chunking import chunk_file
from codegold.corpus.model import FileRole
from codegold.index.build import _no_gc as _collector_off

from .test_golden import SOURCES
from .test_preprocessor import TWO_SIGNATURES

NESTED_PYTHON = """\
class Outer:
    class Inner:
        def method(self):
            def helper():
                return 1
            return helper()

    def other(self):
        return self.Inner().method()


def decorator(fn):
    def wrapper(*args):
        return fn(*args)
    return wrapper
"""


def _files() -> list[tuple[str, str]]:
    files = [(f"src/{p.name}", p.read_text(encoding="utf-8")) for p in SOURCES]
    return [*files, ("src/main.c", TWO_SIGNATURES), ("pkg/nested.py", NESTED_PYTHON)]


def _chunk_all(files: list[tuple[str, str]]) -> int:
    chunks = 0
    for path, text in files:
        chunks += len(chunk_file(path, text, file_role=FileRole.SOURCE).chunks)
    return chunks


def test_chunking_leaves_nothing_for_the_cyclic_collector() -> None:
    files = _files()
    assert _chunk_all(files) > 100  # warmed up: languages loaded, queries compiled
    with _collector_off():
        gc.collect()
        assert _chunk_all(files) > 100
        saved = gc.get_debug()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            found = gc.collect()
            kinds = Counter(type(o).__name__ for o in gc.garbage)
        finally:
            gc.set_debug(saved)
            gc.garbage.clear()
            gc.collect()
    assert found == 0, f"chunking left {found} objects in cycles: {kinds.most_common(8)}"
