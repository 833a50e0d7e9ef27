"""Output-folder faults exit 3 in one line; SIGTERM cleans up like Ctrl-C."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo
from tests.hostile.faults import leftovers, popen_cli, run_cli_unprivileged

SOURCE = {"src/app.py": "def main():\n    return 1\n"}


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("faults")
    repo, shas = make_repo(root, [SOURCE])
    suite = root / "suite.yaml"
    suite.write_text(
        f"suite: f\nrepository: {{name: r, revision: {shas[0]}}}\ncases:\n"
        "  - id: c\n    query: where is main?\n    accepted: [{file: src/app.py, symbol: main}]\n"
    )
    return repo, suite


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_read_only_out_exits_3(small: tuple[Path, Path], tmp_path: Path) -> None:
    repo, suite = small
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o555)
    try:
        done = run_cli_unprivileged(
            "run",
            "--cases",
            str(suite),
            "--repo",
            str(repo),
            "--out",
            str(out),
            "--embedder",
            "none",
        )
    finally:
        out.chmod(0o755)
    assert done.returncode == 3
    line = _one_line(done.stderr)
    assert str(out) in line and "read-only" in line
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("command", ["run", "index", "eval"])
def test_out_below_a_regular_file_exits_3(
    command: str, small: tuple[Path, Path], tmp_path: Path
) -> None:
    repo, suite = small
    blocker = tmp_path / "file"
    blocker.write_text("not a folder\n")
    out = blocker / "sub"
    args = {
        "run": ["run", "--cases", str(suite), "--repo", str(repo), "--embedder", "none"],
        "index": ["index", str(repo), "--embedder", "none"],
        "eval": ["eval", "--cases", str(suite), "--attempts", str(tmp_path / "none.jsonl")],
    }[command]
    done = run_cli(*args, "--out", str(out))
    assert done.returncode == 3, done.stderr
    line = _one_line(done.stderr)
    assert str(blocker) in line and "regular file" in line
    assert blocker.read_text() == "not a folder\n"


def test_sigterm_during_index_build_leaves_no_temp_files(tmp_path: Path) -> None:
    files = {
        f"pkg{i // 100}/mod{i}.py": "".join(
            f"def f{i}_{j}(x):\n    '''doc {j}'''\n    return x + {j}\n\n" for j in range(30)
        )
        for i in range(1500)
    }
    repo, _ = make_repo(tmp_path, [files])
    out = tmp_path / "idx"
    proc = popen_cli("index", str(repo), "--out", str(out), "--embedder", "none")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if (out / "builds").is_dir() and any((out / "builds").glob(".tmp-*")):
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the build finished before it could be interrupted"
    time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 143, stderr
    assert _one_line(stderr) == "codegold: terminated"
    assert leftovers(out) == []
    assert not list((out / "builds").iterdir())
