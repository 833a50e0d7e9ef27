"""Suite loading: formats, defaults, and bad input named by file, case and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegold.cases import load_suite
from codegold.errors import InputError

REV = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"
GOOD_CASE = {
    "id": "c1",
    "query": "what is X?",
    "accepted": [{"file": "src/x.py", "symbol": "X", "roles": ["definition"]}],
}


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return p


def test_yaml_json_jsonl_load_the_same(tmp_path: Path) -> None:
    doc = {
        "suite": "s",
        "repository": {"revision": REV},
        "defaults": {"cutoff": 3},
        "cases": [GOOD_CASE],
    }
    y = write(tmp_path, "s.yaml", json.dumps(doc))
    j = write(tmp_path, "s.json", json.dumps(doc))
    case_with_rev = {**GOOD_CASE, "repositoryRevision": REV, "cutoff": 3}
    jl = write(tmp_path, "s.jsonl", json.dumps(case_with_rev) + "\n")
    loaded = [load_suite(p).cases[0] for p in (y, j, jl)]
    assert {(c.id, c.revision, c.cutoff) for c in loaded} == {("c1", REV, 3)}


def test_defaults_and_accepted_become_a_group(tmp_path: Path) -> None:
    doc = {
        "repository": {"revision": REV},
        "defaults": {"forbiddenPathPrefixes": ["src/legacy/"], "tags": ["t0"]},
        "cases": [
            {**GOOD_CASE, "tags": ["t1"], "groups": [{"id": "cfg", "anyOf": [{"file": "c.toml"}]}]}
        ],
    }
    case = load_suite(write(tmp_path, "s.yaml", json.dumps(doc))).cases[0]
    assert case.cutoff == 5
    assert [g.id for g in case.groups] == ["accepted", "cfg"]
    assert case.forbidden_path_prefixes == ("src/legacy/",)
    assert case.tags == ("t0", "t1")


BAD = [
    ("empty", "s.yaml", "", None, None, "empty"),
    (
        "wrong-type",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - id: c1\n    query: q\n    cutoff: five\n    accepted: [{{file: a.py}}]\n",
        "c1",
        "cutoff",
        "Expected `int`",
    ),
    (
        "unknown-role",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - id: c1\n    query: q\n    accepted: [{{file: a.py, roles: [definiton]}}]\n",
        "c1",
        "accepted[0].roles[0]",
        "Invalid enum value",
    ),
    (
        "unknown-field",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - id: c1\n    query: q\n    acepted: [{{file: a.py}}]\n",
        "c1",
        "acepted",
        "unknown field",
    ),
    (
        "cutoff-zero",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - id: c1\n    query: q\n    cutoff: 0\n    accepted: [{{file: a.py}}]\n",
        "c1",
        "cutoff",
        ">= 1",
    ),
    (
        "short-sha",
        "s.yaml",
        "cases:\n  - id: c1\n    query: q\n    repositoryRevision: 3f2a9c1\n    accepted: [{file: a.py}]\n",
        "c1",
        "repositoryRevision",
        "40-hex commit SHA",
    ),
    (
        "no-revision",
        "s.yaml",
        "cases:\n  - id: c1\n    query: q\n    accepted: [{file: a.py}]\n",
        "c1",
        "repositoryRevision",
        "no revision",
    ),
    (
        "duplicate-id",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - {{id: c1, query: q, accepted: [{{file: a.py}}]}}\n  - {{id: c1, query: r, accepted: [{{file: b.py}}]}}\n",
        "c1",
        "id",
        "duplicate",
    ),
    (
        "no-evidence",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - {{id: c1, query: q}}\n",
        "c1",
        "accepted",
        "needs 'accepted' or 'groups'",
    ),
    (
        "target-in-forbidden",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - {{id: c1, query: q, forbiddenPathPrefixes: [src/legacy/], accepted: [{{file: src/legacy/a.py}}]}}\n",
        "c1",
        "accepted",
        "forbidden prefix",
    ),
    (
        "file-and-pattern",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - {{id: c1, query: q, accepted: [{{file: a.py, filePattern: '*.py'}}]}}\n",
        "c1",
        "accepted[0]",
        "exactly one",
    ),
    (
        "lines-backwards-in-a-later-group",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - {{id: c1, query: q, accepted: [{{file: a.py}}], groups: [{{id: g, anyOf: [{{file: b.py}}, {{file: c.py, lines: [9, 3]}}]}}]}}\n",
        "c1",
        "groups[0].anyOf[1].lines",
        "lines end before they start",
    ),
    (
        "supporting-without-file",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - {{id: c1, query: q, accepted: [{{file: a.py}}], supporting: [{{file: b.py}}, {{symbol: f}}]}}\n",
        "c1",
        "supporting[1]",
        "exactly one",
    ),
    (
        "group-target-under-the-second-prefix",
        "s.yaml",
        f"repository: {{revision: {REV}}}\ncases:\n  - {{id: c1, query: q, forbiddenPathPrefixes: [vendor/, src/old/], groups: [{{id: g, anyOf: [{{file: a.py}}, {{file: src/old/b.py}}]}}]}}\n",
        "c1",
        "groups[0].anyOf[1]",
        "lies under forbidden prefix 'src/old/'",
    ),
    ("bad-yaml", "s.yaml", "cases: [\n", None, None, "invalid YAML"),
    (
        "bad-jsonl-line",
        "s.jsonl",
        json.dumps({**GOOD_CASE, "repositoryRevision": REV}) + "\n{oops\n",
        None,
        None,
        "invalid JSON",
    ),
]


@pytest.mark.parametrize(
    ("name", "text", "case_id", "field", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD]
)
def test_bad_input_names_file_case_and_field(
    tmp_path: Path, name: str, text: str, case_id: str | None, field: str | None, message: str
) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as info:
        load_suite(path)
    err = info.value
    assert err.file == str(path)
    assert err.case_id == case_id
    assert err.field == field
    assert message in str(err)


def test_error_carries_the_yaml_line(tmp_path: Path) -> None:
    text = f"repository: {{revision: {REV}}}\ncases:\n  - id: c1\n    query: q\n    cutoff: 0\n    accepted: [{{file: a.py}}]\n"
    with pytest.raises(InputError) as info:
        load_suite(write(tmp_path, "s.yaml", text))
    assert info.value.line == 5
    assert f"{tmp_path / 's.yaml'}:5" in str(info.value)


def test_jsonl_error_carries_the_line(tmp_path: Path) -> None:
    good = json.dumps({**GOOD_CASE, "repositoryRevision": REV})
    bad = json.dumps({**GOOD_CASE, "id": "c2", "repositoryRevision": REV, "cutoff": 0})
    with pytest.raises(InputError) as info:
        load_suite(write(tmp_path, "s.jsonl", f"{good}\n\n{bad}\n"))
    assert (info.value.line, info.value.case_id, info.value.field) == (3, "c2", "cutoff")


def test_non_utf8_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not UTF-8") as info:
        load_suite(write(tmp_path, "s.yaml", b"cases:\n  - id: \xff\n"))
    assert info.value.line == 2


def test_large_suite_loads(tmp_path: Path) -> None:
    cases = [
        {**GOOD_CASE, "id": f"c{i}", "rationale": "x" * 800, "repositoryRevision": REV}
        for i in range(60_000)
    ]
    path = write(tmp_path, "big.jsonl", "\n".join(json.dumps(c) for c in cases))
    assert path.stat().st_size > 50_000_000
    assert len(load_suite(path).cases) == 60_000


@pytest.mark.parametrize("name", ["s.json", "s.yaml", "s.jsonl"])
def test_a_byte_order_mark_is_ignored(tmp_path: Path, name: str) -> None:
    case = {**GOOD_CASE, "repositoryRevision": REV}
    text = json.dumps(case) if name.endswith(".jsonl") else json.dumps({"cases": [case]})
    path = write(tmp_path, name, "\ufeff" + text + "\n")
    assert load_suite(path).cases[0].id == "c1"


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_suite_nested_too_deep_is_refused_and_many_flat_brackets_are_not(
    tmp_path: Path, suffix: str
) -> None:
    case = {
        "id": "c1",
        "query": "q",
        "repositoryRevision": "a" * 40,
        "accepted": [{"file": "src/a.py"}],
        "tags": ["t"],
    }
    deep: Any = "x"
    for _ in range(80):
        deep = [deep]
    nested = {**case, "tags": deep}
    # many brackets side by side, shallow: walked, and accepted
    flat = {**case, "accepted": [{"file": f"src/{i}.py"} for i in range(70)]}

    def write(c: dict[str, Any], name: str) -> Path:
        path = tmp_path / f"{name}{suffix}"
        body = json.dumps({"cases": [c]}) if suffix == ".json" else json.dumps(c)
        path.write_text(body + "\n")
        return path

    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        load_suite(write(nested, "deep"))
    assert len(load_suite(write(flat, "flat")).cases[0].groups[0].any_of) == 70
