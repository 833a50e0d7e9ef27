"""The pipeline as a library: one index load per revision, one scoring path for live
and recorded runs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from codegold.pipeline import RunOutput, eval_pipeline, run_pipeline
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("pipeline")
    shutil.copytree(
        ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"], cwd=work, check=True, capture_output=True
    )
    return work


@pytest.fixture(scope="module")
def live(example: Path) -> RunOutput:
    # the baseline fails some cases, so diagnosis reads the index after retrieval did
    return run_pipeline(
        cases_path=example / "examples/acme/suite.yaml",
        repo_path=example / "examples/repo",
        out_dir=example / "live",
        retriever_name="bm25-window",
    )


def test_a_run_loads_each_revision_once_though_it_diagnoses(live: RunOutput) -> None:
    out = live
    diagnosed = [r for r in out.records if r.diagnosis is not None]
    revisions = {r.repository_revision for r in out.records}
    assert diagnosed, "the baseline was meant to fail some case"
    assert len(revisions) == 2
    assert out.index_loads == 2


def test_eval_of_a_runs_attempts_scores_what_the_run_scored(example: Path, live: RunOutput) -> None:
    run_dir = example / "live"
    out = eval_pipeline(
        cases_path=example / "examples/acme/suite.yaml",
        attempts_path=run_dir / "attempts.jsonl",
        out_dir=example / "recorded",
        repo_path=example / "examples/repo",
        index_dir=run_dir / "index",
    )
    # the same figures; only the mode says which path produced them
    assert {r.mode for r in live.records} == {"live"}
    assert {r.mode for r in out.records} == {"recorded"}
    assert [msgspec.structs.replace(r, mode="live") for r in out.records] == live.records
    recorded = (example / "recorded/results.json").read_bytes()
    assert (
        recorded.replace(b'"mode":"recorded"', b'"mode":"live"')
        == (run_dir / "results.json").read_bytes()
    )
    assert out.index_loads == 2
