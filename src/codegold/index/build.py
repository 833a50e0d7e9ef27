"""Build an index of a repository at one revision, atomically and incrementally."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import multiprocessing
import os
import shutil
import signal
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from itertools import chain
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from codegold import __version__
from codegold._io import write_json_atomic
from codegold.chunking import ChunkerConfig, chunk_file, chunker_version
from codegold.chunking.languages import compiled_query, language_for_path
from codegold.corpus.git import GitRepo
from codegold.corpus.inventory import build_inventory
from codegold.corpus.model import FileRole, FileStatus, InventoryEntry
from codegold.corpus.policy import PathPolicy
from codegold.index._msgpack import array_header
from codegold.index.cache import BuildCache
from codegold.index.lexical import (
    IndexMerger,
    InternedCounts,
    TermCounts,
    WholeFile,
    int32_bytes,
)
from codegold.index.manifest import IndexManifest
from codegold.index.store import (
    FILE_LEXICAL,
    FORMAT_VERSION,
    MANIFEST,
    DamagedIndex,
    FileDigest,
    IndexedChunk,
    IndexRoot,
    StoredInventoryEntry,
    chunk_body_tokens,
    digest_files,
    digest_pieces,
    read_manifest,
    verify_build,
)
from codegold.index.strings import StringTable
from codegold.index.symbols import TABLES, InternedKeys, KeyPostings, SymbolMerger, chunk_keys
from codegold.index.tokenize import path_tokens, run_tokens, word_runs
from codegold.index.vectors import save_vectors

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class BuildOptions:
    chunker: ChunkerConfig = field(default_factory=ChunkerConfig)
    workers: int = 0  # 0: one per core, at most 4
    embedder: Any = None  # an EmbeddingProvider, or None for lexical + symbols only
    repository_name: str | None = None


class _FileJob(msgspec.Struct, array_like=True):
    path: str
    blob: str
    data: bytes | None  # None: not read (its record is cached), until it must be chunked
    role: str
    language: str | None


class _FileRecord(msgspec.Struct, array_like=True):
    """One file's share of a build, cached by blob: its chunks already encoded as
    ``chunks.msgpack`` items, and its contributions to the chunk BM25, the whole-file
    BM25 and the symbol table, so that a build only merges what its files hold."""

    chunks: bytes  # msgpack items of list[IndexedChunk], without the array header
    n_chunks: int
    parse_ok: bool
    lexical: TermCounts  # one document per chunk
    whole: WholeFile | None  # the file as one document; None without chunks
    symbols: list[KeyPostings]  # per table of SymbolTable (TABLES order)


class _StoredRecord(msgspec.Struct, array_like=True):
    """A :class:`_FileRecord` as the cache keeps it: its terms and symbol keys as ids
    of the cache's string table, so that merging it reads no string."""

    chunks: bytes
    n_chunks: int
    parse_ok: bool
    lexical: InternedCounts
    whole: WholeFile | None
    symbols: list[InternedKeys]


def _intern(records: Sequence[_FileRecord], strings: StringTable) -> list[_StoredRecord]:
    """``records`` with their strings numbered in ``strings`` (one pass for the lot)."""
    per = 1 + len(TABLES)
    runs = strings.ids_of(
        [run for r in records for run in (r.lexical.terms, *(k.keys for k in r.symbols))]
    )
    return [
        _StoredRecord(
            chunks=r.chunks,
            n_chunks=r.n_chunks,
            parse_ok=r.parse_ok,
            lexical=InternedCounts.of(r.lexical, runs[i * per]),
            whole=r.whole,
            symbols=[
                InternedKeys.of(k, ids)
                for k, ids in zip(r.symbols, runs[i * per + 1 : (i + 1) * per], strict=True)
            ],
        )
        for i, r in enumerate(records)
    ]


_RECORD = msgspec.msgpack.Decoder(_FileRecord)
_STORED = msgspec.msgpack.Decoder(_StoredRecord)


def _store_fresh(
    cache: BuildCache, keys: Sequence[str], raws: Sequence[bytes]
) -> list[_StoredRecord]:
    """Freshly chunked records (encoded :class:`_FileRecord`) interned and cached."""

    def make(strings: StringTable) -> tuple[list[tuple[str, bytes]], list[_StoredRecord]]:
        stored = _intern([_RECORD.decode(raw) for raw in raws], strings)
        encode = msgspec.msgpack.Encoder().encode
        return list(zip(keys, map(encode, stored), strict=True)), stored

    return cache.put_interned("files", make)


#: Less to chunk than this is chunked in the main process (a pool costs more).
POOL_MIN_BYTES = 2_000_000

#: Fewer chunks than this and the symbol table is written in the main process (a
#: forked writer costs more than it saves).
WRITER_MIN_ROWS = 5_000

#: Changes whenever :class:`_FileRecord` or what it is computed from changes.
RECORD_VERSION = "file-record-3"


def _cache_key(job: _FileJob, chunker_version: str) -> str:
    raw = "\0".join(
        [job.blob, job.path, job.role, job.language or "", chunker_version, RECORD_VERSION]
    )
    return hashlib.sha1(raw.encode()).hexdigest()


def _chunk_id(path: str, blob: str, start: int, end: int, version: str) -> str:
    raw = f"{path}\0{blob}\0{start}\0{end}\0{version}"
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


def _digest(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:16]


def _names(chunk: IndexedChunk) -> tuple[str, ...]:
    return chunk.symbols or ((chunk.symbol,) if chunk.symbol else ())


def chunk_tokens(chunk: IndexedChunk) -> list[str]:
    """What BM25 sees of a chunk: its text, its header, its names twice, its path."""
    return [*chunk_body_tokens(chunk), *path_tokens(chunk.file)]


class _WordTokens(dict[str, tuple[str, ...]]):
    """Each run's tokens (:func:`word_runs`), computed once per process: a plain dict
    lookup from C (``map(cache.__getitem__, words)``), cheaper than an ``lru_cache`` call."""

    def __missing__(self, word: str) -> tuple[str, ...]:
        if len(self) >= 2_000_000:
            self.clear()
        tokens = self[word] = run_tokens(word)
        return tokens


_WORDS = _WordTokens()


def _document_counts(chunk: IndexedChunk, path: Sequence[str]) -> Counter[str]:
    """The counts of a chunk document -- :func:`chunk_body_tokens` (the words of the
    text, the header and the names twice, each split into tokens), then ``path`` -- in
    first-occurrence order, counted in one pass from C. Each text is cut into runs
    (:func:`word_runs`) once; the tokens of a run come from the per-process cache."""
    words = word_runs(chunk.text)
    words += word_runs(chunk.header)
    names = _names(chunk)
    if names:
        named = word_runs(" ".join(names))
        words += named
        words += named
    return Counter(chain(chain.from_iterable(map(_WORDS.__getitem__, words)), path))


def _work(payload: bytes) -> bytes:
    """Process-pool worker: chunk, tokenize and count one batch of files."""
    with _no_gc():
        jobs, config_raw, version = msgspec.msgpack.decode(payload)
        config = ChunkerConfig(**config_raw)
        outs = [_chunk_job(msgspec.convert(j, _FileJob), config, version) for j in jobs]
        return msgspec.msgpack.encode(outs)


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic collector off: a build allocates millions of objects and frees them
    by reference counting; rescanning them meanwhile costs a fifth of the time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _chunk_job(job: _FileJob, config: ChunkerConfig, version: str) -> bytes:
    """One file's :class:`_FileRecord`, encoded: every chunk is tokenized once, and
    those tokens serve the chunk index, the whole-file index and nothing else."""
    text = (job.data or b"").decode("utf-8", errors="replace")
    result = chunk_file(job.path, text, file_role=FileRole(job.role), config=config)
    chunks = [
        IndexedChunk(
            chunk_id=_chunk_id(job.path, job.blob, c.start_line, c.end_line, version),
            file=c.file,
            start_line=c.start_line,
            end_line=c.end_line,
            language=c.language,
            kind=c.kind,
            role=str(c.role),
            symbol=c.symbol,
            symbols=tuple(c.symbols),
            references=tuple(c.references),
            text=c.text,
            header=c.header,
            blob=job.blob,
            file_role=job.role,
            digest=_digest(c.text),
        )
        for c in result.chunks
    ]
    path = path_tokens(job.path)
    docs = [_document_counts(chunk, path) for chunk in chunks]
    encoded = msgspec.msgpack.encode(chunks)
    lexical = TermCounts.of(docs)
    keys = [chunk_keys(_names(c), c.references) for c in chunks]
    record = _FileRecord(
        chunks=encoded[len(array_header(len(chunks))) :],
        n_chunks=len(chunks),
        parse_ok=result.parse_ok,
        lexical=lexical,
        whole=_whole_from_chunks(lexical, path) if chunks else None,
        symbols=[KeyPostings.of([k[i] for k in keys]) for i in range(len(TABLES))],
    )
    return msgspec.msgpack.encode(record)


def _whole_from_chunks(lexical: TermCounts, path: list[str]) -> WholeFile:
    """The file as one document -- its chunks' bodies, then its path once -- from the
    chunk documents (each its body, then the path): equal to :func:`_whole_file` of
    those tokens' counts, without counting them again."""
    ids = np.frombuffer(lexical.term_ids, dtype=np.int32)
    counts = np.frombuffer(lexical.counts, dtype=np.int32).astype(np.int64)
    n_terms = len(lexical.terms)
    local = dict(zip(lexical.terms, range(n_terms), strict=True))
    in_path = np.zeros(n_terms, dtype=np.int64)
    for token, count in Counter(path).items():
        in_path[local[token]] = count
    body = counts - in_path[ids]
    total = np.bincount(ids, weights=body, minlength=n_terms).astype(np.int64)
    # first occurrence over the bodies, chunk after chunk (a chunk document lists its
    # body's terms first, in order), then the terms only the path has, in path order
    where = np.flatnonzero(body > 0)
    seen, first = np.unique(ids[where], return_index=True)
    path_only = [local[t] for t in dict.fromkeys(path) if total[local[t]] == 0]
    order = np.concatenate(
        [seen[np.argsort(first, kind="stable")], np.asarray(path_only, dtype=np.int64)]
    ).astype(np.int64)
    whole = (total + in_path)[order]
    return WholeFile(
        term_ids=order.astype(np.int32).tobytes(),
        counts=whole.astype(np.int32).tobytes(),
        length=int(whole.sum()),
    )


def _whole_file(lexical: TermCounts, whole: Counter[str]) -> WholeFile:
    """The whole-file document from its token counts (``whole``, first-occurrence order)."""
    local = {t: i for i, t in enumerate(lexical.terms)}
    return WholeFile(
        term_ids=int32_bytes(map(local.__getitem__, whole)),
        counts=int32_bytes(whole.values()),
        length=sum(whole.values()),
    )


def build_id_for(
    revision: str, policy: PathPolicy, options: BuildOptions
) -> tuple[str, dict[str, Any]]:
    embedding = embedding_identity(options.embedder) if options.embedder is not None else None
    identity = {
        "format": FORMAT_VERSION,
        "revision": revision,
        "chunkerVersion": chunker_version(options.chunker),
        "chunkerConfig": options.chunker.as_dict(),
        "pathPolicy": policy.digest(),
        "embedding": embedding,
    }
    digest = hashlib.sha256(msgspec.json.encode(identity, order="sorted")).hexdigest()
    return digest[:20], identity


def build_index(
    repo: GitRepo,
    revision: str,
    root: Path,
    *,
    policy: PathPolicy,
    options: BuildOptions = BuildOptions(),
    progress: Progress | None = None,
    force: bool = False,
) -> IndexManifest:
    """Index ``revision`` under ``root``; reuse a complete identical build unless ``force``."""
    sha = repo.resolve(revision)
    where = IndexRoot(root)
    build_id, identity = build_id_for(sha, policy, options)
    final = where.build_dir(build_id)
    existing = _reusable(final) if not force else None
    if existing is not None:
        where.switch(sha, build_id)
        return existing
    where.builds.mkdir(parents=True, exist_ok=True)
    where.clean_stale_tmp()
    tmp = where.builds / f".tmp-{build_id}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        with _no_gc():
            manifest = _build_into(
                repo, sha, tmp, where, build_id, identity, policy, options, progress
            )
        if final.exists():
            shutil.rmtree(final)
        os.replace(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    where.switch(sha, build_id)
    return manifest


def _reusable(final: Path) -> IndexManifest | None:
    """The complete, undamaged build already at ``final``; None to (re)build it."""
    try:
        existing = read_manifest(final)
        if existing is None or not existing.complete:
            return None
        verify_build(final)
    except DamagedIndex:
        return None  # rebuilt from scratch, then switched in over the damaged one
    return existing


def _build_into(
    repo: GitRepo,
    sha: str,
    folder: Path,
    where: IndexRoot,
    build_id: str,
    identity: dict[str, Any],
    policy: PathPolicy,
    options: BuildOptions,
    progress: Progress | None,
) -> IndexManifest:
    cache = BuildCache(where.cache)
    try:
        facts = cache.blob_facts()
        known = set(facts)
        inventory = build_inventory(repo, sha, policy, language_of=language_for_path, facts=facts)
        cache.put_blob_facts({b: f for b, f in facts.items() if b not in known})
    except BaseException:
        cache.close()
        raise
    jobs = [
        _FileJob(
            path=e.path,
            blob=e.blob,
            data=inventory.contents.get(e.path),
            role=str(e.role),
            language=e.language,
        )
        for e in inventory.entries
        if e.status is FileStatus.INDEXED
    ]
    stats: dict[str, int] = {}
    workers = options.workers or min(os.cpu_count() or 1, 4)
    try:
        assembly = _chunk_all(jobs, cache, options, progress, stats, repo)
        if progress:
            progress("lexical index", 0, 1)
        per_file = assembly.per_file
        n_rows = assembly.rows
        # the chunk index, the whole-file index and the symbol table are made from
        # the same merged state and share nothing: with more than one worker, a forked
        # process writes the symbol table while this one makes the chunk index, and the
        # whole-file index is made by whichever of the two is free first
        (folder / FILE_LEXICAL).mkdir()
        # the writer also digests what it wrote, and chunks.msgpack from the pieces
        # this process writes it from: the manifest reads neither back
        aside = _Aside(folder, assembly.lexical, assembly.symbols)
        digests = partial(_aside_digests, folder, n_rows, assembly.chunks, aside.wrote)
        helper = (
            _Writer.start(aside.write, digests)
            if workers > 1 and n_rows >= WRITER_MIN_ROWS
            else None
        )
        written: dict[str, FileDigest] = {}
        try:
            assembly.lexical.chunk_index().save(folder / "lexical")
            write_json_atomic(
                folder / FILE_LEXICAL / "files.json", assembly.file_order, pretty=False
            )
            with (folder / "chunks.msgpack").open("wb") as handle:
                handle.write(array_header(n_rows))
                handle.writelines(assembly.chunks)
            if helper is not None and _claim(folder):  # the writer has not started it
                aside.file_index()
            if helper is None or not helper.wait():
                aside.write_all()
            else:
                written = _DIGESTS.decode(helper.report) if helper.report else {}
        finally:
            if helper is not None:
                helper.stop()
            with suppress(FileNotFoundError):
                (folder / _CLAIM).rmdir()
        del assembly, digests, aside
        signals = ["lexical", "symbols"]
        embedding = None
        if options.embedder is not None:
            rows = msgspec.msgpack.decode(
                (folder / "chunks.msgpack").read_bytes(), type=list[IndexedChunk]
            )
            vectors = _embed_all(rows, cache, options.embedder, progress)
            save_vectors(folder / "vectors.npy", vectors)
            signals.append("dense")
            embedding = embedding_identity(options.embedder)
    finally:
        cache.close()
    stored = [_stored(e, per_file.get(e.path)) for e in inventory.entries]
    write_json_atomic(folder / "inventory.json", stored, pretty=False)
    write_json_atomic(
        folder / "build.json", {**identity, "codegoldVersion": __version__, "stats": stats}
    )
    manifest = IndexManifest(
        build_id=build_id,
        repository_revision=sha,
        chunker_version=chunker_version(options.chunker),
        path_policy=policy.digest(),
        built_at=datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        complete=True,
        format_version=FORMAT_VERSION,
        signals=tuple(signals),
        embedding=embedding,
        repository=options.repository_name,
        files_indexed=len(jobs),
        chunks=n_rows,
        files_unreadable=_count(inventory.entries, FileStatus.UNREADABLE),
        lfs_pointers=_count(inventory.entries, FileStatus.LFS_POINTER),
    )
    # The manifest is written last: its presence is what makes a build complete. It
    # records every other file's size and digest, checked whenever the build is opened.
    files = digest_files(folder, written)
    record = {**msgspec.to_builtins(manifest), "files": msgspec.to_builtins(files)}
    write_json_atomic(folder / MANIFEST, record)
    return manifest


#: The files of the whole-file index (a file the writer does not write is left out of
#: its digests: the manifest reads it).
_FILE_INDEX_FILES = tuple(
    f"{FILE_LEXICAL}/{name}" for name in ("indptr.npy", "rows.npy", "weights.npy", "vocab.json")
)
_DIGESTS = msgspec.msgpack.Decoder(dict[str, FileDigest])


#: Made by the first of the build and its forked writer to start the whole-file index.
_CLAIM = ".file-index-claim"


def _claim(folder: Path) -> bool:
    """Whether this process is the first to claim the whole-file index (a directory
    made atomically: exactly one of the two processes makes it)."""
    try:
        (folder / _CLAIM).mkdir()
    except FileExistsError:
        return False
    return True


class _Aside:
    """What the forked writer does: the symbol table, then the whole-file index unless
    the build claimed it first; :attr:`wrote` lists the files it wrote."""

    def __init__(self, folder: Path, lexical: IndexMerger, symbols: SymbolMerger) -> None:
        self.folder = folder
        self.lexical = lexical
        self.symbols = symbols
        self.wrote: list[str] = []

    def write(self) -> None:
        self.symbol_table()
        self.wrote.append("symbols.msgpack")
        if _claim(self.folder):
            self.file_index()
            self.wrote.extend(_FILE_INDEX_FILES)

    def write_all(self) -> None:
        """Both, in this process (what no forked writer wrote)."""
        self.file_index()
        self.symbol_table()

    def symbol_table(self) -> None:
        (self.folder / "symbols.msgpack").write_bytes(self.symbols.encoded())

    def file_index(self) -> None:
        self.lexical.file_index().save(self.folder / FILE_LEXICAL)


def _aside_digests(
    folder: Path, n_rows: int, chunks: Sequence[bytes], wrote: Sequence[str]
) -> bytes:
    """What the writer reports once it has written: the digests of its files (those
    of ``wrote``), and of ``chunks.msgpack`` from the pieces the main process writes
    it from."""
    out = {"chunks.msgpack": digest_pieces(chain([array_header(n_rows)], chunks))}
    for rel in wrote:
        path = folder / rel
        if path.is_file():
            out[rel] = digest_pieces([path.read_bytes()])
    return msgspec.msgpack.encode(out)


class _Writer:
    """A forked process running ``write`` (files it leaves whole only on success), then
    sending what ``report`` returns: :meth:`wait` says whether it did (the report in
    :attr:`report`), and the caller runs ``write`` itself when it did not (or when no
    process could be forked)."""

    def __init__(self, pid: int, reader: int) -> None:
        self.pid: int | None = pid
        self._reader: int | None = reader
        self.report = b""

    @classmethod
    def start(cls, write: Callable[[], None], report: Callable[[], bytes]) -> _Writer | None:
        if not hasattr(os, "fork"):
            return None
        reader, writer = os.pipe()
        try:
            pid = os.fork()
        except OSError:  # no process to spare: the caller writes it
            os.close(reader)
            os.close(writer)
            return None
        if pid == 0:  # the writer: never returns into the build
            code = 1
            try:
                os.close(reader)
                write()
                with os.fdopen(writer, "wb") as pipe:
                    pipe.write(report())
                code = 0
            finally:
                os._exit(code)
        os.close(writer)
        return cls(pid, reader)

    def wait(self) -> bool:
        """Whether the writer exited having written the whole file (and its report)."""
        assert self.pid is not None and self._reader is not None
        with os.fdopen(self._reader, "rb") as pipe:
            self._reader = None
            report = pipe.read()  # to its end: the writer's exit (or its death)
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if os.waitstatus_to_exitcode(status) != 0:
            return False
        self.report = report
        return True

    def stop(self) -> None:
        """Kill the writer if it still runs (the build failed first) and reap it."""
        if self._reader is not None:
            os.close(self._reader)
            self._reader = None
        if self.pid is not None:
            with suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = None


def _count(entries: Sequence[InventoryEntry], status: FileStatus) -> int | None:
    return sum(1 for e in entries if e.status is status) or None


def _stored(entry: InventoryEntry, chunked: tuple[int, bool] | None) -> StoredInventoryEntry:
    status = entry.status
    count = 0
    if chunked is not None:
        count, parse_ok = chunked
        if not parse_ok:
            status = FileStatus.UNPARSABLE
    return StoredInventoryEntry(
        path=entry.path,
        blob=entry.blob,
        size=entry.size,
        status=status,
        role=entry.role,
        language=entry.language,
        rule=entry.rule,
        chunks=count,
    )


class _Assembly:
    """The build's merged state, fed every file's record in file order."""

    def __init__(self, strings: StringTable) -> None:
        self.lexical = IndexMerger(strings)
        self.symbols = SymbolMerger(strings)
        self.chunks: list[bytes] = []
        self.per_file: dict[str, tuple[int, bool]] = {}
        self.file_order: list[str] = []  # files with chunks: the whole-file index's rows
        self.rows = 0

    def add(self, files: Sequence[tuple[_FileJob, _StoredRecord]]) -> None:
        """The next files, in file order (one merge pass for the lot)."""
        bases: list[int] = []
        for job, record in files:
            self.per_file[job.path] = (record.n_chunks, record.parse_ok)
            self.chunks.append(record.chunks)
            if record.n_chunks:
                self.file_order.append(job.path)
            bases.append(self.rows)
            self.rows += record.n_chunks
        self.lexical.add_many([(record.lexical, record.whole) for _, record in files])
        self.symbols.add_many(
            [(base, record.symbols) for base, (_, record) in zip(bases, files, strict=True)]
        )


def _chunk_all(
    jobs: Sequence[_FileJob],
    cache: BuildCache,
    options: BuildOptions,
    progress: Progress | None,
    stats: dict[str, int],
    repo: GitRepo,
) -> _Assembly:
    """Every job's record, from the cache or chunked, into an assembly in file order.
    With a pool, the main process reads the cached records once the workers have
    started, then decodes, stores and merges what it has (cached records, finished
    batches) while they go on."""
    version = chunker_version(options.chunker)
    keys = [_cache_key(j, version) for j in jobs]
    present = cache.has_many("files", keys)
    cached: dict[str, bytes] = {}
    assembly: _Assembly | None = None

    def read_cached() -> _Assembly:
        cached.update(cache.get_many("files", [k for k in keys if k in present]))
        # read after the records: the table then holds every string they name
        return _Assembly(cache.sync_strings())

    todo = [i for i, key in enumerate(keys) if key not in present]
    unread = {jobs[i].blob for i in todo if jobs[i].data is None}
    if unread:  # classified from cached facts, but their records are not cached
        blobs = dict(repo.read_blobs(sorted(unread)))
        for i in todo:
            if jobs[i].data is None:
                jobs[i].data = blobs[jobs[i].blob]
    stats["filesFromCache"] = len(jobs) - len(todo)
    stats["filesChunked"] = len(todo)
    workers = options.workers or min(os.cpu_count() or 1, 4)
    total_bytes = sum(len(jobs[i].data or b"") for i in todo)
    if progress:
        progress("chunking", 0, len(todo))
    if workers <= 1 or total_bytes < POOL_MIN_BYTES:
        assembly = read_cached()
        raws: list[bytes] = []
        for n, i in enumerate(todo, 1):
            raws.append(_chunk_job(jobs[i], options.chunker, version))
            if progress and n % 200 == 0:
                progress("chunking", n, len(todo))
        fresh = dict(zip(todo, _store_fresh(cache, [keys[i] for i in todo], raws), strict=True))
        del raws
        assembly.add(
            [
                (job, fresh.pop(i) if i in fresh else _STORED.decode(cached.pop(keys[i])))
                for i, job in enumerate(jobs)
            ]
        )
    else:
        batches = _batches(todo, jobs, workers=workers, min_bytes=100_000)
        config_raw = dataclasses.asdict(options.chunker)
        payloads = [
            msgspec.msgpack.encode([[jobs[i] for i in batch], config_raw, version])
            for batch in batches
        ]
        done = 0
        waiting: dict[int, _StoredRecord] = {}
        following = 0  # the next file assembly takes

        def follow() -> None:
            nonlocal following
            assert assembly is not None
            files: list[tuple[_FileJob, _StoredRecord]] = []
            while following < len(jobs):
                key = keys[following]
                if key in cached:
                    record = _STORED.decode(cached.pop(key))
                elif following in waiting:
                    record = waiting.pop(following)
                else:
                    break
                files.append((jobs[following], record))
                following += 1
            assembly.add(files)

        _compile_queries(jobs[i] for i in todo)
        pool = ProcessPoolExecutor(max_workers=workers)
        try:
            results = pool.map(_work, payloads)
            del payloads
            assembly = read_cached()  # meanwhile
            follow()  # meanwhile: the cached files before the first one being chunked
            for batch, raw in zip(batches, results, strict=True):
                outs = msgspec.msgpack.decode(raw, type=list[bytes])
                stored = _store_fresh(cache, [keys[i] for i in batch], outs)
                waiting.update(zip(batch, stored, strict=True))
                follow()
                done += len(batch)
                if progress:
                    progress("chunking", done, len(todo))
        finally:
            # Interrupted (SIGTERM raises in the main thread) or failed: the batches not
            # started are cancelled, so the process ends once the running ones return
            # (the `with` form waited for every queued batch to be chunked first).
            pool.shutdown(wait=True, cancel_futures=True)
        follow()
    if progress:
        progress("chunking", len(todo), len(todo))
    assert assembly is not None
    return assembly


def _compile_queries(jobs: Iterable[_FileJob]) -> None:
    """Compile the tags query of each language of ``jobs`` here, before the pool forks
    its workers, so that they inherit it instead of each compiling its own: a query
    costs 0.05 s of CPU for Python, 0.2 s for JavaScript, 0.5 s for TypeScript, in
    every process that compiles it. Workers that are not forked compile their own, so
    nothing is compiled here for them."""
    if multiprocessing.get_start_method() != "fork":
        return
    for language in sorted({job.language for job in jobs if job.language is not None}):
        compiled_query(language)


#: A batch holds about the bytes still to hand out over this many per worker.
BATCH_SHARE = 4


def _batches(
    todo: list[int], jobs: Sequence[_FileJob], *, workers: int, min_bytes: int
) -> list[list[int]]:
    """Consecutive runs of ``todo`` (file order, as the assembly takes them), each about
    the bytes not yet handed out over ``workers * BATCH_SHARE`` and at least
    ``min_bytes``: large first, small at the end, so that the workers finish together
    (equal batches left one worker alone with the last, half a batch on average)."""
    sizes = [len(jobs[i].data or b"") for i in todo]
    left = sum(sizes)
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    target = max(min_bytes, left // (workers * BATCH_SHARE))
    for i, n in zip(todo, sizes, strict=True):
        current.append(i)
        size += n
        if size >= target:
            batches.append(current)
            left -= size
            current, size = [], 0
            target = max(min_bytes, left // (workers * BATCH_SHARE))
    if current:
        batches.append(current)
    return batches


#: Which chunks get a vector: source code only (the dense signal reranks
#: implementation candidates; tests, docs and configuration are left to the lexical
#: signals, and embedding them would cost about three times as much).
EMBED_SCOPE = "source"


def embedding_identity(embedder: Any) -> dict[str, Any]:
    return {**embedder.identity(), "scope": EMBED_SCOPE}


def embeds(chunk: IndexedChunk) -> bool:
    return chunk.file_role == "source" and chunk.role in ("definition", "declaration", "call_site")


def embedding_text(chunk: IndexedChunk) -> str:
    head = f"{chunk.file}\n{chunk.header}\n" if chunk.header else f"{chunk.file}\n"
    return head + chunk.text


def _embed_all(
    rows: Sequence[IndexedChunk], cache: BuildCache, embedder: Any, progress: Progress | None
) -> np.ndarray[Any, np.dtype[np.float32]]:
    ident = hashlib.sha1(msgspec.json.encode(embedder.identity(), order="sorted")).hexdigest()[:12]
    keys = [f"{ident}:{c.digest}:{hashlib.sha1(c.file.encode()).hexdigest()[:8]}" for c in rows]
    cached = cache.get_many("vectors", sorted(set(keys)))
    dim = int(embedder.dimension)
    out = np.zeros((len(rows), dim), dtype=np.float32)
    todo = [i for i, k in enumerate(keys) if k not in cached and embeds(rows[i])]
    for i, k in enumerate(keys):
        if k in cached and embeds(rows[i]):
            out[i] = np.frombuffer(cached[k], dtype=np.float32)
    batch = 64
    for s in range(0, len(todo), batch):
        idx = todo[s : s + batch]
        vecs = embedder.embed_documents([embedding_text(rows[i]) for i in idx])
        out[idx] = vecs
        if progress:
            progress("embedding", min(s + batch, len(todo)), len(todo))
    cache.put_many("vectors", ((keys[i], out[i].tobytes()) for i in todo))
    return out


def describe_manifest(manifest: IndexManifest) -> str:
    text = (
        f"build {manifest.build_id} of {manifest.repository_revision[:12]}: "
        f"{manifest.files_indexed} files, {manifest.chunks} chunks, "
        f"signals {'+'.join(manifest.signals or ())}"
    )
    if manifest.files_unreadable:
        text += (
            f"; {manifest.files_unreadable} files unreadable "
            "(missing from the object database; see inventory.json)"
        )
    if manifest.lfs_pointers:
        text += f"; {manifest.lfs_pointers} Git LFS pointers not indexed"
    return text


__all__ = ["BuildOptions", "build_index", "chunk_tokens", "describe_manifest"]
