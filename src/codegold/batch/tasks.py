"""The two kinds of batch task, as functions of plain values.

Both run in whichever process an executor picked, so they take paths and ids (never
open handles) and return msgspec values and numbers. A worker process keeps what it
loaded (suites, index caches) between tasks: a Ray worker or pool process that serves
several shards of one revision reads that revision's index once.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from codegold.attempts import Attempt
from codegold.errors import CodegoldError
from codegold.evaluate.records import CaseResult


@dataclass(frozen=True)
class IndexJob:
    """Build (or reuse) the index of one revision of one repository."""

    key: str
    repo: str
    revision: str
    index_root: str
    policy: str | None
    embedder: str
    repository_name: str | None


@dataclass(frozen=True)
class ShardJob:
    """Retrieve for, evaluate and diagnose some cases of one suite."""

    suite_key: str
    shard: int
    cases: str
    case_ids: tuple[str, ...]
    repo: str
    index_root: str
    retriever: str
    config: str | None
    embedder: str


@dataclass
class TaskOutcome:
    """What a task gives back: its value or the error that stopped it (an input or
    environment problem, not retried), plus where and how long it ran."""

    value: Any = None
    error: str | None = None
    seconds: float = 0.0
    pid: int = 0
    peak_rss_kb: int = 0
    host: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _finish(outcome: TaskOutcome, started: float) -> TaskOutcome:
    outcome.seconds = time.perf_counter() - started
    outcome.pid = os.getpid()
    outcome.peak_rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome.host = os.uname().nodename
    return outcome


def index_task(job: IndexJob) -> TaskOutcome:
    """The manifest (as builtins) of ``job``'s build; a codegold error is reported in
    the outcome (the suites that need this revision are then skipped), anything else
    raises so the executor retries."""
    from codegold.pipeline.indexing import index_revision

    started = time.perf_counter()
    try:
        manifest = index_revision(
            job.repo,
            job.revision,
            job.index_root,
            policy_path=job.policy,
            embedder=job.embedder,
            repository_name=job.repository_name,
        )
    except CodegoldError as exc:
        return _finish(TaskOutcome(error=str(exc)), started)
    return _finish(TaskOutcome(value=msgspec.to_builtins(manifest)), started)


@dataclass(frozen=True)
class ShardValue:
    attempts: list[Attempt]
    records: list[CaseResult]


_SUITES: dict[tuple[str, int], Any] = {}
_CACHES: dict[str, Any] = {}


def _suite(path: str) -> Any:
    from codegold.cases import load_suite

    key = (path, os.stat(path).st_mtime_ns)
    if key not in _SUITES:
        _SUITES.clear()
        _SUITES[key] = load_suite(Path(path))
    return _SUITES[key]


def _indexes(root: str) -> Any:
    from codegold.index.store import IndexCache

    if root not in _CACHES:
        _CACHES[root] = IndexCache(Path(root))
    return _CACHES[root]


def shard_task(job: ShardJob) -> TaskOutcome:
    """Attempts and records of ``job``'s cases, in suite order; diagnosis reads the
    index this worker just retrieved from."""
    from codegold.cases.selection import select_cases
    from codegold.corpus.git import GitRepo
    from codegold.index.embed import resolve_embedder
    from codegold.pipeline import diagnosis_context, retrieve_suite, score_shard
    from codegold.retrieve.config import RetrieverConfig

    started = time.perf_counter()
    try:
        suite, _ = select_cases(_suite(job.cases), job.case_ids)
        indexes = _indexes(job.index_root)
        settings = RetrieverConfig.load(Path(job.config)) if job.config else RetrieverConfig()
        embedder = resolve_embedder(job.embedder)
        with GitRepo(Path(job.repo)) as git:
            attempts = retrieve_suite(
                suite,
                indexes,
                git=git,
                settings=settings,
                retriever_name=job.retriever,
                embedder=embedder,
            )
            records = score_shard(suite, attempts, diagnosis_context(git, indexes), mode="live")
    except CodegoldError as exc:
        return _finish(TaskOutcome(error=str(exc)), started)
    return _finish(TaskOutcome(value=ShardValue(attempts, records)), started)


def noop_task(payload: int) -> TaskOutcome:
    """Does nothing: the benchmark's measure of an executor's per-task overhead."""
    return _finish(TaskOutcome(value=payload), time.perf_counter())
