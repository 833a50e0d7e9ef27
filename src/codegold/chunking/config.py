"""What the chunker is asked (:class:`ChunkerConfig`) and what it answers (:class:`ChunkResult`)."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.chunking.model import Chunk
from codegold.corpus.model import FileRole
from codegold.errors import InputError
from codegold.roles import Role

__all__ = ["DEFAULT_CONFIG", "ChunkResult", "ChunkerConfig", "role_for_file"]


@dataclass(frozen=True, slots=True)
class ChunkerConfig:
    """The knobs of both chunkers. Every value is part of the chunker version.

    * ``max_chunk_lines``: a container (class, impl, trait, ...) longer than this is split
      into a header chunk and one chunk per member; module-level code is grouped into
      chunks of at most this many lines; a Markdown/RST section longer than this is
      windowed.
    * A function or method longer than ``long_definition_factor * max_chunk_lines`` is
      cut into consecutive pieces of at most ``max_chunk_lines`` lines at statement
      boundaries; all pieces carry its symbol.
    * ``min_member_lines``: when a container is split, a member shorter than this stays
      with the container's body instead of becoming a chunk of its own.
    * ``window_lines`` / ``window_overlap``: line windows for text without structure.
    * ``max_references``: cap on ``Chunk.references`` (calls kept first, then types).
    """

    max_chunk_lines: int = 120
    long_definition_factor: int = 3
    min_member_lines: int = 3
    window_lines: int = 40
    window_overlap: int = 10
    max_references: int = 200

    def __post_init__(self) -> None:
        for name in ("max_chunk_lines", "long_definition_factor", "window_lines"):
            if getattr(self, name) < 1:
                raise InputError(f"chunker setting {name} must be at least 1")
        for name in ("min_member_lines", "window_overlap", "max_references"):
            if getattr(self, name) < 0:
                raise InputError(f"chunker setting {name} must not be negative")
        if self.window_overlap >= self.window_lines:
            raise InputError("chunker setting window_overlap must be smaller than window_lines")

    def as_dict(self) -> dict[str, int]:
        """The settings by name, in a stable order (for version stamps and manifests)."""
        return {
            "maxChunkLines": self.max_chunk_lines,
            "longDefinitionFactor": self.long_definition_factor,
            "minMemberLines": self.min_member_lines,
            "windowLines": self.window_lines,
            "windowOverlap": self.window_overlap,
            "maxReferences": self.max_references,
        }


#: The settings used when none are given (frozen, so safe as a default argument).
DEFAULT_CONFIG = ChunkerConfig()


@dataclass(frozen=True, slots=True)
class ChunkResult:
    """The chunks of one file and how they were made.

    ``parse_ok`` is False when a structural language's parse was too broken to trust
    (more than half the lines under ``ERROR`` nodes) and the file fell back to line
    windows: the caller records such a file as ``unparsable`` in its inventory while
    still indexing the windows. ``language`` is the structural language or, for other
    text, its format (``markdown``, ``yaml``, ``text``, ...).
    """

    chunks: tuple[Chunk, ...]
    parse_ok: bool
    language: str


_FILE_ROLE_TO_ROLE: dict[FileRole, Role] = {
    FileRole.TEST: Role.TEST,
    FileRole.DOCS: Role.DOCS,
    FileRole.CONFIGURATION: Role.CONFIGURATION,
    FileRole.GENERATED: Role.GENERATED,
    FileRole.MIGRATION: Role.MIGRATION,
}


def role_for_file(file_role: FileRole, natural: Role) -> Role:
    """The role of a chunk: the file's role wins unless the file is source-like.

    Source, vendored and build files keep the role the chunk has by its content
    (``natural``); test, docs, configuration, generated and migration files give
    every chunk their own role.
    """
    return _FILE_ROLE_TO_ROLE.get(file_role, natural)
