"""What a chunker produces: a span of one file with its symbols and one role."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.roles import Role


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable unit of a file at a revision.

    ``symbol`` is the primary qualified name (``Client.send``; Go ``Type.Method``;
    Rust ``Type::method`` written ``Type.method``); ``symbols`` every name the chunk
    defines; ``references`` the bare identifiers it uses but does not define.
    ``header`` is context a split chunk carries (a class header for a method chunk).
    Lines are 1-based and inclusive.
    """

    file: str
    start_line: int
    end_line: int
    language: str
    kind: str
    role: Role
    symbol: str | None
    symbols: tuple[str, ...]
    references: tuple[str, ...]
    text: str
    header: str = ""
