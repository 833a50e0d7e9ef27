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
    UNREADABLE = "unreadable"  # listed in the tree, missing from the object database
    LFS_POINTER = "lfs-pointer"  # a Git LFS pointer: the content lives outside git


@dataclass(frozen=True, slots=True)
class FileEntry:
    """One blob path in a commit's tree (``git ls-tree -r -l``)."""

    path: str
    blob: str
    size: int
    mode: str
    problem: str | None = None  # why it is never read: MISSING_OBJECT, "unsafe-path:..."
    escaped: bool = False  # the name was not UTF-8; ``path`` spells it escaped


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
