"""Gold suites: the file contract and loading."""

from codegold.cases.model import Case, Context, Group, Lines, SuiteFile, Target
from codegold.cases.suite import ResolvedCase, Suite, load_suite

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
