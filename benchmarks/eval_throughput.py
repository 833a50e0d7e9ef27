"""Evaluator throughput: 10,000 generated cases x 50 ranked chunks, end to end.

    python benchmarks/eval_throughput.py [--cases N,M] [--depth D] [--rounds R]
                                         [--large-rounds R] [--against SRC]

Every figure is a whole process, started afresh, timed from outside: `codegold eval
--workers 2` (two processes: the parent and its forked worker each score half the
attempts; the default picks two only when the machine has a core to spare), the same
with `--workers 1` (one process), the anchor (ir_measures computing only RR@5 and
Success@5 on the same rankings, JSON parsing included), and the floor (a streaming
msgspec decode and re-encode of the same bytes).
They run interleaved, R rounds (the machine's cores are shared), and the medians and
their ratios are printed, with codegold's peak RSS and its worker's, and whether every
round's results.json and summary.json are byte-identical, for each input size (10,000
and 50,000 cases by default; the larger one mostly for peak RSS), with the machine's
load averages beside them. Then `codegold --help`.

``--against SRC`` (another copy of codegold's ``src`` folder, e.g. main's checked out
elsewhere) times that copy too, in the same interleaved rounds, and prints its medians
beside these ones (before/after a change on the same machine at the same moment), and
whether both copies wrote the same bytes.

codegold's processes read compiled bytecode from a cache warmed by an untimed run of
each copy before the rounds (``PYTHONPYCACHEPREFIX``), as an installed package does (pip
compiles it) and as the anchor's and the floor's libraries do from site-packages: a
source tree run where writing bytecode is forbidden (``PYTHONDONTWRITEBYTECODE``) would
otherwise compile every codegold module in every timed process. ``--cold-bytecode``
times it that way.

The anchor is one process; codegold's two run on the same cores (the machine's, shared).
Targets (README, Performance): codegold at most 0.5x the anchor; peak RSS that does
not grow with the number of passing cases (at most 150 MB at 50,000 cases).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
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


IR_MEASURES = """
import json, sys
import ir_measures
from ir_measures import RR, Success
cases = {}
for line in open(sys.argv[1], "rb"):
    c = json.loads(line)
    cases[c["id"]] = c
qrels, run = {}, {}
for line in open(sys.argv[2], "rb"):
    a = json.loads(line)
    target = cases[a["caseId"]]["accepted"][0]
    rel, scores = {}, {}
    for ch in a["ranked"]:
        scores[ch["chunkId"]] = ch["score"]
        if ch["file"] == target["file"] and ch["symbol"] == target["symbol"]:
            rel[ch["chunkId"]] = 1
    qrels[a["caseId"]] = rel or {"none": 1}
    run[a["caseId"]] = scores
ir_measures.calc_aggregate([RR @ 5, Success @ 5], qrels, run)
"""

FLOOR = """
import sys
import msgspec
decode, encode = msgspec.json.decode, msgspec.json.Encoder().encode
with open(sys.argv[3], "wb") as out:
    for path in sys.argv[1:3]:
        for line in open(path, "rb"):
            out.write(encode(decode(line)) + b"\\n")
"""


BYTECODE: Path | None = None
"""Where codegold's processes keep their compiled bytecode (a cache warmed before the
rounds), or None to leave the environment as it is (``--cold-bytecode``)."""


def timed(argv: list[str], src: Path | None = None) -> tuple[float, float]:
    """Run a whole process (importing codegold from ``src`` when given); (wall seconds,
    its peak RSS in MB)."""
    env = None
    if src is not None:
        env = {**os.environ, "PYTHONPATH": str(src)}
    if BYTECODE is not None and argv[:2] == [sys.executable, "-c"] and argv[2] == PEAK:
        env = {**(env or os.environ), "PYTHONPYCACHEPREFIX": str(BYTECODE)}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} ... exited {proc.returncode}")
    return seconds, usage.ru_maxrss / 1024


PEAK = """
import atexit, resource, runpy, sys
report = sys.argv[1]
sys.argv = ["codegold", *sys.argv[2:]]

def peak():
    with open("/proc/self/status") as status:
        kb = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    worker = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    with open(report, "w") as out:
        out.write(f"{kb} {worker}")

atexit.register(peak)
runpy.run_module("codegold", run_name="__main__", alter_sys=True)
"""
"""Runs codegold and writes its own peak RSS (VmHWM, KB) to argv[1]: the rusage a parent
gets also counts the pages the child shared with it before exec (this script's own,
hundreds of MB after it generated and compared 50,000 cases); then its worker's peak
(eval's forked worker: its rusage, which counts the pages it shares with codegold)."""


def codegold_argv(
    suite: Path, attempts: Path, out: Path, peak_file: Path, workers: int = 2
) -> list[str]:
    return [
        sys.executable, "-c", PEAK, str(peak_file), "eval", "--cases", str(suite),
        "--attempts", str(attempts), "--out", str(out), "--quiet", "--workers", str(workers),
    ]  # fmt: skip


def have_ir_measures() -> bool:
    try:
        import ir_measures  # noqa: F401
    except ImportError:
        return False
    return True


def load_line() -> str:
    """The machine's load averages, printed beside the figures (the cores are shared)."""
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} on {os.cpu_count()} cores"


def measure(
    folder: Path, n_cases: int, depth: int, rounds: int, against: Path | None = None
) -> None:
    """One input size: interleaved rounds of codegold, the anchor and the floor."""
    suite, attempts = generate(folder, n_cases, depth)
    size = (suite.stat().st_size + attempts.stat().st_size) / 1e6
    print(f"input: {n_cases} cases x {depth} ranked chunks, {size:.1f} MB ({load_line()})")
    anchor = have_ir_measures()
    if not anchor:
        print("ir_measures not installed: pip install 'codegold[test]'")
    ours: list[float] = []
    single: list[float] = []
    rss: list[float] = []
    worker_rss: list[float] = []
    irm: list[float] = []
    floor: list[float] = []
    other: list[float] = []
    other_single: list[float] = []
    if BYTECODE is not None:  # warm the bytecode cache of each copy timed: untimed runs
        warm = folder / "warm.jsonl"
        with attempts.open("rb") as lines:
            warm.write_bytes(lines.readline())
        for src in (None, against) if against is not None else (None,):
            timed(codegold_argv(suite, warm, folder / "warm", folder / "peak.txt"), src)
    for i in range(rounds):  # interleaved: the cores are shared
        if against is not None:
            peak_file = folder / "peak.txt"
            argv = codegold_argv(suite, attempts, folder / f"base{i}", peak_file)
            other.append(timed(argv, against)[0])
            argv = codegold_argv(suite, attempts, folder / f"baseone{i}", peak_file, workers=1)
            other_single.append(timed(argv, against)[0])
        peak_file = folder / "peak.txt"
        seconds, _ = timed(codegold_argv(suite, attempts, folder / f"out{i}", peak_file))
        ours.append(seconds)
        own, worker = peak_file.read_text().split()
        rss.append(int(own) / 1024)
        worker_rss.append(int(worker) / 1024)
        one = folder / f"one{i}"
        single.append(timed(codegold_argv(suite, attempts, one, peak_file, workers=1))[0])
        if anchor:
            irm.append(timed([sys.executable, "-c", IR_MEASURES, str(suite), str(attempts)])[0])
        again = folder / "again.jsonl"
        floor.append(timed([sys.executable, "-c", FLOOR, str(suite), str(attempts), str(again)])[0])
        again.unlink()
    same = all(
        (folder / run / name).read_bytes() == (folder / "out0" / name).read_bytes()
        for i in range(rounds)
        for run in (f"out{i}", f"one{i}")
        for name in ("results.json", "summary.json")
    )
    if against is not None:
        alike = all(
            (folder / run / name).read_bytes() == (folder / "out0" / name).read_bytes()
            for i in range(rounds)
            for run in (f"base{i}", f"baseone{i}")
            for name in ("results.json", "summary.json")
        )
        print(
            f"  {against}: --workers 2 median {statistics.median(other):.2f} s, --workers 1 "
            f"median {statistics.median(other_single):.2f} s (same bytes as this copy's: "
            f"{alike})"
        )
    mid = statistics.median(ours)
    print(
        f"  codegold eval --workers 2 (whole process, 2 processes on the 2 cores): median "
        f"{mid:.2f} s of {rounds}, {n_cases / mid:,.0f} cases/s, peak RSS {max(rss):.0f} MB, its "
        f"worker's {max(worker_rss):.0f} MB (counting the pages they share; target <= 150 "
        f"MB at 50,000 cases), byte-identical reruns (and with --workers 1): {same}"
    )
    one_mid = statistics.median(single)
    print(f"  codegold eval --workers 1 (one process): median {one_mid:.2f} s")
    low = statistics.median(floor)
    print(f"  msgspec decode + re-encode (whole process): median {low:.2f} s")
    if irm:
        anchor_s = statistics.median(irm)
        print(f"  ir_measures RR@5+Success@5 (whole process): median {anchor_s:.2f} s")
        print(f"  codegold/ir_measures = {mid / anchor_s:.2f}x (target <= 0.5x)")
        print(f"  codegold --workers 1/ir_measures = {one_mid / anchor_s:.2f}x")
    print(f"  codegold/msgspec floor = {mid / low:.2f}x")
    print(f"  ({load_line()} after the rounds)")
    for i in range(rounds):
        for run in (f"out{i}", f"one{i}", f"base{i}", f"baseone{i}"):
            for name in ("results.json", "summary.json"):
                (folder / run / name).unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--cases",
        default="10000,50000",
        help="comma-separated input sizes, each measured in its own interleaved rounds",
    )
    parser.add_argument("--depth", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--large-rounds",
        type=int,
        default=1,
        help="rounds for sizes above 10,000 cases (they take a while; RSS is what they show)",
    )
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="another copy of codegold's src folder, timed in the same rounds",
    )
    parser.add_argument(
        "--cold-bytecode",
        action="store_true",
        help="let codegold compile its modules in every timed process when the environment "
        "forbids writing bytecode (PYTHONDONTWRITEBYTECODE, a source tree without any), as "
        "an installed package never does",
    )
    args = parser.parse_args()
    global BYTECODE
    work = None
    if not args.cold_bytecode:
        work = tempfile.TemporaryDirectory()
        BYTECODE = Path(work.name) / "bytecode"
        print(
            "codegold's processes read compiled bytecode (PYTHONPYCACHEPREFIX, warmed before "
            "the rounds), as an installed package does; --cold-bytecode to compile in each"
        )
    for n_cases in (int(n) for n in args.cases.split(",")):
        rounds = args.rounds if n_cases <= 10_000 else args.large_rounds
        with tempfile.TemporaryDirectory() as tmp:
            measure(Path(tmp), n_cases, args.depth, rounds, args.against)
    starts = []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "codegold", "--help"], capture_output=True, check=True
        )
        starts.append(time.perf_counter() - t)
    print(f"`codegold --help`: {statistics.median(starts) * 1000:.0f} ms median of 5")
    if work is not None:
        work.cleanup()


if __name__ == "__main__":
    main()
