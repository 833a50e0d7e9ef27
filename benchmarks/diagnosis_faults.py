#!/usr/bin/env python3
"""Diagnosis against injected faults on real repositories.

    python benchmarks/diagnosis_faults.py            # every scenario
    python benchmarks/diagnosis_faults.py -v         # and one line per scenario
    python benchmarks/diagnosis_faults.py --json out.json

Each scenario is a real target, verified at its pinned revision in a real repository
(codegold's index of that revision has a chunk that satisfies it), plus exactly one
known fault, or a known combination of two (to test the order of the walk). The
expected cause and owner come from SPEC §4 alone (the table is copied below, not
read from codegold). The scenario runs through the library: the evaluator, the
diagnosis walk, and, for the answer stage, the answer join. The figures are the
share of scenarios whose diagnosis has the expected cause, and the expected owner,
per expected cause.

Repositories are the bare clones the fetch tool brings to
``$CODEGOLD_MIRROR/owner+name/repo`` (default root /work/.mirror); a repository that
is absent is skipped, and the skip is printed. Indexes are kept under
benchmarks/.work/diagnosis/ and reused. The process lowers its own priority.

Faults injected
    invalid_run        the attempt's manifest is of another (real) revision, or
                       incomplete, or missing
    stale_label        the label names a symbol deleted from the file; a definition
                       that really moved to another module (httpx ``URL``); a file
                       that is gone
    excluded_by_policy the index's path policy excludes the target's file
    not_chunked        a recorded retriever's chunks reach the target from both
                       sides and skip it
    metadata_mismatch  a returned chunk covers the target but claims another role
                       or symbol
    chunk_boundary     a recorded retriever that returns the target in two pieces that
                       do not carry its name
    query_rewrite      a rewriter that drops the identifier (live and recorded)
    retrieval_miss     the target absent from the candidates; a chunker configuration
                       that splits a long definition into pieces that each carry its
                       name, and a query the repository has no word of (live): any
                       piece would satisfy the label, so the split is not the chunker's
                       fault
    reranker_demotion  within the cutoff before reranking, past it after
    below_cutoff       past the cutoff before and after
    forbidden_source   a chunk under a forbidden prefix inside the cutoff
    revision_mismatch  a chunk of another revision inside the cutoff
    answer_ignored_evidence  the target reached the answer context; the answer failed
    valid idioms       labels in idioms a chunker may not name (a test title, a getter,
                       ``define_method``, a macro-generated Rust test) that are then
                       missed by retrieval: never ``stale_label``
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work" / "diagnosis"

# SPEC §4, copied: cause -> owner.
SPEC_OWNERS = {
    "invalid_run": "indexing",
    "stale_label": "dataset",
    "excluded_by_policy": "indexing",
    "not_chunked": "parser/chunker",
    "metadata_mismatch": "parser/chunker",
    "chunk_boundary": "parser/chunker",
    "query_rewrite": "retrieval",
    "retrieval_miss": "retrieval",
    "reranker_demotion": "reranker",
    "below_cutoff": "ranking",
    "forbidden_source": "ranking / index policy",
    "revision_mismatch": "indexing (freshness)",
    "answer_ignored_evidence": "answer generation",
}
# SPEC §4 names two owners for forbidden_source; a diagnosis may name the one the trap
# points to (the path policy flagged it, or it is plain source: ranking; a verbatim copy
# no rule marked: indexing, the path policy's owner).
ALSO_OWNERS = {"forbidden_source": ("ranking", "indexing")}


def owner_ok(row: dict[str, Any]) -> bool:
    return row["owner"] == row["expectedOwner"] or row["owner"] in ALSO_OWNERS.get(
        row["expected"], ()
    )


@dataclass(frozen=True)
class Repo:
    key: str
    github: str
    commit: str
    language: str
    # verified targets: (file, symbol); each must be satisfied by an indexed chunk
    targets: tuple[tuple[str, str], ...]
    forbidden_dir: str  # a real directory used as a forbidden prefix
    variants: tuple[str, ...] = ()  # extra index builds: "excluded", "split"
    long_target: tuple[str, str] | None = None  # a definition long enough to split


REPOS = (
    Repo(
        "express",
        "expressjs/express",
        "a3714473feb3d2908add734d340e7755fd85e0a3",
        "javascript",
        (("lib/response.js", "sendfile"), ("lib/utils.js", "compileETag")),
        "examples/",
    ),
    Repo(
        "sinatra",
        "sinatra/sinatra",
        "cb22afd7902b566b6eaba6c4ea89739494a65d12",
        "ruby",
        (
            ("lib/sinatra/base.rb", "Base.invoke"),
            ("lib/sinatra/base.rb", "Helpers.send_file"),
        ),
        "sinatra-contrib/",
    ),
    Repo(
        "gson",
        "google/gson",
        "686fad782d969d8f15c7581a5435a208b810caa7",
        "java",
        (
            ("gson/src/main/java/com/google/gson/stream/JsonReader.java", "JsonReader.nextName"),
            (
                "gson/src/main/java/com/google/gson/GsonBuilder.java",
                "GsonBuilder.setPrettyPrinting",
            ),
        ),
        "extras/",
    ),
    Repo(
        "ripgrep",
        "BurntSushi/ripgrep",
        "af60c2de9d85e7f3d81c78601669468cf02dabab",
        "rust",
        (
            ("crates/globset/src/lib.rs", "GlobSet.is_match"),
            ("crates/ignore/src/walk.rs", "WalkBuilder.build"),
        ),
        "tests/",
    ),
    Repo(
        "httpx",
        "encode/httpx",
        "d07c4b4407b4f7ee1fef29b9e3f6fd57de407b51",  # "Move URL and QueryParams to _urls.py"
        "python",
        (("httpx/_client.py", "Client.send"), ("httpx/_urls.py", "URL.copy_with")),
        "tests/",
        variants=("excluded",),
    ),
    Repo(
        "gin",
        "gin-gonic/gin",
        "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9",
        "go",
        (("context.go", "Context.JSON"), ("tree.go", "node.addRoute")),
        "binding/",
        variants=("split",),
        long_target=("tree.go", "node.addRoute"),
    ),
    Repo(
        "hiredis",
        "redis/hiredis",
        "29ea2791c102fdffff350f1ea6e04d1f71903d0d",
        "c",
        (("hiredis.c", "redisvFormatCommand"), ("read.c", "redisReaderFeed")),
        "examples/",
        variants=("excluded", "split"),
        long_target=("hiredis.c", "redisvFormatCommand"),
    ),
)

# Valid labels in idioms a chunker may not name, verified by their text at the revision.
IDIOMS: tuple[tuple[str, str, str, str], ...] = (
    # (repo key, file, symbol, text that must be in the file)
    ("express", "test/app.router.js", "should restore req.params after leaving router", ""),
    ("express", "lib/request.js", "request.host", "defineGetter(req, 'host'"),
    ("express", "lib/response.js", "res.sendFile", "res.sendFile = function"),
    ("sinatra", "lib/sinatra/base.rb", "Base.settings", "def self.settings"),
    ("ripgrep", "tests/regression.rs", "r16", "rgtest!(r16,"),
    ("sinatra", "lib/sinatra/base.rb", "call_without_check", "alias_method :call_without_check"),
    ("sinatra", "lib/sinatra/base.rb", "Base.request", "attr_accessor :app, :env, :request"),
    ("gin", "binding/form_mapping_test.go", "slice with default", 't.Run("slice with default"'),
)


def mirror_repo(github: str) -> Path | None:
    root = Path(os.environ.get("CODEGOLD_MIRROR", "/work/.mirror"))
    path = root / github.replace("/", "+") / "repo"
    return path if path.is_dir() else None


# -- the environment of one repository ------------------------------------------------


@dataclass
class Env:
    repo: Repo
    git: Any
    index: Any  # LoadedIndex of the pinned revision, default build
    parent: str  # a real other revision
    variants: dict[str, Any] = field(default_factory=dict)

    @property
    def sha(self) -> str:
        return self.repo.commit

    def text(self, path: str, revision: str | None = None) -> str | None:
        data = self.git.read_path(revision or self.sha, path)
        return data.decode("utf-8", errors="replace") if data is not None else None

    def chunk_of(self, file: str, symbol: str, index: Any = None) -> Any:
        """The first indexed definition chunk satisfying ``file#symbol`` (verification)."""
        from codegold.cases.match import chunk_matches as indexed_chunk_matches
        from codegold.cases.model import Target

        target = msgspec.convert({"file": file, "symbol": symbol, "roles": ["definition"]}, Target)
        idx = index or self.index
        rows = idx.rows_by_file.get(file, [])
        found = [idx.chunks[r] for r in rows if indexed_chunk_matches(idx.chunks[r], target)]
        if not found:
            raise SetupError(f"{self.repo.key}: {file}#{symbol} is not a verified target")
        return min(found, key=lambda c: c.start_line)

    def neighbours(self, chunk: Any) -> tuple[Any, Any]:
        rows = sorted(
            (self.index.chunks[r] for r in self.index.rows_by_file[chunk.file]),
            key=lambda c: c.start_line,
        )
        i = next(i for i, c in enumerate(rows) if c.chunk_id == chunk.chunk_id)
        if i == 0 or i + 1 >= len(rows):
            raise SetupError(f"{chunk.file}:{chunk.symbol} has no chunk on both sides")
        before, after = rows[i - 1], rows[i + 1]
        if chunk.symbol in (before.symbol, after.symbol):
            raise SetupError(f"{chunk.file}:{chunk.symbol}: a neighbour carries the same name")
        return before, after

    def distractors(self, n: int, *, avoid: str, under: str | None = None) -> list[Any]:
        """``n`` real chunks from other files (under a prefix, when given)."""
        out = []
        for c in sorted(self.index.chunks, key=lambda c: c.chunk_id):
            if c.file == avoid or (under is not None and not c.file.startswith(under)):
                continue
            if under is None and c.file.startswith(self.repo.forbidden_dir):
                continue
            out.append(c)
            if len(out) == n:
                return out
        raise SetupError(f"{self.repo.key}: not enough chunks under {under or '/'}")


class SetupError(Exception):
    """A scenario could not be built as described (its target is not verified)."""


def chunk_json(c: Any, revision: str, **override: Any) -> dict[str, Any]:
    out = {
        "chunkId": c.chunk_id,
        "file": c.file,
        "startLine": c.start_line,
        "endLine": c.end_line,
        "symbol": c.symbol,
        "symbols": list(c.symbols),
        "role": c.role,
        "repositoryRevision": revision,
        "score": 1.0,
    }
    out.update(override)
    return out


def manifest(env: Env, *, revision: str | None = None, complete: bool = True) -> dict[str, Any]:
    return {
        "buildId": f"external-{env.repo.key}",
        "repositoryRevision": revision or env.sha,
        "chunkerVersion": "external-1",
        "pathPolicy": "external",
        "builtAt": "2026-01-01T00:00:00Z",
        "complete": complete,
    }


# -- scenarios --------------------------------------------------------------------------


@dataclass
class Built:
    case: dict[str, Any]
    attempt: dict[str, Any]
    index: Any = None  # the codegold index diagnosis consults (default: the env's)
    answer_verdict: bool | None = None  # an answer to join, when the fault is there
    live: Any = None  # a live Attempt (msgspec) instead of the raw one


@dataclass
class Scenario:
    name: str
    repo: str
    expected: str
    build: Callable[[Env], Built]


def _case(env: Env, chunk: Any, **extra: Any) -> dict[str, Any]:
    name = chunk_symbol(chunk)
    case = {
        "id": "c",
        "query": f"How does `{name}` work?",
        "cutoff": 5,
        "accepted": [{"file": chunk.file, "symbol": name, "roles": ["definition"]}],
    }
    case.update(extra)
    return case


def chunk_symbol(chunk: Any) -> str:
    return str(chunk.symbol)


def _attempt(
    env: Env,
    case: dict[str, Any],
    ranked: list[dict[str, Any]],
    candidates: list[dict[str, Any]] | None,
    **extra: Any,
) -> dict[str, Any]:
    out = {
        "attemptId": "a1",
        "caseId": case["id"],
        "query": case["query"],
        "index": manifest(env),
        "ranked": ranked,
        "candidates": candidates if candidates is not None else ranked,
    }
    out.update(extra)
    return out


def _others(env: Env, target: Any, n: int = 8) -> list[dict[str, Any]]:
    return [chunk_json(c, env.sha) for c in env.distractors(n, avoid=target.file)]


def _target(env: Env, i: int) -> Any:
    file, symbol = env.repo.targets[i]
    return env.chunk_of(file, symbol)


def s_invalid_revision(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = [chunk_json(t, env.parent), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None, index=manifest(env, revision=env.parent)))


def s_invalid_incomplete(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = [chunk_json(t, env.sha), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None, index=manifest(env, complete=False)))


def s_invalid_missing(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = [chunk_json(t, env.sha), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None, index=None))


def s_stale_deleted(env: Env, i: int) -> Built:
    t = _target(env, i)
    gone = chunk_symbol(t) + "Removed"
    case = _case(env, t)
    case["accepted"] = [{"file": t.file, "symbol": gone, "roles": ["definition"]}]
    case["query"] = f"How does `{gone}` work?"
    ranked = [chunk_json(t, env.sha), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None))


def s_stale_file_gone(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    case["accepted"] = [{"file": "old/" + t.file, "symbol": chunk_symbol(t)}]
    ranked = [chunk_json(t, env.sha), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None))


def s_stale_moved(env: Env, i: int) -> Built:
    # httpx d07c4b44 moved class URL from _models.py to _urls.py; _models.py still
    # imports it, calls it and annotates with it
    t = env.chunk_of("httpx/_urls.py", "URL")
    case = _case(env, t)
    case["accepted"] = [{"file": "httpx/_models.py", "symbol": "URL", "roles": ["definition"]}]
    models = [c for c in env.index.chunks if c.file == "httpx/_models.py"][:3]
    ranked = [chunk_json(c, env.sha) for c in models] + _others(env, t, 3)
    return Built(case, _attempt(env, case, ranked, None))


def s_excluded(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = _others(env, t, 6)
    return Built(case, _attempt(env, case, ranked, None), index=env.variants["excluded"])


def s_not_chunked(env: Env, i: int) -> Built:
    t = _target(env, i)
    before, after = env.neighbours(t)
    case = _case(env, t)
    ranked = [chunk_json(before, env.sha), chunk_json(after, env.sha), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None))


def s_metadata_role(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = [chunk_json(t, env.sha, role="test"), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None))


def s_metadata_symbol(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = [chunk_json(t, env.sha, symbol="anonymous", symbols=[]), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None))


def s_boundary_recorded(env: Env, i: int) -> Built:
    t = _target(env, i)
    if t.end_line - t.start_line < 3:
        raise SetupError(f"{t.file}:{t.symbol} too short to split")
    mid = (t.start_line + t.end_line) // 2
    case = _case(env, t)
    case["accepted"][0]["lines"] = [t.start_line, t.end_line]
    first = chunk_json(t, env.sha, chunkId="p1", endLine=mid, symbol=None, symbols=[])
    second = chunk_json(t, env.sha, chunkId="p2", startLine=mid + 1, symbol=None, symbols=[])
    ranked = [first, second, *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None))


def s_boundary_live(env: Env, i: int) -> Built:
    from codegold.retrieve.hybrid import HybridRetriever

    assert env.repo.long_target is not None
    split = env.variants["split"]
    file, symbol = env.repo.long_target
    pieces = [c for c in split.chunks if c.file == file and c.symbol == symbol]
    if len(pieces) < 2:
        raise SetupError(f"{file}#{symbol} is not split by the small-chunk configuration")
    start = min(c.start_line for c in pieces)
    end = max(c.end_line for c in pieces)
    query = "zyxwvq quuxplugh frobnicatory"  # no word of any repository
    case = {
        "id": "c",
        "query": query,
        "cutoff": 1,
        "accepted": [{"file": file, "symbol": symbol, "lines": [start, end]}],
    }
    attempt = HybridRetriever(split).retrieve(query, case_id="c", attempt_id="a1")
    return Built(case, {}, index=split, live=attempt)


def s_rewrite_live(env: Env, i: int) -> Built:
    from codegold.retrieve.hybrid import HybridRetriever

    t = _target(env, i)
    case = _case(env, t)
    attempt = HybridRetriever(env.index, rewriter=lambda q: "how does it work").retrieve(
        case["query"], case_id="c", attempt_id="a1"
    )
    return Built(case, {}, live=attempt)


def s_rewrite_recorded(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = _others(env, t, 6)
    return Built(case, _attempt(env, case, ranked, None, rewrittenQuery="how does this work"))


def s_retrieval_miss(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    return Built(case, _attempt(env, case, _others(env, t, 8), None))


def s_reranker_demotion(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    others = _others(env, t, 8)
    candidates = [others[0], chunk_json(t, env.sha), *others[1:]]
    ranked = [*others[:7], chunk_json(t, env.sha)]
    return Built(case, _attempt(env, case, ranked, candidates))


def s_below_cutoff(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    others = _others(env, t, 8)
    ranked = [*others[:6], chunk_json(t, env.sha), *others[6:]]
    return Built(case, _attempt(env, case, ranked, None))


def s_forbidden(env: Env, i: int) -> Built:
    t = _target(env, i)
    trap = env.distractors(1, avoid=t.file, under=env.repo.forbidden_dir)[0]
    case = _case(env, t, forbiddenPathPrefixes=[env.repo.forbidden_dir])
    ranked = [chunk_json(trap, env.sha), chunk_json(t, env.sha), *_others(env, t, 4)]
    return Built(case, _attempt(env, case, ranked, None))


def s_revision_mismatch(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    others = _others(env, t, 4)
    others[0]["repositoryRevision"] = env.parent
    ranked = [chunk_json(t, env.sha), *others]
    return Built(case, _attempt(env, case, ranked, None))


def s_answer_ignored(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    ranked = [chunk_json(t, env.sha), *_others(env, t, 4)]
    attempt = _attempt(env, case, ranked, None, contextIds=[t.chunk_id])
    return Built(case, attempt, answer_verdict=False)


# -- combinations: the walk's order decides ----------------------------------------------


def c_invalid_and_stale(env: Env, i: int) -> Built:
    b = s_stale_deleted(env, i)
    b.attempt["index"] = manifest(env, revision=env.parent)
    return b


def c_stale_and_forbidden(env: Env, i: int) -> Built:
    b = s_stale_deleted(env, i)
    trap = env.distractors(1, avoid="", under=env.repo.forbidden_dir)[0]
    b.case["forbiddenPathPrefixes"] = [env.repo.forbidden_dir]
    b.attempt["ranked"].insert(0, chunk_json(trap, env.sha))
    return b


def c_excluded_and_rewrite(env: Env, i: int) -> Built:
    b = s_excluded(env, i)
    b.attempt["rewrittenQuery"] = "how does this work"
    return b


def c_metadata_and_demotion(env: Env, i: int) -> Built:
    t = _target(env, i)
    case = _case(env, t)
    others = _others(env, t, 8)
    wrong = chunk_json(t, env.sha, role="call_site")
    return Built(case, _attempt(env, case, [*others[:7], wrong], [wrong, *others]))


def c_boundary_and_rewrite(env: Env, i: int) -> Built:
    b = s_boundary_recorded(env, i)
    b.attempt["rewrittenQuery"] = "how does this work"
    return b


def c_rewrite_and_forbidden(env: Env, i: int) -> Built:
    b = s_rewrite_recorded(env, i)
    trap = env.distractors(1, avoid="", under=env.repo.forbidden_dir)[0]
    b.case["forbiddenPathPrefixes"] = [env.repo.forbidden_dir]
    b.attempt["ranked"].insert(0, chunk_json(trap, env.sha))
    return b


def c_miss_and_forbidden(env: Env, i: int) -> Built:
    b = s_retrieval_miss(env, i)
    trap = env.distractors(1, avoid="", under=env.repo.forbidden_dir)[0]
    b.case["forbiddenPathPrefixes"] = [env.repo.forbidden_dir]
    b.attempt["ranked"].insert(0, chunk_json(trap, env.sha))
    return b


def c_below_and_revision(env: Env, i: int) -> Built:
    b = s_below_cutoff(env, i)
    b.attempt["ranked"][0]["repositoryRevision"] = env.parent
    return b


def c_forbidden_and_revision(env: Env, i: int) -> Built:
    b = s_forbidden(env, i)
    b.attempt["ranked"][2]["repositoryRevision"] = env.parent
    return b


def c_moved_and_below(env: Env, i: int) -> Built:
    b = s_stale_moved(env, i)
    t = env.chunk_of("httpx/_urls.py", "URL")
    b.attempt["ranked"].append(chunk_json(t, env.sha))
    return b


def _idiom(env: Env, file: str, symbol: str, must_contain: str) -> tuple[dict[str, Any], Any]:
    """The case for a valid idiom label, and codegold's chunk holding its text."""
    text = env.text(file) or ""
    needle = must_contain or symbol
    if needle not in text:
        raise SetupError(f"{env.repo.key}: {needle!r} is not in {file} at the revision")
    line = text.count("\n", 0, text.index(needle)) + 1
    holder = next(
        c for c in env.index.chunks if c.file == file and c.start_line <= line <= c.end_line
    )
    case = {
        "id": "c",
        "query": f"Where is `{symbol}` handled?",
        "cutoff": 5,
        "accepted": [{"file": file, "symbol": symbol}],
    }
    return case, holder


def idiom_missed(env: Env, file: str, symbol: str, must_contain: str) -> Built:
    case, _ = _idiom(env, file, symbol, must_contain)
    others = [chunk_json(c, env.sha) for c in env.distractors(8, avoid=file)]
    return Built(case, _attempt(env, case, others, None))


def idiom_unnamed(env: Env, file: str, symbol: str, must_contain: str) -> Built:
    """A recorded retriever returns the span under another name (its chunker missed it)."""
    case, holder = _idiom(env, file, symbol, must_contain)
    wrong = chunk_json(holder, env.sha, symbol=None, symbols=[])
    others = [chunk_json(c, env.sha) for c in env.distractors(4, avoid=file)]
    return Built(case, _attempt(env, case, [wrong, *others], None))


def idiom_live(env: Env, file: str, symbol: str, must_contain: str) -> Built:
    """codegold's own run, when its chunker does not name the idiom: the chunker's cause."""
    from codegold.cases.match import chunk_matches as indexed_chunk_matches
    from codegold.cases.model import Target
    from codegold.retrieve.hybrid import HybridRetriever

    case, _ = _idiom(env, file, symbol, must_contain)
    target = msgspec.convert(case["accepted"][0], Target)
    if any(indexed_chunk_matches(c, target) for c in env.index.chunks if c.file == file):
        raise SetupError(f"codegold's chunker names {symbol!r}: no chunker fault to inject")
    attempt = HybridRetriever(env.index).retrieve(case["query"], case_id="c", attempt_id="a1")
    return Built(case, {}, live=attempt)


SINGLE: tuple[tuple[str, str, Callable[[Env, int], Built]], ...] = (
    ("invalid_run", "wrong revision", s_invalid_revision),
    ("invalid_run", "incomplete manifest", s_invalid_incomplete),
    ("invalid_run", "no manifest", s_invalid_missing),
    ("stale_label", "deleted symbol", s_stale_deleted),
    ("stale_label", "file gone", s_stale_file_gone),
    ("not_chunked", "recorded chunks skip the target", s_not_chunked),
    ("metadata_mismatch", "wrong role claimed", s_metadata_role),
    ("metadata_mismatch", "wrong symbol claimed", s_metadata_symbol),
    ("chunk_boundary", "returned in two pieces", s_boundary_recorded),
    ("query_rewrite", "live rewriter drops the identifier", s_rewrite_live),
    ("query_rewrite", "recorded rewrite drops the identifier", s_rewrite_recorded),
    ("retrieval_miss", "absent from the candidates", s_retrieval_miss),
    ("reranker_demotion", "demoted by the reranker", s_reranker_demotion),
    ("below_cutoff", "past the cutoff", s_below_cutoff),
    ("forbidden_source", "forbidden path in the cutoff", s_forbidden),
    ("revision_mismatch", "chunk of another revision", s_revision_mismatch),
    ("answer_ignored_evidence", "answer ignored the evidence", s_answer_ignored),
)
COMBINED: tuple[tuple[str, str, Callable[[Env, int], Built]], ...] = (
    ("invalid_run", "wrong revision + stale label", c_invalid_and_stale),
    ("stale_label", "stale label + forbidden source", c_stale_and_forbidden),
    ("metadata_mismatch", "wrong role + reranker demotion", c_metadata_and_demotion),
    ("chunk_boundary", "split + rewrite drops the identifier", c_boundary_and_rewrite),
    ("query_rewrite", "rewrite + forbidden source", c_rewrite_and_forbidden),
    ("retrieval_miss", "miss + forbidden source", c_miss_and_forbidden),
    ("below_cutoff", "past the cutoff + another revision", c_below_and_revision),
    ("forbidden_source", "forbidden + another revision", c_forbidden_and_revision),
)


def scenarios(repos: list[Repo]) -> list[Scenario]:
    out: list[Scenario] = []
    for repo in repos:
        for expected, fault, fn in SINGLE + COMBINED:
            for i in range(len(repo.targets)):
                out.append(Scenario(f"{repo.key}:{i}: {fault}", repo.key, expected, _bind(fn, i)))
        if "excluded" in repo.variants:
            for i in range(len(repo.targets)):
                out.append(
                    Scenario(
                        f"{repo.key}:{i}: policy exclusion",
                        repo.key,
                        "excluded_by_policy",
                        _bind(s_excluded, i),
                    )
                )
                out.append(
                    Scenario(
                        f"{repo.key}:{i}: policy exclusion + rewrite",
                        repo.key,
                        "excluded_by_policy",
                        _bind(c_excluded_and_rewrite, i),
                    )
                )
        if "split" in repo.variants:
            out.append(
                Scenario(
                    f"{repo.key}: chunker config splits the span into named pieces (live)",
                    repo.key,
                    "retrieval_miss",
                    _bind(s_boundary_live, 0),
                )
            )
        if repo.key == "httpx":
            out.append(
                Scenario("httpx: moved definition", "httpx", "stale_label", _bind(s_stale_moved, 0))
            )
            out.append(
                Scenario(
                    "httpx: moved definition + past the cutoff",
                    "httpx",
                    "stale_label",
                    _bind(c_moved_and_below, 0),
                )
            )
    keys = {r.key for r in repos}
    idioms = (
        ("retrieval_miss", "missed by retrieval", idiom_missed),
        ("metadata_mismatch", "returned under another name", idiom_unnamed),
        ("metadata_mismatch", "codegold's chunker does not name it (live)", idiom_live),
    )
    for key, file, symbol, text in IDIOMS:
        if key not in keys:
            continue
        for expected, fault, fn in idioms:
            out.append(
                Scenario(
                    f"{key}: valid idiom label {symbol!r} {fault}",
                    key,
                    expected,
                    _bind_idiom(fn, file, symbol, text),
                )
            )
    return out


def _bind(fn: Callable[[Env, int], Built], i: int) -> Callable[[Env], Built]:
    return lambda env: fn(env, i)


def _bind_idiom(
    fn: Callable[[Env, str, str, str], Built], file: str, symbol: str, text: str
) -> Callable[[Env], Built]:
    return lambda env: fn(env, file, symbol, text)


# -- running ------------------------------------------------------------------------------


def build_env(repo: Repo, path: Path) -> Env:
    from codegold.chunking import ChunkerConfig
    from codegold.corpus.git import GitRepo
    from codegold.corpus.policy import load_policy, policy_from_table
    from codegold.index.build import BuildOptions, build_index
    from codegold.index.store import open_index

    git = GitRepo(path)
    parent = git.resolve(repo.commit + "^")
    root = WORK / repo.key
    build_index(
        git, repo.commit, root / "default", policy=load_policy(repo=git, revision=repo.commit)
    )
    env = Env(repo, git, open_index(root / "default", repo.commit), parent)
    for variant in repo.variants:
        if variant == "excluded":
            files = sorted({f for f, _ in repo.targets})
            policy = policy_from_table(
                {"extend-exclude": files}, file="diagnosis_faults.py", origin="benchmark"
            )
            options = BuildOptions()
        else:
            policy = load_policy(repo=git, revision=repo.commit)
            options = BuildOptions(
                chunker=ChunkerConfig(max_chunk_lines=12, long_definition_factor=1)
            )
        build_index(git, repo.commit, root / variant, policy=policy, options=options)
        env.variants[variant] = open_index(root / variant, repo.commit)
    return env


def run_scenario(env: Env, scenario: Scenario, tmp: Path) -> dict[str, Any]:
    from codegold.answers import AnswerLine, LoggedAnswer, apply_to_records, judge_answers
    from codegold.attempts import Attempt
    from codegold.cases import load_suite
    from codegold.diagnose import DiagnosisContext, diagnose_records
    from codegold.evaluate import evaluate_attempts

    built = scenario.build(env)
    suite_path = tmp / "suite.json"
    suite_path.write_text(
        json.dumps(
            {
                "suite": "diagnosis-faults",
                "repository": {"name": env.repo.github, "revision": env.sha},
                "cases": [built.case],
            }
        )
    )
    suite = load_suite(suite_path)
    attempt = built.live if built.live is not None else msgspec.convert(built.attempt, Attempt)
    index = built.index or env.index
    records = evaluate_attempts(suite, [attempt])
    ctx = DiagnosisContext(
        index_for=lambda revision: index if revision == env.sha else None,
        read_text=lambda revision, path: env.text(path, revision),
    )
    records = diagnose_records(suite.by_id(), records, {attempt.attempt_id: attempt}, ctx)
    if built.answer_verdict is not None:
        line = AnswerLine(
            case_id="c",
            attempt_id=attempt.attempt_id,
            context_ids=tuple(attempt.context_ids or ()),
            verdict=built.answer_verdict,
        )
        answers = [LoggedAnswer(answer_id="ans1", line=1, passed=built.answer_verdict, raw=line)]
        report = judge_answers(answers, [attempt], records, suite=suite)
        records = apply_to_records(records, report)
    record = records[0]
    diagnosis = record.diagnosis
    return {
        "scenario": scenario.name,
        "repo": scenario.repo,
        "expected": scenario.expected,
        "expectedOwner": SPEC_OWNERS[scenario.expected],
        "cause": diagnosis.cause if diagnosis else None,
        "owner": diagnosis.owner if diagnosis else None,
        "detail": diagnosis.detail if diagnosis else "(passed)",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="*", help="repository keys (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--no-nice", action="store_true")
    args = parser.parse_args(argv)
    if not args.no_nice:
        os.nice(10)
    chosen = [r for r in REPOS if not args.repos or r.key in args.repos]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for repo in chosen:
            path = mirror_repo(repo.github)
            if path is None:
                print(f"skip {repo.key}: {repo.github} is not under the mirror (fetch it)")
                continue
            env = build_env(repo, path)
            for scenario in scenarios([repo]):
                try:
                    row = run_scenario(env, scenario, Path(tmp))
                except SetupError as exc:
                    row = {"scenario": scenario.name, "repo": repo.key, "setup": str(exc)}
                rows.append(row)
                if args.verbose:
                    print(_line(row))
            env.git.close()
    report(rows)
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    ran = [r for r in rows if "setup" not in r]
    return 0 if all(r["cause"] == r["expected"] and owner_ok(r) for r in ran) else 1


def _line(row: dict[str, Any]) -> str:
    if "setup" in row:
        return f"SETUP {row['scenario']}: {row['setup']}"
    ok = row["cause"] == row["expected"] and owner_ok(row)
    mark = "ok  " if ok else "FAIL"
    got = f"got {row['cause']} ({row['owner']})"
    return f"{mark} {row['scenario']}: expected {row['expected']}, {got}: {row['detail'][:160]}"


def report(rows: list[dict[str, Any]]) -> None:
    setup = [r for r in rows if "setup" in r]
    ran = [r for r in rows if "setup" not in r]
    by_cause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in ran:
        by_cause[r["expected"]].append(r)
    print(f"\n{'expected cause':26} {'n':>4} {'right cause':>12} {'right owner':>12}")
    for cause in SPEC_OWNERS:
        group = by_cause.get(cause, [])
        if not group:
            print(f"{cause:26} {0:>4} {'-':>12} {'-':>12}")
            continue
        c = sum(r["cause"] == cause for r in group)
        o = sum(owner_ok(r) for r in group)
        print(f"{cause:26} {len(group):>4} {c / len(group):>11.0%} {o / len(group):>11.0%}")
    c = sum(r["cause"] == r["expected"] for r in ran)
    o = sum(owner_ok(r) for r in ran)
    total = len(ran) or 1
    print(f"{'all':26} {len(ran):>4} {c / total:>11.0%} {o / total:>11.0%}")
    repos = sorted({r["repo"] for r in ran})
    print(f"repositories: {', '.join(repos)}; scenarios not built: {len(setup)}")
    for r in setup:
        print(f"  not built: {r['scenario']}: {r['setup']}")
    wrong = [r for r in ran if r["cause"] != r["expected"] or not owner_ok(r)]
    for r in wrong:
        print("  " + _line(r))


if __name__ == "__main__":
    sys.exit(main())
