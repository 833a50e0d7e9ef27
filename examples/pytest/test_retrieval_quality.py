"""Retrieval quality as an ordinary pytest test: your retriever, codegold's gold suite.

Run from the repository root after `python examples/make_example_repo.py`:

    pytest examples/pytest/test_retrieval_quality.py

`grep_retriever` stands in for your pipeline: anything that takes a query and returns
chunks with a file and an excerpt (or lines). codegold locates each chunk in the file at
the suite's pinned revision and names it with its own parse.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import codegold

ROOT = Path(__file__).resolve().parents[2]
REPO = ROOT / "examples" / "repo"
SUITE = codegold.load_suite(ROOT / "examples" / "acme" / "suite.yaml")


def grep_retriever(query: str, revision: str) -> list[dict[str, str]]:
    """The definitions at ``revision`` whose line names a word of the query, best first."""
    words = {w.lower() for w in re.findall(r"[A-Za-z]{4,}", query)}
    found = subprocess.run(
        [
            "git",
            "-C",
            str(REPO),
            "grep",
            "-n",
            "-I",
            "-E",
            r"(function|class|interface) ",
            revision,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    hits = []
    for line in found:
        _, path, _, text = line.split(":", 3)
        score = sum(w in text.lower() for w in words)
        if score:
            hits.append((-score, path, text.strip()))
    return [{"file": path, "excerpt": text} for _, path, text in sorted(hits)[:5]]


def test_the_gate_holds() -> None:
    records = codegold.measure(SUITE, grep_retriever, repo=REPO)
    summary = codegold.summarize(records)
    decision = codegold.apply_gate(records, {"gate": {"minPassRate": 0.2, "maxInvalid": 0}})
    assert not decision.blocked, "\n".join(decision.lines())
    assert summary["overall"]["passRate"] >= 0.2
