"""Build an index of a repository at one revision, atomically and incrementally."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from codegold import __version__
from codegold._io import write_json_atomic
from codegold.chunking import ChunkerConfig, chunk_file, chunker_version
from codegold.chunking.languages import language_for_path
from codegold.corpus.git import GitRepo
from codegold.corpus.inventory import build_inventory
from codegold.corpus.model import FileRole, FileStatus, InventoryEntry
from codegold.corpus.policy import PathPolicy
from codegold.index.cache import BuildCache
from codegold.index.lexical import BM25Builder
from codegold.index.manifest import IndexManifest
from codegold.index.store import (
    FILE_LEXICAL,
    FORMAT_VERSION,
    MANIFEST,
    DamagedIndex,
    IndexedChunk,
    IndexRoot,
    StoredInventoryEntry,
    digest_files,
    read_manifest,
    verify_build,
)
from codegold.index.symbols import SymbolTable
from codegold.index.tokenize import path_tokens, tokenize
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
    data: bytes
    role: str
    language: str | None


class _FileOut(msgspec.Struct, array_like=True):
    chunks: list[IndexedChunk]
    tokens: list[str]  # each chunk's tokens joined by spaces: one string to (de)serialise
    parse_ok: bool


def _cache_key(job: _FileJob, chunker_version: str) -> str:
    raw = "\0".join([job.blob, job.path, job.role, job.language or "", chunker_version])
    return hashlib.sha1(raw.encode()).hexdigest()


def _chunk_id(path: str, blob: str, start: int, end: int, version: str) -> str:
    raw = f"{path}\0{blob}\0{start}\0{end}\0{version}"
    return hashlib.sha1(raw.encode()).hexdigest()[:16]


def _digest(text: str) -> str:
    return hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:16]


def chunk_tokens(chunk: IndexedChunk) -> list[str]:
    """What BM25 sees of a chunk: its text, its header, its names twice, its path."""
    names: list[str] = []
    for name in chunk.symbols or ((chunk.symbol,) if chunk.symbol else ()):
        names.extend(tokenize(name.replace(".", " ")))
    return [
        *tokenize(chunk.text),
        *tokenize(chunk.header),
        *names,
        *names,
        *path_tokens(chunk.file),
    ]


def _work(payload: bytes) -> bytes:
    """Process-pool worker: chunk and tokenize one batch of files."""
    jobs, config_raw, version = msgspec.msgpack.decode(payload)
    config = ChunkerConfig(**config_raw)
    outs = [_chunk_job(msgspec.convert(j, _FileJob), config, version) for j in jobs]
    return msgspec.msgpack.encode(outs)


def _chunk_job(job: _FileJob, config: ChunkerConfig, version: str) -> _FileOut:
    text = job.data.decode("utf-8", errors="replace")
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
    return _FileOut(
        chunks=chunks,
        tokens=[" ".join(chunk_tokens(c)) for c in chunks],
        parse_ok=result.parse_ok,
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
        manifest = _build_into(repo, sha, tmp, where, build_id, identity, policy, options, progress)
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
    inventory = build_inventory(repo, sha, policy, language_of=language_for_path)
    jobs = [
        _FileJob(
            path=e.path,
            blob=e.blob,
            data=inventory.contents[e.path],
            role=str(e.role),
            language=e.language,
        )
        for e in inventory.entries
        if e.status is FileStatus.INDEXED
    ]
    cache = BuildCache(where.cache)
    stats: dict[str, int] = {}
    try:
        outs = _chunk_all(jobs, cache, options, progress, stats)
        rows: list[IndexedChunk] = []
        lexical_builder = BM25Builder()
        file_builder = BM25Builder()
        file_order: list[str] = []
        per_file: dict[str, tuple[int, bool]] = {}
        for job, out in zip(jobs, outs, strict=True):
            rows.extend(out.chunks)
            lexical_builder.add_joined(out.tokens)
            if out.chunks:
                # the whole file as one document: its chunks' tokens without the path
                # each chunk repeats, then the path once
                tail = len(path_tokens(job.path))
                body: list[str] = []
                for joined in out.tokens:
                    words = joined.split()
                    body.extend(words[: len(words) - tail] if tail else words)
                file_builder.add([*body, *path_tokens(job.path)])
                file_order.append(job.path)
            out.tokens.clear()
            per_file[job.path] = (len(out.chunks), out.parse_ok)
        if progress:
            progress("lexical index", 0, 1)
        lexical = lexical_builder.finish()
        del lexical_builder
        symbols = SymbolTable.build(
            [c.symbols or ((c.symbol,) if c.symbol else ()) for c in rows],
            [c.references for c in rows],
        )
        lexical.save(folder / "lexical")
        file_builder.finish().save(folder / FILE_LEXICAL)
        write_json_atomic(folder / FILE_LEXICAL / "files.json", file_order, pretty=False)
        del file_builder
        symbols.save(folder / "symbols.msgpack")
        (folder / "chunks.msgpack").write_bytes(msgspec.msgpack.encode(rows))
        signals = ["lexical", "symbols"]
        embedding = None
        if options.embedder is not None:
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
        chunks=len(rows),
        files_unreadable=_count(inventory.entries, FileStatus.UNREADABLE),
        lfs_pointers=_count(inventory.entries, FileStatus.LFS_POINTER),
    )
    # The manifest is written last: its presence is what makes a build complete. It
    # records every other file's size and digest, checked whenever the build is opened.
    record = {**msgspec.to_builtins(manifest), "files": msgspec.to_builtins(digest_files(folder))}
    write_json_atomic(folder / MANIFEST, record)
    return manifest


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


def _chunk_all(
    jobs: Sequence[_FileJob],
    cache: BuildCache,
    options: BuildOptions,
    progress: Progress | None,
    stats: dict[str, int],
) -> list[_FileOut]:
    version = chunker_version(options.chunker)
    keys = [_cache_key(j, version) for j in jobs]
    cached = cache.get_many("chunks", keys)
    outs: dict[int, _FileOut] = {}
    for i, key in enumerate(keys):
        if key in cached:
            outs[i] = msgspec.msgpack.decode(cached[key], type=_FileOut)
    todo = [i for i in range(len(jobs)) if i not in outs]
    stats["filesFromCache"] = len(jobs) - len(todo)
    stats["filesChunked"] = len(todo)
    config_raw = dataclasses.asdict(options.chunker)
    workers = options.workers or min(os.cpu_count() or 1, 4)
    total_bytes = sum(len(jobs[i].data) for i in todo)
    if progress:
        progress("chunking", 0, len(todo))
    if workers <= 1 or total_bytes < 2_000_000:
        for n, i in enumerate(todo, start=1):
            outs[i] = _chunk_job(jobs[i], options.chunker, version)
            if progress and n % 200 == 0:
                progress("chunking", n, len(todo))
        if progress:
            progress("chunking", len(todo), len(todo))
    else:
        batches = _batches(todo, jobs, target_bytes=max(200_000, total_bytes // (workers * 8)))
        payloads = [
            msgspec.msgpack.encode([[jobs[i] for i in batch], config_raw, version])
            for batch in batches
        ]
        done = 0
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for batch, raw in zip(batches, pool.map(_work, payloads), strict=True):
                for i, out in zip(
                    batch, msgspec.msgpack.decode(raw, type=list[_FileOut]), strict=True
                ):
                    outs[i] = out
                done += len(batch)
                if progress:
                    progress("chunking", done, len(todo))
    cache.put_many("chunks", ((keys[i], msgspec.msgpack.encode(outs[i])) for i in todo))
    return [outs[i] for i in range(len(jobs))]


def _batches(todo: list[int], jobs: Sequence[_FileJob], *, target_bytes: int) -> list[list[int]]:
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i in todo:
        current.append(i)
        size += len(jobs[i].data)
        if size >= target_bytes:
            batches.append(current)
            current, size = [], 0
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
