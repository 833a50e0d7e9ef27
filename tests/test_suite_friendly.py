"""Friendlier suites: vocabulary warnings, paths normalised, did-you-mean for fields,
a note for a dirty working tree, and a JSON Schema that describes every field."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from codegold.cases import load_suite
from codegold.errors import InputError
from tests.conftest import run_cli

REV = "0123456789abcdef0123456789abcdef01234567"


def _suite(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(f"repository:\n  revision: {REV}\n" + body)
    return path


CASE = """  - id: {id}
    query: where is the session refreshed
    queryClass: {qc}
    tags: [{tags}]
    accepted: [{{file: "{file}"}}]
"""


def test_a_query_class_outside_the_vocabulary_warns_with_a_suggestion(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "cases:\n"
        + CASE.format(id="a", qc="behaviour", tags="auth", file="src/a.py")
        + CASE.format(id="b", qc="behavior", tags="auth", file="src/a.py"),
    )
    suite = load_suite(path)
    assert len(suite.warnings) == 1
    warning = suite.warnings[0]
    assert "case a" in warning and "'behaviour'" in warning
    assert "did you mean 'behavior'?" in warning


def test_declared_vocabulary_admits_its_classes_and_flags_other_tags(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "vocabulary:\n  queryClasses: [refactoring]\n  tags: [auth, billing]\n"
        "cases:\n"
        + CASE.format(id="a", qc="refactoring", tags="auth", file="src/a.py")
        + CASE.format(id="b", qc="behavior", tags="biling", file="src/a.py"),
    )
    warnings = load_suite(path).warnings
    assert len(warnings) == 1
    assert "case b: tag 'biling' is not in vocabulary.tags (did you mean 'billing'?)" in warnings[0]


def test_a_lone_tag_close_to_a_common_one_is_a_likely_typo(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "cases:\n"
        + CASE.format(id="a", qc="behavior", tags="sessions", file="src/a.py")
        + CASE.format(id="b", qc="behavior", tags="sessions", file="src/a.py")
        + CASE.format(id="c", qc="behavior", tags="sesions", file="src/a.py"),
    )
    (warning,) = load_suite(path).warnings
    assert "case c: tag 'sesions'" in warning and "did you mean 'sessions'?" in warning


def test_dot_slash_and_backslash_paths_are_normalised_with_a_warning(tmp_path: Path) -> None:
    path = _suite(
        tmp_path,
        "defaults:\n  forbiddenPathPrefixes: ['.\\\\dist\\\\']\n"
        "cases:\n"
        + CASE.format(id="a", qc="behavior", tags="x", file="./src/auth/session.ts")
        + CASE.format(id="b", qc="behavior", tags="x", file="src\\\\auth\\\\session.ts"),
    )
    suite = load_suite(path)
    files = [t.file for c in suite.cases for t in c.required_targets]
    assert files == ["src/auth/session.ts", "src/auth/session.ts"]
    assert suite.cases[0].forbidden_path_prefixes == ("dist/",)
    assert len(suite.warnings) == 3
    assert any(
        "case a: accepted[0].file: path './src/auth/session.ts'" in w for w in suite.warnings
    )


@pytest.mark.parametrize(
    ("name", "line", "expected"),
    [
        ("escaped-dot-yaml", '{file: "\\x2e/src/a.py"}', "src/a.py"),  # "./" only escaped
        ("escaped-slash-json", '{"file": "src\\/\\/a.py"}', "src/a.py"),  # "//" only so
        ("clean", '{file: "src/a.py"}', "src/a.py"),
    ],
)
def test_a_path_is_normalised_however_the_file_spells_it(
    tmp_path: Path, name: str, line: str, expected: str
) -> None:
    # load_suite skips looking at each case when the text holds nothing a path could be
    # cleaned of: an escape must not hide one
    path = tmp_path / ("suite.json" if "json" in name else "suite.yaml")
    body = f'{{"repository": {{"revision": "{REV}"}}, "cases": [{{"id": "a", "query": "q", '
    path.write_text(body + f'"accepted": [{line}]}}]}}')
    suite = load_suite(path)
    assert [t.file for t in suite.cases[0].required_targets] == [expected]
    assert bool(suite.warnings) == (name != "clean")


@pytest.mark.parametrize(
    ("body", "hint"),
    [
        ("  - {id: a, query: q, querClass: behavior, accepted: [{file: a.py}]}\n", "'queryClass'"),
        ("  - {id: a, query: q, accepted: [{fiel: a.py}]}\n", "'file'"),
        ("  - {id: a, query: q, group: []}\n", "'groups'"),
    ],
)
def test_an_unknown_field_says_what_was_meant(tmp_path: Path, body: str, hint: str) -> None:
    path = _suite(tmp_path, "cases:\n" + body)
    with pytest.raises(InputError) as info:
        load_suite(path)
    assert f"(did you mean {hint}?)" in str(info.value)


def _descriptions_missing(node: Any, where: str, defs: dict[str, Any]) -> list[str]:
    missing: list[str] = []
    for name, prop in (node.get("properties") or {}).items():
        if not prop.get("description"):
            missing.append(f"{where}.{name}")
    return missing


def test_the_suite_schema_has_an_id_and_describes_every_field() -> None:
    proc = run_cli("schema", "suite", check=True)
    doc = json.loads(proc.stdout)
    assert doc["$id"].startswith("urn:codegold:schema:suite:")
    defs = doc["$defs"]
    missing: list[str] = []
    for name, node in defs.items():
        missing += _descriptions_missing(node, name, defs)
        if node.get("type") == "object":
            assert node.get("description"), name
    assert not missing


def test_a_dirty_working_tree_is_noted(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", *args],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()

    git("init", "-q")
    (repo / "a.py").write_text("def refresh_session():\n    return 1\n")
    git("add", "a.py")
    git("commit", "-qm", "one")
    sha = git("rev-parse", "HEAD")
    (repo / "a.py").write_text("def refresh_session():\n    return 2\n")
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        f"repository: {{revision: {sha}}}\ncases:\n"
        "  - {id: a, query: refresh_session, accepted: [{file: a.py, symbol: refresh_session}]}\n"
    )
    proc = run_cli(
        "run",
        "--cases",
        str(suite),
        "--repo",
        str(repo),
        "--embedder",
        "none",
        "--out",
        str(tmp_path / "out"),
    )
    assert proc.returncode == 0, proc.stderr
    assert "uncommitted changes to 1 tracked file (a.py)" in proc.stderr
    git("commit", "-qam", "two")
    clean = run_cli(
        "run",
        "--cases",
        str(suite),
        "--repo",
        str(repo),
        "--embedder",
        "none",
        "--out",
        str(tmp_path / "out2"),
    )
    assert "uncommitted" not in clean.stderr
