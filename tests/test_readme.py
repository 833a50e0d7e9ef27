"""The README's two commands stay true."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, run_cli

README = (ROOT / "README.md").read_text()


def _code_blocks() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", README, flags=re.S)


def test_quick_start_has_exactly_the_two_commands() -> None:
    blocks = _code_blocks()
    assert blocks[1].strip() == "bash .ci/run"
    assert (ROOT / ".ci" / "run").exists()
    assert "codegold run" in blocks[0]


def test_quick_start_main_command_runs(tmp_path: Path) -> None:
    """Everything after the install step, run in a scratch copy of the examples."""
    shutil.copytree(
        ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    steps = [s.strip() for s in _code_blocks()[0].split("&&")]
    runnable = [s for s in steps if not s.startswith(("python3 -m venv", ".", "pip install"))]
    assert [s.split()[0] for s in runnable] == ["python", "codegold"]
    for step in runnable:
        argv = shlex.split(step)
        if argv[0] == "python":
            proc = subprocess.run(
                [sys.executable, *argv[1:]], cwd=tmp_path, capture_output=True, text=True
            )
        else:
            proc = run_cli(*argv[1:], "--embedder", "none", cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp_path / "out" / "acme" / "results.json").read_text())
    assert len(results) >= 10
    summary = json.loads((tmp_path / "out" / "acme" / "summary.json").read_text())
    assert summary["overall"]["valid"] == len(results)
    assert "FAIL" in proc.stdout or "failed" not in proc.stdout


def test_example_shows_reference_beating_plain_bm25(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    rates = {}
    for name in ("hybrid", "bm25-window"):
        run_cli(
            "run",
            "--cases",
            "examples/acme/suite.yaml",
            "--repo",
            "examples/repo",
            "--out",
            f"out/{name}",
            "--retriever",
            name,
            "--embedder",
            "none",
            "--quiet",
            cwd=tmp_path,
            check=True,
        )
        rates[name] = json.loads((tmp_path / "out" / name / "summary.json").read_text())["overall"][
            "passRate"
        ]
    assert rates["hybrid"] > rates["bm25-window"]


def test_two_fresh_runs_write_byte_identical_results(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    outputs = []
    for name in ("a", "b"):
        run_cli(
            "run",
            "--cases",
            "examples/acme/suite.yaml",
            "--repo",
            "examples/repo",
            "--out",
            f"out/{name}",
            "--embedder",
            "none",
            "--quiet",
            cwd=tmp_path,
            check=True,
        )
        summary = json.loads((tmp_path / "out" / name / "summary.json").read_text())
        for manifest in summary["indexes"]:
            manifest.pop("builtAt")  # the one wall-clock field, named for it
        outputs.append(((tmp_path / "out" / name / "results.json").read_bytes(), summary))
    assert outputs[0] == outputs[1]
