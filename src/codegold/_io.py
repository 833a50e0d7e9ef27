"""Atomic, deterministic file output."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

import msgspec

_encoder = msgspec.json.Encoder(order="deterministic")


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# mkstemp creates 0600 files; artifacts are meant to be read by others (CI uploads)
_FILE_MODE = 0o666 & ~_current_umask()


@contextmanager
def open_atomic(path: str | Path) -> Iterator[BinaryIO]:
    """A binary handle on a temp file beside ``path``; renamed over it only on success."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def ensure_output_dir(path: str | Path, option: str = "--out") -> Path:
    """Create the output folder ``path`` (and its parents) and prove it writable.

    Raises :class:`~codegold.errors.EnvironmentProblem` (exit 3) with one line naming
    the option and the folder when it lies under a regular file, is a file, or cannot
    be written (a read-only folder or file system, no space left).
    """
    from codegold.errors import EnvironmentProblem

    folder = Path(path)

    def refuse(why: str) -> EnvironmentProblem:
        return EnvironmentProblem(f"{option} {folder}: {why}")

    if folder.exists() and not folder.is_dir():
        raise refuse("is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        blocker = next((p for p in folder.parents if p.exists() and not p.is_dir()), None)
        raise refuse(
            f"lies under {blocker}, which is a regular file" if blocker else "is not a folder"
        ) from None
    except OSError as exc:
        raise refuse(f"cannot be created ({exc.strerror})") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=".codegold-probe.", suffix=".tmp", dir=folder)
    except OSError as exc:
        why = "is read-only" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else ""
        raise refuse(why or f"cannot be written ({exc.strerror})") from None
    os.close(fd)
    os.unlink(probe)
    return folder


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
