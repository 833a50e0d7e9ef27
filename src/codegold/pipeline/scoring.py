"""The one scoring path of `run` and `eval`: evaluate, diagnose failures, flag repeated
attempts, stamp the run identity, write the artifacts."""

from __future__ import annotations

import os
import pickle
import signal
import tempfile
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import msgspec

from codegold._io import (
    EncodedRun,
    write_json_atomic,
    write_jsonl_atomic,
)
from codegold.attempts import Attempt, iter_attempts
from codegold.cases.selection import Selection
from codegold.cases.suite import ResolvedCase, Suite
from codegold.evaluate.evaluator import evaluate_case
from codegold.evaluate.records import RESULTS, CaseResult
from codegold.evaluate.repeat import check_repeats, repeat_flags
from codegold.evaluate.run import evaluate_attempts
from codegold.evaluate.spool import (
    SEPARATOR,
    RecordSpool,
    Spooled,
    WrittenRecords,
    spool_file,
)
from codegold.evaluate.summary import Tally, TallyColumns
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


@dataclass(frozen=True)
class SplitSource:
    """A recorded attempts file :func:`stream_run` may score in two processes: this one
    reads the first half of its lines while a forked worker reads the second, then the
    worker's records join this one's as if one process had read every line in order
    (the same records, tally, run identity and errors)."""

    path: Path
    known: frozenset[str]
    """the suite's case ids (an attempt for another case is an error)"""
    assume_revision: str | None = None
    workers: int = 0
    """0: two when this process may run on two cores and the machine has one to spare
    (its 1-minute load average is below the cores less a half), else one; 1: never
    split; 2 or more: split"""

    def middle(self) -> int | None:
        """The first byte of the second half's first line, or None to read it all here
        (one worker, no core to spare, or a file too small to be worth a process)."""
        workers = (self.workers or _spare_workers()) if hasattr(os, "fork") else 1
        try:
            size = self.path.stat().st_size
        except OSError:
            return None
        if workers < 2 or size < SPLIT_MIN_BYTES:
            return None
        with self.path.open("rb") as handle:
            handle.seek(size // 2)
            middle = size // 2 + len(handle.readline())
        return middle if middle < size else None

    def read(
        self, span: tuple[int, int, int] | None = None, seen: set[str] | None = None
    ) -> Iterator[Attempt]:
        """The attempts of the file (of ``span``, as :func:`iter_attempts` reads it),
        read straight into their records' layout where they fit (scored once, by
        :func:`stream_run`, they are not kept)."""
        from codegold.evaluate.scored import ScoringDecoder

        return iter_attempts(
            self.path,
            known_cases=self.known,
            assume_revision=self.assume_revision,
            span=span,
            seen=seen,
            decode=ScoringDecoder(),
        )


def _spare_workers() -> int:
    """Two when a second process would get a core of its own, else one: on a machine
    whose cores are busy, a worker only competes with the parent for them. Where a
    process cannot fork (Windows) or say its load, one."""
    if not hasattr(os, "fork") or not hasattr(os, "getloadavg"):
        return 1
    affinity = getattr(os, "sched_getaffinity", None)  # Linux; macOS has only cpu_count
    cores = len(affinity(0)) if affinity is not None else (os.cpu_count() or 1)
    return 2 if cores >= 2 and os.getloadavg()[0] < cores - 0.5 else 1


SPLIT_MIN_BYTES = 8 << 20
"""Below this an attempts file is read by one process: a worker would cost more than
it saves."""


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
    split: SplitSource | None = None,
) -> tuple[dict[str, Any], WrittenRecords]:
    """:func:`score` then :func:`write_run`, holding in memory only the records that
    may still change: a record no later step touches (a passing one; any one when
    nothing diagnoses and no owners table assigns teams) is redacted, counted into the
    summary and encoded as soon as it is scored, and its bytes wait in a
    :class:`~codegold.evaluate.spool.RecordSpool`. Attempts may come in any order;
    results.json and summary.json are byte for byte what :func:`score` and
    :func:`write_run` write. ``split`` (the file ``attempts`` reads) lets two processes
    score it when nothing diagnoses and no owners table applies. Returns the summary
    and the written records (read back from results.json when asked for)."""
    from codegold._io import encode_compact
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
    path = out_dir / RESULTS
    with closing(RecordSpool(path)) as spool:
        arrivals = _Arrivals(cases, mode, slot)
        middle = split.middle() if split is not None and not held_failures else None
        if split is not None and middle is not None:
            if attempts_digest is not None:
                # the digest thread is done before the fork (a process that forks
                # while a thread runs may deadlock in the child; Python 3.12 warns):
                # it hashes while the suite loads, so this rarely waits. A failure
                # is raised where it was, once the attempts are read.
                with suppress(Exception):
                    attempts_digest()
            _score_halves(split, middle, arrivals, ledger, tally, spool)
        else:
            # the split source reads the same attempts, straight into their records'
            # layout, when nothing keeps them for later
            read = split.read if split is not None and not held_failures else attempts
            for attempt in ledger.watch(read()):
                arrivals.add(attempt)
        by_case, repeated = arrivals.by_case, arrivals.repeated
        seen, imported = arrivals.seen, arrivals.imported
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

        def encoded() -> Iterator[bytes | EncodedRun]:
            run = count = 0  # the run of spooled records in a row being gathered
            for i, s in enumerate(slots):
                if isinstance(s, Spooled):
                    if count and s.index == run + count and spool.continues(s.index):
                        count += 1
                        continue
                    if count:
                        yield spool.run(run, count)
                    run, count = s.index, 1
                    continue
                if count:
                    yield spool.run(run, count)
                    count = 0
                if i in rows:  # spooled, then flagged: redacted and counted already
                    tally.update(rows[i], s)
                    yield encode_compact(s)
                    continue
                final = redact_record(s)[0]
                tally.add(final)
                yield encode_compact(final)
            if count:
                yield spool.run(run, count)

        offsets, lengths = spool.write(path, encoded())
        summary = tally.summary(identity)  # while results.json is synced to disk
        spool.finish()
    write_json_atomic(out_dir / SUMMARY, summary)
    return summary, WrittenRecords(path, offsets, lengths)


class _Arrivals:
    """The slots of a streamed run's cases as their attempts arrive (a case's slot, or
    its slots when it has several attempts: rare, no list else), and what the run
    counts of its attempts besides."""

    def __init__(
        self, cases: dict[str, ResolvedCase], mode: str, slot: Callable[[CaseResult], Slot]
    ) -> None:
        self.cases = cases
        self.mode = mode
        self.slot = slot
        self.by_case: dict[str, Slot | list[Slot]] = {}
        self.repeated = False
        self.seen = 0
        self.imported = 0

    def add(self, attempt: Attempt) -> None:
        from codegold.evaluate.evaluator import evaluate_case

        self.seen += 1
        self.imported += attempt.mode == "imported"
        case = self.cases.get(attempt.case_id)
        if case is not None:
            self.place(case.id, self.slot(evaluate_case(case, attempt, mode=self.mode)))

    def place(self, case_id: str, new: Slot) -> None:
        prior = self.by_case.setdefault(case_id, new)
        if prior is not new:
            self.repeated = True
            if isinstance(prior, list):
                prior.append(new)
            else:
                self.by_case[case_id] = [prior, new]


@dataclass(frozen=True)
class _Part:
    """What a worker sends back of the lines it scored: its records' (case, attempt)
    ids and where their bytes lie in its file, its tally, what its attempts say of the
    run, and every attempt id it read (to find one the other half repeats)."""

    records: list[tuple[str, str | None]]
    offsets: array[int]
    lengths: array[int]
    tally: TallyColumns
    manifests: dict[str, Any]
    retrievers: set[str]
    attempt_ids: list[str]
    seen: int
    imported: int


def _score_halves(
    split: SplitSource,
    middle: int,
    arrivals: _Arrivals,
    ledger: AttemptLedger,
    tally: Tally,
    spool: RecordSpool,
) -> None:
    """Score the lines before ``middle`` here while a forked worker scores the rest,
    then take in the worker's records after these. When the worker fails (bad input:
    it stops at the first bad line), or its half repeats an attempt id of this half,
    its half is read here after this one, exactly as one process reads the file: the
    same records, and the same error at the same line."""
    seen_ids: set[str] = set()

    def read_here(start: int, end: int, first_line: int) -> None:
        for attempt in ledger.watch(split.read((start, end, first_line), seen_ids)):
            arrivals.add(attempt)

    size = split.path.stat().st_size
    worker = _Worker.start(split, middle, size, arrivals.cases, arrivals.mode)
    try:
        read_here(0, middle, 1)
        part = worker.result() if worker is not None else None
        if part is None or not seen_ids.isdisjoint(part.attempt_ids):
            read_here(middle, size, _line_number(split.path, middle))
            return
        assert worker is not None
        for build_id, manifest in part.manifests.items():
            ledger.manifests.setdefault(build_id, manifest)
        ledger.retrievers |= part.retrievers
        tally.extend(part.tally)
        first = spool.adopt(worker.take_records(), part.offsets, part.lengths)
        for i, (case_id, attempt_id) in enumerate(part.records):
            arrivals.place(case_id, Spooled(attempt_id, first + i))
        arrivals.seen += part.seen
        arrivals.imported += part.imported
        del part  # what it held is the parent's now
    finally:
        if worker is not None:
            worker.stop()


class _Worker:
    """A forked process scoring the lines from ``middle`` to the end of the file: its
    records go to a temporary file the parent opened, its :class:`_Part` (pickled) to
    another; it exits 0 only when both are whole."""

    def __init__(self, pid: int, records: IO[bytes], result: IO[bytes]) -> None:
        self.pid: int | None = pid
        self._records: IO[bytes] | None = records
        self._result = result

    @classmethod
    def start(
        cls,
        split: SplitSource,
        middle: int,
        size: int,
        cases: dict[str, ResolvedCase],
        mode: str,
    ) -> _Worker | None:
        records = spool_file()  # closed by stop, or by the spool that adopts it
        result = tempfile.TemporaryFile(prefix="codegold-part-")  # noqa: SIM115 (closed by stop)
        try:
            pid = os.fork()
        except OSError:  # no process to spare: one reads it all
            records.close()
            result.close()
            return None
        if pid == 0:  # the worker
            code = 1
            try:
                part = _score_span(split, middle, size, cases, mode, records)
                records.flush()
                pickle.dump(part, result, protocol=pickle.HIGHEST_PROTOCOL)
                result.flush()
                code = 0
            finally:
                os._exit(code)
        return cls(pid, records, result)

    def result(self) -> _Part | None:
        """The worker's part once it exits, or None when it failed."""
        assert self.pid is not None
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        if os.waitstatus_to_exitcode(status) != 0:
            return None
        self._result.seek(0)
        try:
            part = pickle.load(self._result)
        except Exception:  # a torn part: read that half here
            return None
        return part if isinstance(part, _Part) else None

    def take_records(self) -> IO[bytes]:
        """The file of the worker's records, now the caller's to close."""
        records, self._records = self._records, None
        assert records is not None
        return records

    def stop(self) -> None:
        """Kill the worker if it still runs (this process failed first), reap it and
        close its files."""
        if self.pid is not None:
            with suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = None
        if self._records is not None:
            self._records.close()
            self._records = None
        self._result.close()


def _score_span(
    split: SplitSource,
    middle: int,
    size: int,
    cases: dict[str, ResolvedCase],
    mode: str,
    out: IO[bytes],
) -> _Part:
    """In the worker: score the lines from ``middle`` to ``size``, as the parent's
    ``slot`` would (redacted, counted, encoded), the bytes appended to ``out``."""
    from codegold._io import encode_compact
    from codegold.evaluate.evaluator import evaluate_case
    from codegold.evaluate.summary import Tally
    from codegold.redact import redact_record

    ledger = AttemptLedger()
    tally = Tally()
    offsets: array[int] = array("q")
    lengths: array[int] = array("q")
    records: list[tuple[str, str | None]] = []
    attempt_ids: list[str] = []
    at = seen = imported = 0
    for attempt in ledger.watch(split.read((middle, size, 1))):
        attempt_ids.append(attempt.attempt_id)
        seen += 1
        imported += attempt.mode == "imported"
        case = cases.get(attempt.case_id)
        if case is None:
            continue
        final = redact_record(evaluate_case(case, attempt, mode=mode))[0]
        tally.add(final)
        data = encode_compact(final)
        out.write(SEPARATOR)
        out.write(data)
        offsets.append(at + 2)
        lengths.append(len(data))
        at += 2 + len(data)
        records.append((case.id, final.attempt_id))
    return _Part(
        records=records,
        offsets=offsets,
        lengths=lengths,
        tally=tally.columns(),
        manifests=ledger.manifests,
        retrievers=ledger.retrievers,
        attempt_ids=attempt_ids,
        seen=seen,
        imported=imported,
    )


def _line_number(path: Path, offset: int) -> int:
    """The number of the line starting at byte ``offset`` of ``path``."""
    lines = 1
    with path.open("rb") as handle:
        left = offset
        while left > 0:
            block = handle.read(min(left, 1 << 20))
            if not block:
                break
            lines += block.count(b"\n")
            left -= len(block)
    return lines
