"""The path policy: default rules, precedence, attributes, markers, loading, digest."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import pathspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.corpus import (
    DEFAULT_PATTERNS,
    FileRole,
    FileStatus,
    GitRepo,
    PathPolicy,
    build_marker,
    generated_marker,
    load_policy,
    parse_gitattributes,
)
from codegold.corpus.policy import _Matcher, _pattern_regex
from codegold.errors import InputError
from tests.corpus.gitfixture import make_repo

DEFAULT = PathPolicy()
EXCLUDED_ROLES = {"vendored", "build"}


def _sample(pattern: str) -> str:
    """A path the pattern matches, and no earlier rule should."""
    body = pattern.lstrip("/")
    body = body.replace("*", "sample")
    return body + "sample.txt" if body.endswith("/") else body


DEFAULT_RULES = [
    (name, pattern)
    for name, patterns in DEFAULT_PATTERNS.items()
    if name != "include"
    for pattern in patterns
    if not pattern.startswith("!")  # a negation never names the rule that fired
]


@pytest.mark.parametrize(
    "path", ["doc/md_docs.go", "pkg/doc/gen.rs", "doc/x/Y.java", "src/doc/gen.py"]
)
def test_code_in_a_doc_package_is_source(path: str) -> None:
    result = DEFAULT.classify(path, b"package doc\n", size=12)
    assert result.role is FileRole.SOURCE


@pytest.mark.parametrize("path", ["doc/notes.txt", "docs/conf.py", "doc/guide.md"])
def test_doc_folders_still_hold_docs(path: str) -> None:
    assert DEFAULT.classify(path, b"x\n", size=2).role is FileRole.DOCS


@pytest.mark.parametrize(
    ("name", "pattern"), DEFAULT_RULES, ids=[f"{n}:{p}" for n, p in DEFAULT_RULES]
)
def test_every_default_rule_fires_and_is_named(name: str, pattern: str) -> None:
    path = _sample(pattern)
    result = DEFAULT.classify(path, b"x = 1\n", size=6)
    assert result.rule == f"default:{name}:{pattern}", path
    if name == "exclude":
        assert result.status is FileStatus.EXCLUDED
    else:
        assert result.role is FileRole(name)
        expected = FileStatus.EXCLUDED if name in EXCLUDED_ROLES else FileStatus.INDEXED
        assert result.status is expected


@pytest.mark.parametrize(
    ("path", "status", "role", "rule"),
    [
        ("src/auth/session.ts", FileStatus.INDEXED, FileRole.SOURCE, None),
        (
            "src/legacy/session.ts",
            FileStatus.INDEXED,
            FileRole.MIGRATION,
            "default:migration:legacy/",
        ),
        (
            "node_modules/react/index.js",
            FileStatus.EXCLUDED,
            FileRole.VENDORED,
            "default:vendored:node_modules/",
        ),
        (
            "pkg/vendor/github.com/x/y.go",
            FileStatus.EXCLUDED,
            FileRole.VENDORED,
            "default:vendored:vendor/",
        ),
        ("web/static/app.min.js", FileStatus.EXCLUDED, FileRole.BUILD, "default:build:*.min.js"),
        (
            "crates/core/target/debug/build.rs",
            FileStatus.EXCLUDED,
            FileRole.BUILD,
            "default:build:target/",
        ),
        (
            "api/v1/service_pb2.py",
            FileStatus.INDEXED,
            FileRole.GENERATED,
            "default:generated:*_pb2.py",
        ),
        (
            "app/migrations/0001_initial.py",
            FileStatus.INDEXED,
            FileRole.MIGRATION,
            "default:migration:migrations/",
        ),
        ("pkg/client/client_test.go", FileStatus.INDEXED, FileRole.TEST, "default:test:*_test.go"),
        ("src/session.spec.ts", FileStatus.INDEXED, FileRole.TEST, "default:test:*.spec.*"),
        ("src/main/java/Foo.java", FileStatus.INDEXED, FileRole.SOURCE, None),
        ("src/test/java/FooHelper.java", FileStatus.INDEXED, FileRole.TEST, "default:test:test/"),
        (
            "src/test/java/FooTest.java",
            FileStatus.INDEXED,
            FileRole.TEST,
            "default:test:*Test.java",
        ),
        # PHPUnit keeps a class's tests beside it as often as under tests/
        (
            "src/Local/LocalAdapterTest.php",
            FileStatus.INDEXED,
            FileRole.TEST,
            "default:test:*Test.php",
        ),
        ("src/Local/LocalAdapter.php", FileStatus.INDEXED, FileRole.SOURCE, None),
        ("docs/guide/index.md", FileStatus.INDEXED, FileRole.DOCS, "default:docs:*.md"),
        ("docs/conf.py", FileStatus.INDEXED, FileRole.DOCS, "default:docs:docs/"),
        ("examples/quickstart.py", FileStatus.INDEXED, FileRole.DOCS, "default:docs:examples/"),
        # Go leaves folders starting with _ out of builds: _examples/ holds example programs
        (
            "_examples/custom-validation/main.go",
            FileStatus.INDEXED,
            FileRole.DOCS,
            "default:docs:_examples/",
        ),
        # Rust keeps a module's `#[cfg(test)] mod tests;` body in its own tests.rs
        ("src/naive/date/tests.rs", FileStatus.INDEXED, FileRole.TEST, "default:test:tests.rs"),
        ("src/naive/date/mod.rs", FileStatus.INDEXED, FileRole.SOURCE, None),
        # a C program named test is the test suite (http-parser, hiredis, cJSON test.c);
        # werkzeug's test.py is its test client, library code
        ("test.c", FileStatus.INDEXED, FileRole.TEST, "default:test:test.c"),
        ("contrib/iostream3/test.cc", FileStatus.INDEXED, FileRole.TEST, "default:test:test.cc"),
        ("src/werkzeug/test.py", FileStatus.INDEXED, FileRole.SOURCE, None),
        (
            "pyproject.toml",
            FileStatus.INDEXED,
            FileRole.CONFIGURATION,
            "default:configuration:*.toml",
        ),
        (
            "renovate.json",
            FileStatus.INDEXED,
            FileRole.CONFIGURATION,
            "default:configuration:/*.json",
        ),
        (
            "web/tsconfig.json",
            FileStatus.INDEXED,
            FileRole.CONFIGURATION,
            "default:configuration:tsconfig*.json",
        ),
        ("src/data/table.json", FileStatus.INDEXED, FileRole.SOURCE, None),
        (
            "frontend/package-lock.json",
            FileStatus.EXCLUDED,
            FileRole.SOURCE,
            "default:exclude:package-lock.json",
        ),
        ("go.sum", FileStatus.EXCLUDED, FileRole.SOURCE, "default:exclude:go.sum"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_realistic_paths(path: str, status: FileStatus, role: FileRole, rule: str | None) -> None:
    assert DEFAULT.classify(path, b"code\n", size=5) == (status, role, rule)


@pytest.mark.parametrize(
    ("path", "role", "rule"),
    [
        ("vendor/pkg/tests/test_x.py", FileRole.VENDORED, "default:vendored:vendor/"),
        ("dist/generated/x_pb2.py", FileRole.BUILD, "default:build:dist/"),
        ("test/build/version.test.js", FileRole.TEST, "default:test:*.test.*"),
        ("tests/fixtures/api_pb2.py", FileRole.GENERATED, "default:generated:*_pb2.py"),
        ("tests/migrations/0001.py", FileRole.MIGRATION, "default:migration:migrations/"),
        ("docs/tests/test_docs.py", FileRole.TEST, "default:test:test_*.py"),
        ("docs/config/settings.yaml", FileRole.DOCS, "default:docs:docs/"),
    ],
    ids=[
        "vendored>test",
        "build>generated",
        "test>configuration(build/)",
        "generated>test",
        "migration>test",
        "test>docs",
        "docs>configuration",
    ],
)
def test_role_precedence(path: str, role: FileRole, rule: str) -> None:
    result = DEFAULT.classify(path, b"x\n", size=2)
    assert (result.role, result.rule) == (role, rule)


def test_exclude_beats_include_and_include_beats_excluded_roles() -> None:
    policy = PathPolicy(
        exclude=("src/legacy/",),
        include=("src/legacy/", "vendor/ours/"),
        origin="codegold.toml",
    )
    assert policy.classify("src/legacy/a.py", b"x\n") == (
        FileStatus.EXCLUDED,
        FileRole.MIGRATION,
        "codegold.toml:exclude:src/legacy/",
    )
    assert policy.classify("vendor/ours/lib.go", b"x\n") == (
        FileStatus.INDEXED,
        FileRole.VENDORED,
        "codegold.toml:include:vendor/ours/",
    )
    assert policy.classify("vendor/theirs/lib.go", b"x\n").status is FileStatus.EXCLUDED


def test_include_does_not_override_size_or_binary() -> None:
    policy = PathPolicy(include=("vendor/",), max_file_bytes=10)
    assert policy.classify("vendor/big.js", b"x" * 11, size=11).status is FileStatus.OVERSIZE
    assert policy.classify("vendor/blob.js", b"\0", size=1).status is FileStatus.BINARY


def test_user_patterns_are_labelled_with_their_origin_and_negation_works() -> None:
    policy = PathPolicy(
        vendored=(*DEFAULT_PATTERNS["vendored"], "!vendor/ours/"),
        test=(*DEFAULT_PATTERNS["test"], "qa/"),
        origin="codegold.toml",
    )
    assert policy.classify("vendor/ours/x.go", b"x\n").role is FileRole.SOURCE
    assert policy.classify("vendor/theirs/x.go", b"x\n").rule == "default:vendored:vendor/"
    assert policy.classify("qa/smoke.py", b"x\n").rule == "codegold.toml:test:qa/"


def test_excluding_a_role_reports_why_the_path_has_it() -> None:
    policy = PathPolicy(exclude_roles=frozenset({FileRole.TEST, FileRole.SOURCE}))
    assert policy.classify("tests/helpers.py", b"x\n") == (
        FileStatus.EXCLUDED,
        FileRole.TEST,
        "default:test:tests/",
    )
    assert policy.classify("src/a.py", b"x\n") == (
        FileStatus.EXCLUDED,
        FileRole.SOURCE,
        "policy:exclude-roles:source",
    )


# -- binary and size ------------------------------------------------------------------


def test_binary_and_oversize() -> None:
    policy = PathPolicy(max_file_bytes=100)
    assert policy.classify("a.dat", b"ab\0cd", size=5) == (
        FileStatus.BINARY,
        FileRole.SOURCE,
        "binary:nul-byte",
    )
    late_nul = b"a" * 8192 + b"\0"
    assert policy.classify("b.txt", late_nul, size=50).status is FileStatus.INDEXED
    assert policy.classify("c.py", b"x" * 101, size=101) == (
        FileStatus.OVERSIZE,
        FileRole.SOURCE,
        "max-file-bytes:100",
    )
    assert policy.classify("d.py", b"x" * 100, size=100).status is FileStatus.INDEXED
    # Oversize files are not read: their content cannot change the role.
    big_generated = b"// @generated\n" + b"x" * 200
    assert policy.classify("e.js", big_generated, size=214).role is FileRole.SOURCE


def test_default_size_limit_is_one_mebibyte() -> None:
    assert DEFAULT.max_file_bytes == 1 << 20
    assert DEFAULT.classify("a.py", None, size=(1 << 20) + 1).status is FileStatus.OVERSIZE


# -- generated markers ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "marker"),
    [
        (
            b"// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n",
            "Code generated ... DO NOT EDIT",
        ),
        (
            b"# -*- coding: utf-8 -*-\n# Generated by the protocol buffer compiler.  DO NOT EDIT!\n",
            "generated ... DO NOT EDIT",
        ),
        (b"/**\n * @generated SignedSource<<abc>>\n */\nexport const x = 1;\n", "@generated"),
        (
            b"#\n# This file is autogenerated by pip-compile with Python 3.12\n#\nclick==8.1\n",
            "auto-generated",
        ),
        (
            b"//------\n// <auto-generated>\n//   tool\n// </auto-generated>\nclass A {}\n",
            "auto-generated",
        ),
        (b'"""Automatically generated by the schema tool."""\nX = 1\n', "auto-generated"),
        (b"package x\n\nfunc A() {}\n" + b"\n" * 10 + b"// @generated by tool\n", "@generated"),
    ],
    ids=["go", "protobuf-python", "signed-source", "pip-compile", "csharp", "docstring", "tail"],
)
def test_generated_markers(content: bytes, marker: str) -> None:
    assert generated_marker(content) == marker
    result = DEFAULT.classify("src/module.x", content, size=len(content))
    assert (result.role, result.rule) == (FileRole.GENERATED, f"content:generated:{marker}")


@pytest.mark.parametrize(
    "content",
    [
        b'MARKER = "@generated"\nGO = "Code generated by x. DO NOT EDIT."\n',
        b"# Generated by Django 5.2 on 2025-04-02 10:00\nfrom django.db import migrations\n",
        b"import x\n" + b"y = 1\n" * 20 + b"id = AutoField()  # auto-generated primary key\n",
        b"def f():\n    pass\n",
        b"",
    ],
    ids=["string-literals", "django-migration-header", "late-weak-marker", "plain", "empty"],
)
def test_not_generated(content: bytes) -> None:
    assert generated_marker(content) is None


def test_markers_beyond_the_header_do_not_count() -> None:
    content = b"x = 1\n" * 1000 + b"# @generated\n" + b"y = 2\n" * 10
    assert generated_marker(content) is None


@pytest.mark.parametrize(
    ("content", "marker"),
    [
        (
            b'"use strict";\nexports.parse = parse;\nfunction parse() {}\n'
            b"//# sourceMappingURL=index.js.map\n",
            "sourceMappingURL",
        ),
        (b"a{color:red}\n/*# sourceMappingURL=app.css.map */\n\n", "sourceMappingURL"),
        (
            b"var a = 1;\n//@ sourceMappingURL=data:application/json;base64,eyJ9\n",
            "sourceMappingURL",
        ),
        (
            b"/******/ (() => { // webpackBootstrap\n/******/ \tvar __webpack_modules__ = ({\n",
            "webpackBootstrap",
        ),
        (
            b"/*! For license information please see main.js.LICENSE.txt */\n(()=>{var e={};})();\n",
            "license pointer",
        ),
    ],
    ids=["tsc-output", "css-output", "inline-map", "webpack", "terser"],
)
def test_build_markers(content: bytes, marker: str) -> None:
    assert build_marker(content) == marker
    result = DEFAULT.classify("test/fixtures/lib.js", content, size=len(content))
    assert result == (FileStatus.EXCLUDED, FileRole.BUILD, f"content:build:{marker}")


@pytest.mark.parametrize(
    "content",
    [
        # postcss's own test: the comment is inside a regex literal, not a line of its own
        b"test('map', () => {\n  match(result.css, /a {}\\n\\/\\*# sourceMappingURL=/)\n})\n",
        # a bundler's source speaks of the comment it writes
        b'const comment = "//# sourceMappingURL=" + name;\nexport { comment };\n',
        # a source-map link followed by more code is not what a compiler writes last
        b"//# sourceMappingURL=a.js.map\nvar later = 1;\n",
        b"// webpackBootstrap is what webpack calls its runtime\nmodule.exports = {};\n",
        b"/*! Hand-written v1.2.3 | MIT */\nexport function f() {}\n",
        b"",
    ],
    ids=["regex-in-test", "string", "not-last", "mention", "license-banner", "empty"],
)
def test_not_build_output(content: bytes) -> None:
    assert build_marker(content) is None
    assert DEFAULT.classify("src/lib.js", content, size=len(content)).role is FileRole.SOURCE


# -- .gitattributes ---------------------------------------------------------------------


def _attrs(files: Mapping[str, str], path: str) -> Mapping[str, object]:
    return parse_gitattributes(files.items()).lookup(path)


def test_gitattributes_linguist_roles() -> None:
    files = {
        ".gitattributes": (
            "# comment\n"
            "api/** linguist-generated\n"
            "*.pb.go linguist-generated=false\n"
            "extern/ linguist-vendored\n"
            "guide/*.py linguist-documentation=true\n"
            "*.txt text eol=lf\n"
        ),
        "sub/.gitattributes": "keep.py -linguist-generated\nmock/*.py !linguist-vendored\n",
    }
    attrs = parse_gitattributes(files.items())

    def classify(path: str) -> tuple[FileStatus, FileRole, str | None]:
        return tuple(DEFAULT.classify(path, b"x\n", attrs.lookup(path)))  # type: ignore[return-value]

    assert classify("api/v1/users.py") == (
        FileStatus.INDEXED,
        FileRole.GENERATED,
        ".gitattributes:linguist-generated:api/**",
    )
    # An attribute set to false vetoes the default pattern.
    assert classify("x/y.pb.go")[1] is FileRole.SOURCE
    assert classify("extern/lib/a.c") == (
        FileStatus.EXCLUDED,
        FileRole.VENDORED,
        ".gitattributes:linguist-vendored:extern/",
    )
    assert classify("guide/tour.py") == (
        FileStatus.INDEXED,
        FileRole.DOCS,
        ".gitattributes:linguist-documentation:guide/*.py",
    )
    assert "linguist-generated" not in attrs.lookup("notes.txt")


def test_nested_gitattributes_apply_below_their_directory_and_win() -> None:
    files = {
        ".gitattributes": "*.py linguist-generated\n",
        "sub/.gitattributes": "keep.py -linguist-generated\n/top.py linguist-vendored\n",
    }
    assert _attrs(files, "sub/deep/keep.py")["linguist-generated"].value is False  # type: ignore[attr-defined]
    assert _attrs(files, "keep.py")["linguist-generated"].value is True  # type: ignore[attr-defined]
    assert "linguist-vendored" in _attrs(files, "sub/top.py")
    assert "linguist-vendored" not in _attrs(files, "sub/deep/top.py")
    assert "linguist-vendored" not in _attrs(files, "top.py")


def test_unset_attribute_returns_to_unspecified() -> None:
    files = {".gitattributes": "*.go linguist-generated\nmain.go !linguist-generated\n"}
    assert "linguist-generated" not in _attrs(files, "main.go")
    assert (
        DEFAULT.classify("x_pb2.py", b"x\n", {"linguist-generated": False}).role is FileRole.SOURCE
    )


def test_user_pattern_beats_gitattributes_and_attributes_beat_defaults() -> None:
    policy = PathPolicy(generated=("gen/",), origin="codegold.toml")
    unset = {"linguist-generated": False}
    assert policy.classify("gen/a.py", b"x\n", unset).rule == "codegold.toml:generated:gen/"
    assert DEFAULT.classify("a_pb2.py", b"// @generated\n", unset).role is FileRole.SOURCE


# -- matching semantics -------------------------------------------------------------------


_PARTS = st.sampled_from(["a", "b", "src", "test", "x.py", "y.min.js", "vendor", "v1"])
_PATTERNS = st.sampled_from(
    [
        "a", "a/", "b/", "/a", "/src/", "src/a/", "*.py", "*.min.js", "!*.py", "!a/",
        "x*", "v?", "[ab]", "v*/", "!x*/", "*", "**", "*/", "!*.min.js", "**/b", "a/**", "a/**/x.py", "test/", "!/src/", "vendor", "src/*.py",
    ]
)  # fmt: skip


def _reference(patterns: tuple[str, ...], path: str) -> str | None:
    """Last matching pattern decides, each translated by pathspec on its own."""
    decided: str | None = None
    for pattern in patterns:
        compiled = pathspec.GitIgnoreSpec.from_lines([pattern]).patterns[0]
        if compiled.include is not None and compiled.match_file(path) is not None:
            decided = pattern if compiled.include else None
    return decided


@settings(max_examples=400, deadline=None)
@given(
    patterns=st.lists(_PATTERNS, min_size=1, max_size=6).map(tuple),
    path=st.lists(_PARTS, min_size=1, max_size=4).map("/".join),
)
def test_fast_matcher_agrees_with_pathspec(patterns: tuple[str, ...], path: str) -> None:
    assert _Matcher(patterns).match(path) == _reference(patterns, path)


_EDGE_LINES = ["", "   ", "# a comment", "\\#hash", "!", "!a/", "\\!bang", "a\\ ", "a b", "/", "//",
               "***", "a/**/b", "**/", "[a-z]*.py", "!/src/"]  # fmt: skip


@pytest.mark.parametrize(
    "line",
    sorted(
        {p for ps in DEFAULT_PATTERNS.values() for p in ps}
        | {"/" + p.strip("!/") for ps in DEFAULT_PATTERNS.values() for p in ps}
        | set(_EDGE_LINES)
    ),
)
def test_pattern_translation_is_pathspecs_compiled_regex(line: str) -> None:
    """Translated without compiling, each line gives the regex pathspec compiles."""
    try:
        compiled = pathspec.GitIgnoreSpec.from_lines([line]).patterns
    except ValueError as exc:  # an invalid line fails alike (loading rejects it first)
        with pytest.raises(type(exc)):
            _pattern_regex(line)
        return
    regex = getattr(compiled[0], "regex", None) if compiled else None
    if regex is None or compiled[0].include is None:
        assert _pattern_regex(line) is None
    else:
        body = re.sub(r"\(\?P<[^>]+>", "(?:", regex.pattern)
        assert _pattern_regex(line) == (body, bool(compiled[0].include))


# -- loading ------------------------------------------------------------------------------


def _toml(policy: str) -> str:
    return "[policy]\n" + policy


def test_policy_from_codegold_toml_at_the_revision(tmp_path: Path) -> None:
    path, (first, second) = make_repo(
        tmp_path,
        [
            {"codegold.toml": _toml('exclude = ["src/legacy/"]\n'), "src/a.py": "a\n"},
            {"codegold.toml": _toml('extend-exclude = ["src/old/"]\nextend-test = ["qa/"]\n')},
        ],
    )
    (path / "codegold.toml").write_text(_toml('exclude = ["src/"]\n'))  # uncommitted
    with GitRepo(path) as repo:
        at_first = load_policy(repo=repo, revision=first)
        at_second = load_policy(repo=repo, revision=second)
    assert at_first.exclude == ("src/legacy/",)  # replaced the defaults
    assert at_first.classify("src/legacy/x.py", b"x\n").rule == "codegold.toml:exclude:src/legacy/"
    assert at_second.exclude == (*DEFAULT_PATTERNS["exclude"], "src/old/")
    assert at_second.test == (*DEFAULT_PATTERNS["test"], "qa/")
    assert at_second.classify("qa/run.py", b"x\n").rule == "codegold.toml:test:qa/"
    assert at_second.classify("yarn.lock", b"x\n").rule == "default:exclude:yarn.lock"


def test_policy_from_pyproject_tool_table(tmp_path: Path) -> None:
    pyproject = (
        '[project]\nname = "demo"\n\n[tool.codegold.policy]\n'
        'include = ["vendor/ours/"]\nexclude-roles = ["vendored"]\nmax-file-bytes = 2048\n'
    )
    path, (sha,) = make_repo(tmp_path, [{"pyproject.toml": pyproject}])
    with GitRepo(path) as repo:
        policy = load_policy(repo=repo, revision=sha)
    assert policy.include == ("vendor/ours/",)
    assert policy.exclude_roles == {FileRole.VENDORED}
    assert policy.max_file_bytes == 2048
    assert policy.classify("build/x.js", b"x\n").status is FileStatus.INDEXED
    assert policy.classify("vendor/ours/a.go", b"x\n").rule == "pyproject.toml:include:vendor/ours/"


def test_codegold_toml_wins_over_pyproject(tmp_path: Path) -> None:
    path, (sha,) = make_repo(
        tmp_path,
        [
            {
                "codegold.toml": _toml("max-file-bytes = 10\n"),
                "pyproject.toml": "[tool.codegold.policy]\nmax-file-bytes = 20\n",
            }
        ],
    )
    with GitRepo(path) as repo:
        assert load_policy(repo=repo, revision=sha).max_file_bytes == 10


def test_defaults_when_the_revision_has_no_policy(tmp_path: Path) -> None:
    path, (sha,) = make_repo(tmp_path, [{"pyproject.toml": '[project]\nname = "x"\n'}])
    with GitRepo(path) as repo:
        assert load_policy(repo=repo, revision=sha) == PathPolicy()
    assert load_policy() == PathPolicy()


def test_explicit_config_path_wins(tmp_path: Path) -> None:
    path, (sha,) = make_repo(tmp_path, [{"codegold.toml": _toml("max-file-bytes = 10\n")}])
    explicit = tmp_path / "ci-policy.toml"
    explicit.write_text(_toml("max-file-bytes = 30\n[gate]\nminPassRate = 0.9\n"))
    with GitRepo(path) as repo:
        policy = load_policy(repo=repo, revision=sha, config_path=explicit)
    assert policy.max_file_bytes == 30
    assert policy.origin == "ci-policy.toml"
    project = tmp_path / "pyproject.toml"
    project.write_text("[tool.codegold.policy]\nmax-file-bytes = 40\n")
    assert load_policy(config_path=project).max_file_bytes == 40


@pytest.mark.parametrize(
    ("text", "field", "message"),
    [
        ('excludes = ["x/"]\n', "excludes", "unknown key"),
        ("exclude = 'x/'\n", "exclude", "list of strings"),
        ("extend-test = [1]\n", "extend-test", "list of strings"),
        ('exclude-roles = ["vendor"]\n', "exclude-roles", "unknown role"),
        ("max-file-bytes = 0\n", "max-file-bytes", "positive integer"),
        ("max-file-bytes = true\n", "max-file-bytes", "positive integer"),
    ],
    ids=["unknown-key", "not-a-list", "not-strings", "bad-role", "zero-size", "bool-size"],
)
def test_bad_policy_is_an_input_error_naming_file_and_key(
    tmp_path: Path, text: str, field: str, message: str
) -> None:
    config = tmp_path / "codegold.toml"
    config.write_text(_toml(text))
    with pytest.raises(InputError, match=message) as caught:
        load_policy(config_path=config)
    assert caught.value.file == str(config)
    assert caught.value.field == field
    assert str(config) in str(caught.value)


def test_bad_policy_at_a_revision_names_the_file_and_commit(tmp_path: Path) -> None:
    path, (sha,) = make_repo(tmp_path, [{"codegold.toml": _toml("colour = 1\n")}])
    with GitRepo(path) as repo, pytest.raises(InputError) as caught:
        load_policy(repo=repo, revision=sha)
    assert caught.value.file == f"codegold.toml at {sha[:12]}"
    assert caught.value.field == "colour"


@pytest.mark.parametrize(
    "text",
    ["[policy\n", "policy = 3\n", "[policy]\nexclude = ['a']\nexclude = ['b']\n"],
    ids=["syntax", "not-a-table", "duplicate-key"],
)
def test_malformed_toml(tmp_path: Path, text: str) -> None:
    config = tmp_path / "codegold.toml"
    config.write_text(text)
    with pytest.raises(InputError) as caught:
        load_policy(config_path=config)
    assert caught.value.file == str(config)


def test_missing_explicit_config_and_pyproject_without_table(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        load_policy(config_path=tmp_path / "absent.toml")
    project = tmp_path / "pyproject.toml"
    project.write_text('[project]\nname = "x"\n')
    with pytest.raises(InputError, match=r"no \[tool.codegold\] table"):
        load_policy(config_path=project)


def test_load_policy_with_a_repo_needs_the_revision(tmp_path: Path) -> None:
    path, _ = make_repo(tmp_path, [{"a": "a"}])
    with GitRepo(path) as repo, pytest.raises(ValueError, match="revision"):
        load_policy(repo=repo)


# -- digest ---------------------------------------------------------------------------------


def test_digest_is_stable_and_ignores_origin() -> None:
    digest = PathPolicy().digest()
    assert re.fullmatch(r"[0-9a-f]{64}", digest)
    assert PathPolicy(origin="codegold.toml").digest() == digest
    assert (
        PathPolicy(exclude_roles=frozenset({FileRole.BUILD, FileRole.VENDORED})).digest() == digest
    )
    code = "from codegold.corpus import PathPolicy; print(PathPolicy().digest())"
    other_process = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert other_process == digest


@pytest.mark.parametrize(
    "change",
    [
        {"exclude": ("x/",)},
        {"include": ("x/",)},
        {"vendored": ()},
        {"build": ("out/",)},
        {"generated": ("*.gen.ts",)},
        {"migration": ()},
        {"test": (*DEFAULT_PATTERNS["test"], "qa/")},
        {"docs": ()},
        {"configuration": ()},
        {"exclude_roles": frozenset({FileRole.VENDORED})},
        {"max_file_bytes": 1000},
    ],
    ids=lambda change: next(iter(change)),
)
def test_digest_changes_with_the_policy(change: dict[str, object]) -> None:
    assert PathPolicy(**change).digest() != PathPolicy().digest()  # type: ignore[arg-type]


def test_as_dict_is_plain_json_data() -> None:
    data = PathPolicy().as_dict()
    assert data["excludeRoles"] == ["build", "vendored"]
    assert data["maxFileBytes"] == 1 << 20
    assert data["format"] == "codegold-path-policy/5"
    assert data["vendored"][0] == "vendor/"
    assert data["detectCompiled"] is True and data["detectOldVersions"] is True


def test_detection_switches_change_the_digest() -> None:
    digests = {
        PathPolicy().digest(),
        PathPolicy(detect_compiled=False).digest(),
        PathPolicy(detect_old_versions=False).digest(),
    }
    assert len(digests) == 3


def test_detection_switches_load_from_toml() -> None:
    from codegold.corpus.policy import policy_from_table

    policy = policy_from_table(
        {"detect-compiled": False, "detect-old-versions": False}, file="codegold.toml", origin="t"
    )
    assert not policy.detect_compiled and not policy.detect_old_versions
    with pytest.raises(InputError, match="true or false"):
        policy_from_table({"detect-compiled": "no"}, file="codegold.toml", origin="t")


def test_policy_rejects_a_bare_string_list() -> None:
    with pytest.raises(TypeError):
        PathPolicy(exclude="vendor/")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        PathPolicy(max_file_bytes=0)
