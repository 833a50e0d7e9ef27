"""Options several commands share, declared once so their help reads the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

Decorator = Callable[[Any], Any]

cases_option: Decorator = click.option(
    "--cases",
    "cases_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Gold suite (YAML, JSON or JSONL).",
)

repo_option: Decorator = click.option(
    "--repo",
    "repo_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Git repository (normal or bare) holding the pinned revisions.",
)

policy_option: Decorator = click.option(
    "--policy",
    "policy_path",
    type=click.Path(path_type=Path),
    default=None,
    help="codegold.toml with [policy] and [owners] (default: the repository's own, at "
    "the revision).",
)

retriever_config_option: Decorator = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Retriever settings (TOML [retriever], or the JSON `tune` writes).",
)

embedder_option: Decorator = click.option(
    "--embedder",
    default="auto",
    show_default=True,
    help="Dense vectors: 'auto' (the built-in model when its extra is installed), "
    "'none', 'builtin', 'hash', 'sentence-transformers:MODEL', 'http:URL'.",
)


def selection_options(command: Any) -> Any:
    """``--case ID`` and ``--tag T``: run part of the suite, said so in the identity."""
    command = click.option(
        "--tag",
        "tags",
        multiple=True,
        metavar="T",
        help="Only cases carrying this tag (repeatable; with --case, the union). "
        "Recorded in summary.json: compare and gate know a partial run.",
    )(command)
    return click.option(
        "--case",
        "case_ids",
        multiple=True,
        metavar="ID",
        help="Only this case (repeatable).",
    )(command)
