"""`codegold eval` writes byte for byte what it wrote before its fast path: the
digests below are of results.json and summary.json as the evaluator of commit 7022523
(one RankedEntry built per chunk in a Python loop, every record spooled) wrote them,
on seeded fixtures that reach every branch of scoring (tests/evaluate/golden_fixture),
on the throughput benchmark's own input, and on the shipped recorded example."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from tests.evaluate.golden_fixture import write_fixture, write_in_order

GOLDEN = {
    "shuffled": (
        "99f1c8124b414daf8a776de3270e96f283cee76cd74b3f6be26597d14f6ec1bf",
        "75c635a6b145c16476be6eeda9c5ffcdcecc783c0ae4bb2a95844a80410ca982",
    ),
    "in-order": (
        "9d2058e91e784c7a0e335432ea463653e1be4224bc285122e65fce8d5145257f",
        "17d7e87dac2001a8240511dca018c5307f71f2a1940b926a79acdcd5c8329920",
    ),
    "benchmark": (
        "3475309eb95fe9dff92b7dd440aa027a9bce01345c3a083d1289364cc0ee25b3",
        "84a7f83d473434cabe3464f6a54c35fdd78155b97fbf5371b5ffb94fdb382faf",
    ),
    "example": (
        "9365de5e85b8a2baa71ea0a59f057d88168faadb69720da5aabe220b7d177416",
        "23691da4a0208eedf53c0c636187409ac46487b446681beea19b26ef762b989d",
    ),
}


def _inputs(kind: str, folder: Path) -> tuple[Path, Path]:
    if kind == "shuffled":
        return write_fixture(folder)
    if kind == "in-order":
        return write_in_order(folder)
    if kind == "benchmark":
        sys.path.insert(0, str(ROOT / "benchmarks"))
        try:
            from eval_throughput import generate
        finally:
            sys.path.remove(str(ROOT / "benchmarks"))
        return generate(folder, 400, 50)
    example = ROOT / "examples" / "recorded"
    return example / "suite.yaml", example / "attempts.jsonl"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", sorted(GOLDEN))
def test_eval_writes_what_the_evaluator_wrote_before(kind: str, tmp_path: Path) -> None:
    suite, attempts = _inputs(kind, tmp_path)
    out = tmp_path / "out"
    run_cli(
        "eval", "--cases", str(suite), "--attempts", str(attempts), "--out", str(out),
        "--quiet", check=True,
    )  # fmt: skip
    got = (_digest(out / "results.json"), _digest(out / "summary.json"))
    assert got == GOLDEN[kind]
