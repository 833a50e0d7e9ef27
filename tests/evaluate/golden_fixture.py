"""A seeded suite and attempts file that exercise every branch of scoring a recorded
attempt: exact and glob targets, symbols, roles, labelled spans, several groups,
supporting targets, traps, duplicates (same id, overlapping span of a file, same
excerpt, blank excerpts), resolved chunks with claims, chunks of another revision,
invalid attempts (missing, incomplete or foreign manifest, problems, a query started
before its build), imported attempts, repeated attempts (identical and not), cases
with no attempt, attempts out of suite order, non-ASCII text.

tests/evaluate/test_golden_eval.py compares `codegold eval` on it with results.json
and summary.json produced by the evaluator before its fast path (their digests).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

REV = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"
OTHER = "0123456789abcdef0123456789abcdef01234567"
ROLES = ["definition", "call_site", "test", "docs", "configuration"]
SYMBOLS = [None, "A", "A.run", "pkg.A.run", "B", "run", "Cart::add", "(*T).Serve", "it works"]
EXCERPTS = [None, None, None, "", "   ", "def a(): pass", "x = 1", "  x = 1\n", "é ∂ 日本"]


def _manifest(rng: random.Random) -> dict[str, Any] | None:
    roll = rng.random()
    m: dict[str, Any] = {
        "buildId": f"b{rng.randrange(3)}",
        "repositoryRevision": REV,
        "chunkerVersion": "v",
        "pathPolicy": "p",
        "builtAt": "2024-06-01T02:17:00Z",
        "complete": True,
    }
    if roll < 0.04:
        return None
    if roll < 0.07:
        m["complete"] = False
    elif roll < 0.10:
        m["repositoryRevision"] = OTHER
    elif roll < 0.12:
        m["revisionAsserted"] = True
    return m


def _target(rng: random.Random, i: int) -> dict[str, Any]:
    t: dict[str, Any] = {}
    roll = rng.random()
    if roll < 0.75:
        t["file"] = f"src/m{rng.randrange(5)}/f{i % 7}.py"
    elif roll < 0.85:
        t["filePattern"] = rng.choice(["src/m1/*.py", "src/**/f3.py", "**/f?.py", "docs/*.md"])
    else:
        t["file"] = rng.choice(["docs/guide.md", "lib/ü/mod.ts", "src/m2/f1.py"])
    if rng.random() < 0.7:
        t["symbol"] = rng.choice([s for s in SYMBOLS if s])
    if rng.random() < 0.5:
        t["roles"] = rng.sample(ROLES[:4], rng.randrange(1, 3))
    if rng.random() < 0.3:
        start = rng.randrange(1, 40)
        t["lines"] = [start, start + rng.randrange(0, 15)]
    return t


def _case(rng: random.Random, i: int) -> dict[str, Any]:
    case: dict[str, Any] = {
        "id": f"case-{i:04d}",
        "query": rng.choice(
            [f"how does f{i} work?", f"where is token sk-{i:04d} used", "überprüfen ∂x"]
        ),
        "queryClass": rng.choice(["behavior", "exact_identifier", "usage_example", None]),
        "repositoryRevision": REV if rng.random() < 0.95 else OTHER,
        "cutoff": rng.choice([1, 3, 5, 5, 10]),
        "tags": rng.sample(["auth", "billing", "search", "ß"], rng.randrange(0, 3)),
    }
    if case["queryClass"] is None:
        del case["queryClass"]
    roll = rng.random()
    if roll < 0.6:
        case["accepted"] = [_target(rng, i) for _ in range(rng.randrange(1, 3))]
    else:
        case["groups"] = [
            {"id": f"g{g}", "anyOf": [_target(rng, i + g) for _ in range(rng.randrange(1, 3))]}
            for g in range(rng.randrange(1, 4))
        ]
    if rng.random() < 0.35:
        case["supporting"] = [_target(rng, i + 1) for _ in range(rng.randrange(1, 3))]
    if rng.random() < 0.6:
        case["forbiddenPathPrefixes"] = rng.sample(["src/legacy/", "vendor/", "src/m5/"], 1)
    if rng.random() < 0.2:
        case["context"] = rng.choice(
            [{"openFile": "src/m1/f1.py"}, {"language": "python"}, {"pathPrefix": "src/"}]
        )
    return case


def _chunk(rng: random.Random, i: int, r: int) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.3:
        file = f"src/m{rng.randrange(6)}/f{(i + rng.randrange(3)) % 7}.py"
    elif roll < 0.4:
        file = rng.choice(["src/legacy/f1.py", "vendor/x.py", "src/m5/f2.py"])
    elif roll < 0.45:
        file = rng.choice(["docs/guide.md", "lib/ü/mod.ts"])
    else:
        file = f"src/other/o{rng.randrange(40)}.py"
    start = rng.randrange(1, 50)
    c: dict[str, Any] = {
        "chunkId": f"k{i}-{r}" if rng.random() < 0.93 else f"k{i}-{rng.randrange(max(r, 1))}",
        "file": file,
        "startLine": start,
        "endLine": start + rng.randrange(0, 20),
        "role": rng.choice(ROLES) if rng.random() < 0.998 else "config",  # invalid: rare
        "repositoryRevision": REV if rng.random() < 0.97 else OTHER,
        "score": rng.choice([round(1.0 - r / 60, 4), 1e-7, 12345678901234567.0, 0.1 + 0.2]),
    }
    symbol = rng.choice(SYMBOLS)
    if symbol is not None:
        c["symbol"] = symbol
    if rng.random() < 0.1:
        c["symbols"] = rng.sample([s for s in SYMBOLS if s], 2)
    excerpt = rng.choice(EXCERPTS)
    if excerpt is not None:
        c["excerpt"] = excerpt
    if rng.random() < 0.08:
        c["resolved"] = True
        claim: dict[str, Any] = {}
        if rng.random() < 0.6:
            claim["symbol"] = rng.choice([s for s in SYMBOLS if s])
        if rng.random() < 0.5:
            claim["role"] = rng.choice(ROLES)
        if rng.random() < 0.5:
            claim["startLine"], claim["endLine"] = start, start + rng.randrange(0, 30)
        c["claim"] = claim
    elif rng.random() < 0.03:
        c["resolved"] = False
    return c


def write_fixture(folder: Path, n_cases: int = 600, seed: int = 15) -> tuple[Path, Path]:
    """Write suite.jsonl and attempts.jsonl into ``folder``; their paths."""
    rng = random.Random(seed)
    cases = [_case(rng, i) for i in range(n_cases)]
    attempts: list[dict[str, Any]] = []
    for i, case in enumerate(cases):
        if rng.random() < 0.05:
            continue  # no attempt: a no_attempt record
        depth = rng.choice([0, 1, 3, 8, 20, 50])
        ranked = [_chunk(rng, i, r) for r in range(depth)]
        planted = [t for g in case.get("groups", []) for t in g["anyOf"]]
        planted += case.get("accepted", []) + case.get("supporting", [])
        for t in planted:
            if "file" not in t or not ranked or rng.random() >= 0.6:
                continue
            hit = ranked[rng.randrange(len(ranked))]  # plant a hit
            hit["file"] = t["file"]
            if "symbol" in t and rng.random() < 0.8:
                hit["symbol"] = t["symbol"]
            if "roles" in t and rng.random() < 0.8:
                hit["role"] = t["roles"][0]
            if "lines" in t and rng.random() < 0.7:
                hit["startLine"] = max(1, t["lines"][0] - rng.randrange(2))
                hit["endLine"] = t["lines"][1] + rng.randrange(3) - 1
        a: dict[str, Any] = {"attemptId": f"a{i}", "caseId": case["id"], "ranked": ranked}
        manifest = _manifest(rng)
        if manifest is not None:
            a["index"] = manifest
        roll = rng.random()
        if roll < 0.03:
            a["problems"] = ["chunk 2: cannot resolve lines of src/x.py"]
        elif roll < 0.05:
            a["startedAt"] = "2024-06-01T02:16:58.5Z"
        elif roll < 0.08:
            a["mode"] = "imported"
        elif roll < 0.10:
            a["retriever"] = {"name": "r", "version": "1"}
        attempts.append(a)
        if rng.random() < 0.04:  # a repeat: identical, or ranked differently
            again = json.loads(json.dumps(a))
            again["attemptId"] = f"a{i}-again"
            if rng.random() < 0.5 and len(ranked) > 1:
                again["ranked"] = list(reversed(again["ranked"]))
            attempts.append(again)
    # some attempts out of suite order
    for _ in range(n_cases // 20):
        x, y = rng.randrange(len(attempts)), rng.randrange(len(attempts))
        attempts[x], attempts[y] = attempts[y], attempts[x]
    suite = folder / "suite.jsonl"
    suite.write_text(
        "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases), encoding="utf-8"
    )
    path = folder / "attempts.jsonl"
    path.write_text(
        "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in attempts), encoding="utf-8"
    )
    return suite, path


def write_in_order(folder: Path, n_cases: int = 600, seed: int = 16) -> tuple[Path, Path]:
    """The same kind of fixture, attempts in suite order, one per case (the case a run
    writes without a spool detour)."""
    suite, path = write_fixture(folder, n_cases, seed)
    lines = suite.read_text(encoding="utf-8").splitlines()
    order = {json.loads(line)["id"]: n for n, line in enumerate(lines)}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    kept: dict[str, dict[str, Any]] = {}
    for row in rows:
        kept.setdefault(row["caseId"], row)
    ordered = sorted(kept.values(), key=lambda r: order[r["caseId"]])
    path.write_text(
        "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in ordered), encoding="utf-8"
    )
    return suite, path
