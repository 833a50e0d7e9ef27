"""Minimal chunks resolved against codegold's own parse of the file at the revision."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.corpus.git import GitRepo
from codegold.resolve import ChunkProblem, SpanResolver
from tests.byo.repo import FILES, make_shop


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    return make_shop(tmp_path_factory.mktemp("resolve"))


def _resolver(repo: Path) -> tuple[GitRepo, SpanResolver]:
    git = GitRepo(repo)
    return git, SpanResolver.from_git(git)


def test_excerpt_alone_is_located_and_named_by_the_parse(shop: tuple[Path, str]) -> None:
    repo, rev = shop
    git, resolver = _resolver(repo)
    with git:
        excerpt = FILES["shop/cart.py"].split("    def total_price")[1]
        chunk = resolver.resolve(
            {"file": "shop/cart.py", "excerpt": "def total_price" + excerpt}, rev, rank=1
        )
    assert (chunk.start_line, chunk.end_line) == (14, 16)
    assert chunk.symbol == "Cart.total_price"
    assert chunk.role == "definition"
    assert chunk.resolved is True
    assert chunk.claim is None
    assert chunk.repository_revision == rev


def test_whitespace_rejoined_excerpt_still_locates(shop: tuple[Path, str]) -> None:
    repo, rev = shop
    git, resolver = _resolver(repo)
    # a splitter that re-joined lines with single spaces and cut the first word
    text = 'upon(total, coupon):\n """Take the coupon\'s percentage off the total, never below zero.""" percent = COUPONS.get(coupon, 0)'
    with git:
        chunk = resolver.resolve({"file": "./shop/discount.py", "excerpt": text}, rev, rank=2)
    assert (chunk.file, chunk.start_line, chunk.end_line) == ("shop/discount.py", 4, 6)
    assert chunk.symbol == "apply_coupon"


def test_lines_alone_and_claim_kept(shop: tuple[Path, str]) -> None:
    repo, rev = shop
    git, resolver = _resolver(repo)
    with git:
        chunk = resolver.resolve(
            {
                "file": "shop/cart.py",
                "startLine": 4,
                "endLine": 16,
                "symbol": "ShoppingCart",
                "role": "call_site",
            },
            rev,
            rank=1,
        )
    assert chunk.symbol == "Cart"
    assert chunk.symbols is not None
    assert {"Cart", "Cart.add_item", "Cart.total_price"} <= set(chunk.symbols)
    assert chunk.claim is not None
    assert (chunk.claim.symbol, chunk.claim.role) == ("ShoppingCart", "call_site")
    assert (chunk.claim.start_line, chunk.claim.end_line) == (4, 16)
    assert chunk.chunk_id.startswith("shop/cart.py:4-16#")


def test_test_file_span_takes_the_test_role(shop: tuple[Path, str]) -> None:
    repo, rev = shop
    git, resolver = _resolver(repo)
    with git:
        chunk = resolver.resolve(
            {"file": "tests/test_cart.py", "excerpt": "def test_total_price():"}, rev, rank=1
        )
    assert chunk.role == "test"
    assert chunk.symbol == "test_total_price"


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"file": "shop/nope.py", "excerpt": "x"}, "chunk 3: shop/nope.py does not exist at"),
        (
            {"file": "shop/cart.py", "excerpt": "def refund_everything():"},
            "chunk 3: its excerpt is not in shop/cart.py",
        ),
        (
            {"file": "shop/cart.py", "startLine": 10, "endLine": 99},
            "run past the end of shop/cart.py (16 lines)",
        ),
        ({"file": "shop/cart.py"}, "needs startLine/endLine or an excerpt"),
        ({"excerpt": "x"}, "chunk 3 has no file"),
    ],
)
def test_bad_chunks_say_why(shop: tuple[Path, str], raw: dict[str, object], reason: str) -> None:
    repo, rev = shop
    git, resolver = _resolver(repo)
    with git, pytest.raises(ChunkProblem, match=reason.replace("(", r"\(").replace(")", r"\)")):
        resolver.resolve(raw, rev, rank=3)
