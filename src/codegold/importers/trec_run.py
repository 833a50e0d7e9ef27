"""A TREC run file (``qid Q0 docid rank score tag``) as retrieval attempts.

``qid`` is the case id. ``docid`` names what was retrieved, in one of these forms:

* ``path:START-END`` (optionally followed by ``#…``, as codegold's own chunk ids are):
  those lines of the file;
* ``path#symbol``: the definition of ``symbol`` in the file;
* ``path``: the whole file (file-level runs, as in issue localization).

The chunks are SPEC §2 minimal chunks: ``codegold eval --repo`` resolves them against
codegold's parse of each file at the revision. A ``qid`` that is no case of the suite
is listed, never guessed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegold.cases.suite import Suite
from codegold.errors import InputError

__all__ = ["TrecImport", "chunk_of_docid", "import_trec_run"]

_LINES = re.compile(r"^(?P<path>.+?):(?P<start>\d+)-(?P<end>\d+)(?:#.*)?$")


def chunk_of_docid(docid: str) -> dict[str, Any]:
    m = _LINES.match(docid)
    if m:
        return {
            "chunkId": docid,
            "file": m.group("path"),
            "startLine": int(m.group("start")),
            "endLine": int(m.group("end")),
        }
    path, sep, symbol = docid.partition("#")
    if sep and symbol:
        return {"chunkId": docid, "file": path, "symbol": symbol}
    return {"chunkId": docid, "file": docid, "wholeFile": True}


@dataclass
class TrecImport:
    attempts: list[dict[str, Any]] = field(default_factory=list)
    unknown_qids: list[str] = field(default_factory=list)
    cases_without_lines: list[str] = field(default_factory=list)


def import_trec_run(
    path: Path, suite: Suite, *, revision_for: Callable[[str], str | None] | None = None
) -> TrecImport:
    """Attempts from a TREC run; ``revision_for(case_id)`` gives the revision to assert."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    cases = {c.id: c for c in suite.cases}
    rows: dict[str, list[tuple[int, float, str, str]]] = {}
    unknown: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 6:
            raise InputError(
                f"expected 6 columns (qid Q0 docid rank score tag), got {len(parts)}",
                file=str(path),
                line=number,
            )
        qid, _, docid, rank, score, tag = parts
        try:
            rank_n, score_f = int(rank), float(score)
        except ValueError:
            raise InputError(
                "rank must be an integer and score a number", file=str(path), line=number
            ) from None
        if qid not in cases:
            if qid not in unknown:
                unknown.append(qid)
            continue
        rows.setdefault(qid, []).append((rank_n, -score_f, docid, tag))
    out = TrecImport(unknown_qids=unknown)
    for case in suite.cases:
        if case.id not in rows:
            out.cases_without_lines.append(case.id)
            continue
        ranked = sorted(rows[case.id])
        chunks = []
        for _, neg_score, docid, _ in ranked:
            chunk = chunk_of_docid(docid)
            chunk["score"] = -neg_score
            chunks.append(chunk)
        attempt: dict[str, Any] = {
            "attemptId": f"{case.id}#1",
            "caseId": case.id,
            "query": case.query,
            "retriever": {"name": f"trec:{ranked[0][3]}"},
            "mode": "imported",
            "ranked": chunks,
        }
        revision = revision_for(case.id) if revision_for is not None else None
        if revision is not None:
            attempt["index"] = {
                "buildId": f"asserted:trec:{path.name}@{revision[:12]}",
                "repositoryRevision": revision,
                "chunkerVersion": "unknown",
                "pathPolicy": "unknown",
                "builtAt": "",
                "complete": True,
                "revisionAsserted": True,
            }
        out.attempts.append(attempt)
    return out
