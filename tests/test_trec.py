"""TREC export: ir_measures on the exported files agrees with codegold where the
projection is exact, and the coarser granularities behave as documented."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import ir_measures
import msgspec
import pytest
from ir_measures import RR, Success

from codegold.cases import load_suite
from codegold.errors import InputError
from codegold.evaluate import evaluate_case
from codegold.evaluate.records import CaseResult
from codegold.trec import QRELS_FILE, RUN_FILE, export_trec, trec_lines
from tests.conftest import run_cli
from tests.evaluate.helpers import attempt, chunk, make_case, manifest


def _generated_results(n: int = 60, seed: int = 5) -> list[CaseResult]:
    """Cases with varied cutoffs, accepted chunks inside and past the cutoff, same-file
    chunks with the wrong role, forbidden chunks, empty rankings, invalid attempts, and
    scores that tie or run against the order (trec_eval must not reorder)."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        target = {"file": f"src/t{i}.py", "symbol": f"T{i}", "roles": ["definition"]}
        fields: dict[str, Any] = {
            "id": f"case {i:02d}" if i % 7 == 0 else f"case-{i:02d}",  # some ids with a space
            "cutoff": rng.choice([3, 5, 10]),
            "accepted": [target],
            "forbiddenPathPrefixes": ["legacy/"],
        }
        if i % 4 == 0:
            fields["groups"] = [{"id": "cfg", "anyOf": [{"file": f"config/c{i}.toml"}]}]
        case = make_case(**fields)
        ranked = []
        for r in range(0 if i % 11 == 0 else rng.randint(1, 14)):
            kind = rng.random()
            if kind < 0.12:
                c = chunk(f"src/t{i}.py", f"T{i}", "definition", start=r + 1, end=r + 5)
            elif kind < 0.3:
                c = chunk(f"src/t{i}.py", f"T{i}", "call_site", start=r + 40, end=r + 45)
            elif kind < 0.38:
                c = chunk(f"legacy/t{i}.py", f"T{i}")
            elif kind < 0.46:
                c = chunk(f"config/c{i}.toml", None, "configuration")
            else:
                c = chunk(f"src/other {rng.randrange(4)}.py", f"g{r}", "definition", start=r + 1)
            c["chunkId"] = f"k{i}-{r}"
            c["score"] = 1.0 if i % 3 == 0 else (r + 1) / 10  # ties, or rising with rank
            ranked.append(c)
        index = manifest(complete=i % 13 != 5)
        records.append(evaluate_case(case, attempt(ranked, caseId=case.id, index=index)))
    return records


def _measure(folder: Path, measures: list[Any]) -> dict[tuple[str, str], float]:
    qrels = list(ir_measures.read_trec_qrels(str(folder / QRELS_FILE)))
    run = list(ir_measures.read_trec_run(str(folder / RUN_FILE)))
    return {
        (m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)
    }


def _qid(case_id: str) -> str:
    return case_id.replace(" ", "%20")


@pytest.fixture(scope="module")
def results() -> list[CaseResult]:
    records = _generated_results()
    # The generator must exercise what the export has to get right.
    assert any(not r.valid for r in records)
    assert any(not r.ranked for r in records)
    assert any(r.first_relevant_rank and r.first_relevant_rank > 1 for r in records)
    assert any(
        r.first_relevant_rank is None and any(e.match == "accepted" for e in r.ranked)
        for r in records
    ), "an accepted chunk past the cutoff"
    assert any(r.forbidden_chunk_ids for r in records)
    return records


def test_chunk_level_rr_agrees_with_codegold_case_by_case(
    results: list[CaseResult], tmp_path: Path
) -> None:
    export = export_trec(results, tmp_path)
    assert export.granularity == "chunk" and export.qrels_source == "projection"
    values = _measure(tmp_path, [RR, Success @ 10])
    valid = [r for r in results if r.valid]
    assert export.queries == len(valid)
    assert set(export.skipped_invalid) == {r.case_id for r in results if not r.valid}
    for r in valid:
        if r.case_id in export.empty:
            assert r.reciprocal_rank == 0.0 and (_qid(r.case_id), "RR") not in values
            continue
        assert values[(_qid(r.case_id), "RR")] == pytest.approx(r.reciprocal_rank), r.case_id
        hit = 1.0 if r.first_relevant_rank is not None else 0.0
        assert values[(_qid(r.case_id), "Success@10")] == hit, r.case_id
    assert ir_measures.calc_aggregate(
        [RR],
        list(ir_measures.read_trec_qrels(str(tmp_path / QRELS_FILE))),
        list(ir_measures.read_trec_run(str(tmp_path / RUN_FILE))),
    )[RR] == pytest.approx(
        sum(r.reciprocal_rank for r in valid if r.case_id not in export.empty)
        / (len(valid) - len(export.empty))
    )


def test_full_run_needs_rr_at_the_cutoff(results: list[CaseResult], tmp_path: Path) -> None:
    export_trec(results, tmp_path, full=True)
    values = _measure(tmp_path, [RR @ 3, RR @ 5, RR @ 10, RR])
    checked = 0
    for r in results:
        if not r.valid or not r.ranked:
            continue
        assert values[(_qid(r.case_id), f"RR@{r.cutoff}")] == pytest.approx(r.reciprocal_rank)
        checked += 1
    assert checked > 30
    # Without the cutoff, an accepted chunk past it would count: the reason runs are cut.
    assert any(
        values[(_qid(r.case_id), "RR")] > r.reciprocal_rank for r in results if r.valid and r.ranked
    )


@pytest.mark.parametrize("granularity", ["symbol", "file"])
def test_coarser_documents_are_a_localization_upper_bound(
    results: list[CaseResult], granularity: Any, tmp_path: Path
) -> None:
    export = export_trec(results, tmp_path, granularity=granularity)
    values = _measure(tmp_path, [RR])
    looser = 0
    for r in results:
        if not r.valid or r.case_id in export.empty:
            continue
        coarse = values[(_qid(r.case_id), "RR")]
        assert coarse >= r.reciprocal_rank - 1e-12, r.case_id
        looser += coarse > r.reciprocal_rank
    assert looser > 0, "same-file chunks with the wrong role make file level looser"
    run_docs = [line.split()[2] for line in (tmp_path / RUN_FILE).read_text().splitlines()]
    if granularity == "file":
        assert "src/other%200.py" in run_docs
        assert not any("#" in d for d in run_docs)
    else:
        assert any(d.startswith("src/t") and "#T" in d for d in run_docs)


def test_lines_are_trec_shaped_and_scores_follow_rank(results: list[CaseResult]) -> None:
    run, qrels, export = trec_lines(results, tag="mytag")
    assert export.run_lines == len(run) and export.qrels_lines == len(qrels)
    by_query: dict[str, list[list[str]]] = {}
    for line in run:
        cols = line.split(" ")
        assert len(cols) == 6 and cols[1] == "Q0" and cols[5] == "mytag"
        by_query.setdefault(cols[0], []).append(cols)
    for rows in by_query.values():
        ranks = [int(c[3]) for c in rows]
        scores = [int(c[4]) for c in rows]
        assert ranks == list(range(1, len(rows) + 1))
        assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    for line in qrels:
        qid, zero, _doc, rel = line.split(" ")
        assert zero == "0" and rel in ("0", "1") and qid in by_query


def test_relevance_is_from_the_accepted_matches_only() -> None:
    case = make_case(
        id="q",
        accepted=[{"file": "src/a.py", "symbol": "A", "roles": ["definition"]}],
        supporting=[{"file": "docs/a.md"}],
        forbiddenPathPrefixes=["legacy/"],
    )
    ranked = [
        chunk("docs/a.md", None, "docs", cid="sup"),
        chunk("legacy/a.py", "A", cid="old"),
        chunk("src/a.py", "A", "call_site", cid="use"),
        chunk("src/a.py", "A", "definition", cid="def"),
    ]
    rec = evaluate_case(case, attempt(ranked, caseId="q"))
    assert rec.reciprocal_rank == 0.25
    _, qrels, _ = trec_lines([rec])
    assert qrels == ["q 0 def 1", "q 0 old 0", "q 0 sup 0", "q 0 use 0"]
    _, file_qrels, _ = trec_lines([rec], granularity="file")
    assert file_qrels == ["q 0 docs/a.md 0", "q 0 legacy/a.py 0", "q 0 src/a.py 1"]


def test_suite_qrels_are_the_file_level_gold(tmp_path: Path) -> None:
    suite_path = tmp_path / "suite.json"
    suite_path.write_text(
        json.dumps(
            {
                "repository": {"revision": "a" * 40},
                "cases": [
                    {
                        "id": "exact",
                        "query": "where is A?",
                        "accepted": [{"file": "src/a.py", "symbol": "A"}],
                        "groups": [{"id": "cfg", "anyOf": [{"file": "config/a.toml"}]}],
                    },
                    {
                        "id": "glob",
                        "query": "where are the handlers?",
                        "accepted": [{"filePattern": "src/handlers/*.py"}],
                    },
                ],
            }
        )
    )
    suite = load_suite(suite_path)
    cases = suite.by_id()
    records = [
        evaluate_case(cases["exact"], attempt([chunk("src/b.py", "B")], caseId="exact")),
        evaluate_case(
            cases["glob"],
            attempt([chunk("src/handlers/x.py", "h"), chunk("src/y.py", "y")], caseId="glob"),
        ),
    ]
    run, qrels, export = trec_lines(records, granularity="file", suite=suite)
    assert export.qrels_source == "suite"
    assert qrels == [
        "exact 0 config/a.toml 1",
        "exact 0 src/a.py 1",
        "exact 0 src/b.py 0",
        "glob 0 src/handlers/x.py 1",
        "glob 0 src/y.py 0",
    ]
    assert run[0] == "exact Q0 src/b.py 1 1 codegold"
    with pytest.raises(InputError, match="file-level"):
        trec_lines(records, suite=suite)
    stranger = evaluate_case(make_case(id="stranger", accepted=[{"file": "x"}]), None)
    with pytest.raises(InputError) as info:
        trec_lines([stranger], granularity="file", suite=suite)
    assert info.value.case_id == "stranger"


def test_bad_tag_is_an_input_error(results: list[CaseResult]) -> None:
    with pytest.raises(InputError) as info:
        trec_lines(results, tag="my tag")
    assert info.value.field == "tag"


def test_cli_export_trec(results: list[CaseResult], tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_bytes(msgspec.json.encode(results))
    out = tmp_path / "trec"
    proc = run_cli("export-trec", str(path), "--out-dir", str(out), "--granularity", "file")
    assert proc.returncode == 0, proc.stderr
    assert "at file level, qrels from projection" in proc.stdout
    assert "invalid case(s)" in proc.stdout and "trec_eval with -c" in proc.stdout
    run, qrels, _ = trec_lines(results, granularity="file")
    assert (out / RUN_FILE).read_text() == "".join(line + "\n" for line in run)
    assert (out / QRELS_FILE).read_text() == "".join(line + "\n" for line in qrels)
    bad = run_cli(
        "export-trec",
        str(path),
        "--out-dir",
        str(out),
        "--suite",
        str(tmp_path / "missing.yaml"),
        "--granularity",
        "file",
    )
    assert bad.returncode == 2 and "no such file" in bad.stderr
