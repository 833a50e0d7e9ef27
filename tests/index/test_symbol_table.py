"""The exact symbol table keys qualified names by every dotted suffix, titles whole."""

from __future__ import annotations

import pytest

from codegold.index.symbols import SymbolTable


@pytest.mark.parametrize(
    ("lookup", "rows"),
    [
        ("http.Client.send", [0]),
        ("Client.send", [0]),
        ("send", [0]),
        ("calls res.send", [1]),
        ("res.send", []),
        ("should mount the app", [1]),
    ],
    ids=["full", "suffix", "bare", "title-whole", "title-not-split", "second-title"],
)
def test_definitions_by_suffix_and_titles_whole(lookup: str, rows: list[int]) -> None:
    table = SymbolTable.build(
        [["http.Client.send"], ["calls res.send", "should mount the app"]], [[], []]
    )
    assert table.definitions(lookup) == rows


def test_titles_do_not_fold_into_a_bare_name() -> None:
    table = SymbolTable.build([["calls res.send"]], [[]])
    assert table.definitions_ci("send") == []
