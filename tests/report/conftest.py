from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegold.evaluate.records import CaseResult, load_results
from codegold.report.html import render_html
from tests.report.helpers import diagnosed_run


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shipped example, evaluated, with a diagnosis on every failed record."""
    return diagnosed_run(tmp_path_factory.mktemp("report-run"))


@pytest.fixture(scope="session")
def run_records(run_dir: Path) -> list[CaseResult]:
    return load_results(run_dir)


@pytest.fixture(scope="session")
def run_summary(run_dir: Path) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
    return summary


@pytest.fixture(scope="session")
def page(run_records: list[CaseResult], run_summary: dict[str, Any]) -> str:
    return render_html(run_records, run_summary)
