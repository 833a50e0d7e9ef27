"""Index and query figures on real corpora built by benchmarks/corpora.py.

    python benchmarks/corpora.py django zod           # once: build the git repositories
    python benchmarks/index_and_query.py [--corpus django] [--dense builtin] [--queries 300]

For each corpus: a cold full index (fresh folder, empty cache) through the real CLI in a
subprocess (wall time, MB/s and lines/s of indexed source, index size on disk, peak RSS
of the process and of its workers), query latency p50/p95 over N queries in-process after
loading, and the re-index of the neighbouring revision (the second commit) from the blob
cache. ``--dense`` adds the same with dense vectors from an embedding provider.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = HERE / ".work" / "corpora"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def revisions(repo: Path) -> list[str]:
    return git(repo, "rev-list", "--reverse", "HEAD").split()


def folder_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def index_once(repo: Path, rev: str, root: Path, embedder: str) -> dict[str, float]:
    code = (
        "import resource,sys,time\n"
        "t=time.perf_counter()\n"
        "from codegold.cli import main\n"
        "try:\n main(sys.argv[1:])\nexcept SystemExit as e:\n"
        " assert not e.code, e.code\n"
        "w=time.perf_counter()-t\n"
        "s=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024\n"
        "c=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024\n"
        "print(w,s,c)\n"
    )
    argv = ["index", str(repo), "--revision", rev, "--out", str(root), "--embedder", embedder]
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        env={"CODEGOLD_QUIET_PROGRESS": "1", "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"},
    )
    if proc.returncode != 0:
        raise SystemExit(proc.stderr)
    wall, rss_self, rss_children = (float(x) for x in proc.stdout.split()[-3:])
    return {"wall": wall, "rssSelf": rss_self, "rssWorkers": rss_children}


def source_size(root: Path, rev: str) -> tuple[float, int, int]:
    from codegold.index.store import open_index

    index = open_index(root, rev)
    size = sum(e.size for e in index.inventory if str(e.status) in ("indexed", "unparsable"))
    lines = sum(c.end_line - c.start_line + 1 for c in index.chunks)
    return size / 1e6, lines, len(index.chunks)


def make_queries(root: Path, rev: str, n: int, seed: int = 11) -> list[str]:
    from codegold.index.store import open_index

    index = open_index(root, rev)
    rng = random.Random(seed)
    names = sorted({c.symbol for c in index.chunks if c.symbol and c.role == "definition"})
    forms = [
        "what is {}?",
        "how does {} handle errors?",
        "where is {} defined",
        "show me an example of calling {}",
        "{}",
        "how is {} configured",
    ]
    prose = [
        "how are database connections pooled",
        "where do we validate the session token",
        "what happens when the cache is full",
        "how are timezones converted for display",
        "where is the request body parsed",
    ]
    out = []
    for i in range(n):
        if i % 5 == 4:
            out.append(rng.choice(prose))
        else:
            out.append(rng.choice(forms).format(rng.choice(names)))
    return out


def _percentiles(times: list[float]) -> dict[str, float]:
    times = sorted(times)
    return {
        "p50": statistics.median(times),
        "p95": times[int(len(times) * 0.95) - 1],
        "max": times[-1],
    }


def query_latency(root: Path, rev: str, queries: list[str], embedder: str) -> dict[str, float]:
    from codegold.index.embed import resolve_embedder
    from codegold.index.store import open_index
    from codegold.retrieve.hybrid import HybridRetriever

    t = time.perf_counter()
    index = open_index(root, rev)
    provider = resolve_embedder(embedder) if index.vectors is not None else None
    retriever = HybridRetriever(index, embedder=provider)
    retriever.search("warm up the phrase blob: no such thing")
    load = time.perf_counter() - t
    times = []
    for q in queries:
        s = time.perf_counter()
        retriever.search(q)
        times.append((time.perf_counter() - s) * 1000)
    return {"load": load, **_percentiles(times)}


def lexical_stages(root: Path, rev: str, queries: list[str]) -> dict[str, dict[str, float]]:
    """The lexical path with and without its later stages (the coverage and hub factors
    over the top, the three-word runs of pasted messages), each query timed both ways in
    turn so that both see the same load."""
    from codegold.index.store import open_index
    from codegold.retrieve.config import RetrieverConfig
    from codegold.retrieve.hybrid import HybridRetriever

    index = open_index(root, rev)
    both = {
        "with": HybridRetriever(index),
        "without": HybridRetriever(
            index, RetrieverConfig(lexical_precision=0.0, phrase_fragments=0.0)
        ),
    }
    times: dict[str, list[float]] = {name: [] for name in both}
    for retriever in both.values():
        retriever.search("warm up the phrase blob: no such thing")
    for q in queries:
        for name, retriever in both.items():
            s = time.perf_counter()
            retriever.search(q)
            times[name].append((time.perf_counter() - s) * 1000)
    return {name: _percentiles(t) for name, t in times.items()}


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f})"


def run_corpus(name: str, embedder: str, n_queries: int) -> dict[str, float]:
    repo = CORPORA / name
    if not repo.exists():
        print(f"{name}: not built; run: python benchmarks/corpora.py {name}")
        return {}
    revs = revisions(repo)
    with tempfile.TemporaryDirectory(prefix=f"cg-{name}-") as tmp:
        root = Path(tmp) / "index"
        cold = index_once(repo, revs[0], root, embedder)
        mb, lines, chunks = source_size(root, revs[0])
        print(
            f"{name} [{embedder}] cold index: {cold['wall']:.1f} s, {mb:.1f} MB, {lines:,} lines "
            f"({mb / cold['wall']:.1f} MB/s, {lines / cold['wall']:,.0f} lines/s), "
            f"{chunks:,} chunks; index {folder_mb(root / 'builds'):.0f} MB on disk "
            f"(+ cache {folder_mb(root) - folder_mb(root / 'builds'):.0f} MB); "
            f"peak RSS {cold['rssSelf']:.0f} MB main, {cold['rssWorkers']:.0f} MB per worker"
        )
        print(f"  ({load_average()} after the index)")
        queries = make_queries(root, revs[0], n_queries)
        lat = query_latency(root, revs[0], queries, embedder)
        print(
            f"{name} [{embedder}] query: load {lat['load']:.2f} s; {n_queries} queries "
            f"p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms, max {lat['max']:.1f} ms "
            f"({load_average()})"
        )
        if embedder == "none":
            stages = lexical_stages(root, revs[0], queries)
            print(
                f"{name} [none] lexical path, same queries interleaved: with the later stages "
                f"p50 {stages['with']['p50']:.2f} / p95 {stages['with']['p95']:.2f} ms, "
                f"without p50 {stages['without']['p50']:.2f} / p95 "
                f"{stages['without']['p95']:.2f} ms ({load_average()})"
            )
        if len(revs) > 1:
            warm = index_once(repo, revs[1], root, embedder)
            changed = git(repo, "diff", "--name-only", revs[0], revs[1]).count("\n") + 1
            from codegold.index.store import open_index

            new = open_index(root, revs[1])
            stats = json.loads((new.folder / "build.json").read_text())["stats"]
            print(
                f"{name} [{embedder}] neighbouring revision ({changed} paths changed): "
                f"{warm['wall']:.1f} s, re-chunked {stats['filesChunked']} files, "
                f"{stats['filesFromCache']} from cache"
            )
        shutil.rmtree(root, ignore_errors=True)
    return {"index": cold["wall"], "p95": lat["p95"]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", action="append", help="django, zod, … (default: django, zod)")
    parser.add_argument("--dense", default=None, help="also run with this embedder (e.g. builtin)")
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    for name in args.corpus or ["django", "zod"]:
        lexical = run_corpus(name, "none", args.queries)
        if args.dense and lexical:
            dense = run_corpus(name, args.dense, args.queries)
            multiple = dense["index"] / lexical["index"]
            print(
                f"{name} [{args.dense}] vs lexical only: index time x{multiple:.1f}, "
                f"query p95 {dense['p95']:.1f} ms vs {lexical['p95']:.1f} ms"
            )


if __name__ == "__main__":
    main()
