"""The command line's start-up settings, checked in fresh interpreters."""

from __future__ import annotations

import os
import subprocess
import sys

PROBE = """
import os, sys
{before}
from codegold.cli.main import _one_blas_thread
_one_blas_thread()
print(os.environ.get("OPENBLAS_NUM_THREADS"))
"""


def _probe(before: str = "", **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    clean.update(env)
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(before=before)],
        env=clean,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_the_cli_asks_openblas_for_one_thread_before_numpy_starts() -> None:
    assert _probe() == "1"


def test_a_thread_count_the_user_set_wins() -> None:
    assert _probe(OPENBLAS_NUM_THREADS="3") == "3"


def test_a_numpy_already_imported_is_left_alone() -> None:
    assert _probe(before="import numpy") == "None"
