"""Plain YAML scalars that YAML readers disagree about, or that break a suite, are
refused with the file, line, case and field named, and the fix (quote the value)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from codegold.cases import load_suite
from codegold.errors import InputError
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

REV = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"
HEAD = f"repository: {{name: demo, revision: {REV}}}\ncases:\n"


def _suite(tmp_path: Path, cases: str) -> Path:
    path = tmp_path / "gold.yaml"
    path.write_text(HEAD + cases, encoding="utf-8")
    return path


QUESTION_MARK = """\
  - id: first
    query: q
    accepted: [{file: lib/entry.rb}]
  - id: name-safe
    query: When is an entry name safe?
    accepted:
      - {file: lib/entry.rb, symbol: Entry.name_safe?}
"""


def test_a_question_mark_in_a_flow_plain_scalar_is_refused(tmp_path: Path) -> None:
    """libyaml reads `{symbol: Entry.name_safe?}`, PyYAML's own loader (yaml.safe_load)
    refuses it: a suite must read the same everywhere, so codegold refuses it too."""
    path = _suite(tmp_path, QUESTION_MARK)
    with pytest.raises(yaml.YAMLError):
        yaml.safe_load(path.read_text())
    with pytest.raises(InputError) as info:
        load_suite(path)
    err = info.value
    assert (err.file, err.line, err.case_id, err.field) == (
        str(path),
        9,
        "name-safe",
        "accepted[0].symbol",
    )
    assert "'Entry.name_safe?'" in err.detail and "quote" in err.detail
    assert "\n" not in str(err)


@pytest.mark.parametrize(
    "cases",
    [
        QUESTION_MARK.replace("symbol: Entry.name_safe?", 'symbol: "Entry.name_safe?"'),
        QUESTION_MARK.replace("symbol: Entry.name_safe?", "symbol: 'Entry.name_safe?'"),
        QUESTION_MARK.replace(
            "      - {file: lib/entry.rb, symbol: Entry.name_safe?}",
            "      - file: lib/entry.rb\n        symbol: Entry.name_safe?",
        ),
    ],
    ids=["double-quoted", "single-quoted", "block-mapping"],
)
def test_the_same_name_quoted_or_in_a_block_mapping_loads(tmp_path: Path, cases: str) -> None:
    path = _suite(tmp_path, cases)
    assert yaml.safe_load(path.read_text())["cases"][1]["accepted"][0]["symbol"] == (
        "Entry.name_safe?"
    )
    suite = load_suite(path)
    assert suite.cases[1].groups[0].any_of[0].symbol == "Entry.name_safe?"


@pytest.mark.parametrize(
    ("cases", "line", "case_id", "field", "says"),
    [
        (
            "  - id: colon\n    query: How does x work: with y?\n    accepted: [{file: a.py}]\n",
            4,
            "colon",
            "query",
            "': '",
        ),
        (
            "  - id: flow-colon\n    query: q\n    accepted: [{file: a.py, symbol: x: y}]\n",
            5,
            "flow-colon",
            "accepted[0].symbol",
            "': '",
        ),
        (
            "  - id: hash\n    query: q\n    accepted:\n      - {file: a.py, symbol: f #1}\n",
            6,
            "hash",
            "accepted[0].symbol",
            "' #'",
        ),
        (
            "  - query: Who calls it: and why?\n    id: late-id\n    accepted: [{file: a.py}]\n",
            3,
            "#1",
            "query",
            "': '",
        ),
    ],
    ids=["colon-in-block-value", "colon-in-flow-value", "hash-in-flow-value", "id-after"],
)
def test_a_broken_plain_scalar_names_its_case_and_field(
    tmp_path: Path, cases: str, line: int, case_id: str, field: str, says: str
) -> None:
    path = _suite(tmp_path, cases)
    with pytest.raises(InputError) as info:
        load_suite(path)
    err = info.value
    assert (err.line, err.case_id, err.field) == (line, case_id, field)
    assert "invalid YAML" in err.detail and says in err.detail and "quote" in err.detail


def test_a_syntax_error_off_any_value_names_the_case_only(tmp_path: Path) -> None:
    cases = "  - id: indent\n    query: q\n   accepted: [{file: a.py}]\n"
    with pytest.raises(InputError) as info:
        load_suite(_suite(tmp_path, cases))
    assert (info.value.line, info.value.case_id, info.value.field) == (5, "indent", None)


def test_lint_refuses_it_in_one_line_with_exit_2(tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path / "repo", [{"lib/entry.rb": "class Entry\nend\n"}])
    path = _suite(tmp_path, QUESTION_MARK)
    proc = run_cli("lint", str(path), "--repo", str(repo), "--index", str(tmp_path / "index"))
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert f"{path}:9, case 'name-safe', field 'accepted[0].symbol'" in proc.stderr
