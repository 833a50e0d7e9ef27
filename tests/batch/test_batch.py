"""`codegold batch`: index tasks shared across suites, shards of cases, the same bytes
whatever executes them (local pools of 1 and 2 processes, a real two-worker Ray)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, run_cli
from tests.corpus.gitfixture import make_repo

BUILT_AT = re.compile(rb'"(builtAt|startedAt)":\s*"[^"]*"')


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("batch")
    shutil.copytree(
        ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"], cwd=work, check=True, capture_output=True
    )
    # a repository that lacks the revision its suite pins: its index cannot be built
    other, _ = make_repo(work / "other", [{"src/app.py": "def main():\n    return 1\n"}])
    suite = (work / "examples/acme/suite.yaml").read_text()
    (work / "broken.yaml").write_text(suite.replace("suite: acme-payments", "suite: broken"))
    (work / "plan.toml").write_text(
        "[[suites]]\n"
        'cases = "examples/acme/suite.yaml"\nrepo = "examples/repo"\n'
        'retriever = "bm25-window"\n\n'
        "[[suites]]\n"
        'name = "acme-hybrid"\ncases = "examples/acme/suite.yaml"\nrepo = "examples/repo"\n\n'
        "[[suites]]\n"
        f'cases = "broken.yaml"\nrepo = "{other}"\n'
    )
    return work


def _batch(example: Path, out: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return run_cli(
        "batch",
        str(example / "plan.toml"),
        "--out",
        str(example / out),
        "--embedder",
        "none",
        "--shard-size",
        "2",
        *extra,
    )


def _tree(out: Path) -> dict[str, bytes]:
    """Every artifact of a batch, wall-clock fields aside (index build times, attempt
    durations, the execution section)."""
    files: dict[str, bytes] = {}
    for path in sorted(out.rglob("*.json*")):
        rel = path.relative_to(out).as_posix()
        if rel.startswith("index/"):
            continue
        data = BUILT_AT.sub(rb'"\1":"-"', path.read_bytes())
        if rel == "summary.json" and b'"execution"' in data:
            doc = json.loads(data)
            doc.pop("execution")
            data = json.dumps(doc, sort_keys=True).encode()
        if rel.endswith("attempts.jsonl"):
            data = re.sub(rb'"durationMs":[0-9.e-]+', b'"durationMs":0', data)
        files[rel] = data
    return files


@pytest.fixture(scope="module")
def local1(example: Path) -> subprocess.CompletedProcess[str]:
    return _batch(example, "local1", "--workers", "1")


def test_a_batch_writes_each_suite_as_run_does_and_reports_the_suite_that_failed(
    example: Path, local1: subprocess.CompletedProcess[str]
) -> None:
    assert local1.returncode == 2, local1.stderr
    assert "broken: " in local1.stdout and "FAILED: index of" in local1.stdout
    summary = json.loads((example / "local1/summary.json").read_text())
    states = {s["name"]: s["status"] for s in summary["suites"]}
    assert states == {"acme-payments": "ok", "acme-hybrid": "ok", "broken": "failed"}
    # two suites pin the same two revisions of one repository: two index tasks, not
    # four (and two for the broken suite's repository)
    assert summary["execution"]["stages"]["index"]["tasks"] == 4
    ran = run_cli(
        "run",
        "--cases",
        str(example / "examples/acme/suite.yaml"),
        "--repo",
        str(example / "examples/repo"),
        "--out",
        str(example / "single"),
        "--retriever",
        "bm25-window",
        "--embedder",
        "none",
        "--quiet",
    )
    assert ran.returncode == 0, ran.stderr
    batch = _tree(example / "local1")
    single = _tree(example / "single")
    for name in ("results.json", "summary.json", "attempts.jsonl"):
        assert batch[f"acme-payments/{name}"] == single[name], name
    cases = summary["overall"]["cases"]
    assert summary["slices"]["repository:acme/payments"]["cases"] == cases
    sizes = [k for k in summary["slices"] if k.startswith("size:")]
    assert sizes == ["size:<100 files"]
    assert summary["slices"][sizes[0]]["cases"] == cases


def test_two_local_workers_write_the_same_bytes_as_one(
    example: Path, local1: subprocess.CompletedProcess[str]
) -> None:
    two = _batch(example, "local2", "--workers", "2")
    assert two.returncode == 2, two.stderr
    assert _tree(example / "local2") == _tree(example / "local1")


def test_a_two_worker_ray_cluster_writes_the_same_bytes_as_one_local_worker(
    example: Path, local1: subprocess.CompletedProcess[str]
) -> None:
    pytest.importorskip("ray")
    on_ray = _batch(example, "ray2", "--executor", "ray", "--workers", "2")
    assert on_ray.returncode == 2, on_ray.stderr
    summary: dict[str, Any] = json.loads((example / "ray2/summary.json").read_text())
    assert summary["execution"]["executor"] == "ray"
    assert summary["execution"]["workers"] == 2
    assert _tree(example / "ray2") == _tree(example / "local1")


def test_ray_without_its_extra_names_the_install_line(example: Path, tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['ray'] = None\n"
        "from codegold.cli.main import main\n"
        f"main(['batch', {str(example / 'plan.toml')!r}, '--out', {str(tmp_path)!r},"
        " '--executor', 'ray'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 3
    assert "pip install 'codegold[ray]'" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_plan_with_an_unknown_key_names_file_entry_and_key(tmp_path: Path) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text('[[suites]]\ncases = "a.yaml"\nrepo = "."\nretreiver = "x"\n')
    proc = run_cli("batch", str(plan), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2
    assert "suites[0]" in proc.stderr and "retreiver" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_build_leaves_the_build_another_live_worker_has_in_progress(tmp_path: Path) -> None:
    from codegold.pipeline import index_revision

    repo, shas = make_repo(tmp_path / "r", [{"src/app.py": "def main():\n    return 1\n"}])
    builds = tmp_path / "index/builds"
    builds.mkdir(parents=True)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    try:
        live_dir = builds / f".tmp-other-{sleeper.pid}"
        dead_dir = builds / f".tmp-other-{dead}"
        live_dir.mkdir()
        dead_dir.mkdir()
        index_revision(repo, shas[0], tmp_path / "index", embedder="none")
        assert live_dir.is_dir()
        assert not dead_dir.exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def _flaky(marker: str) -> Any:
    from codegold.batch.tasks import TaskOutcome

    path = Path(marker)
    if marker.endswith("never") or not path.exists():
        path.touch()
        raise RuntimeError("worker lost")
    return TaskOutcome(value="ok")


def test_a_task_that_raises_is_retried_then_reported(tmp_path: Path) -> None:
    from codegold.batch.executors import LocalExecutor

    with LocalExecutor(2) as pool:
        once, never = pool.map(
            _flaky, [str(tmp_path / "once"), str(tmp_path / "never")], label="flaky"
        )
    assert once.value == "ok" and once.error is None
    assert never.error == "task failed after 3 tries: RuntimeError: worker lost"
