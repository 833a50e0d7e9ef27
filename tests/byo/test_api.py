"""The Python API, exported from `codegold`, used as a team would from pytest."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import codegold
from tests.byo.repo import make_shop, write_suite
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    tmp = tmp_path_factory.mktemp("api")
    repo, rev = make_shop(tmp)
    return tmp, repo, rev


def test_measure_evaluate_summarize_and_gate_in_a_few_lines(shop: tuple[Path, Path, str]) -> None:
    tmp, repo, rev = shop
    suite = codegold.load_suite(write_suite(tmp / "suite.yaml", rev))

    def retriever(query: str) -> list[dict[str, object]]:
        if "coupon" in query:
            return [{"file": "shop/discount.py", "excerpt": "def apply_coupon(total, coupon):"}]
        return [{"file": "shop/cart.py", "startLine": 10, "endLine": 16}]

    records = codegold.measure(suite, retriever, repo=repo, revision=rev)
    assert all(isinstance(r, codegold.CaseResult) for r in records)
    passed = {r.case_id for r in records if r.passed}
    assert passed == {"coupon", "cart-total", "add-item"}
    assert {r.revision_evidence for r in records} == {"asserted"}
    summary = codegold.summarize(records)
    assert summary["overall"]["passRate"] == 0.75
    decision = codegold.apply_gate(records, {"gate": {"minPassRate": 0.9}})
    assert isinstance(decision, codegold.GateDecision) and decision.blocked

    # recorded attempts as mappings: a bad chunk invalidates its own case only
    again = codegold.evaluate_attempts(
        suite,
        [
            {"caseId": "coupon", "ranked": [{"file": "shop/nope.py", "excerpt": "x"}]},
            {
                "caseId": "express",
                "ranked": [{"file": "shop/shipping.py", "startLine": 4, "endLine": 7}],
            },
        ],
        repo=repo,
        assume_revision=rev,
    )
    by_id = {r.case_id: r for r in again}
    assert not by_id["coupon"].valid and "does not exist" in (by_id["coupon"].invalid_reason or "")
    assert by_id["express"].passed


def test_run_reference(shop: tuple[Path, Path, str]) -> None:
    tmp, repo, rev = shop
    suite = codegold.load_suite(write_suite(tmp / "suite2.yaml", rev))
    records = codegold.run_reference(suite, repo, index_dir=tmp / "index")
    assert len(records) == 4 and sum(r.passed for r in records) >= 3


def test_import_codegold_stays_light() -> None:
    probe = "import sys, codegold; print(sorted(m for m in ('numpy', 'tree_sitter', 'codegold.api') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_the_pytest_example_runs(tmp_path: Path) -> None:
    shutil.copytree(
        ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "examples/pytest/test_retrieval_quality.py",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
