"""`codegold eval` of recorded attempts loads only what scoring needs: never
tree-sitter, the chunkers, the index builder or a YAML parser for a JSONL suite."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REV = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"

PROBE = """
import atexit, runpy, sys
report = sys.argv[1]
sys.argv = ["codegold", *sys.argv[2:]]
atexit.register(lambda: open(report, "w").write("\\n".join(sorted(sys.modules))))
runpy.run_module("codegold", run_name="__main__", alter_sys=True)
"""

HEAVY = (
    "tree_sitter",
    "numpy",
    "yaml",
    "codegold.chunking.structural",
    "codegold.chunking.heuristic",
    "codegold.index.build",
    "codegold.resolve",
)


def test_eval_of_a_jsonl_suite_imports_no_parser(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    case = {
        "id": "c1",
        "query": "where is run?",
        "repositoryRevision": REV,
        "accepted": [{"file": "src/app.py", "symbol": "run"}],
    }
    suite.write_text(json.dumps(case) + "\n")
    manifest = {"buildId": "b", "repositoryRevision": REV, "chunkerVersion": "v",
                "pathPolicy": "p", "builtAt": "2024-01-01T00:00:00Z", "complete": True}  # fmt: skip
    chunk = {"chunkId": "k", "file": "src/app.py", "startLine": 1, "endLine": 3,
             "symbol": "run", "role": "definition", "repositoryRevision": REV, "score": 1.0}  # fmt: skip
    attempts = tmp_path / "attempts.jsonl"
    attempt = {"attemptId": "a", "caseId": "c1", "index": manifest, "ranked": [chunk]}
    attempts.write_text(json.dumps(attempt) + "\n")
    report = tmp_path / "modules.txt"
    subprocess.run(
        [sys.executable, "-c", PROBE, str(report), "eval", "--cases", str(suite),
         "--attempts", str(attempts), "--out", str(tmp_path / "out"), "--quiet"],
        check=True,
    )  # fmt: skip
    modules = set(report.read_text().split())
    assert "codegold.evaluate.evaluator" in modules  # it did score
    assert json.loads((tmp_path / "out" / "results.json").read_text())[0]["language"] == "python"
    assert sorted(m for m in HEAVY if m in modules) == []
