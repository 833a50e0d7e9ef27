"""Builds that reuse the blob cache give the same bytes as cold ones, on any worker count."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import msgspec
import numpy as np
import pytest

from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index import build as build_module
from codegold.index._msgpack import array_header, map_header
from codegold.index.build import BuildOptions, build_index
from codegold.index.lexical import BM25Builder, TermCounts, merge_term_counts
from codegold.index.store import IndexedChunk, open_index
from codegold.index.symbols import TABLES, KeyPostings, SymbolTable, chunk_keys
from tests.corpus.gitfixture import make_repo


def _module(i: int, extra: str = "") -> str:
    return (
        "".join(
            f"class Handler{i}_{j}:\n"
            f"    '''Handles request {j} of module {i}.'''\n\n"
            f"    def handle_request(self, request):\n"
            f"        return parse_headers(request, {j}) or self.fallback_{j}(request)\n\n"
            for j in range(6)
        )
        + extra
    )


V1 = {
    **{f"pkg/mod{i}.py": _module(i) for i in range(12)},
    "pkg/old_name.py": "def moved_function(value):\n    return value + 1\n",
    "pkg/gone.py": "def removed_function():\n    return 'gone'\n",
    "docs/guide.md": "# Guide\n\nCall parse_headers before handle_request.\n",
    "web/app.js": "export function renderPage(req) {\n  return req.body;\n}\n",
}
V2 = {
    "pkg/mod3.py": _module(3, "def brand_new_helper(x):\n    return x\n"),
    "pkg/mod7.py": _module(70),
    "pkg/old_name.py": None,  # renamed: same content under a new path
    "pkg/new_name.py": "def moved_function(value):\n    return value + 1\n",
    "pkg/gone.py": None,  # deleted
    "pkg/added.py": "def added_function():\n    return parse_headers(None, 0)\n",
}


def _artifacts(build: Path) -> dict[str, bytes]:
    """Every file of a build but the manifest and build.json (build time, cache counts)."""
    return {
        p.relative_to(build).as_posix(): p.read_bytes()
        for p in sorted(build.rglob("*"))
        if p.is_file() and p.name not in ("manifest.json", "build.json")
    }


def _build(repo: Path, rev: str, root: Path, workers: int = 1) -> Path:
    with GitRepo(repo) as git:
        manifest = build_index(
            git, rev, root, policy=PathPolicy(), options=BuildOptions(workers=workers)
        )
    return root / "builds" / manifest.build_id


def _stats(build: Path) -> dict[str, int]:
    stats: dict[str, int] = msgspec.json.decode((build / "build.json").read_bytes())["stats"]
    return stats


def test_neighbouring_revision_from_the_cache_equals_a_cold_build(tmp_path: Path) -> None:
    repo, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    warm_root = tmp_path / "warm"
    _build(repo, first, warm_root)
    warm = _build(repo, second, warm_root)
    cold = _build(repo, second, tmp_path / "cold")
    # mod3, mod7, added.py and the renamed file (a new path) are chunked again
    assert _stats(warm) == {"filesFromCache": 12, "filesChunked": 4}
    assert _artifacts(warm) == _artifacts(cold)
    assert len(_artifacts(cold)) >= 10


def test_deleted_and_renamed_files_leave_nothing_behind(tmp_path: Path) -> None:
    repo, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    root = tmp_path / "idx"
    _build(repo, first, root)
    _build(repo, second, root)
    index = open_index(root, second)
    files = {c.file for c in index.chunks}
    assert "pkg/gone.py" not in files and "pkg/old_name.py" not in files
    assert "pkg/new_name.py" in files
    assert index.symbols.definitions("removed_function") == []
    (row,) = index.symbols.definitions("moved_function")
    assert index.chunks[row].file == "pkg/new_name.py"
    assert index.chunks[row].blob == next(
        e.blob for e in index.inventory if e.path == "pkg/new_name.py"
    )
    lexical_files = index.file_lexical[1]
    assert "pkg/gone.py" not in lexical_files and "pkg/new_name.py" in lexical_files
    top = index.lexical.top(["brand", "new", "helper"], 1)
    assert index.chunks[top[0][0]].file == "pkg/mod3.py"


def test_one_worker_and_two_workers_write_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a real process pool, and a forked symbol-table writer, even for this small repository
    monkeypatch.setattr(build_module, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(build_module, "WRITER_MIN_ROWS", 0)
    repo, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    one = _build(repo, second, tmp_path / "one", workers=1)
    two = _build(repo, second, tmp_path / "two", workers=2)
    assert _stats(two) == {"filesFromCache": 0, "filesChunked": 16}
    assert _artifacts(one) == _artifacts(two)
    # and the neighbouring revision through the pool too
    _build(repo, first, tmp_path / "warm", workers=2)
    assert _artifacts(_build(repo, second, tmp_path / "warm", workers=2)) == _artifacts(one)


def _recorded(build: Path) -> dict[str, object]:
    files: dict[str, object] = msgspec.json.decode((build / "manifest.json").read_bytes())["files"]
    return files


@pytest.mark.parametrize("first", ["writer", "build"])
def test_digests_the_forked_writer_reports_are_those_of_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    # the writer digests its own files and chunks.msgpack (from the pieces the build
    # writes it from): the manifest records what reading every file gives. The
    # whole-file index is made by whichever process is free first: each in turn is
    # made the slower one
    monkeypatch.setattr(build_module, "WRITER_MIN_ROWS", 0)
    repo, (_, second) = make_repo(tmp_path / "r", [V1, V2])
    one = _build(repo, second, tmp_path / "one", workers=1)
    aside = build_module._aside_digests

    def spy(*args: object, **kwargs: object) -> bytes:
        raw = aside(*args, **kwargs)  # type: ignore[arg-type]
        (tmp_path / "report").write_bytes(raw)
        return raw

    monkeypatch.setattr(build_module, "_aside_digests", spy)
    parent = os.getpid()
    if first == "writer":
        chunk_index = build_module.IndexMerger.chunk_index

        def slow_chunk_index(self: build_module.IndexMerger) -> object:
            time.sleep(0.5)
            return chunk_index(self)

        monkeypatch.setattr(build_module.IndexMerger, "chunk_index", slow_chunk_index)
    else:
        encoded = build_module.SymbolMerger.encoded

        def slow_encoded(self: build_module.SymbolMerger) -> bytes:
            if os.getpid() != parent:
                time.sleep(0.5)
            return encoded(self)

        monkeypatch.setattr(build_module.SymbolMerger, "encoded", slow_encoded)
    two = _build(repo, second, tmp_path / "two", workers=2)
    reported = msgspec.msgpack.decode((tmp_path / "report").read_bytes())
    assert {"chunks.msgpack", "symbols.msgpack"} <= set(reported)
    assert ("files/rows.npy" in reported) == (first == "writer")
    assert _recorded(two) == _recorded(one)
    assert _artifacts(two) == _artifacts(one)
    assert {
        rel: {"size": p.stat().st_size, "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
        for rel, p in ((rel, two / rel) for rel in _recorded(one))
    } == _recorded(two)
    assert not list(two.rglob(build_module._CLAIM))
    open_index(tmp_path / "two", second)  # verified against the manifest


@pytest.mark.parametrize("failure", ["writer fails", "no fork"])
def test_a_failed_symbol_table_writer_leaves_the_table_to_the_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str
) -> None:
    repo, (_, second) = make_repo(tmp_path / "r", [V1, V2])
    one = _build(repo, second, tmp_path / "one", workers=1)
    monkeypatch.setattr(build_module, "WRITER_MIN_ROWS", 0)
    if failure == "no fork":

        def refuse() -> int:
            raise OSError("no process to spare")

        monkeypatch.setattr(build_module.os, "fork", refuse)
    else:
        parent = os.getpid()
        encoded = build_module.SymbolMerger.encoded

        def torn(self: build_module.SymbolMerger) -> bytes:
            if os.getpid() != parent:  # the forked writer: half a table, then a failure
                (tmp_path / "child-ran").touch()
                raise RuntimeError("writer failed")
            return encoded(self)

        monkeypatch.setattr(build_module.SymbolMerger, "encoded", torn)
    two = _build(repo, second, tmp_path / "two", workers=2)
    assert _artifacts(one) == _artifacts(two)
    assert (tmp_path / "child-ran").exists() == (failure == "writer fails")


def _random_docs(rng: random.Random, n: int) -> list[list[str]]:
    words = [f"w{i}" for i in range(60)]
    return [[rng.choice(words) for _ in range(rng.randint(0, 30))] for _ in range(n)]


def test_merged_term_counts_equal_the_streaming_builder() -> None:
    rng = random.Random(7)
    runs = [_random_docs(rng, rng.randint(0, 9)) for _ in range(25)]
    builder = BM25Builder()
    for run in runs:
        for doc in run:
            builder.add(doc)
    expected = builder.finish()
    from collections import Counter

    merged = merge_term_counts([TermCounts.of([Counter(d) for d in run]) for run in runs])
    assert merged.vocab == expected.vocab and list(merged.vocab) == list(expected.vocab)
    assert merged.n_docs == expected.n_docs
    for name in ("indptr", "rows", "weights"):
        a, b = getattr(merged, name), getattr(expected, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_merged_symbol_keys_equal_the_table_built_at_once() -> None:
    defined = [
        ["pkg.Handler", "pkg.Handler.handle"],
        [],
        ["calls res.send"],
        ["Other.handle_request"],
        ["pkg.Handler"],
    ]
    referenced = [["parse_headers", "ParseHeaders"], ["x"], [], ["parse_headers"], []]
    expected = SymbolTable.build(defined, referenced)
    runs = [(0, 2), (2, 2), (4, 1)]
    parts = []
    for start, count in runs:
        keys = [chunk_keys(d, r) for d, r in zip(defined, referenced, strict=True)]
        keys = keys[start : start + count]
        parts.append((start, [KeyPostings.of([k[i] for k in keys]) for i in range(len(TABLES))]))
    merged = SymbolTable.merge(parts)
    assert msgspec.msgpack.encode(merged) == msgspec.msgpack.encode(expected)
    assert merged.definitions("handle") == [0]


@pytest.mark.parametrize("n", [0, 1, 15, 16, 255, 65535, 65536])
def test_spliced_chunk_arrays_have_msgspecs_header(n: int) -> None:
    chunk = IndexedChunk(
        "id",
        "f.py",
        1,
        1,
        "python",
        "function",
        "definition",
        None,
        (),
        (),
        "x",
        "",
        "b",
        "source",
        "d",
    )
    assert msgspec.msgpack.encode([chunk] * n).startswith(array_header(n))
    assert len(msgspec.msgpack.encode([chunk] * n)) == len(array_header(n)) + n * len(
        msgspec.msgpack.encode(chunk)
    )
    assert msgspec.msgpack.encode({str(i): 0 for i in range(n)}).startswith(map_header(n))


def test_merged_whole_file_index_equals_the_streaming_builder() -> None:
    from collections import Counter

    from codegold.index.build import _whole_file
    from codegold.index.lexical import merge_indexes

    rng = random.Random(11)
    runs = [_random_docs(rng, rng.randint(0, 6)) for _ in range(30)]
    builder = BM25Builder()
    for run in runs:
        if run:
            builder.add([t for doc in run for t in reversed(doc)])
    expected = builder.finish()
    parts = [TermCounts.of([Counter(d) for d in run]) for run in runs]
    wholes = [
        _whole_file(part, Counter(t for doc in run for t in reversed(doc))) if run else None
        for part, run in zip(parts, runs, strict=True)
    ]
    _, merged = merge_indexes(parts, wholes)
    assert list(merged.vocab) == list(expected.vocab) and merged.n_docs == expected.n_docs
    for name in ("indptr", "rows", "weights"):
        a, b = getattr(merged, name), getattr(expected, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


def test_whole_file_from_chunk_counts_equals_counting_its_tokens() -> None:
    from collections import Counter

    from codegold.index.build import _whole_file, _whole_from_chunks

    rng = random.Random(5)
    for _ in range(200):
        path = [rng.choice(["pkg", "mod", "w3", "w7"]) for _ in range(rng.randint(0, 4))]
        bodies = _random_docs(rng, rng.randint(1, 5))
        docs = [Counter([*body, *path]) for body in bodies]
        part = TermCounts.of(docs)
        expected = _whole_file(part, Counter([t for body in bodies for t in body] + path))
        assert _whole_from_chunks(part, path) == expected


def test_a_new_chunker_config_reads_the_blobs_the_cached_facts_skipped(tmp_path: Path) -> None:
    from codegold.chunking import ChunkerConfig

    repo, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    other = BuildOptions(chunker=ChunkerConfig(max_chunk_lines=7))
    root = tmp_path / "warm"
    _build(repo, first, root)
    _build(repo, second, root)  # every blob's facts known: nothing but V2's new files read
    with GitRepo(repo) as git:
        warm = build_index(git, second, root, policy=PathPolicy(), options=other)
        cold = build_index(git, second, tmp_path / "cold", policy=PathPolicy(), options=other)
    warm_dir, cold_dir = (
        root / "builds" / warm.build_id,
        tmp_path / "cold" / "builds" / cold.build_id,
    )
    assert _stats(warm_dir) == {"filesFromCache": 0, "filesChunked": 16}
    assert _artifacts(warm_dir) == _artifacts(cold_dir)


def test_pool_batches_are_consecutive_and_shrink_towards_the_end() -> None:
    # files of assorted sizes (the build's own jobs): every one handed out once, in
    # file order; early batches large, the last ones small, none but the last under
    # the floor, so that the workers finish together
    sizes = [(i * 7919) % 50_000 + 1_000 for i in range(600)]
    jobs = [
        build_module._FileJob(
            path=f"f{i}.py", blob=f"{i:040x}", data=b"x" * n, role="source", language="python"
        )
        for i, n in enumerate(sizes)
    ]
    todo = [i for i in range(len(jobs)) if i % 5]  # some files come from the cache
    batches = build_module._batches(todo, jobs, workers=2, min_bytes=100_000)
    assert [i for batch in batches for i in batch] == todo
    weights = [sum(sizes[i] for i in batch) for batch in batches]
    assert all(w >= 100_000 for w in weights[:-1])
    total = sum(sizes[i] for i in todo)
    assert weights[0] >= total // 8 > 4 * max(weights[-3:])
    assert sorted(weights[:5], reverse=True) == weights[:5]


def test_a_cache_of_facts_without_the_build_marker_is_not_trusted(tmp_path: Path) -> None:
    """Caches written before the build-output marker hold three facts per blob (table
    ``facts``): read as they are, a compiled file would stay source. They are left
    alone, the blob is read again, and the warm build classifies it as a cold one."""
    import sqlite3

    built = "export function renderPage(){}\n//# sourceMappingURL=app.js.map\n"
    repo, (sha,) = make_repo(tmp_path / "r", [{**V1, "web/app.js": built}])
    root = tmp_path / "warm"
    root.mkdir()
    with GitRepo(repo) as git:
        blob = next(f.blob for f in git.list_files(sha) if f.path == "web/app.js")
    old = sqlite3.connect(root / "cache.sqlite")
    old.execute("CREATE TABLE facts (blob TEXT PRIMARY KEY, data BLOB)")
    old.execute(
        "INSERT INTO facts VALUES (?, ?)", (blob, msgspec.msgpack.encode((None, False, False)))
    )
    old.commit()
    old.close()
    warm = _build(repo, sha, root)
    again = _build(repo, sha, root)  # now from the facts this build wrote
    cold = _build(repo, sha, tmp_path / "cold")
    for build in (warm, again, cold):
        inventory = msgspec.json.decode((build / "inventory.json").read_bytes())
        entry = next(e for e in inventory if e["path"] == "web/app.js")
        assert (entry["status"], entry["role"], entry["rule"]) == (
            "excluded",
            "build",
            "content:build:sourceMappingURL",
        )
    assert _artifacts(warm) == _artifacts(cold) == _artifacts(again)


def _compiles(language: str) -> bool:
    """In a pool worker: whether asking for ``language``'s query compiles it here."""
    from codegold.chunking.languages import compiled_query

    misses = compiled_query.cache_info().misses
    compiled_query(language)
    return compiled_query.cache_info().misses > misses


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="workers are not forked"
)
def test_forked_workers_inherit_the_queries_of_the_languages_to_chunk() -> None:
    # the build compiles the tags query of each language it is about to chunk before
    # the pool forks, so no worker compiles one again; a language with nothing to
    # chunk is left to whoever needs it
    from codegold.chunking.languages import compiled_query

    compiled_query.cache_clear()
    jobs = [
        build_module._FileJob(path=p, blob="0" * 40, data=b"", role="source", language=lang)
        for p, lang in [("a.py", "python"), ("b.ts", "typescript"), ("c.md", None)]
    ]
    build_module._compile_queries(jobs)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
        assert list(pool.map(_compiles, ["python", "typescript", "go"])) == [False, False, True]
