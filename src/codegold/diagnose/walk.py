"""The ordered boundary checks of SPEC §4, one cause per failed record.

Order: invalid_run, stale_label, excluded_by_policy, not_chunked / metadata_mismatch /
chunk_boundary, query_rewrite, retrieval_miss, reranker_demotion, below_cutoff,
forbidden_source, revision_mismatch. The first boundary that broke wins; a cause that
needs data the attempt lacks is reported as ``undetermined`` with what it needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from codegold import EVALUATOR_VERSION
from codegold.attempts import Attempt, RetrievedChunk
from codegold.cases.model import Group
from codegold.cases.suite import ResolvedCase
from codegold.corpus.model import FileStatus
from codegold.diagnose.targets import TargetFacts, target_facts
from codegold.evaluate.evaluator import chunk_matches
from codegold.evaluate.match import file_matches
from codegold.evaluate.records import CaseResult, Diagnosis
from codegold.index.store import LoadedIndex
from codegold.roles import OWNERS, Cause

NOT_INDEXED = (FileStatus.EXCLUDED, FileStatus.BINARY, FileStatus.OVERSIZE)


@dataclass
class DiagnosisContext:
    """What diagnosis may consult: codegold's own index per revision and file text."""

    index_for: Callable[[str], LoadedIndex | None]
    read_text: Callable[[str, str], str | None] = lambda revision, path: None
    _texts: dict[tuple[str, str], str | None] = field(default_factory=dict)

    def text(self, revision: str, path: str) -> str | None:
        key = (revision, path)
        if key not in self._texts:
            self._texts[key] = self.read_text(revision, path)
        return self._texts[key]


def _diag(cause: Cause, detail: str, evidence: dict[str, Any]) -> Diagnosis:
    return Diagnosis(cause=cause.value, owner=OWNERS[cause], detail=detail, evidence=evidence)


def _first_rank(
    chunks: Sequence[RetrievedChunk] | None, group: Group, case: ResolvedCase
) -> int | None:
    if not chunks:
        return None
    for rank, chunk in enumerate(chunks, start=1):
        if chunk.file.startswith(case.forbidden_path_prefixes or ("\0",)):
            continue
        if any(chunk_matches(chunk, t) for t in group.any_of):
            return rank
    return None


_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*|[\w./-]+/[\w./-]+")


def dropped_terms(raw: str, rewritten: str) -> list[str]:
    """Identifiers and paths of the raw query that the rewrite lost."""
    from codegold.retrieve.query import analyze

    analysis = analyze(raw)
    wanted = [*analysis.identifiers, *analysis.paths]
    lowered = rewritten.lower()
    squashed = re.sub(r"[\s_\-]", "", lowered)
    lost = []
    for term in wanted:
        t = term.lower()
        if t in lowered or re.sub(r"[\s_\-]", "", t) in squashed:
            continue
        lost.append(term)
    return lost


def _base_evidence(
    case: ResolvedCase, attempt: Attempt | None, index: LoadedIndex | None
) -> dict[str, Any]:
    manifest = attempt.index if attempt is not None else None
    return {
        "rawQuery": case.query,
        "rewrittenQuery": attempt.rewritten_query if attempt else None,
        "filters": attempt.filters if attempt else None,
        "caseRevision": case.revision,
        "indexRevision": manifest.repository_revision if manifest else None,
        "indexBuildId": manifest.build_id if manifest else None,
        "chunkerVersion": manifest.chunker_version if manifest else None,
        "evaluatorVersion": EVALUATOR_VERSION,
        "cutoff": case.cutoff,
        "rationale": case.rationale,
        "contextIds": list(attempt.context_ids) if attempt and attempt.context_ids else None,
        "diagnosedWith": index.manifest.build_id if index is not None else None,
    }


def diagnose_record(
    case: ResolvedCase,
    record: CaseResult,
    attempt: Attempt | None,
    ctx: DiagnosisContext,
) -> Diagnosis | None:
    """One cause for a failed record (None for a passed one)."""
    if record.passed:
        return None
    if not record.valid or attempt is None:
        return record.diagnosis
    index = ctx.index_for(case.revision)
    evidence = _base_evidence(case, attempt, index)
    missing = [g for g in case.groups if g.id in record.missing_group_ids]
    cutoff = case.cutoff

    if missing:
        if index is None:
            return _diag(
                Cause.UNDETERMINED,
                "undetermined: needs the repository at the pinned revision (pass --repo) to "
                "tell stale labels, policy and chunking from ranking",
                evidence,
            )
        facts: dict[str, list[TargetFacts]] = {}
        for g in missing:
            texts = {}
            for t in g.any_of:
                for path in [t.file] if t.file else []:
                    text = ctx.text(case.revision, path)
                    if text is not None:
                        texts[path] = text
            facts[g.id] = [target_facts(index, t, texts) for t in g.any_of]
        evidence["groups"] = {gid: [f.as_evidence() for f in fs] for gid, fs in facts.items()}
        live = attempt.index is not None and attempt.index.build_id == index.manifest.build_id

        # 1. stale label: no alternative of a group exists at the revision
        for g in missing:
            if not any(f.exists for f in facts[g.id]):
                first = facts[g.id][0]
                why = (
                    "file does not exist"
                    if not first.files
                    else f"symbol {first.target.symbol!r} not found"
                )
                return _diag(
                    Cause.STALE_LABEL,
                    f"group {g.id!r}: {first.target.describe()}: {why} at {case.revision[:12]}",
                    evidence,
                )
        # 2. excluded by policy: it exists, but the policy kept every copy out
        for g in missing:
            existing = [f for f in facts[g.id] if f.exists]
            if existing and all(
                all(e.status in NOT_INDEXED for e in f.inventory) for f in existing
            ):
                entry = existing[0].inventory[0]
                return _diag(
                    Cause.EXCLUDED_BY_POLICY,
                    f"group {g.id!r}: {entry.path} is {entry.status} by rule {entry.rule or '?'}",
                    evidence,
                )
        # 3. chunking: codegold's index (live) or the returned chunks (recorded)
        for g in missing:
            cause = _chunking_cause(g, facts[g.id], attempt, cutoff, live)
            if cause is not None:
                kind, detail = cause
                return _diag(kind, f"group {g.id!r}: {detail}", evidence)
        # 4. query rewrite
        if attempt.rewritten_query is not None and attempt.rewritten_query != case.query:
            lost = dropped_terms(case.query, attempt.rewritten_query)
            if lost:
                evidence["droppedTerms"] = lost
                return _diag(
                    Cause.QUERY_REWRITE,
                    f"the rewrite dropped {', '.join(repr(t) for t in lost)} from the raw query",
                    evidence,
                )
        # 5-7. retrieval, reranking, cutoff
        for g in missing:
            pre = _first_rank(attempt.candidates, g, case)
            post = _first_rank(attempt.ranked, g, case)
            evidence.setdefault("ranks", {})[g.id] = {"preRerank": pre, "postRerank": post}
            if post is None and attempt.candidates is None:
                return _diag(
                    Cause.UNDETERMINED,
                    f"undetermined: group {g.id!r} is absent from the ranked list; needs the "
                    "pre-rerank candidates to tell a retrieval miss from a reranker drop",
                    evidence,
                )
            if pre is None and post is None:
                return _diag(
                    Cause.RETRIEVAL_MISS,
                    f"group {g.id!r}: a correct chunk is indexed but never entered the "
                    f"{len(attempt.candidates or ())} candidates",
                    evidence,
                )
            if pre is not None and pre <= cutoff and (post is None or post > cutoff):
                where = f"rank {post}" if post else "out of the list"
                return _diag(
                    Cause.RERANKER_DEMOTION,
                    f"group {g.id!r}: rank {pre} before reranking, {where} after (cutoff {cutoff})",
                    evidence,
                )
            if post is not None and post > cutoff:
                return _diag(
                    Cause.BELOW_CUTOFF,
                    f"group {g.id!r}: first correct chunk at rank {post}, cutoff {cutoff}",
                    evidence,
                )
            if post is None:
                return _diag(
                    Cause.BELOW_CUTOFF,
                    f"group {g.id!r}: candidate at rank {pre} before reranking, dropped after",
                    evidence,
                )
    if record.forbidden_chunk_ids:
        trap = next(e for e in record.ranked if e.match == "forbidden")
        return _diag(
            Cause.FORBIDDEN_SOURCE,
            f"forbidden {trap.file} reached rank {trap.rank} (cutoff {cutoff})",
            {**evidence, "forbiddenChunkIds": record.forbidden_chunk_ids},
        )
    if record.revision_mismatches:
        return _diag(
            Cause.REVISION_MISMATCH,
            f"{len(record.revision_mismatches)} chunk(s) within the cutoff come from "
            "another revision",
            {**evidence, "revisionMismatches": record.revision_mismatches},
        )
    return _diag(
        Cause.UNDETERMINED, "undetermined: no boundary check explains this failure", evidence
    )


def _split(f: TargetFacts) -> tuple[Cause, str]:
    spans = ", ".join(f"{c.start_line}-{c.end_line}" for c in f.boundary_chunks)
    where = f"{f.span[0]}-{f.span[1]}" if f.span else "?"
    return (
        Cause.CHUNK_BOUNDARY,
        f"{f.target.describe()} spans lines {where}; split across chunks {spans}",
    )


def _chunking_cause(
    group: Group,
    facts: list[TargetFacts],
    attempt: Attempt,
    cutoff: int,
    live: bool,
) -> tuple[Cause, str] | None:
    existing = [
        f for f in facts if f.exists and any(e.status not in NOT_INDEXED for e in f.inventory)
    ]
    if not existing:
        return None
    if live:
        indexed = [f for f in existing if f.matching_chunks]
        if indexed:
            # some alternative is indexed with the right file, symbol and role; only a
            # labelled span that every such alternative has split is the chunker's doing
            def whole(f: TargetFacts) -> bool:
                return f.span is None or any(
                    c.start_line <= f.span[0] and c.end_line >= f.span[1] for c in f.matching_chunks
                )

            if any(whole(f) for f in indexed) or not all(f.boundary_chunks for f in indexed):
                return None
            return _split(indexed[0])
        for f in existing:
            if f.covering_chunk is not None:
                c = f.covering_chunk
                return (
                    Cause.METADATA_MISMATCH,
                    f"chunk {c.chunk_id} ({c.file}:{c.start_line}-{c.end_line}) covers "
                    f"{f.target.describe()} but says symbol={c.symbol!r} role={c.role}",
                )
        for f in existing:
            if f.boundary_chunks:
                return _split(f)
        f = existing[0]
        return (
            Cause.NOT_CHUNKED,
            f"{f.target.describe()} exists (lines {f.span}) but no chunk covers it",
        )
    # recorded: compare the returned chunks' spans with the definition's span
    returned = list(attempt.ranked[:cutoff]) + list(attempt.candidates or ())
    for f in existing:
        if f.span is None:
            continue
        start, end = f.span
        same_file = [c for c in returned if file_matches(c.file, f.target)]
        for r in same_file:
            if r.start_line <= start and r.end_line >= end and not chunk_matches(r, f.target):
                return (
                    Cause.METADATA_MISMATCH,
                    f"returned chunk {r.chunk_id} ({r.file}:{r.start_line}-{r.end_line}) covers "
                    f"{f.target.describe()} at {start}-{end} but says "
                    f"symbol={r.symbol!r} role={r.role}",
                )
        parts = sorted(
            {
                (r.start_line, r.end_line)
                for r in same_file
                if r.end_line >= start and r.start_line <= end
            }
        )
        if len(parts) >= 2 and parts[0][0] <= start and max(p[1] for p in parts) >= end:
            return (
                Cause.CHUNK_BOUNDARY,
                f"{f.target.describe()} at {start}-{end} came back split as {parts}",
            )
    return None


def diagnose_records(
    cases: dict[str, ResolvedCase],
    records: Sequence[CaseResult],
    attempts: dict[str, Attempt],
    ctx: DiagnosisContext,
) -> list[CaseResult]:
    """Records with ``diagnosis`` filled for every failure (new records; inputs untouched)."""
    out: list[CaseResult] = []
    for record in records:
        if record.passed:
            out.append(record)
            continue
        attempt = attempts.get(record.attempt_id) if record.attempt_id else None
        diagnosis = diagnose_record(cases[record.case_id], record, attempt, ctx)
        out.append(msgspec.structs.replace(record, diagnosis=diagnosis))
    return out
