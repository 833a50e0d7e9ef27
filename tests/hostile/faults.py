"""Run the real CLI under environment faults: a folder this process may not write
(even as root, by dropping the capabilities that bypass file permissions)."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

_CAPS_BYPASSING_PERMISSIONS = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
_PR_CAPBSET_DROP = 24


def _drop_caps() -> None:  # pragma: no cover - runs in the child
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in _CAPS_BYPASSING_PERMISSIONS:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def cli_env() -> dict[str, str]:
    return {**os.environ, "NO_COLOR": "1", "CODEGOLD_QUIET_PROGRESS": "1"}


def run_cli_unprivileged(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`codegold ARGS` that file permissions apply to, whoever runs the tests."""
    return subprocess.run(
        [sys.executable, "-m", "codegold", *args],
        cwd=cwd or ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=_drop_caps if os.geteuid() == 0 else None,
    )


def popen_cli(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "codegold", *args],
        cwd=ROOT,
        env=cli_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def leftovers(folder: Path) -> list[Path]:
    """Temp files or half-built folders left under ``folder``."""
    return sorted(
        p
        for p in folder.rglob("*")
        if p.name.endswith(".tmp") or p.name.startswith((".tmp-", ".codegold-probe"))
    )
