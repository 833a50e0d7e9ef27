"""The per-revision index step: build (or reuse) codegold's index of one revision."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from codegold.corpus.git import GitRepo
from codegold.corpus.policy import load_policy
from codegold.index.build import BuildOptions, build_index, describe_manifest
from codegold.index.embed import resolve_embedder
from codegold.index.manifest import IndexManifest

Progress = Callable[[str, int, int], None]
Log = Callable[[str], None]


def index_revisions(
    git: GitRepo,
    revisions: Sequence[str],
    root: Path,
    *,
    policy_path: Path | None = None,
    embedder: Any = None,
    repository_name: str | None = None,
    progress: Progress | None = None,
    log: Log | None = None,
) -> list[IndexManifest]:
    """Build every revision's index under ``root`` that is not already there (a build
    whose inputs match is reused); the manifests, in ``revisions`` order."""
    manifests: list[IndexManifest] = []
    for revision in revisions:
        sha = git.resolve(revision)
        policy = load_policy(repo=git, revision=sha, config_path=policy_path)
        options = BuildOptions(embedder=embedder, repository_name=repository_name)
        manifest = build_index(git, sha, root, policy=policy, options=options, progress=progress)
        if log is not None:
            log(f"index: {describe_manifest(manifest)}")
        manifests.append(manifest)
    return manifests


def index_revision(
    repo_path: str | Path,
    revision: str,
    index_root: str | Path,
    *,
    policy_path: str | Path | None = None,
    embedder: str = "none",
    repository_name: str | None = None,
) -> IndexManifest:
    """:func:`index_revisions` for one revision, from plain values only (paths, an
    embedder spec as ``--embedder`` takes it), for executors that ship work elsewhere."""
    with GitRepo(Path(repo_path)) as git:
        return index_revisions(
            git,
            [revision],
            Path(index_root),
            policy_path=Path(policy_path) if policy_path is not None else None,
            embedder=resolve_embedder(embedder),
            repository_name=repository_name,
        )[0]
