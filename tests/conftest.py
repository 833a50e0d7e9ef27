from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files (chunking fixtures) instead of comparing against them",
    )


def run_cli(
    *args: str, cwd: Path | None = None, check: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run the real `codegold` command line in a subprocess."""
    env = {**os.environ, "NO_COLOR": "1", "CODEGOLD_QUIET_PROGRESS": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "codegold", *args],
        cwd=cwd or ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if check and proc.returncode != 0:
        raise AssertionError(
            f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    return proc


@pytest.fixture
def cli() -> object:
    return run_cli
