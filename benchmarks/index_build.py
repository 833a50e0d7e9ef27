"""Index build speed against its anchor: tree-sitter parse plus codegold's tag queries.

    python benchmarks/index_build.py                      # sympy, the revisions below
    python benchmarks/index_build.py --repo R --old A --new B [--rounds 3]

For 1 and 2 workers, each in a fresh child process: the anchor (every indexed file of
``--new`` parsed by tree-sitter and run through its language's tags query, the blobs
already in memory, nothing else: no chunk assembly, BM25, symbols or writing; with 2
workers spread over a process pool as the build spreads them) and a cold build of
``--new`` (empty index root and cache; lexical + symbols, no embeddings) through
:func:`build_index`, inventory read from git included. Then the neighbouring revision:
``--old`` built cold into a root (not timed), ``--new`` built into the same root and
timed (its unchanged files come from the blob cache). Printed: each time (median of
``--rounds``, with the child's CPU seconds), the ratio cold/anchor per worker count,
the 2-core speedups, and whether the artifacts are byte-identical (every file of the
build but ``manifest.json`` and ``build.json``, which hold the build time and cache
counts): cold 1 worker vs cold 2 workers, neighbouring vs cold of the same revision.

The machine is shared: ``os.getloadavg()`` is printed beside each figure; scaling
figures mean something only on an idle machine. CPU seconds (the child's, its workers'
and git's) are printed too: on a busy machine their ratio is the steadier one, though
contention inflates it as well.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: sympy at two neighbouring merges on its main line: 52 files changed (51 .py).
SYMPY = "/work/.mirror/sympy+sympy/repo"
OLD = "240588b0633c256516aed99ea3fbd5346a6f4cfa"
NEW = "8bae18edfa5f7d40ece869505d7ee8fb7ba73a10"
TARGET_RATIO = 2.0
TARGET_SPEEDUP = 1.8
TARGET_NEIGHBOUR_S = 1.5


# ---- child side ---------------------------------------------------------------------


def _inventory_jobs(repo: str, rev: str) -> list[tuple[str, bytes]]:
    from codegold.chunking.languages import language_for_path
    from codegold.corpus.git import GitRepo
    from codegold.corpus.inventory import build_inventory
    from codegold.corpus.model import FileStatus
    from codegold.corpus.policy import load_policy

    with GitRepo(Path(repo)) as git:
        sha = git.resolve(rev)
        policy = load_policy(repo=git, revision=sha, config_path=None)
        inventory = build_inventory(git, sha, policy, language_of=language_for_path)
    return [
        (e.path, inventory.contents[e.path])
        for e in inventory.entries
        if e.status.value == FileStatus.INDEXED.value
    ]


def _parse_and_tag(batch: list[tuple[str, bytes]]) -> int:
    """The anchor's unit of work: parse each file, run its tags query (captures)."""
    from tree_sitter import QueryCursor

    from codegold.chunking.languages import compiled_query, language_for_path
    from codegold.chunking.structural import _parser

    done = 0
    for path, data in batch:
        language = language_for_path(path)
        if language is None:
            continue
        tree = _parser(language).parse(data.decode("utf-8", errors="replace").encode("utf-8"))
        QueryCursor(compiled_query(language).query).captures(tree.root_node)
        done += 1
    return done


def _child_anchor(repo: str, rev: str, workers: int) -> dict[str, Any]:
    from concurrent.futures import ProcessPoolExecutor

    jobs = _inventory_jobs(repo, rev)
    start = time.perf_counter()
    if workers <= 1:
        parsed = _parse_and_tag(jobs)
    else:
        # the build's batching: about total / (workers * 8) bytes a batch
        target = max(200_000, sum(len(d) for _, d in jobs) // (workers * 8))
        batches: list[list[tuple[str, bytes]]] = [[]]
        size = 0
        for job in jobs:
            batches[-1].append(job)
            size += len(job[1])
            if size >= target:
                batches.append([])
                size = 0
        with ProcessPoolExecutor(max_workers=workers) as pool:
            parsed = sum(pool.map(_parse_and_tag, [b for b in batches if b]))
    wall = time.perf_counter() - start
    return {
        "wall": wall,
        "files": len(jobs),
        "parsed": parsed,
        "mb": sum(len(d) for _, d in jobs) / 1e6,
    }


def _child_build(repo: str, rev: str, root: str, workers: int) -> dict[str, Any]:
    from codegold.corpus.git import GitRepo
    from codegold.corpus.policy import load_policy
    from codegold.index.build import BuildOptions, build_index

    with GitRepo(Path(repo)) as git:
        sha = git.resolve(rev)
        policy = load_policy(repo=git, revision=sha, config_path=None)
        start = time.perf_counter()
        manifest = build_index(
            git, sha, Path(root), policy=policy, options=BuildOptions(workers=workers)
        )
        wall = time.perf_counter() - start
    build = json.loads((Path(root) / "builds" / manifest.build_id / "build.json").read_text())
    return {
        "wall": wall,
        "chunks": manifest.chunks,
        "stats": build["stats"],
        "build": str(Path(root) / "builds" / manifest.build_id),
    }


# ---- parent side --------------------------------------------------------------------


def _run_child(*argv: str) -> dict[str, Any]:
    start = time.perf_counter()
    before = os.times()
    proc = subprocess.run(
        [sys.executable, __file__, "--child", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "CODEGOLD_QUIET_PROGRESS": "1"},
    )
    after = os.times()
    if proc.returncode != 0:
        raise SystemExit(f"child {argv} failed:\n{proc.stderr}")
    out: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    out["process"] = time.perf_counter() - start
    out["cpu"] = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return out


def _load() -> str:
    return "load " + "/".join(f"{x:.1f}" for x in os.getloadavg())


def _artifacts(build: Path) -> dict[str, str]:
    """sha256 of every file of a build, manifest.json and build.json aside."""
    return {
        p.relative_to(build).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(build.rglob("*"))
        if p.is_file() and p.name not in ("manifest.json", "build.json")
    }


def _same(a: dict[str, str], b: dict[str, str]) -> str:
    if a == b:
        return f"identical ({len(a)} files)"
    differ = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
    return "DIFFERENT: " + ", ".join(differ)


def _median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--repo", default=SYMPY)
    ap.add_argument("--old", default=OLD, help="the neighbouring revision built first")
    ap.add_argument("--new", default=NEW, help="the revision timed")
    ap.add_argument("--rounds", type=int, default=1, help="interleaved rounds (medians)")
    ap.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, *rest = args.child
        if mode == "anchor":
            print(json.dumps(_child_anchor(rest[0], rest[1], int(rest[2]))))
        else:
            print(json.dumps(_child_build(rest[0], rest[1], rest[2], int(rest[3]))))
        return

    work = Path(tempfile.mkdtemp(prefix="codegold-index-build-"))
    try:
        _bench(args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _bench(args: argparse.Namespace, work: Path) -> None:
    repo, old, new = args.repo, args.old, args.new
    print(f"repository {repo}\nold {old}\nnew {new}\ncores {os.cpu_count()}, {_load()}")
    anchors: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
    colds: dict[int, list[dict[str, Any]]] = {1: [], 2: []}
    for rnd in range(args.rounds):
        for workers in (1, 2):
            anchors[workers].append(_run_child("anchor", repo, new, str(workers)))
            root = work / f"cold-{workers}"
            shutil.rmtree(root, ignore_errors=True)
            colds[workers].append(_run_child("build", repo, new, str(root), str(workers)))
            print(
                f"  round {rnd + 1}, {workers} worker(s): anchor "
                f"{anchors[workers][-1]['wall']:.2f} s, cold {colds[workers][-1]['wall']:.2f} s"
                f"  [{_load()}]",
                flush=True,
            )
    first = anchors[1][0]
    print(
        f"\n{first['files']} indexed files ({first['parsed']} parsed), {first['mb']:.1f} MB, "
        f"{colds[1][0]['chunks']} chunks"
    )
    for workers in (1, 2):
        a, c = _median(anchors[workers], "wall"), _median(colds[workers], "wall")
        a_cpu, c_cpu = _median(anchors[workers], "cpu"), _median(colds[workers], "cpu")
        print(
            f"{workers} worker(s): anchor (parse + tag queries) {a:.2f} s "
            f"[cpu {a_cpu:.2f} s]; cold index {c:.2f} s [cpu {c_cpu:.2f} s, process "
            f"{_median(colds[workers], 'process'):.2f} s]; ratio {c / a:.2f}x "
            f"(target <= {TARGET_RATIO:.1f}x; cpu {c_cpu / a_cpu:.2f}x)  [{_load()}]"
        )
    a1, a2 = _median(anchors[1], "wall"), _median(anchors[2], "wall")
    c1, c2 = _median(colds[1], "wall"), _median(colds[2], "wall")
    print(
        f"2-core speedup: cold index {c1 / c2:.2f}x (target >= {TARGET_SPEEDUP:.1f}x), "
        f"anchor {a1 / a2:.2f}x  [{_load()}]"
    )

    neighbours: list[dict[str, Any]] = []
    for _ in range(args.rounds):
        root = work / "neighbour"
        shutil.rmtree(root, ignore_errors=True)
        _run_child("build", repo, old, str(root), "2")
        neighbours.append(_run_child("build", repo, new, str(root), "2"))
    n = neighbours[-1]
    print(
        f"neighbouring revision ({n['stats']['filesChunked']} files re-chunked, "
        f"{n['stats']['filesFromCache']} from cache): {_median(neighbours, 'wall'):.2f} s "
        f"[cpu {_median(neighbours, 'cpu'):.2f} s, process "
        f"{_median(neighbours, 'process'):.2f} s] (target <= {TARGET_NEIGHBOUR_S:.1f} s)  "
        f"[{_load()}]"
    )
    cold1, cold2 = _artifacts(Path(colds[1][-1]["build"])), _artifacts(Path(colds[2][-1]["build"]))
    print(f"artifacts, cold 1 worker vs cold 2 workers: {_same(cold1, cold2)}")
    print(f"artifacts, neighbouring vs cold build: {_same(_artifacts(Path(n['build'])), cold2)}")


if __name__ == "__main__":
    main()
