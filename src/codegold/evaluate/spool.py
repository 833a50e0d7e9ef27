"""Ranked lists kept on disk, not in memory, until results.json is written (an
evaluation's memory then does not grow with its cases).

A record whose ranked list is not read again before it is written (a passing record is
never diagnosed; without diagnosis no record is) hands that list's JSON to the spool, a
temporary file, and stays with :data:`STASHED` in its place. :meth:`RankedSpool.encode`
puts the bytes back when the record is written: the same bytes the whole record would
have encoded to, because a compact JSON value encodes the same wherever it is nested.
Records must come back in the order they were stashed (every step between keeps it).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from typing import IO

import msgspec

from codegold.evaluate.records import CaseResult, RankedEntry

STASHED: list[RankedEntry] = []
"""The ranked list of a stashed record: this very (empty, never filled) list."""

_EMPTY = b'"ranked":[]'
_KEY = len(b'"ranked":')


class RankedSpool:
    """Stash records' ranked lists in order; give them back in the same order."""

    def __init__(self, encoder: msgspec.json.Encoder, *, failed_too: bool = False) -> None:
        self._encoder = encoder
        self._failed_too = failed_too
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="codegold-ranked-")  # noqa: SIM115 (closed by close)
        self._entries: list[tuple[str, int, int]] = []
        self._size = 0
        self._next = 0

    def __len__(self) -> int:
        return len(self._entries)

    def stash(self, record: CaseResult) -> CaseResult:
        """``record`` with its ranked list kept here (a passing record, or any record
        with ``failed_too``), else ``record`` itself."""
        if not record.ranked or not (record.passed or self._failed_too):
            return record
        data = self._encoder.encode(record.ranked)
        self._file.write(data)
        self._entries.append((record.case_id, self._size, len(data)))
        self._size += len(data)
        return msgspec.structs.replace(record, ranked=STASHED)

    def encode(self, record: CaseResult) -> bytes:
        """The JSON of ``record`` with its stashed ranked list back in place."""
        data = self._encoder.encode(record)
        if record.ranked is not STASHED:
            return data
        at = data.index(_EMPTY)  # the first: only strings and string lists come before
        return data[: at + _KEY] + self._take(record) + data[at + len(_EMPTY) :]

    def restored(
        self, records: Sequence[CaseResult], want: Callable[[CaseResult], bool]
    ) -> list[CaseResult]:
        """``records`` with the ranked lists of those ``want`` picks read back (the
        others stay as they are); starts again from the first stashed record."""
        self._next = 0
        out: list[CaseResult] = []
        for record in records:
            if record.ranked is STASHED:
                data = self._take(record)
                if want(record):
                    ranked = msgspec.json.decode(data, type=list[RankedEntry])
                    record = msgspec.structs.replace(record, ranked=ranked)
            out.append(record)
        self._next = 0
        return out

    def _take(self, record: CaseResult) -> bytes:
        case_id, offset, length = self._entries[self._next]
        if case_id != record.case_id:  # pragma: no cover - an ordering bug, not input
            raise RuntimeError(f"ranked spool out of order: {case_id} != {record.case_id}")
        self._next += 1
        self._file.flush()
        self._file.seek(offset)
        return self._file.read(length)

    def close(self) -> None:
        self._file.close()
