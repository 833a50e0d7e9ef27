"""Freshness: a stale index is reported (commits and time) and is never a ranking failure."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from codegold.attempts import Attempt, IndexManifest, RetrievedChunk
from codegold.cases.suite import load_suite
from codegold.evaluate import evaluate_case
from tests.conftest import run_cli
from tests.corpus.gitfixture import git, make_repo

COMMITS = [
    {"src/app.py": "def main():\n    return 0\n"},
    {"src/app.py": "def main():\n    return 1\n"},
    {"src/util.py": "def helper():\n    return 2\n"},
    {"README.md": "# demo\n"},
]


def _indexed(tmp_path: Path) -> tuple[Path, list[str], Path]:
    repo, shas = make_repo(tmp_path, COMMITS)
    index = tmp_path / "index"
    run_cli("index", str(repo), "--revision", shas[0], "--out", str(index), check=True)
    return repo, shas, index


def test_freshness_counts_commits_and_time_and_exits_1_past_the_limit(tmp_path: Path) -> None:
    repo, shas, index = _indexed(tmp_path)
    ok = run_cli("freshness", "--index", str(index), "--repo", str(repo), "--max-behind", "3")
    assert ok.returncode == 0, ok.stderr
    assert "behind: 3 commits, 3m of commit time" in ok.stdout
    assert "ok: 3 behind within --max-behind 3" in ok.stdout
    stale = run_cli(
        "freshness", "--index", str(index), "--repo", str(repo), "--max-behind", "2", "--json"
    )
    assert stale.returncode == 1, stale.stderr
    report = json.loads(stale.stdout)
    assert report["commitsBehind"] == 3
    assert report["secondsBehind"] == 180
    assert report["indexRevision"] == shas[0]
    assert report["head"] == shas[-1]
    assert report["stale"] is True and report["onBranch"] is True
    # a branch that is the index revision: fresh, whatever the limit
    git(repo, "branch", "old", shas[0])
    fresh = run_cli(
        "freshness", "--index", str(index), "--repo", str(repo), "--branch", "old",
        "--max-behind", "0",
    )  # fmt: skip
    assert fresh.returncode == 0
    assert "fresh: the index is at the branch head" in fresh.stdout


def test_freshness_bad_input_and_other_branch(tmp_path: Path) -> None:
    repo, shas, index = _indexed(tmp_path)
    missing = run_cli("freshness", "--index", str(tmp_path / "nope"), "--repo", str(repo))
    assert missing.returncode == 2
    assert "no complete codegold index" in missing.stderr and "Traceback" not in missing.stderr
    branch = run_cli("freshness", "--index", str(index), "--repo", str(repo), "--branch", "nope")
    assert branch.returncode == 2 and "unknown revision 'nope'" in branch.stderr
    other, _ = make_repo(tmp_path / "other", [{"x.py": "x = 1\n"}])
    wrong = run_cli("freshness", "--index", str(index), "--repo", str(other))
    assert wrong.returncode == 2 and "does not have" in wrong.stderr
    # an index built on a side branch: behind counts what it lacks, ahead what main lacks
    git(repo, "checkout", "-q", "-b", "side", shas[1])
    (repo / "side.py").write_text("s = 1\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "side", env={"GIT_COMMITTER_DATE": "@1700000500 +0000"})
    side_index = tmp_path / "side-index"
    run_cli("index", str(repo), "--revision", "side", "--out", str(side_index), check=True)
    report = run_cli(
        "freshness", "--index", str(side_index), "--repo", str(repo), "--branch", "main", "--json"
    )
    assert report.returncode == 0
    data = json.loads(report.stdout)
    assert (data["commitsBehind"], data["commitsAhead"], data["onBranch"]) == (2, 1, False)


def _manifest(built_at: str) -> IndexManifest:
    return IndexManifest(
        build_id="b1",
        repository_revision="a" * 40,
        chunker_version="1",
        path_policy="p",
        built_at=built_at,
        complete=True,
    )


def test_a_query_started_before_its_index_was_built_is_invalid(tmp_path: Path) -> None:
    suite_path = tmp_path / "suite.yaml"
    suite_path.write_text(
        "repository: {revision: " + "a" * 40 + "}\n"
        "cases:\n- id: c1\n  query: main\n  accepted: [{file: src/app.py}]\n"
    )
    case = load_suite(suite_path).cases[0]
    chunk = RetrievedChunk(
        chunk_id="x", file="src/app.py", start_line=1, end_line=2, role="implementation",
        repository_revision="a" * 40, score=1.0,
    )  # fmt: skip

    def attempt(started: str | None, built: str) -> Attempt:
        return Attempt(
            attempt_id="t", case_id="c1", ranked=(chunk,), index=_manifest(built),
            started_at=started,
        )  # fmt: skip

    early = evaluate_case(case, attempt("2026-12-01T10:00:00.250Z", "2026-12-01T10:00:02Z"))
    assert not early.valid and not early.passed
    assert early.invalid_reason is not None
    assert "1.75 s before index b1 was built" in early.invalid_reason
    assert early.diagnosis is not None and early.diagnosis.cause == "invalid_run"
    for started in ("2026-12-01T10:00:02.5Z", "2026-12-01T11:00:03+01:00", None, "garbage"):
        later = evaluate_case(case, attempt(started, "2026-12-01T10:00:02Z"))
        assert later.valid and later.passed, started
    # a naive timestamp is UTC; an unknown builtAt claims nothing
    assert not evaluate_case(case, attempt("2026-12-01T09:59:59", "2026-12-01T10:00:00Z")).valid
    assert evaluate_case(case, attempt("2026-12-01T09:59:59Z", "")).valid
    assert msgspec.json.encode(early.invalid_reason)
    # a long gap reads as a duration, not as 2.88983e+07 s
    months = evaluate_case(case, attempt("2026-01-01T00:00:00Z", "2026-12-01T10:00:00Z"))
    assert months.invalid_reason is not None
    assert "334d 10h before index b1 was built" in months.invalid_reason
