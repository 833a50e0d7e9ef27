"""LlamaIndex and LangChain retrievers measured in process.

``--retriever llamaindex:MODULE:FACTORY`` and ``--retriever langchain:MODULE:FACTORY``
name a function ``FACTORY(repo_dir, revision)`` in an importable module (the current
folder is on the path). codegold writes a checkout of each pinned revision, calls the
factory once per revision with that folder and the 40-hex revision, and gets back a
``llama_index.core`` ``BaseRetriever`` or a ``langchain_core`` ``BaseRetriever``.

Per case it calls ``retrieve(query)`` (LlamaIndex, ``NodeWithScore`` results) or
``invoke(query)`` (LangChain, ``Document`` results) and maps each result to a chunk:

* file: ``metadata["file_path"]`` or ``["file_name"]`` (LlamaIndex),
  ``metadata["source"]`` or ``["file_path"]`` (LangChain), relative to the checkout;
* lines: ``metadata["start_line"]``/``["end_line"]`` when present, else located from
  the result's text in the file at the revision;
* id: the node id (LlamaIndex) or the document id (LangChain), else one made from
  file and lines; score: the node's score, or ``metadata["score"]``.

Symbols and role come from codegold's own parse of the span (:mod:`codegold.resolve`);
what the metadata claimed is kept as the chunk's claim. The revision handed to the
factory goes into the attempt's manifest as *asserted*: codegold did not build that
index and cannot prove what it holds. A result that cannot be resolved makes its
case invalid, with the reason, and the run goes on.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import time
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from importlib import metadata as importlib_metadata
from pathlib import Path
from typing import Any

from codegold._paths import by_file_name
from codegold.attempts import Attempt, RetrievedChunk, RetrieverInfo
from codegold.cases.model import Context
from codegold.errors import InputError, missing_extra
from codegold.index.manifest import IndexManifest
from codegold.resolve import ChunkProblem, SpanResolver, normalise_path

__all__ = ["FrameworkRetriever", "checkout", "load_factory"]

_LIBRARIES = {
    "llamaindex": ("llama_index.core", "llama-index-core", "llamaindex"),
    "langchain": ("langchain_core", "langchain-core", "langchain"),
}


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def load_factory(kind: str, target: str) -> Callable[[str, str], Any]:
    """``MODULE:FACTORY`` imported (the current folder first on the path)."""
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise InputError(f"{kind}: expects MODULE:FACTORY, got {target!r}", field="--retriever")
    package = _LIBRARIES[kind][0]
    try:
        importlib.import_module(package)
    except ImportError:
        raise missing_extra(_LIBRARIES[kind][2], f"--retriever {kind}:…") from None
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"cannot import {module_name!r}: {exc}", field="--retriever") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise InputError(f"{module_name} has no function {attr!r}", field="--retriever")
    return factory  # type: ignore[no-any-return]


def checkout(git: Any, revision: str, root: Path) -> Path:
    """The tree of ``revision`` written under ``root/<revision>`` (once; reused after).

    Written to a temporary sibling and renamed, so a half-written checkout is never
    taken for a whole one. Symlinks and submodules are left out.
    """
    final = root / revision
    if final.is_dir():
        return final
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".tmp-{revision}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    entries = [e for e in git.list_files(revision) if e.mode != "120000"]
    paths_by_blob: dict[str, list[str]] = {}
    for entry in entries:
        paths_by_blob.setdefault(entry.blob, []).append(entry.path)
    for blob, data in git.read_blobs(sorted(paths_by_blob)):
        for rel in paths_by_blob[blob]:
            dest = tmp / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        tmp.rename(final)
    except OSError:  # another process won the race: use its checkout
        shutil.rmtree(tmp, ignore_errors=True)
    return final


class FrameworkRetriever:
    """One LlamaIndex or LangChain retriever over a checkout of one revision."""

    def __init__(
        self,
        kind: str,
        target: str,
        *,
        git: Any,
        revision: str,
        checkout_root: Path,
        resolver: SpanResolver | None = None,
        factory: Callable[[str, str], Any] | None = None,
    ) -> None:
        if kind not in _LIBRARIES:
            raise InputError(f"unknown framework {kind!r}", field="--retriever")
        self.kind = kind
        self.name = f"{kind}:{target}"
        self.revision = revision
        self.resolver = resolver or SpanResolver.from_git(git)
        self.resolve_seconds = 0.0
        make = factory or load_factory(kind, target)
        self.root = checkout(git, revision, checkout_root).resolve()
        self._files = {e.path for e in git.list_files(revision)}
        self._by_basename = by_file_name(self._files)
        built_at = _now()
        self.retriever = make(str(self.root), revision)
        self._check_type()
        dist = _LIBRARIES[kind][1]
        try:
            version = importlib_metadata.version(dist)
        except importlib_metadata.PackageNotFoundError:  # pragma: no cover
            version = "unknown"
        self.version = version
        self.manifest = IndexManifest(
            build_id=f"{self.name}@{revision[:12]}",
            repository_revision=revision,
            chunker_version=f"{dist} {version}",
            path_policy="external",
            built_at=built_at,
            complete=True,
            revision_asserted=True,
        )

    def _check_type(self) -> None:
        if self.kind == "llamaindex":
            from llama_index.core.base.base_retriever import BaseRetriever as LlamaRetriever

            ok = isinstance(self.retriever, LlamaRetriever)
            wanted = "llama_index.core BaseRetriever"
        else:
            from langchain_core.retrievers import BaseRetriever as LangChainRetriever

            ok = isinstance(self.retriever, LangChainRetriever)
            wanted = "langchain_core BaseRetriever"
        if not ok:
            raise InputError(
                f"{self.name} returned {type(self.retriever).__name__}, not a {wanted}",
                field="--retriever",
            )

    def _path(self, recorded: str) -> str:
        path = normalise_path(recorded, str(self.root))
        if path not in self._files and "/" not in path:
            matches = self._by_basename.get(path, ())
            if len(matches) == 1:  # file_name alone, and only one file has it
                return matches[0]
        return path

    def _raw_chunks(self, query: str) -> list[dict[str, Any]]:
        if self.kind == "llamaindex":
            return [self._from_node(r) for r in self.retriever.retrieve(query)]
        return [self._from_document(d) for d in self.retriever.invoke(query)]

    def _from_node(self, result: Any) -> dict[str, Any]:
        node = result.node
        meta = dict(node.metadata or {})
        recorded = meta.get("file_path") or meta.get("file_name") or ""
        raw = _lines(meta)
        raw.update(
            file=self._path(str(recorded)),
            excerpt=node.get_content(),
            chunkId=node.node_id,
            score=result.score,
        )
        return raw

    def _from_document(self, doc: Any) -> dict[str, Any]:
        meta = dict(doc.metadata or {})
        recorded = meta.get("source") or meta.get("file_path") or ""
        raw = _lines(meta)
        raw.update(
            file=self._path(str(recorded)),
            excerpt=doc.page_content,
            chunkId=getattr(doc, "id", None),
            score=meta.get("score", meta.get("relevance_score")),
        )
        return raw

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
        started, t0 = _now(), time.perf_counter()
        raws = self._raw_chunks(query)
        elapsed = time.perf_counter() - t0
        t1 = time.perf_counter()
        ranked, problems = resolve_all(self.resolver, raws, self.revision)
        self.resolve_seconds += time.perf_counter() - t1
        return Attempt(
            attempt_id=attempt_id,
            case_id=case_id,
            ranked=tuple(ranked),
            retry_of=retry_of,
            query=query,
            index=self.manifest,
            retriever=RetrieverInfo(name=self.name, version=self.version),
            started_at=started,
            duration_ms=round(elapsed * 1000, 3),
            problems=tuple(problems) or None,
        )


def _lines(meta: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, name in (("start_line", "startLine"), ("end_line", "endLine")):
        value = meta.get(key, meta.get(name))
        if isinstance(value, int) and not isinstance(value, bool):
            out[name] = value
    return out


def resolve_all(
    resolver: SpanResolver, raws: Iterable[dict[str, Any]], revision: str
) -> tuple[list[RetrievedChunk], list[str]]:
    """Each raw chunk resolved in rank order, and the reasons of those that could not be."""
    ranked: list[RetrievedChunk] = []
    problems: list[str] = []
    for rank, raw in enumerate(raws, start=1):
        try:
            ranked.append(resolver.resolve(raw, revision, rank=rank))
        except ChunkProblem as exc:
            problems.append(str(exc))
    return ranked, problems


def framework_retriever(kind: str, spec: str, ctx: Any) -> FrameworkRetriever:
    """The retriever for ``kind:MODULE:FACTORY`` over the revision of ``ctx.index``;
    checkouts go beside the index builds (``ROOT/checkouts/<revision>``)."""
    root = ctx.index.folder.parent.parent / "checkouts"
    return FrameworkRetriever(
        kind, spec.partition(":")[2], git=ctx.repo, revision=ctx.index.revision, checkout_root=root
    )
