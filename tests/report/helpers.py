"""Shared pieces for the report tests: a diagnosed run, a record builder, and an
HTML table reader that works on both our page and Chromium's serialized DOM."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import msgspec

from codegold.evaluate.records import CaseResult, Diagnosis, RankedEntry, load_results
from codegold.report.artifacts import write_results
from tests.conftest import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "recorded"
REV = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"


def j(*parts: str) -> str:
    """Planted secrets are assembled at run time, so this source file never holds a
    string that a repository secret scanner would (rightly) stop at a push."""
    return "".join(parts)


STRIPE = j("sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc")
PLANTED_PASSWORD = "hunter2x"

# What a failed record's diagnosis will look like once every failure carries one.
_CAUSES = {
    "session-expiry": ("forbidden_source", "ranking / index policy"),
    "webhook-parse-no-context": ("retrieval_miss", "retrieval"),
    "retry-policy-definition": ("below_cutoff", "ranking"),
    "retry-policy-configured": ("metadata_mismatch", "parser/chunker"),
}


def evidence_for(record: CaseResult) -> dict[str, Any]:
    return {
        "rawQuery": record.query,
        "rewrittenQuery": record.query.lower(),
        "filters": {"pathPrefix": "src/"},
        "caseRevision": record.repository_revision,
        "indexBuildId": "idx-2024-06-01",
        "chunkerVersion": "acme-chunker/2",
        "cutoff": record.cutoff,
        "inventory": [{"file": "src/retry.ts", "status": "indexed", "chunks": 3}],
        "candidatesBeforeRerank": [
            {"rank": e.rank, "chunkId": e.chunk_id, "score": e.score} for e in record.ranked
        ],
        "excerpts": [
            {
                "file": "src/retry.ts",
                "startLine": 10,
                "text": (
                    "export const RETRY = {\n"
                    f"  apiKey: '{STRIPE}',\n"
                    f'  password: "{PLANTED_PASSWORD}",\n'
                    "  attempts: 3,\n};"
                ),
            }
        ],
        "rationale": "A 'what is' question wants the definition <not the tests>.",
        "contextIds": ["c1", "c2"],
    }


def diagnosed_run(out: Path) -> Path:
    """`codegold eval` on the shipped example, then a diagnosis (with evidence holding
    planted secrets) on every failed record that has none yet. Returns the run folder."""
    raw = out / "raw"
    run_cli(
        "eval",
        "--cases",
        str(EXAMPLE / "suite.yaml"),
        "--attempts",
        str(EXAMPLE / "attempts.jsonl"),
        "--out",
        str(raw),
        "--quiet",
        check=True,
    )
    records = []
    for r in load_results(raw):
        if not r.passed and r.diagnosis is None:
            cause, owner = _CAUSES[r.case_id]
            r = msgspec.structs.replace(
                r,
                diagnosis=Diagnosis(cause, owner, f"{cause} for {r.case_id}", evidence_for(r)),
            )
        records.append(r)
    summary = json.loads((raw / "summary.json").read_text())
    identity = {k: v for k, v in summary.items() if k not in ("overall", "slices")}
    run = out / "run"
    write_results(run, records, identity)
    return run


def entry(rank: int, match: str = "none", **fields: Any) -> RankedEntry:
    base: dict[str, Any] = {
        "rank": rank,
        "chunk_id": f"c{rank}",
        "file": f"src/f{rank}.ts",
        "symbol": None,
        "role": "definition",
        "repository_revision": REV,
        "score": 1.0 / rank,
        "match": match,
        "start_line": 1,
        "end_line": 9,
    }
    base.update(fields)
    return RankedEntry(**base)


def record(case_id: str = "c1", **fields: Any) -> CaseResult:
    base: dict[str, Any] = {
        "case_id": case_id,
        "query": "what is RetryPolicy?",
        "query_class": "exact_identifier",
        "repository_revision": REV,
        "cutoff": 5,
        "attempt_id": None,
        "valid": True,
        "invalid_reason": None,
        "passed": True,
        "first_relevant_rank": 1,
        "reciprocal_rank": 1.0,
        "group_recall": 1.0,
        "missing_group_ids": [],
        "supporting_found": [],
        "forbidden_chunk_ids": [],
        "revision_mismatches": [],
        "tags": [],
        "language": "typescript",
        "area": "src",
        "target_roles": ["definition"],
        "ranked": [entry(1, "accepted")],
    }
    base.update(fields)
    return CaseResult(**base)


class Tables(HTMLParser):
    """Every <table> with an id: rows of cells, each cell its text and attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[dict[str, str]]]] = {}
        self.case_ids: list[str] = []
        self.attributes: list[tuple[str, str, str]] = []
        self._stack: list[str | None] = []
        self._cell: dict[str, str] | None = None
        self._in_svg = 0
        self.svg_count = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for k, v in a.items():
            self.attributes.append((tag, k, v))
        if tag == "svg":
            self.svg_count += 1
        if tag == "table":
            self._stack.append(a.get("id"))
            if a.get("id"):
                self.tables[a["id"]] = []
        elif tag == "tr" and self._current() is not None:
            self.tables[self._current()].append([])  # type: ignore[index]
        elif tag in ("td", "th") and self._current() is not None:
            self._cell = {**a, "tag": tag, "text": ""}
        elif tag == "section" and "data-case" in a:
            self.case_ids.append(a["data-case"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._stack:
            self._stack.pop()
        elif tag in ("td", "th") and self._cell is not None:
            current = self._current()
            assert current is not None
            self._cell["text"] = " ".join(self._cell["text"].split())
            self.tables[current][-1].append(self._cell)
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell["text"] += data

    def _current(self) -> str | None:
        return self._stack[-1] if self._stack else None

    def rows(self, table_id: str) -> list[dict[str, dict[str, str]]]:
        """Body rows of a table as {data-key: cell}."""
        return [
            {c["data-key"]: c for c in row if "data-key" in c}
            for row in self.tables[table_id]
            if row and row[0]["tag"] == "td"
        ]


def parse_tables(page: str) -> Tables:
    parser = Tables()
    parser.feed(page)
    parser.close()
    return parser


def display_pct(text: str) -> float:
    assert text.endswith("%"), text
    return float(text[:-1]) / 100
