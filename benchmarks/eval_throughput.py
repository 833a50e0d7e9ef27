"""Evaluator throughput: 10,000 generated cases x 50 ranked chunks, end to end.

    python benchmarks/eval_throughput.py [--cases N] [--depth D]

Prints cases/s for parse + evaluate + write, peak memory (RSS), `codegold --help`
start-up time, and the time ir_measures takes for RR@5 and Success@5 alone on the
same data (a metrics-only library), with the ratio.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REV = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"
ROLES = ["definition", "call_site", "test", "docs"]


def generate(folder: Path, n_cases: int, depth: int, seed: int = 7) -> tuple[Path, Path]:
    rng = random.Random(seed)
    suite = folder / "suite.jsonl"
    attempts = folder / "attempts.jsonl"
    manifest = {
        "buildId": "bench",
        "repositoryRevision": REV,
        "chunkerVersion": "v",
        "pathPolicy": "p",
        "builtAt": "2024-01-01T00:00:00Z",
        "complete": True,
    }
    with suite.open("w") as s, attempts.open("w") as a:
        for i in range(n_cases):
            target = f"src/m{rng.randrange(200)}/f{i}.py"
            case = {
                "id": f"case-{i:05d}",
                "query": f"how does f{i} work?",
                "queryClass": rng.choice(["behavior", "exact_identifier", "usage_example"]),
                "repositoryRevision": REV,
                "cutoff": 5,
                "accepted": [{"file": target, "symbol": f"f{i}", "roles": ["definition"]}],
                "forbiddenPathPrefixes": ["src/legacy/"],
                "tags": [rng.choice(["auth", "billing", "search"])],
            }
            if i % 3 == 0:
                case["groups"] = [{"id": "cfg", "anyOf": [{"file": f"config/c{i}.toml"}]}]
            s.write(json.dumps(case) + "\n")
            ranked = []
            hit = rng.randrange(depth + 10)
            for r in range(depth):
                if r == hit:
                    f, sym, role = target, f"f{i}", "definition"
                elif rng.random() < 0.02:
                    f, sym, role = f"src/legacy/f{i}.py", f"f{i}", "definition"
                else:
                    f, sym, role = f"src/m{rng.randrange(200)}/g{r}.py", f"g{r}", rng.choice(ROLES)
                ranked.append(
                    {
                        "chunkId": f"k{i}-{r}",
                        "file": f,
                        "startLine": 1 + r,
                        "endLine": 20 + r,
                        "symbol": sym,
                        "role": role,
                        "repositoryRevision": REV,
                        "score": round(1.0 - r / depth, 4),
                    }
                )
            a.write(
                json.dumps(
                    {
                        "attemptId": f"a{i}",
                        "caseId": case["id"],
                        "index": manifest,
                        "ranked": ranked,
                    }
                )
                + "\n"
            )
    return suite, attempts


def run_codegold(suite: Path, attempts: Path, out: Path) -> tuple[float, float]:
    """Run the whole eval in a child process; returns (seconds, peak RSS MB)."""
    code = (
        "import sys,time,resource;t=time.perf_counter();"
        "from codegold.cli import main;"
        "sys.argv=['codegold','eval','--cases',sys.argv[1],'--attempts',sys.argv[2],"
        "'--out',sys.argv[3],'--quiet'];\n"
        "try:\n main()\nexcept SystemExit:\n pass\n"
        "print(time.perf_counter()-t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss/1024)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(suite), str(attempts), str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, rss = proc.stdout.split()[-2:]
    return float(seconds), float(rss)


def run_ir_measures(suite: Path, attempts: Path) -> float | None:
    try:
        import ir_measures
        from ir_measures import RR, Success
    except ImportError:
        return None
    t = time.perf_counter()
    qrels: dict[str, dict[str, int]] = {}
    cases = {}
    for line in suite.open():
        c = json.loads(line)
        cases[c["id"]] = c
    run: dict[str, dict[str, float]] = {}
    for line in attempts.open():
        a = json.loads(line)
        target = cases[a["caseId"]]["accepted"][0]
        rel = {}
        scores = {}
        for ch in a["ranked"]:
            scores[ch["chunkId"]] = ch["score"]
            if ch["file"] == target["file"] and ch["symbol"] == target["symbol"]:
                rel[ch["chunkId"]] = 1
        qrels[a["caseId"]] = rel or {"none": 1}
        run[a["caseId"]] = scores
    ir_measures.calc_aggregate([RR @ 5, Success @ 5], qrels, run)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite, attempts = generate(folder, args.cases, args.depth)
        size = (suite.stat().st_size + attempts.stat().st_size) / 1e6
        print(f"input: {args.cases} cases x {args.depth} ranked chunks, {size:.1f} MB")
        runs = [run_codegold(suite, attempts, folder / f"out{i}") for i in range(3)]
        seconds = min(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        same = (folder / "out0" / "results.json").read_bytes() == (
            folder / "out1" / "results.json"
        ).read_bytes()
        print(
            f"codegold eval (parse+evaluate+write): {seconds:.2f} s best of 3, "
            f"{args.cases / seconds:,.0f} cases/s, peak RSS {rss:.0f} MB, "
            f"byte-identical reruns: {same}"
        )
        irm = run_ir_measures(suite, attempts)
        if irm is None:
            print("ir_measures not installed: pip install 'codegold[test]'")
        else:
            print(
                f"ir_measures RR@5+Success@5 (json parse + compute): {irm:.2f} s; "
                f"codegold/ir_measures = {seconds / irm:.2f}x"
            )
    starts = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "codegold", "--help"], capture_output=True, check=True
        )
        starts.append(time.perf_counter() - t)
    print(f"`codegold --help`: {min(starts) * 1000:.0f} ms best of 5")


if __name__ == "__main__":
    main()
