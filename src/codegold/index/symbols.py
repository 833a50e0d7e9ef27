"""The exact symbol table: where names are defined, and where they are referenced."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import msgspec


class SymbolTable(msgspec.Struct, frozen=True):
    """Name -> chunk rows. ``defs`` keys are full qualified names and every dotted
    suffix (``A.B.m``, ``B.m``, ``m``); ``defs_lower`` the lowercased last part;
    ``refs`` bare referenced identifiers."""

    defs: dict[str, list[int]]
    defs_lower: dict[str, list[int]]
    refs: dict[str, list[int]]

    @classmethod
    def build(
        cls,
        defined: Sequence[Sequence[str]],
        referenced: Sequence[Sequence[str]],
    ) -> SymbolTable:
        defs: dict[str, list[int]] = {}
        lower: dict[str, list[int]] = {}
        refs: dict[str, list[int]] = {}
        for row, names in enumerate(defined):
            keys: set[str] = set()
            for name in names:
                parts = name.split(".")
                keys.update(".".join(parts[i:]) for i in range(len(parts)))
            for key in sorted(keys):
                defs.setdefault(key, []).append(row)
            for key in sorted({n.rsplit(".", 1)[-1].lower() for n in names}):
                lower.setdefault(key, []).append(row)
        for row, names in enumerate(referenced):
            for name in sorted(set(names)):
                refs.setdefault(name, []).append(row)
        return cls(defs=defs, defs_lower=lower, refs=refs)

    def definitions(self, name: str) -> list[int]:
        return self.defs.get(name, [])

    def definitions_ci(self, name: str) -> list[int]:
        return self.defs_lower.get(name.rsplit(".", 1)[-1].lower(), [])

    def references(self, name: str) -> list[int]:
        return self.refs.get(name.rsplit(".", 1)[-1], [])

    def save(self, path: Path) -> None:
        path.write_bytes(msgspec.msgpack.encode(self))

    @classmethod
    def load(cls, path: Path) -> SymbolTable:
        return msgspec.msgpack.decode(path.read_bytes(), type=cls)
