"""`codegold search` as a whole process, beside start-up anchors measured in the same run.

    python benchmarks/search_startup.py --index IDX [--revision REV] [--rounds 15]
    python benchmarks/search_startup.py --repo /path/to/sympy.git --index IDX   # builds IDX once

Each round runs, in an interleaved order, ``python -c pass``, ``python -c "import numpy"``,
``python -m codegold --version`` and ``python -m codegold search QUERY`` over the
queries (each query its own process), and the figures are medians over the rounds, so
the load on a shared machine falls on every command alike; each command's CPU time
(user + system, from ``wait4``) is printed beside its wall time, as waiting for a busy
core inflates only the latter. Bytecode caching is on in
the children (an installed package has its ``.pyc`` files; ``PYTHONDONTWRITEBYTECODE``
is dropped), and one warm-up round fills the page cache, the index's digest stamps
(``verified.json``) and the files a first search derives (``chunks.ends``,
``chunks.lower``, the sorted vocabularies and symbol maps). ``--cold-verify`` also
times searches that have to hash every file of the build again and derive those files
(all removed before each of them): the first search after a build, or after any file
of it changed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERIES = (
    "where is the Matrix determinant computed",
    "Matrix.det",
    '"could not solve" error in solveset',
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _time(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one run of ``argv``."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed ({proc.returncode}): {err.strip()}")
    return elapsed, usage.ru_utime + usage.ru_stime


def _builds(index: Path) -> list[Path]:
    return [p for p in (index / "builds").iterdir() if (p / "manifest.json").is_file()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="index root folder")
    parser.add_argument("--repo", type=Path, help="build --index from this repository first")
    parser.add_argument("--revision", help="which indexed revision (when several)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--query", action="append", help="a query (repeatable)")
    parser.add_argument("--cold-verify", action="store_true", help="also time re-hashing")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    env = _env()
    py = sys.executable
    if args.repo is not None and not (args.index / "revisions").is_dir():
        build = [py, "-m", "codegold", "index", str(args.repo), "--out", str(args.index)]
        print("building the index once:", " ".join(build), flush=True)
        subprocess.run([*build, "--embedder", "none"], env=env, check=True)
    queries = tuple(args.query or QUERIES)
    search = [py, "-m", "codegold", "search", "--index", str(args.index), "--embedder", "none"]
    if args.revision:
        search += ["--revision", args.revision]
    commands: dict[str, list[str]] = {
        "python -c pass": [py, "-c", "pass"],
        "python -c 'import numpy'": [py, "-c", "import numpy"],
        "codegold --version": [py, "-m", "codegold", "--version"],
    }
    for n, q in enumerate(queries, start=1):
        commands[f"search q{n}"] = [*search, q]
    # what the first search of a build writes: digest stamps, derived row ends and terms
    stamps = [
        p
        for b in _builds(args.index)
        for pattern in ("verified.json", "chunks.ends", "chunks.lower", "*.sorted", "*/*.sorted")
        for p in b.glob(pattern)
    ]
    if args.cold_verify:
        commands["search q1, hashing every file"] = [*search, queries[0]]
    for argv_ in commands.values():  # warm-up: page cache, .pyc files, stamps, derived files
        _time(argv_, env)
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        names = list(commands)
        names = names[r % len(names) :] + names[: r % len(names)]  # rotate the order
        for name in names:
            if name.endswith("hashing every file"):
                for stamp in stamps:
                    stamp.unlink(missing_ok=True)
            wall, used = _time(commands[name], env)
            times[name].append(wall)
            cpu[name].append(used)
        loads.append(os.getloadavg()[0])
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    cpu_medians = {name: statistics.median(ts) for name, ts in cpu.items()}
    search_names = [n for n in commands if n.startswith("search q") and "hashing" not in n]
    search_median = statistics.median([t for n in search_names for t in times[n]])
    search_cpu = statistics.median([t for n in search_names for t in cpu[n]])
    manifest = json.loads((_builds(args.index)[0] / "manifest.json").read_text())
    size = sum(f["size"] for f in manifest.get("files", {}).values())
    print(
        f"index {args.index}: {manifest.get('filesIndexed')} files, {manifest.get('chunks')} "
        f"chunks, {size / 1e6:.1f} MB of build files; {args.rounds} rounds, "
        f"load average {min(loads):.1f}-{max(loads):.1f} (1 min)"
    )
    width = max(len(n) for n in commands)
    for name in commands:
        ts = sorted(times[name])
        p90 = ts[min(len(ts) - 1, int(0.9 * len(ts)))]
        median = medians[name] * 1000
        print(
            f"  {name:<{width}}  wall median {median:7.1f} ms  p90 {p90 * 1000:7.1f} ms"
            f"   CPU median {cpu_medians[name] * 1000:7.1f} ms"
        )
    for label, value, table in (("wall", search_median, medians), ("CPU", search_cpu, cpu_medians)):
        version = table["codegold --version"]
        numpy = table["python -c 'import numpy'"]
        print(
            f"search {label} median (all queries) {value * 1000:.1f} ms = "
            f"{value / version:.2f}x codegold --version, {value / numpy:.2f}x import numpy; "
            f"beyond --version {(value - version) * 1000:.1f} ms; "
            f"target 300 ms: {'met' if value <= 0.3 else 'NOT met'}"
        )
    if args.json is not None:
        figures = {
            "index": str(args.index),
            "chunks": manifest.get("chunks"),
            "rounds": args.rounds,
            "loadAverages": loads,
            "medianSeconds": medians,
            "medianCpuSeconds": cpu_medians,
            "searchMedianSeconds": search_median,
            "searchMedianCpuSeconds": search_cpu,
            "searchOverVersion": search_median / medians["codegold --version"],
        }
        args.json.write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
