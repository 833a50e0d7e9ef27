"""Build real git repositories with stable SHAs, for tests of any codegold module.

::

    from tests.corpus.gitfixture import make_repo, Symlink

    repo, shas = make_repo(tmp_path, [
        {"src/app.py": "def main(): ...\n", "README.md": "# demo\n"},
        {"src/app.py": "def main():\n    return 1\n", "README.md": None},  # None deletes
    ])

Every commit has a fixed author, committer and date (one minute apart), and git runs
with the user's and the system's configuration ignored, so the same commits give the
same SHAs on every machine. ``bare=True`` returns a bare clone instead of the working
repository.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["GIT_ENV", "Content", "Gitlink", "Symlink", "git", "make_repo"]

_BASE_DATE = 1_700_000_000  # 2023-11-14T22:13:20Z

GIT_ENV: dict[str, str] = {
    "GIT_AUTHOR_NAME": "Codegold Fixture",
    "GIT_AUTHOR_EMAIL": "fixture@codegold.invalid",
    "GIT_COMMITTER_NAME": "Codegold Fixture",
    "GIT_COMMITTER_EMAIL": "fixture@codegold.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "LC_ALL": "C",
}


@dataclass(frozen=True)
class Symlink:
    """A symlink to commit (its target, as git stores it)."""

    target: str


@dataclass(frozen=True)
class Gitlink:
    """A submodule entry (mode 160000) pinning ``commit``; no .gitmodules is written."""

    commit: str


Content = str | bytes | Symlink | Gitlink | None


def git(repo: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    """Run git in ``repo`` with the fixture's isolated environment; return stdout."""
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    if env:
        full_env |= env
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        env=full_env,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {done.stderr.decode()}")
    return done.stdout.decode("utf-8", "surrogateescape").strip()


def _write(root: Path, path: str, content: str | bytes | Symlink | None) -> None:
    target = root / path
    if content is None:
        if target.is_symlink() or target.exists():
            target.unlink()
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.is_symlink() or target.exists():
        target.unlink()
    if isinstance(content, Symlink):
        target.symlink_to(content.target)
    elif isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_bytes(content.encode("utf-8"))


def make_repo(
    root: Path,
    commits: Sequence[Mapping[str, Content]],
    *,
    bare: bool = False,
    name: str = "repo",
    messages: Sequence[str] | None = None,
) -> tuple[Path, list[str]]:
    """Create ``root/name`` with one commit per mapping of path -> content.

    Content is ``str`` (UTF-8), ``bytes``, :class:`Symlink`, :class:`Gitlink`, or
    ``None`` to delete the path. Returns the repository (a bare clone at ``root/name.git`` when
    ``bare``) and the commit SHAs in order. The branch is ``main``.
    """
    work = root / name
    work.mkdir(parents=True)
    git(work, "init", "-q")
    git(work, "symbolic-ref", "HEAD", "refs/heads/main")
    git(work, "config", "core.autocrlf", "false")
    git(work, "config", "core.symlinks", "true")
    shas: list[str] = []
    for index, files in enumerate(commits):
        for path, content in files.items():
            if not isinstance(content, Gitlink):
                _write(work, path, content)
        git(work, "add", "-A")
        for path, content in files.items():
            if isinstance(content, Gitlink):
                # An empty directory is how an uninitialised submodule looks, so
                # later `git add -A` calls keep the entry.
                (work / path).mkdir(parents=True, exist_ok=True)
                git(work, "update-index", "--add", "--cacheinfo", f"160000,{content.commit},{path}")
        stamp = f"@{_BASE_DATE + 60 * index} +0000"
        message = messages[index] if messages else f"commit {index}"
        git(
            work,
            "commit",
            "-q",
            "--allow-empty",
            "--no-verify",
            "-m",
            message,
            env={"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp},
        )
        shas.append(git(work, "rev-parse", "HEAD"))
    if bare:
        clone = root / f"{name}.git"
        git(root, "clone", "-q", "--bare", str(work), str(clone))
        return clone, shas
    return work, shas
