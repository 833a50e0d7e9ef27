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
from ir_measures import RR, Success, nDCG

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
            # no run line; its unretrieved gold is in the qrels, so it scores 0
            assert r.reciprocal_rank == 0.0 and values.get((_qid(r.case_id), "RR"), 0.0) == 0.0
            continue
        assert values[(_qid(r.case_id), "RR")] == pytest.approx(r.reciprocal_rank), r.case_id
        hit = 1.0 if r.first_relevant_rank is not None else 0.0
        assert values[(_qid(r.case_id), "Success@10")] == hit, r.case_id
    assert ir_measures.calc_aggregate(
        [RR],
        list(ir_measures.read_trec_qrels(str(tmp_path / QRELS_FILE))),
        list(ir_measures.read_trec_run(str(tmp_path / RUN_FILE))),
    )[RR] == pytest.approx(sum(r.reciprocal_rank for r in valid) / len(valid))


def _graded_results(n: int = 80, seed: int = 11) -> list[CaseResult]:
    """Cases with supporting targets (some retrieved, some not), several groups (some
    never retrieved), forbidden traps, overlapping chunks and varied cutoffs."""
    rng = random.Random(seed)
    records = []
    for i in range(n):
        fields: dict[str, Any] = {
            "id": f"g-{i:02d}",
            "cutoff": rng.choice([1, 3, 5, 10]),
            "groups": [{"id": "def", "anyOf": [{"file": f"src/t{i}.py", "symbol": f"T{i}"}]}],
            "supporting": [{"file": f"test/t{i}.py", "roles": ["test"]}],
            "forbiddenPathPrefixes": ["legacy/"],
        }
        if i % 3 == 0:
            fields["groups"].append({"id": "cfg", "anyOf": [{"file": f"config/c{i}.toml"}]})
        if i % 5 == 0:
            fields["supporting"].append({"file": f"docs/t{i}.md"})
        case = make_case(**fields)
        ranked = []
        for r in range(0 if i % 17 == 0 else rng.randint(1, 16)):
            kind = rng.random()
            if kind < 0.15:
                c = chunk(f"src/t{i}.py", f"T{i}", start=r * 3 + 1, end=r * 3 + 6)
            elif kind < 0.3:
                c = chunk(f"test/t{i}.py", f"test_{r}", "test", start=r * 10 + 1)
            elif kind < 0.36:
                c = chunk(f"docs/t{i}.md", None, "docs", start=r * 10 + 1)
            elif kind < 0.44:
                c = chunk(f"legacy/t{i}.py", f"T{i}", start=r + 1)
            elif kind < 0.5:
                c = chunk(f"config/c{i}.toml", None, "configuration", start=r * 10 + 1)
            else:
                c = chunk(f"src/other{rng.randrange(4)}.py", f"g{r}", start=r * 10 + 1)
            c["chunkId"] = f"k{i}-{r}"
            c["score"] = 1.0
            ranked.append(c)
        records.append(evaluate_case(case, attempt(ranked, caseId=case.id)))
    return records


def test_graded_ndcg_agrees_with_ir_measures_case_by_case(tmp_path: Path) -> None:
    results = _graded_results()
    assert any(r.unretrieved for r in results) and any(r.supporting_found for r in results)
    assert any(e.match == "supporting" for r in results for e in r.ranked)
    assert len({r.graded_ndcg for r in results}) > 10
    export = export_trec(results, tmp_path)
    cutoffs = sorted({r.cutoff for r in results})
    values = _measure(tmp_path, [*(nDCG @ k for k in cutoffs), RR(rel=2)])
    compared = 0
    for r in results:
        qid = _qid(r.case_id)
        if r.case_id in export.empty:
            assert r.graded_ndcg == 0.0
            continue
        assert values[(qid, f"nDCG@{r.cutoff}")] == pytest.approx(r.graded_ndcg, abs=1e-9), qid
        assert values[(qid, "RR(rel=2)")] == pytest.approx(r.reciprocal_rank), qid
        compared += 1
    assert compared > 60


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
        assert zero == "0" and rel in ("0", "1", "2")
        assert qid in by_query or _doc.startswith("unretrieved:")


def test_relevance_is_graded_from_the_matches() -> None:
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
    assert qrels == ["q 0 def 2", "q 0 old 0", "q 0 sup 1", "q 0 use 0"]
    _, file_qrels, _ = trec_lines([rec], granularity="file")
    assert file_qrels == ["q 0 docs/a.md 1", "q 0 legacy/a.py 0", "q 0 src/a.py 2"]


def test_unretrieved_gold_is_in_the_qrels() -> None:
    case = make_case(
        id="q",
        groups=[
            {"id": "def", "anyOf": [{"file": "src/a.py", "symbol": "A"}]},
            {"id": "cfg", "anyOf": [{"file": "config/a.toml"}]},
        ],
        supporting=[{"file": "docs/a.md", "roles": ["docs"]}],
    )
    rec = evaluate_case(case, attempt([chunk("src/a.py", "A", cid="a")], caseId="q"))
    assert rec.unretrieved == ["group:cfg", "supporting:docs/a.md [docs]"]
    _, qrels, _ = trec_lines([rec])
    assert qrels == [
        "q 0 a 2",
        "q 0 unretrieved:group:cfg 2",
        "q 0 unretrieved:supporting:docs/a.md%20[docs] 1",
    ]


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
        "exact 0 config/a.toml 2",
        "exact 0 src/a.py 2",
        "exact 0 src/b.py 0",
        "glob 0 src/handlers/x.py 2",
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
