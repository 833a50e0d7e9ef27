"""A msgpack map of name -> list of row numbers, written from arrays.

The symbol table holds a few hundred thousand names and millions of rows; making a
Python list per name only for msgspec to encode it again cost most of its build.
:func:`encode_row_lists` writes the same bytes ``msgspec.msgpack.encode`` writes for
that dict, from the sorted names, each name's row count and the rows end to end.
:func:`array_header` and :func:`map_header` are the container headers msgspec writes,
for code that splices encoded items itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from codegold.index.strings import offsets

_U8 = np.uint8


def _write(
    values: npt.NDArray[np.int64], small_base: int, small: int, tags: tuple[int, int, int]
) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int64]]:
    """``values`` (non-negative, below 2**32) in msgpack's shortest form of one family:
    below ``small`` one byte ``small_base | v``; else ``tags`` (8-, 16-, 32-bit forms;
    an 8-bit tag of 0: that form does not exist). The bytes end to end, and each size."""
    has8 = tags[0] != 0
    sizes = np.where(
        values < small,
        1,
        np.where((values < 256) & has8, 2, np.where(values < 65536, 3, 5)),
    ).astype(np.int64)
    out = np.zeros(int(sizes.sum()), dtype=_U8)
    at = offsets(sizes)
    for size, tag in ((1, -1), (2, tags[0]), (3, tags[1]), (5, tags[2])):
        where = sizes == size
        if not where.any():
            continue
        v, s = values[where], at[where]
        if size == 1:
            out[s] = (v | small_base).astype(_U8)
            continue
        out[s] = tag
        for i in range(size - 1):
            out[s + 1 + i] = ((v >> (8 * (size - 2 - i))) & 0xFF).astype(_U8)
    return out, sizes


def _str_sizes(keys: Sequence[str]) -> npt.NDArray[np.int64]:
    """Each key's msgpack size: its UTF-8 bytes and its header (msgspec's shortest)."""
    if "".join(keys).isascii():
        lengths = np.fromiter(map(len, keys), dtype=np.int64, count=len(keys))
    else:
        lengths = np.fromiter(map(len, map(str.encode, keys)), dtype=np.int64, count=len(keys))
    header = np.where(lengths < 32, 1, np.where(lengths < 256, 2, np.where(lengths < 65536, 3, 5)))
    return lengths + header


def _container_header(n: int, fix: int, tag16: bytes, tag32: bytes) -> bytes:
    """The header of a msgpack array or map of ``n`` items, in msgspec's shortest form."""
    if n < 16:
        return bytes([fix | n])
    if n < 1 << 16:
        return tag16 + n.to_bytes(2, "big")
    return tag32 + n.to_bytes(4, "big")


def array_header(n: int) -> bytes:
    """The header msgspec writes for an array of ``n`` items."""
    return _container_header(n, 0x90, b"\xdc", b"\xdd")


def map_header(n: int) -> bytes:
    """The header msgspec writes for a map of ``n`` items."""
    return _container_header(n, 0x80, b"\xde", b"\xdf")


def encode_row_lists(
    keys: Sequence[str], counts: npt.NDArray[np.int64], rows: npt.NDArray[np.int32]
) -> bytes:
    """``msgspec.msgpack.encode(dict(zip(keys, lists)))`` where ``lists`` are ``rows``
    cut into runs of ``counts`` (rows non-negative, below 2**31)."""
    if not len(keys):
        return map_header(0)
    key_sizes = _str_sizes(keys)
    key_blob = msgspec.msgpack.encode(list(keys))
    key_blob = key_blob[len(key_blob) - int(key_sizes.sum()) :]  # its array header off
    headers, header_sizes = _write(counts.astype(np.int64), 0x90, 16, (0, 0xDC, 0xDD))
    ints, int_sizes = _write(rows.astype(np.int64), 0x00, 128, (0xCC, 0xCD, 0xCE))
    int_bytes = _run_sizes(int_sizes, counts)
    seg = key_sizes + header_sizes + int_bytes
    head = map_header(len(keys))
    start = offsets(seg) + len(head)
    out = np.empty(len(head) + int(seg.sum()), dtype=_U8)
    out[: len(head)] = np.frombuffer(head, dtype=_U8)
    for blob, sizes, shift in (
        (np.frombuffer(key_blob, dtype=_U8), key_sizes, start),
        (headers, header_sizes, start + key_sizes),
        (ints, int_bytes, start + key_sizes + header_sizes),
    ):
        dest = np.repeat(shift - offsets(sizes), sizes) + np.arange(blob.size, dtype=np.int64)
        out[dest] = blob
    return out.tobytes()


def _run_sizes(
    sizes: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """The sums of ``sizes`` over consecutive runs of ``counts`` items (runs may be empty)."""
    total = np.concatenate(([0], np.cumsum(sizes)))
    bounds = np.concatenate(([0], np.cumsum(counts)))
    out: npt.NDArray[np.int64] = total[bounds[1:]] - total[bounds[:-1]]
    return out
