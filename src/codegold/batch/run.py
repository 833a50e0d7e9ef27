"""A batch from plan to artifacts: index tasks, shard tasks, per-suite and combined
outputs. Everything written is a function of the plan and the repositories: outcomes
come back in job order and records are assembled in suite order, so the number of
workers and the executor change only the ``execution`` section of DIR/summary.json."""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegold import EVALUATOR_VERSION, __version__
from codegold._io import write_json_atomic
from codegold.attempts import Attempt
from codegold.batch.executors import Executor, Progress
from codegold.batch.plan import BatchPlan, PlanSuite
from codegold.batch.tasks import IndexJob, ShardJob, ShardValue, TaskOutcome, index_task, shard_task
from codegold.cases import load_suite
from codegold.cases.suite import Suite
from codegold.corpus.git import GitRepo
from codegold.errors import InputError
from codegold.evaluate.records import CaseResult
from codegold.evaluate.repeat import check_repeats
from codegold.evaluate.summary import aggregate, slice_names
from codegold.owners import assign_teams
from codegold.pipeline.run import suite_owners
from codegold.pipeline.scoring import Scored, write_run
from codegold.report.artifacts import run_identity

SHARD_SIZE = 25
# repository-size buckets, by the files codegold indexed at the case's revision
SIZE_BUCKETS = ((100, "size:<100 files"), (1000, "size:100-999 files"))
SIZE_LARGEST = "size:1000+ files"


@dataclass
class SuiteOutcome:
    entry: PlanSuite
    suite: Suite
    dir_name: str
    repository: str
    index_keys: dict[str, str]  # revision -> index job key
    error: str | None = None
    records: list[CaseResult] = field(default_factory=list)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.dir_name,
            "cases": len(self.suite.cases),
            "repository": self.repository,
            "revisions": list(self.suite.revisions),
            "status": "failed" if self.error else "ok",
            "error": self.error,
        }


@dataclass(frozen=True)
class BatchOutput:
    summary: dict[str, Any]
    suites: list[SuiteOutcome]
    tasks: dict[str, list[TaskOutcome]]

    @property
    def failed(self) -> list[SuiteOutcome]:
        return [s for s in self.suites if s.error]


def run_batch(
    plan: BatchPlan,
    out_dir: Path,
    executor: Executor,
    *,
    index_dir: Path | None = None,
    embedder: str = "auto",
    shard_size: int = SHARD_SIZE,
    progress: Progress | None = None,
    log: Callable[[str], None] | None = None,
) -> BatchOutput:
    """Run every suite of ``plan``; write DIR/<suite>/ and DIR/summary.json."""
    if shard_size < 1:
        raise InputError("must be at least 1", field="--shard-size")
    started = time.perf_counter()
    index_root = (index_dir or out_dir / "index").resolve()
    suites = _load_suites(plan)
    jobs = _index_jobs(suites, index_root, embedder)

    t0 = time.perf_counter()
    built = dict(
        zip(
            (j.key for j in jobs),
            executor.map(index_task, jobs, label="index", progress=progress),
            strict=True,
        )
    )
    index_seconds = time.perf_counter() - t0
    for outcome in suites:
        for revision, key in outcome.index_keys.items():
            error = built[key].error
            if error is not None and outcome.error is None:
                outcome.error = f"index of {revision[:12]} failed: {error}"
                if log is not None:
                    log(f"batch: {outcome.dir_name}: {outcome.error}")

    shards = _shard_jobs(suites, index_root, embedder, shard_size)
    t0 = time.perf_counter()
    scored = executor.map(shard_task, shards, label="cases", progress=progress)
    shard_seconds = time.perf_counter() - t0
    by_suite: dict[str, list[TaskOutcome]] = defaultdict(list)
    for job, shard in zip(shards, scored, strict=True):
        by_suite[job.suite_key].append(shard)
    for outcome in suites:
        if outcome.error is None:
            _assemble(outcome, by_suite[outcome.dir_name], out_dir / outcome.dir_name, log)

    sizes = {k: (o.value or {}).get("filesIndexed") for k, o in built.items()}
    summary = _combined(plan, suites, sizes)
    tasks = {"index": list(built.values()), "cases": scored}
    summary["execution"] = _execution(
        executor, tasks, time.perf_counter() - started, index_seconds, shard_seconds
    )
    write_json_atomic(out_dir / "summary.json", summary)
    return BatchOutput(summary, suites, tasks)


def _load_suites(plan: BatchPlan) -> list[SuiteOutcome]:
    out: list[SuiteOutcome] = []
    seen: dict[str, int] = {}
    for entry in plan.suites:
        suite = load_suite(entry.cases)
        name = entry.name or suite.name or entry.cases.stem
        if name in seen or name in {"index", "summary.json"}:
            raise InputError(
                f"suite name {name!r} is taken (by suites[{seen.get(name)}]); "
                'give this entry a name = "..."',
                file=str(plan.path),
                field=f"suites[{entry.position}].name",
            )
        seen[name] = entry.position
        repository = suite.repository_name or entry.repo.name.removesuffix(".git")
        out.append(SuiteOutcome(entry, suite, name, repository, {}))
    return out


def _index_jobs(suites: list[SuiteOutcome], root: Path, embedder: str) -> list[IndexJob]:
    """One job per (repository, revision, policy): suites pinning the same share it."""
    jobs: dict[str, IndexJob] = {}
    for outcome in suites:
        entry = outcome.entry
        policy = str(entry.policy) if entry.policy else None
        for revision in outcome.suite.revisions:
            ident = "\0".join([str(entry.repo), revision, policy or "", embedder])
            key = hashlib.sha256(ident.encode()).hexdigest()[:16]
            outcome.index_keys[revision] = key
            if key not in jobs:
                jobs[key] = IndexJob(
                    key=key,
                    repo=str(entry.repo),
                    revision=revision,
                    index_root=str(root),
                    policy=policy,
                    embedder=embedder,
                    repository_name=outcome.suite.repository_name,
                )
    return list(jobs.values())


def _shard_jobs(suites: list[SuiteOutcome], root: Path, embedder: str, size: int) -> list[ShardJob]:
    jobs: list[ShardJob] = []
    for outcome in suites:
        if outcome.error is not None:
            continue
        ids = [c.id for c in outcome.suite.cases]
        entry = outcome.entry
        for n, start in enumerate(range(0, len(ids), size)):
            jobs.append(
                ShardJob(
                    suite_key=outcome.dir_name,
                    shard=n,
                    cases=str(entry.cases),
                    case_ids=tuple(ids[start : start + size]),
                    repo=str(entry.repo),
                    index_root=str(root),
                    retriever=entry.retriever,
                    config=str(entry.config) if entry.config else None,
                    embedder=embedder,
                )
            )
    return jobs


def _assemble(
    outcome: SuiteOutcome,
    shards: list[TaskOutcome],
    out: Path,
    log: Callable[[str], None] | None,
) -> None:
    """The suite's artifacts from its shards (in suite order), as `run` writes them."""
    attempts: list[Attempt] = []
    records: list[CaseResult] = []
    for n, shard in enumerate(shards):
        if shard.error is not None:
            outcome.error = f"cases shard {n} failed: {shard.error}"
            if log is not None:
                log(f"batch: {outcome.dir_name}: {outcome.error}")
            return
        value: ShardValue = shard.value
        attempts.extend(value.attempts)
        records.extend(value.records)
    with GitRepo(outcome.entry.repo) as git:
        owners = suite_owners(outcome.suite, git, outcome.entry.policy)
    records = assign_teams(records, outcome.suite, owners)
    records, repeats = check_repeats(records, attempts)
    identity = run_identity(outcome.suite, attempts)
    write_run(out, Scored(records, {**identity, "selection": None, **repeats}), attempts=attempts)
    outcome.records = records


def _size_slice(files: int | None) -> str | None:
    if files is None:
        return None
    for bound, name in SIZE_BUCKETS:
        if files < bound:
            return name
    return SIZE_LARGEST


def _combined(
    plan: BatchPlan, suites: list[SuiteOutcome], sizes: dict[str, int | None]
) -> dict[str, Any]:
    """DIR/summary.json without its execution section: every record of every suite
    that ran, overall and by slice, plus repository:NAME and size:BUCKET slices."""
    everything: list[CaseResult] = []
    by_slice: dict[str, list[CaseResult]] = defaultdict(list)
    for outcome in suites:
        revisions = {c.id: c.revision for c in outcome.suite.cases}
        for record in outcome.records:
            everything.append(record)
            names = [*slice_names(record), f"repository:{outcome.repository}"]
            revision = revisions.get(record.case_id)
            key = outcome.index_keys.get(revision) if revision else None
            size = _size_slice(sizes.get(key)) if key else None
            if size is not None:
                names.append(size)
            for name in names:
                by_slice[name].append(record)
    return {
        "codegoldVersion": __version__,
        "evaluatorVersion": EVALUATOR_VERSION,
        "plan": {"file": plan.path.name, "digest": plan.digest},
        "suites": [s.describe() for s in suites],
        "overall": aggregate(everything),
        "slices": {name: aggregate(rs) for name, rs in sorted(by_slice.items())},
    }


def _execution(
    executor: Executor,
    tasks: dict[str, list[TaskOutcome]],
    seconds: float,
    index_seconds: float,
    shard_seconds: float,
) -> dict[str, Any]:
    """Wall-clock and placement figures: the only part that differs between runs."""
    peak: dict[str, int] = {}
    for outcomes in tasks.values():
        for o in outcomes:
            worker = f"{o.host}:{o.pid}"
            peak[worker] = max(peak.get(worker, 0), o.peak_rss_kb)
    return {
        "executor": executor.name,
        "workers": executor.workers,
        "seconds": round(seconds, 3),
        "stages": {
            name: {
                "tasks": len(outcomes),
                "seconds": round(stage, 3),
                "taskSeconds": round(sum(o.seconds for o in outcomes), 3),
            }
            for (name, outcomes), stage in zip(
                tasks.items(), (index_seconds, shard_seconds), strict=True
            )
        },
        "peakRssKbByWorker": dict(sorted(peak.items())),
    }
