"""Atomic, deterministic file output."""

from __future__ import annotations

import os
from array import array
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

_encoder = msgspec.json.Encoder(order="deterministic")


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates 0600 files; artifacts are meant to be read by others (CI uploads)
FILE_MODE = 0o666 & ~_current_umask()


@contextmanager
def open_atomic(path: str | Path) -> Iterator[BinaryIO]:
    """A binary handle on a temp file beside ``path``; renamed over it only on success."""
    target = Path(path)
    import tempfile  # (shutil, random and the compressors with it: not at start-up)

    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def ensure_output_dir(path: str | Path, option: str = "--out") -> Path:
    """Check, before any work, that the output folder ``path`` can be written.

    Nothing is created: a command that then fails on bad input leaves no folder
    behind. Raises :class:`~codegold.errors.EnvironmentProblem` (exit 3) with one line
    naming the option and the folder when it is a file, lies under a regular file, or
    it (or the folder it would be created in) is read-only.
    """
    from codegold.errors import EnvironmentProblem

    folder = Path(path)

    def refuse(why: str) -> EnvironmentProblem:
        return EnvironmentProblem(f"{option} {folder}: {why}")

    existing = folder
    while not existing.exists():
        if existing.is_symlink():
            raise refuse(f"{existing} is a dangling symbolic link")
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        if existing == folder:
            raise refuse("is a file, not a folder")
        raise refuse(f"lies under {existing}, which is a regular file")
    access = {"effective_ids": True} if os.access in os.supports_effective_ids else {}
    if not os.access(existing, os.W_OK | os.X_OK, **access):
        where = (
            "is read-only" if existing == folder else f"cannot be created: {existing} is read-only"
        )
        raise refuse(where)
    return folder


@contextmanager
def quiet_gc() -> Iterator[None]:
    """The cyclic garbage collector off for a hot loop that makes few cycles (decoding
    and scoring attempts), and what is alive already (the suite, imported modules)
    frozen out of its later scans: otherwise it rescans every live record again and
    again as they pile up. Restored on the way out, whatever happens."""
    import gc

    was_enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def write_bytes_atomic(path: str | Path, data: bytes) -> None:
    """Write to a temp file in the same folder, fsync, then rename over ``path``."""
    with open_atomic(path) as handle:
        handle.write(data)


def write_json_array_atomic(path: str | Path, values: Iterable[Any]) -> None:
    """A JSON array written element by element, one per line, never whole in memory."""
    with open_atomic(path) as handle:
        handle.write(b"[")
        for i, value in enumerate(values):
            handle.write(b"\n" if i == 0 else b",\n")
            handle.write(_encoder.encode(value))
        handle.write(b"\n]\n")


@dataclass(frozen=True, slots=True)
class EncodedRun:
    """Elements of an array already encoded and laid out in an open file as
    :func:`write_encoded_array_atomic` writes them after its first: each one preceded
    by a separator of two bytes (``,\\n``; ``[\\n`` before the first element of a
    file that is the array's beginning). ``size`` bytes from ``offset`` of ``fd``, the
    first separator included; ``lengths`` of the elements (without their separators)."""

    fd: int
    offset: int
    size: int
    lengths: array[int]


def write_encoded_array_atomic(
    path: str | Path, encoded: Iterable[bytes | EncodedRun]
) -> tuple[array[int], array[int]]:
    """:func:`write_json_array_atomic` of values already encoded (with
    :func:`encode_compact`), one by one or in runs another file holds (copied file to
    file by the kernel, never read into this process): the same bytes. Returns where
    each element landed in the file (offsets and lengths), to read one back without
    the rest."""
    offsets: array[int] = array("q")
    lengths: array[int] = array("q")
    with open_atomic(path) as handle:
        handle.write(b"[")
        append_encoded(handle, encoded, 1, offsets, lengths)
    return offsets, lengths


def append_encoded(
    handle: BinaryIO,
    encoded: Iterable[bytes | EncodedRun],
    at: int,
    offsets: array[int],
    lengths: array[int],
) -> None:
    """Write the elements ``encoded`` after the ``at`` bytes of an array's beginning
    that ``handle`` holds (``[`` and the elements whose places ``offsets`` and
    ``lengths`` already hold), then the array's end; their places are appended."""
    first = not lengths
    for item in encoded:
        sep = b"\n" if first else b",\n"
        handle.write(sep)
        if isinstance(item, bytes):
            handle.write(item)
            offsets.append(at + len(sep))
            lengths.append(len(item))
            at += len(sep) + len(item)
            first = False
            continue
        # the run's first separator is this one: its elements follow it as they lie
        handle.flush()
        copy_range(item.fd, handle.fileno(), item.offset + 2, item.size - 2)
        for length in item.lengths:
            sep_size = 1 if first else 2
            offsets.append(at + sep_size)
            lengths.append(length)
            at += sep_size + length
            first = False
    handle.write(b"\n]\n")


def copy_range(source: int, target: int, offset: int, size: int) -> None:
    """Append ``size`` bytes from ``offset`` of the file ``source`` at the position of
    the file ``target``: by the kernel (copy_file_range) where it can, else read and
    written in blocks."""
    copy = getattr(os, "copy_file_range", None)
    while size > 0:
        done = 0
        if copy is not None:
            try:
                done = copy(source, target, size, offset)
            except OSError:  # another file system, an old kernel: blocks
                copy = None
        if done <= 0:
            block = os.pread(source, min(size, 1 << 20), offset)
            if not block:
                raise OSError(f"short copy: {size} bytes missing at {offset}")
            view = memoryview(block)
            while view:
                view = view[os.write(target, view) :]
            done = len(block)
        offset += done
        size -= done


def encode_compact(value: Any) -> bytes:
    """One value as an artifact's array holds it: compact, deterministic JSON."""
    return _encoder.encode(value)


def write_text_atomic(path: str | Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def encode_json(value: Any, *, pretty: bool = True) -> bytes:
    """Deterministic JSON: sorted dict keys, struct fields in declaration order."""
    raw = _encoder.encode(value)
    if pretty:
        raw = msgspec.json.format(raw, indent=2)
    return raw + b"\n"


def write_json_atomic(path: str | Path, value: Any, *, pretty: bool = True) -> None:
    write_bytes_atomic(path, encode_json(value, pretty=pretty))


def write_jsonl_atomic(path: str | Path, values: list[Any]) -> None:
    write_bytes_atomic(path, b"".join(_encoder.encode(v) + b"\n" for v in values))
