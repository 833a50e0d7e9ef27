"""The ordered boundary checks of SPEC §4, one cause per failed record.

The walk is a sequence of small checks (``CHECKS``), in pipeline order: each looks at
one boundary and either names the cause that broke there or passes on. Order:
invalid_run, stale_label, excluded_by_policy, not_chunked / metadata_mismatch /
chunk_boundary, query_rewrite, retrieval_miss, reranker_demotion, below_cutoff,
forbidden_source, revision_mismatch. The first boundary that broke wins; a cause that
needs data the attempt lacks is reported as ``undetermined`` with what it needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import msgspec

from codegold import EVALUATOR_VERSION
from codegold.attempts import Attempt, RetrievedChunk
from codegold.cases.match import chunk_matches, symbol_matches
from codegold.cases.model import Group
from codegold.cases.suite import ResolvedCase
from codegold.diagnose.chunking import NOT_INDEXED, chunking_cause, split_unnamed
from codegold.diagnose.presence import definitions_elsewhere, needle
from codegold.diagnose.targets import TargetFacts, target_facts
from codegold.evaluate.records import CaseResult, Diagnosis
from codegold.index.store import LoadedIndex
from codegold.roles import OWNERS, Cause

__all__ = ["CHECKS", "NOT_INDEXED", "DiagnosisContext", "diagnose_record", "diagnose_records"]


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


def _diag(
    cause: Cause, detail: str, evidence: dict[str, Any], owner: str | None = None
) -> Diagnosis:
    return Diagnosis(
        cause=cause.value, owner=owner or OWNERS[cause], detail=detail, evidence=evidence
    )


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


@dataclass
class Walk:
    """One failed, valid record on its way through the boundary checks."""

    case: ResolvedCase
    record: CaseResult
    attempt: Attempt
    ctx: DiagnosisContext
    index: LoadedIndex | None
    evidence: dict[str, Any]

    @cached_property
    def missing(self) -> list[Group]:
        return [g for g in self.case.groups if g.id in self.record.missing_group_ids]

    @cached_property
    def facts(self) -> dict[str, list[TargetFacts]]:
        """What codegold's index and the revision's text say about each missing target."""
        assert self.index is not None
        facts = {g.id: [self._facts(t) for t in g.any_of] for g in self.missing}
        self.evidence["groups"] = {gid: [f.as_evidence() for f in fs] for gid, fs in facts.items()}
        return facts

    def _facts(self, target: Any) -> TargetFacts:
        assert self.index is not None
        texts = {}
        if target.file:
            text = self.ctx.text(self.case.revision, target.file)
            if text is not None:
                texts[target.file] = text
        return target_facts(self.index, target, texts)

    @property
    def live(self) -> bool:
        """The attempt came from codegold's own index of this revision."""
        manifest = self.attempt.index
        return (
            self.index is not None
            and manifest is not None
            and manifest.build_id == self.index.manifest.build_id
        )

    def diag(self, cause: Cause, detail: str, owner: str | None = None, **extra: Any) -> Diagnosis:
        evidence = {**self.evidence, **extra} if extra else self.evidence
        return _diag(cause, detail, evidence, owner)


Check = Callable[[Walk], Diagnosis | None]


def check_needs_repository(w: Walk) -> Diagnosis | None:
    """Without codegold's index of the revision, the label and chunking checks are blind."""
    if not w.missing or w.index is not None:
        return None
    return w.diag(
        Cause.UNDETERMINED,
        "undetermined: needs the repository at the pinned revision (pass --repo) to "
        "tell stale labels, policy and chunking from ranking",
    )


_NOT_CODE = frozenset({"markdown", "rst", "text", "yaml", "json", "toml", "ini"})


def _defined_elsewhere(w: Walk, facts: TargetFacts) -> list[tuple[str, int]]:
    """Where the label's symbol is defined now at the revision, outside its labelled file.

    Files whose chunks carry the qualified name come first (``Client.send`` is not any
    ``send``); otherwise the revision's code files are searched by text.
    """
    symbol = facts.target.symbol
    if symbol is None or w.index is None:
        return []
    wanted = needle(symbol)
    skip = set(facts.files)
    chunks = [
        c
        for c in w.index.chunks
        if c.file not in skip and c.language not in _NOT_CODE and wanted in c.text
    ]
    named = {c.file for c in chunks if symbol_matches(symbol, c.symbol, c.symbols)}
    paths = sorted(named or {c.file for c in chunks})
    revision = w.case.revision
    texts = ((p, t) for p in paths if (t := w.ctx.text(revision, p)) is not None)
    return definitions_elsewhere(texts, symbol)


def _stale_detail(w: Walk, g: Group, facts: TargetFacts) -> str:
    target = facts.target
    why = "file does not exist" if not facts.files else f"symbol {target.symbol!r} not found"
    detail = f"group {g.id!r}: {target.describe()}: {why} at {w.case.revision[:12]}"
    moved = _defined_elsewhere(w, facts)
    if moved:
        w.evidence["definedElsewhere"] = [{"file": p, "line": n} for p, n in moved]
        where = ", ".join(f"{p}:{n}" for p, n in moved)
        detail += f"; {target.symbol!r} is defined in {where} (moved?)"
    return detail


def check_stale_label(w: Walk) -> Diagnosis | None:
    """No alternative of a missing group exists in the revision's text."""
    for g in w.missing:
        facts = w.facts[g.id]
        if any(f.exists for f in facts):
            continue
        return w.diag(Cause.STALE_LABEL, _stale_detail(w, g, facts[0]))
    return None


def check_excluded_by_policy(w: Walk) -> Diagnosis | None:
    """It exists, but the path policy kept every existing copy out of the index."""
    for g in w.missing:
        existing = [f for f in w.facts[g.id] if f.exists]
        if existing and all(all(e.status in NOT_INDEXED for e in f.inventory) for f in existing):
            entry = existing[0].inventory[0]
            return w.diag(
                Cause.EXCLUDED_BY_POLICY,
                f"group {g.id!r}: {entry.path} is {entry.status} by rule {entry.rule or '?'}",
            )
    return None


def check_chunking(w: Walk) -> Diagnosis | None:
    """Codegold's index (live) or the returned chunks (recorded) mis-cut the target."""
    for g in w.missing:
        found = chunking_cause(w.facts[g.id], w.attempt, w.case.cutoff, live=w.live)
        if found is not None:
            kind, detail = found
            return w.diag(kind, f"group {g.id!r}: {detail}")
    return None


def check_query_rewrite(w: Walk) -> Diagnosis | None:
    """The rewrite lost an identifier or path of the raw query."""
    rewritten = w.attempt.rewritten_query
    if not w.missing or rewritten is None or rewritten == w.case.query:
        return None
    lost = dropped_terms(w.case.query, rewritten)
    if not lost:
        return None
    w.evidence["droppedTerms"] = lost
    return w.diag(
        Cause.QUERY_REWRITE,
        f"the rewrite dropped {', '.join(repr(t) for t in lost)} from the raw query",
    )


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


def _collapsed_into(w: Walk, g: Group) -> tuple[RetrievedChunk, int] | None:
    """A ranked chunk that is a byte-identical copy of an indexed chunk satisfying the
    group (by codegold's chunk ids): the duplicate collapse kept that copy instead."""
    if w.index is None:
        return None
    wanted = {c.digest for f in w.facts[g.id] for c in f.matching_chunks}
    rows = w.index.row_of_id
    for rank, chunk in enumerate(w.attempt.ranked, start=1):
        row = rows.get(chunk.chunk_id)
        if row is None or w.index.chunks[row].digest not in wanted:
            continue
        if not any(chunk_matches(chunk, t) for t in g.any_of):
            return chunk, rank
    return None


def _collapse_note(w: Walk, g: Group) -> str:
    found = _collapsed_into(w, g)
    if found is None:
        return ""
    chunk, rank = found
    w.evidence["collapsedInto"] = {"chunkId": chunk.chunk_id, "file": chunk.file, "rank": rank}
    return (
        f"; collapsed as a duplicate: the byte-identical copy in {chunk.file} was kept "
        f"(rank {rank}) and the accepted one dropped"
    )


_DISCOUNTED_ROLES = frozenset({"migration", "generated"})


def _policy_role_note(w: Walk, g: Group) -> str:
    """The path policy gave the target's file a role that says "not the code in use"
    (``migration``, ``generated``: ``src/migration/``, ``compat/``), which rankings
    discount, and the label asked for no role. SPEC §4 has no cause for this: the chunk
    satisfies the label, so the boundary that broke is still retrieval or ranking, but
    the detail names the rule, since a wrong role is the path policy's (indexing) to fix.
    A label that lists roles has said which it accepts (a chunk outside them is a
    ``metadata_mismatch`` already)."""
    for f in w.facts[g.id]:
        if f.target.roles:
            continue
        for entry in f.inventory:
            if str(entry.role) in _DISCOUNTED_ROLES and entry.rule:
                w.evidence["policyRole"] = {
                    "file": entry.path,
                    "role": str(entry.role),
                    "rule": entry.rule,
                }
                return (
                    f"; {entry.path} is role {str(entry.role)!r} by path rule {entry.rule!r}, "
                    "a role the label did not ask for and rankings discount (if it is "
                    "wrong for this file, the path policy is the fix)"
                )
    return ""


def _split_note(w: Walk, g: Group) -> str:
    """The chunker cut the labelled span into pieces that each satisfy the label (see
    :func:`codegold.diagnose.chunking.split_unnamed`): not a chunking break, but worth
    saying, since the question's words may sit in another piece than the one ranked."""
    for f in w.facts[g.id]:
        if f.boundary_chunks and f.span and not split_unnamed(f):
            return (
                f"; its span {f.span[0]}-{f.span[1]} is cut into {len(f.boundary_chunks)} "
                "chunks that each carry the label (any of them would pass)"
            )
    return ""


def _notes(w: Walk, g: Group, *, collapse: bool = False) -> str:
    return (_collapse_note(w, g) if collapse else "") + _split_note(w, g) + _policy_role_note(w, g)


def _rank_cause(w: Walk, g: Group, pre: int | None, post: int | None) -> Diagnosis | None:
    cutoff = w.case.cutoff
    if post is None and w.attempt.candidates is None:
        return w.diag(
            Cause.UNDETERMINED,
            f"undetermined: group {g.id!r} is absent from the ranked list; needs the "
            "pre-rerank candidates to tell a retrieval miss from a reranker drop",
        )
    if pre is None and post is None:
        retrieved = len(w.attempt.candidates or ())
        if retrieved == 0 and not w.attempt.ranked:
            detail = (
                f"group {g.id!r}: a correct chunk is indexed but the retriever returned nothing"
            )
        else:
            detail = (
                f"group {g.id!r}: a correct chunk is indexed but never entered the "
                f"{retrieved} candidates"
            )
        return w.diag(Cause.RETRIEVAL_MISS, detail + _notes(w, g))
    if pre is not None and pre <= cutoff and (post is None or post > cutoff):
        where = f"rank {post}" if post else "out of the list"
        return w.diag(
            Cause.RERANKER_DEMOTION,
            f"group {g.id!r}: rank {pre} before reranking, {where} after (cutoff {cutoff})"
            + _notes(w, g, collapse=True),
        )
    if post is not None and post > cutoff:
        return w.diag(
            Cause.BELOW_CUTOFF,
            f"group {g.id!r}: first correct chunk at rank {post}, cutoff {cutoff}" + _notes(w, g),
        )
    if post is None:
        return w.diag(
            Cause.BELOW_CUTOFF,
            f"group {g.id!r}: candidate at rank {pre} before reranking, dropped after"
            + _notes(w, g, collapse=True),
        )
    return None


def check_ranking(w: Walk) -> Diagnosis | None:
    """Retrieval, reranking and the cutoff, group by group."""
    for g in w.missing:
        pre = _first_rank(w.attempt.candidates, g, w.case)
        post = _first_rank(w.attempt.ranked, g, w.case)
        w.evidence.setdefault("ranks", {})[g.id] = {"preRerank": pre, "postRerank": post}
        found = _rank_cause(w, g, pre, post)
        if found is not None:
            return found
    return None


#: file roles the path policy gives to code that is not the code in use: a trap with
#: one of them was flagged, and still reached the cutoff through ranking
_FLAGGED_ROLES = frozenset({"test", "docs", "generated", "vendored", "build", "migration"})


_COPY_SHARE = 0.95  # of the answer's code lines the trap file repeats verbatim
_COPY_MIN_LINES = 3  # an answer shorter than this is too common to call a copy


def _code_lines(text: str) -> list[str]:
    return [stripped for line in text.split("\n") if (stripped := line.strip())]


def _copy_of(w: Walk, path: str) -> dict[str, Any] | None:
    """An accepted chunk of the ranked list whose code lines the forbidden file repeats
    verbatim (indentation aside): a build output, bundle or vendored copy of the code
    the repository defines elsewhere. A hand-kept old version diverges line by line."""
    if w.index is None:
        return None
    trap_text = w.ctx.text(w.case.revision, path)
    if trap_text is None:
        return None
    trap_lines = set(_code_lines(trap_text))
    for entry in w.record.ranked:
        row = w.index.row_of_id.get(entry.chunk_id)
        if entry.match != "accepted" or row is None or entry.file == path:
            continue
        lines = _code_lines(w.index.chunks[row].text)
        if len(lines) < _COPY_MIN_LINES:
            continue
        if sum(line in trap_lines for line in lines) >= _COPY_SHARE * len(lines):
            return {"file": entry.file, "symbol": entry.symbol, "chunkId": entry.chunk_id}
    return None


def _trap_policy(w: Walk, path: str) -> tuple[str, str | None]:
    """What the path policy said about a forbidden file, as a detail clause, and the
    owner that points to (None: the cause's own, "ranking / index policy").

    * a role the policy gives to code not in use (``test``, ``generated``, ...): the
      policy flagged it, ranking let it in;
    * plain source repeating an accepted chunk verbatim: a build or vendored copy no
      rule marked, the path policy's (indexing) to fix;
    * plain source otherwise: nothing in a path rule's remit, ranking's.
    """
    entry = w.index.inventory_by_path.get(path) if w.index is not None else None
    if entry is None:
        return "", None
    role = str(entry.role)
    w.evidence["trapPolicy"] = {
        "file": path,
        "status": str(entry.status),
        "role": role,
        "rule": entry.rule,
    }
    if role in _FLAGGED_ROLES:
        return (
            f"; the path policy indexed it as role {role!r} by rule {entry.rule or '?'!r}, "
            "so ranking let a flagged file in"
        ), "ranking"
    how = f"by rule {entry.rule!r}" if entry.rule else "by default: no path rule matched it"
    copy = _copy_of(w, path)
    if copy is not None:
        w.evidence["copyOf"] = copy
        return (
            f"; indexed as {role} {how}, yet it repeats the accepted {copy['symbol'] or 'chunk'} "
            f"of {copy['file']} verbatim: a build or vendored copy the path policy should mark"
        ), OWNERS[Cause.EXCLUDED_BY_POLICY]
    return f"; indexed as {role} {how}, and it is no copy of the answer", "ranking"


def check_forbidden_source(w: Walk) -> Diagnosis | None:
    """A forbidden path reached the cutoff; the detail names the path rule that let it in."""
    if not w.record.forbidden_chunk_ids:
        return None
    trap = next(e for e in w.record.ranked if e.match == "forbidden")
    policy, owner = _trap_policy(w, trap.file)
    return w.diag(
        Cause.FORBIDDEN_SOURCE,
        f"forbidden {trap.file} reached rank {trap.rank} (cutoff {w.case.cutoff})" + policy,
        owner,
        forbiddenChunkIds=w.record.forbidden_chunk_ids,
    )


def check_revision_mismatch(w: Walk) -> Diagnosis | None:
    """Chunks within the cutoff come from another revision."""
    if not w.record.revision_mismatches:
        return None
    return w.diag(
        Cause.REVISION_MISMATCH,
        f"{len(w.record.revision_mismatches)} chunk(s) within the cutoff come from "
        "another revision",
        revisionMismatches=w.record.revision_mismatches,
    )


CHECKS: tuple[Check, ...] = (
    check_needs_repository,
    check_stale_label,
    check_excluded_by_policy,
    check_chunking,
    check_query_rewrite,
    check_ranking,
    check_forbidden_source,
    check_revision_mismatch,
)
"""The boundaries in pipeline order; the first that names a cause wins."""


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
        return record.diagnosis  # invalid_run / no_attempt, named by the evaluator
    index = ctx.index_for(case.revision)
    walk = Walk(case, record, attempt, ctx, index, _base_evidence(case, attempt, index))
    for check in CHECKS:
        found = check(walk)
        if found is not None:
            return found
    return walk.diag(Cause.UNDETERMINED, "undetermined: no boundary check explains this failure")


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
