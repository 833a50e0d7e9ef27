from __future__ import annotations

from collections.abc import Iterator
from importlib import metadata, resources

import pytest

from codegold.chunking import (
    ChunkerConfig,
    LanguageSpec,
    chunk_file,
    chunker_version,
    get_language,
    language_for_path,
    register_language,
    registered_languages,
)
from codegold.chunking import languages as registry
from codegold.chunking.languages import builtin_query, compiled_query
from codegold.corpus.model import FileRole
from codegold.errors import InputError


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/a.py", "python"),
        ("typings/a.pyi", "python"),
        ("a.js", "javascript"),
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("App.jsx", "javascript"),
        ("a.ts", "typescript"),
        ("a.mts", "typescript"),
        ("a.cts", "typescript"),
        ("types/index.d.ts", "typescript"),
        ("App.tsx", "tsx"),
        ("main.go", "go"),
        ("Main.java", "java"),
        ("lib.rs", "rust"),
        ("SHOUTING.PY", "python"),
        ("README.md", None),
        ("Makefile", None),
        (".py", None),
    ],
)
def test_language_for_path(path: str, expected: str | None) -> None:
    assert language_for_path(path) == expected


def test_builtin_languages_are_registered() -> None:
    assert {"python", "javascript", "typescript", "tsx", "go", "java", "rust"} <= set(
        registered_languages()
    )


def test_unknown_language_is_an_input_error() -> None:
    with pytest.raises(InputError, match="unknown language 'cobol'"):
        get_language("cobol")


def test_duplicate_registration_is_refused() -> None:
    with pytest.raises(InputError, match="already registered"):
        register_language(get_language("python"))


@pytest.fixture
def scratch_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(registry.LANGUAGES, "items", dict(registry.LANGUAGES.items))
    yield
    monkeypatch.undo()
    registry._suffix_table.cache_clear()
    registry.grammar.cache_clear()
    registry.compiled_query.cache_clear()


def test_a_third_party_language_is_data(scratch_registry: None) -> None:
    python = get_language("python")
    spec = LanguageSpec(
        name="starlark",
        extensions=(".bzl", ".star"),
        grammar=python.grammar,
        query=lambda: builtin_query("python"),
        wrapper_node_types=frozenset({"decorated_definition"}),
    )
    before = chunker_version()
    register_language(spec)
    assert language_for_path("rules/defs.bzl") == "starlark"
    result = chunk_file("rules/defs.bzl", "def rule(ctx):\n    pass\n", file_role=FileRole.SOURCE)
    assert [(c.language, c.symbol) for c in result.chunks] == [("starlark", "rule")]
    assert chunker_version() != before


def test_entry_point_plugins_are_loaded(
    scratch_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = get_language("python")
    spec = LanguageSpec(
        name="pyish", extensions=(".pyish",), grammar=python.grammar, query=python.query
    )

    class FakeEntryPoint:
        name = "pyish"
        value = "pyish_plugin:spec"

        def load(self) -> object:
            return lambda: [spec]

    monkeypatch.setattr(registry.LANGUAGES, "_all_loaded", False)
    monkeypatch.setattr(metadata, "entry_points", lambda group: [FakeEntryPoint()] if group else [])
    assert language_for_path("x.pyish") == "pyish"


def test_query_with_unknown_kind_is_rejected(scratch_registry: None) -> None:
    python = get_language("python")
    spec = LanguageSpec(
        name="bad",
        extensions=(".bad",),
        grammar=python.grammar,
        query=lambda: "(function_definition name: (identifier) @name) @definition.gizmo",
    )
    register_language(spec)
    with pytest.raises(InputError, match="gizmo"):
        chunk_file("a.bad", "def f(): pass\n", file_role=FileRole.SOURCE)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"name": "", "extensions": (".x",)},
        {"name": "x", "extensions": ()},
        {"name": "x", "extensions": ("x",)},
        {"name": "x", "extensions": (".x",), "namespace_kinds": frozenset({"function"})},
    ],
)
def test_invalid_specs_are_rejected(kwargs: dict[str, object]) -> None:
    python = get_language("python")
    with pytest.raises(InputError):
        LanguageSpec(grammar=python.grammar, query=python.query, **kwargs)  # type: ignore[arg-type]


def test_chunker_version_tracks_config() -> None:
    from codegold.chunking import ALGORITHM_VERSION, CHUNKER_VERSION

    assert chunker_version(ChunkerConfig()) == CHUNKER_VERSION
    assert CHUNKER_VERSION.startswith(f"{ALGORITHM_VERSION}.")
    assert chunker_version(ChunkerConfig(max_chunk_lines=60)) != CHUNKER_VERSION


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_chunk_lines": 0},
        {"window_lines": 10, "window_overlap": 10},
        {"max_references": -1},
    ],
)
def test_invalid_config_is_rejected(kwargs: dict[str, int]) -> None:
    with pytest.raises(InputError):
        ChunkerConfig(**kwargs)


def _fragment(name: str) -> str:
    return (
        resources.files("codegold.chunking")
        .joinpath("queries", f"{name}.scm")
        .read_text(encoding="utf-8")
    )


def test_shared_query_fragments_are_spliced_in_where_they_are_included() -> None:
    # _js_common includes _js_body_assignments once per function body it reads
    body = _fragment("_js_body_assignments")
    raw = _fragment("_js_common")
    assert raw.count("; @include _js_body_assignments\n") == 4
    fragment = raw.replace("; @include _js_body_assignments\n", body)
    for name in ("javascript", "typescript"):
        text = builtin_query(name)
        assert "; @include" not in text
        assert text.count(fragment) == 1
        assert text.count(body) == 4
        assert "@key" in text and "@member" in text
        compiled_query(name)  # the spliced text compiles with the grammar
    c = builtin_query("c")
    assert "; @include" not in c
    assert c.count(_fragment("_c_file_variable")) == 6
    compiled_query("c")
