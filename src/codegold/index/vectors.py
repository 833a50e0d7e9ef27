"""Dense vectors on disk and exact nearest-neighbour search.

A build's vectors are one float32 matrix, one row per chunk, in ``vectors.npy``;
loading memory-maps it. Search is numpy brute force: exact, and about 10 ms per query
at 50k x 384 on one core, which is all a repository-sized index needs. Results are
ordered by score descending, then row ascending, so equal scores never reorder between
runs.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from codegold.errors import InputError

FloatMatrix = npt.NDArray[np.float32]


def save_vectors(path: str | Path, matrix: npt.ArrayLike) -> Path:
    """Write ``matrix`` as a 2-D float32 ``.npy`` file, atomically (temp file + rename)."""
    target = Path(path)
    array = np.ascontiguousarray(np.asarray(matrix, dtype=np.float32))
    if array.ndim != 2:
        raise InputError(f"vectors must be a 2-D matrix, got shape {array.shape}", file=str(target))
    target.parent.mkdir(parents=True, exist_ok=True)
    import tempfile  # (not at start-up: see codegold._io.open_atomic)

    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npy", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, array, allow_pickle=False)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load_vectors(path: str | Path, *, mmap: bool = True) -> FloatMatrix:
    """Read a matrix written by :func:`save_vectors`; memory-mapped read-only by default."""
    source = Path(path)
    try:
        loaded: Any = np.load(source, mmap_mode="r" if mmap else None, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read vectors: {exc}", file=str(source)) from exc
    if not isinstance(loaded, np.ndarray) or loaded.ndim != 2 or loaded.dtype != np.float32:
        shape = getattr(loaded, "shape", None)
        dtype = getattr(loaded, "dtype", None)
        raise InputError(
            f"expected a 2-D float32 matrix, got shape {shape} dtype {dtype}", file=str(source)
        )
    matrix: FloatMatrix = loaded
    return matrix


def search(
    matrix: FloatMatrix,
    query_vec: npt.ArrayLike,
    k: int,
    allowed_mask: npt.ArrayLike | None = None,
) -> list[tuple[int, float]]:
    """The ``k`` best rows of ``matrix`` by dot product with ``query_vec``.

    Rows are normalised by their providers, so the dot product is the cosine.
    ``allowed_mask`` (one bool per row) restricts the search; excluded rows are never
    returned, even when fewer than ``k`` rows are allowed. Order: score descending,
    then row ascending. NaN scores rank below every number.
    """
    if k <= 0:
        return []
    query = np.asarray(query_vec, dtype=np.float32).reshape(-1)
    if matrix.ndim != 2 or matrix.shape[1] != query.shape[0]:
        raise InputError(
            f"query vector has dimension {query.shape[0]}, the vectors have shape {matrix.shape}"
        )
    n = matrix.shape[0]
    if n == 0:
        return []
    scores = np.asarray(matrix @ query, dtype=np.float32)
    scores = np.where(np.isnan(scores), np.float32(-np.inf), scores).astype(np.float32)
    if allowed_mask is None:
        rows = np.arange(n)
    else:
        mask = np.asarray(allowed_mask, dtype=bool).reshape(-1)
        if mask.shape[0] != n:
            raise InputError(f"allowed_mask has {mask.shape[0]} entries for {n} rows")
        rows = np.flatnonzero(mask)
        if rows.size == 0:
            return []
    candidates = rows
    if rows.size > k:
        part = rows[np.argpartition(-scores[rows], k - 1)[:k]]
        # keep every row tied with the k-th score, so ties are settled by row below
        kth = scores[part].min()
        candidates = rows[scores[rows] >= kth]
    order = np.lexsort((candidates, -scores[candidates]))
    chosen = candidates[order][:k]
    return [(int(r), float(scores[r])) for r in chosen]


class VectorIndex:
    """A float32 matrix with :meth:`search`; :meth:`load` memory-maps it."""

    def __init__(self, matrix: npt.ArrayLike) -> None:
        array = np.asarray(matrix, dtype=np.float32)
        if array.ndim != 2:
            raise InputError(f"vectors must be a 2-D matrix, got shape {array.shape}")
        self.matrix: FloatMatrix = array

    @property
    def dimension(self) -> int:
        return int(self.matrix.shape[1])

    def __len__(self) -> int:
        return int(self.matrix.shape[0])

    def save(self, path: str | Path) -> Path:
        return save_vectors(path, self.matrix)

    @classmethod
    def load(cls, path: str | Path, *, mmap: bool = True) -> VectorIndex:
        return cls(load_vectors(path, mmap=mmap))

    def search(
        self, query_vec: npt.ArrayLike, k: int, allowed_mask: npt.ArrayLike | None = None
    ) -> list[tuple[int, float]]:
        return search(self.matrix, query_vec, k, allowed_mask)


__all__ = ["VectorIndex", "load_vectors", "save_vectors", "search"]
