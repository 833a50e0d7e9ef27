"""Gold suites: the file contract and loading."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegold._lazy import lazy_getattr

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


__getattr__ = lazy_getattr(__name__, _LAZY, globals())


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
