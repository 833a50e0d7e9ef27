"""Each diagnosis cause, produced through the real pipeline where it lives there:
real git repositories, real index builds, the reference retriever, the evaluator."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest

from codegold.attempts import Attempt
from codegold.cases import load_suite
from codegold.chunking import ChunkerConfig
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import load_policy
from codegold.diagnose import diagnose_records
from codegold.evaluate import evaluate_attempts
from codegold.evaluate.records import CaseResult
from codegold.index.build import BuildOptions, build_index
from codegold.pipeline import diagnosis_context
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.runner import RetrievalSession
from tests.corpus.gitfixture import make_repo

SESSION = '''\
"""Sessions."""


def create_session(token, store):
    """Create a session; an expired token raises TokenExpired."""
    if token.expired:
        raise TokenExpired(token)
    session = store.new(token.user)
    store.save(session)
    return session


class TokenExpired(Exception):
    pass
'''
LEGACY = '''\
def create_session(token):
    """Old create_session: extends expired tokens instead of rejecting them."""
    return token
'''
TESTS = """\
from app.session import create_session


def test_create_session_rejects_expired_token():
    assert create_session
"""
BASE = {
    "app/session.py": SESSION,
    "app/legacy/session.py": LEGACY,
    "tests/test_session.py": TESTS,
    "app/util.py": "def helper():\n    return 1\n",
}


def run_case(
    tmp_path: Path,
    commits: list[dict[str, Any]],
    case: dict[str, Any],
    *,
    pin: int = -1,
    config: RetrieverConfig | None = None,
    chunker: ChunkerConfig | None = None,
    make: Callable[[Any], Any] | None = None,
) -> CaseResult:
    repo, shas = make_repo(tmp_path / "repo", commits)
    suite_path = tmp_path / "suite.json"
    suite_path.write_text(
        json.dumps(
            {"repository": {"revision": shas[pin]}, "defaults": {"cutoff": 3}, "cases": [case]}
        )
    )
    suite = load_suite(suite_path)
    root = tmp_path / "index"
    with GitRepo(repo) as git:
        policy = load_policy(repo=git, revision=shas[pin])
        options = BuildOptions(chunker=chunker or ChunkerConfig())
        build_index(git, shas[pin], root, policy=policy, options=options)
        session = RetrievalSession(root, config or RetrieverConfig(), make_retriever=make)
        attempts = session.retrieve_suite(suite)
        records = evaluate_attempts(suite, attempts)
        diagnosed = diagnose_records(
            suite.by_id(),
            records,
            {a.attempt_id: a for a in attempts},
            diagnosis_context(git, root),
        )
    return diagnosed[0]


def cause(record: CaseResult) -> str:
    assert not record.passed, "the case was meant to fail"
    assert record.diagnosis is not None
    return record.diagnosis.cause


LEDGER_CLASS = 'class Ledger:\n    """A ledger."""\n\n' + "".join(
    f"    def post_{i}(self, entry):\n        self.rows.append(({i}, entry))\n"
    "        return self.rows\n\n"
    for i in range(8)
)
DEF = {"file": "app/session.py", "symbol": "create_session", "roles": ["definition"]}


def test_passing_case_has_no_diagnosis(tmp_path: Path) -> None:
    record = run_case(
        tmp_path, [BASE], {"id": "c", "query": "what is create_session?", "accepted": [DEF]}
    )
    assert record.passed and record.diagnosis is None


def test_stale_label_symbol_deleted_in_a_later_commit(tmp_path: Path) -> None:
    later = {**BASE, "app/session.py": SESSION.replace("create_session", "open_session")}
    record = run_case(
        tmp_path, [BASE, later], {"id": "c", "query": "what is create_session?", "accepted": [DEF]}
    )
    assert cause(record) == "stale_label"
    assert record.diagnosis is not None and record.diagnosis.owner == "dataset"
    assert "create_session" in record.diagnosis.detail


def test_stale_label_file_gone(tmp_path: Path) -> None:
    target = {"file": "app/sessions.py", "symbol": "create_session"}
    record = run_case(
        tmp_path, [BASE], {"id": "c", "query": "what is create_session?", "accepted": [target]}
    )
    assert cause(record) == "stale_label"
    assert "file does not exist" in (record.diagnosis.detail if record.diagnosis else "")


def test_excluded_by_policy(tmp_path: Path) -> None:
    repo_files = {**BASE, "codegold.toml": '[policy]\nextend-exclude = ["app/session.py"]\n'}
    record = run_case(
        tmp_path, [repo_files], {"id": "c", "query": "what is create_session?", "accepted": [DEF]}
    )
    assert cause(record) == "excluded_by_policy"
    assert record.diagnosis is not None and "codegold.toml" in record.diagnosis.detail


def test_metadata_mismatch_role_wrong(tmp_path: Path) -> None:
    # the label says the test function is a definition; the index (rightly) says test
    target = {
        "file": "tests/test_session.py",
        "symbol": "test_create_session_rejects_expired_token",
        "roles": ["definition"],
    }
    record = run_case(
        tmp_path,
        [BASE],
        {"id": "c", "query": "test create session rejects expired token", "accepted": [target]},
    )
    assert cause(record) == "metadata_mismatch"
    assert record.diagnosis is not None and "role=test" in record.diagnosis.detail


def test_metadata_mismatch_nested_symbol_not_extracted(tmp_path: Path) -> None:
    nested = "def outer(items):\n    def score(item):\n        return item.weight\n    return sorted(items, key=score)\n"
    files = {**BASE, "app/rank.py": nested}
    target = {"file": "app/rank.py", "symbol": "score", "roles": ["definition"]}
    record = run_case(
        tmp_path,
        [files],
        {"id": "c", "query": "how is an item scored for sorting?", "accepted": [target]},
    )
    if record.passed:
        pytest.skip("the chunker extracts nested functions; metadata is right")
    assert cause(record) == "metadata_mismatch"


def test_chunk_boundary_class_cut_into_methods(tmp_path: Path) -> None:
    # the label is the whole class; its methods are chunks that do not carry the class's
    # name, so part of the span is in chunks that cannot satisfy it
    files = {**BASE, "app/ledger.py": LEDGER_CLASS}
    target = {
        "file": "app/ledger.py",
        "symbol": "Ledger",
        "lines": [1, LEDGER_CLASS.count("\n") - 1],
    }
    record = run_case(
        tmp_path,
        [files],
        {"id": "c", "query": "what is create_session?", "accepted": [target]},
        config=RetrieverConfig(depth=3, candidates_per_signal=3),
        chunker=ChunkerConfig(max_chunk_lines=8),
    )
    assert cause(record) == "chunk_boundary"
    assert record.diagnosis is not None and record.diagnosis.owner == "parser/chunker"


def test_query_rewrite_dropped_the_identifier(tmp_path: Path) -> None:
    def make(index: Any) -> HybridRetriever:
        return HybridRetriever(index, rewriter=lambda q: "how are sessions handled")

    record = run_case(
        tmp_path,
        [BASE],
        {
            "id": "c",
            "query": "what does create_session do?",
            "accepted": [{"file": "app/util.py", "symbol": "helper"}],
        },
        make=make,
    )
    assert cause(record) == "query_rewrite"
    assert record.diagnosis is not None
    assert record.diagnosis.evidence["droppedTerms"] == ["create_session"]


def test_retrieval_miss(tmp_path: Path) -> None:
    record = run_case(
        tmp_path,
        [BASE],
        {
            "id": "c",
            "query": "what does create_session do?",
            "accepted": [{"file": "app/util.py", "symbol": "helper"}],
        },
    )
    assert cause(record) == "retrieval_miss"
    assert record.diagnosis is not None and record.diagnosis.owner == "retrieval"


def test_a_first_stage_role_demotion_is_below_cutoff_not_the_reranker(tmp_path: Path) -> None:
    # the test chunk fuses into the top 3, but a "what is" question's role preference
    # demotes tests: that is the first-stage ranking, before the rerank stage, so the
    # pre-rerank candidates already hold it past the cutoff
    target = {
        "file": "tests/test_session.py",
        "symbol": "test_create_session_rejects_expired_token",
    }
    extra = {
        f"app/mod{i}.py": f"def create_session_{i}(token):\n    '''create session {i}.'''\n    return token\n"
        for i in range(4)
    }
    record = run_case(
        tmp_path,
        [{**BASE, **extra}],
        {
            "id": "c",
            "query": "what is test_create_session_rejects_expired_token",
            "accepted": [target],
        },
        config=RetrieverConfig(
            symbol_boost=1.0,
            w_symbol=0.0,
            role_strength=1.0,
            role_preferences={"definition": {"test": 0.01}},
        ),
    )
    assert cause(record) == "below_cutoff"
    assert record.diagnosis is not None and record.diagnosis.owner == "ranking"
    ranks = record.diagnosis.evidence["ranks"]["accepted"]
    assert ranks["preRerank"] > 3 and ranks["postRerank"] > 3


STORE = '''\
class TokenStore:
    """Keeps expired tokens: an expired token is kept, expired tokens are kept."""

    def keep(self, token):
        self.expired = token

    def drop(self, token):
        self.expired = None
'''


def test_reranker_demotion(tmp_path: Path) -> None:
    # the class is first for the question's words (no first-stage type factor here),
    # and the rerank stage's hub penalty (made steep) sends it past the cutoff: within
    # it before reranking, below it after
    target = {"file": "app/store.py", "symbol": "TokenStore"}
    extra = {
        f"app/mod{i}.py": f"def check_{i}(token):\n    '''an expired token {i}.'''\n    return token\n"
        for i in range(3)
    }
    case = {"id": "c", "query": "where are expired tokens kept", "accepted": [target]}
    files = {**BASE, **extra, "app/store.py": STORE}
    record = run_case(
        tmp_path / "hub",
        [files],
        case,
        config=RetrieverConfig(type_factor=1.0, hub_lines=2, hub_power=6.0),
    )
    assert cause(record) == "reranker_demotion"
    assert record.diagnosis is not None and record.diagnosis.owner == "reranker"
    ranks = record.diagnosis.evidence["ranks"]["accepted"]
    assert ranks["preRerank"] <= 3 < (ranks["postRerank"] or 99)
    # without the penalty the same question finds it within the cutoff
    plain = run_case(tmp_path / "plain", [files], case, config=RetrieverConfig(type_factor=1.0))
    assert plain.passed


def test_below_cutoff(tmp_path: Path) -> None:
    target = {"file": "app/legacy/session.py", "symbol": "create_session"}
    record = run_case(
        tmp_path,
        [BASE],
        {"id": "c", "query": "create_session expired token", "cutoff": 1, "accepted": [target]},
        config=RetrieverConfig(legacy_mode="off"),
    )
    assert record.first_relevant_rank is None
    assert cause(record) in ("below_cutoff", "reranker_demotion")
    assert any(e.match == "accepted" and e.rank > 1 for e in record.ranked)


MIGRATOR = '''\
class Migrator:
    """Runs pending schema changes in order."""

    def migrate_to_latest(self, pending):
        """Apply every pending schema change in order, stopping at the first failure."""
        for change in pending:
            change.apply()
'''
RUNNER = '''\
def apply_changes(pending):
    """Apply every pending change in order."""
    for change in pending:
        change.apply()
'''


def test_a_policy_role_the_label_did_not_ask_for_is_named_in_the_ranking_diagnosis(
    tmp_path: Path,
) -> None:
    # src/migration/ is role migration by the default path policy, but this file is the
    # code that runs migrations; the label names no role. The ranking boundary is what
    # broke, and the detail names the policy rule behind the role the ranking discounts
    files = {**BASE, "src/migration/migrator.py": MIGRATOR, "src/runner.py": RUNNER}
    target = {"file": "src/migration/migrator.py", "symbol": "Migrator.migrate_to_latest"}
    case = {
        "id": "c",
        "query": "how are pending changes applied in order?",
        "cutoff": 1,
        "accepted": [target],
    }
    record = run_case(tmp_path / "a", [files], case)
    assert cause(record) == "below_cutoff"
    assert record.diagnosis is not None and record.diagnosis.owner == "ranking"
    assert "role 'migration' by path rule 'default:migration:migration/'" in (
        record.diagnosis.detail
    )
    assert record.diagnosis.evidence["policyRole"] == {
        "file": "src/migration/migrator.py",
        "role": "migration",
        "rule": "default:migration:migration/",
    }
    # a label that asks for that role has no quarrel with it: no note
    asked = {**case, "accepted": [{**target, "roles": ["migration"]}]}
    record = run_case(tmp_path / "b", [files], asked)
    assert cause(record) == "below_cutoff"
    assert record.diagnosis is not None and "policyRole" not in record.diagnosis.evidence
    assert "path rule" not in record.diagnosis.detail


def test_forbidden_source(tmp_path: Path) -> None:
    record = run_case(
        tmp_path,
        [BASE],
        {
            "id": "c",
            "query": "how does create_session handle an expired token?",
            "accepted": [DEF],
            "forbiddenPathPrefixes": ["app/legacy/"],
        },
        config=RetrieverConfig(legacy_mode="off"),
    )
    assert record.first_relevant_rank is not None
    assert cause(record) == "forbidden_source"


def test_stale_label_wins_over_forbidden_source(tmp_path: Path) -> None:
    gone = {"file": "app/session.py", "symbol": "close_session"}
    record = run_case(
        tmp_path,
        [BASE],
        {
            "id": "c",
            "query": "how does create_session handle an expired token?",
            "groups": [{"id": "a", "anyOf": [DEF]}, {"id": "b", "anyOf": [gone]}],
            "forbiddenPathPrefixes": ["app/legacy/"],
        },
        config=RetrieverConfig(legacy_mode="off"),
    )
    assert record.forbidden_chunk_ids
    assert cause(record) == "stale_label"


def test_excluded_wins_over_ranking(tmp_path: Path) -> None:
    repo_files = {**BASE, "codegold.toml": '[policy]\nextend-exclude = ["app/util.py"]\n'}
    record = run_case(
        tmp_path,
        [repo_files],
        {
            "id": "c",
            "query": "what does create_session do?",
            "accepted": [{"file": "app/util.py", "symbol": "helper"}],
        },
    )
    assert cause(record) == "excluded_by_policy"


def test_invalid_run_index_from_another_commit(tmp_path: Path) -> None:
    repo, (first, second) = make_repo(tmp_path / "repo", [BASE, {**BASE, "app/new.py": "x = 1\n"}])
    root = tmp_path / "index"
    with GitRepo(repo) as git:
        build_index(git, first, root, policy=load_policy())
        from codegold.index.store import open_index

        attempt = HybridRetriever(open_index(root, first)).retrieve(
            "what is create_session?", case_id="c", attempt_id="c#1"
        )
    suite_path = tmp_path / "s.json"
    suite_path.write_text(
        json.dumps(
            {
                "repository": {"revision": second},
                "cases": [{"id": "c", "query": "what is create_session?", "accepted": [DEF]}],
            }
        )
    )
    record = evaluate_attempts(load_suite(suite_path), [attempt])[0]
    assert not record.valid and record.diagnosis is not None
    assert record.diagnosis.cause == "invalid_run" and record.diagnosis.owner == "indexing"


def _recorded(
    tmp_path: Path,
    ranked: list[dict[str, Any]],
    *,
    candidates: list[dict[str, Any]] | None,
    case: dict[str, Any],
    rev_override: str | None = None,
) -> CaseResult:
    repo, (sha,) = make_repo(tmp_path / "repo", [BASE])
    manifest = {
        "buildId": "ext-1",
        "repositoryRevision": sha,
        "chunkerVersion": "ext",
        "pathPolicy": "p",
        "builtAt": "t",
        "complete": True,
    }
    for c in ranked + (candidates or []):
        c.setdefault("repositoryRevision", rev_override or sha)
        c.setdefault("score", 1.0)
    raw = {
        "attemptId": "a1",
        "caseId": "c",
        "query": case["query"],
        "index": manifest,
        "ranked": ranked,
    }
    if candidates is not None:
        raw["candidates"] = candidates
    attempt = msgspec.convert(raw, Attempt)
    suite_path = tmp_path / "s.json"
    suite_path.write_text(
        json.dumps({"repository": {"revision": sha}, "defaults": {"cutoff": 3}, "cases": [case]})
    )
    suite = load_suite(suite_path)
    root = tmp_path / "index"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=load_policy())
        records = evaluate_attempts(suite, [attempt])
        return diagnose_records(
            suite.by_id(), records, {"a1": attempt}, diagnosis_context(git, root)
        )[0]


def test_recorded_metadata_mismatch_by_span(tmp_path: Path) -> None:
    # an external retriever returned the right lines but called them a call site of "store"
    ranked = [
        {
            "chunkId": "x1",
            "file": "app/session.py",
            "startLine": 1,
            "endLine": 12,
            "symbol": "store",
            "role": "call_site",
        }
    ]
    record = _recorded(
        tmp_path,
        ranked,
        candidates=ranked,
        case={"id": "c", "query": "what is create_session?", "accepted": [DEF]},
    )
    assert cause(record) == "metadata_mismatch"
    assert record.diagnosis is not None and "x1" in record.diagnosis.detail


def test_recorded_without_candidates_is_undetermined(tmp_path: Path) -> None:
    ranked = [
        {
            "chunkId": "x1",
            "file": "app/util.py",
            "startLine": 1,
            "endLine": 2,
            "symbol": "helper",
            "role": "definition",
        }
    ]
    record = _recorded(
        tmp_path,
        ranked,
        candidates=None,
        case={"id": "c", "query": "what is create_session?", "accepted": [DEF]},
    )
    assert cause(record) == "undetermined"
    assert (
        record.diagnosis is not None
        and "needs the pre-rerank candidates" in record.diagnosis.detail
    )


def test_recorded_revision_mismatch(tmp_path: Path) -> None:
    ranked = [
        {
            "chunkId": "x1",
            "file": "app/session.py",
            "startLine": 4,
            "endLine": 11,
            "symbol": "create_session",
            "role": "definition",
        }
    ]
    record = _recorded(
        tmp_path,
        ranked,
        candidates=ranked,
        rev_override="0" * 40,
        case={"id": "c", "query": "what is create_session?", "accepted": [DEF]},
    )
    assert record.first_relevant_rank == 1
    assert cause(record) == "revision_mismatch"


def test_an_indexed_alternative_moves_the_blame_past_the_chunker(tmp_path: Path) -> None:
    # one alternative is a nested function no chunk names; the other is indexed fine,
    # so the failure belongs to ranking, not to the chunker
    nested = "def outer(items):\n    def score(item):\n        return item.weight\n    return sorted(items, key=score)\n"
    files = {**BASE, "app/rank.py": nested}
    record = run_case(
        tmp_path,
        [files],
        {
            "id": "c",
            "query": "what does create_session do?",
            "accepted": [
                {"file": "app/rank.py", "symbol": "outer.score", "roles": ["definition"]},
                {"file": "app/rank.py", "symbol": "outer", "roles": ["definition"]},
            ],
        },
        config=RetrieverConfig(depth=3, candidates_per_signal=3),
    )
    assert cause(record) in ("retrieval_miss", "below_cutoff", "reranker_demotion")
