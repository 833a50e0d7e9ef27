"""A small real Python repository for the bring-your-own-pipeline tests."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.corpus.gitfixture import make_repo

FILES = {
    "shop/cart.py": '''"""The shopping cart."""


class Cart:
    """Items a customer is about to buy."""

    def __init__(self):
        self.items = []

    def add_item(self, sku, quantity=1):
        """Put quantity units of sku into the cart."""
        self.items.append((sku, quantity))

    def total_price(self, prices):
        """Sum of price times quantity over every item."""
        return sum(prices[sku] * quantity for sku, quantity in self.items)
''',
    "shop/discount.py": '''"""Discount rules."""


def apply_coupon(total, coupon):
    """Take the coupon's percentage off the total, never below zero."""
    percent = COUPONS.get(coupon, 0)
    return max(0.0, total * (100 - percent) / 100)


COUPONS = {"WELCOME10": 10, "HALF": 50}
''',
    "shop/shipping.py": '''"""Shipping costs."""


def shipping_cost(weight_kg, express=False):
    """Flat rate per kilogram; express doubles it."""
    rate = 4.5 if not express else 9.0
    return round(weight_kg * rate, 2)
''',
    "tests/test_cart.py": """from shop.cart import Cart


def test_total_price():
    cart = Cart()
    cart.add_item("apple", 3)
    assert cart.total_price({"apple": 2}) == 6
""",
    "README.md": "# shop\\n\\nA toy shop: carts, coupons, shipping.\\n",
}

CASES = [
    (
        "coupon",
        "How is a coupon percentage applied to the total?",
        "shop/discount.py",
        "apply_coupon",
    ),
    (
        "cart-total",
        "How does the cart compute the total price of its items?",
        "shop/cart.py",
        "Cart.total_price",
    ),
    (
        "express",
        "What does express shipping cost per kilogram?",
        "shop/shipping.py",
        "shipping_cost",
    ),
    (
        "add-item",
        "How do I put an item with a quantity into the cart?",
        "shop/cart.py",
        "Cart.add_item",
    ),
]


def make_shop(tmp: Path) -> tuple[Path, str]:
    repo, shas = make_repo(tmp / "shop-repo", [FILES])
    return repo, shas[0]


def write_suite(path: Path, revision: str) -> Path:
    suite = {
        "suite": "shop-gold",
        "repository": {"name": "acme/shop", "revision": revision},
        "defaults": {"cutoff": 3},
        "cases": [
            {
                "id": cid,
                "query": query,
                "queryClass": "behavior",
                "accepted": [{"file": file, "symbol": symbol, "roles": ["definition"]}],
            }
            for cid, query, file, symbol in CASES
        ],
    }
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path
