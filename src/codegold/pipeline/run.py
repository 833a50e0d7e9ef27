"""`run` (live: index, retrieve, score) and `eval` (recorded attempts: score) as
library functions, composed from the steps of this package."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegold._digest import digest_meanwhile
from codegold._io import ensure_output_dir, quiet_gc
from codegold.attempts import Attempt, iter_attempts
from codegold.cases import load_suite
from codegold.cases.selection import select_cases
from codegold.cases.suite import Suite, without_drafts
from codegold.evaluate.records import CaseResult
from codegold.pipeline.scoring import (
    SplitSource,
    diagnosis_context,
    score,
    stream_run,
    write_run,
)

# The index builder, git, the retrievers and the owners table are imported where they
# are used: `eval` of recorded attempts without a repository needs none of them.
if TYPE_CHECKING:
    from codegold.corpus.git import GitRepo
    from codegold.diagnose import DiagnosisContext
    from codegold.index.store import IndexCache, LoadedIndex
    from codegold.owners import OwnerMap
    from codegold.pipeline.indexing import Log, Progress
    from codegold.retrieve.config import RetrieverConfig


@dataclass(frozen=True)
class RunOutput:
    """What a run wrote (summary.json's document and the records of results.json), and
    how many index builds it read."""

    summary: dict[str, Any]
    records: Sequence[CaseResult]
    """A list for a live run; for ``eval``, read back from results.json one record at
    a time (an evaluation does not hold its records in memory)."""
    index_loads: int


def retrieve_suite(
    suite: Suite,
    indexes: IndexCache,
    *,
    git: GitRepo | None,
    settings: RetrieverConfig,
    retriever_name: str = "hybrid",
    embedder: Any = None,
    repeat: int = 1,
    progress: Progress | None = None,
    assume_revision: str | None = None,
) -> list[Attempt]:
    """``repeat`` attempts per case from the retriever ``retriever_name`` names, built
    once per revision over the loaded index in ``indexes``. ``assume_revision`` stands
    in for the manifest a command:/http: pipeline did not send (marked asserted)."""
    from codegold.retrieve.registry import RetrieverContext, make_retriever
    from codegold.retrieve.runner import RetrievalSession

    def make(loaded: LoadedIndex) -> Any:
        ctx = RetrieverContext(
            index=loaded,
            repo=git,
            config=settings,
            embedder=embedder,
            assume_revision=assume_revision,
        )
        return make_retriever(retriever_name, ctx)

    session = RetrievalSession(
        indexes.root, settings, embedder=embedder, make_retriever=make, indexes=indexes
    )
    return session.retrieve_suite(suite, repeat=repeat, progress=progress)


def suite_owners(suite: Suite, git: GitRepo | None, policy_path: Path | None) -> OwnerMap | None:
    """The ``[owners]`` table: of ``--policy``, else of the repository's codegold.toml
    at the revision most cases pin (ties: the smaller sha)."""
    if policy_path is not None:
        from codegold.owners import load_owners

        return load_owners(config_path=policy_path)
    pinned = Counter(c.revision for c in suite.cases if c.revision)
    if git is None or not pinned:
        return None
    from codegold.owners import load_owners

    revision = min(pinned, key=lambda sha: (-pinned[sha], sha))
    return load_owners(repo=git, revision=revision)


def dirty_note(git: GitRepo) -> str | None:
    """A note when the repository's working tree has uncommitted changes: codegold reads
    the pinned commits from git objects, so those edits are not what it evaluates."""
    changed = git.uncommitted()
    if not changed:
        return None
    shown = ", ".join(changed[:3]) + (", …" if len(changed) > 3 else "")
    files = "file" if len(changed) == 1 else "files"
    return (
        f"note: {git.path} has uncommitted changes to {len(changed)} tracked {files} "
        f"({shown}); codegold reads the pinned commits from git objects, so they are not "
        "evaluated (commit them and pin the suite to that commit to measure them)"
    )


def say_warnings(suite: Suite, git: GitRepo | None, log: Log | None) -> None:
    """The suite's warnings and the dirty-tree note, on the log."""
    if log is None:
        return
    for warning in suite.warnings:
        log(f"warning: {warning}")
    note = dirty_note(git) if git is not None else None
    if note:
        log(note)


def run_pipeline(
    *,
    cases_path: Path,
    repo_path: Path,
    out_dir: Path,
    index_dir: Path | None = None,
    config_path: Path | None = None,
    policy_path: Path | None = None,
    retriever_name: str = "hybrid",
    repeat: int = 1,
    embedder: Any = None,
    config: RetrieverConfig | None = None,
    progress: Progress | None = None,
    log: Log | None = None,
    assume_revision: str | None = None,
    case_ids: Sequence[str] = (),
    tags: Sequence[str] = (),
    include_drafts: bool = False,
) -> RunOutput:
    """Index each pinned revision, retrieve for every case (or the cases ``case_ids``
    and ``tags`` select, recorded as the run's selection), score, write OUT. Draft
    cases are left out unless ``include_drafts``."""
    from codegold.corpus.git import GitRepo
    from codegold.index.store import IndexCache
    from codegold.pipeline.indexing import index_revisions
    from codegold.retrieve.config import RetrieverConfig

    ensure_output_dir(out_dir)
    if index_dir is not None:
        ensure_output_dir(index_dir, "--index")
    loaded = load_suite(cases_path)
    if not include_drafts and loaded.drafts:
        if log is not None:
            log(
                f"skipping {len(loaded.drafts)} draft case(s) of {len(loaded.cases)} "
                "(review them, or pass --include-drafts)"
            )
        loaded = without_drafts(loaded)
    suite, selection = select_cases(loaded, case_ids, tags)
    indexes = IndexCache(index_dir or out_dir / "index")
    settings = config or (RetrieverConfig.load(config_path) if config_path else RetrieverConfig())
    with GitRepo(repo_path) as git:
        say_warnings(suite, git, log)
        index_revisions(
            git,
            suite.revisions,
            indexes.root,
            policy_path=policy_path,
            embedder=embedder,
            repository_name=suite.repository_name,
            progress=progress,
            log=log,
        )
        attempts = retrieve_suite(
            suite,
            indexes,
            git=git,
            settings=settings,
            retriever_name=retriever_name,
            embedder=embedder,
            repeat=repeat,
            progress=progress,
            assume_revision=assume_revision,
        )
        scored = score(
            suite,
            lambda: attempts,
            diagnosis=lambda: diagnosis_context(git, indexes),
            mode="live",
            selection=selection,
            owners=suite_owners(suite, git, policy_path),
        )
    summary = write_run(out_dir, scored, attempts=attempts)
    return RunOutput(summary, scored.records, indexes.loads)


def eval_pipeline(
    *,
    cases_path: Path,
    attempts_path: Path,
    out_dir: Path,
    repo_path: Path | None = None,
    index_dir: Path | None = None,
    progress: Progress | None = None,
    log: Log | None = None,
    assume_revision: str | None = None,
    case_ids: Sequence[str] = (),
    tags: Sequence[str] = (),
    policy_path: Path | None = None,
    workers: int = 0,
    attempts_digest: Callable[[], str] | None = None,
) -> RunOutput:
    """Score recorded attempts (of every case, or of the cases ``case_ids`` and
    ``tags`` select); with a repository (its indexes built when missing) or an index
    root, diagnose the failures too. Writes results.json and summary.json.

    With a repository, minimal chunks (SPEC §2) are resolved against codegold's parse
    of each file at the attempt's revision; ``assume_revision`` stands in for a missing
    index manifest, and the results say that revision was asserted. ``workers``
    processes score a large attempts file when nothing diagnoses (0: two when the
    machine has a core to spare, 1: this process alone); the artifacts are the same
    either way. ``attempts_digest`` gives the attempts file's sha256 when the caller
    started hashing it already (:func:`~codegold._digest.digest_meanwhile`)."""
    ensure_output_dir(out_dir)
    with quiet_gc():
        return _eval(
            cases_path=cases_path,
            attempts_path=attempts_path,
            out_dir=out_dir,
            repo_path=repo_path,
            index_dir=index_dir,
            progress=progress,
            log=log,
            assume_revision=assume_revision,
            case_ids=case_ids,
            tags=tags,
            policy_path=policy_path,
            workers=workers,
            attempts_digest=attempts_digest,
        )


def _eval(
    *,
    cases_path: Path,
    attempts_path: Path,
    out_dir: Path,
    repo_path: Path | None,
    index_dir: Path | None,
    progress: Progress | None,
    log: Log | None,
    assume_revision: str | None,
    case_ids: Sequence[str],
    tags: Sequence[str],
    policy_path: Path | None,
    workers: int,
    attempts_digest: Callable[[], str] | None,
) -> RunOutput:
    digest = attempts_digest or digest_meanwhile(attempts_path)
    full = load_suite(cases_path)
    known = frozenset(c.id for c in full.cases)
    suite, selection = select_cases(full, case_ids, tags)
    diagnose = repo_path is not None or index_dir is not None
    indexes: IndexCache | None = None
    if diagnose:  # only diagnosis reads codegold's own indexes
        from codegold.index.store import IndexCache

        indexes = IndexCache(index_dir or out_dir / "index")
    with ExitStack() as stack:
        git: GitRepo | None = None
        resolver = None
        if repo_path is not None:
            from codegold.corpus.git import GitRepo
            from codegold.resolve import SpanResolver

            git = stack.enter_context(GitRepo(repo_path))
            resolver = SpanResolver.from_git(git)
        say_warnings(suite, git, log)

        def attempts() -> Iterable[Attempt]:
            return iter_attempts(
                attempts_path,
                known_cases=known,
                resolver=resolver,
                assume_revision=assume_revision,
            )

        def diagnosis() -> DiagnosisContext:
            assert indexes is not None
            if git is None:
                return diagnosis_context(None, indexes)
            from codegold.pipeline.indexing import index_revisions

            index_revisions(
                git,
                suite.revisions,
                indexes.root,
                repository_name=suite.repository_name,
                progress=progress,
                log=log,
            )
            return diagnosis_context(git, indexes)

        owners = suite_owners(suite, git, policy_path)
        # two processes may score the file when nothing but scoring reads it
        split = (
            SplitSource(attempts_path, known, assume_revision, workers)
            if resolver is None and not diagnose and not owners
            else None
        )
        summary, records = stream_run(
            out_dir,
            suite,
            attempts,
            diagnosis=diagnosis if diagnose else None,
            attempts_digest=digest,
            selection=selection,
            owners=owners,
            split=split,
        )
    return RunOutput(summary, records, indexes.loads if indexes is not None else 0)
