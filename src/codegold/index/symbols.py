"""The exact symbol table: where names are defined, and where they are referenced."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import msgspec


@lru_cache(maxsize=500_000)
def fold(name: str) -> str:
    """The last dotted part, lowercased, without ``_`` or ``$``: naming conventions meet."""
    return name.rsplit(".", 1)[-1].replace("_", "").replace("$", "").lower()


def _is_title(name: str) -> bool:
    """A test named by its title string (SPEC §1), not a qualified name."""
    return any(ch.isspace() for ch in name)


def _sorted(table: dict[str, list[int]]) -> dict[str, list[int]]:
    return {key: table[key] for key in sorted(table)}


class SymbolTable(msgspec.Struct, frozen=True):
    """Name -> chunk rows. ``defs`` keys are full qualified names and every dotted
    suffix (``A.B.m``, ``B.m``, ``m``); ``defs_lower`` and ``refs_norm`` the last part
    folded across naming conventions (``extra_forbidden`` = ``ExtraForbidden``);
    ``refs`` bare referenced identifiers."""

    defs: dict[str, list[int]]
    defs_lower: dict[str, list[int]]
    refs: dict[str, list[int]]
    refs_norm: dict[str, list[int]] = msgspec.field(default_factory=dict)

    @classmethod
    def build(
        cls,
        defined: Sequence[Sequence[str]],
        referenced: Sequence[Sequence[str]],
    ) -> SymbolTable:
        defs: dict[str, list[int]] = {}
        lower: dict[str, list[int]] = {}
        refs: dict[str, list[int]] = {}
        norm: dict[str, list[int]] = {}
        for row, names in enumerate(defined):
            keys: set[str] = set()
            for name in names:
                if _is_title(name):
                    # a test title ("calls res.send") is one name, not a dotted path
                    keys.add(name)
                    continue
                parts = name.split(".")
                keys.update(".".join(parts[i:]) for i in range(len(parts)))
            for key in keys:
                defs.setdefault(key, []).append(row)
            for key in {fold(n) for n in names if not _is_title(n)}:
                lower.setdefault(key, []).append(row)
        for row, names in enumerate(referenced):
            for name in set(names):
                refs.setdefault(name, []).append(row)
            for key in {fold(n) for n in names}:
                norm.setdefault(key, []).append(row)
        # rows were appended in row order; sorting the keys once makes the file
        # byte-identical whatever the set iteration order was
        return cls(
            defs=_sorted(defs),
            defs_lower=_sorted(lower),
            refs=_sorted(refs),
            refs_norm=_sorted(norm),
        )

    def definitions(self, name: str) -> list[int]:
        return self.defs.get(name, [])

    def definitions_ci(self, name: str) -> list[int]:
        return self.defs_lower.get(fold(name), [])

    def references(self, name: str) -> list[int]:
        exact = self.refs.get(name.rsplit(".", 1)[-1])
        return exact if exact else self.refs_norm.get(fold(name), [])

    def save(self, path: Path) -> None:
        path.write_bytes(msgspec.msgpack.encode(self))

    @classmethod
    def load(cls, path: Path) -> SymbolTable:
        return msgspec.msgpack.decode(path.read_bytes(), type=cls)
