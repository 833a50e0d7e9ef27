"""Lint gold suites against their repository, and move them to a new revision.

A stage after the index (it reads codegold's index of each revision) and diagnosis
(whose target facts it shares). Modules, in order: ``model`` (findings, report),
``document`` (the suite file), ``revision`` (one revision as the index sees it),
``labels`` (lint), ``migrate`` (label migration), ``proposal`` (the re-pinned suite).

Both jobs read codegold's own index of each revision (chunks with their symbols,
roles and spans; the inventory of every path) and file text from git, through the
callables the caller passes; nothing here opens a repository or builds an index.

* :func:`lint_suites` checks every label at the revision its case pins: files and
  symbols exist, roles and lines agree with the index, forbidden prefixes name real
  paths, and the suite-wide hygiene rules (unique ids, no duplicated query, a
  production cutoff, a rationale). Each :class:`Finding` names the suite, the case,
  the field (``groups[1].anyOf[0].symbol``) and, when it can, the line.
* :func:`plan_migration` decides, for every target of a suite, whether it still holds
  at another revision and, when it went stale, where it lives now (a git rename, the
  same symbol in another file, a unique definition with the same last name).
  :func:`render_proposal` writes the re-pinned suite as YAML, the old labels kept in
  ``# was:`` comments; cases that cannot move keep their old revision, flagged.
"""

from codegold.lint.document import read_suite_file
from codegold.lint.labels import lint_suites
from codegold.lint.migrate import CaseMove, Migration, TargetMove, Verdict, plan_migration
from codegold.lint.model import (
    LARGE_CUTOFF,
    Check,
    Finding,
    LintReport,
    ReadText,
    Renames,
    Severity,
)
from codegold.lint.proposal import proposal_path, render_proposal

__all__ = [
    "LARGE_CUTOFF",
    "CaseMove",
    "Check",
    "Finding",
    "LintReport",
    "Migration",
    "ReadText",
    "Renames",
    "Severity",
    "TargetMove",
    "Verdict",
    "lint_suites",
    "plan_migration",
    "proposal_path",
    "read_suite_file",
    "render_proposal",
]
