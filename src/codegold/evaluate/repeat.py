"""Flag cases whose ranking differs between identical attempts (SPEC §6 *repeat*).

Attempts of one case are **identical** when they searched the same raw query with the
same filters and the same retriever (name, version and configuration). Within each
such set of two or more attempts, the ranked chunk-id lists are compared:

* all equal → every record of the set gets ``nondeterministic=False``;
* any difference → every record of the set gets ``nondeterministic=True``, and the set
  gets one reason, the first that applies:

  ``index_changed``      the attempts were served by different index builds
                         (``index.buildId``);
  ``tie_breaking``       the same chunks with the same scores, and the score at every
                         rank the same: only chunks of equal score swapped places;
  ``component_changed``  a different candidate set, or different scores (an unseeded
                         component, a changed rewrite, a live service that moved).

A record whose attempt has no identical twin keeps ``nondeterministic=None`` (nothing
to compare with), as do records of cases with a single attempt.

Attempts are consumed once, as a stream; only a small fingerprint of each is kept.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

import msgspec

from codegold.attempts import Attempt
from codegold.evaluate.records import CaseResult

__all__ = [
    "Reason",
    "RecordKey",
    "check_repeats",
    "flag_nondeterminism",
    "has_repeats",
    "nondeterminism_report",
    "repeat_flags",
]


class Reason(StrEnum):
    """Why identical attempts ranked differently."""

    INDEX_CHANGED = "index_changed"
    TIE_BREAKING = "tie_breaking"
    COMPONENT_CHANGED = "component_changed"


_encode = msgspec.json.Encoder(order="sorted").encode


@dataclass(frozen=True, slots=True)
class _Fingerprint:
    attempt_id: str
    case_id: str
    inputs: bytes
    build_id: str | None
    ranked: tuple[tuple[str, float], ...]
    candidates: frozenset[tuple[str, float]] | None
    rewritten: str | None


def _fingerprint(attempt: Attempt) -> _Fingerprint:
    retriever = attempt.retriever
    inputs = _encode(
        {
            "query": attempt.query,
            "filters": attempt.filters or {},
            "retriever": None
            if retriever is None
            else [retriever.name, retriever.version, retriever.config],
        }
    )
    return _Fingerprint(
        attempt_id=attempt.attempt_id,
        case_id=attempt.case_id,
        inputs=inputs,
        build_id=attempt.index.build_id if attempt.index is not None else None,
        ranked=tuple((c.chunk_id, c.score) for c in attempt.ranked),
        candidates=None
        if attempt.candidates is None
        else frozenset((c.chunk_id, c.score) for c in attempt.candidates),
        rewritten=attempt.rewritten_query,
    )


def _reason(prints: Sequence[_Fingerprint]) -> tuple[Reason, str]:
    first = prints[0]
    builds = sorted({p.build_id or "none" for p in prints})
    if len(builds) > 1:
        return Reason.INDEX_CHANGED, f"served by index builds {', '.join(builds)}"
    rewrites = sorted({p.rewritten or "" for p in prints})
    if len(rewrites) > 1:
        return Reason.COMPONENT_CHANGED, f"the rewritten query differed: {rewrites!r}"
    for other in prints[1:]:
        if sorted(other.ranked) != sorted(first.ranked):
            ids_a = {c for c, _ in first.ranked}
            ids_b = {c for c, _ in other.ranked}
            what = "chunks" if ids_a != ids_b else "scores"
            return (
                Reason.COMPONENT_CHANGED,
                f"{first.attempt_id} and {other.attempt_id} ranked different {what}",
            )
        if (
            first.candidates is not None
            and other.candidates is not None
            and first.candidates != other.candidates
        ):
            return (
                Reason.COMPONENT_CHANGED,
                f"{first.attempt_id} and {other.attempt_id} had different candidates",
            )
        if [s for _, s in other.ranked] != [s for _, s in first.ranked]:
            return (
                Reason.COMPONENT_CHANGED,
                f"{first.attempt_id} and {other.attempt_id} ordered chunks of different scores "
                "differently",
            )
    return Reason.TIE_BREAKING, "the same chunks and scores; chunks of equal score swapped"


class RecordKey(Protocol):
    """What repeat detection reads of a record: its case and attempt."""

    @property
    def case_id(self) -> str: ...

    @property
    def attempt_id(self) -> str | None: ...


def has_repeats(records: Iterable[RecordKey]) -> bool:
    """Whether any case has more than one record (attempt)."""
    seen: set[str] = set()
    for record in records:
        if record.case_id in seen:
            return True
        seen.add(record.case_id)
    return False


def _groups(attempts: Iterable[Attempt], cases: set[str]) -> list[list[_Fingerprint]]:
    sets: dict[tuple[str, bytes], list[_Fingerprint]] = defaultdict(list)
    for attempt in attempts:
        if attempt.case_id in cases:
            fp = _fingerprint(attempt)
            sets[(fp.case_id, fp.inputs)].append(fp)
    return [sorted(g, key=lambda p: p.attempt_id) for _, g in sorted(sets.items())]


def check_repeats(
    records: Sequence[CaseResult], attempts: Iterable[Attempt]
) -> tuple[list[CaseResult], dict[str, Any]]:
    """Flagged records and the ``nondeterminism`` summary section.

    When no case has more than one record, ``attempts`` is not consumed and the
    records come back unchanged with an empty section (``{}``).
    """
    flags, section = repeat_flags(records, attempts)
    if not flags:
        return list(records), section
    out = [
        msgspec.structs.replace(r, nondeterministic=flags[r.attempt_id])
        if r.attempt_id is not None and r.attempt_id in flags
        else r
        for r in records
    ]
    return out, section


def repeat_flags(
    records: Sequence[RecordKey], attempts: Iterable[Attempt]
) -> tuple[dict[str, bool], dict[str, Any]]:
    """(attempt id -> its ``nondeterministic`` flag, for the attempts of identical sets;
    the ``nondeterminism`` summary section): :func:`check_repeats` without touching
    the records, which only need their case and attempt ids here.

    When no case has more than one record, ``attempts`` is not consumed and both
    come back empty."""
    if not has_repeats(records):
        return {}, {}
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        counts[record.case_id] += 1
    repeated = {case for case, n in counts.items() if n > 1}
    flags: dict[str, bool] = {}
    found: list[dict[str, Any]] = []
    identical_sets = 0
    for group in _groups(attempts, repeated):
        if len(group) < 2:
            continue
        identical_sets += 1
        lists = {tuple(c for c, _ in p.ranked) for p in group}
        differs = len(lists) > 1
        for p in group:
            flags[p.attempt_id] = differs
        if differs:
            reason, detail = _reason(group)
            found.append(
                {
                    "caseId": group[0].case_id,
                    "attemptIds": [p.attempt_id for p in group],
                    "distinctRankings": len(lists),
                    "reason": reason.value,
                    "detail": detail,
                }
            )
    reasons = {r.value: 0 for r in Reason}
    for item in found:
        reasons[item["reason"]] += 1
    section = {
        "nondeterminism": {
            "repeatedCases": len(repeated),
            "identicalAttemptSets": identical_sets,
            "nondeterministicCases": len({f["caseId"] for f in found}),
            "reasons": reasons,
            "sets": found,
        }
    }
    return flags, section


def flag_nondeterminism(
    records: Sequence[CaseResult], attempts: Iterable[Attempt]
) -> list[CaseResult]:
    """Records with ``nondeterministic`` set (new records; inputs untouched)."""
    return check_repeats(records, attempts)[0]


def nondeterminism_report(
    records: Sequence[CaseResult], attempts: Iterable[Attempt]
) -> dict[str, Any]:
    """The ``nondeterminism`` summary section alone (``{}`` without repeats)."""
    return check_repeats(records, attempts)[1]
