"""`codegold batch` at scale: 9 real repositories (Rust, Java, Go, C, Python, JS, TS,
Ruby, PHP), 2 revisions each (the gold suite's pin and an older tag), 1,000+ cases.

Each repository contributes its hand-labelled gold suite (benchmarks/suites, at the pin)
and two synthetic suites, one per revision: exact-identifier cases generated from
definitions codegold's own index finds at that revision (tag ``synthetic``; they
measure throughput, not quality). The batch then runs fresh (a new index root each
time) under ``local`` with 1 and 2 workers and ``ray`` on a local two-CPU cluster,
checks that the three wrote the same bytes, measures per-task scheduling overhead with
no-op tasks, and projects 500 repositories x 5 revisions on 32 nodes from the measured
per-task costs.

    nice python benchmarks/batch.py [--work DIR] [--per-revision 55] [--skip-ray]

Needs the mirrors under /work/.mirror (CODEGOLD_MIRROR): fetch them with the search
tool's fetch verb, as for benchmarks/quality.py.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
MIRROR = Path(os.environ.get("CODEGOLD_MIRROR", "/work/.mirror"))
# suite name in repos.toml -> an older tag of the same repository
OLDER = {
    "ripgrep": "14.1.1",
    "gson": "gson-parent-2.12.1",
    "gin": "v1.10.0",
    "jq": "jq-1.7.1",
    "httpx": "0.27.2",
    "express": "v5.0.1",
    "ky": "v1.14.3",
    "sinatra": "v4.1.1",
    "slim": "4.12.0",
}
STAMPS = re.compile(rb'"(builtAt|startedAt)":\s*"[^"]*"|"durationMs":[0-9.e-]+')


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def synthetic_suite(
    name: str, repo: Path, sha: str, root: Path, per_revision: int
) -> dict[str, Any]:
    """Exact-identifier cases: definitions whose qualified name exactly one chunk of the
    revision defines, every k-th in (file, line) order."""
    from codegold.index.store import open_index
    from codegold.pipeline import index_revision

    index_revision(repo, sha, root, embedder="none", repository_name=name)
    loaded = open_index(root, sha)
    defined: dict[str, int] = {}
    for chunk in loaded.chunks:
        for symbol in chunk.symbols:
            defined[symbol] = defined.get(symbol, 0) + 1
    picks = [
        c
        for c in sorted(loaded.chunks, key=lambda c: (c.file, c.start_line))
        if c.role == "definition"
        and c.symbol
        and defined.get(c.symbol) == 1
        and len(c.symbol.rsplit(".", 1)[-1]) >= 6
    ]
    step = max(1, len(picks) // per_revision)
    cases = [
        {
            "id": f"syn-{sha[:8]}-{i:03d}",
            "query": c.symbol,
            "queryClass": "exact_identifier",
            "accepted": [
                {
                    "file": c.file,
                    "symbol": c.symbol,
                    "roles": ["definition"],
                    "lines": [c.start_line, c.end_line],
                }
            ],
            "tags": ["synthetic"],
        }
        for i, c in enumerate(picks[::step][:per_revision])
    ]
    return {
        "suite": f"{name.rsplit('/', 1)[-1]}-synthetic-{sha[:8]}",
        "repository": {"name": name, "revision": sha},
        "defaults": {"cutoff": 5},
        "cases": cases,
    }


def prepare(work: Path, per_revision: int) -> tuple[Path, int, int]:
    repos = tomllib.loads((HERE / "suites/repos.toml").read_text())["suites"]
    entries: list[str] = []
    cases = revisions = 0
    (work / "suites").mkdir(parents=True, exist_ok=True)
    for name, older in OLDER.items():
        meta = repos[name]
        repo = MIRROR / meta["github"].replace("/", "+") / "repo"
        gold = HERE / "suites" / meta.get("cases", f"{name}.yaml")
        entries.append(f'[[suites]]\ncases = "{gold}"\nrepo = "{repo}"\n')
        gold_doc = yaml.safe_load(gold.read_text())
        cases += len(gold_doc["cases"])
        repository = gold_doc["repository"]["name"]  # one repository:NAME slice per repo
        for sha in (meta["commit"], git(repo, "rev-parse", f"{older}^{{commit}}")):
            path = work / "suites" / f"{name}-{sha[:8]}.yaml"
            if not path.exists():
                doc = synthetic_suite(repository, repo, sha, work / "prep-index", per_revision)
                path.write_text(yaml.safe_dump(doc, sort_keys=False))
            cases += len(yaml.safe_load(path.read_text())["cases"])
            revisions += 1
            entries.append(f'[[suites]]\ncases = "{path}"\nrepo = "{repo}"\n')
    plan = work / "plan.toml"
    plan.write_text("\n".join(entries))
    return plan, cases, revisions


def run(plan: Path, out: Path, *args: str) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "codegold",
            "batch",
            str(plan),
            "--out",
            str(out),
            "--embedder",
            "none",
            "--quiet",
            *args,
        ],
        env={**os.environ, "CODEGOLD_QUIET_PROGRESS": "1"},
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"batch {' '.join(args)} exited {proc.returncode}:\n{proc.stderr}")
    return wall, json.loads((out / "summary.json").read_text())


def artifacts(out: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(out.rglob("*.json*")):
        rel = path.relative_to(out).as_posix()
        if rel.startswith("index/"):
            continue
        data = STAMPS.sub(b"-", path.read_bytes())
        if rel == "summary.json":
            doc = json.loads(data)
            doc.pop("execution")
            data = json.dumps(doc, sort_keys=True).encode()
        files[rel] = data
    return files


def overhead(executor: str, workers: int, n: int = 200) -> float:
    """Seconds per task a no-op costs through ``executor`` (pool start excluded)."""
    from codegold.batch.executors import make_executor
    from codegold.batch.tasks import noop_task

    runner = make_executor(executor, address=None, workers=workers)
    try:
        runner.map(noop_task, list(range(workers * 2)), label="warm")
        started = time.perf_counter()
        outcomes = runner.map(noop_task, list(range(n)), label="noop")
        wall = time.perf_counter() - started
    finally:
        runner.close()
    busy = sum(o.seconds for o in outcomes)
    return (wall * workers - busy) / n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--work", type=Path, default=Path("/tmp/codegold-batch-bench"))
    parser.add_argument("--per-revision", type=int, default=55)
    parser.add_argument("--skip-ray", action="store_true")
    opts = parser.parse_args()
    plan, cases, revisions = prepare(opts.work, opts.per_revision)
    print(f"plan: {len(OLDER)} repositories, {revisions} revisions, {cases} cases ({plan})")

    runs = [("local", 1), ("local", 2)] + ([] if opts.skip_ray else [("ray", 2)])
    results: dict[str, tuple[float, dict[str, Any]]] = {}
    for executor, workers in runs:
        label = f"{executor}x{workers}"
        out = opts.work / label
        subprocess.run(["rm", "-rf", str(out)], check=True)
        results[label] = run(plan, out, "--executor", executor, "--workers", str(workers))
        wall, summary = results[label]
        ex = summary["execution"]
        stages = ex["stages"]
        peak = max(ex["peakRssKbByWorker"].values()) / 1024
        print(
            f"{label}: wall {wall:.1f}s (batch {ex['seconds']:.1f}s; index "
            f"{stages['index']['tasks']} tasks {stages['index']['seconds']:.1f}s, cases "
            f"{stages['cases']['tasks']} tasks {stages['cases']['seconds']:.1f}s); "
            f"peak RSS per worker max {peak:.0f} MB over {len(ex['peakRssKbByWorker'])} "
            f"processes; pass rate {summary['overall'].get('passRate')}"
        )
    first = artifacts(opts.work / "localx1")
    for label in results:
        same = artifacts(opts.work / label) == first
        print(f"{label}: artifacts identical to localx1 (wall-clock stamps aside): {same}")

    for executor, workers in runs[1:]:
        print(
            f"scheduling overhead {executor}x{workers}: "
            f"{overhead(executor, workers) * 1000:.2f} ms per task"
        )

    # projection from localx1, where task seconds are not shared with another worker
    stages = results["localx1"][1]["execution"]["stages"]
    per_index = stages["index"]["taskSeconds"] / stages["index"]["tasks"]
    per_case = stages["cases"]["taskSeconds"] / cases
    per_revision_cases = cases / revisions
    target_revisions = 500 * 5
    target_cases = per_revision_cases * target_revisions
    shard_tasks = target_cases / 25
    slots = 32 * 2
    ray_overhead = overhead("ray", 2) if not opts.skip_ray else 0.0
    total = (
        target_revisions * per_index
        + target_cases * per_case
        + (target_revisions + shard_tasks) * ray_overhead
    ) / slots
    print(
        f"measured per task: index {per_index:.2f}s per revision, {per_case * 1000:.1f} ms "
        f"per case ({per_revision_cases:.0f} cases per revision)"
    )
    print(
        f"projection 500 repositories x 5 revisions ({target_cases:.0f} cases, "
        f"{target_revisions + shard_tasks:.0f} tasks) on 32 nodes x 2 worker CPUs: "
        f"{total / 60:.1f} min of task time per slot (perfect packing; the index stage "
        f"ends before the case stage starts, so add the longest index task)"
    )


if __name__ == "__main__":
    main()
