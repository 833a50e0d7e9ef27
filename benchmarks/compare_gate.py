"""compare + gate on two generated runs of 10,000 cases, end to end.

    python benchmarks/compare_gate.py [--cases N] [--depth D] [--resamples R]

Writes two seeded results.json files (with queryClass, tag, language, area and role
slices; the head run improves overall while the ``tag:high-risk`` slice regresses),
then times ``compare`` + ``gate`` together, once through the Python API (load, compare,
gate, JSON views) and once through the CLI as subprocesses. Prints wall times (target:
under 5 s together) and peak memory (RSS) of each process.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REV = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"
CLASSES = ["exact_identifier", "behavior", "stack_trace", "usage_example", "configuration"]
LANGUAGES = ["python", "typescript", "go", "java", "rust"]
AREAS = [f"area{i}" for i in range(12)]
TAGS = ["auth", "billing", "search", "payments", "infra", "ui", "high-risk"]
ROLE_SETS = [["definition"], ["definition", "declaration"], ["call_site"], ["test"], ["any"]]

POLICY = """\
[gate]
minPassRate = 0.5
maxForbiddenRate = 0.2
maxRevisionMismatchRate = 0.05
maxInvalid = 50
minMRR = 0.3
noRegression = ["tag:high-risk", "queryClass:exact_identifier"]

[gate.slices."tag:high-risk"]
minPassRate = 0.6
maxForbiddenRate = 0.1

[gate.slices."language:go"]
minHitRate = 0.5
"""


def _record(
    case: dict[str, object],
    attempt: str,
    first: int | None,
    depth: int,
    rng: random.Random,
    *,
    forbidden: bool,
    mismatch: bool,
    valid: bool = True,
) -> dict[str, object]:
    cutoff = 5
    ranked = []
    for r in range(1, depth + 1):
        accepted = r == first
        file = f"{case['area']}/mod{rng.randrange(50)}/f{r}.py"
        match = "accepted" if accepted else "none"
        if forbidden and r == 2 and not accepted:
            file, match = f"legacy/f{r}.py", "forbidden"
        ranked.append(
            {
                "rank": r,
                "chunkId": f"{case['caseId']}:{attempt}:{r}",
                "file": file,
                "symbol": f"sym{r}",
                "role": "definition",
                "repositoryRevision": "0" * 40 if mismatch and r == 1 else REV,
                "score": round(1 - r / (depth + 1), 4),
                "match": match,
                "startLine": r,
                "endLine": r + 20,
                "coversTargetSpan": accepted,
            }
        )
    hit = first is not None and first <= cutoff
    passed = valid and hit and not forbidden and not mismatch
    return {
        **case,
        "cutoff": cutoff,
        "attemptId": attempt,
        "valid": valid,
        "invalidReason": None if valid else "index bench is incomplete",
        "passed": passed,
        "firstRelevantRank": first if hit else None,
        "reciprocalRank": 1 / first if hit and first else 0.0,
        "groupRecall": 1.0 if hit else 0.0,
        "missingGroupIds": [] if hit else ["accepted"],
        "supportingFound": [],
        "forbiddenChunkIds": [f"{case['caseId']}:{attempt}:2"] if forbidden else [],
        "revisionMismatches": [f"{case['caseId']}:{attempt}:1"] if mismatch else [],
        "ranked": ranked,
        "diagnosis": None,
    }


def generate(folder: Path, n_cases: int, depth: int, seed: int = 11) -> tuple[Path, Path]:
    rng = random.Random(seed)
    base: list[dict[str, object]] = []
    head: list[dict[str, object]] = []
    for i in range(n_cases):
        tags = sorted(set(rng.sample(TAGS[:-1], rng.randint(0, 2))))
        if rng.random() < 0.1:
            tags.append("high-risk")
        case: dict[str, object] = {
            "caseId": f"case-{i:05d}",
            "query": f"how does f{i} work?",
            "queryClass": rng.choice(CLASSES),
            "repositoryRevision": REV,
            "tags": tags,
            "language": rng.choice(LANGUAGES),
            "area": rng.choice(AREAS),
            "targetRoles": rng.choice(ROLE_SETS),
        }
        first = rng.choice([1, 1, 2, 3, 4, 5, 6, 8, None])
        forbidden = rng.random() < 0.05
        mismatch = rng.random() < 0.01
        base.append(_record(case, "a1", first, depth, rng, forbidden=forbidden, mismatch=mismatch))
        # The head improves most slices and regresses the high-risk one.
        if "high-risk" in tags and first is not None and rng.random() < 0.3:
            new_first: int | None = 7
        elif first is None or first > 5:
            new_first = rng.choice([1, 2, first]) if rng.random() < 0.4 else first
        else:
            new_first = rng.choice([first, first, 1, 2, 3])
        valid = rng.random() > 0.002
        head.append(
            _record(
                case,
                "a1",
                new_first,
                depth,
                rng,
                forbidden=forbidden and rng.random() < 0.7,
                mismatch=mismatch,
                valid=valid,
            )
        )
    paths = folder / "base.json", folder / "head.json"
    for path, records in zip(paths, (base, head), strict=True):
        path.write_text(json.dumps(records))
    return paths


def _child(argv: list[str]) -> tuple[float, float, int]:
    """Run a child process; returns (seconds, peak RSS MB, exit code)."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        err = proc.stderr.read().decode()
        proc.stderr.close()
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{argv} failed ({proc.returncode}): {err}")
    return seconds, usage.ru_maxrss / 1024, proc.returncode


API = """\
import sys, time, resource
t0 = time.perf_counter()
from codegold.compare import compare_runs
from codegold.evaluate.records import load_results
from codegold.gate import evaluate_gate, load_policy
base, head, policy, resamples = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t1 = time.perf_counter()
b, h = load_results(base), load_results(head)
t2 = time.perf_counter()
cmp = compare_runs(b, h, seed=0, resamples=resamples)
cmp.to_dict(); cmp.to_html()
t3 = time.perf_counter()
decision = evaluate_gate(h, load_policy(policy), b)
decision.to_dict()
t4 = time.perf_counter()
flagged = [s.name for s in cmp.flagged_slices][:3]
print(t1 - t0, t2 - t1, t3 - t2, t4 - t3, t4 - t0,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
      int(decision.blocked), len(cmp.slices), ",".join(flagged))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--depth", type=int, default=20, help="ranked chunks per record")
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--generate-into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.generate_into is not None:
        generate(args.generate_into, args.cases, args.depth)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # Generate in a child: Linux carries a parent's peak RSS into its children's
        # ru_maxrss across fork+exec, which would inflate every figure below.
        subprocess.run(
            [
                sys.executable,
                __file__,
                "--cases",
                str(args.cases),
                "--depth",
                str(args.depth),
                "--generate-into",
                str(folder),
            ],
            check=True,
        )
        base, head = folder / "base.json", folder / "head.json"
        policy = folder / "gate.toml"
        policy.write_text(POLICY)
        size = (base.stat().st_size + head.stat().st_size) / 1e6
        print(f"input: 2 runs x {args.cases} cases x {args.depth} ranked chunks, {size:.1f} MB")

        proc = subprocess.run(
            [sys.executable, "-c", API, str(base), str(head), str(policy), str(args.resamples)],
            capture_output=True,
            text=True,
            check=True,
        )
        fields = proc.stdout.split()
        imp, load, cmp, gate, total, rss = (float(x) for x in fields[:6])
        blocked, n_slices = int(fields[6]), int(fields[7])
        flagged = fields[8] if len(fields) > 8 else ""
        print(
            f"Python API: {total:.2f} s total (imports {imp:.2f}, load both runs {load:.2f}, "
            f"compare {cmp:.2f} over {n_slices} slices, gate {gate:.2f}); "
            f"peak RSS {rss:.0f} MB; gate blocked={bool(blocked)}; first flagged: {flagged}"
        )

        out = folder / "out"
        out.mkdir()
        c_s, c_rss, c_rc = _child(
            [
                sys.executable,
                "-m",
                "codegold",
                "compare",
                str(base),
                str(head),
                "--json",
                str(out / "compare.json"),
                "--resamples",
                str(args.resamples),
            ]
        )
        g_s, g_rss, g_rc = _child(
            [
                sys.executable,
                "-m",
                "codegold",
                "gate",
                str(head),
                "--policy",
                str(policy),
                "--baseline",
                str(base),
                "--json",
                str(out / "gate.json"),
            ]
        )
        print(
            f"CLI: compare {c_s:.2f} s (exit {c_rc}, peak RSS {c_rss:.0f} MB) + "
            f"gate {g_s:.2f} s (exit {g_rc}, peak RSS {g_rss:.0f} MB) = {c_s + g_s:.2f} s "
            f"(target < 5 s: {'met' if c_s + g_s < 5 else 'MISSED'})"
        )
        again = folder / "again.json"
        _child(
            [
                sys.executable,
                "-m",
                "codegold",
                "compare",
                str(base),
                str(head),
                "--json",
                str(again),
                "--resamples",
                str(args.resamples),
            ]
        )
        same = again.read_bytes() == (out / "compare.json").read_bytes()
        print(f"byte-identical compare JSON on rerun: {same}")


if __name__ == "__main__":
    main()
