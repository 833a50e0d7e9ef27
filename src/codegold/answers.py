"""Join answer logs to retrieval attempts and class each failed answer (SPEC §6 *answers*).

An answer log is JSONL, one answer per line::

    {"answerId": "a2", "caseId": "session-expiry", "attemptId": "session-expiry#2",
     "contextIds": ["…chunk ids the answer stage was given…"], "verdict": "fail",
     "retryOf": "session-expiry#1"}

``verdict`` is ``pass``/``fail``, ``correct``/``incorrect`` or a boolean. ``answerId``
defaults to ``line-N``. Unknown fields are ignored, as in attempt files.

The join
    Each answer is joined to **its** attempt by ``attemptId`` (never to "the latest
    attempt of the case"), and to that attempt's result record. An answer is
    **unresolvable** when its attemptId is unknown, belongs to another case or has no
    result record; when a ``contextIds`` entry is not among the attempt's ranked or
    candidate chunk ids; or when its ``retryOf`` names neither an attempt nor an answer
    of the same case, or contradicts the retry the attempt itself records. A retry may
    re-answer from the attempt it retries, or name a new attempt. One unresolvable
    answer makes the whole join **invalid** (``valid: false`` with every reason).

Failure classes, the first that applies
    ``evidence_stale``             the attempt is invalid (index missing, incomplete or
                                   of another revision), or a context chunk comes from
                                   a revision other than the case's;
    ``evidence_absent``            some required evidence group has no chunk in the
                                   answer's context;
    ``evidence_present_ignored``   every required group is in the context and the
                                   answer still failed (SPEC §4 ``answer_ignored_evidence``,
                                   owner "answer generation").

    Evidence is judged per group with the suite's targets when the suite is given
    (``evidenceCheck: "suite"``); otherwise from the result record's per-rank ``match``
    (``"record"``: a context chunk ranked ``accepted`` is evidence, and the case is
    taken as satisfied when one is present, which is exact for single-group cases).

The case record
    When a failed answer is ``evidence_present_ignored`` and no forbidden chunk reached
    its context, nothing upstream of the answer stage broke for it, so its attempt's
    record gets diagnosis ``answer_ignored_evidence``; the diagnosis it had before
    (``None`` for a record that passed retrieval) is kept under
    ``evidence.retrievalDiagnosis``. ``passed`` keeps its meaning (retrieval at the
    cutoff) and is never changed. Applying answers again starts from the retrieval
    diagnoses, so the result depends only on the run and the answer log.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, NamedTuple

import msgspec

from codegold import __version__
from codegold.attempts import Attempt, RetrievedChunk
from codegold.cases.match import chunk_matches
from codegold.cases.suite import ResolvedCase, Suite
from codegold.errors import InputError
from codegold.evaluate.records import CaseResult, Diagnosis
from codegold.roles import OWNERS, Cause, Match

__all__ = [
    "ANSWERS",
    "ANSWERS_SUMMARY",
    "AnswerClass",
    "AnswerLine",
    "AnswerReport",
    "AnswerResult",
    "LoggedAnswer",
    "answers_document",
    "apply_to_records",
    "judge_answers",
    "load_answers",
    "update_run",
    "write_answer_artifacts",
]

ANSWER_CAUSE = Cause.ANSWER_IGNORED_EVIDENCE
_PASS = frozenset({"pass", "passed", "correct", "true"})
_FAIL = frozenset({"fail", "failed", "incorrect", "false"})


class AnswerClass(StrEnum):
    """Why a failed answer failed, as far as its context shows."""

    EVIDENCE_ABSENT = "evidence_absent"
    EVIDENCE_PRESENT_IGNORED = "evidence_present_ignored"
    EVIDENCE_STALE = "evidence_stale"


class AnswerLine(msgspec.Struct, rename="camel", frozen=True):
    """One line of an answer log."""

    case_id: str
    attempt_id: str
    context_ids: tuple[str, ...]
    verdict: bool | str
    answer_id: str | None = None
    retry_of: str | None = None


@dataclass(frozen=True, slots=True)
class LoggedAnswer:
    """An answer line with its id settled, its verdict read and where it came from."""

    answer_id: str
    line: int
    passed: bool
    raw: AnswerLine


_decoder = msgspec.json.Decoder(AnswerLine)


def _verdict(value: bool | str, path: Path, number: int, case_id: str) -> bool:
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in _PASS:
        return True
    if lowered in _FAIL:
        return False
    raise InputError(
        f"verdict {value!r} is not pass/fail, correct/incorrect or a boolean",
        file=str(path),
        line=number,
        case_id=case_id,
        field="verdict",
    )


def load_answers(path: str | Path) -> list[LoggedAnswer]:
    """Read an answer log; malformed lines raise :class:`InputError` (file, line, field)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    out: list[LoggedAnswer] = []
    seen: set[str] = set()
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            raw = _decoder.decode(line)
        except msgspec.ValidationError as exc:
            detail, _, where = str(exc).partition(" - at `")
            field = where.rstrip("`").removeprefix("$.") or None
            raise InputError(detail, file=str(p), line=number, field=field) from None
        except msgspec.DecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", file=str(p), line=number) from None
        answer_id = raw.answer_id or f"line-{number}"
        if answer_id in seen:
            raise InputError(
                f"duplicate answerId {answer_id!r}",
                file=str(p),
                line=number,
                case_id=raw.case_id,
                field="answerId",
            )
        seen.add(answer_id)
        passed = _verdict(raw.verdict, p, number, raw.case_id)
        out.append(LoggedAnswer(answer_id=answer_id, line=number, passed=passed, raw=raw))
    return out


@dataclass(frozen=True)
class AnswerResult:
    """One answer, joined and classed."""

    answer: LoggedAnswer
    resolved: bool
    unresolved_reason: str | None = None
    retry_of_attempt: str | None = None
    new_attempt: bool | None = None
    answer_class: AnswerClass | None = None
    evidence_check: str | None = None
    evidence_chunk_ids: tuple[str, ...] = ()
    missing_group_ids: tuple[str, ...] = ()
    stale_chunk_ids: tuple[str, ...] = ()
    forbidden_chunk_ids: tuple[str, ...] = ()
    retrieval_passed: bool | None = None
    superseded_by: tuple[str, ...] = ()
    detail: str | None = None

    @property
    def marks_record(self) -> bool:
        """Whether this answer sets its record's diagnosis to answer_ignored_evidence."""
        return (
            self.answer_class is AnswerClass.EVIDENCE_PRESENT_IGNORED
            and not self.forbidden_chunk_ids
        )

    def to_dict(self) -> dict[str, Any]:
        raw = self.answer.raw
        return {
            "answerId": self.answer.answer_id,
            "line": self.answer.line,
            "caseId": raw.case_id,
            "attemptId": raw.attempt_id,
            "retryOf": raw.retry_of,
            "retryOfAttemptId": self.retry_of_attempt,
            "newAttempt": self.new_attempt,
            "passed": self.answer.passed,
            "final": not self.superseded_by,
            "supersededBy": list(self.superseded_by),
            "resolved": self.resolved,
            "unresolvedReason": self.unresolved_reason,
            "class": self.answer_class.value if self.answer_class else None,
            "cause": ANSWER_CAUSE.value if self.marks_record else None,
            "owner": OWNERS[ANSWER_CAUSE] if self.marks_record else None,
            "detail": self.detail,
            "evidenceCheck": self.evidence_check,
            "contextIds": list(raw.context_ids),
            "evidenceChunkIds": list(self.evidence_chunk_ids),
            "missingGroupIds": list(self.missing_group_ids),
            "staleChunkIds": list(self.stale_chunk_ids),
            "forbiddenChunkIds": list(self.forbidden_chunk_ids),
            "retrievalPassed": self.retrieval_passed,
        }


@dataclass(frozen=True)
class AnswerReport:
    """Every answer, and whether the join as a whole is valid."""

    results: tuple[AnswerResult, ...]

    @property
    def valid(self) -> bool:
        return all(r.resolved for r in self.results)

    def summary(self) -> dict[str, Any]:
        resolved = [r for r in self.results if r.resolved]
        failed = [r for r in resolved if not r.answer.passed]
        final = [r for r in resolved if not r.superseded_by]
        return {
            "valid": self.valid,
            "invalidReasons": _invalid_reasons(self.results),
            "answers": len(self.results),
            "resolved": len(resolved),
            "unresolved": len(self.results) - len(resolved),
            "passed": sum(1 for r in resolved if r.answer.passed),
            "failed": len(failed),
            "classes": _class_counts(failed),
            "retries": sum(1 for r in resolved if r.answer.raw.retry_of is not None),
            "final": _final_counts(final),
            "recordsMarked": len({r.answer.raw.attempt_id for r in failed if r.marks_record}),
            "cause": {"name": ANSWER_CAUSE.value, "owner": OWNERS[ANSWER_CAUSE]},
        }


def _invalid_reasons(results: Sequence[AnswerResult]) -> list[dict[str, Any]]:
    return [
        {
            "answerId": r.answer.answer_id,
            "line": r.answer.line,
            "caseId": r.answer.raw.case_id,
            "reason": r.unresolved_reason,
        }
        for r in results
        if not r.resolved
    ]


def _class_counts(failed: Sequence[AnswerResult]) -> dict[str, int]:
    """Failed answers per class, every class present."""
    classes = {c.value: 0 for c in AnswerClass}
    for r in failed:
        if r.answer_class is not None:
            classes[r.answer_class.value] += 1
    return classes


def _final_counts(final: Sequence[AnswerResult]) -> dict[str, Any]:
    """The answers no retry superseded: counts, and the retries that passed."""
    recovered = sorted(
        r.answer.answer_id for r in final if r.answer.passed and r.answer.raw.retry_of is not None
    )
    return {
        "answers": len(final),
        "passed": sum(1 for r in final if r.answer.passed),
        "failed": sum(1 for r in final if not r.answer.passed),
        "recoveredByRetry": recovered,
    }


# -- the join --------------------------------------------------------------------------


def _chunks_of(attempt: Attempt) -> dict[str, RetrievedChunk]:
    chunks: dict[str, RetrievedChunk] = {}
    for chunk in (*(attempt.candidates or ()), *attempt.ranked):
        chunks[chunk.chunk_id] = chunk
    return chunks


def _resolve_retry(
    answer: LoggedAnswer,
    attempt: Attempt,
    attempts: Mapping[str, Attempt],
    answers: Mapping[str, LoggedAnswer],
) -> tuple[str | None, str | None]:
    """(the attempt retried, or None; a reason it cannot be resolved, or None)."""
    retry_of = answer.raw.retry_of
    if retry_of is None:
        return None, None
    case_id = answer.raw.case_id
    if retry_of == answer.answer_id:
        return None, "retryOf names the answer itself"
    prior: Attempt | None
    if retry_of in attempts:
        prior = attempts[retry_of]
    elif retry_of in answers:
        prior_answer = answers[retry_of]
        if prior_answer.raw.case_id != case_id:
            return None, f"retryOf names answer {retry_of!r} of case {prior_answer.raw.case_id!r}"
        prior = attempts.get(prior_answer.raw.attempt_id)
        if prior is None:
            return None, f"retryOf names answer {retry_of!r}, whose attempt is unknown"
    else:
        return None, f"retryOf {retry_of!r} names neither an attempt nor an answer"
    if prior.case_id != case_id:
        return None, f"retryOf names attempt {prior.attempt_id!r} of case {prior.case_id!r}"
    if (
        attempt.attempt_id != prior.attempt_id
        and attempt.retry_of is not None
        and attempt.retry_of != prior.attempt_id
    ):
        return None, (
            f"the answer retries {prior.attempt_id!r} but its attempt "
            f"{attempt.attempt_id!r} records retryOf {attempt.retry_of!r}"
        )
    return prior.attempt_id, None


def _group_evidence(
    case: ResolvedCase, context: Sequence[RetrievedChunk]
) -> tuple[list[str], list[str]]:
    """(evidence chunk ids in the context, ids of groups with none), by the suite."""
    allowed = [c for c in context if not c.file.startswith(case.forbidden_path_prefixes or ("\0",))]
    evidence: list[str] = []
    missing: list[str] = []
    for group in case.groups:
        hits = [c.chunk_id for c in allowed if any(chunk_matches(c, t) for t in group.any_of)]
        if not hits:
            missing.append(group.id)
        evidence.extend(h for h in hits if h not in evidence)
    return evidence, missing


class _Linked(NamedTuple):
    """An answer tied to its attempt, result record, retried attempt and context chunks."""

    attempt: Attempt
    record: CaseResult
    prior: str | None
    context: list[RetrievedChunk]


def _link(
    answer: LoggedAnswer,
    attempts: Mapping[str, Attempt],
    records: Mapping[str, CaseResult],
    answers: Mapping[str, LoggedAnswer],
) -> _Linked | str:
    """The answer's attempt, record, retry and context, or the reason it cannot be resolved."""
    raw = answer.raw
    attempt = attempts.get(raw.attempt_id)
    if attempt is None:
        return f"attemptId {raw.attempt_id!r} is not among the attempts"
    if attempt.case_id != raw.case_id:
        return (
            f"attempt {raw.attempt_id!r} belongs to case {attempt.case_id!r}, not {raw.case_id!r}"
        )
    record = records.get(raw.attempt_id)
    if record is None:
        return f"attempt {raw.attempt_id!r} has no result record"
    prior, problem = _resolve_retry(answer, attempt, attempts, answers)
    if problem is not None:
        return problem
    chunks = _chunks_of(attempt)
    unknown = [c for c in raw.context_ids if c not in chunks]
    if unknown:
        shown = ", ".join(unknown[:3]) + (", …" if len(unknown) > 3 else "")
        return (
            f"{len(unknown)} context id(s) are not among attempt {raw.attempt_id!r}'s "
            f"ranked or candidate chunks: {shown}"
        )
    return _Linked(attempt, record, prior, [chunks[c] for c in raw.context_ids])


def _forbidden_in(
    context: Sequence[RetrievedChunk],
    case: ResolvedCase | None,
    by_rank: Mapping[str, str],
) -> tuple[str, ...]:
    """Context chunks under a forbidden prefix (by the suite), else forbidden by the record."""
    return tuple(
        c.chunk_id
        for c in context
        if (
            c.file.startswith(case.forbidden_path_prefixes or ("\0",))
            if case is not None
            else by_rank.get(c.chunk_id) == Match.FORBIDDEN
        )
    )


def _evidence_in(
    context: Sequence[RetrievedChunk],
    case: ResolvedCase | None,
    by_rank: Mapping[str, str],
    record: CaseResult,
) -> tuple[list[str], list[str], str]:
    """(evidence chunk ids, missing group ids, which check decided: "suite" or "record")."""
    if case is not None:
        evidence, missing = _group_evidence(case, context)
        return evidence, missing, "suite"
    evidence = [c.chunk_id for c in context if by_rank.get(c.chunk_id) == Match.ACCEPTED]
    missing = [] if evidence else (record.missing_group_ids or ["accepted"])
    return evidence, missing, "record"


def _judge(
    answer: LoggedAnswer,
    attempts: Mapping[str, Attempt],
    records: Mapping[str, CaseResult],
    answers: Mapping[str, LoggedAnswer],
    cases: Mapping[str, ResolvedCase] | None,
) -> AnswerResult:
    linked = _link(answer, attempts, records, answers)
    if isinstance(linked, str):
        return AnswerResult(answer, False, linked)
    attempt, record, prior, context = linked
    base: dict[str, Any] = {
        "retry_of_attempt": prior,
        "new_attempt": None if prior is None else prior != attempt.attempt_id,
        "retrieval_passed": record.passed,
    }
    if answer.passed:
        return AnswerResult(answer, True, **base)
    raw = answer.raw
    case = cases.get(raw.case_id) if cases is not None else None
    revision = record.repository_revision
    stale = tuple(
        c.chunk_id for c in context if revision is not None and c.repository_revision != revision
    )
    by_rank = {e.chunk_id: e.match for e in record.ranked}
    forbidden = _forbidden_in(context, case, by_rank)
    evidence, missing, check = _evidence_in(context, case, by_rank, record)
    common: dict[str, Any] = {
        **base,
        "evidence_check": check,
        "evidence_chunk_ids": tuple(evidence),
        "missing_group_ids": tuple(missing),
        "stale_chunk_ids": stale,
        "forbidden_chunk_ids": forbidden,
    }
    if not record.valid or stale:
        why = (
            f"the attempt is invalid: {record.invalid_reason}"
            if not record.valid
            else f"{len(stale)} context chunk(s) come from another revision than {revision}"
        )
        return AnswerResult(
            answer, True, answer_class=AnswerClass.EVIDENCE_STALE, detail=why, **common
        )
    if missing:
        return AnswerResult(
            answer,
            True,
            answer_class=AnswerClass.EVIDENCE_ABSENT,
            detail=f"required evidence not in the answer's context: {', '.join(missing)}",
            **common,
        )
    return AnswerResult(
        answer,
        True,
        answer_class=AnswerClass.EVIDENCE_PRESENT_IGNORED,
        detail=(
            f"answer {answer.answer_id} failed with acceptable evidence in its context "
            f"({', '.join(evidence)})"
            + (f"; forbidden chunks also reached it: {', '.join(forbidden)}" if forbidden else "")
        ),
        **common,
    )


def _superseded(results: Sequence[AnswerResult]) -> dict[str, list[str]]:
    """answerId -> the answers that retry it (directly, or through its attempt)."""
    by_attempt: dict[str, list[str]] = defaultdict(list)
    for r in results:
        by_attempt[r.answer.raw.attempt_id].append(r.answer.answer_id)
    out: dict[str, list[str]] = defaultdict(list)
    for r in results:
        retry_of = r.answer.raw.retry_of
        if not r.resolved or retry_of is None:
            continue
        if retry_of in by_attempt and r.retry_of_attempt == retry_of:
            targets = by_attempt[retry_of]
        else:
            targets = [retry_of]
        for target in targets:
            if target != r.answer.answer_id:
                out[target].append(r.answer.answer_id)
    return out


def judge_answers(
    answers: Sequence[LoggedAnswer],
    attempts: Iterable[Attempt],
    records: Iterable[CaseResult],
    *,
    suite: Suite | None = None,
) -> AnswerReport:
    """Join every answer to its attempt and record, and class the failed ones."""
    by_attempt = {a.attempt_id: a for a in attempts}
    by_record = {r.attempt_id: r for r in records if r.attempt_id is not None}
    by_answer = {a.answer_id: a for a in answers}
    cases = suite.by_id() if suite is not None else None
    judged = [_judge(a, by_attempt, by_record, by_answer, cases) for a in answers]
    later = _superseded(judged)
    return AnswerReport(
        tuple(
            dataclasses.replace(r, superseded_by=tuple(later.get(r.answer.answer_id, ())))
            for r in judged
        )
    )


# -- the case records ------------------------------------------------------------------


def _retrieval_diagnosis(record: CaseResult) -> Diagnosis | None:
    """The diagnosis the record had before any answers were applied."""
    diagnosis = record.diagnosis
    if diagnosis is None or diagnosis.cause != ANSWER_CAUSE.value:
        return diagnosis
    prior = diagnosis.evidence.get("retrievalDiagnosis")
    return msgspec.convert(prior, Diagnosis) if prior is not None else None


def apply_to_records(records: Sequence[CaseResult], report: AnswerReport) -> list[CaseResult]:
    """New records: ``answer_ignored_evidence`` on the attempts whose failed answers
    ignored evidence that reached them, with the retrieval diagnosis kept under
    ``evidence.retrievalDiagnosis``; every other record back to its retrieval diagnosis."""
    marking: dict[str, list[AnswerResult]] = defaultdict(list)
    for r in report.results:
        if r.resolved and not r.answer.passed and r.marks_record:
            marking[r.answer.raw.attempt_id].append(r)
    out: list[CaseResult] = []
    for record in records:
        retrieval = _retrieval_diagnosis(record)
        found = marking.get(record.attempt_id or "")
        if not found:
            if retrieval is not record.diagnosis:
                record = msgspec.structs.replace(record, diagnosis=retrieval)
            out.append(record)
            continue
        ids = [r.answer.answer_id for r in found]
        evidence_ids = sorted({c for r in found for c in r.evidence_chunk_ids})
        diagnosis = Diagnosis(
            cause=ANSWER_CAUSE.value,
            owner=OWNERS[ANSWER_CAUSE],
            detail=(
                f"acceptable evidence reached the answer context and the answer still "
                f"failed ({len(ids)} answer(s): {', '.join(ids)})"
            ),
            evidence={
                "answerIds": ids,
                "contextIds": sorted({c for r in found for c in r.answer.raw.context_ids}),
                "evidenceChunkIds": evidence_ids,
                "retrievalDiagnosis": msgspec.to_builtins(retrieval)
                if retrieval is not None
                else None,
            },
        )
        out.append(msgspec.structs.replace(record, diagnosis=diagnosis))
    return out


ANSWERS = "answers.json"
ANSWERS_SUMMARY = "answers_summary.json"


def answers_document(report: AnswerReport, sources: Mapping[str, Any]) -> dict[str, Any]:
    """The answers_summary.json document: versions, inputs, validity and counts."""
    return {"codegoldVersion": __version__, "sources": dict(sources), **report.summary()}


def write_answer_artifacts(
    out_dir: str | Path, report: AnswerReport, sources: Mapping[str, Any]
) -> dict[str, Any]:
    """Write ``answers.json`` (one object per answer) and ``answers_summary.json``."""
    from codegold._io import write_json_array_atomic, write_json_atomic
    from codegold.redact import redact_json

    out = Path(out_dir)
    summary = answers_document(report, sources)
    write_json_array_atomic(out / ANSWERS, (redact_json(r.to_dict())[0] for r in report.results))
    write_json_atomic(out / ANSWERS_SUMMARY, summary)
    return summary


def update_run(
    run_dir: str | Path, records: Sequence[CaseResult], report: AnswerReport
) -> list[CaseResult]:
    """Rewrite ``results.json`` with the answer diagnoses, then ``summary.json``
    recomputed from those records (its run identity kept) with an ``answers`` section.
    Both writes are atomic; results first, as ``codegold run`` writes them."""
    from codegold._io import write_json_array_atomic, write_json_atomic
    from codegold.evaluate.summary import summarize
    from codegold.redact import redact_record
    from codegold.report.artifacts import RESULTS, SUMMARY

    folder = Path(run_dir)
    updated = [redact_record(r)[0] for r in apply_to_records(records, report)]
    identity: dict[str, Any] = {}
    try:
        previous = msgspec.json.decode((folder / SUMMARY).read_bytes())
    except FileNotFoundError:
        previous = None
    if isinstance(previous, dict):
        identity = {k: v for k, v in previous.items() if k not in ("overall", "slices", "answers")}
    write_json_array_atomic(folder / RESULTS, updated)
    write_json_atomic(
        folder / SUMMARY, {**summarize(updated, identity), "answers": report.summary()}
    )
    return updated
