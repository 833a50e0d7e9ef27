"""A real on-disk index of one commit holding ``files``, for the retriever's tests."""

from __future__ import annotations

from pathlib import Path

from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index.build import BuildOptions, build_index
from codegold.index.store import LoadedIndex, open_index
from tests.corpus.gitfixture import make_repo


def index_files(tmp_path: Path, files: dict[str, str], embedder: object = None) -> LoadedIndex:
    """Commit ``files`` to a new repository under ``tmp_path`` and index that commit
    (with ``embedder``'s vectors when one is given)."""
    repo, (sha,) = make_repo(tmp_path / "r", [files])
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy(), options=BuildOptions(embedder=embedder))
    return open_index(root, sha)
