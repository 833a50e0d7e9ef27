"""Identifier-aware tokens for code and for questions about code.

``createSession`` gives ``createsession``, ``create``, ``session``; ``snake_case`` and
path segments are split the same way. A light suffix stripper folds ``tokens`` and
``token``, ``expired`` and ``expire``, applied alike to documents and queries.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain

_WORD = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*|[0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_SEPARATORS = re.compile(r"[_$]+")

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "could",
        "do",
        "does",
        "did",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "should",
        "so",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "those",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "us",
        "via",
        "any",
        "all",
        "about",
        "after",
        "before",
        "between",
        "each",
        "get",
        "gets",
        "got",
        "here",
        "just",
        "like",
        "make",
        "makes",
        "made",
        "need",
        "needs",
        "not",
        "only",
        "other",
        "out",
        "over",
        "same",
        "some",
        "such",
        "than",
        "too",
        "under",
        "up",
        "use",
        "used",
        "uses",
        "using",
        "want",
        "work",
        "works",
        "way",
        "ways",
        "happen",
        "happens",
        "does",
        "doing",
        "done",
    ]
)

_SUFFIXES = (
    ("ational", "ate"),
    ("ization", "ize"),
    ("ies", "y"),
    ("ied", "y"),
    ("sses", "ss"),
    ("ing", ""),
    ("ed", ""),
    ("s", ""),
    ("er", ""),
    ("ly", ""),
)


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """A deliberately small suffix stripper, then a final ``e`` dropped, so that
    ``handle``/``handles``/``handled`` and ``expire``/``expired`` meet. Stable, not
    linguistically complete."""
    if len(word) <= 3 or not word.isalpha():
        return word
    base = word
    for suffix, repl in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            base = word[: -len(suffix)] + repl
            if suffix in ("ing", "ed", "er") and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            break
    if len(base) > 3 and base.endswith("e"):
        base = base[:-1]
    return base


@lru_cache(maxsize=200_000)
def split_identifier(word: str) -> tuple[str, ...]:
    """The lowercased parts of one identifier, whole form first when it has parts."""
    if word.isascii() and (word.isdigit() or (word.isalpha() and word.islower())):
        return (word,)  # one part, the whole word (most words of code and prose)
    parts: list[str] = []
    for piece in _SEPARATORS.split(word):
        if piece:
            parts.extend(p.lower() for p in _CAMEL.findall(piece))
    whole = word.strip("_$").lower()
    if len(parts) <= 1:
        return (whole,) if whole else ()
    return (whole, *parts)


def word_tokens(word: str) -> tuple[str, ...]:
    """The tokens of one word (as :data:`find_words` finds them), uncached."""
    if word.isascii():  # one part, the whole word: its stem (most words of code and prose)
        if word.isdigit():
            return (word,)
        if word.isalpha() and word.islower():
            return (stem(word),) if len(word) > 1 else ()
    out: list[str] = []
    for part in split_identifier(word):
        if len(part) < 2 and not part.isdigit():
            continue
        out.append(stem(part))
    return tuple(out)


_word_tokens = lru_cache(maxsize=200_000)(word_tokens)

#: Every ASCII character no word holds, as a space.
_SPACED = str.maketrans({c: " " for c in map(chr, range(128)) if not (c.isalnum() or c in "_$")})


def find_words(text: str) -> list[str]:
    """The words of a text (:data:`_WORD`'s matches), each then split into tokens by
    :func:`word_tokens`. ASCII text (most code) is cut at every other character in C,
    in about two thirds of the regex's time, unless a run of word characters starts
    with a digit and goes on with letters (``2x``: the regex splits it) -- then, and
    for any other text, by the regex."""
    if text.isascii():
        words = text.translate(_SPACED).split()
        if not any(w[0].isdigit() and not w.isdigit() for w in words):
            return words
    return _WORD.findall(text)


def word_runs(text: str) -> list[str]:
    """The runs of word characters of a text, uncut: what :func:`find_words` gives,
    except that a run starting with a digit and going on with letters (``2x``) is left
    whole, for :func:`run_tokens` to cut. Spares the build :func:`find_words`'s check
    of every word for such a run: it meets each distinct run once, in its cache."""
    if text.isascii():
        return text.translate(_SPACED).split()
    return _WORD.findall(text)


def run_tokens(run: str) -> tuple[str, ...]:
    """The tokens of one of :func:`word_runs`'s runs, uncached: those of the words
    :func:`find_words` cuts it into (the regex's matches never cross a run's ends,
    so cutting a run alone cuts it as in its text)."""
    if run[0].isdigit() and not run.isdigit():
        return tuple(chain.from_iterable(map(word_tokens, _WORD.findall(run))))
    return word_tokens(run)


def tokenize(text: str) -> list[str]:
    """Tokens of code or prose: identifiers split, lowercased and stemmed."""
    return list(chain.from_iterable(map(_word_tokens, find_words(text))))


def tokenize_query(text: str) -> list[str]:
    """Query tokens: like :func:`tokenize`, minus English stop words (unless quoted code)."""
    tokens: list[str] = []
    for word in _WORD.findall(text):
        if word.lower() in STOPWORDS and (word.islower() or word[1:].islower()):
            continue
        tokens.extend(_word_tokens(word))
    return tokens


def path_tokens(path: str) -> list[str]:
    """Tokens of a repository path: every segment, and the stem of the file name."""
    return tokenize(re.sub(r"[./\\-]", " ", path))
