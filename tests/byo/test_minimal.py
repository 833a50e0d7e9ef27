"""SPEC §2 minimal chunks: file with excerpt, or file with lines, evaluated end to end."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.byo.repo import FILES, make_shop, write_suite
from tests.conftest import run_cli


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    tmp = tmp_path_factory.mktemp("minimal")
    repo, rev = make_shop(tmp)
    write_suite(tmp / "suite.yaml", rev)
    return tmp, repo, rev


def _attempts(rev: str | None) -> list[dict[str, object]]:
    coupon = FILES["shop/discount.py"].split("\n\n\n")[1]
    out: list[dict[str, object]] = [
        {
            "attemptId": "a1",
            "caseId": "coupon",
            "ranked": [{"file": "shop/discount.py", "excerpt": coupon}],
        },
        {
            "attemptId": "a2",
            "caseId": "cart-total",
            "ranked": [
                {"file": "shop/shipping.py", "startLine": 4, "endLine": 7},
                {
                    "file": "shop/cart.py",
                    "startLine": 14,
                    "endLine": 16,
                    "symbol": "total",
                    "role": "test",
                },
            ],
        },
        {
            "attemptId": "a3",
            "caseId": "express",
            "ranked": [{"file": "shop/gone.py", "excerpt": "def x(): ..."}],
        },
        {
            "attemptId": "a4",
            "caseId": "add-item",
            "ranked": [{"file": "shop/cart.py", "excerpt": "self.items.append((sku, quantity))"}],
        },
    ]
    if rev is not None:
        for a in out:
            a["index"] = {
                "buildId": "team-index",
                "repositoryRevision": rev,
                "chunkerVersion": "team/1",
                "pathPolicy": "team",
                "builtAt": "2024-01-01T00:00:00Z",
                "complete": True,
            }
    return out


def _eval(tmp: Path, name: str, attempts: list[dict[str, object]], *extra: str) -> dict[str, dict]:
    path = tmp / f"{name}.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in attempts))
    proc = run_cli(
        "eval",
        "--cases",
        str(tmp / "suite.yaml"),
        "--attempts",
        str(path),
        "--out",
        str(tmp / name),
        "--quiet",
        *extra,
    )
    assert proc.returncode == 0, proc.stderr
    return {r["caseId"]: r for r in json.loads((tmp / name / "results.json").read_text())}


def test_minimal_chunks_are_resolved_and_scored(shop: tuple[Path, Path, str]) -> None:
    tmp, repo, rev = shop
    results = _eval(tmp, "manifest", _attempts(rev), "--repo", str(repo))
    assert results["coupon"]["passed"] and results["add-item"]["passed"]
    assert results["coupon"]["revisionEvidence"] == "manifest"
    top = results["cart-total"]["ranked"]
    assert [e["resolved"] for e in top] == [True, True]
    assert results["cart-total"]["passed"] and results["cart-total"]["firstRelevantRank"] == 2
    # the claim is kept and its disagreement with the parse is recorded
    assert top[1]["symbol"] == "Cart.total_price" and top[1]["role"] == "definition"
    assert (
        top[1]["claimMismatch"] == "symbol 'total' not in Cart.total_price; role test vs definition"
    )
    bad = results["express"]
    assert bad["valid"] is False and bad["invalidReason"].startswith(
        "chunk 1: shop/gone.py does not exist at "
    )


def test_assume_revision_is_reported_as_asserted(shop: tuple[Path, Path, str]) -> None:
    tmp, repo, rev = shop
    no_manifest = _eval(tmp, "nomanifest", _attempts(None), "--repo", str(repo))
    assert no_manifest["coupon"]["valid"] is False
    assert "no revision to resolve it at" in no_manifest["coupon"]["invalidReason"]
    results = _eval(tmp, "asserted", _attempts(None), "--repo", str(repo), "--assume-revision", rev)
    assert results["coupon"]["passed"] and results["coupon"]["revisionEvidence"] == "asserted"
    proc = run_cli(
        "eval",
        "--cases",
        str(tmp / "suite.yaml"),
        "--attempts",
        str(tmp / "asserted.jsonl"),
        "--out",
        str(tmp / "x"),
        "--assume-revision",
        "abc123",
    )
    assert proc.returncode == 2 and "--assume-revision" in proc.stderr and "40-hex" in proc.stderr


def test_without_the_repository_minimal_chunks_invalidate_only_their_cases(
    shop: tuple[Path, Path, str],
) -> None:
    tmp, _, rev = shop
    results = _eval(tmp, "norepo", _attempts(rev))
    assert all(not r["valid"] for r in results.values())
    assert "resolving it needs the repository (--repo)" in results["coupon"]["invalidReason"]


def test_command_adapter_may_answer_minimal_chunks(shop: tuple[Path, Path, str]) -> None:
    tmp, repo, rev = shop
    script = tmp / "grep_retriever.py"
    script.write_text(
        "import json, subprocess, sys\n"
        "req = json.load(sys.stdin)\n"
        "words = [w.strip('?,.').lower() for w in req['query'].split() if len(w) > 4]\n"
        "ranked = []\n"
        "for path in ['shop/cart.py', 'shop/discount.py', 'shop/shipping.py']:\n"
        "    text = subprocess.run(['git', '-C', sys.argv[1], 'show', req['repositoryRevision'] + ':' + path],\n"
        "                          capture_output=True, text=True, check=True).stdout\n"
        "    for n, line in enumerate(text.splitlines(), 1):\n"
        "        if line.lstrip().startswith('def ') and any(w in line.lower() for w in words):\n"
        "            ranked.append({'file': path, 'excerpt': line.strip()})\n"
        "json.dump({'ranked': ranked}, sys.stdout)\n"
    )
    proc = run_cli(
        "run",
        "--cases",
        str(tmp / "suite.yaml"),
        "--repo",
        str(repo),
        "--out",
        str(tmp / "cmd"),
        "--index",
        str(tmp / "index"),
        "--embedder",
        "none",
        "--quiet",
        "--assume-revision",
        rev,
        "--retriever",
        f"command:{sys.executable} {script} {repo}",
    )
    assert proc.returncode == 0, proc.stderr
    results = {r["caseId"]: r for r in json.loads((tmp / "cmd" / "results.json").read_text())}
    assert results["coupon"]["passed"] and results["express"]["passed"]
    assert all(r["revisionEvidence"] == "asserted" for r in results.values())
    assert all(e["resolved"] for r in results.values() for e in r["ranked"])
