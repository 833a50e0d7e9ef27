"""What lint reports (findings, their severity and check, the report) and the callables
it reads the repository through."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import msgspec

from codegold.corpus.model import FileRole, FileStatus

LARGE_CUTOFF = 20
"""A cutoff above this is reported: the answer stage rarely receives more."""

ReadText = Callable[[str, str], str | None]
"""``(revision, path) -> text`` of a file at a revision, or None when there is none."""

Renames = Callable[[str, str], Mapping[str, str]]
"""``(old revision, new revision) -> {old path: new path}`` (``GitRepo.renames``)."""

_INDEXED = (FileStatus.INDEXED, FileStatus.UNPARSABLE)
_UNCHECKABLE = (FileStatus.LFS_POINTER, FileStatus.UNREADABLE)
# File roles that give every chunk of the file their own role (chunking.role_for_file).
_ROLE_BY_PATH = (
    FileRole.TEST,
    FileRole.DOCS,
    FileRole.CONFIGURATION,
    FileRole.GENERATED,
    FileRole.MIGRATION,
)
_MAX_TEXT_READS = 50  # files read for the text fallback of one glob target
_SPAN_GAP = 3  # blank lines between the pieces of one long definition belong to no chunk

Part = str | int


class Severity(StrEnum):
    """How bad a finding is. Only errors fail ``codegold lint`` (exit 1)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Check(StrEnum):
    """What a finding is about: a stable name for filters and JSON consumers."""

    MISSING_FILE = "missing_file"
    NO_MATCHING_FILE = "no_matching_file"
    MISSING_SYMBOL = "missing_symbol"
    SYMBOL_NOT_CHUNKED = "symbol_not_chunked"
    EXCLUDED_BY_POLICY = "excluded_by_policy"
    LFS_POINTER = "lfs_pointer"
    UNREADABLE_FILE = "unreadable_file"
    ROLE_MISMATCH = "role_mismatch"
    LINES_MISMATCH = "lines_mismatch"
    FORBIDDEN_PREFIX_UNUSED = "forbidden_prefix_unused"
    TARGET_UNDER_FORBIDDEN = "target_under_forbidden"
    CONTEXT_MISSING = "context_missing"
    DUPLICATE_ID = "duplicate_id"
    DUPLICATE_QUERY = "duplicate_query"
    LARGE_CUTOFF = "large_cutoff"
    NO_RATIONALE = "no_rationale"
    FILE_LEVEL_TARGET = "file_level_target"
    DRAFT = "draft"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem with one field of one case (``case_id`` None: suite-level)."""

    severity: Severity
    check: Check
    suite: str
    case_id: str | None
    field: str | None
    message: str
    line: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "severity": str(self.severity),
            "check": str(self.check),
            "suite": self.suite,
            "line": self.line,
            "caseId": self.case_id,
            "field": self.field,
            "message": self.message,
        }

    def location(self) -> str:
        return f"{self.suite}:{self.line}" if self.line else self.suite


@dataclass(frozen=True)
class LintReport:
    """Every finding, in suite order, then case order, then field order."""

    findings: tuple[Finding, ...]

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def exit_code(self) -> int:
        """1 when any finding is an error, else 0."""
        return 1 if self.count(Severity.ERROR) else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "counts": {str(s): self.count(s) for s in Severity},
            "findings": [f.as_json() for f in self.findings],
        }


def _plain(value: Any) -> Any:
    """JSON-shaped builtins (lists, not tuples), as a file would hold them."""
    return msgspec.json.decode(msgspec.json.encode(value))
