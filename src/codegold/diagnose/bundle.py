"""Evidence bundles (SPEC §4): everything an owner needs, without re-running anything."""

from __future__ import annotations

import hashlib
import re
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
    from codegold.redact import MARKER, redact_lines

    # Redact the whole file, lines kept in place, before cutting the window: a
    # private-key block cut by either edge of the window is still a whole block.
    clean_file, _ = redact_lines(text)
    lines = split_lines(clean_file)
    start = max(1, span[0] - EXCERPT_CONTEXT)
    end = min(len(lines), span[1] + EXCERPT_CONTEXT, start + EXCERPT_MAX_LINES - 1)
    body = "\n".join(lines[start - 1 : end])
    return {"lines": [start, end], "text": body, "redactions": body.count(MARKER)}


def _target_entries(
    record: CaseResult,
    evidence: dict[str, Any],
    read_text: Callable[[str, str], str | None],
) -> list[dict[str, Any]]:
    """The diagnosis's facts per evidence group, each with an excerpt where its span is known."""
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
    return targets


def _verdict(record: CaseResult) -> dict[str, Any]:
    return {
        "passed": record.passed,
        "valid": record.valid,
        "invalidReason": record.invalid_reason,
        "firstRelevantRank": record.first_relevant_rank,
        "groupRecall": record.group_recall,
        "missingGroupIds": record.missing_group_ids,
        "forbiddenChunkIds": record.forbidden_chunk_ids,
        "revisionMismatches": record.revision_mismatches,
    }


def _attempt_parts(attempt: Attempt | None, depth: int) -> dict[str, Any]:
    """What the bundle reads from the attempt (None or empty when there is none)."""
    if attempt is None:
        return {
            "rewritten": None,
            "filters": None,
            "indexRevision": None,
            "index": None,
            "chunkerVersion": None,
            "candidates": [],
            "ranked": [],
            "contextIds": None,
        }
    manifest = attempt.index
    return {
        "rewritten": attempt.rewritten_query,
        "filters": attempt.filters,
        "indexRevision": manifest.repository_revision if manifest else None,
        "index": msgspec.to_builtins(manifest) if manifest else None,
        "chunkerVersion": manifest.chunker_version if manifest else None,
        "candidates": [
            _chunk_row(i, c) for i, c in enumerate((attempt.candidates or ())[:depth], 1)
        ],
        "ranked": [_chunk_row(i, c) for i, c in enumerate(attempt.ranked[:depth], 1)],
        "contextIds": list(attempt.context_ids) if attempt.context_ids else None,
    }


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
    a = _attempt_parts(attempt, depth)
    bundle: dict[str, Any] = {
        "caseId": record.case_id,
        "attemptId": record.attempt_id,
        "query": {"raw": record.query, "rewritten": a["rewritten"], "filters": a["filters"]},
        "revisions": {"case": record.repository_revision, "index": a["indexRevision"]},
        "index": a["index"],
        "codegoldIndex": msgspec.to_builtins(index.manifest) if index is not None else None,
        "chunkerVersion": a["chunkerVersion"],
        "evaluatorVersion": evidence.get("evaluatorVersion"),
        "cutoff": record.cutoff,
        "verdict": _verdict(record),
        "diagnosis": {k: v for k, v in (diagnosis or {}).items() if k != "evidence"},
        "targets": _target_entries(record, evidence, read_text),
        "candidatesBeforeRerank": a["candidates"],
        "rankedAfterRerank": a["ranked"],
        "rationale": evidence.get("rationale"),
        "contextIds": a["contextIds"],
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


_SAFE_STEM = re.compile(r"[a-z0-9][a-z0-9._-]{0,99}")


def bundle_stem(case_id: str, attempt_id: str | None = None) -> str:
    """The file name (without extension) of a case's bundle: unique and stable.

    A lowercase id of letters, digits, ``.``, ``_`` and ``-`` is its own name. Any
    other id (``a/b``, ``a b``, ``A``, an attempt ``x#2``) is spelled safely and
    followed by ``~`` and 12 hex digits of the id's SHA-256, so ``a/b``, ``a_b`` and
    ``a b`` never share a file, even on a case-insensitive file system: ``~`` never
    appears in a plain name.
    """
    key = case_id if attempt_id in (None, f"{case_id}#1") else f"{case_id}\0{attempt_id}"
    if key == case_id and _SAFE_STEM.fullmatch(case_id):
        return case_id
    shown = case_id if key == case_id else f"{case_id}#{attempt_id}"
    safe = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "-_.") else "_" for ch in shown)
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]
    return f"{safe.lower().lstrip('.')[:80]}~{digest}"


def write_bundles(folder: Path, bundles: list[dict[str, Any]]) -> list[Path]:
    """Write each bundle as JSON and Markdown, every string redacted first."""
    from codegold._io import write_json_atomic, write_text_atomic
    from codegold.redact import redact_json

    written: list[Path] = []
    for raw in bundles:
        b, _ = redact_json(raw)
        stem = bundle_stem(raw["caseId"], raw.get("attemptId"))
        write_json_atomic(folder / f"{stem}.json", b)
        write_text_atomic(folder / f"{stem}.md", bundle_markdown(b))
        written.append(folder / f"{stem}.json")
    return written
