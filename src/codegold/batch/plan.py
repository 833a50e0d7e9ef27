"""PLAN.toml: the suites of a batch, each with its repository and run options."""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegold.errors import InputError

_KEYS = {"cases", "repo", "retriever", "config", "policy", "name"}


@dataclass(frozen=True)
class PlanSuite:
    """One ``[[suites]]`` entry, its paths made absolute against the plan's folder."""

    position: int
    cases: Path
    repo: Path
    retriever: str = "hybrid"
    config: Path | None = None
    policy: Path | None = None
    name: str | None = None


@dataclass(frozen=True)
class BatchPlan:
    path: Path
    digest: str
    suites: tuple[PlanSuite, ...]


def load_plan(path: Path) -> BatchPlan:
    """Read and check a plan: every entry names cases and a repository that exist."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the plan: {exc.strerror}", file=str(path)) from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"not valid TOML: {exc}", file=str(path)) from None
    entries = doc.get("suites")
    if not isinstance(entries, list) or not entries:
        raise InputError("the plan lists no [[suites]]", file=str(path), field="suites")
    base = path.resolve().parent
    suites = tuple(_entry(path, base, i, e) for i, e in enumerate(entries))
    return BatchPlan(path, hashlib.sha256(raw).hexdigest(), suites)


def _entry(path: Path, base: Path, i: int, entry: Any) -> PlanSuite:
    where = f"suites[{i}]"
    if not isinstance(entry, dict):
        raise InputError("must be a table", file=str(path), field=where)
    unknown = sorted(set(entry) - _KEYS)
    if unknown:
        known = ", ".join(sorted(_KEYS))
        raise InputError(
            f"unknown key {unknown[0]!r} (known: {known})", file=str(path), field=where
        )

    def text(key: str, required: bool = False) -> str | None:
        value = entry.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            raise InputError("must be a non-empty string", file=str(path), field=f"{where}.{key}")
        return value

    def existing(key: str, required: bool = False) -> Path | None:
        value = text(key, required)
        if value is None:
            return None
        resolved = (base / value).resolve()
        if not resolved.exists():
            raise InputError(f"no such path: {resolved}", file=str(path), field=f"{where}.{key}")
        return resolved

    cases = existing("cases", required=True)
    repo = existing("repo", required=True)
    assert cases is not None and repo is not None
    return PlanSuite(
        position=i,
        cases=cases,
        repo=repo,
        retriever=text("retriever") or "hybrid",
        config=existing("config"),
        policy=existing("policy"),
        name=text("name"),
    )
