"""Hostile git repositories, written with git's plumbing (``hash-object``, ``mktree``,
``commit-tree``) so that they hold what ``git add`` would refuse: tree entries named
``..`` or ``.git``, names that are not UTF-8, blobs missing from the object database.

::

    repo, sha = hostile_repo(tmp_path, {b"ok.py": b"...", b"../evil.py": b"..."})
    drop_blob(repo, b"...")          # make a blob missing (ls-tree -l prints BAD)

Paths are bytes, split on ``/`` into nested trees; every component is stored as is.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

from tests.corpus.gitfixture import GIT_ENV, git

__all__ = ["LFS_POINTER", "drop_blob", "hostile_repo"]

LFS_POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345\n"
)


def _plumb(repo: Path, args: list[str], data: bytes) -> str:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    done = subprocess.run(
        ["git", "-C", str(repo), *args], input=data, capture_output=True, env=env, check=True
    )
    return done.stdout.decode("ascii").strip()


def _blob(repo: Path, content: bytes) -> str:
    return _plumb(repo, ["hash-object", "-w", "--stdin"], content)


def _tree(repo: Path, files: Mapping[bytes, bytes]) -> str:
    here: dict[bytes, bytes] = {}
    below: dict[bytes, dict[bytes, bytes]] = {}
    for path, content in files.items():
        head, sep, rest = path.partition(b"/")
        if sep:
            below.setdefault(head, {})[rest] = content
        else:
            here[head] = content
    lines = [b"100644 blob " + _blob(repo, c).encode() + b"\t" + n for n, c in here.items()]
    lines += [b"040000 tree " + _tree(repo, sub).encode() + b"\t" + n for n, sub in below.items()]
    return _plumb(repo, ["mktree", "-z"], b"".join(line + b"\0" for line in lines))


def hostile_repo(
    root: Path, files: Mapping[bytes, bytes], *, name: str = "hostile"
) -> tuple[Path, str]:
    """A repository whose ``main`` is one commit of exactly ``files``; returns (repo, sha)."""
    repo = root / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    tree = _tree(repo, files)
    env = {"GIT_AUTHOR_DATE": "@1700000000 +0000", "GIT_COMMITTER_DATE": "@1700000000 +0000"}
    sha = git(repo, "commit-tree", tree, "-m", "hostile", env=env)
    git(repo, "update-ref", "refs/heads/main", sha)
    git(repo, "symbolic-ref", "HEAD", "refs/heads/main")
    return repo, sha


def drop_blob(repo: Path, content: bytes) -> str:
    """Delete the loose object holding ``content``: the tree still names it."""
    oid = _plumb(repo, ["hash-object", "--stdin"], content)
    (repo / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    return oid
