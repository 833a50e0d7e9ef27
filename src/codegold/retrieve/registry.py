"""Retrievers by name. Built-ins register through the same path a plugin would
(entry point group ``codegold.retrievers``: a callable ``factory(spec, ctx) -> Retriever``).

Names:

* ``hybrid`` — the reference retriever (default);
* ``bm25-window`` — plain BM25 over 40-line windows, a baseline;
* ``bm25-file`` — plain BM25 over whole files in a programming language, one result
  per file (the anchor of issue-report file localization); ``bm25-file:all`` takes
  docs and configuration files too;
* ``command:CMD`` — your own pipeline as a program: one JSON request on stdin per case,
  one attempt on stdout (see :mod:`codegold.retrieve.adapters`);
* ``http:URL`` — your own pipeline as a service: the same request POSTed, the same
  attempt answered;
* ``llamaindex:MODULE:FACTORY`` / ``langchain:MODULE:FACTORY`` — a LlamaIndex or
  LangChain retriever built by ``FACTORY(repo_dir, revision)``, called in process
  (see :mod:`codegold.retrieve.frameworks`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from codegold.errors import InputError
from codegold.index.store import LoadedIndex
from codegold.registry import Registry
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.protocol import Retriever

ENTRY_POINT_GROUP = "codegold.retrievers"


@dataclass(frozen=True)
class RetrieverContext:
    """What a factory may use: the loaded index of the revision, the repository (a
    ``GitRepo``), the reference retriever's config and the embedding provider."""

    index: LoadedIndex
    repo: Any
    config: RetrieverConfig
    embedder: Any
    assume_revision: str | None = None


Factory = Callable[[str, RetrieverContext], Retriever]
RETRIEVERS: Registry[Factory] = Registry("retriever", ENTRY_POINT_GROUP, field="--retriever")
"""Retriever factories by name: the built-ins below, plugins from entry points."""


def register_retriever(name: str, factory: Factory, *, replace: bool = False) -> None:
    """Make ``factory`` build the retrievers ``name`` and ``name:ARG`` name (a taken name
    is an :class:`~codegold.errors.InputError` unless ``replace``)."""
    RETRIEVERS.register(name, factory, replace=replace)


def _hybrid(spec: str, ctx: RetrieverContext) -> Retriever:
    from codegold.retrieve.hybrid import HybridRetriever

    return HybridRetriever(ctx.index, ctx.config, embedder=ctx.embedder)


def _window(spec: str, ctx: RetrieverContext) -> Retriever:
    from codegold.retrieve.baseline import WindowBM25Retriever

    return WindowBM25Retriever.from_index(ctx.index, ctx.repo)


def _file(spec: str, ctx: RetrieverContext) -> Retriever:
    from codegold.retrieve.baseline import FileBM25Retriever

    scope = spec.partition(":")[2] or "code"
    if scope not in ("code", "all"):
        raise InputError(
            f"bm25-file: scope must be code or all, not {scope!r}", field="--retriever"
        )
    return FileBM25Retriever.from_index(ctx.index, ctx.repo, scope=scope)


def _command(spec: str, ctx: RetrieverContext) -> Retriever:
    from codegold.retrieve.adapters import CommandRetriever

    adapter = CommandRetriever(spec.partition(":")[2], revision=ctx.index.revision)
    return _resolving(adapter, ctx)


def _http(spec: str, ctx: RetrieverContext) -> Retriever:
    from codegold.retrieve.adapters import HttpRetriever

    adapter = HttpRetriever(spec.partition(":")[2], revision=ctx.index.revision)
    return _resolving(adapter, ctx)


def _resolving(adapter: Any, ctx: RetrieverContext) -> Retriever:
    from codegold.resolve import SpanResolver

    if ctx.repo is not None:
        adapter.resolver = SpanResolver.from_git(ctx.repo)
    adapter.assume_revision = ctx.assume_revision
    return adapter  # type: ignore[no-any-return]


def _llamaindex(spec: str, ctx: RetrieverContext) -> Retriever:
    from codegold.retrieve.frameworks import framework_retriever

    return framework_retriever("llamaindex", spec, ctx)


def _langchain(spec: str, ctx: RetrieverContext) -> Retriever:
    from codegold.retrieve.frameworks import framework_retriever

    return framework_retriever("langchain", spec, ctx)


for _name, _factory in (
    ("hybrid", _hybrid),
    ("bm25-window", _window),
    ("bm25-file", _file),
    ("command", _command),
    ("http", _http),
    ("llamaindex", _llamaindex),
    ("langchain", _langchain),
):
    register_retriever(_name, _factory)


def retriever_names() -> list[str]:
    """Every retriever name, plugins included."""
    return RETRIEVERS.names()


def make_retriever(spec: str, ctx: RetrieverContext) -> Retriever:
    """Build the retriever named by ``spec`` (``name`` or ``name:argument``)."""
    if spec.startswith(("http://", "https://")):
        spec = f"http:{spec}"  # a bare URL names the HTTP adapter
    name = spec.partition(":")[0]
    factory = RETRIEVERS.find(name)
    if factory is None:
        raise InputError(
            f"unknown retriever {spec!r} (known: {', '.join(retriever_names())}; "
            "command:CMD and http:URL wrap your own pipeline)",
            field="--retriever",
        )
    if name in ("command", "http", "llamaindex", "langchain") and not spec.partition(":")[2]:
        raise InputError(f"{name}: needs an argument, e.g. {name}:…", field="--retriever")
    return factory(spec, ctx)
