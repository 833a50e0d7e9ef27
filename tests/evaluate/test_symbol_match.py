"""The symbol suffix rule and target spellings (SPEC §1), one row per edge case."""

from __future__ import annotations

import pytest

from codegold.cases.match import normalize_symbol, symbol_matches
from codegold.evaluate import evaluate_case
from tests.evaluate.helpers import attempt, chunk, make_case

#: (id, target symbol, chunk symbol, chunk symbols, matches?)
ROWS: list[tuple[str, str, str | None, tuple[str, ...], bool]] = [
    ("bare-equals", "send", "send", (), True),
    ("bare-matches-member", "send", "Client.send", (), True),
    ("bare-matches-in-symbols", "send", "Client", ("Client", "Client.send"), True),
    ("bare-not-a-word-suffix", "send", "Client.resend", (), False),
    ("bare-not-a-prefix", "send", "Client.sender", (), False),
    ("qualified-equals", "Client.send", "Client.send", (), True),
    ("qualified-matches-longer-qualifier", "Client.send", "http.Client.send", (), True),
    ("qualified-never-other-qualifier", "Client.send", "AsyncClient.send", (), False),
    ("qualified-never-bare", "Client.send", "send", (), False),
    ("qualified-never-other-member", "Client.send", "Client.sendAll", (), False),
    ("longer-target-never-shorter-chunk", "http.Client.send", "Client.send", (), False),
    ("ruby-hash", "Client#send", "Client.send", (), True),
    ("double-colon", "Client::send", "Client.send", (), True),
    ("nested-double-colon", "http::Client::send", "http.Client.send", (), True),
    (
        "ruby-scope-and-hash",
        "Sinatra::Base#compile!",
        "Base.compile!",
        ("Sinatra.Base.compile!",),
        True,
    ),
    ("go-pointer-receiver", "(*Client).Send", "Client.Send", (), True),
    ("go-value-receiver", "(Client).Send", "Client.Send", (), True),
    ("go-receiver-suffix", "(*Client).Send", "http.Client.Send", (), True),
    ("js-prototype-written", "Router.prototype.handle", "Router.handle", (), True),
    ("js-prototype-bare-member", "handle", "Router.handle", (), True),
    ("js-prototype-chunk-written", "Router.handle", "Router.prototype.handle", (), True),
    ("cpp-arrow", "Client->send", "Client.send", (), True),
    ("surrounding-space", "  Client.send ", "Client.send", (), True),
    ("title-verbatim", "should send a body", "should send a body", (), True),
    ("title-with-hash", "#random_string", "#random_string", (), True),
    ("title-with-colons", "parses a::b", "parses a::b", (), True),
    ("title-no-suffix-match", "send", "calls res.send", (), False),
    ("title-no-partial", "a body", "should send a body", (), False),
    ("no-symbols", "send", None, (), False),
]


@pytest.mark.parametrize(
    ("wanted", "symbol", "symbols", "expected"),
    [row[1:] for row in ROWS],
    ids=[row[0] for row in ROWS],
)
def test_symbol_matches(
    wanted: str, symbol: str | None, symbols: tuple[str, ...], expected: bool
) -> None:
    assert symbol_matches(wanted, symbol, symbols) is expected


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("Client#send", "Client.send"),
        ("Client::send", "Client.send"),
        ("(*T).M", "T.M"),
        ("(T).M", "T.M"),
        ("X.prototype.m", "X.m"),
        ("Client.send", "Client.send"),
    ],
    ids=["hash", "double-colon", "go-pointer", "go-value", "prototype", "already-canonical"],
)
def test_normalize_symbol(written: str, canonical: str) -> None:
    assert normalize_symbol(written) == canonical


@pytest.mark.parametrize(
    ("target", "chunk_symbol", "passed"),
    [
        ("Client.send", "http.Client.send", True),
        ("Client.send", "AsyncClient.send", False),
        ("(*Client).Send", "Client.Send", True),
    ],
    ids=["suffix-passes", "other-qualifier-fails", "receiver-passes"],
)
def test_suffix_rule_through_the_evaluator(target: str, chunk_symbol: str, passed: bool) -> None:
    case = make_case(accepted=[{"file": "src/client.py", "symbol": target}])
    result = evaluate_case(case, attempt([chunk("src/client.py", chunk_symbol)]))
    assert result.passed is passed
