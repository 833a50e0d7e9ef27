"""The Python API: load a suite, measure or evaluate attempts, run the reference
retriever, apply a gate policy. Everything here is exported from :mod:`codegold`.

::

    import codegold

    suite = codegold.load_suite("gold/compact.yaml")

    def my_retriever(query: str) -> list[dict]:          # your pipeline
        return [{"file": "src/auth/session.py", "excerpt": "def create_session(…"}]

    records = codegold.measure(suite, my_retriever, repo=".", revision=suite.revisions[0])
    decision = codegold.apply_gate(records, {"gate": {"minPassRate": 0.9}})
    assert not decision.blocked, "\\n".join(decision.lines())

The chunks a retriever returns may be minimal (SPEC §2): a ``file`` with an
``excerpt``, or with ``startLine``/``endLine``; codegold resolves them against its own
parse of the file at the revision, keeps what was claimed, and makes a case whose
chunk cannot be placed invalid, with the reason, never the whole call.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from codegold.attempts import Attempt, RetrievedChunk, RetrieverInfo, asserted_manifest
from codegold.cases import load_suite as _load_suite
from codegold.cases.suite import Suite
from codegold.errors import InputError
from codegold.evaluate import evaluate_attempts as _evaluate
from codegold.evaluate.records import CaseResult, RecordLike, as_records
from codegold.gate import GateDecision, GatePolicy, evaluate_gate, load_policy, parse_policy
from codegold.resolve import SpanResolver, attempt_from_raw, check_revision

__all__ = [
    "apply_gate",
    "evaluate_attempts",
    "load_attempts",
    "load_suite",
    "measure",
    "run_reference",
    "summarize",
]

Chunkish = Mapping[str, Any] | RetrievedChunk
AttemptLike = Attempt | Mapping[str, Any]


def load_suite(path: str | Path) -> Suite:
    """A gold suite (YAML, JSON or JSONL), validated; :class:`InputError` names the
    file, case and field of the first problem."""
    return _load_suite(Path(path))


def load_attempts(
    path: str | Path, *, repo: str | Path | None = None, assume_revision: str | None = None
) -> list[Attempt]:
    """Attempts from JSONL; with ``repo``, minimal chunks are resolved against it."""
    from codegold.attempts import load_attempts as _load
    from codegold.corpus.git import GitRepo

    revision = check_revision(assume_revision, field="assume_revision")
    if repo is None:
        return _load(path, assume_revision=revision)
    with GitRepo(Path(repo)) as git:
        return _load(path, resolver=SpanResolver.from_git(git), assume_revision=revision)


def _as_attempt(
    item: AttemptLike, resolver: SpanResolver | None, assume_revision: str | None, n: int
) -> Attempt:
    if isinstance(item, Attempt):
        if item.index is None and assume_revision is not None:
            manifest = asserted_manifest(assume_revision, source="api")
            return msgspec.structs.replace(item, index=manifest)
        return item
    raw = {
        k: (msgspec.to_builtins(v) if isinstance(v, msgspec.Struct) else v) for k, v in item.items()
    }
    raw["ranked"] = [_chunk_dict(c) for c in raw.get("ranked") or ()]
    if raw.get("candidates") is not None:
        raw["candidates"] = [_chunk_dict(c) for c in raw["candidates"]]
    raw.setdefault("attemptId", f"{raw.get('caseId', 'attempt')}#{n}")
    try:
        attempt = msgspec.convert(raw, Attempt)
    except msgspec.ValidationError as exc:
        rebuilt = attempt_from_raw(raw, resolver, assume_revision)
        if rebuilt is None:
            raise InputError(
                f"invalid attempt: {exc}", case_id=str(raw.get("caseId") or "?")
            ) from None
        return rebuilt
    return _as_attempt(attempt, resolver, assume_revision, n)


def _chunk_dict(chunk: Any) -> Any:
    if isinstance(chunk, msgspec.Struct):
        return msgspec.to_builtins(chunk)
    return dict(chunk) if isinstance(chunk, Mapping) else chunk


def evaluate_attempts(
    suite: Suite,
    attempts: Iterable[AttemptLike],
    *,
    repo: str | Path | None = None,
    assume_revision: str | None = None,
) -> list[CaseResult]:
    """One result record per attempt (and a ``no_attempt`` record per case without
    one), as results.json holds them. ``attempts`` are :class:`Attempt` objects or
    attempt-format mappings (camelCase keys); with ``repo`` their minimal chunks are
    resolved. ``assume_revision`` stands in for missing index manifests (asserted)."""
    from codegold.corpus.git import GitRepo

    revision = check_revision(assume_revision, field="assume_revision")
    with ExitStack() as stack:
        resolver = None
        if repo is not None:
            resolver = SpanResolver.from_git(stack.enter_context(GitRepo(Path(repo))))
        built = [_as_attempt(a, resolver, revision, n) for n, a in enumerate(attempts, 1)]
    return _evaluate(suite, built)


def _takes_revision(fn: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - builtins without signatures
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind is p.VAR_POSITIONAL for p in params)


def measure(
    suite: Suite,
    retrieve: Callable[[str], Sequence[Chunkish]] | Callable[[str, str], Sequence[Chunkish]],
    *,
    repo: str | Path,
    revision: str | None = None,
    name: str = "python",
) -> list[CaseResult]:
    """Call your retriever for every case and evaluate what it returned.

    ``retrieve(query)``, or ``retrieve(query, revision)`` to be told the revision the
    case pins, returns chunks in rank order: mappings in attempt format (``file`` plus
    ``excerpt`` or lines is enough) or :class:`RetrievedChunk` objects. ``revision`` is
    the one revision your index holds, if so; otherwise each case's pinned revision is
    taken as the one searched. Either way it is recorded as asserted, not proven."""
    sha = check_revision(revision, field="revision")
    two = _takes_revision(retrieve)
    attempts: list[dict[str, Any]] = []
    for case in suite.cases:
        stated = sha or case.revision
        started, t0 = datetime.now(UTC), time.perf_counter()
        found = retrieve(case.query, stated or "") if two else retrieve(case.query)  # type: ignore[call-arg]
        chunks = [_chunk_dict(c) for c in found]
        attempt: dict[str, Any] = {
            "attemptId": f"{case.id}#1",
            "caseId": case.id,
            "query": case.query,
            "ranked": chunks,
            "retriever": msgspec.to_builtins(RetrieverInfo(name=name)),
            "startedAt": started.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "durationMs": round((time.perf_counter() - t0) * 1000, 3),
        }
        if stated is not None:
            attempt["index"] = msgspec.to_builtins(asserted_manifest(stated, source=name))
        attempts.append(attempt)
    return evaluate_attempts(suite, attempts, repo=repo)


def run_reference(
    suite: Suite,
    repo: str | Path,
    *,
    index_dir: str | Path,
    retriever: str = "hybrid",
    embedder: Any = None,
) -> list[CaseResult]:
    """Index every pinned revision (missing builds only) under ``index_dir``, retrieve
    with the reference retriever (or any ``--retriever`` name), evaluate, and diagnose
    the failures."""
    from codegold.corpus.git import GitRepo
    from codegold.index.store import IndexCache
    from codegold.pipeline import diagnosis_context, retrieve_suite, score
    from codegold.pipeline.indexing import index_revisions
    from codegold.retrieve.config import RetrieverConfig

    indexes = IndexCache(Path(index_dir))
    with GitRepo(Path(repo)) as git:
        index_revisions(
            git,
            suite.revisions,
            indexes.root,
            embedder=embedder,
            repository_name=suite.repository_name,
        )
        attempts = retrieve_suite(
            suite,
            indexes,
            git=git,
            settings=RetrieverConfig(),
            retriever_name=retriever,
            embedder=embedder,
        )
        scored = score(suite, lambda: attempts, diagnosis=lambda: diagnosis_context(git, indexes))
    return scored.records


def summarize(records: Sequence[RecordLike]) -> dict[str, Any]:
    """The run's aggregates (pass rate, hit rate, MRR, … overall and per slice), as
    summary.json holds them, without the run identity."""
    from codegold.evaluate.summary import summarize as _summarize

    return _summarize(as_records(records), {})


def apply_gate(
    records: Sequence[RecordLike],
    policy: GatePolicy | Mapping[str, Any] | str | Path,
    *,
    baseline: Sequence[RecordLike] | None = None,
) -> GateDecision:
    """The gate's decision: ``policy`` is a parsed policy, a TOML path, or the same
    table as a mapping (``{"gate": {"minPassRate": 0.9}}``)."""
    if isinstance(policy, str | Path):
        parsed = load_policy(policy)
    elif isinstance(policy, GatePolicy):
        parsed = policy
    else:
        parsed = parse_policy(policy, source="policy")
    return evaluate_gate(records, parsed, baseline)
