"""`codegold init`: a suite pinned at HEAD, example cases drawn from the code, as drafts."""

from __future__ import annotations

from pathlib import Path

import yaml

from codegold.cases.suite import load_suite
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

CORE = "class Engine:\n    def start(self):\n        return 1\n\n\ndef tiny():\n    return 0\n"
USES = "from core import Engine\n\n\ndef build():\n    return Engine()\n"
TEST = (
    "from core import Engine\n\n\ndef helper():\n    return Engine\n\n\n"
    "def test_engine_starts():\n    assert Engine().start() == 1\n"
)


def test_init_scaffolds_draft_examples_pinned_at_head(tmp_path: Path) -> None:
    repo, shas = make_repo(
        tmp_path,
        [
            {"src/core.py": CORE, "src/uses.py": USES, "tests/test_core.py": TEST},
            {"pyproject.toml": "[project]\nname = 'demo'\n"},
        ],
    )
    out = tmp_path / "suite.yaml"
    done = run_cli("init", "--repo", str(repo), "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "scaffolded 3 draft case(s) at" in done.stdout
    doc = yaml.safe_load(out.read_text())
    assert doc["repository"]["revision"] == shas[-1]
    cases = {c["id"]: c for c in doc["cases"]}
    assert cases["define-engine"]["accepted"] == [
        {"file": "src/core.py", "symbol": "Engine", "roles": ["definition"]}
    ]
    assert cases["define-engine"]["queryClass"] == "exact_identifier"
    usage = cases["usage-engine"]["accepted"][0]
    assert usage == {
        "file": "tests/test_core.py",
        "symbol": "test_engine_starts",
        "roles": ["test"],
    }
    assert cases["config-manifest"]["accepted"] == [{"file": "pyproject.toml"}]
    assert all(c["status"] == "draft" and c["rationale"].startswith("TODO:") for c in doc["cases"])
    assert all(c.draft for c in load_suite(out).cases)
    again = run_cli("init", "--repo", str(repo), "--out", str(out))
    assert again.returncode == 2 and "already exists (pass --force" in again.stderr
