"""`codegold import swebench` and `codegold import trec`, evaluated end to end."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.byo.repo import make_shop, write_suite
from tests.conftest import run_cli

PATCH = """diff --git a/shop/discount.py b/shop/discount.py
index 1111111..2222222 100644
--- a/shop/discount.py
+++ b/shop/discount.py
@@ -4,3 +4,3 @@
-    return max(0.0, total * (100 - percent) / 100)
+    return max(0.0, round(total * (100 - percent) / 100, 2))
diff --git a/shop/cart.py b/shop/cart.py
--- a/shop/cart.py
+++ b/shop/cart.py
@@ -1 +1 @@
-x
+y
diff --git a/shop/new.py b/shop/new.py
new file mode 100644
--- /dev/null
+++ b/shop/new.py
@@ -0,0 +1 @@
+z
"""


def test_swebench_rows_become_one_suite_per_repository(tmp_path: Path) -> None:
    repo, rev = make_shop(tmp_path)
    rows = [
        {
            "instance_id": "acme__shop-2",
            "repo": "acme/shop",
            "base_commit": rev,
            "problem_statement": "Coupon totals have too many decimals",
            "patch": PATCH,
        },
        {
            "instance_id": "acme__shop-1",
            "repo": "acme/shop",
            "base_commit": rev,
            "problem_statement": "Adding only",
            "patch": "--- /dev/null\n+++ b/shop/x.py\n",
        },
        {
            "instance_id": "other__lib-7",
            "repo": "other/lib",
            "base_commit": "a" * 40,
            "problem_statement": "p",
            "patch": "--- a/lib.py\n+++ b/lib.py\n",
        },
    ]
    data = tmp_path / "swe.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = run_cli(
        "import", "swebench", str(data), "--out", str(tmp_path / "suites"), "--cutoff", "2"
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        "skipped acme__shop-1: the patch modifies no file that exists at base_commit" in proc.stderr
    )
    shop = yaml.safe_load((tmp_path / "suites" / "acme__shop.yaml").read_text())
    assert (tmp_path / "suites" / "other__lib.yaml").is_file()
    (case,) = shop["cases"]
    assert case["repositoryRevision"] == rev and case["query"].startswith("Coupon totals")
    assert [g["anyOf"] for g in case["groups"]] == [
        [{"file": "shop/discount.py"}],
        [{"file": "shop/cart.py"}],
    ]
    assert shop["defaults"]["cutoff"] == 2

    # a file-level TREC run of that suite, imported and evaluated: Acc@2
    run = tmp_path / "run.trec"
    run.write_text(
        "acme__shop-2 Q0 shop/cart.py 1 3.5 bm25\n"
        "acme__shop-2 Q0 shop/discount.py 2 2.0 bm25\n"
        "acme__shop-2 Q0 shop/shipping.py 3 1.0 bm25\n"
        "nope-9 Q0 shop/cart.py 1 1.0 bm25\n"
    )
    attempts = tmp_path / "trec.jsonl"
    proc = run_cli(
        "import",
        "trec",
        str(run),
        "--suite",
        str(tmp_path / "suites" / "acme__shop.yaml"),
        "--out",
        str(attempts),
        "--assume-revision",
        "pinned",
    )
    assert proc.returncode == 0, proc.stderr
    assert "unmatched qid 'nope-9'" in proc.stderr
    proc = run_cli(
        "eval",
        "--cases",
        str(tmp_path / "suites" / "acme__shop.yaml"),
        "--attempts",
        str(attempts),
        "--out",
        str(tmp_path / "out"),
        "--repo",
        str(repo),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads((tmp_path / "out" / "results.json").read_text())
    assert result["passed"] and result["revisionEvidence"] == "asserted"
    assert result["mode"] == "imported"
    assert [e["file"] for e in result["ranked"]] == [
        "shop/cart.py",
        "shop/discount.py",
        "shop/shipping.py",
    ]


def test_trec_docids_with_lines_and_symbols(tmp_path: Path) -> None:
    repo, rev = make_shop(tmp_path)
    suite = write_suite(tmp_path / "suite.yaml", rev)
    run = tmp_path / "run.trec"
    run.write_text(
        "coupon Q0 shop/discount.py:4-7 1 9 team\n"
        "cart-total Q0 shop/cart.py#Cart.total_price 1 9 team\n"
        "express Q0 shop/shipping.py:40-50 1 9 team\n"
    )
    attempts = tmp_path / "a.jsonl"
    proc = run_cli(
        "import",
        "trec",
        str(run),
        "--suite",
        str(suite),
        "--out",
        str(attempts),
        "--assume-revision",
        rev,
    )
    assert proc.returncode == 0, proc.stderr
    proc = run_cli(
        "eval",
        "--cases",
        str(suite),
        "--attempts",
        str(attempts),
        "--out",
        str(tmp_path / "o"),
        "--repo",
        str(repo),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    results = {r["caseId"]: r for r in json.loads((tmp_path / "o" / "results.json").read_text())}
    assert results["coupon"]["passed"] and results["cart-total"]["passed"]
    assert results["cart-total"]["ranked"][0]["startLine"] == 14
    assert "run past the end of shop/shipping.py" in results["express"]["invalidReason"]


def test_bad_rows_name_line_and_field(tmp_path: Path) -> None:
    data = tmp_path / "swe.jsonl"
    data.write_text(
        json.dumps(
            {
                "instance_id": "x-1",
                "repo": "a/b",
                "base_commit": "abc",
                "problem_statement": "p",
                "patch": "p",
            }
        )
        + "\n"
    )
    proc = run_cli("import", "swebench", str(data), "--out", str(tmp_path / "s"))
    assert proc.returncode == 2
    assert "swe.jsonl:1" in proc.stderr and "'x-1'" in proc.stderr and "base_commit" in proc.stderr
