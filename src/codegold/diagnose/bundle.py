"""Evidence bundles (SPEC §4): everything an owner needs, without re-running anything."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from codegold.attempts import Attempt, RetrievedChunk
from codegold.evaluate.records import CaseResult
from codegold.index.store import LoadedIndex

EXCERPT_CONTEXT = 3
EXCERPT_MAX_LINES = 40


def _chunk_row(rank: int, c: RetrievedChunk) -> dict[str, Any]:
    return {
        "rank": rank,
        "chunkId": c.chunk_id,
        "file": c.file,
        "lines": [c.start_line, c.end_line],
        "symbol": c.symbol,
        "role": c.role,
        "repositoryRevision": c.repository_revision,
        "score": c.score,
    }


def excerpt(text: str, span: tuple[int, int]) -> dict[str, Any]:
    """Lines around ``span`` (1-based, inclusive), secrets redacted."""
    from codegold._lines import split_lines
    from codegold.redact import redact

    lines = split_lines(text)
    start = max(1, span[0] - EXCERPT_CONTEXT)
    end = min(len(lines), span[1] + EXCERPT_CONTEXT, start + EXCERPT_MAX_LINES - 1)
    body = "\n".join(lines[start - 1 : end])
    clean, findings = redact(body)
    return {"lines": [start, end], "text": clean, "redactions": len(findings)}


def build_bundle(
    record: CaseResult,
    attempt: Attempt | None,
    *,
    index: LoadedIndex | None,
    read_text: Callable[[str, str], str | None],
    depth: int = 20,
) -> dict[str, Any]:
    """One failed case's evidence bundle as a JSON-ready dict."""
    diagnosis = msgspec.to_builtins(record.diagnosis) if record.diagnosis else None
    evidence = (diagnosis or {}).get("evidence", {})
    targets: list[dict[str, Any]] = []
    for group_id, facts in (evidence.get("groups") or {}).items():
        for fact in facts:
            entry = {"group": group_id, **fact}
            span = fact.get("span")
            files = fact.get("files") or []
            if span and files and record.repository_revision:
                text = read_text(record.repository_revision, files[0])
                if text is not None:
                    entry["excerpt"] = excerpt(text, (span[0], span[1]))
            targets.append(entry)
    bundle: dict[str, Any] = {
        "caseId": record.case_id,
        "attemptId": record.attempt_id,
        "query": {
            "raw": record.query,
            "rewritten": attempt.rewritten_query if attempt else None,
            "filters": attempt.filters if attempt else None,
        },
        "revisions": {
            "case": record.repository_revision,
            "index": attempt.index.repository_revision if attempt and attempt.index else None,
        },
        "index": msgspec.to_builtins(attempt.index) if attempt and attempt.index else None,
        "codegoldIndex": msgspec.to_builtins(index.manifest) if index is not None else None,
        "chunkerVersion": attempt.index.chunker_version if attempt and attempt.index else None,
        "evaluatorVersion": evidence.get("evaluatorVersion"),
        "cutoff": record.cutoff,
        "verdict": {
            "passed": record.passed,
            "valid": record.valid,
            "invalidReason": record.invalid_reason,
            "firstRelevantRank": record.first_relevant_rank,
            "groupRecall": record.group_recall,
            "missingGroupIds": record.missing_group_ids,
            "forbiddenChunkIds": record.forbidden_chunk_ids,
            "revisionMismatches": record.revision_mismatches,
        },
        "diagnosis": {k: v for k, v in (diagnosis or {}).items() if k != "evidence"},
        "targets": targets,
        "candidatesBeforeRerank": [
            _chunk_row(i, c) for i, c in enumerate((attempt.candidates or ())[:depth], 1)
        ]
        if attempt
        else [],
        "rankedAfterRerank": [_chunk_row(i, c) for i, c in enumerate(attempt.ranked[:depth], 1)]
        if attempt
        else [],
        "rationale": evidence.get("rationale"),
        "contextIds": list(attempt.context_ids) if attempt and attempt.context_ids else None,
        "evidence": evidence,
    }
    return bundle


def bundle_markdown(bundle: dict[str, Any]) -> str:
    d = bundle["diagnosis"]
    lines = [
        f"# {bundle['caseId']}: {d.get('cause', 'unknown')} → {d.get('owner', '?')}",
        "",
        f"{d.get('detail', '')}",
        "",
        f"- raw query: `{bundle['query']['raw']}`",
        f"- rewritten: `{bundle['query']['rewritten']}`",
        f"- filters: `{bundle['query']['filters']}`",
        f"- case revision: `{bundle['revisions']['case']}`; index revision: "
        f"`{bundle['revisions']['index']}`",
        f"- cutoff: {bundle['cutoff']}; first relevant rank: "
        f"{bundle['verdict']['firstRelevantRank']}",
        f"- rationale: {bundle['rationale'] or '-'}",
        "",
        "## Expected",
    ]
    for t in bundle["targets"]:
        lines.append(f"- [{t['group']}] {t['target']} exists={t['exists']} span={t['span']}")
        if "excerpt" in t:
            lines += ["", "```", t["excerpt"]["text"], "```", ""]
    lines += ["", "## Ranked (after rerank)", ""]
    lines.append("| rank | file | lines | symbol | role | score |")
    lines.append("|---|---|---|---|---|---|")
    for r in bundle["rankedAfterRerank"][:10]:
        lines.append(
            f"| {r['rank']} | {r['file']} | {r['lines'][0]}-{r['lines'][1]} | "
            f"{r['symbol'] or '-'} | {r['role']} | {r['score']:.4g} |"
        )
    return "\n".join(lines) + "\n"


def write_bundles(folder: Path, bundles: list[dict[str, Any]]) -> list[Path]:
    from codegold._io import write_json_atomic, write_text_atomic

    written: list[Path] = []
    for b in bundles:
        stem = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in b["caseId"])
        if b.get("attemptId") and b["attemptId"] != f"{b['caseId']}#1":
            stem += "__" + "".join(ch if ch.isalnum() else "_" for ch in b["attemptId"])
        write_json_atomic(folder / f"{stem}.json", b)
        write_text_atomic(folder / f"{stem}.md", bundle_markdown(b))
        written.append(folder / f"{stem}.json")
    return written
