"""One language table: the evaluator's slices name a file's language as the chunkers do."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import codegold.chunking.languages as registry
from codegold.chunking.language_table import DOCUMENT_FORMATS, language_of_path
from codegold.chunking.languages import LanguageSpec, get_language, language_for_path


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(registry.LANGUAGES, "items", dict(registry.LANGUAGES.items))
    registry._suffix_table.cache_clear()
    yield
    monkeypatch.undo()
    registry._suffix_table.cache_clear()


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/auth/session-service.ts", "typescript"),
        ("types/index.d.ts", "typescript"),
        ("src/**/*.py", "python"),
        # languages only the heuristic chunker reads (slices said null before)
        ("lisp/init.el", "lisp"),
        ("infra/main.hcl", "terraform"),
        ("build.gradle", "groovy"),
        ("lib/types.mli", "ocaml"),
        ("docs/guide.md", "markdown"),
        ("Makefile", None),
    ],
)
def test_every_stage_gets_one_answer(path: str, language: str | None) -> None:
    assert language_of_path(path) == language


def test_structural_languages_answer_first() -> None:
    for name in registry.registered_languages():
        for extension in get_language(name).extensions:
            path = f"x{extension}"
            assert language_of_path(path) == language_for_path(path)
    assert not set(DOCUMENT_FORMATS) & {
        e for n in registry.registered_languages() for e in get_language(n).extensions
    }


def test_a_plugin_language_is_known_to_the_evaluator_too(scratch_registry: None) -> None:
    python = get_language("python")
    registry.register_language(
        LanguageSpec(name="starlark", extensions=(".bzl",), grammar=python.grammar,
                     query=python.query)
    )  # fmt: skip
    assert language_of_path("rules/defs.bzl") == "starlark"


def test_the_longest_registered_suffix_wins_and_never_the_whole_name(
    scratch_registry: None,
) -> None:
    python = get_language("python")

    def spec(name: str, *extensions: str) -> LanguageSpec:
        return LanguageSpec(name=name, extensions=extensions, grammar=python.grammar,
                            query=python.query)  # fmt: skip

    registry.register_language(spec("pytest-ish", ".test.py", ".PY"))
    registry.register_language(spec("later", ".test.py", ".bzl"))
    # longest first; among equal suffixes the first registered (python's ".py" is a
    # built-in, so a plugin's upper-case ".PY" never takes it)
    assert language_for_path("pkg/a.test.py") == "pytest-ish"
    assert language_for_path("pkg/A.TEST.PY") == "pytest-ish"
    assert language_for_path("pkg/a.py") == "python"
    assert language_for_path("pkg/defs.bzl") == "later"
    assert language_for_path("pkg/.bzl") is None  # a suffix is never the whole name
    assert language_for_path(".test.py") == "python"
    assert language_for_path("pkg/.py") is None
