"""GitRepo reads the pinned commit from git objects, never the working tree."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from codegold.corpus import MODE_GITLINK, MODE_SYMLINK, GitRepo
from codegold.errors import EnvironmentProblem, InputError
from tests.corpus.gitfixture import Content, Gitlink, Symlink, git, make_repo

COMMITS: list[dict[str, Content]] = [
    {"src/app.py": "VERSION = 1\n", "README.md": "# demo\n", "old.py": "gone = True\n"},
    {"src/app.py": "VERSION = 2\n", "src/new.py": "NEW = True\n", "old.py": None},
]


@pytest.fixture
def history(tmp_path: Path) -> tuple[Path, list[str]]:
    """Two commits, then uncommitted, staged and untracked changes in the work tree."""
    path, shas = make_repo(tmp_path, COMMITS)
    (path / "src" / "app.py").write_text("VERSION = 'uncommitted'\n")
    (path / "untracked.py").write_text("LEAK = True\n")
    (path / "staged.py").write_text("STAGED = True\n")
    git(path, "add", "staged.py")
    (path / "README.md").unlink()
    return path, shas


def test_fixture_shas_are_stable(tmp_path: Path) -> None:
    _, first = make_repo(tmp_path, COMMITS, name="one")
    _, second = make_repo(tmp_path, COMMITS, name="two")
    assert first == second


def test_lists_and_reads_the_pinned_commit_not_head_or_work_tree(
    history: tuple[Path, list[str]],
) -> None:
    path, (first, second) = history
    with GitRepo(path) as repo:
        assert not repo.is_bare
        assert [f.path for f in repo.list_files(first)] == ["README.md", "old.py", "src/app.py"]
        assert [f.path for f in repo.list_files("HEAD")] == [
            "README.md",
            "src/app.py",
            "src/new.py",
        ]
        assert repo.read_path(first, "src/app.py") == b"VERSION = 1\n"
        assert repo.read_path(second, "src/app.py") == b"VERSION = 2\n"
        assert repo.read_path(second, "old.py") is None
        assert repo.read_path(second, "untracked.py") is None
        assert repo.read_path(second, "staged.py") is None
        assert repo.exists(second, "README.md")  # deleted only in the work tree
        assert not repo.exists(second, "staged.py")
        assert repo.exists(first, "old.py") and not repo.exists(second, "old.py")


def test_file_entries_carry_blob_size_and_mode(tmp_path: Path) -> None:
    path, _ = make_repo(tmp_path, [{"a.txt": "hello\n"}])
    with GitRepo(path) as repo:
        (entry,) = repo.list_files("HEAD")
        blob = git(path, "rev-parse", "HEAD:a.txt")
        assert (entry.path, entry.blob, entry.size, entry.mode) == ("a.txt", blob, 6, "100644")


def test_bare_repository(tmp_path: Path) -> None:
    path, (first, second) = make_repo(tmp_path, COMMITS, bare=True)
    with GitRepo(path) as repo:
        assert repo.is_bare
        assert repo.resolve("main") == second
        assert repo.read_path(first, "old.py") == b"gone = True\n"
        assert [f.path for f in repo.list_files(second)] == [
            "README.md",
            "src/app.py",
            "src/new.py",
        ]
        assert dict(repo.read_blobs([f.blob for f in repo.list_files(first)]))


def test_resolve_names_to_full_commit_ids(tmp_path: Path) -> None:
    path, (first, second) = make_repo(tmp_path, COMMITS)
    git(path, "tag", "-a", "v1", first, "-m", "annotated")
    with GitRepo(path) as repo:
        assert repo.resolve("HEAD") == second
        assert repo.resolve("main~1") == first
        assert repo.resolve(first[:10]) == first
        assert repo.resolve("v1") == first  # peeled through the annotated tag


@pytest.mark.parametrize(
    "rev",
    ["no-such-branch", "0" * 40, "-h", "HEAD~5", "HEAD:src/app.py", "", "a\nb"],
    ids=["branch", "absent-sha", "option-like", "too-far", "blob", "empty", "newline"],
)
def test_unknown_revision_is_an_input_error(tmp_path: Path, rev: str) -> None:
    path, _ = make_repo(tmp_path, COMMITS)
    with GitRepo(path) as repo, pytest.raises(InputError) as caught:
        repo.resolve(rev)
    message = str(caught.value)
    assert "unknown revision" in message
    assert repr(rev) in message
    assert str(path) in message


def test_empty_repository_has_no_head(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    git(tmp_path / "empty", "init", "-q")
    with GitRepo(tmp_path / "empty") as repo, pytest.raises(InputError, match="unknown revision"):
        repo.list_files("HEAD")


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a readable git repository"):
        GitRepo(tmp_path)
    with pytest.raises(InputError, match="not a directory"):
        GitRepo(tmp_path / "missing")


def test_missing_git_is_an_environment_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("shutil.which", lambda _name: None)
    with pytest.raises(EnvironmentProblem, match="git is not installed"):
        GitRepo(tmp_path)


def test_git_environment_of_a_hook_does_not_redirect_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, (_, second) = make_repo(tmp_path, COMMITS, name="target")
    other, _ = make_repo(tmp_path, [{"other.py": "x = 1\n"}], name="other")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    with GitRepo(path) as repo:
        assert repo.resolve("HEAD") == second
        assert repo.read_path("HEAD", "src/new.py") == b"NEW = True\n"


def test_symlinks_are_listed_with_their_mode_and_submodules_skipped(tmp_path: Path) -> None:
    path, _ = make_repo(
        tmp_path,
        [{"real.py": "x = 1\n", "link.py": Symlink("real.py"), "lib": Gitlink("1" * 40)}],
    )
    with GitRepo(path) as repo:
        files = {f.path: f for f in repo.list_files("HEAD")}
        assert set(files) == {"real.py", "link.py"}
        assert files["link.py"].mode == MODE_SYMLINK
        assert repo.read_path("HEAD", "link.py") == b"real.py"
        with_subs = {f.path: f for f in repo.list_files("HEAD", submodules=True)}
        assert with_subs["lib"].mode == MODE_GITLINK
        assert with_subs["lib"].blob == "1" * 40
        assert with_subs["lib"].size == 0
        assert not repo.exists("HEAD", "lib")


def test_read_path_rejects_directories_and_relative_paths(tmp_path: Path) -> None:
    path, _ = make_repo(tmp_path, COMMITS)
    with GitRepo(path) as repo:
        assert repo.read_path("HEAD", "src") is None
        assert not repo.exists("HEAD", "src")
        for odd in ("", "./src/app.py", "../src/app.py", "/src/app.py"):
            assert repo.read_path("HEAD", odd) is None
            assert not repo.exists("HEAD", odd)


def test_unusual_file_names(tmp_path: Path) -> None:
    names = ["sp ace.py", "ünï.py", "tab\tname.py", "new\nline.py", 'quote".py']
    path, _ = make_repo(tmp_path, [{n: f"# {i}\n" for i, n in enumerate(names)}])
    with GitRepo(path) as repo:
        assert sorted(f.path for f in repo.list_files("HEAD")) == sorted(names)
        for i, name in enumerate(names):
            assert repo.read_path("HEAD", name) == f"# {i}\n".encode()
            assert repo.exists("HEAD", name)


def test_read_blobs_streams_in_order_without_deadlock(tmp_path: Path) -> None:
    # Far more than a pipe holds in both directions.
    files = {f"f{i:03}.txt": f"{i}\n".encode() * 20_000 for i in range(120)}
    path, _ = make_repo(tmp_path, [files])
    with GitRepo(path) as repo:
        entries = repo.list_files("HEAD")
        shas = [e.blob for e in entries] + [entries[0].blob]  # a repeat is served again
        got = list(repo.read_blobs(shas))
        assert [sha for sha, _ in got] == shas
        assert [data for _, data in got[:-1]] == [files[e.path] for e in entries]
        assert got[-1][1] == files[entries[0].path]


def test_abandoned_read_blobs_does_not_poison_later_reads(tmp_path: Path) -> None:
    files = {f"f{i}.txt": f"{i}\n" * 5_000 for i in range(50)}
    path, _ = make_repo(tmp_path, [files])
    with GitRepo(path) as repo:
        entries = repo.list_files("HEAD")
        stream = repo.read_blobs(e.blob for e in entries)
        next(stream)
        stream.close()
        assert repo.read_path("HEAD", "f7.txt") == files["f7.txt"].encode()
        assert len(list(repo.read_blobs(e.blob for e in entries))) == 50


def test_nested_reads_while_streaming(tmp_path: Path) -> None:
    path, _ = make_repo(tmp_path, [{f"f{i}.txt": f"{i}\n" for i in range(5)}])
    with GitRepo(path) as repo:
        entries = repo.list_files("HEAD")
        for (_, data), entry in zip(repo.read_blobs(e.blob for e in entries), entries, strict=True):
            assert repo.read_path("HEAD", entry.path) == data


def test_missing_object_is_reported(tmp_path: Path) -> None:
    path, _ = make_repo(tmp_path, COMMITS)
    with GitRepo(path) as repo, pytest.raises(InputError, match="missing"):
        list(repo.read_blobs(["0" * 40]))


def test_concurrent_readers(tmp_path: Path) -> None:
    files = {f"f{i}.txt": f"{i}\n" * 1_000 for i in range(40)}
    path, _ = make_repo(tmp_path, [files])
    errors: list[BaseException] = []
    with GitRepo(path) as repo:
        entries = repo.list_files("HEAD")

        def read() -> None:
            try:
                for _ in range(5):
                    got = dict(repo.read_blobs(e.blob for e in entries))
                    assert [got[e.blob] for e in entries] == [
                        files[e.path].encode() for e in entries
                    ]
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)

        threads = [threading.Thread(target=read) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []


def test_commit_time_and_ancestry(tmp_path: Path) -> None:
    path, (first, second) = make_repo(tmp_path, COMMITS)
    with GitRepo(path) as repo:
        assert repo.commit_time(first) == datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)
        assert repo.commit_time(second) == datetime(2023, 11, 14, 22, 14, 20, tzinfo=UTC)
        assert repo.is_ancestor(first, second)
        assert not repo.is_ancestor(second, first)
        assert repo.is_ancestor(second, second)
        with pytest.raises(InputError):
            repo.is_ancestor("nope", second)


def test_attributes_at_the_revision_only(tmp_path: Path) -> None:
    path, (first, second) = make_repo(
        tmp_path,
        [
            {".gitattributes": "*.pb.go linguist-generated\n", "a.pb.go": "package a\n"},
            {".gitattributes": "# nothing\n"},
        ],
    )
    (path / ".gitattributes").write_text("*.pb.go -linguist-generated\n")  # uncommitted
    with GitRepo(path) as repo:
        assert repo.attributes(first).lookup("a.pb.go")["linguist-generated"].value is True
        assert "linguist-generated" not in repo.attributes(second).lookup("a.pb.go")
