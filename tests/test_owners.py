"""The [owners] table: a failure's boundary and the case's paths map to a team, shown
in results.json, summary.json, HTML, JUnit and compare's Markdown."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codegold.errors import InputError
from codegold.owners import owners_from_table
from tests.conftest import ROOT, run_cli

TABLE = {
    "default": "search-platform",
    "boundaries": {"ranking": "search-relevance", "parser/chunker": "code-intel"},
    "rules": [{"paths": ["src/billing/"], "boundary": "ranking", "team": "billing-search"}],
}


def test_a_rule_on_paths_and_boundary_wins_then_the_boundary_then_the_default() -> None:
    owners = owners_from_table(TABLE, file="codegold.toml")
    assert owners.team("ranking", ["src/billing/invoice.py"]) == "billing-search"
    assert owners.team("ranking", ["src/auth/session.py"]) == "search-relevance"
    # the rule's boundary must match too
    assert owners.team("parser/chunker", ["src/billing/invoice.py"]) == "code-intel"
    assert owners.team("retrieval", ["src/auth/session.py"]) == "search-platform"


@pytest.mark.parametrize(
    ("table", "field"),
    [
        ({"boundary": {}}, "boundary"),
        ({"boundaries": {"rankng": "x"}}, "owners.boundaries.rankng"),
        ({"boundaries": {"ranking": ""}}, "owners.boundaries.ranking"),
        ({"rules": [{"team": "x"}]}, "owners.rules[0]"),
        ({"rules": [{"paths": ["src/"], "team": "x", "owner": "y"}]}, "owners.rules[0].owner"),
    ],
)
def test_a_bad_owners_table_names_its_field(table: dict[str, object], field: str) -> None:
    with pytest.raises(InputError) as info:
        owners_from_table(table, file="codegold.toml")
    assert info.value.field == field


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("owners")
    shutil.copytree(
        ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"], cwd=work, check=True, capture_output=True
    )
    run_cli(
        "run",
        "--cases",
        str(work / "examples/acme/suite.yaml"),
        "--repo",
        str(work / "examples/repo"),
        "--retriever",
        "bm25-window",
        "--embedder",
        "none",
        "--out",
        str(work / "base"),
        "--quiet",
        check=True,
    )
    (work / "codegold.toml").write_text(
        '[owners]\ndefault = "search-platform"\n'
        '[owners.boundaries]\nranking = "search-relevance"\n'
        '"parser/chunker" = "code-intel"\n'
    )
    run_cli(
        "eval",
        "--cases",
        str(work / "examples/acme/suite.yaml"),
        "--attempts",
        str(work / "base/attempts.jsonl"),
        "--repo",
        str(work / "examples/repo"),
        "--index",
        str(work / "base/index"),
        "--policy",
        str(work / "codegold.toml"),
        "--out",
        str(work / "teams"),
        "--quiet",
        check=True,
    )
    return work


def test_every_diagnosed_failure_carries_its_team_in_results_and_summary(example: Path) -> None:
    records = json.loads((example / "teams/results.json").read_text())
    failed = [r for r in records if not r["passed"] and r["diagnosis"]]
    assert failed
    for r in failed:
        owner = r["diagnosis"]["owner"]
        expected = {"ranking": "search-relevance", "parser/chunker": "code-intel"}.get(
            owner, "search-platform"
        )
        assert r["diagnosis"]["team"] == expected
    summary = json.loads((example / "teams/summary.json").read_text())
    assert sum(summary["overall"]["teams"].values()) == len(failed)
    # without a table: no team, no teams figure
    base = json.loads((example / "base/results.json").read_text())
    assert all(r["diagnosis"] is None or r["diagnosis"]["team"] is None for r in base)
    assert "teams" not in json.loads((example / "base/summary.json").read_text())["overall"]


def test_html_junit_and_markdown_name_the_team(example: Path) -> None:
    out = example / "teams"
    run_cli(
        "report",
        str(out),
        "--html",
        str(out / "r.html"),
        "--junit",
        str(out / "r.xml"),
        check=True,
    )
    records = json.loads((out / "results.json").read_text())
    teams = {r["diagnosis"]["team"] for r in records if not r["passed"] and r["diagnosis"]}
    page = (out / "r.html").read_text()
    junit = (out / "r.xml").read_text()
    for team in teams:
        assert team in page
        assert f"({team})" in junit
    assert 'id="teams-table"' in page


def test_compare_markdown_names_who_acts_on_a_regression() -> None:
    from codegold.compare import compare_runs
    from codegold.evaluate.records import Diagnosis
    from tests.report.helpers import entry, record

    base = [record("c1"), record("c2")]
    failed = record(
        "c1",
        passed=False,
        first_relevant_rank=None,
        reciprocal_rank=0.0,
        group_recall=0.0,
        missing_group_ids=["accepted"],
        ranked=[entry(1)],
        diagnosis=Diagnosis("below_cutoff", "ranking", "rank 7", team="search-relevance"),
    )
    md = compare_runs(base, [failed, record("c2")]).to_markdown()
    assert "- `c1`: passed → failed" in md
    assert "(owner: ranking (search-relevance))" in md
