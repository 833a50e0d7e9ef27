"""Gold suites: the file contract and loading."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codegold.cases.model import Case, Context, Group, Lines, SuiteFile, Target
    from codegold.cases.suite import ResolvedCase, Suite, load_suite

# Each name is imported from its module on first use: importing one submodule
# (``codegold.cases.model``) does not load the rest of the package.
_LAZY: dict[str, str] = {
    "Case": "codegold.cases.model",
    "Context": "codegold.cases.model",
    "Group": "codegold.cases.model",
    "Lines": "codegold.cases.model",
    "ResolvedCase": "codegold.cases.suite",
    "Suite": "codegold.cases.suite",
    "SuiteFile": "codegold.cases.model",
    "Target": "codegold.cases.model",
    "load_suite": "codegold.cases.suite",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "Case",
    "Context",
    "Group",
    "Lines",
    "ResolvedCase",
    "Suite",
    "SuiteFile",
    "Target",
    "load_suite",
]
