"""Write a run's ranked lists as TREC files, to cross-check codegold with trec_eval.

Two files land in the output folder:

* ``run.trec``: ``qid Q0 docid rank score tag``, one line per retrieved document.
* ``qrels.trec``: ``qid 0 docid rel``.

One record per case is exported: its first valid attempt in attemptId order (as
``codegold compare`` picks); invalid cases are left out, because codegold never scores
them. ``qid`` is the case id.

**Document ids and granularity.** codegold's gold is file/symbol/role-level, but what it
ranks are chunks, so the document id is a choice:

* ``chunk`` (default): ``docid`` is the chunk id. Exact: ``RR(rel=2)`` (ir_measures;
  ``recip_rank -l2`` in trec_eval) on the run equals codegold's ``reciprocalRank``
  case by case, ``Success(rel=2)``/``P(rel=2)`` agree with hit and precision at the
  cutoff, and ``nDCG@cutoff`` with ``gradedNdcg``.
* ``symbol``: ``docid`` is ``file#symbol`` (``file`` for chunks without a symbol).
* ``file``: ``docid`` is the file path, the granularity of file-level gold (as in
  issue-localization benchmarks).

At ``symbol`` and ``file`` level several chunks collapse into one document: it is
ranked where its first chunk was, and its relevance is the best grade of its chunks.
Those figures are file (or symbol) localization; they are not
codegold's role-aware metrics and can be higher.

**The qrels are a projection, graded.** Without ``suite`` they come from the per-rank
``match`` field of the results, with codegold's grades: a document is relevance 2 when
codegold marked one of its chunks ``accepted`` (it satisfied a required target), 1 when
the best of its chunks is ``supporting``, and 0 when it was retrieved but neither
(forbidden and unmatched chunks alike). Gold that no chunk of the ranked list brought
(a required group nothing satisfied, a supporting target nothing matched: the record's
``unretrieved``) is written as one unretrieved document each (``unretrieved:group:ID``
relevance 2, ``unretrieved:supporting:TARGET`` relevance 1), so the ideal ranking
knows about it. ir_measures' ``nDCG@k`` (and trec_eval's ``ndcg_cut``, linear gain) at
each case's cutoff then equals codegold's ``gradedNdcg`` case by case. Count only
required evidence with ``rel=2``: ``RR(rel=2)`` equals codegold's ``reciprocalRank``,
``Success(rel=2)@k`` its hit; plain ``RR`` counts supporting chunks as relevant too.
Relevant chunks beyond the first one per unretrieved group are still unknown, so
recall-type measures remain a projection. Qrels are built from the whole ranked list;
the run holds the first ``cutoff`` ranks of each case (``full=True`` writes them all,
then use ``RR(rel=2)@cutoff``).

With ``suite`` (``file`` granularity only), qrels are the gold itself: every file named
by a required target is relevance 2, every other file named by a supporting
target 1; a ``filePattern`` target can only be projected onto
the retrieved files it matches. Suite qrels cover the exported cases only.

**Scores.** trec_eval orders a query's documents by score, not by the rank column, and
breaks ties by document id. Retriever scores may tie or disagree with the final order, so
the score column is rank-derived (``m - rank + 1`` for ``m`` exported documents): trec_eval
then sees exactly codegold's order. A case with nothing retrieved has no run line; run
trec_eval with ``-c`` to count it as zero.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from codegold._io import write_text_atomic
from codegold.cases.match import file_matches
from codegold.compare import select_attempts
from codegold.errors import InputError
from codegold.evaluate.graded import grade_of, unretrieved_grade
from codegold.evaluate.records import CaseResult, RankedEntry, as_records

if TYPE_CHECKING:
    from codegold.cases.suite import ResolvedCase, Suite

__all__ = [
    "GRANULARITIES",
    "Granularity",
    "TrecExport",
    "doc_id",
    "export_trec",
    "trec_lines",
]

Granularity = Literal["chunk", "symbol", "file"]
GRANULARITIES: tuple[Granularity, ...] = ("chunk", "symbol", "file")
RUN_FILE = "run.trec"
QRELS_FILE = "qrels.trec"

UNRETRIEVED = "unretrieved:"
"""Prefix of the qrels documents that stand for gold the ranked list never brought."""

_UNSAFE = re.compile(r"[\s%]")


def _escape(text: str) -> str:
    """TREC columns are whitespace-separated: percent-encode whitespace (and ``%``)."""
    return _UNSAFE.sub(lambda m: "".join(f"%{b:02X}" for b in m.group().encode()), text)


def doc_id(entry: RankedEntry, granularity: Granularity) -> str:
    """The TREC document id of one ranked chunk at ``granularity`` (unescaped)."""
    if granularity == "chunk":
        return entry.chunk_id
    if granularity == "symbol" and entry.symbol:
        return f"{entry.file}#{entry.symbol}"
    return entry.file


@dataclass(frozen=True, slots=True)
class TrecExport:
    """What :func:`export_trec` wrote."""

    run_path: Path | None
    qrels_path: Path | None
    granularity: Granularity
    qrels_source: Literal["projection", "suite"]
    queries: int
    run_lines: int
    qrels_lines: int
    skipped_invalid: tuple[str, ...]
    empty: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run": str(self.run_path) if self.run_path else None,
            "qrels": str(self.qrels_path) if self.qrels_path else None,
            "granularity": self.granularity,
            "qrelsSource": self.qrels_source,
            "queries": self.queries,
            "runLines": self.run_lines,
            "qrelsLines": self.qrels_lines,
            "skippedInvalid": list(self.skipped_invalid),
            "empty": list(self.empty),
        }


def trec_lines(
    results: Sequence[CaseResult | Mapping[str, Any]],
    *,
    granularity: Granularity = "chunk",
    suite: Suite | None = None,
    tag: str = "codegold",
    full: bool = False,
    source: str | None = None,
) -> tuple[list[str], list[str], TrecExport]:
    """The run and qrels lines (no trailing newline), and counts; writes nothing."""
    if granularity not in GRANULARITIES:
        raise InputError(f"unknown granularity {granularity!r}", field="granularity")
    if suite is not None and granularity != "file":
        raise InputError(
            "gold qrels from a suite are file-level: use granularity 'file'", field="suite"
        )
    if not tag or _UNSAFE.search(tag):
        raise InputError("must be non-empty, without whitespace", field="tag")
    chosen = select_attempts(as_records(results, source=source), source=source)
    gold = suite.by_id() if suite is not None else None
    run: list[str] = []
    qrels: list[str] = []
    skipped: list[str] = []
    empty: list[str] = []
    queries = 0
    for case_id in sorted(chosen):
        record = chosen[case_id]
        if not record.valid:
            skipped.append(case_id)
            continue
        queries += 1
        qid = _escape(case_id)
        # Whole ranked list for relevance; the first ``cutoff`` ranks for the run.
        relevance: dict[str, int] = {}
        order: list[str] = []
        for entry in record.ranked:
            doc = doc_id(entry, granularity)
            grade = grade_of(entry)
            if doc not in relevance:
                relevance[doc] = grade
                if full or entry.rank <= record.cutoff:
                    order.append(doc)
            elif grade > relevance[doc]:
                relevance[doc] = grade
        if not order:
            empty.append(case_id)
        m = len(order)
        run.extend(
            f"{qid} Q0 {_escape(doc)} {rank} {m - rank + 1} {tag}"
            for rank, doc in enumerate(order, start=1)
        )
        if gold is not None:
            relevance = _gold_files(case_id, gold, record, source)
        else:
            for name in record.unretrieved:
                relevance[f"{UNRETRIEVED}{name}"] = unretrieved_grade(name)
        qrels.extend(f"{qid} 0 {_escape(doc)} {rel}" for doc, rel in sorted(relevance.items()))
    summary = TrecExport(
        run_path=None,
        qrels_path=None,
        granularity=granularity,
        qrels_source="suite" if suite is not None else "projection",
        queries=queries,
        run_lines=len(run),
        qrels_lines=len(qrels),
        skipped_invalid=tuple(skipped),
        empty=tuple(empty),
    )
    return run, qrels, summary


def _gold_files(
    case_id: str, gold: Mapping[str, ResolvedCase], record: CaseResult, source: str | None
) -> dict[str, int]:
    case = gold.get(case_id)
    if case is None:
        raise InputError("case is not in the suite", file=source, case_id=case_id)
    relevance = {entry.file: 0 for entry in record.ranked}
    for grade, targets in ((1, case.supporting), (2, case.required_targets)):
        for target in targets:
            if target.file is not None:
                relevance[target.file] = grade
            else:
                for file in relevance:
                    if file_matches(file, target):
                        relevance[file] = grade
    return relevance


def export_trec(
    results: Sequence[CaseResult | Mapping[str, Any]],
    out_dir: str | Path,
    *,
    suite: Suite | None = None,
    granularity: Granularity = "chunk",
    tag: str = "codegold",
    full: bool = False,
    source: str | None = None,
) -> TrecExport:
    """Write ``run.trec`` and ``qrels.trec`` into ``out_dir`` (atomically, each)."""
    run, qrels, summary = trec_lines(
        results, granularity=granularity, suite=suite, tag=tag, full=full, source=source
    )
    out = Path(out_dir)
    run_path, qrels_path = out / RUN_FILE, out / QRELS_FILE
    write_text_atomic(run_path, "".join(line + "\n" for line in run))
    write_text_atomic(qrels_path, "".join(line + "\n" for line in qrels))
    return replace(summary, run_path=run_path, qrels_path=qrels_path)
