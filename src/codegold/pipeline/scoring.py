"""The one scoring path of `run` and `eval`: evaluate, diagnose failures, flag repeated
attempts, stamp the run identity, write the artifacts."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from codegold._io import write_encoded_array_atomic, write_json_atomic, write_jsonl_atomic
from codegold.attempts import Attempt
from codegold.cases.selection import Selection
from codegold.cases.suite import Suite
from codegold.evaluate.records import RESULTS, CaseResult
from codegold.evaluate.repeat import check_repeats, repeat_flags
from codegold.evaluate.run import evaluate_attempts
from codegold.evaluate.spool import RecordSpool, Spooled, WrittenRecords
from codegold.report.artifacts import (
    ATTEMPTS,
    SUMMARY,
    AttemptLedger,
    run_identity,
    write_results,
)

# Diagnosis (the index store, git) and the owners table are imported when a run has
# them: scoring recorded attempts alone needs neither.
if TYPE_CHECKING:
    from codegold.corpus.git import GitRepo
    from codegold.diagnose import DiagnosisContext
    from codegold.index.store import IndexCache
    from codegold.owners import OwnerMap

AttemptSource = Callable[[], Iterable[Attempt]]
"""Gives the run's attempts afresh at each call: a list in memory, or a JSONL file read
again (recorded runs stream, so only the records stay in memory)."""


@dataclass(frozen=True)
class Scored:
    """The records of a run and what summary.json says about the run besides them."""

    records: list[CaseResult]
    identity: dict[str, Any]


def diagnosis_context(git: GitRepo | None, indexes: IndexCache | Path) -> DiagnosisContext:
    """Diagnosis reads codegold's own index of each revision (a revision without a
    complete build gives None) from ``indexes`` (the cache retrieval used, or a root to
    open a cache of its own on), and file text from git, or from the index's chunks when
    no repository is at hand."""
    from codegold.diagnose import DiagnosisContext
    from codegold.index.store import IndexCache

    if not isinstance(indexes, IndexCache):
        indexes = IndexCache(indexes)

    def read_text(revision: str, path: str) -> str | None:
        if git is not None:
            data = git.read_path(revision, path)
            return data.decode("utf-8", errors="replace") if data is not None else None
        index = indexes.find(revision)
        return index.file_text(path) if index is not None else None

    return DiagnosisContext(index_for=indexes.find, read_text=read_text)


def score_shard(
    suite: Suite,
    attempts: Sequence[Attempt],
    diagnosis: DiagnosisContext | None = None,
    *,
    mode: str = "recorded",
) -> list[CaseResult]:
    """Evaluate (and, given a context, diagnose) the attempts of some cases: one record
    per attempt, a ``no_attempt`` record for a case of ``suite`` without one. The
    per-shard step: run it on a sub-suite and its attempts, concatenate in suite order,
    then :func:`score` the whole with the records in hand."""
    records = evaluate_attempts(suite, attempts, mode=mode)
    if diagnosis is None:
        return records
    return _diagnose(suite, records, lambda: attempts, diagnosis)


def score(
    suite: Suite,
    attempts: AttemptSource,
    *,
    diagnosis: Callable[[], DiagnosisContext] | None = None,
    attempts_digest: Callable[[], str] | None = None,
    mode: str = "recorded",
    selection: Selection | None = None,
    owners: OwnerMap | None = None,
) -> Scored:
    """Evaluate every attempt, diagnose the failures, flag cases whose identical repeated
    attempts ranked differently, and gather the run identity.

    ``diagnosis`` is called once the attempts are evaluated (so bad attempts are
    reported before any index is built); ``attempts_digest`` names a recorded file;
    ``mode`` is ``live`` when codegold retrieved, ``recorded`` when it read attempts;
    ``selection`` (``--case``/``--tag``) goes into the identity (``null``: every case);
    ``owners`` (the ``[owners]`` table) gives each diagnosis its team."""
    ledger = AttemptLedger()
    records = evaluate_attempts(suite, ledger.watch(attempts()), mode=mode)
    if diagnosis is not None:
        records = _diagnose(suite, records, attempts, diagnosis())
    if owners:
        from codegold.owners import assign_teams

        records = assign_teams(records, suite, owners)
    # read once more only when some case has several attempts
    records, repeats = check_repeats(records, _Again(attempts))
    digest = attempts_digest() if attempts_digest is not None else None
    identity = run_identity(suite, ledger, attempts_digest=digest)
    chosen = selection.to_dict() if selection is not None else None
    return Scored(records, {**identity, "selection": chosen, **repeats})


def write_run(
    out_dir: Path, scored: Scored, *, attempts: Sequence[Attempt] | None = None
) -> dict[str, Any]:
    """Write attempts.jsonl (live runs), results.json and summary.json; the summary."""
    if attempts is not None:
        from codegold.redact import redact_attempt

        write_jsonl_atomic(out_dir / ATTEMPTS, [redact_attempt(a) for a in attempts])
    return write_results(out_dir, scored.records, scored.identity)


def _diagnose(
    suite: Suite,
    records: list[CaseResult],
    attempts: AttemptSource,
    diagnosis: DiagnosisContext,
) -> list[CaseResult]:
    from codegold.diagnose import diagnose_records

    failed = {r.attempt_id for r in records if not r.passed and r.attempt_id}
    by_id = {a.attempt_id: a for a in attempts() if a.attempt_id in failed} if failed else {}
    return diagnose_records(suite.by_id(), records, by_id, diagnosis)


class _Again:
    """An iterable that asks its source for the attempts only when iterated."""

    def __init__(self, source: AttemptSource) -> None:
        self._source = source

    def __iter__(self) -> Iterator[Attempt]:
        return iter(self._source())


Slot = CaseResult | Spooled
"""A record of a streamed run: in memory (it may still change), or spooled (final)."""


@dataclass(frozen=True, slots=True)
class _Key:
    """What repeat detection reads of a record."""

    case_id: str
    attempt_id: str | None


def stream_run(
    out_dir: Path,
    suite: Suite,
    attempts: AttemptSource,
    *,
    diagnosis: Callable[[], DiagnosisContext] | None = None,
    attempts_digest: Callable[[], str] | None = None,
    mode: str = "recorded",
    selection: Selection | None = None,
    owners: OwnerMap | None = None,
) -> tuple[dict[str, Any], WrittenRecords]:
    """:func:`score` then :func:`write_run`, holding in memory only the records that
    may still change: a record no later step touches (a passing one; any one when
    nothing diagnoses and no owners table assigns teams) is redacted, counted into the
    summary and encoded as soon as it is scored, and its bytes wait in a
    :class:`~codegold.evaluate.spool.RecordSpool`. Attempts may come in any order;
    results.json and summary.json are byte for byte what :func:`score` and
    :func:`write_run` write. Returns the summary and the written records (read back
    from results.json when asked for)."""
    from codegold._io import encode_compact
    from codegold.evaluate.evaluator import evaluate_case
    from codegold.evaluate.summary import Tally
    from codegold.redact import redact_record

    ledger = AttemptLedger()
    tally = Tally()
    held_failures = diagnosis is not None or bool(owners)

    def slot(record: CaseResult) -> Slot:
        if held_failures and not record.passed:
            return record
        final = redact_record(record)[0]
        row = tally.add(final)
        ticket = spool.put(final.attempt_id, encode_compact(final))
        if ticket.index != row:  # pragma: no cover - both are filled in the same order
            raise RuntimeError(f"spool and tally out of step: {ticket.index} != {row}")
        return ticket

    cases = suite.by_id()
    with closing(RecordSpool()) as spool:
        # a case's slot, or its slots when it has several attempts (rare: no list else)
        by_case: dict[str, Slot | list[Slot]] = {}
        repeated = False
        imported = seen = 0
        for attempt in ledger.watch(attempts()):
            seen += 1
            imported += attempt.mode == "imported"
            case = cases.get(attempt.case_id)
            if case is not None:
                new = slot(evaluate_case(case, attempt, mode=mode))
                prior = by_case.setdefault(case.id, new)
                if prior is not new:
                    repeated = True
                    if isinstance(prior, list):
                        prior.append(new)
                    else:
                        by_case[case.id] = [prior, new]
        # a case the import left without an attempt is part of the imported run
        missing_mode = "imported" if seen and imported == seen else mode
        slots: list[Slot] = []
        keys: list[_Key] = []  # (case, attempt) of each slot, for repeat detection
        for case in suite.cases:
            mine = by_case.pop(case.id, None)
            if mine is None:
                mine = slot(evaluate_case(case, None, mode=missing_mode))
            for s in mine if isinstance(mine, list) else (mine,):
                slots.append(s)
                if repeated:
                    keys.append(_Key(case.id, s.attempt_id))
        held = [(i, s) for i, s in enumerate(slots) if isinstance(s, CaseResult)]
        if held:  # failures, diagnosed and given their team
            records = [r for _, r in held]
            if diagnosis is not None:
                records = _diagnose(suite, records, attempts, diagnosis())
            if owners:
                from codegold.owners import assign_teams

                records = assign_teams(records, suite, owners)
            for (i, _), record in zip(held, records, strict=True):
                slots[i] = record
        flags, repeats = repeat_flags(keys, _Again(attempts)) if repeated else ({}, {})
        rows: dict[int, int] = {}  # slot -> tally row, of spooled records flagged again
        for i, s in enumerate(slots):
            flag = flags.get(s.attempt_id) if s.attempt_id is not None else None
            if flag is None:
                continue
            if isinstance(s, Spooled):
                rows[i] = s.index
                s = spool.load(s)
            slots[i] = msgspec.structs.replace(s, nondeterministic=flag)
        digest = attempts_digest() if attempts_digest is not None else None
        identity = run_identity(suite, ledger, attempts_digest=digest)
        chosen = selection.to_dict() if selection is not None else None
        identity = {**identity, "selection": chosen, **repeats}

        def encoded() -> Iterator[bytes]:
            for i, s in enumerate(slots):
                if isinstance(s, Spooled):
                    yield spool.read(s)
                    continue
                if i in rows:  # spooled, then flagged: redacted and counted already
                    tally.update(rows[i], s)
                    yield encode_compact(s)
                    continue
                final = redact_record(s)[0]
                tally.add(final)
                yield encode_compact(final)

        path = out_dir / RESULTS
        offsets, lengths = write_encoded_array_atomic(path, encoded())
    summary = tally.summary(identity)
    write_json_atomic(out_dir / SUMMARY, summary)
    return summary, WrittenRecords(path, offsets, lengths)
