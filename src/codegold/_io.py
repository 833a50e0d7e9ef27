"""Atomic, deterministic file output."""

from __future__ import annotations

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
