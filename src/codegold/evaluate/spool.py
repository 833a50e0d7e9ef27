"""Records kept on disk, not in memory, from the moment they are final until
results.json is written, so an evaluation's memory does not grow with its records.

A record nothing will change any more (a passing record is never diagnosed; without
diagnosis or an owners table no record is) is encoded at once, as results.json will
hold it, and its bytes go to a temporary file; what stays in memory is a
:class:`Spooled` ticket: the record's attempt id and where its bytes are.
Tickets are looked up by position, never by arrival order, so attempts may come in
any order (imported traces come in trace order) and results.json is still written in
suite order. :class:`WrittenRecords` then reads records back from results.json one
at a time, for whoever wants them after the run.
"""

from __future__ import annotations

import os
import tempfile
import threading
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import IO, BinaryIO, cast, overload

import msgspec

from codegold._io import FILE_MODE, EncodedRun, append_encoded, write_encoded_array_atomic
from codegold.evaluate.records import CaseResult

SYNC_AHEAD_BYTES = 32 << 20
"""Every this many bytes of records written to results.json's own file, the part
written so far starts going to disk on a thread, so that the fsync before the
rename waits only for the tail (instead of the whole file once every record is in)."""

SEPARATOR = b",\n"
"""What comes before each record in a spool: its separator in results.json's array, so
that a run of records is copied there whole."""


class Spooled:
    """A final record whose bytes wait in a :class:`RecordSpool`: its attempt id and
    its place in the spool (which is also its row in the run's summary tally, both
    being filled in the same order)."""

    __slots__ = ("attempt_id", "index")

    def __init__(self, attempt_id: str | None, index: int) -> None:
        self.attempt_id = attempt_id
        self.index = index


def spool_file() -> IO[bytes]:
    """An anonymous temporary file for encoded records, written through a buffer that
    holds many of them (a record is ~15 KB; the default 8 KB buffer writes each one
    by itself, its separator by another call)."""
    return tempfile.TemporaryFile(prefix="codegold-records-", buffering=1 << 20)


class RecordSpool:
    """An append-only temporary file of encoded records, read back by ticket; records
    another process encoded into a file of its own join it with :meth:`adopt`.

    Given the ``target`` path of results.json, the spool's file is results.json's own
    temporary file beside it (``[`` first, each record after its separator): when the
    records come in suite order, as they usually do, :meth:`write` ends the array in
    that file and renames it, instead of copying every record into another."""

    def __init__(self, target: Path | None = None) -> None:
        self._results = _ResultsFile(target) if target is not None else None
        self._file: IO[bytes] = self._results.handle if self._results is not None else spool_file()
        self._size = 0
        self._offsets: array[int] = array("q")
        self._lengths: array[int] = array("q")
        self._dirty = False
        self._sync_at = SYNC_AHEAD_BYTES
        self._firsts: list[int] = [0]
        self._files: list[IO[bytes]] = [self._file]
        """the first index of each run of records that lie in one file, and that file"""

    def __len__(self) -> int:
        return len(self._lengths)

    def put(self, attempt_id: str | None, data: bytes) -> Spooled:
        """Keep ``data`` (a record, encoded); the ticket to it."""
        index = len(self._lengths)
        if self._files[-1] is not self._file:  # after an adopted run
            self._firsts.append(index)
            self._files.append(self._file)
        # two bytes before each record: "[\n" at the start of results.json's own file
        own = self._size == 0 and self._results is not None
        self._file.write(b"[\n" if own else SEPARATOR)
        self._file.write(data)
        self._offsets.append(self._size + 2)
        self._lengths.append(len(data))
        self._size += 2 + len(data)
        self._dirty = True
        if self._size >= self._sync_at and self._results is not None:
            self._sync_at = self._size + SYNC_AHEAD_BYTES
            self._results.sync_ahead()
        return Spooled(attempt_id, index)

    def adopt(self, file: IO[bytes], offsets: array[int], lengths: array[int]) -> int:
        """Take in the records another writer left in ``file`` (where each one is, each
        after a :data:`SEPARATOR`); the index of the first. The spool closes ``file``."""
        first = len(self._lengths)
        self._firsts.append(first)
        self._files.append(file)
        self._offsets.extend(offsets)
        self._lengths.extend(lengths)
        return first

    def read(self, ticket: Spooled) -> bytes:
        if self._dirty:
            self._file.flush()
            self._dirty = False
        index = ticket.index
        file = self._files[bisect_right(self._firsts, index) - 1]
        return os.pread(file.fileno(), self._lengths[index], self._offsets[index])

    def continues(self, index: int) -> bool:
        """Whether the record at ``index`` lies right after the one before it."""
        return index > 0 and index not in self._firsts

    def run(self, first: int, count: int) -> EncodedRun:
        """The ``count`` records from ``first`` (each after the one before it), as
        results.json's array lays them out."""
        if self._dirty:
            self._file.flush()
            self._dirty = False
        file = self._files[bisect_right(self._firsts, first) - 1]
        last = first + count - 1
        start = self._offsets[first] - 2
        end = self._offsets[last] + self._lengths[last]
        return EncodedRun(file.fileno(), start, end - start, self._lengths[first : last + 1])

    def write(
        self, path: Path, encoded: Iterable[bytes | EncodedRun]
    ) -> tuple[array[int], array[int]]:
        """Write the JSON array of ``encoded`` (records, and runs of this spool) to
        ``path`` atomically (:func:`~codegold._io.write_encoded_array_atomic`'s bytes);
        where each element landed. When the array begins with every record this
        spool's own file holds, in order, and that file is ``path``'s own, the rest is
        appended to it and it is renamed over ``path``: nothing is copied twice."""
        items = iter(encoded)
        head = next(items, None)
        results = self._results
        if (
            results is None
            or results.path != path
            or not self._size
            or not isinstance(head, EncodedRun)
            or head.fd != self._file.fileno()
            or head.offset != 0
            or head.size != self._size
        ):
            rest = items if head is None else chain((head,), items)
            return write_encoded_array_atomic(path, rest)
        count = len(head.lengths)
        offsets, lengths = self._offsets[:count], self._lengths[:count]
        self._file.seek(0, os.SEEK_END)
        append_encoded(cast(BinaryIO, self._file), items, self._size, offsets, lengths)
        results.sync()
        return offsets, lengths

    def finish(self) -> None:
        """Rename the file :meth:`write` ended in place over its path, once it is on
        disk (its fsync runs on a thread meanwhile, while the summary is counted)."""
        if self._results is not None and self._results.syncing:
            self._results.commit()

    def load(self, ticket: Spooled) -> CaseResult:
        return msgspec.json.decode(self.read(ticket), type=CaseResult)

    def close(self) -> None:
        for file in {id(f): f for f in self._files}.values():
            file.close()
        if self._results is not None:
            self._results.discard()


class _ResultsFile:
    """results.json's temporary file beside it, created (with the folders it lies
    in) before any record is written; synced (:meth:`sync`, on a thread) and renamed
    over it by :meth:`commit`, or removed
    with the folders it created by :meth:`discard` (a run that fails leaves nothing
    behind)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        folder = path.parent
        self._created: list[Path] = []  # deepest first
        while not folder.exists():
            self._created.append(folder)
            folder = folder.parent
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        self._tmp: Path | None = Path(name)
        self.handle: IO[bytes] = os.fdopen(fd, "w+b", buffering=1 << 20)
        self._sync: threading.Thread | None = None
        self._ahead: threading.Thread | None = None
        self._sync_failed: list[OSError] = []

    @property
    def syncing(self) -> bool:
        return self._sync is not None

    def sync(self) -> None:
        """Flush the file and start its fsync on a thread (it releases the GIL)."""
        self._sync = self._fsync_thread()

    def sync_ahead(self) -> None:
        """Flush the file and start an fsync of what it holds so far on a thread,
        unless the one started before still runs: the bytes are then on their way to
        disk while more are written (:meth:`sync`'s fsync still covers every byte)."""
        if self._ahead is not None and self._ahead.is_alive():
            return
        self._ahead = self._fsync_thread()

    def _fsync_thread(self) -> threading.Thread:
        self.handle.flush()
        fd = self.handle.fileno()

        def work() -> None:
            try:
                os.fsync(fd)
            except OSError as exc:  # raised by commit
                self._sync_failed.append(exc)

        thread = threading.Thread(target=work, name="codegold-fsync", daemon=True)
        thread.start()
        return thread

    def _synced(self) -> None:
        """Wait for every fsync started (the file is closed after)."""
        if self._ahead is not None:
            self._ahead.join()
            self._ahead = None
        if self._sync is not None:
            self._sync.join()
            self._sync = None

    def commit(self) -> None:
        """Rename the file over its path once its fsync (:meth:`sync`) is done."""
        assert self._tmp is not None
        self._synced()
        if self._sync_failed:
            raise self._sync_failed[0]
        self.handle.close()
        os.chmod(self._tmp, FILE_MODE)
        os.replace(self._tmp, self.path)
        self._tmp = None
        self._created = []

    def discard(self) -> None:
        self._synced()
        self.handle.close()
        if self._tmp is not None:
            self._tmp.unlink(missing_ok=True)
            self._tmp = None
        for folder in self._created:
            try:
                folder.rmdir()
            except OSError:  # something else lies in it now
                break
        self._created = []


class WrittenRecords(Sequence[CaseResult]):
    """The records of a results.json just written, decoded one at a time when asked
    for (the whole file is never held in memory)."""

    def __init__(self, path: Path, offsets: array[int], lengths: array[int]) -> None:
        self.path = path
        self._offsets = offsets
        self._lengths = lengths

    def __len__(self) -> int:
        return len(self._offsets)

    @overload
    def __getitem__(self, index: int) -> CaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaseResult]: ...

    def __getitem__(self, index: int | slice) -> CaseResult | list[CaseResult]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        offset, length = self._offsets[index], self._lengths[index]
        with self.path.open("rb") as handle:
            data = os.pread(handle.fileno(), length, offset)
        return msgspec.json.decode(data, type=CaseResult)

    def __iter__(self) -> Iterator[CaseResult]:
        decoder = msgspec.json.Decoder(CaseResult)
        with self.path.open("rb") as handle:
            fd = handle.fileno()
            for offset, length in zip(self._offsets, self._lengths, strict=True):
                yield decoder.decode(os.pread(fd, length, offset))
