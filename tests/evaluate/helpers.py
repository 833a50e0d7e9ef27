"""Small builders for cases and attempts, shared by evaluator tests."""

from __future__ import annotations

from typing import Any

import msgspec

from codegold.attempts import Attempt
from codegold.cases.model import SuiteFile
from codegold.cases.suite import ResolvedCase, _resolve

REV = "a" * 40
OTHER = "b" * 40


def make_case(**fields: Any) -> ResolvedCase:
    raw = {"id": "c1", "query": "q", "cutoff": 5, **fields}
    suite = msgspec.convert({"repository": {"revision": REV}, "cases": [raw]}, SuiteFile)
    from pathlib import Path

    return _resolve(Path("t.yaml"), suite, digest="x").cases[0]


def chunk(
    file: str,
    symbol: str | None = None,
    role: str = "definition",
    *,
    rev: str = REV,
    start: int = 1,
    end: int = 10,
    symbols: list[str] | None = None,
    cid: str | None = None,
) -> dict[str, Any]:
    d: dict[str, Any] = {
        "chunkId": cid or f"{file}:{start}-{end}:{symbol}",
        "file": file,
        "startLine": start,
        "endLine": end,
        "role": role,
        "repositoryRevision": rev,
        "score": 1.0,
    }
    if symbol is not None:
        d["symbol"] = symbol
    if symbols is not None:
        d["symbols"] = symbols
    return d


def manifest(rev: str = REV, complete: bool = True) -> dict[str, Any]:
    return {
        "buildId": "b1",
        "repositoryRevision": rev,
        "chunkerVersion": "v",
        "pathPolicy": "p",
        "builtAt": "t",
        "complete": complete,
    }


def attempt(ranked: list[dict[str, Any]], **extra: Any) -> Attempt:
    raw = {"attemptId": "a1", "caseId": "c1", "index": manifest(), "ranked": ranked, **extra}
    return msgspec.convert(raw, Attempt)


def filler(n: int, prefix: str = "src/other") -> list[dict[str, Any]]:
    return [chunk(f"{prefix}{i}.py", f"f{i}") for i in range(n)]
