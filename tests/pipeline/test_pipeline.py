"""The pipeline as a library: one index load per revision, one scoring path for live
and recorded runs."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tracemalloc
from pathlib import Path

import msgspec
import pytest

from codegold.evaluate.records import load_results
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


def _reference_eval(
    cases: Path, attempts: Path, out: Path, *, repo: Path | None = None, policy: Path | None = None
) -> None:
    """What eval wrote before it streamed: every record scored in memory, then written
    (score + write_run), the oracle for byte-identity."""
    from codegold.attempts import digest_file, iter_attempts
    from codegold.cases import load_suite
    from codegold.corpus.git import GitRepo
    from codegold.diagnose import DiagnosisContext
    from codegold.pipeline import diagnosis_context, index_revisions, score, write_run
    from codegold.pipeline.run import suite_owners

    suite = load_suite(cases)
    out.mkdir(parents=True)
    git = GitRepo(repo) if repo is not None else None

    def diagnosis() -> DiagnosisContext:
        assert git is not None
        index_revisions(git, suite.revisions, out / "index")
        return diagnosis_context(git, out / "index")

    scored = score(
        suite,
        lambda: iter_attempts(attempts, known_cases=[c.id for c in suite.cases]),
        diagnosis=diagnosis if git is not None else None,
        attempts_digest=lambda: digest_file(attempts),
        owners=suite_owners(suite, git, policy),
    )
    write_run(out, scored)


def _shuffled(source: Path, target: Path, seed: int) -> Path:
    lines = source.read_text().splitlines(keepends=True)
    random.Random(seed).shuffle(lines)
    target.write_text("".join(lines))
    return target


def _same_artifacts(a: Path, b: Path) -> None:
    for name in ("results.json", "summary.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.parametrize("diagnosed", [False, True])
def test_eval_in_any_attempt_order_writes_todays_bytes(
    example: Path, live: RunOutput, diagnosed: bool
) -> None:
    suite = example / "examples/acme/suite.yaml"
    recorded = example / "live" / "attempts.jsonl"
    repo = example / "examples/repo" if diagnosed else None
    reference = example / f"reference-{diagnosed}"
    _reference_eval(suite, recorded, reference, repo=repo)
    for seed in (0, 1, 2):
        attempts = _shuffled(recorded, example / f"shuffled-{diagnosed}-{seed}.jsonl", seed)
        out_dir = example / f"streamed-{diagnosed}-{seed}"
        out = eval_pipeline(
            cases_path=suite, attempts_path=attempts, out_dir=out_dir, repo_path=repo
        )
        # the attempts digest differs with the file's bytes; nothing else may
        summary = msgspec.json.decode((out_dir / "summary.json").read_bytes())
        expected = msgspec.json.decode((reference / "summary.json").read_bytes())
        assert summary["attemptsDigest"] != expected["attemptsDigest"]
        assert {**summary, "attemptsDigest": None} == {**expected, "attemptsDigest": None}
        assert (out_dir / "results.json").read_bytes() == (reference / "results.json").read_bytes()
        # the records handed back are those of results.json, read back one at a time
        assert list(out.records) == load_results(out_dir)
        assert out.records[-1] == load_results(out_dir)[-1]
    # in suite order, summary.json too is the same bytes
    out_dir = example / f"in-order-{diagnosed}"
    eval_pipeline(cases_path=suite, attempts_path=recorded, out_dir=out_dir, repo_path=repo)
    _same_artifacts(out_dir, reference)


def test_repeated_attempts_flagged_after_they_were_spooled(example: Path, live: RunOutput) -> None:
    """Records written to the spool, then flagged nondeterministic once every attempt
    was read, come back flagged and counted as such, in any attempt order."""
    suite = example / "examples/acme/suite.yaml"
    lines = (example / "live/attempts.jsonl").read_bytes().splitlines()
    rows = [msgspec.json.decode(line) for line in lines]
    again = []
    for i, row in enumerate(rows):  # a twin of each; every other twin ranked otherwise
        twin = {**row, "attemptId": row["attemptId"] + "-again"}
        if i % 2 and len(twin["ranked"]) > 1:
            twin["ranked"] = list(reversed(twin["ranked"]))
        again.append(twin)
    repeated = example / "repeated.jsonl"
    repeated.write_bytes(b"".join(msgspec.json.encode(r) + b"\n" for r in rows + again))
    reference = example / "repeated-reference"
    _reference_eval(suite, repeated, reference)
    out_dir = example / "repeated-streamed"
    eval_pipeline(cases_path=suite, attempts_path=repeated, out_dir=out_dir)
    _same_artifacts(out_dir, reference)
    summary = msgspec.json.decode((out_dir / "summary.json").read_bytes())
    assert summary["nondeterminism"]["nondeterministicCases"] > 0
    assert summary["overall"]["nondeterministic"] > 0
    # a case's records stay in the order of its attempts in the file
    shuffled = _shuffled(repeated, example / "repeated-shuffled.jsonl", 3)
    reference = example / "repeated-shuffled-reference"
    _reference_eval(suite, shuffled, reference)
    out_dir = example / "repeated-shuffled"
    eval_pipeline(cases_path=suite, attempts_path=shuffled, out_dir=out_dir)
    _same_artifacts(out_dir, reference)


def test_eval_with_an_owners_table_holds_failures_for_their_team(
    example: Path, live: RunOutput
) -> None:
    suite = example / "examples/acme/suite.yaml"
    policy = example / "owners.toml"
    policy.write_text('[owners]\ndefault = "search-platform"\n')
    recorded = _shuffled(example / "live/attempts.jsonl", example / "owners.jsonl", 4)
    repo = example / "examples/repo"
    reference = example / "owners-reference"
    _reference_eval(suite, recorded, reference, repo=repo, policy=policy)
    out_dir = example / "owners-streamed"
    eval_pipeline(
        cases_path=suite,
        attempts_path=recorded,
        out_dir=out_dir,
        repo_path=repo,
        policy_path=policy,
    )
    _same_artifacts(out_dir, reference)
    assert "teams" in msgspec.json.decode((out_dir / "summary.json").read_bytes())["overall"]


def _generated(folder: Path, n: int, depth: int = 30) -> tuple[Path, Path]:
    """n cases, each with one attempt of ``depth`` chunks; every third passes."""
    rev = "3" * 40
    manifest = {
        "buildId": "g",
        "repositoryRevision": rev,
        "chunkerVersion": "v",
        "pathPolicy": "p",
        "builtAt": "2024-01-01T00:00:00Z",
        "complete": True,
    }
    folder.mkdir()
    suite, attempts = folder / "suite.jsonl", folder / "attempts.jsonl"
    with suite.open("w") as s, attempts.open("w") as a:
        for i in range(n):
            target = f"src/f{i}.py"
            case = {
                "id": f"case-{i:05d}",
                "query": f"where is f{i}?",
                "repositoryRevision": rev,
                "accepted": [{"file": target, "symbol": f"f{i}"}],
            }
            s.write(json.dumps(case) + "\n")
            hit = 0 if i % 3 == 0 else depth - 1
            ranked = [
                {
                    "chunkId": f"k{i}-{r}",
                    "file": target if r == hit else f"src/g{r}.py",
                    "symbol": f"f{i}" if r == hit else f"g{r}",
                    "startLine": 1 + r,
                    "endLine": 9 + r,
                    "role": "definition",
                    "repositoryRevision": rev,
                    "score": 1 - r / depth,
                }
                for r in range(depth)
            ]
            line = {"attemptId": f"a{i}", "caseId": case["id"], "index": manifest, "ranked": ranked}
            a.write(json.dumps(line) + "\n")
    return suite, attempts


def test_eval_memory_does_not_grow_with_its_records(tmp_path: Path) -> None:
    """Peak traced memory of eval at 800 cases is close to that at 200: records wait on
    disk, not in memory (held in memory, 600 more records of 30 chunks would add
    ~15 MB). The terminal still gets every record back, read from results.json."""
    peaks = {}
    for n in (200, 800):
        suite, attempts = _generated(tmp_path / f"g{n}", n)
        tracemalloc.start()
        try:
            out = eval_pipeline(
                cases_path=suite, attempts_path=attempts, out_dir=tmp_path / f"o{n}"
            )
            peaks[n] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert len(out.records) == n
        assert sum(r.passed for r in out.records) == len(range(0, n, 3))
        reference = tmp_path / f"r{n}"
        _reference_eval(suite, attempts, reference)
        _same_artifacts(tmp_path / f"o{n}", reference)
    assert peaks[800] - peaks[200] < 3_000_000, peaks
