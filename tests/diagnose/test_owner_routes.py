"""Does each diagnosis name the owner who can fix it? Real repositories, real index
builds, the reference retriever and the evaluator, as in test_causes."""

from __future__ import annotations

from pathlib import Path

from codegold.chunking import ChunkerConfig
from codegold.retrieve.config import RetrieverConfig
from tests.diagnose.test_causes import BASE, DEF, SESSION, cause, run_case

QUESTION = "how does create_session handle an expired token?"


def test_forbidden_test_file_is_ranking_s_and_names_the_rule(tmp_path: Path) -> None:
    # the path policy marked the test file role "test" (a default rule): it did its
    # part, so the trap within the cutoff is ranking's to keep out
    record = run_case(
        tmp_path,
        [BASE],
        {
            "id": "c",
            "query": "test create_session rejects expired token",
            "accepted": [DEF],
            "forbiddenPathPrefixes": ["tests/"],
        },
    )
    assert cause(record) == "forbidden_source"
    assert record.diagnosis is not None
    trap = record.diagnosis.evidence["trapPolicy"]
    assert trap["file"] == "tests/test_session.py"
    assert trap["role"] == "test" and trap["rule"].startswith("default:test:")
    assert record.diagnosis.owner == "ranking"
    assert trap["rule"] in record.diagnosis.detail


def test_forbidden_plain_source_that_is_no_copy_is_ranking_s(tmp_path: Path) -> None:
    # a rewritten old version under a path no rule knows: plain source, and not a
    # copy of the answer, so nothing in the path policy's remit explains it
    files = {**BASE, "app/alt/session.py": BASE["app/legacy/session.py"]}
    record = run_case(
        tmp_path,
        [files],
        {
            "id": "c",
            "query": QUESTION,
            "accepted": [DEF],
            "forbiddenPathPrefixes": ["app/alt/"],
        },
    )
    assert cause(record) == "forbidden_source"
    assert record.diagnosis is not None
    trap = record.diagnosis.evidence["trapPolicy"]
    assert trap == {
        "file": "app/alt/session.py",
        "status": "indexed",
        "role": "source",
        "rule": None,
    }
    assert "copyOf" not in record.diagnosis.evidence
    assert record.diagnosis.owner == "ranking"
    assert "no path rule" in record.diagnosis.detail


BUNDLE = (
    "def factory(store_class):\n"
    + "".join(f"    {line}\n" if line else "\n" for line in SESSION.split("\n")[3:])
    + "    return create_session, TokenExpired\n"
)


def test_forbidden_verbatim_copy_of_the_answer_is_the_path_policy_s(tmp_path: Path) -> None:
    # a committed bundle repeats the accepted definition line for line inside a
    # wrapper, under a path no rule marks as build output: the path policy's to fix
    files = {**BASE, "pkg/bundle.py": BUNDLE}
    record = run_case(
        tmp_path,
        [files],
        {
            "id": "c",
            "query": QUESTION,
            "accepted": [DEF],
            "forbiddenPathPrefixes": ["pkg/"],
        },
        config=RetrieverConfig(collapse_duplicates=False),
    )
    assert cause(record) == "forbidden_source"
    assert record.diagnosis is not None
    evidence = record.diagnosis.evidence
    assert evidence["trapPolicy"]["role"] == "source"
    assert evidence["copyOf"]["file"] == "app/session.py"
    assert record.diagnosis.owner == "indexing"
    assert "copy" in record.diagnosis.detail and "app/session.py" in record.diagnosis.detail


LONG = "".join(f"    step_{i} = compute({i})\n" for i in range(60))
LEDGER = (
    f"def reconcile_ledger(entries):\n    '''Reconcile the ledger.'''\n{LONG}    return entries\n"
)
PIECES = ChunkerConfig(max_chunk_lines=10, long_definition_factor=1)


def test_a_split_whose_pieces_all_carry_the_label_is_not_the_chunker_s(tmp_path: Path) -> None:
    # the chunker cut a long function into pieces that each carry its name, so any
    # piece satisfies the label; the question is about something else, so no piece is
    # retrieved: the boundary that broke is retrieval, not chunking
    files = {**BASE, "app/ledger.py": LEDGER}
    target = {"file": "app/ledger.py", "symbol": "reconcile_ledger", "lines": [1, 63]}
    record = run_case(
        tmp_path,
        [files],
        {"id": "c", "query": "what is create_session?", "accepted": [target]},
        config=RetrieverConfig(depth=3, candidates_per_signal=3),
        chunker=PIECES,
    )
    assert cause(record) in ("retrieval_miss", "below_cutoff")
    assert record.diagnosis is not None and record.diagnosis.owner != "parser/chunker"
    assert "each carry" in record.diagnosis.detail
