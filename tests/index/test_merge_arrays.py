"""The array helpers a build's merge uses give what numpy's and msgspec's own give."""

from __future__ import annotations

import random

import msgspec
import numpy as np
import pytest

from codegold.index._msgpack import encode_row_lists
from codegold.index.lexical import first_order, stable_argsort


@pytest.mark.parametrize(
    ("n", "bound"), [(0, 5), (1, 5), (1000, 10), (50_000, 70_000), (20_000, 5_000_000)]
)
def test_radix_argsort_and_first_order_equal_numpys(n: int, bound: int) -> None:
    rng = np.random.default_rng(n + bound)
    keys = rng.integers(0, bound, n).astype(np.int32)
    assert np.array_equal(stable_argsort(keys), np.argsort(keys, kind="stable"))
    seen, first = np.unique(keys, return_index=True)
    expected = seen[np.argsort(first, kind="stable")]
    assert np.array_equal(first_order(keys), expected)


def _lists(rng: random.Random, n_keys: int) -> dict[str, list[int]]:
    edges = [0, 1, 127, 128, 255, 256, 65535, 65536, 2**31 - 1]
    names = {
        "k" * rng.choice([1, 31, 32, 255, 256]) + str(rng.randrange(10**6)) + rng.choice(["", "é"])
        for _ in range(n_keys)
    }
    return {
        name: sorted(
            rng.choice([*edges, rng.randrange(2**20)])
            for _ in range(rng.choice([0, 1, 15, 16, 17]))
        )
        for name in sorted(names)
    }


@pytest.mark.parametrize("n_keys", [0, 1, 15, 16, 300, 70_000])
def test_row_lists_encode_as_msgspec_encodes_the_dict(n_keys: int) -> None:
    table = _lists(random.Random(n_keys), n_keys)
    if n_keys == 300:
        table[next(iter(table))] = list(range(70_000))  # an array header of 32 bits
    counts = np.asarray([len(v) for v in table.values()], dtype=np.int64)
    rows = np.asarray([r for v in table.values() for r in v], dtype=np.int32)
    assert encode_row_lists(list(table), counts, rows) == msgspec.msgpack.encode(table)
