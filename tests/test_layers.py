"""The one-way order of the stages: no module imports a later stage.

    base -> cases, corpus -> chunking -> index -> retrieve -> evaluate -> diagnose
         -> report, compare, gate (and lint, tune, TREC, answers) -> pipeline -> cli

Every import that runs counts, at the top of a module or inside a function; imports
under ``if TYPE_CHECKING:`` (annotations only) do not.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

SRC = ROOT / "src" / "codegold"

ORDER: tuple[tuple[str, ...], ...] = (
    # shared by every stage: errors, atomic writes, line splitting, roles, redaction,
    # the registry mechanism
    (
        "",
        "errors",
        "_digest",
        "_io",
        "_lazy",
        "_lines",
        "_paths",
        "_time",
        "roles",
        "redact",
        "registry",
    ),
    ("cases", "corpus"),
    ("chunking",),
    ("index",),
    # what a retriever returns (attempts), live retrievers, recorded-attempt importers
    ("attempts", "resolve", "retrieve", "importers"),
    ("evaluate", "owners"),
    ("diagnose",),
    ("report", "compare", "gate", "trec", "tune", "answers", "lint", "drafts", "freshness"),
    ("pipeline",),
    # many suites as tasks on an executor (local processes or Ray), over the pipeline
    ("batch",),
    # the Python API over all of it (codegold re-exports it lazily)
    ("api",),
    ("cli", "__main__"),
)
LAYER = {name: i for i, names in enumerate(ORDER) for name in names}


def _module(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _stage(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, module) of every codegold import that runs."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "codegold":  # from codegold import errors / __version__
                found.extend(
                    (node.lineno, f"codegold.{a.name}" if a.name in LAYER else "codegold")
                    for a in node.names
                )
            else:
                found.append((node.lineno, node.module))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return [(line, m) for line, m in found if m == "codegold" or m.startswith("codegold.")]


def _violations() -> list[str]:
    out: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        module = _module(path)
        mine = LAYER[_stage(module)]
        for line, target in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            theirs = LAYER[_stage(target)]
            if theirs > mine:
                out.append(
                    f"{path.relative_to(ROOT)}:{line}: {module} ({_stage(module) or 'base'}) "
                    f"imports {target} ({_stage(target)}), a later stage"
                )
    return out


def test_every_package_has_a_place_in_the_order() -> None:
    stages = {_stage(_module(p)) for p in SRC.rglob("*.py")}
    assert stages <= set(LAYER), f"give these a stage in ORDER: {sorted(stages - set(LAYER))}"


def test_no_import_runs_against_the_order() -> None:
    assert _violations() == []


def test_the_check_sees_a_backward_import() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from codegold.cli import main\n"
        "def f():\n    from codegold.diagnose import walk\n"
    )
    assert _imports(tree) == [(5, "codegold.diagnose")]


def test_the_order_is_the_one_the_stages_run_in() -> None:
    assert LAYER["cases"] == LAYER["corpus"] < LAYER["chunking"] < LAYER["index"]
    assert LAYER["index"] < LAYER["retrieve"] < LAYER["evaluate"] < LAYER["diagnose"]
    assert LAYER["diagnose"] < LAYER["report"] == LAYER["compare"] == LAYER["gate"]
    assert LAYER["gate"] < LAYER["pipeline"] < LAYER["cli"]
