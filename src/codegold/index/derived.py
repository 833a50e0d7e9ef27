"""Derived files of a build: what a search works out from a verified file of the build
and keeps beside it for the next process (the row ends of ``chunks.msgpack``, the BM25
vocabulary and the symbol maps in byte order, a large chunk table lowercased for phrase
search).

They are not listed in the manifest (they are written after it, by whoever opened the
build first). Each is headed by the SHA-256 of the file it was derived from, as the
manifest records it, and is used only while that file is unchanged; one that is
absent, unreadable or from other bytes is derived again. A build whose folder cannot
be written derives them in every process.
"""

from __future__ import annotations

import contextlib
import mmap
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from codegold._io import write_bytes_atomic

_HEAD = b"codegold derived 2 "


def _head(source_sha256: str) -> bytes:
    """The first 96 bytes of a derived file (so its payload's arrays are aligned)."""
    return (_HEAD + source_sha256.encode()).ljust(95) + b"\n"


def read_derived_map(path: Path, source_sha256: str | None) -> tuple[mmap.mmap, int] | None:
    """``path`` memory-mapped, read-only, and where its payload starts, if it was
    derived from the file whose (verified) SHA-256 is ``source_sha256``; else None."""
    if source_sha256 is None:
        return None
    head = _head(source_sha256)
    try:
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_size < len(head):
                return None
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError:
        return None
    if data[: len(head)] != head:
        return None
    return data, len(head)


def read_derived(path: Path, source_sha256: str | None) -> memoryview | None:
    """The payload of ``path`` (memory-mapped, read-only) if it was derived from the
    file whose (verified) SHA-256 is ``source_sha256``; None otherwise."""
    found = read_derived_map(path, source_sha256)
    return None if found is None else memoryview(found[0])[found[1] :]


def write_derived(path: Path, source_sha256: str | None, payload: bytes) -> None:
    """Keep ``payload``, derived from the file whose SHA-256 is ``source_sha256``, for
    the next process; a folder that cannot be written is left alone."""
    if source_sha256 is not None:
        with contextlib.suppress(OSError):
            write_bytes_atomic(path, _head(source_sha256) + payload)


class SortedKeys:
    """Key -> list of ints by binary search over keys in byte order, read in place from
    a derived payload: ``n`` (int64), where each key ends in the key text (int64 x n),
    where each key's values end (int64 x n), the values (int32), then the key text."""

    def __init__(self, payload: memoryview) -> None:
        if len(payload) < 8:
            raise ValueError("sorted keys too short")
        (n,) = payload[:8].cast("q")
        if not 0 <= n <= (len(payload) - 8) // 16:
            raise ValueError("sorted keys do not hold their count")
        self.n = int(n)
        self._key_ends = payload[8 : 8 + 8 * self.n].cast("q")
        self._value_ends = payload[8 + 8 * self.n : 8 + 16 * self.n].cast("q")
        n_values = self._value_ends[self.n - 1] if self.n else 0
        start = 8 + 16 * self.n
        if not 0 <= 4 * n_values <= len(payload) - start:
            raise ValueError("sorted keys do not hold their values")
        self._values = payload[start : start + 4 * n_values].cast("i")
        self._text = payload[start + 4 * n_values :]
        if self.n and self._key_ends[self.n - 1] != len(self._text):
            raise ValueError("sorted keys do not frame their text")

    @classmethod
    def kept(
        cls,
        path: Path | None,
        source_sha256: str | None,
        items: Callable[[], dict[bytes, list[int]]],
        count: int | None = None,
    ) -> SortedKeys:
        """The sorted keys kept at ``path``, if they were derived from the file whose
        (verified) SHA-256 is ``source_sha256`` and hold ``count`` keys (when given);
        else derived from ``items()`` and kept there for the next process."""
        payload = read_derived(path, source_sha256) if path is not None else None
        if payload is not None:
            with contextlib.suppress(ValueError):
                found = cls(payload)
                if count is None or found.n == count:
                    return found
        made = cls.derive(items())
        if path is not None:
            write_derived(path, source_sha256, made)
        return cls(memoryview(made))

    @staticmethod
    def derive(items: dict[bytes, list[int]]) -> bytes:
        """The payload for ``items`` (keys in byte order; values as given)."""
        keys = sorted(items)
        key_ends = np.cumsum([len(k) for k in keys], dtype=np.int64)
        value_ends = np.cumsum([len(items[k]) for k in keys], dtype=np.int64)
        total = int(value_ends[-1]) if keys else 0
        values = np.fromiter((v for k in keys for v in items[k]), dtype="<i4", count=total)
        return b"".join(
            [
                np.int64(len(keys)).tobytes(),
                key_ends.astype("<i8").tobytes(),
                value_ends.astype("<i8").tobytes(),
                values.tobytes(),
                b"".join(keys),
            ]
        )

    def find(self, key: bytes) -> list[int] | None:
        """The values of ``key``; None when it is not a key."""
        ends, text = self._key_ends, self._text
        lo, hi = 0, self.n
        while lo < hi:
            mid = (lo + hi) // 2
            probe = bytes(text[ends[mid - 1] if mid else 0 : ends[mid]])
            if probe < key:
                lo = mid + 1
            elif probe > key:
                hi = mid
            else:
                first = self._value_ends[mid - 1] if mid else 0
                return self._values[first : self._value_ends[mid]].tolist()
        return None
