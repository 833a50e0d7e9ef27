"""The build cache's string table: ids fixed for good, shared safely by two builds."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegold.index.cache import BuildCache
from codegold.index.strings import DamagedCache, StringTable, check_ids


def _put(cache: BuildCache, key: str, words: list[str]) -> list[int]:
    def make(strings: StringTable) -> tuple[list[tuple[str, bytes]], list[int]]:
        ids = strings.ids_of([words])[0].tolist()
        return [(key, np.asarray(ids, dtype=np.int32).tobytes())], ids

    return cache.put_interned("files", make)


def test_two_caches_on_one_file_never_number_two_strings_alike(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    first, second = BuildCache(path), BuildCache(path)
    first.sync_strings()
    second.sync_strings()
    assert _put(second, "b", ["parse", "headers"]) == [0, 1]
    # `first` read the table before `second` wrote: it catches up under the lock
    assert _put(first, "a", ["headers", "request", "parse"]) == [1, 2, 0]
    assert _put(second, "c", ["request", "response"]) == [2, 3]
    first.close()
    second.close()
    again = BuildCache(path)
    assert again.sync_strings().strings == ["parse", "headers", "request", "response"]
    raw = again.get_many("files", ["a", "b", "c"])
    assert np.frombuffer(raw["a"], dtype=np.int32).tolist() == [1, 2, 0]
    again.close()


def test_a_failed_write_keeps_neither_its_records_nor_its_strings(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    cache = BuildCache(path)
    _put(cache, "a", ["kept"])

    def fail(strings: StringTable) -> tuple[list[tuple[str, bytes]], None]:
        strings.ids_of([["lost", "kept"]])
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        cache.put_interned("files", fail)
    assert cache.strings.strings == ["kept"]
    assert _put(cache, "b", ["next"]) == [1]
    cache.close()
    again = BuildCache(path)
    assert again.sync_strings().strings == ["kept", "next"]
    assert sorted(again.get_many("files", ["a", "b", "lost"])) == ["a", "b"]
    again.close()


def test_which_keys_are_stored_is_told_without_their_records(tmp_path: Path) -> None:
    cache = BuildCache(tmp_path / "cache.sqlite")
    cache.put_many("files", [(f"k{i}", bytes(i)) for i in range(1200)])
    asked = [f"k{i}" for i in range(0, 2400, 2)]  # more than one query's worth of keys
    assert cache.has_many("files", asked) == {f"k{i}" for i in range(0, 1200, 2)}
    assert cache.has_many("vectors", asked) == set()
    cache.close()


def test_an_id_beyond_the_table_is_reported() -> None:
    table = StringTable(["a", "b"])
    check_ids(np.asarray([0, 1], dtype=np.int32), table)
    with pytest.raises(DamagedCache, match="string 2 of a table of 2"):
        check_ids(np.asarray([1, 2], dtype=np.int32), table)


def test_runs_are_numbered_in_first_use_order_across_extend_and_truncate() -> None:
    table = StringTable(["a"])
    runs = table.ids_of([["b", "a", "b"], [], ["c", "b", "d", "c"]])
    assert [r.tolist() for r in runs] == [[1, 0, 1], [], [2, 1, 3, 2]]
    assert table.strings == ["a", "b", "c", "d"]
    table.extend(["e", "f"])  # numbered elsewhere: known to the next lookup
    assert table.ids_of([["f", "g", "a"]])[0].tolist() == [5, 6, 0]
    table.truncate(3)  # "d" on forgotten: numbered again from 3
    assert table.ids_of([["g", "c", "d"]])[0].tolist() == [3, 2, 4]
    assert table.strings == ["a", "b", "c", "g", "d"]
    assert table.ids_of([]) == []
    assert len(table) == 5
