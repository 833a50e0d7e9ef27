"""Time `codegold draft --from search-log` on a synthetic 10,000-line search log over a
real repository (default: the fetched expressjs/express mirror).

The log is made from the repository itself, deterministically: queries are names the
code defines (and phrases around them), the opened files and lines are where those
names are defined or used, a tenth of the searches are repeats, some queries carry an
e-mail address, a home-folder path or a token (to be redacted), some point at files
that do not exist at the revision. Usage:

    python benchmarks/draft_search_log.py [REPO] [--lines 10000]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEFAULT_REPO = "/work/.mirror/expressjs+express/repo"
_DEF = re.compile(r"(?:function\s+([A-Za-z_$][\w$]*)|([A-Za-z_$][\w$.]*)\s*=\s*function)")


def _git(repo: str, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", repo, *args],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def make_log(repo: str, lines: int, out: Path) -> None:
    rng = random.Random(14)
    files = [f for f in _git(repo, "ls-tree", "-r", "--name-only", "HEAD").split("\n")
             if f.endswith((".js", ".py", ".ts", ".go", ".rb"))]  # fmt: skip
    places: list[tuple[str, str, int]] = []
    for path in files:
        text = _git(repo, "show", f"HEAD:{path}")
        for number, line in enumerate(text.split("\n"), start=1):
            m = _DEF.search(line)
            if m:
                places.append((m.group(1) or m.group(2), path, number))
    if not places:
        raise SystemExit(f"no definitions found in {repo}")
    decor = [
        "", "", "", "", " how does it work", " returns undefined", " example",
        " (asked by dana.lee@example.com)", " in /home/alice/src/app/lib/router.js",
        " token ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", r" C:\Users\bob\proj\index.js",
    ]  # fmt: skip
    records: list[str] = []
    for i in range(lines):
        if records and rng.random() < 0.1:
            records.append(rng.choice(records))
            continue
        name, path, number = rng.choice(places)
        opened: list[dict[str, object]] = [{"file": path, "line": number + rng.randint(0, 3)}]
        if rng.random() < 0.3:
            _, other, line = rng.choice(places)
            opened.append({"file": other, "line": line})
        if rng.random() < 0.1:
            opened.append({"file": rng.choice(files)})  # no line: file-level
        if rng.random() < 0.05:
            opened.append({"file": "/home/carol/work/" + path})  # absolute, someone's machine
        if rng.random() < 0.03:
            opened.append({"file": "lib/deleted_" + str(i) + ".js", "line": 3})
        query = name.split(".")[-1] + rng.choice(decor)
        records.append(
            json.dumps({"query": query, "opened": opened, "at": f"2026-11-{1 + i % 28:02d}"})
        )
    out.write_text("\n".join(records) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("repo", nargs="?", default=DEFAULT_REPO)
    parser.add_argument("--lines", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "search.jsonl"
        make_log(args.repo, args.lines, log)
        out = Path(tmp) / "draft.yaml"
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "codegold", "draft", "--from", "search-log", str(log),
             "--repo", args.repo, "--out", str(out)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.perf_counter() - t0
        print(done.stdout, end="")
        print(done.stderr, end="", file=sys.stderr)
        size = out.stat().st_size if out.exists() else 0
        print(f"log: {args.lines} lines, {log.stat().st_size} bytes; draft: {size} bytes; "
              f"wall {wall:.2f} s (process, exit {done.returncode})")  # fmt: skip
        return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
