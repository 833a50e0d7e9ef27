"""`lint` as a library function: check suites' labels at their revisions against
codegold's index (built where missing), and plan their move to another revision."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from codegold.cases import load_suite
from codegold.cases.suite import Suite
from codegold.chunking import chunker_version
from codegold.corpus.git import GitRepo
from codegold.errors import InputError
from codegold.index.store import IndexCache, LoadedIndex
from codegold.lint import (
    LintReport,
    Migration,
    lint_suites,
    plan_migration,
    proposal_path,
    read_suite_file,
    render_proposal,
)
from codegold.pipeline.indexing import Log, Progress, index_revisions


@dataclass(frozen=True)
class LintRun:
    """The findings, and with a target revision each suite's migration, the proposed
    suite's text and where it goes (in suite order)."""

    suites: list[Suite]
    report: LintReport
    migrations: list[Migration]
    outputs: list[Path]
    proposals: list[str]


def lint_pipeline(
    suite_paths: Sequence[Path],
    repo_path: Path,
    index_dir: Path,
    *,
    to_revision: str | None = None,
    out_path: Path | None = None,
    force: bool = False,
    progress: Progress | None = None,
    log: Log | None = None,
) -> LintRun:
    """Lint ``suite_paths`` together; with ``to_revision``, plan each onto it. Writes
    nothing but missing index builds."""
    loaded = [load_suite(p) for p in suite_paths]
    with GitRepo(repo_path) as git:
        target = git.resolve(to_revision) if to_revision is not None else None
        outputs = (
            _proposal_outputs(suite_paths, target, out_path, force=force)
            if target is not None
            else []
        )
        revisions = sorted({git.resolve(c.revision) for s in loaded for c in s.cases})
        names = {s.repository_name for s in loaded if s.repository_name}
        indexes = open_indexes(
            git,
            sorted({*revisions, *([target] if target else [])}),
            index_dir,
            repository_name=next(iter(sorted(names)), None),
            progress=progress,
            log=log,
        )

        def read_text(revision: str, path: str) -> str | None:
            data = git.read_path(revision, path)
            return data.decode("utf-8", errors="replace") if data is not None else None

        report = lint_suites(loaded, indexes, read_text)
        migrations = []
        if target is not None:
            migrations = [
                plan_migration(s, target, indexes, read_text, git.renames) for s in loaded
            ]
    by_path = {s.path: s for s in loaded}
    texts = [render_proposal(by_path[m.suite], read_suite_file(m.suite), m) for m in migrations]
    return LintRun(loaded, report, migrations, outputs, texts)


def open_indexes(
    git: GitRepo,
    revisions: list[str],
    root: Path,
    *,
    repository_name: str | None,
    progress: Progress | None = None,
    log: Log | None = None,
) -> dict[str, LoadedIndex]:
    """The index of each revision under ``root``: an existing build, or a new one."""
    cache = IndexCache(root)
    current = chunker_version()
    # An index built by another chunker names symbols differently: lint would report
    # labels the current chunker finds as missing, so such a build is rebuilt.
    missing = [
        revision
        for revision in revisions
        if (found := cache.find(revision)) is None or found.manifest.chunker_version != current
    ]
    if missing:
        index_revisions(
            git, missing, root, repository_name=repository_name, progress=progress, log=log
        )
        for revision in missing:
            cache.forget(revision)
    return {revision: cache.get(revision) for revision in revisions}


def _proposal_outputs(
    suite_paths: Sequence[Path], target: str, out_path: Path | None, *, force: bool
) -> list[Path]:
    outputs: list[Path] = []
    for path in suite_paths:
        out = out_path or proposal_path(path, target)
        if out.exists() and out.resolve() == path.resolve():
            raise InputError("the proposed suite would overwrite the original", file=str(out))
        if out.exists() and not force:
            raise InputError(
                "a proposed suite is already there (pass --force to replace it)",
                file=str(out),
            )
        outputs.append(out)
    return outputs
