"""The repository at one revision: files, their roles, and the inventory."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class FileRole(StrEnum):
    """What a path is for, decided by the path policy."""

    SOURCE = "source"
    TEST = "test"
    DOCS = "docs"
    CONFIGURATION = "configuration"
    GENERATED = "generated"
    VENDORED = "vendored"
    BUILD = "build"
    MIGRATION = "migration"


class FileStatus(StrEnum):
    INDEXED = "indexed"
    EXCLUDED = "excluded"
    BINARY = "binary"
    OVERSIZE = "oversize"
    UNPARSABLE = "unparsable"


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One blob path in a commit's tree (``git ls-tree -r -l``)."""

    path: str
    blob: str
    size: int
    mode: str


@dataclass(frozen=True, slots=True)
class InventoryEntry:
    """A path at the revision and what the index did with it (and why)."""

    path: str
    blob: str
    size: int
    status: FileStatus
    role: FileRole
    language: str | None
    rule: str | None = None
    chunks: int = 0
