"""Strings numbered once for good: the ids a build cache stores terms and names by.

A file's cached share of a build names its BM25 terms and symbol-table keys by these
ids, so merging two thousand cached files is array arithmetic: no string is decoded,
hashed or looked up again for a file that did not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain

import numpy as np
import numpy.typing as npt

from codegold.errors import EnvironmentProblem


class _Numbering(dict[str, int]):
    """String -> id over a table's strings; looking up a string not numbered yet
    numbers it next (appended to ``strings``), so that a run is numbered with one
    dict lookup per string, from C (``map(numbering.__getitem__, run)``)."""

    def __init__(self, strings: list[str]) -> None:
        super().__init__(zip(strings, range(len(strings)), strict=True))
        self.strings = strings

    def __missing__(self, string: str) -> int:
        n = self[string] = len(self.strings)
        self.strings.append(string)
        return n


class StringTable:
    """Append-only: a string's id is its position, for as long as the table lives."""

    def __init__(self, strings: Sequence[str] = ()) -> None:
        self.strings: list[str] = list(strings)
        self._ids: _Numbering | None = None

    def __len__(self) -> int:
        return len(self.strings)

    def extend(self, more: Sequence[str]) -> None:
        """Strings numbered elsewhere (another build's), next in order; none known yet."""
        start = len(self.strings)
        self.strings.extend(more)
        if self._ids is not None:
            self._ids.update(zip(more, range(start, start + len(more)), strict=True))

    def truncate(self, size: int) -> None:
        """Forget the strings numbered from ``size`` on (their numbering was not kept)."""
        if size < len(self.strings):
            del self.strings[size:]
            self._ids = None

    def ids_of(self, runs: Sequence[Sequence[str]]) -> list[npt.NDArray[np.int32]]:
        """Each run's strings as ids (int32), new strings numbered in first-use order."""
        ids = self._ids
        if ids is None:
            ids = self._ids = _Numbering(self.strings)
        sizes = [len(run) for run in runs]
        try:
            flat = np.fromiter(
                map(ids.__getitem__, chain.from_iterable(runs)), np.int32, sum(sizes)
            )
        except BaseException:
            self._ids = None  # numbered part-way: rebuilt from ``strings`` when next asked
            raise
        return np.split(flat, np.cumsum(sizes[:-1])) if runs else []


class DamagedCache(EnvironmentProblem):
    """A cached record names a string the table does not hold."""


def check_ids(ids: npt.NDArray[np.int32], table: StringTable) -> None:
    """Every id of ``ids`` within ``table``, or :class:`DamagedCache`."""
    if ids.size and (int(ids.min()) < 0 or int(ids.max()) >= len(table)):
        raise DamagedCache(
            f"the index build cache is damaged: a cached record names string "
            f"{int(ids.max())} of a table of {len(table)}; delete cache.sqlite under "
            "the index root to rebuild it"
        )


def offsets(sizes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """Where each of consecutive runs of ``sizes`` starts."""
    out = np.zeros(len(sizes), dtype=np.int64)
    if len(sizes) > 1:
        np.cumsum(sizes[:-1], out=out[1:])
    return out
