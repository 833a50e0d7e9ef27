"""The terminal summary at 80 columns, and progress that finishes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from codegold.cli._progress import rate_text
from tests.conftest import ROOT


def _report(run_dir: Path, columns: int) -> str:
    env = {**os.environ, "NO_COLOR": "1", "CODEGOLD_QUIET_PROGRESS": "1", "COLUMNS": str(columns)}
    env.pop("CI", None)
    proc = subprocess.run(
        [sys.executable, "-m", "codegold", "report", str(run_dir)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return proc.stdout


def test_at_80_columns_failures_come_first_and_no_slice_name_is_cut(
    run_dir: Path, run_summary: dict[str, Any]
) -> None:
    text = _report(run_dir, 80)
    lines = text.splitlines()
    assert text.index("FAIL ") < text.index("codegold: retrieval at the production cutoff")
    for name in run_summary["slices"]:
        assert any(line.startswith(name + " ") for line in lines), name
    table = lines[next(i for i, ln in enumerate(lines) if ln.startswith("codegold: retrieval")) :]
    assert all(len(line) <= 80 for line in table)
    assert "…" not in "\n".join(table)
    header = next(ln for ln in table if ln.startswith("slice"))
    # the important columns first
    assert header.split()[:3] == ["slice", "cases", "pass"]
    wide = _report(run_dir, 200)
    assert "not shown at" not in wide and "nDCG" in wide


def test_rate_text() -> None:
    assert rate_text(None) == "-/s"
    assert rate_text(0.5) == "30.0/min"
    assert rate_text(12.34) == "12.3/s"
    assert rate_text(1234.0) == "1,234/s"


def test_the_chunking_stage_reports_its_end_when_few_files_are_left(tmp_path: Path) -> None:
    from codegold.corpus.git import GitRepo
    from codegold.pipeline.indexing import index_revisions

    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    git("init", "-q")
    for i in range(7):
        (repo / f"m{i}.py").write_text(f"def f{i}():\n    return {i}\n")
    git("add", ".")
    git("commit", "-qm", "one")
    sha = git("rev-parse", "HEAD")
    seen: list[tuple[str, int, int]] = []
    with GitRepo(repo) as g:
        index_revisions(
            g, [sha], tmp_path / "idx", embedder=None, progress=lambda *a: seen.append(a)
        )
    chunking = [(d, t) for s, d, t in seen if s == "chunking"]
    assert chunking and chunking[-1] == (7, 7)
