"""Repeated attempts: identical attempts that rank differently are flagged, with why.

Nondeterminism is injected for real: a retriever wrapper that reorders ties, one that
perturbs scores with an unseeded RNG, and an index rebuilt between two attempts."""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from codegold._io import write_jsonl_atomic
from codegold.attempts import Attempt
from codegold.cases import Suite, load_suite
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.evaluate import evaluate_attempts
from codegold.evaluate.records import CaseResult
from codegold.evaluate.repeat import check_repeats, flag_nondeterminism, has_repeats
from codegold.index.build import build_index
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.runner import RetrievalSession
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

SESSION = '''\
def create_session(token, store):
    """Create a session; an expired token raises TokenExpired."""
    if token.expired:
        raise TokenExpired(token)
    return store.new(token.user)


class TokenExpired(Exception):
    pass


def refresh_session(session, store):
    """Refresh a session before its token expires."""
    return store.refresh(session)
'''
COPY = '''\
def create_session_copy(token):
    """A copy of create_session that ignores expired tokens."""
    return token
'''
FILES = {
    "app/session.py": SESSION,
    "lib/session_copy.py": COPY,
    "tests/test_session.py": "from app.session import create_session\n\n\ndef test_create_session_expired():\n    assert create_session\n",
    "README.md": "# demo\n\nSessions: create_session, refresh_session.\n",
}
CASES = [
    {
        "id": "expiry",
        "query": "How does create_session handle an expired token?",
        "accepted": [{"file": "app/session.py", "symbol": "create_session"}],
    },
    {
        "id": "refresh",
        "query": "where is refresh_session defined",
        "accepted": [{"file": "app/session.py", "symbol": "refresh_session"}],
    },
]


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Any]:
    repo, (sha,) = make_repo(tmp_path / "r", [FILES])
    suite_path = tmp_path / "suite.json"
    suite_path.write_text(json.dumps({"repository": {"revision": sha}, "cases": CASES}))
    index = tmp_path / "index"
    with GitRepo(repo) as git:
        build_index(git, sha, index, policy=PathPolicy())
    return {
        "repo": repo,
        "sha": sha,
        "suite_path": suite_path,
        "suite": load_suite(suite_path),
        "index": index,
    }


class TieShuffler:
    """Scores every chunk alike, then orders the ties one way on odd calls and the
    other on even calls: a retriever whose tie-breaking depends on something outside
    its input."""

    name = "tie-shuffler"

    def __init__(self, inner: HybridRetriever) -> None:
        self.inner = inner
        self.calls = 0

    def retrieve(self, query: str, **kw: Any) -> Attempt:
        self.calls += 1
        attempt: Attempt = self.inner.retrieve(query, **kw)
        flat = [msgspec.structs.replace(c, score=1.0) for c in attempt.ranked]
        flat.sort(key=lambda c: c.chunk_id, reverse=self.calls % 2 == 0)
        return msgspec.structs.replace(attempt, ranked=tuple(flat))


class ScoreJitter:
    """Multiplies every score by an unseeded random factor and re-sorts."""

    name = "score-jitter"

    def __init__(self, inner: HybridRetriever) -> None:
        self.inner = inner
        self.rng = random.Random()  # deliberately unseeded

    def retrieve(self, query: str, **kw: Any) -> Attempt:
        attempt: Attempt = self.inner.retrieve(query, **kw)
        jittered = [
            msgspec.structs.replace(c, score=round(c.score * self.rng.uniform(0.2, 5.0), 8))
            for c in attempt.ranked
        ]
        jittered.sort(key=lambda c: (-c.score, c.chunk_id))
        return msgspec.structs.replace(attempt, ranked=tuple(jittered))


def _attempts(world: dict[str, Any], repeat: int, make: Any = None) -> list[Attempt]:
    session = RetrievalSession(world["index"], RetrieverConfig(), make_retriever=make)
    attempts: list[Attempt] = session.retrieve_suite(world["suite"], repeat=repeat)
    return attempts


def _flagged(suite: Suite, attempts: list[Attempt]) -> tuple[list[CaseResult], dict[str, Any]]:
    records = evaluate_attempts(suite, attempts)
    return check_repeats(records, attempts)


def test_a_deterministic_retriever_repeated_is_flagged_false(world: dict[str, Any]) -> None:
    attempts = _attempts(world, 3)
    records, section = _flagged(world["suite"], attempts)
    assert len(records) == 6
    assert [r.nondeterministic for r in records] == [False] * 6
    report = section["nondeterminism"]
    assert report["repeatedCases"] == 2
    assert report["identicalAttemptSets"] == 2
    assert report["nondeterministicCases"] == 0
    assert report["sets"] == []


def test_single_attempts_stay_none_and_attempts_are_not_read(world: dict[str, Any]) -> None:
    attempts = _attempts(world, 1)
    records = evaluate_attempts(world["suite"], attempts)
    assert not has_repeats(records)

    def boom() -> Any:
        raise AssertionError("attempts were read without any repeated case")
        yield

    flagged, section = check_repeats(records, boom())
    assert section == {}
    assert [r.nondeterministic for r in flagged] == [None, None]


@pytest.mark.parametrize(
    ("wrapper", "reason"),
    [(TieShuffler, "tie_breaking"), (ScoreJitter, "component_changed")],
    ids=["ties-reordered", "scores-perturbed"],
)
def test_injected_nondeterminism_is_flagged_with_its_reason(
    world: dict[str, Any], wrapper: Any, reason: str
) -> None:
    attempts = _attempts(world, 4, make=lambda loaded: wrapper(HybridRetriever(loaded)))
    records, section = _flagged(world["suite"], attempts)
    assert all(r.nondeterministic is True for r in records)
    report = section["nondeterminism"]
    assert report["nondeterministicCases"] == 2
    assert report["reasons"][reason] == 2
    assert {s["reason"] for s in report["sets"]} == {reason}
    assert report["sets"][0]["attemptIds"] == ["expiry#1", "expiry#2", "expiry#3", "expiry#4"]


def test_an_index_rebuilt_between_attempts_is_named(world: dict[str, Any]) -> None:
    suite = world["suite"]
    first = RetrievalSession(world["index"]).retrieve_case(suite.cases[0], 1)
    policy = PathPolicy()
    narrower = dataclasses.replace(policy, exclude=(*policy.exclude, "lib/"))
    with GitRepo(world["repo"]) as git:
        build_index(git, world["sha"], world["index"], policy=narrower)
    second = RetrievalSession(world["index"]).retrieve_case(suite.cases[0], 2)
    assert first.index is not None and second.index is not None
    assert first.index.build_id != second.index.build_id
    records, section = _flagged(suite, [first, second])
    by_attempt = {r.attempt_id: r.nondeterministic for r in records}
    assert by_attempt == {"expiry#1": True, "expiry#2": True, None: None}
    (found,) = section["nondeterminism"]["sets"]
    assert found["reason"] == "index_changed"
    assert first.index.build_id in found["detail"] and second.index.build_id in found["detail"]


def test_attempts_with_different_inputs_are_not_compared(world: dict[str, Any]) -> None:
    case = world["suite"].cases[0]
    plain = RetrievalSession(world["index"]).retrieve_case(case, 1)
    other = RetrievalSession(world["index"], RetrieverConfig(role_strength=0.0)).retrieve_case(
        case, 2
    )
    records = flag_nondeterminism(evaluate_attempts(world["suite"], [plain, other]), [plain, other])
    assert [r.nondeterministic for r in records if r.case_id == "expiry"] == [None, None]


def test_eval_writes_the_flags_and_the_reasons(world: dict[str, Any], tmp_path: Path) -> None:
    attempts = _attempts(world, 2, make=lambda loaded: TieShuffler(HybridRetriever(loaded)))
    write_jsonl_atomic(tmp_path / "attempts.jsonl", attempts)
    outs = []
    for name in ("one", "two"):
        proc = run_cli(
            "eval",
            "--cases",
            str(world["suite_path"]),
            "--attempts",
            str(tmp_path / "attempts.jsonl"),
            "--out",
            str(tmp_path / name),
            "--quiet",
        )
        assert proc.returncode == 0, proc.stderr
        outs.append((tmp_path / name / "summary.json").read_bytes())
    assert outs[0] == outs[1]
    summary = json.loads(outs[0])
    assert summary["overall"]["nondeterministic"] == 2
    assert summary["nondeterminism"]["reasons"]["tie_breaking"] == 2
    results = json.loads((tmp_path / "one" / "results.json").read_text())
    assert [r["nondeterministic"] for r in results] == [True] * 4
    # the gate reads results.json through the type that wrote it: it counts what the
    # summary counts (it used to see 0)
    (tmp_path / "gate.toml").write_text("[gate]\nminPassRate = 0.0\n")
    gate = run_cli(
        "gate",
        str(tmp_path / "one"),
        "--policy",
        str(tmp_path / "gate.toml"),
        "--json",
        str(tmp_path / "gate.json"),
    )
    assert gate.returncode == 0, gate.stderr
    decision = json.loads((tmp_path / "gate.json").read_text())
    assert decision["slices"]["overall"]["nondeterministic"] == 2


def test_run_repeat_stores_every_attempt_and_flags_none(
    world: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    proc = run_cli(
        "run",
        "--cases",
        str(world["suite_path"]),
        "--repo",
        str(world["repo"]),
        "--index",
        str(world["index"]),
        "--repeat",
        "3",
        "--embedder",
        "none",
        "--quiet",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert len((out / "attempts.jsonl").read_text().splitlines()) == 6
    results = json.loads((out / "results.json").read_text())
    assert [r["nondeterministic"] for r in results] == [False] * 6
    summary = json.loads((out / "summary.json").read_text())
    assert summary["nondeterminism"]["nondeterministicCases"] == 0
    assert summary["overall"]["nondeterministic"] == 0
    # a single run carries no such section, and every record says "not compared"
    proc = run_cli(
        "run",
        "--cases",
        str(world["suite_path"]),
        "--repo",
        str(world["repo"]),
        "--index",
        str(world["index"]),
        "--embedder",
        "none",
        "--quiet",
        "--out",
        str(tmp_path / "once"),
    )
    assert proc.returncode == 0, proc.stderr
    once = json.loads((tmp_path / "once" / "summary.json").read_text())
    assert "nondeterminism" not in once
    assert {
        r["nondeterministic"] for r in json.loads((tmp_path / "once" / "results.json").read_text())
    } == {None}
