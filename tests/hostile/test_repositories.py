"""Hostile and damaged repositories: real git objects, real index builds, real CLI runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegold._lines import split_lines
from codegold.corpus.git import GitRepo
from codegold.corpus.inventory import build_inventory
from codegold.corpus.model import FileStatus
from codegold.corpus.policy import load_policy
from codegold.index.build import build_index
from codegold.index.store import open_index
from tests.conftest import run_cli
from tests.hostile.repos import LFS_POINTER, drop_blob, hostile_repo

OK = b"def helper():\n    return 1\n"
GONE = b"def vanished():\n    return 2\n"
LATIN1 = b"def cafe_total():\n    return 3\n"

HOSTILE = {
    b"src/ok.py": OK,
    b"../escape.py": b"def escape():\n    pass\n",
    b"sub/../up.py": b"def up():\n    pass\n",
    b".git/hooks/post.py": b"def hook():\n    pass\n",
    b"pkg/.GIT/x.py": b"def upper_git():\n    pass\n",
    b"src/caf\xe9.py": LATIN1,
    b"src/gone.py": GONE,
    b"models/weights.py": LFS_POINTER,
}


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, str]:
    repo, sha = hostile_repo(tmp_path, HOSTILE)
    drop_blob(repo, GONE)
    return repo, sha


def _inventory(repo: Path, sha: str) -> dict[str, tuple[FileStatus, str | None]]:
    with GitRepo(repo) as git:
        policy = load_policy(repo=git, revision=sha)
        inv = build_inventory(git, sha, policy)
    return {e.path: (e.status, e.rule) for e in inv.entries}


def test_unsafe_tree_entries_are_excluded_with_their_reason(hostile: tuple[Path, str]) -> None:
    found = _inventory(*hostile)
    assert found["../escape.py"] == (FileStatus.EXCLUDED, "unsafe-path:..-component")
    assert found["sub/../up.py"] == (FileStatus.EXCLUDED, "unsafe-path:..-component")
    assert found[".git/hooks/post.py"] == (FileStatus.EXCLUDED, "unsafe-path:.git-component")
    assert found["pkg/.GIT/x.py"] == (FileStatus.EXCLUDED, "unsafe-path:.git-component")


def test_missing_blob_is_unreadable_and_the_rest_builds(
    hostile: tuple[Path, str], tmp_path: Path
) -> None:
    repo, sha = hostile
    with GitRepo(repo) as git:
        entry = next(e for e in git.list_files(sha) if e.path == "src/gone.py")
        assert entry.problem == "missing-object" and entry.size == 0
        manifest = build_index(
            git, sha, tmp_path / "idx", policy=load_policy(repo=git, revision=sha)
        )
    assert manifest.files_unreadable == 1
    assert manifest.lfs_pointers == 1
    loaded = open_index(tmp_path / "idx", sha)
    status = {e.path: e.status for e in loaded.inventory}
    assert status["src/gone.py"] is FileStatus.UNREADABLE
    assert status["models/weights.py"] is FileStatus.LFS_POINTER
    files = {c.file for c in loaded.chunks}
    assert files == {"src/ok.py", "src/caf\\xe9.py"}
    for chunk in loaded.chunks:
        assert not chunk.file.startswith(("../", ".git/")) and "/../" not in chunk.file


def test_non_utf8_name_is_indexed_escaped_and_read_back(hostile: tuple[Path, str]) -> None:
    repo, sha = hostile
    with GitRepo(repo) as git:
        assert git.read_path(sha, "src/caf\\xe9.py") == LATIN1
        assert git.exists(sha, "src/caf\\xe9.py")
        assert git.read_path(sha, "../escape.py") is None
        assert git.read_path(sha, ".git/hooks/post.py") is None


def test_escaped_name_that_spells_a_real_name_is_not_confused(tmp_path: Path) -> None:
    repo, sha = hostile_repo(tmp_path, {b"caf\xe9.py": b"a = 1\n", b"caf\\xe9.py": b"b = 2\n"})
    with GitRepo(repo) as git:
        assert git.read_path(sha, "caf\\xe9.py") == b"b = 2\n"
    found = _inventory(repo, sha)
    assert found["caf\\xe9.py"][0] is FileStatus.INDEXED
    assert len(found) == 1  # the escaped twin is recorded under the same (taken) name once


def test_cli_index_search_and_run_on_a_hostile_repository(
    hostile: tuple[Path, str], tmp_path: Path
) -> None:
    repo, sha = hostile
    out = tmp_path / "idx"
    done = run_cli("index", str(repo), "--out", str(out), "--embedder", "none")
    assert done.returncode == 0, done.stderr
    assert "1 files unreadable" in done.stdout and "1 Git LFS pointers" in done.stdout
    found = run_cli("search", "escape hook upper_git cafe_total", "--index", str(out))
    assert found.returncode == 0, found.stderr
    assert "../" not in found.stdout and ".git/" not in found.stdout.lower()
    assert "caf\\xe9.py" in found.stdout
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "suite: hostile\n"
        f"repository: {{name: hostile, revision: {sha}}}\n"
        "cases:\n"
        "  - id: latin1\n"
        "    query: where is cafe_total computed?\n"
        "    accepted:\n"
        '      - {file: "src/caf\\\\xe9.py", symbol: cafe_total}\n'
        "  - id: lfs\n"
        "    query: where are the model weights loaded?\n"
        "    accepted:\n"
        "      - {file: models/weights.py, symbol: load_weights}\n"
        "  - id: gone\n"
        "    query: what does vanished return?\n"
        "    accepted:\n"
        "      - {file: src/gone.py, symbol: vanished}\n"
    )
    lint = run_cli(
        "lint",
        str(suite),
        "--repo",
        str(repo),
        "--index",
        str(out),
        "--json",
        str(tmp_path / "lint.json"),
    )
    assert "Traceback" not in lint.stderr, lint.stderr
    findings = json.loads((tmp_path / "lint.json").read_text())["findings"]
    checks = {(f["caseId"], f["check"]) for f in findings}
    assert ("lfs", "lfs_pointer") in checks
    assert ("gone", "unreadable_file") in checks
    assert not any(f["check"] == "missing_symbol" for f in findings)
    lfs = next(f for f in findings if f["check"] == "lfs_pointer")
    assert "Git LFS pointer" in lfs["message"]
    run = run_cli(
        "run",
        "--cases",
        str(suite),
        "--repo",
        str(repo),
        "--out",
        str(tmp_path / "run"),
        "--embedder",
        "none",
    )
    assert run.returncode in (0, 1), run.stderr
    assert "Traceback" not in run.stderr
    results = json.loads((tmp_path / "run" / "results.json").read_text())
    by_id = {r["caseId"]: r for r in results}
    assert by_id["latin1"]["passed"] is True
    diagnosis = by_id["lfs"]["diagnosis"]
    assert diagnosis["cause"] == "excluded_by_policy"
    assert "lfs-pointer" in diagnosis["detail"]


@pytest.mark.parametrize(
    "text",
    [
        "a\fb\nc\nTARGET\n",
        "a\u2028b\nc\nTARGET\n",
        "a\u2029b\nc\nTARGET\n",
        "a\rb\nc\nTARGET\n",
        "a\x0bb\x1cc\x85d\nc\nTARGET\n",
    ],
)
def test_lines_split_as_git_splits_them(text: str) -> None:
    assert split_lines(text).index("TARGET") + 1 == 3
    assert split_lines("x\n") == ["x"] and split_lines("") == [] and split_lines("\n") == [""]


def test_bundle_excerpt_lines_follow_git(tmp_path: Path) -> None:
    from codegold.diagnose.bundle import excerpt

    text = "one\fstill one\ntwo\u2028still two\nthree\rstill three\nTARGET = 1\nfive\n"
    got = excerpt(text, (4, 4))
    shown = got["text"].split("\n")
    assert got["lines"] == [1, 5]
    assert shown[3] == "TARGET = 1"
