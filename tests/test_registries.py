"""Retrievers, embedders and languages follow one registry mechanism's rules."""

from __future__ import annotations

from importlib import metadata
from typing import Any

import pytest

from codegold.chunking import languages
from codegold.errors import EnvironmentProblem, InputError
from codegold.index import embed
from codegold.registry import Registry
from codegold.retrieve import registry as retrievers


@pytest.mark.parametrize(
    ("registry", "builtin"),
    [(retrievers.RETRIEVERS, "hybrid"), (embed.PROVIDERS, "hash"), (languages.LANGUAGES, "go")],
)
def test_one_set_of_rules(registry: Registry[Any], builtin: str) -> None:
    assert builtin in registry.names()
    with pytest.raises(InputError, match="already registered"):
        registry.register(builtin, registry.get(builtin))
    with pytest.raises(InputError, match="lowercase"):
        registry.register("Not A Name", registry.get(builtin))
    with pytest.raises(InputError, match=f"unknown {registry.kind} 'nope'; known: .*{builtin}"):
        registry.get("nope")


def test_taking_a_retriever_name_is_an_input_error_not_a_value_error() -> None:
    with pytest.raises(InputError):
        retrievers.register_retriever("hybrid", lambda spec, ctx: None)  # type: ignore[arg-type,return-value]


class _EntryPoint:
    def __init__(self, name: str, value: str, loaded: object) -> None:
        self.name, self.value, self._loaded = name, value, loaded

    def load(self) -> object:
        if isinstance(self._loaded, Exception):
            raise self._loaded
        return self._loaded


def test_plugins_enter_by_name_on_demand(monkeypatch: pytest.MonkeyPatch) -> None:
    plugins = [
        _EntryPoint("mine", "pkg:mine", "the item"),
        _EntryPoint("broken", "pkg:broken", ImportError("no module named pkg")),
    ]
    monkeypatch.setattr(metadata, "entry_points", lambda group: plugins)
    registry: Registry[str] = Registry("widget", "codegold.widgets")
    registry.register("builtin", "a built-in")
    assert registry.names() == ["broken", "builtin", "mine"]
    assert "mine" not in registry.items
    assert registry.get("mine") == "the item"
    with pytest.raises(EnvironmentProblem, match=r"widget plugin 'broken' .* failed to load"):
        registry.get("broken")
