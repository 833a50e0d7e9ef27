"""Plain baselines: BM25 over fixed 40-line windows (``bm25-window``) and BM25 over
whole files (``bm25-file``, the anchor of issue-report file localization).

``bm25-window``: BM25 over fixed 40-line windows, words split on non-word
characters only (``createSession`` stays one token), no role or path awareness.

Windows carry the names whose definitions start inside them and a role from the
file's policy role, so target matching is fair: what differs is the ranking and the
chunking, which is what the comparison is about.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from codegold import __version__
from codegold._lines import split_lines
from codegold.attempts import Attempt, RetrievedChunk, RetrieverInfo
from codegold.cases.model import Context
from codegold.corpus.git import GitRepo
from codegold.corpus.model import FileStatus
from codegold.index.lexical import BM25Index
from codegold.index.store import LoadedIndex

_WORD = re.compile(r"\w+")
FILE_ROLE_TO_ROLE = {
    "test": "test",
    "docs": "docs",
    "configuration": "configuration",
    "generated": "generated",
    "migration": "migration",
}


def plain_tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


class WindowBM25Retriever:
    name = "bm25-window"

    def __init__(
        self,
        index: LoadedIndex,
        windows: list[RetrievedChunk],
        lexical: BM25Index,
        window_lines: int,
    ) -> None:
        self.index = index
        self.windows = windows
        self.lexical = lexical
        self.window_lines = window_lines

    @classmethod
    def from_index(
        cls, index: LoadedIndex, repo: GitRepo, window_lines: int = 40
    ) -> WindowBM25Retriever:
        entries = [
            e for e in index.inventory if e.status in (FileStatus.INDEXED, FileStatus.UNPARSABLE)
        ]
        blobs = dict(repo.read_blobs(sorted({e.blob for e in entries})))
        defs_by_file: dict[str, list[tuple[int, str]]] = {}
        for chunk in index.chunks:
            if chunk.symbol and chunk.role in ("definition", "declaration"):
                for name in chunk.symbols or (chunk.symbol,):
                    defs_by_file.setdefault(chunk.file, []).append((chunk.start_line, name))
        windows: list[RetrievedChunk] = []
        docs: list[list[str]] = []
        for entry in entries:
            lines = split_lines(blobs[entry.blob].decode("utf-8", errors="replace"))
            defs = sorted(defs_by_file.get(entry.path, []))
            for start in range(0, max(len(lines), 1), window_lines):
                end = min(start + window_lines, len(lines))
                text = "\n".join(lines[start:end])
                names = tuple(dict.fromkeys(n for line, n in defs if start < line <= end))
                role = FILE_ROLE_TO_ROLE.get(str(entry.role))
                if role is None:
                    role = "definition" if names else "call_site"
                cid = hashlib.sha1(f"{entry.path}\0{entry.blob}\0{start}".encode()).hexdigest()[:16]
                windows.append(
                    RetrievedChunk(
                        chunk_id=f"w-{cid}",
                        file=entry.path,
                        start_line=start + 1,
                        end_line=max(end, start + 1),
                        role=role,  # type: ignore[arg-type]
                        repository_revision=index.revision,
                        score=0.0,
                        symbol=names[0] if names else None,
                        symbols=names or None,
                    )
                )
                docs.append(plain_tokens(text))
        return cls(index, windows, BM25Index.build(docs), window_lines)

    def retrieve(
        self,
        query: str,
        *,
        case_id: str,
        context: Context | None = None,
        attempt_id: str,
        cutoff: int | None = None,
        retry_of: str | None = None,
    ) -> Attempt:
        return _plain_attempt(
            self.index, self.lexical, self.windows, self.name,
            {"windowLines": self.window_lines},
            query=query, case_id=case_id, attempt_id=attempt_id, cutoff=cutoff,
            retry_of=retry_of,
        )  # fmt: skip


class FileBM25Retriever:
    """BM25 over whole files, the same plain tokens as the window baseline: one ranked
    chunk per file, spanning the file (the file-localization literature's BM25).

    By default only files in a programming language are documents (tests included, as
    in the literature); ``scope="all"`` (``bm25-file:all``) takes every indexed file,
    docs and configuration too."""

    name = "bm25-file"

    def __init__(
        self,
        index: LoadedIndex,
        files: list[RetrievedChunk],
        lexical: BM25Index,
        scope: str = "code",
    ) -> None:
        self.index = index
        self.files = files
        self.lexical = lexical
        self.scope = scope

    @classmethod
    def from_index(
        cls,
        index: LoadedIndex,
        repo: GitRepo,
        token_cache: dict[str, list[str]] | None = None,
        scope: str = "code",
    ) -> FileBM25Retriever:
        """``token_cache`` (blob id to tokens) lets a caller reuse tokenized blobs
        across revisions of one repository."""
        entries = [
            e
            for e in index.inventory
            if e.status in (FileStatus.INDEXED, FileStatus.UNPARSABLE)
            and (scope == "all" or e.language is not None)
        ]
        cache = token_cache if token_cache is not None else {}
        wanted = sorted({e.blob for e in entries if e.blob not in cache})
        for blob, data in repo.read_blobs(wanted):
            cache[blob] = plain_tokens(data.decode("utf-8", errors="replace"))
        files: list[RetrievedChunk] = []
        docs: list[list[str]] = []
        for entry in entries:
            tokens = cache[entry.blob]
            rows = index.rows_by_file.get(entry.path, [])
            end = max((index.chunks[r].end_line for r in rows), default=1)
            defined: list[str] = []
            for r in rows:
                c = index.chunks[r]
                if c.role in ("definition", "declaration"):
                    defined.extend(c.symbols or ((c.symbol,) if c.symbol else ()))
            names = tuple(dict.fromkeys(defined))
            role = FILE_ROLE_TO_ROLE.get(str(entry.role))
            if role is None:
                role = "definition" if names else "call_site"
            cid = hashlib.sha1(f"{entry.path}\0{entry.blob}".encode()).hexdigest()[:16]
            files.append(
                RetrievedChunk(
                    chunk_id=f"f-{cid}",
                    file=entry.path,
                    start_line=1,
                    end_line=max(end, 1),
                    role=role,  # type: ignore[arg-type]
                    repository_revision=index.revision,
                    score=0.0,
                    symbol=names[0] if names else None,
                    symbols=names or None,
                )
            )
            docs.append(tokens)
        return cls(index, files, BM25Index.build(docs), scope)

    def retrieve(
        self,
        query: str,
        *,
        case_id: str,
        context: Context | None = None,
        attempt_id: str,
        cutoff: int | None = None,
        retry_of: str | None = None,
    ) -> Attempt:
        return _plain_attempt(
            self.index, self.lexical, self.files, self.name, {"scope": self.scope},
            query=query, case_id=case_id, attempt_id=attempt_id, cutoff=cutoff,
            retry_of=retry_of,
        )  # fmt: skip


def _plain_attempt(
    index: LoadedIndex,
    lexical: BM25Index,
    docs: Sequence[RetrievedChunk],
    name: str,
    config: dict[str, Any],
    *,
    query: str,
    case_id: str,
    attempt_id: str,
    cutoff: int | None,
    retry_of: str | None,
) -> Attempt:
    """One baseline attempt: plain BM25 over ``docs``, no rewrite and no reranker (the
    candidates are the final order)."""
    started = datetime.now(UTC)
    t0 = time.perf_counter()
    hits = lexical.top(plain_tokens(query), 50)
    ranked = tuple(_with_score(docs[row], score) for row, score in hits)
    return Attempt(
        attempt_id=attempt_id,
        case_id=case_id,
        retry_of=retry_of,
        query=query,
        rewritten_query=query,
        filters={},
        index=index.manifest,
        retriever=RetrieverInfo(name=name, version=__version__, config=config),
        candidates=ranked,
        ranked=ranked,
        context_ids=tuple(c.chunk_id for c in ranked[: cutoff or len(ranked)]),
        started_at=started.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
        duration_ms=round((time.perf_counter() - t0) * 1000, 3),
    )


def _with_score(chunk: RetrievedChunk, score: float) -> RetrievedChunk:
    return msgspec.structs.replace(chunk, score=round(score, 8))


__all__ = ["FileBM25Retriever", "WindowBM25Retriever", "plain_tokens"]
