"""`codegold init`: a first suite pinned at HEAD, its example cases drawn from the code.

The examples show the shapes a suite holds, each a draft with a ``TODO:`` rationale:

* an exact-identifier case for the repository's most prominent definition (the
  top-level name other files refer to most; ties by name),
* a usage case whose answer is a test that exercises that name,
* a configuration case for the project's manifest (``pyproject.toml``,
  ``package.json``, ``go.mod`` ...), when there is one.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from codegold._io import write_text_atomic
from codegold.cases.suite import RATIONALE_PLACEHOLDER, load_suite
from codegold.chunking import Chunk
from codegold.corpus.git import GitRepo
from codegold.corpus.model import FileRole
from codegold.drafts.build import ReferenceParse
from codegold.errors import InputError
from codegold.roles import Role

MAX_FILES = 400
"""Source and test files parsed to find the examples (the smallest paths first)."""
MAX_BYTES = 200_000
MANIFESTS = (
    "pyproject.toml", "setup.cfg", "package.json", "go.mod", "Cargo.toml", "pom.xml",
    "build.gradle", "Gemfile", "composer.json", "CMakeLists.txt", "Makefile",
)  # fmt: skip


@dataclass
class InitReport:
    revision: str
    files_parsed: int
    cases: list[str]

    def lines(self, out: Path) -> list[str]:
        return [
            f"scaffolded {len(self.cases)} draft case(s) at {self.revision[:12]} "
            f"(from {self.files_parsed} parsed file(s)): {', '.join(self.cases)}",
            f"wrote {out}: review each case (targets, rationale, remove 'status: draft'), "
            "then add your own",
        ]


def _top_level(chunk: Chunk) -> bool:
    return chunk.symbol is not None and "." not in chunk.symbol and chunk.role is Role.DEFINITION


def scaffold(repo: Path, out: Path, *, revision: str = "HEAD", force: bool = False) -> InitReport:
    """Write a draft suite for ``repo`` at ``revision`` to ``out``."""
    if out.exists() and not force:
        raise InputError("already exists (pass --force to replace it)", file=str(out))
    with GitRepo(repo) as git:
        sha = git.resolve(revision)
        parse = ReferenceParse(git)
        entries = sorted(
            (e for e in git.list_files(sha) if e.problem is None and e.size <= MAX_BYTES),
            key=lambda e: (e.path.count("/"), e.path),
        )
        definitions: list[tuple[str, Chunk]] = []
        tests: list[tuple[str, Chunk]] = []
        parsed = 0
        for entry in entries:
            if parsed >= MAX_FILES:
                break
            role = parse.role(sha, entry.path)
            if role not in (FileRole.SOURCE, FileRole.TEST):
                continue
            found = parse.parse(sha, entry.path)
            if found is None or not found.definitions:
                continue
            parsed += 1
            bucket = tests if role is FileRole.TEST else definitions
            bucket.extend((entry.path, c) for c in found.definitions)
        manifest = next((e.path for e in entries if e.path in MANIFESTS), None)
    cases: list[dict[str, Any]] = []
    prominent = _prominent(definitions, tests)
    if prominent is not None:
        path, chunk = prominent
        name = chunk.symbol or ""
        cases.append(
            _case(
                f"define-{_slug(name)}",
                name,
                "exact_identifier",
                {"file": path, "symbol": name, "roles": ["definition"]},
                f"where {name} is defined; a search for the bare name must find it",
            )
        )
        user = _test_of(name, tests)
        if user is not None:
            tpath, tchunk = user
            cases.append(
                _case(
                    f"usage-{_slug(name)}",
                    f"example of using {name}",
                    "usage_example",
                    {"file": tpath, "symbol": tchunk.symbol, "roles": ["test"]},
                    f"a test that calls {name} is a worked example of its use",
                )
            )
    if manifest is not None:
        cases.append(
            _case(
                "config-manifest",
                "where are the project's dependencies declared",
                "configuration",
                {"file": manifest},
                f"{manifest} declares the project and what it depends on",
            )
        )
    if not cases:
        raise InputError(
            f"found no definition, test or project manifest to draw an example from at "
            f"{sha[:12]} in {str(repo)!r}"
        )
    where = repo.resolve()
    name = where.name.removesuffix(".git")
    if name in ("repo", "") and where.parent.name:
        name = where.parent.name
    doc = {"suite": f"{name}-gold", "repository": {"name": name, "revision": sha},
           "defaults": {"cutoff": 5}, "cases": cases}  # fmt: skip
    header = (
        f"# Scaffolded by `codegold init` at {sha[:12]}. These cases are drafts drawn from\n"
        "# the code: check each, write its rationale, remove 'status: draft', then add\n"
        "# cases from real questions (`codegold draft --from search-log ...`).\n"
    )
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    body = yaml.dump(doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100,
                     default_flow_style=None)  # fmt: skip
    write_text_atomic(out, header + body)
    load_suite(out)
    return InitReport(sha, parsed, [c["id"] for c in cases])


def _slug(name: str) -> str:
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")
    return "-".join(p for p in out.split("-") if p)[:40] or "name"


def _case(
    case_id: str, query: str, qclass: str, target: dict[str, Any], why: str
) -> dict[str, Any]:
    return {
        "id": case_id,
        "query": query,
        "queryClass": qclass,
        "status": "draft",
        "origin": "codegold init",
        "accepted": [{k: v for k, v in target.items() if v is not None}],
        "rationale": f"{RATIONALE_PLACEHOLDER} {why} (confirm, then say why in your words)",
    }


def _prominent(
    definitions: list[tuple[str, Chunk]], tests: list[tuple[str, Chunk]]
) -> tuple[str, Chunk] | None:
    """The top-level definition the most other files refer to (then the most tests,
    then the name, then the path)."""
    where: dict[str, tuple[str, Chunk]] = {}
    for path, chunk in definitions:
        if _top_level(chunk) and chunk.symbol and len(chunk.symbol) > 2:
            where.setdefault(chunk.symbol, (path, chunk))
    if not where:
        return None
    files_using: Counter[str] = Counter()
    seen: set[tuple[str, str]] = set()
    for path, chunk in [*definitions, *tests]:
        for ref in chunk.references:
            if ref in where and where[ref][0] != path and (path, ref) not in seen:
                seen.add((path, ref))
                files_using[ref] += 1
    best = min(where, key=lambda n: (-files_using[n], n))
    return where[best]


def _test_of(name: str, tests: list[tuple[str, Chunk]]) -> tuple[str, Chunk] | None:
    users = [(p, c) for p, c in tests if name in c.references and c.symbol]
    if not users:
        return None

    def key(pc: tuple[str, Chunk]) -> tuple[bool, int, str, int]:
        path, chunk = pc
        name = (chunk.symbol or "").rsplit(".", 1)[-1]
        a_test = name.lower().startswith("test") or " " in name  # test_x, it("should ...")
        return (not a_test, chunk.end_line - chunk.start_line, path, chunk.start_line)

    return min(users, key=key)
