"""Turn one case and one attempt into a result record. Pure and deterministic."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from operator import attrgetter
from typing import TypedDict, cast

from codegold._time import human_duration
from codegold.attempts import Attempt, RetrievedChunk
from codegold.cases.match import (
    chunk_matches,
    file_matches,
    span_covers,
    symbol_matches,
    target_area,
)
from codegold.cases.model import Target
from codegold.cases.suite import ResolvedCase
from codegold.chunking.language_table import language_of_path
from codegold.evaluate.graded import (
    GRADES,
    UNRETRIEVED_GROUP,
    UNRETRIEVED_SUPPORTING,
    context_budget,
    graded_from,
)
from codegold.evaluate.records import CaseResult, ContextBudget, Diagnosis, RankedEntry
from codegold.evaluate.scored import ScoredChunk
from codegold.index.manifest import IndexManifest
from codegold.roles import OWNERS, Cause, Match


def claim_mismatch(chunk: RetrievedChunk) -> str | None:
    """How a resolved chunk's claim disagrees with codegold's parse of its span, or None."""
    claim = chunk.claim
    if claim is None:
        return None
    names = (chunk.symbol, *(chunk.symbols or ()))
    parts: list[str] = []
    claimed = [s for s in (claim.symbol, *(claim.symbols or ())) if s]
    for name in claimed:
        if not symbol_matches(name, chunk.symbol, chunk.symbols):
            found = ", ".join(n for n in dict.fromkeys(names) if n) or "no symbol"
            parts.append(f"symbol {name!r} not in {found}")
            break
    if claim.role is not None and claim.role != chunk.role:
        parts.append(f"role {claim.role} vs {chunk.role}")
    span = (claim.start_line, claim.end_line)
    if None not in span and span != (chunk.start_line, chunk.end_line):
        parts.append(f"lines {span[0]}-{span[1]} vs {chunk.start_line}-{chunk.end_line}")
    return "; ".join(parts) or None


def invalid_reason(
    case: ResolvedCase, manifest: IndexManifest | None, *, started_at: str | None = None
) -> str | None:
    """Why an attempt cannot be scored, or None. Never borrows another index's metadata.

    A query that started before its index build completed saw an index still being
    ingested: that is a freshness problem, never a ranking regression."""
    if manifest is None:
        return "index manifest missing"
    if not manifest.complete:
        return f"index {manifest.build_id} is incomplete"
    early = started_before_build(started_at, manifest.built_at)
    if early is not None:
        return (
            f"query started at {started_at}, {early} before index {manifest.build_id} "
            f"was built (builtAt {manifest.built_at}): not fresh"
        )
    if case.revision is not None and manifest.repository_revision != case.revision:
        return (
            f"index {manifest.build_id} was built from {manifest.repository_revision}, "
            f"case pins {case.revision}"
        )
    return None


def _instant(stamp: str | None) -> datetime | None:
    """An ISO 8601 timestamp as an aware datetime (naive means UTC); None if unreadable."""
    if not stamp:
        return None
    try:
        moment = datetime.fromisoformat(stamp.strip().replace("z", "Z"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def started_before_build(started_at: str | None, built_at: str | None) -> str | None:
    """How long before the build completed a query started ("1.5 s"), or None when it
    did not (or either instant is missing or unreadable: nothing is then claimed)."""
    start = _instant(started_at)
    if start is None:  # (most attempts say no start: the build's time is not read)
        return None
    built = _instant(built_at)
    if built is None or start >= built:
        return None
    seconds = (built - start).total_seconds()
    return f"{seconds:g} s" if seconds < 60 else human_duration(int(seconds))


def case_language(case: ResolvedCase) -> str | None:
    if case.context is not None and case.context.language:
        return case.context.language
    for target in case.required_targets:
        lang = language_of_path(target.file or target.file_pattern or "")
        if lang:
            return lang
    return None


def case_area(case: ResolvedCase) -> str | None:
    for target in case.required_targets:
        area = target_area(target)
        if area:
            return area
    return None


CONTEXT_KINDS = ("openFile", "pathPrefix", "language", "package")


def case_context_kinds(case: ResolvedCase) -> list[str]:
    """Which reliable context the case gives (slices ``context:X``; none is ``none``)."""
    ctx = case.context
    if ctx is None:
        return []
    given = (ctx.open_file, ctx.path_prefix, ctx.language, ctx.package)
    return [kind for kind, value in zip(CONTEXT_KINDS, given, strict=True) if value]


def case_target_roles(case: ResolvedCase) -> list[str]:
    roles: set[str] = set()
    for target in case.required_targets:
        roles.update(target.roles or ("any",))
    return sorted(roles)


class _CaseFields(TypedDict):
    case_id: str
    query: str
    query_class: str | None
    repository_revision: str | None
    cutoff: int
    tags: list[str]
    language: str | None
    area: str | None
    target_roles: list[str]
    mode: str
    context_kinds: list[str]


class _Scores(TypedDict):
    first_relevant_rank: int | None
    reciprocal_rank: float | None
    group_recall: float | None
    supporting_recall: float | None
    graded_ndcg: float | None
    context_budget: ContextBudget | None


def evaluate_case(
    case: ResolvedCase, attempt: Attempt | None, *, mode: str = "recorded"
) -> CaseResult:
    """Score one attempt at the case's cutoff. Only the first ``cutoff`` chunks decide.

    ``mode`` says what produced the attempt (``live``, ``recorded`` or ``imported``);
    an attempt that says it was imported is ``imported`` whatever the caller passed.
    A :class:`~codegold.evaluate.scored.ScoredAttempt` is scored once: its chunks
    become the record's entries."""
    if attempt is not None and attempt.mode == "imported":
        mode = "imported"
    base = _case_fields(case, mode)
    if attempt is None:
        return _no_attempt(case, base)
    reason = "; ".join(attempt.problems) if attempt.problems else None
    reason = reason or invalid_reason(case, attempt.index, started_at=attempt.started_at)
    scan = _scan(case, attempt.ranked)
    ranked = scan.entries
    missing, first, forbidden, mismatches = _within_cutoff(case, scan)
    found, supporting_found, unretrieved = _gold_found(case, attempt.ranked, scan)
    valid = reason is None
    passed = valid and not missing and not forbidden and not mismatches
    return CaseResult(
        **base,
        **_scores(case, valid, first, missing, found, scan, unretrieved),
        attempt_id=attempt.attempt_id,
        valid=valid,
        invalid_reason=reason,
        passed=passed,
        missing_group_ids=missing,
        supporting_found=supporting_found,
        forbidden_chunk_ids=forbidden,
        revision_mismatches=mismatches,
        ranked=ranked,
        diagnosis=None if valid else _invalid_diagnosis(reason),
        revision_evidence=_revision_evidence(attempt.index),
        unretrieved=unretrieved,
    )


def _within_cutoff(
    case: ResolvedCase, scan: _Scan
) -> tuple[list[str], int | None, list[str], list[str]]:
    """(missing group ids, first accepted rank, forbidden chunk ids, chunks from another
    revision): what the first ``cutoff`` ranks decide."""
    visible = scan.entries[: case.cutoff]
    satisfied = scan.satisfied_within
    missing = [g.id for i, g in enumerate(case.groups) if i not in satisfied]
    first = next((e.rank for e in visible if e.match == _ACCEPTED), None)
    forbidden = [e.chunk_id for e in visible if e.match == _FORBIDDEN]
    mismatches = (
        [e.chunk_id for e in visible if e.repository_revision != case.revision]
        if case.revision is not None
        else []
    )
    return missing, first, forbidden, mismatches


def _gold_found(
    case: ResolvedCase, chunks: Sequence[RetrievedChunk], scan: _Scan
) -> tuple[list[bool], list[str], list[str]]:
    """(per supporting target: found within the cutoff; those found, described; the gold
    no chunk of the whole list brings). A trap is never evidence, supporting or required."""
    if not case.supporting:  # the usual case: only required groups can go unretrieved
        return [], [], _unretrieved(case, scan.satisfied, ())
    ranked = scan.entries
    visible = ranked[: case.cutoff]
    usable = [c for c, e in zip(chunks, ranked, strict=True) if e.match != _FORBIDDEN]
    visible_chunks = [c for c, e in zip(chunks, visible, strict=False) if e.match != _FORBIDDEN]
    found = [any(chunk_matches(c, t) for c in visible_chunks) for t in case.supporting]
    supporting_found = [t.describe() for t, hit in zip(case.supporting, found, strict=True) if hit]
    unretrieved = _unretrieved(case, scan.satisfied, usable)
    return found, supporting_found, unretrieved


def _case_fields(case: ResolvedCase, mode: str) -> _CaseFields:
    """What a record copies from its case, whatever the attempt."""
    return _CaseFields(
        case_id=case.id,
        query=case.query,
        query_class=case.query_class,
        repository_revision=case.revision,
        cutoff=case.cutoff,
        tags=list(case.tags),
        language=case_language(case),
        area=case_area(case),
        target_roles=case_target_roles(case),
        mode=mode,
        context_kinds=case_context_kinds(case),
    )


def _no_attempt(case: ResolvedCase, base: _CaseFields) -> CaseResult:
    """The record of a case nothing was retrieved for: valid, failed, ``no_attempt``."""
    return CaseResult(
        **base,
        attempt_id=None,
        valid=True,
        invalid_reason=None,
        passed=False,
        first_relevant_rank=None,
        reciprocal_rank=0.0,
        group_recall=0.0,
        missing_group_ids=[g.id for g in case.groups],
        supporting_found=[],
        forbidden_chunk_ids=[],
        revision_mismatches=[],
        ranked=[],
        supporting_recall=0.0 if case.supporting else None,
        graded_ndcg=0.0,
        context_budget=context_budget([], case.cutoff),
        unretrieved=_unretrieved(case, set(), []),
        diagnosis=Diagnosis(
            cause=Cause.NO_ATTEMPT.value,
            owner=OWNERS[Cause.NO_ATTEMPT],
            detail="no retrieval attempt was recorded for this case",
        ),
    )


def _scores(
    case: ResolvedCase,
    valid: bool,
    first: int | None,
    missing: Sequence[str],
    found: Sequence[bool],
    scan: _Scan,
    unretrieved: Sequence[str],
) -> _Scores:
    """The record's scores; all null for an invalid record, which is never scored."""
    if not valid:
        return _Scores(
            first_relevant_rank=None,
            reciprocal_rank=None,
            group_recall=None,
            supporting_recall=None,
            graded_ndcg=None,
            context_budget=None,
        )
    ndcg, budget = _graded_and_budget(scan, case.cutoff, unretrieved)
    return _Scores(
        first_relevant_rank=first,
        reciprocal_rank=1.0 / first if first else 0.0,
        group_recall=(len(case.groups) - len(missing)) / len(case.groups),
        supporting_recall=sum(found) / len(found) if found else None,
        graded_ndcg=ndcg,
        context_budget=budget,
    )


def _invalid_diagnosis(reason: str | None) -> Diagnosis:
    return Diagnosis(
        cause=Cause.INVALID_RUN.value,
        owner=OWNERS[Cause.INVALID_RUN],
        detail=reason or "",
    )


def _revision_evidence(manifest: IndexManifest | None) -> str | None:
    if manifest is None:
        return None
    return "asserted" if manifest.revision_asserted else "manifest"


def _unretrieved(
    case: ResolvedCase, satisfied: set[int], usable: Sequence[RetrievedChunk]
) -> list[str]:
    """Gold that no chunk of the whole ranked list brings: required groups no chunk
    satisfies (``group:ID``) and supporting targets no usable chunk matches
    (``supporting:TARGET``). They stand in the ideal ranking of ``gradedNdcg``."""
    out = [f"{UNRETRIEVED_GROUP}{g.id}" for i, g in enumerate(case.groups) if i not in satisfied]
    out.extend(
        f"{UNRETRIEVED_SUPPORTING}{t.describe()}"
        for t in case.supporting
        if not any(chunk_matches(c, t) for c in usable)
    )
    return out


_FORBIDDEN = Match.FORBIDDEN.value
_ACCEPTED = Match.ACCEPTED.value
_SUPPORTING = Match.SUPPORTING.value
_NONE = Match.NONE.value


def _files_of(targets: Sequence[Target]) -> frozenset[str] | None:
    """Exact files named by targets, or None when a glob makes any file possible."""
    if any(t.file is None for t in targets):
        return None
    return frozenset(t.file for t in targets if t.file is not None)


def rank_entries(
    case: ResolvedCase, chunks: Sequence[RetrievedChunk]
) -> tuple[list[RankedEntry], list[frozenset[int]]]:
    """Classify every ranked chunk, and which required groups each one satisfies.

    A chunk under a forbidden prefix is ``forbidden`` and satisfies nothing, even when a
    glob target would match it: a trap is never evidence.
    """
    scan = _scan(case, chunks)
    empty: frozenset[int] = frozenset()
    return scan.entries, [scan.hits.get(rank, empty) for rank in range(1, len(chunks) + 1)]


@dataclass(slots=True)
class _Scan:
    """One pass over a ranked list: its entries and what scoring needs besides them."""

    entries: list[RankedEntry]
    hits: dict[int, frozenset[int]]
    """rank -> the required groups that chunk satisfies (ranks satisfying none left out)"""
    satisfied: set[int]
    """the groups some chunk of the whole list satisfies"""
    satisfied_within: set[int]
    """the groups some chunk within the cutoff satisfies"""
    pool: dict[str, int]
    """chunk id -> its best grade, for chunks graded above 0 (the judged pool)"""


def _scan(case: ResolvedCase, chunks: Sequence[RetrievedChunk]) -> _Scan:
    """Classify every chunk (match, covered span, claim mismatch, duplicate): the hot
    loop of an evaluation. Every entry is first built as a chunk that matches nothing,
    duplicates nothing and covers no span (what most chunks of a ranked list are), in
    one comprehension; then only the chunks that can differ are looked at and their
    entries set: those in a file a target names (all of them when a glob does) or under
    a forbidden prefix, those of a file a labelled span names, those with a claim, and
    duplicates, found per kind only when the list has any (a repeated id or file, an
    excerpt). Same results as :func:`duplicate_ranks` and
    :func:`~codegold.evaluate.graded.graded_ndcg`'s pool, computed on the way.

    The chunks of a :class:`~codegold.evaluate.scored.ScoredAttempt` are in their
    entries' layout already: they become the entries, given their rank."""
    entries: list[RankedEntry]
    scored = bool(chunks) and type(chunks[0]) is _SCORED_CHUNK  # (no claim, no excerpt)
    if scored:
        entries = cast(list[RankedEntry], list(chunks))
        for rank, e in enumerate(entries, start=1):
            e.rank = rank
    else:
        none = _NONE
        entry = RankedEntry
        entries = [
            entry(
                rank,
                c.chunk_id,
                c.file,
                c.symbol,
                c.role,
                c.repository_revision,
                c.score,
                none,
                c.start_line,
                c.end_line,
                False,
                c.resolved,
                None,
                None,
            )
            for rank, c in enumerate(chunks, start=1)
        ]
    hits: dict[int, frozenset[int]] = {}
    satisfied: set[int] = set()
    within: set[int] = set()
    pool: dict[str, int] = {}
    if not entries:
        return _Scan(entries, hits, satisfied, within, pool)
    files = [c.file for c in chunks]  # (faster than attrgetter on a struct's fields)
    _match_all(case, chunks, entries, files, hits, satisfied, within, pool)
    spanned = [t for t in case.required_targets if t.lines is not None]
    if spanned:
        span_files = _files_of(spanned)
        for i, file in enumerate(files):
            if span_files is None or file in span_files:
                entries[i].covers_target_span = _covers(spanned, chunks[i])
    if not scored and any(map(_CLAIM, chunks)):
        for i, chunk in enumerate(chunks):
            if chunk.claim is not None:
                entries[i].claim_mismatch = claim_mismatch(chunk)
    for rank, above in _duplicates(chunks, files, excerpts=not scored).items():
        entries[rank - 1].duplicate_of = above
    return _Scan(entries, hits, satisfied, within, pool)


_SCORED_CHUNK: type = ScoredChunk  # (the chunks are typed as retrieved ones)
_CLAIM = attrgetter("claim")
_EXCERPT = attrgetter("excerpt")


def _match_all(
    case: ResolvedCase,
    chunks: Sequence[RetrievedChunk],
    entries: list[RankedEntry],
    files: list[str],
    hits: dict[int, frozenset[int]],
    satisfied: set[int],
    within: set[int],
    pool: dict[str, int],
) -> None:
    """Set the match of the entries that have one (forbidden, accepted, supporting),
    and fill ``hits``, ``satisfied``, ``within`` and ``pool``, in rank order."""
    required_files = _files_of(case.required_targets)
    supporting = case.supporting
    supporting_files = _files_of(supporting)
    forbidden_prefixes = case.forbidden_path_prefixes
    names = _FileNames(files)
    forbidden: set[int] = set()
    if forbidden_prefixes:
        forbidden = names.starting(forbidden_prefixes)
        for i in forbidden:
            entries[i].match = _FORBIDDEN
    # the chunks that may match a target: those in a file one names, every one when a
    # glob makes any file possible
    look: Iterable[int]
    if required_files is None or (supporting and supporting_files is None):
        look = range(len(files))
    else:
        candidates = required_files | supporting_files if supporting_files else required_files
        look = names.equal(candidates)
    groups = case.groups
    cutoff = case.cutoff
    for i in look:
        if i in forbidden:
            continue
        chunk = chunks[i]
        file = files[i]
        rank = i + 1
        chunk_id = chunk.chunk_id
        match = _NONE
        if required_files is None or file in required_files:
            groups_hit = frozenset(
                g
                for g, group in enumerate(groups)
                if any(chunk_matches(chunk, t) for t in group.any_of)
            )
            if groups_hit:
                match = _ACCEPTED
                hits[rank] = groups_hit
                satisfied |= groups_hit
                if rank <= cutoff:
                    within |= groups_hit
                pool[chunk_id] = 2
        if (
            match is _NONE
            and supporting
            and (supporting_files is None or file in supporting_files)
            and any(chunk_matches(chunk, t) for t in supporting)
        ):
            match = _SUPPORTING
            if pool.get(chunk_id, 0) < 1:
                pool[chunk_id] = 1
        if match is not _NONE:
            entries[i].match = match


class _FileNames:
    """Which of a ranked list's files start with a prefix or equal a name, found by
    searching their names joined with NUL (which no git path holds) instead of asking
    each file in turn; a list whose names hold a NUL is asked file by file."""

    __slots__ = ("_files", "_joined")

    def __init__(self, files: list[str]) -> None:
        self._files = files
        joined = "\0" + "\0".join(files) + "\0"
        self._joined = joined if joined.count("\0") == len(files) + 1 else None

    def starting(self, prefixes: tuple[str, ...]) -> set[int]:
        """The indices of the files that start with any of ``prefixes``."""
        if self._joined is None:
            return {i for i, f in enumerate(self._files) if f.startswith(prefixes)}
        found: set[int] = set()
        for prefix in prefixes:
            found.update(self._find("\0" + prefix))
        return found

    def equal(self, names: frozenset[str]) -> list[int]:
        """The indices of the files in ``names``, ascending."""
        if self._joined is None:
            return [i for i, f in enumerate(self._files) if f in names]
        found: list[int] = []
        for name in names:
            found.extend(self._find("\0" + name + "\0"))
        return sorted(found)

    def _find(self, key: str) -> Iterator[int]:
        joined = self._joined
        assert joined is not None
        n = len(self._files)
        at = joined.find(key)
        seen = index = 0  # NULs counted up to ``seen``: the index of the file there
        while at != -1:
            index += joined.count("\0", seen, at)
            seen = at
            if index < n:  # (an empty prefix also finds the closing NUL)
                yield index
            at = joined.find(key, at + 1)


def _duplicates(
    chunks: Sequence[RetrievedChunk], files: list[str], *, excerpts: bool = True
) -> dict[int, int]:
    """rank -> the smallest rank above it that the chunk duplicates (graded.
    duplicate_ranks): the same id, an overlapping span of the same file, or the same
    non-blank excerpt. Each kind is looked for only when the list can have one
    (``excerpts``: when its chunks may carry any)."""
    n = len(chunks)
    out: dict[int, int] = {}

    def found(rank: int, above: int) -> None:
        prior = out.get(rank)
        out[rank] = above if prior is None or above < prior else prior

    if len({c.chunk_id for c in chunks}) < n:
        ids: dict[str, int] = {}
        for rank, chunk in enumerate(chunks, start=1):
            first = ids.setdefault(chunk.chunk_id, rank)
            if first != rank:
                found(rank, first)
    if len(set(files)) < n:
        first_of_file: dict[str, int] = {}
        later_of_file: dict[str, list[int]] = {}
        for rank, file in enumerate(files, start=1):
            first = first_of_file.setdefault(file, rank)
            if first == rank:
                continue
            # the file again: the first chunk above that overlaps
            later = later_of_file.setdefault(file, [])
            chunk = chunks[rank - 1]
            start_line, end_line = chunk.start_line, chunk.end_line
            for above in (first, *later):
                other = chunks[above - 1]
                if start_line <= other.end_line and other.start_line <= end_line:
                    found(rank, above)
                    break
            later.append(rank)
    if excerpts and any(map(_EXCERPT, chunks)):
        texts: dict[str, int] = {}
        for rank, chunk in enumerate(chunks, start=1):
            excerpt = chunk.excerpt
            text = excerpt.strip() if excerpt else ""
            if text:
                same = texts.setdefault(text, rank)
                if same != rank:
                    found(rank, same)
    return out


def _covers(spanned: Sequence[Target], chunk: RetrievedChunk) -> bool:
    """Whether ``chunk`` covers the labelled span of a target of its file."""
    file, start, end = chunk.file, chunk.start_line, chunk.end_line
    return any(file_matches(file, t) and span_covers(t, start, end) for t in spanned)


def _graded_and_budget(
    scan: _Scan, cutoff: int, unretrieved: Sequence[str]
) -> tuple[float, ContextBudget]:
    """:func:`~codegold.evaluate.graded.graded_ndcg` (from a scan's pool) and
    :func:`~codegold.evaluate.graded.context_budget` of the first ``cutoff`` entries,
    in one pass over them: the same figures. A list whose visible chunks gain nothing
    scores 0 whatever its ideal, which is then not computed."""
    seen: set[str] = set()
    gains: list[int] = []
    gained = False
    accepted = supporting = forbidden = duplicate = other = 0
    visible = scan.entries[:cutoff]
    for e in visible:
        match = e.match
        chunk_id = e.chunk_id
        if chunk_id in seen:
            gains.append(0)
        else:
            seen.add(chunk_id)
            gain = GRADES.get(match, 0)
            gains.append(gain)
            gained = gained or gain > 0
        # graded.budget_class, in its order
        if match == _FORBIDDEN:
            forbidden += 1
        elif e.duplicate_of is not None:
            duplicate += 1
        elif match == _ACCEPTED:
            accepted += 1
        elif match == _SUPPORTING:
            supporting += 1
        else:
            other += 1
    ndcg = graded_from(gains, scan.pool.values(), unretrieved, cutoff) if gained else 0.0
    budget = ContextBudget(
        accepted / cutoff,
        supporting / cutoff,
        forbidden / cutoff,
        duplicate / cutoff,
        other / cutoff,
        (cutoff - len(visible)) / cutoff,
    )
    return ndcg, budget
