"""Attempts read straight into their records' layout (evaluate.scored) score byte for
byte as attempts read as retrieved chunks; a chunk that does not fit (symbols, an
excerpt, a claim, a key of an entry's own, bad input) sends that line and the rest of
the file down the usual path, with its errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from codegold.attempts import Attempt, RetrievedChunk, decode_attempt
from codegold.errors import InputError
from codegold.evaluate import evaluate_case, scored
from codegold.evaluate.records import RankedEntry
from codegold.evaluate.scored import MISFITS, ScoredAttempt, ScoredChunk, ScoringDecoder
from codegold.pipeline import eval_pipeline
from tests.evaluate.golden_fixture import write_fixture, write_in_order
from tests.evaluate.helpers import chunk, make_case, manifest

EXTRAS = ("symbols", "excerpt", "claim")


def _encode_fields(cls: Any) -> list[str]:
    return list(cls.__struct_encode_fields__)


def test_a_scored_chunk_is_an_entry_then_a_retrieved_chunk() -> None:
    entry = _encode_fields(RankedEntry)
    assert _encode_fields(ScoredChunk)[: len(entry)] == entry
    assert set(_encode_fields(RetrievedChunk)) <= set(_encode_fields(ScoredChunk))
    assert _encode_fields(ScoredAttempt) == _encode_fields(Attempt)


def _line(ranked: list[dict[str, Any]], **extra: Any) -> bytes:
    raw = {"attemptId": "a1", "caseId": "c1", "index": manifest(), "ranked": ranked, **extra}
    return json.dumps(raw).encode()


CASE = make_case(
    accepted=[{"file": "src/a.py", "symbol": "run", "lines": [3, 4]}],
    supporting=[{"filePattern": "docs/*.md"}],
    forbiddenPathPrefixes=["src/legacy/"],
)
RANKED = [
    chunk("src/other.py", "x", cid="k0"),
    chunk("src/legacy/a.py", "run", cid="k1"),
    chunk("src/a.py", "A.run", start=1, end=9, cid="k2"),
    chunk("src/a.py", "run", start=5, end=6, cid="k3"),  # overlaps k2: a duplicate
    chunk("docs/guide.md", None, "docs", cid="k4"),
    chunk("src/other.py", "y", rev="b" * 40, cid="k0"),  # same id, another revision
    {**chunk("src/b.py", "b", cid="k6"), "score": 1, "resolved": True},
]


def _record(attempt: Attempt) -> bytes:
    return msgspec.json.encode(evaluate_case(CASE, attempt))


def test_a_plain_attempt_scores_as_retrieved_chunks_do() -> None:
    line = _line(RANKED)
    scored = ScoringDecoder()(line)
    assert isinstance(scored, ScoredAttempt)
    assert _record(scored) == _record(decode_attempt(line))


@pytest.mark.parametrize(
    "key, value",
    [
        ("symbols", ["A.run"]),
        ("excerpt", "def run(): pass"),
        ("excerpt", ""),
        ("excerpt", None),
        ("claim", {"symbol": "run"}),
        ("rank", 9),
        ("match", "accepted"),
        ("match", "none"),
        ("coversTargetSpan", True),
        ("claimMismatch", None),
        ("duplicateOf", 1),
    ],
)
def test_a_chunk_that_does_not_fit_is_read_the_usual_way(key: str, value: Any) -> None:
    ranked = [dict(c) for c in RANKED]
    ranked[3][key] = value
    line = _line(ranked)
    decoder = ScoringDecoder()
    assert decoder(line) is None
    assert decoder(_line(RANKED)) is not None
    for _ in range(MISFITS - 1):
        assert decoder(line) is None
    assert decoder(_line(RANKED)) is None  # it no longer tries
    if key not in EXTRAS:  # the usual reader ignores an entry's own keys
        assert _record(decode_attempt(line)) == _record(decode_attempt(_line(RANKED)))


def _strip(path: Path, out: Path, *, poison: int | None = None) -> None:
    """``path``'s attempts with no chunk carrying symbols, an excerpt or a claim;
    ``poison``: from that line on, every line's first chunk says ``"match":
    "accepted"`` too."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        for c in row["ranked"]:
            for key in EXTRAS:
                c.pop(key, None)
    for row in rows[poison:] if poison is not None else ():
        row["ranked"] = [{**chunk("src/x.py"), "match": "accepted"}, *row["ranked"]]
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether each line the scoring decoder was asked for was read by it."""
    seen: list[bool] = []
    real = ScoringDecoder.__call__

    def call(self: ScoringDecoder, line: bytes) -> Attempt | None:
        got = real(self, line)
        seen.append(got is not None)
        return got

    monkeypatch.setattr(ScoringDecoder, "__call__", call)
    return seen


def _usual(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ScoringDecoder, "__call__", lambda self, line: None)


def _run(suite: Path, attempts: Path, out: Path) -> tuple[bytes, bytes]:
    eval_pipeline(cases_path=suite, attempts_path=attempts, out_dir=out, workers=1)
    return (out / "results.json").read_bytes(), (out / "summary.json").read_bytes()


@pytest.mark.parametrize("kind", ["shuffled", "in-order"])
@pytest.mark.parametrize("poison", [None, 40])
def test_eval_writes_the_same_bytes_read_either_way(
    kind: str,
    poison: int | None,
    tmp_path: Path,
    counted: list[bool],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    suite, attempts = (write_fixture if kind == "shuffled" else write_in_order)(tmp_path)
    plain = tmp_path / "plain.jsonl"
    _strip(attempts, plain, poison=poison)
    if poison is None:  # (some lines of the fixture are bad on purpose: keep trying)
        monkeypatch.setattr(scored, "MISFITS", 10**9)
    fast = _run(suite, plain, tmp_path / "fast")
    if poison is None:
        assert sum(counted) > 0.9 * len(counted)
    else:
        assert any(counted[:poison]) and not any(counted[poison + MISFITS - 1 :])
    _usual(monkeypatch)
    assert _run(suite, plain, tmp_path / "usual") == fast


def test_a_bad_line_fails_as_it_always_did(tmp_path: Path) -> None:
    suite, attempts = write_in_order(tmp_path, n_cases=30)
    plain = tmp_path / "plain.jsonl"
    _strip(attempts, plain)
    lines = plain.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = lines[5][:60] + "\n"  # cut short: not JSON
    lines[7] = lines[2]  # a repeated attempt id, after it
    plain.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        _run(suite, plain, tmp_path / "out")
    assert caught.value.line == 6 and "invalid JSON" in caught.value.detail
    lines[5] = lines[4].replace('"attemptId": "', '"attemptId": "x', 1)
    plain.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        _run(suite, plain, tmp_path / "out")
    assert (caught.value.line, caught.value.field) == (8, "attemptId")
