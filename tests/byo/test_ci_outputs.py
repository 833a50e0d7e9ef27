"""What a pull request shows: ::error annotations at the failing case's line in the
suite file, JUnit test cases with that file and line and the retrieval's real time,
and the gate's and compare's Markdown for the job summary."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from tests.byo.repo import make_shop, write_suite
from tests.conftest import run_cli


def _line_of(suite: Path, case_id: str) -> int:
    lines = suite.read_text().splitlines()
    return next(i for i, line in enumerate(lines, 1) if re.match(rf"\s*- id: {case_id}$", line))


def test_annotations_junit_and_markdown(tmp_path: Path) -> None:
    repo, rev = make_shop(tmp_path)
    suite = write_suite(tmp_path / "suite.yaml", rev)
    attempts = [
        {
            "attemptId": "coupon#1",
            "caseId": "coupon",
            "durationMs": 12.5,
            "ranked": [{"file": "shop/discount.py", "excerpt": "def apply_coupon(total, coupon):"}],
        },
        {
            "attemptId": "express#1",
            "caseId": "express",
            "durationMs": 250.0,
            "ranked": [{"file": "shop/cart.py", "startLine": 4, "endLine": 16}],
        },
        {
            "attemptId": "add-item#1",
            "caseId": "add-item",
            "durationMs": 3.0,
            "ranked": [{"file": "shop/nowhere.py", "excerpt": "x"}],
        },
    ]
    path = tmp_path / "attempts.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in attempts))
    out = tmp_path / "out"
    run_cli(
        "eval",
        "--cases",
        str(suite),
        "--attempts",
        str(path),
        "--out",
        str(out),
        "--repo",
        str(repo),
        "--assume-revision",
        rev,
        "--quiet",
        check=True,
    )

    proc = run_cli(
        "report", str(out), "--cases", "suite.yaml", "--github-annotations", cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    notes = proc.stdout.splitlines()
    assert len(notes) == 3  # add-item invalid, cart-total without attempt, express failed
    express = next(n for n in notes if "express" in n)
    assert express.startswith(
        f"::error file=suite.yaml,line={_line_of(suite, 'express')},title=codegold%3A express failed::"
    )
    assert "missing groups within top 3" in express
    invalid = next(n for n in notes if "add-item" in n)
    assert f"line={_line_of(suite, 'add-item')}," in invalid and "invalid run%3A" not in invalid
    assert "::invalid run: chunk 1: shop/nowhere.py does not exist" in invalid

    run_cli(
        "report",
        str(out),
        "--cases",
        "suite.yaml",
        "--attempts",
        str(path),
        "--junit",
        str(out / "junit.xml"),
        cwd=tmp_path,
        check=True,
    )
    cases = {c.get("name"): c for c in ET.parse(out / "junit.xml").getroot().iter("testcase")}
    assert cases["express"].get("file") == "suite.yaml"
    assert cases["express"].get("line") == str(_line_of(suite, "express"))
    assert cases["express"].get("time") == "0.25" and cases["coupon"].get("time") == "0.0125"
    assert ET.parse(out / "junit.xml").getroot().get("time") == "0.2655"

    policy = tmp_path / "gate.toml"
    policy.write_text("[gate]\nminPassRate = 0.9\n")
    gate = run_cli("gate", str(out), "--policy", str(policy), "--format", "markdown")
    assert gate.returncode == 1
    assert gate.stdout.startswith("### codegold gate: BLOCKED: 1 of 1 checks failed")
    assert "| ❌ | minPassRate | overall |" in gate.stdout
    compare = run_cli("compare", str(out), str(out), "--format", "markdown", "--resamples", "200")
    assert compare.returncode == 0, compare.stderr
    assert compare.stdout.startswith("### codegold compare:") and "| overall |" in compare.stdout
