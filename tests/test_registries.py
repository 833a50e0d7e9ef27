"""Retrievers, embedders and languages follow one registry mechanism's rules."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from codegold.chunking import languages
from codegold.errors import EnvironmentProblem, InputError
from codegold.index import embed
from codegold.registry import Registry, may_offer
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


PLUGIN = """
from codegold.chunking import LanguageSpec, get_language


def specs():
    python = get_language("python")
    return [LanguageSpec("pyish", (".pyish",), grammar=python.grammar, query=python.query)]
"""

PROBE = """
import sys
from codegold.chunking.languages import language_for_path
print(language_for_path("x.pyish"), "importlib.metadata" in sys.modules)
"""


def _installed(site: Path, entry_points: str) -> Path:
    """A distribution installed in ``site`` (a folder for sys.path), its entry points
    ``entry_points``, its module the language plugin :data:`PLUGIN`."""
    info = site / "pyish_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pyish-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
    (site / "pyish_plugin.py").write_text(PLUGIN)
    return site


@pytest.mark.parametrize(
    ("entry_points", "expected"),
    [
        ("[codegold.languages]\npyish = pyish_plugin:specs\n", ["pyish", "True"]),
        ("[console_scripts]\npyish = pyish_plugin:specs\n", ["None", "False"]),
    ],
    ids=["offers-the-group", "offers-another-group"],
)
def test_an_installed_plugin_is_found_and_metadata_imported_only_then(
    tmp_path: Path, entry_points: str, expected: list[str]
) -> None:
    site = _installed(tmp_path / "site", entry_points)
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.split() == expected


def test_may_offer_reads_the_entry_points_of_every_folder_on_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _installed(tmp_path / "site", "[codegold.widgets]\nmine = pyish_plugin:specs\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(tmp_path), str(site)])
    assert may_offer("codegold.widgets")
    assert not may_offer("codegold.gadgets")
    archive = tmp_path / "plugins.zip"  # a zip on the path: importlib.metadata reads it
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("x-1.0.dist-info/entry_points.txt", "[codegold.gadgets]\n")
    monkeypatch.setattr(sys, "path", [str(site), str(archive)])
    assert may_offer("codegold.gadgets")
