"""`codegold eval` diagnoses recorded attempts given a repository or an index."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped example, retrieved by the plain BM25-window baseline (which fails some)."""
    work = tmp_path_factory.mktemp("evaldiag")
    shutil.copytree(
        ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"], cwd=work, check=True, capture_output=True
    )
    run_cli(
        "run",
        "--cases",
        "examples/acme/suite.yaml",
        "--repo",
        "examples/repo",
        "--out",
        "base",
        "--retriever",
        "bm25-window",
        "--embedder",
        "none",
        "--quiet",
        cwd=work,
        check=True,
    )
    return work


@pytest.mark.parametrize("source", ["repo", "index"])
def test_eval_fills_diagnosis(baseline_run: Path, source: str) -> None:
    work = baseline_run
    extra = ["--repo", "examples/repo"] if source == "repo" else ["--index", "base/index"]
    out = f"eval-{source}"
    run_cli(
        "eval",
        "--cases",
        "examples/acme/suite.yaml",
        "--attempts",
        "base/attempts.jsonl",
        "--out",
        out,
        "--quiet",
        *extra,
        cwd=work,
        check=True,
    )
    results = json.loads((work / out / "results.json").read_text())
    failed = [r for r in results if not r["passed"]]
    assert failed, "the baseline is expected to fail some cases"
    for record in failed:
        assert record["diagnosis"] is not None
        assert not record["diagnosis"]["cause"].startswith("undetermined"), record["diagnosis"]
    summary = json.loads((work / out / "summary.json").read_text())
    assert sum(summary["overall"]["causes"].values()) == len(failed)


def test_eval_without_repo_or_index_leaves_failures_undiagnosed(baseline_run: Path) -> None:
    work = baseline_run
    run_cli(
        "eval",
        "--cases",
        "examples/acme/suite.yaml",
        "--attempts",
        "base/attempts.jsonl",
        "--out",
        "plain",
        "--quiet",
        cwd=work,
        check=True,
    )
    results = json.loads((work / "plain" / "results.json").read_text())
    assert all(r["diagnosis"] is None for r in results if not r["passed"] and r["valid"])
