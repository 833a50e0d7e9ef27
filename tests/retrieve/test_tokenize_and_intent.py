"""Identifier splitting, BM25 ordering and query-intent detection."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from codegold.index.lexical import BM25Index, top_k
from codegold.index.tokenize import (
    _CAMEL,
    _WORD,
    find_words,
    path_tokens,
    run_tokens,
    split_identifier,
    stem,
    tokenize,
    tokenize_query,
    word_runs,
    word_tokens,
)
from codegold.retrieve.query import Intent, analyze


@pytest.mark.parametrize(
    "text",
    [
        "def f(x):\n    return x2 + 0x1F - 12.5e3 * $el_1 // a$b",
        "2x 10px 3_000 1e10 _9 $0 x86_64",  # runs starting with digits, then letters
        "naïve café = größe(ünïcode)",  # non-ASCII letters separate words
        "\x1c\x1dsep\x1farated\x7f\tby\x0bcontrol\x0cchars",
        "",
        "   ",
    ],
)
def test_find_words_gives_the_regex_matches(text: str) -> None:
    assert find_words(text) == _WORD.findall(text)


def test_find_words_gives_the_regex_matches_on_random_text() -> None:
    rng = random.Random(15)
    alphabet = "aZ_$09 .\t\n(){}-é\x1c"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert find_words(text) == _WORD.findall(text), text


def _run_tokens_of(text: str) -> list[str]:
    return [t for run in word_runs(text) for t in run_tokens(run)]


@pytest.mark.parametrize(
    "text",
    [
        "def f(x):\n    return x2 + 0x1F - 12.5e3 * $el_1 // a$b",
        "2x 10px 3_000 1e10 _9 $0 x86_64 2fooBar_baz 12abc3Def",  # digit-led runs
        "naïve café = größe(ünïcode) 2x",  # non-ASCII text: the regex's words
        "",
    ],
)
def test_word_runs_and_run_tokens_give_tokenize(text: str) -> None:
    # the build cuts a text into runs and each run into tokens; the same tokens, in
    # the same order, as tokenize
    assert _run_tokens_of(text) == tokenize(text)


def test_word_runs_and_run_tokens_give_tokenize_on_random_text() -> None:
    rng = random.Random(16)
    alphabet = "aZb_$09 .\t\n(){}-é\x1c"
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert _run_tokens_of(text) == tokenize(text), text


@pytest.mark.parametrize(
    ("word", "parts"),
    [
        ("createSession", ("createsession", "create", "session")),
        ("refresh_token", ("refresh_token", "refresh", "token")),
        ("HTTPServer", ("httpserver", "http", "server")),
        ("parseURL2", ("parseurl2", "parse", "url", "2")),
        ("__init__", ("init",)),
        ("simple", ("simple",)),
    ],
    ids=["camel", "snake", "acronym", "acronym-digit", "dunder", "plain"],
)
def test_split_identifier(word: str, parts: tuple[str, ...]) -> None:
    assert split_identifier(word) == parts


def _split_in_full(word: str) -> tuple[str, ...]:
    """:func:`split_identifier` without its shortcut for one-part words."""
    parts = [
        p.lower() for piece in re.split(r"[_$]+", word) if piece for p in _CAMEL.findall(piece)
    ]
    whole = word.strip("_$").lower()
    if len(parts) <= 1:
        return (whole,) if whole else ()
    return (whole, *parts)


def test_one_part_words_split_and_tokenize_as_in_full() -> None:
    """The shortcuts for plain lowercase and digit words give what the full split and
    the per-part stemming give, on words of every shape (and non-ASCII letters)."""
    rng = random.Random(11)
    alphabet = "abeisyzAZ09_$éÉßİ"
    words = ["", "_", "$", "a", "A", "7", "ab", "abc", "handles", "1234", "x86", "é", "éa", "aéb"]
    words += [
        "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9))) for _ in range(20_000)
    ]
    for word in words:
        parts = _split_in_full(word)
        assert split_identifier(word) == parts, word
        expected = tuple(stem(p) for p in parts if len(p) >= 2 or p.isdigit())
        assert word_tokens(word) == expected, word


def test_query_and_document_tokens_meet() -> None:
    doc = set(tokenize("def createSession(refresh_tokens): raise TokenExpired"))
    query = tokenize_query("How does create session handle an expired refresh token?")
    assert {"creat", "session", "refresh", "token", "expir"} <= doc
    assert set(query) - {"handl"} <= doc
    assert "how" not in query and "does" not in query


def test_path_tokens_split_segments() -> None:
    assert path_tokens("src/auth/session-service.ts") == ["src", "auth", "session", "servic", "ts"]


def test_bm25_prefers_rarer_terms_and_breaks_ties_by_row() -> None:
    docs = [["parse", "json"], ["parse", "webhook", "signatur"], ["parse", "json"], ["other"]]
    index = BM25Index.build(docs)
    ranked = index.top(["webhook", "parse"], 4)
    assert ranked[0][0] == 1
    tied = [row for row, _ in ranked[1:]]
    assert tied == [0, 2]


def test_top_k_keeps_ties_deterministic() -> None:
    scores = np.array([0.5, 0.9, 0.5, 0.0, 0.5], dtype=np.float32)
    assert [r for r, _ in top_k(scores, 3)] == [1, 0, 2]


def test_bm25_roundtrip(tmp_path) -> None:  # type: ignore[no-untyped-def]
    index = BM25Index.build([["a", "b"], ["b", "c"]])
    index.save(tmp_path)
    loaded = BM25Index.load(tmp_path)
    assert loaded.top(["c"], 2) == index.top(["c"], 2)


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        ("what is RetryPolicy?", Intent.DEFINITION),
        ("Where is Client.send defined?", Intent.DEFINITION),
        ("How does createSession handle an expired refresh token?", Intent.DEFINITION),
        ("Show me an example of calling createSession", Intent.USAGE),
        ("how do I use the payment client", Intent.USAGE),
        ("How do tests fake the payment client?", Intent.TEST),
        ("How is RetryPolicy configured for outbound calls?", Intent.CONFIGURATION),
        ("which environment variable sets the API key", Intent.CONFIGURATION),
        ("is there documentation for webhooks", Intent.DOCS),
        ("payment client", Intent.GENERAL),
        # a pasted message or trace: its test words name what failed, not a wish for tests
        ("AssertionError [ERR_ASSERTION]: invalid status code: 1000", Intent.GENERAL),
        (
            "org.junit.runners.model.TestTimedOutException: test timed out after 2000 ms",
            Intent.GENERAL,
        ),
        ("thread 'tests::handles_retry' panicked at src/lib.rs:212:32", Intent.GENERAL),
        ("show me a test of configuring the public url", Intent.TEST),
        # a request for tests written as a noun phrase is not a pasted message
        ("tests for parse_args", Intent.TEST),
        ("unit tests for the tokenizer", Intent.TEST),
        ("which tests cover AssertionError messages?", Intent.TEST),
        ("show me how to assert on log output in a test", Intent.TEST),
        # test words that are not the asker's wish for tests: code they name, a path or
        # glob they quote, a context ("in tests"), the verb "testing whether"
        ("how do I make assert() throw my own exception class?", Intent.DEFINITION),
        ("the assert method I call on the struct itself, as in User.assert(data)", Intent.GENERAL),
        ("how do I get the file name matched by a glob like test/*.js?", Intent.DEFINITION),
        ("how do I get the same random numbers every run, e.g. in tests?", Intent.DEFINITION),
        ("how do I make renders synchronous in tests?", Intent.DEFINITION),
        ("when testing whether a glob matches a path, is a substring checked?", Intent.DEFINITION),
    ],
    ids=lambda v: str(v)[:30],
)
def test_intent(query: str, intent: Intent) -> None:
    assert analyze(query).intent is intent


def test_analysis_finds_identifiers_paths_and_frames() -> None:
    a = analyze('File "app/views.py", line 12, in get_user\nKeyError: user_id')
    assert "get_user" in a.identifiers and "KeyError" in a.identifiers
    assert "app/views.py" in a.paths
    b = analyze("Where is `Client.send` defined in httpx/_client.py?")
    assert "Client.send" in b.identifiers and "httpx/_client.py" in b.paths
    c = analyze("at com.acme.Billing.charge(Billing.java:42)")
    assert "Billing.charge" in c.identifiers


def test_a_question_naming_a_version_lifts_that_folders_legacy_penalty() -> None:
    from codegold.retrieve.hybrid import _names_its_version

    assert _names_its_version("src/v3/types.ts", analyze("how did v3 handle unions?"))
    assert not _names_its_version("src/v3/types.ts", analyze("how are unions handled?"))
    assert not _names_its_version("src/v3/types.ts", analyze("what changed in v4?"))


def test_prose_acronyms_are_not_code_but_constants_are() -> None:
    a = analyze("What exit code does a CLI return on a usage error with SIGINT or MAX_RETRIES?")
    assert "CLI" not in a.identifiers
    assert {"SIGINT", "MAX_RETRIES"} <= set(a.identifiers)
    assert a.intent is Intent.DEFINITION  # "usage error" is not a request for usages
    assert analyze("show me usages of parse_args").intent is Intent.USAGE


@pytest.mark.parametrize(
    ("path", "tooling"),
    [
        ("src/click/testing.py", True),
        ("django/test/client.py", True),
        ("pkg/fixtures/db.go", True),
        ("src/attest.py", False),
        ("src/contest/rules.py", False),
    ],
)
def test_testing_utilities_count_as_test_tooling(path: str, tooling: bool) -> None:
    from codegold.retrieve.hybrid import _TESTING

    assert bool(_TESTING.search(path)) is tooling


def test_joined_documents_index_like_token_lists() -> None:
    from codegold.index.lexical import BM25Builder

    docs = [["parse", "json"], [], ["parse", "webhook", "signatur", "parse"], ["other"]]
    one, many = BM25Builder(), BM25Builder()
    for doc in docs:
        one.add(doc)
    many.add_joined([" ".join(d) for d in docs[:2]])
    many.add_joined([" ".join(d) for d in docs[2:]])
    a, b = one.finish(), many.finish()
    for query in (["parse"], ["webhook", "json"], ["other"]):
        assert a.top(query, 4) == b.top(query, 4)


@pytest.mark.parametrize(
    ("query", "identifiers", "paths"),
    [
        ("how does URL.copy_with merge params?", ("URL.copy_with", "copy_with"), ()),
        ("what does config.hpp do in src/main.rs:12", (), ("config.hpp", "src/main.rs")),
        ("see httpx/_client.py.", (), ("httpx/_client.py",)),
        ("is Slim/App.php the entry point?", (), ("Slim/App.php",)),
    ],
)
def test_a_file_name_ends_at_its_extension(
    query: str, identifiers: tuple[str, ...], paths: tuple[str, ...]
) -> None:
    a = analyze(query)
    assert a.identifiers == identifiers
    assert a.paths == paths


@pytest.mark.parametrize(
    ("query", "identifiers"),
    [
        # echo (labstack/echo group.go's Group.Use): a capitalised Go method that is
        # also an English stop word
        ("Use — why does my group's auth middleware run for paths with no route?", ("Use",)),
        # zlib gzread.c: a lower-case C function
        ("gzread - what does it do with a file that is not gzipped?", ("gzread",)),
        # a dash later in the sentence, or a dash inside a word, names nothing
        ("why does Use run first - even on a 404?", ()),
        ("how do I use a read-only file?", ()),
    ],
)
def test_a_word_before_a_leading_dash_is_the_name_asked_about(
    query: str, identifiers: tuple[str, ...]
) -> None:
    assert analyze(query).identifiers == identifiers
