"""Index builds: the pinned commit only, atomic switch-in, blob cache, determinism."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import msgspec

from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index.build import build_index
from codegold.index.store import IndexRoot, open_index, read_manifest
from codegold.retrieve.hybrid import HybridRetriever
from tests.corpus.gitfixture import make_repo

V1 = {
    "src/session.py": "def create_session(token):\n    '''Create a session.'''\n    return token\n",
    "src/legacy/session.py": "def create_session(token):\n    return None\n",
    "tests/test_session.py": "from src.session import create_session\n\ndef test_it():\n    assert create_session(1)\n",
    "README.md": "# demo\n\nCall create_session.\n",
}
V2 = {
    "src/session.py": "def create_session(token, ttl=60):\n    '''Create a session with a ttl.'''\n    return (token, ttl)\n",
    "src/refresh.py": "def refresh_session(session):\n    return session\n",
}


def _build(repo: Path, rev: str, root: Path) -> None:
    with GitRepo(repo) as git:
        build_index(git, rev, root, policy=PathPolicy())


def test_index_reads_the_pinned_commit_not_head_or_worktree(tmp_path: Path) -> None:
    repo, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    (repo / "src" / "session.py").write_text("def uncommitted_edit():\n    pass\n")
    (repo / "src" / "untracked.py").write_text("def untracked():\n    pass\n")
    root = tmp_path / "idx"
    _build(repo, first, root)
    index = open_index(root, first)
    assert index.manifest.repository_revision == first
    assert index.manifest.complete
    files = {c.file for c in index.chunks}
    assert "src/refresh.py" not in files  # added in the second commit
    assert "src/untracked.py" not in files
    symbols = {s for c in index.chunks for s in c.symbols}
    assert "uncommitted_edit" not in symbols
    text = next(
        c.text for c in index.chunks if c.symbol == "create_session" and c.file == "src/session.py"
    )
    assert "ttl" not in text
    assert all(c.file != "src/untracked.py" for c in index.chunks)
    del second


def test_bare_repository_and_two_revisions_share_the_cache(tmp_path: Path) -> None:
    _, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    bare, _ = make_repo(tmp_path / "b", [V1, V2], bare=True)
    root = tmp_path / "idx"
    _build(bare, first, root)
    _build(bare, second, root)
    stats = msgspec.json.decode((open_index(root, second).folder / "build.json").read_bytes())[
        "stats"
    ]
    # only src/session.py changed and src/refresh.py is new: two files chunked
    assert stats == {"filesFromCache": 3, "filesChunked": 2}
    assert sorted(IndexRoot(root).revisions()) == sorted([first, second])


def test_identical_build_is_reused_and_deterministic(tmp_path: Path) -> None:
    repo, (first, _) = make_repo(tmp_path / "r", [V1, V2])
    _build(repo, first, tmp_path / "a")
    _build(repo, first, tmp_path / "b")
    a, b = open_index(tmp_path / "a", first), open_index(tmp_path / "b", first)
    assert a.manifest.build_id == b.manifest.build_id
    assert [c.chunk_id for c in a.chunks] == [c.chunk_id for c in b.chunks]
    for query in ("create session", "what is refresh_session", "readme"):
        ra = HybridRetriever(a).search(query).ranked
        rb = HybridRetriever(b).search(query).ranked
        assert [(a.chunks[r].chunk_id, s) for r, s in ra] == [
            (b.chunks[r].chunk_id, s) for r, s in rb
        ]


def _big_repo(tmp_path: Path) -> tuple[Path, str]:
    files = {
        f"pkg/mod{i}.py": "".join(
            f"def function_{i}_{j}(value):\n    '''Docs {j}.'''\n    return value * {j}\n\n"
            for j in range(60)
        )
        for i in range(400)
    }
    repo, (sha,) = make_repo(tmp_path / "big", [files])
    return repo, sha


def test_killed_build_leaves_previous_index_usable(tmp_path: Path) -> None:
    repo, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    root = tmp_path / "idx"
    _build(repo, first, root)
    before = IndexRoot(root).current_build(first)
    big, big_sha = _big_repo(tmp_path)
    # a second, large repository into the same root: kill it mid-build
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "codegold",
            "index",
            str(big),
            "--revision",
            big_sha,
            "--out",
            str(root),
            "--embedder",
            "none",
        ],
        env={**os.environ, "CODEGOLD_QUIET_PROGRESS": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    builds = root / "builds"
    while time.monotonic() < deadline and not any(builds.glob(".tmp-*")):
        time.sleep(0.01)
    time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    tmp_dirs = list(builds.glob(".tmp-*"))
    assert tmp_dirs, "the build should have been killed while in progress"
    assert all(read_manifest(d) is None for d in tmp_dirs)  # never looks complete
    assert IndexRoot(root).current_build(big_sha) is None
    assert IndexRoot(root).current_build(first) == before
    assert open_index(root, first).manifest.complete
    # the next build cleans the debris and succeeds
    _build(repo, second, root)
    assert not list(builds.glob(".tmp-*"))


def test_a_build_in_progress_beside_this_one_is_not_cleaned_away(tmp_path: Path) -> None:
    """Two runs sharing an index root: one must not delete the other's half-built folder."""
    repo, (first, second) = make_repo(tmp_path / "r", [V1, V2])
    root = tmp_path / "idx"
    _build(repo, first, root)
    builds = root / "builds"
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        live = builds / f".tmp-elsewhere-{other.pid}"
        live.mkdir()
        _build(repo, second, root)
        assert live.is_dir(), "a live builder's folder was removed"
    finally:
        other.kill()
        other.wait()
    IndexRoot(root).clean_stale_tmp()  # what the next build does first
    assert not live.exists(), "a dead builder's debris stayed"
