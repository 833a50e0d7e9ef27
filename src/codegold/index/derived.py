"""Derived files of a build: what a search works out from a verified file of the build
and keeps beside it for the next process (the row ends of ``chunks.msgpack``, a sorted
term list for the BM25 vocabulary).

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
from pathlib import Path

from codegold._io import write_bytes_atomic

_HEAD = b"codegold derived 1 "


def read_derived(path: Path, source_sha256: str | None) -> memoryview | None:
    """The payload of ``path`` (memory-mapped, read-only) if it was derived from the
    file whose (verified) SHA-256 is ``source_sha256``; None otherwise."""
    if source_sha256 is None:
        return None
    head = _HEAD + source_sha256.encode() + b"\n"
    try:
        with path.open("rb") as handle:
            if os.fstat(handle.fileno()).st_size < len(head):
                return None
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError:
        return None
    if data[: len(head)] != head:
        return None
    return memoryview(data)[len(head) :]


def write_derived(path: Path, source_sha256: str | None, payload: bytes) -> None:
    """Keep ``payload``, derived from the file whose SHA-256 is ``source_sha256``, for
    the next process; a folder that cannot be written is left alone."""
    if source_sha256 is not None:
        with contextlib.suppress(OSError):
            write_bytes_atomic(path, _HEAD + source_sha256.encode() + b"\n" + payload)
