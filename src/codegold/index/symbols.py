"""The exact symbol table: where names are defined, and where they are referenced."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property, lru_cache
from itertools import chain, repeat
from pathlib import Path

import msgspec
import numpy as np
import numpy.typing as npt

from codegold.index._msgpack import encode_row_lists
from codegold.index.derived import SortedKeys
from codegold.index.lexical import global_ids, int32_bytes, stable_argsort
from codegold.index.strings import StringTable


@lru_cache(maxsize=500_000)
def fold(name: str) -> str:
    """The last dotted part, lowercased, without ``_`` or ``$``: naming conventions meet."""
    return name.rsplit(".", 1)[-1].replace("_", "").replace("$", "").lower()


_SPACE = re.compile(r"\s")  # the characters str.isspace() accepts


def _is_title(name: str) -> bool:
    """A test named by its title string (SPEC §1), not a qualified name."""
    return _SPACE.search(name) is not None


#: The four tables (the fields of :class:`SymbolTable`), in the order :func:`chunk_keys`
#: gives a chunk's keys for them.
TABLES = ("defs", "defs_lower", "refs", "refs_norm")


def chunk_keys(
    defined: Sequence[str], referenced: Sequence[str]
) -> tuple[set[str], set[str], set[str], set[str]]:
    """One chunk's keys in each table (:data:`TABLES` order)."""
    defs: set[str] = set()
    for name in defined:
        if _is_title(name):
            # a test title ("calls res.send") is one name, not a dotted path
            defs.add(name)
            continue
        parts = name.split(".")
        defs.update(".".join(parts[i:]) for i in range(len(parts)))
    lower = {fold(n) for n in defined if not _is_title(n)}
    return defs, lower, set(referenced), {fold(n) for n in referenced}


class KeyPostings(msgspec.Struct, array_like=True):
    """One table's keys of a run of chunks: ``keys`` in first-use order, then per
    posting the key (index into ``keys``) and the chunk row, rows ascending (int32)."""

    keys: list[str]
    key_ids: bytes
    rows: bytes

    @classmethod
    def of(cls, per_chunk: Sequence[Iterable[str]]) -> KeyPostings:
        ordered = [sorted(keys) for keys in per_chunk]
        first = dict.fromkeys(chain.from_iterable(ordered))
        local = dict(zip(first, range(len(first)), strict=True))
        ids = map(local.__getitem__, chain.from_iterable(ordered))
        rows = chain.from_iterable(repeat(row, len(keys)) for row, keys in enumerate(ordered))
        return cls(keys=list(local), key_ids=int32_bytes(ids), rows=int32_bytes(rows))


class InternedKeys(msgspec.Struct, array_like=True):
    """:class:`KeyPostings` as a build cache stores it: ``keys`` are ids of the
    cache's :class:`~codegold.index.strings.StringTable` (int32), the rest as there."""

    keys: bytes
    key_ids: bytes
    rows: bytes

    @classmethod
    def of(cls, part: KeyPostings, keys: npt.NDArray[np.int32]) -> InternedKeys:
        return cls(keys=keys.astype(np.int32).tobytes(), key_ids=part.key_ids, rows=part.rows)


class TableMerger:
    """One table from runs of chunks fed in row order, each with the row of its first
    chunk: the same dict :meth:`SymbolTable.build` makes, keys sorted, rows ascending.
    Keys are string ids until the end: only the table's distinct keys are read."""

    def __init__(self, strings: StringTable) -> None:
        self.strings = strings
        self._parts: list[tuple[int, InternedKeys]] = []

    def add(self, base: int, part: InternedKeys) -> None:
        self.add_many([(base, part)])

    def add_many(self, parts: Sequence[tuple[int, InternedKeys]]) -> None:
        self._parts.extend((base, part) for base, part in parts if part.key_ids)

    def encoded(self) -> bytes:
        """The table as msgpack, byte for byte what msgspec writes for its dict."""
        parts = self._parts
        self._parts = []
        if not parts:
            return encode_row_lists([], np.zeros(0, np.int64), np.zeros(0, np.int32))
        sids, _ = global_ids(
            [p.keys for _, p in parts], [p.key_ids for _, p in parts], self.strings
        )
        per_part = np.fromiter((len(p.rows) // 4 for _, p in parts), np.int64, len(parts))
        bases = np.fromiter((base for base, _ in parts), np.int32, len(parts))
        rows = np.frombuffer(b"".join(p.rows for _, p in parts), dtype=np.int32)
        rows = rows + np.repeat(bases, per_part)
        names = self.strings.strings
        present = np.zeros(len(names), dtype=np.bool_)
        present[sids] = True
        distinct = np.flatnonzero(present)  # the distinct ids, ascending
        keys = list(map(names.__getitem__, distinct.tolist()))
        order = sorted(range(len(keys)), key=keys.__getitem__)
        rank = np.zeros(len(names), dtype=np.int32)
        rank[distinct[np.asarray(order, dtype=np.int64)]] = np.arange(len(keys), dtype=np.int32)
        ranked = rank[sids]
        by_key = stable_argsort(ranked)  # stable: rows stay ascending per key
        counts = np.bincount(ranked, minlength=len(keys)).astype(np.int64)
        return encode_row_lists(list(map(keys.__getitem__, order)), counts, rows[by_key])


class SymbolMerger:
    """:class:`SymbolTable` from runs of chunks (files) fed in row order."""

    def __init__(self, strings: StringTable) -> None:
        self.tables = [TableMerger(strings) for _ in TABLES]

    def add(self, base: int, parts: Sequence[InternedKeys]) -> None:
        self.add_many([(base, parts)])

    def add_many(self, files: Sequence[tuple[int, Sequence[InternedKeys]]]) -> None:
        """Files' four :class:`InternedKeys` each, with the row of each file's first chunk."""
        for i, table in enumerate(self.tables):
            table.add_many([(base, parts[i]) for base, parts in files])

    def encoded(self) -> bytes:
        """The :class:`SymbolTable`, as :meth:`SymbolTable.save` writes it."""
        out = [bytes([0x80 | len(TABLES)])]  # a struct encodes as a map of its fields
        for name, table in zip(TABLES, self.tables, strict=True):  # the field names
            out.append(msgspec.msgpack.encode(name))
            out.append(table.encoded())
        return b"".join(out)

    def finish(self) -> SymbolTable:
        return msgspec.msgpack.decode(self.encoded(), type=SymbolTable)


def intern_keys(parts: Sequence[KeyPostings], strings: StringTable) -> list[InternedKeys]:
    """``parts`` with their keys numbered in ``strings``."""
    runs = strings.ids_of([p.keys for p in parts])
    return [InternedKeys.of(p, ids) for p, ids in zip(parts, runs, strict=True)]


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
        tables: tuple[dict[str, list[int]], ...] = ({}, {}, {}, {})
        for row, (names, refs) in enumerate(zip(defined, referenced, strict=True)):
            for table, keys in zip(tables, chunk_keys(names, refs), strict=True):
                for key in keys:
                    table.setdefault(key, []).append(row)
        # rows were appended in row order; sorting the keys once makes the file
        # byte-identical whatever the set iteration order was
        defs, lower, refs_, norm = (_sorted(t) for t in tables)
        return cls(defs=defs, defs_lower=lower, refs=refs_, refs_norm=norm)

    @classmethod
    def merge(cls, parts: Sequence[tuple[int, Sequence[KeyPostings]]]) -> SymbolTable:
        """The table of runs of chunks (each with its first row and its four
        :class:`KeyPostings`), identical to :meth:`build` over all their chunks."""
        strings = StringTable()
        merger = SymbolMerger(strings)
        for base, tables in parts:
            merger.add(base, intern_keys(tables, strings))
        return merger.finish()

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

    @classmethod
    def open(
        cls,
        path: Path,
        damaged: Callable[[Exception], Exception] | None = None,
        sha256: str | None = None,
    ) -> StoredSymbols:
        """The table saved at ``path``, read lazily (the same lookups as :meth:`load`);
        ``sha256``, its verified digest, lets sorted maps derived before be reused."""
        return StoredSymbols(path.read_bytes(), damaged, path, sha256)


def _empty_map() -> msgspec.Raw:
    return msgspec.Raw(b"\x80")


class _RawTables(msgspec.Struct):
    defs: msgspec.Raw
    defs_lower: msgspec.Raw
    refs: msgspec.Raw
    refs_norm: msgspec.Raw = msgspec.field(default_factory=_empty_map)


_NAMES = msgspec.msgpack.Decoder(dict[str, msgspec.Raw])
_ROWS = msgspec.msgpack.Decoder(list[int])
_MAP = msgspec.msgpack.Decoder(dict[str, list[int]])


class StoredSymbols:
    """A saved :class:`SymbolTable` decoded as lookups need it. A search asks for a
    handful of names; decoding every row list of a large repository costs more, and so
    does decoding a map's names: given the verified digest of the saved table, each map
    consulted is searched in a sorted copy the first search derived and kept beside it
    (``symbols.<map>.sorted``); without it, a map's names are decoded the first time
    it is consulted and a name's rows when that name is asked for."""

    def __init__(
        self,
        data: bytes,
        damaged: Callable[[Exception], Exception] | None = None,
        path: Path | None = None,
        sha256: str | None = None,
    ) -> None:
        self._damaged = damaged
        self._path = path
        self._sha256 = sha256 if path is not None else None
        self._data = data
        if self._sha256 is None:
            _ = self._raw  # a table not verified by digest is framed at once
        self._names: dict[str, dict[str, msgspec.Raw]] = {}
        self._sorted: dict[str, SortedKeys] = {}
        self._rows: dict[tuple[str, str], list[int]] = {}

    @cached_property
    def _raw(self) -> dict[str, msgspec.Raw]:
        """Each map's bytes. Framing them walks the whole table (a sympy-sized one
        costs more than a search), so a verified table whose maps were all derived
        before is never framed."""
        tables = msgspec.msgpack.decode(self._data, type=_RawTables)
        return {
            "defs": tables.defs,
            "defs_lower": tables.defs_lower,
            "refs": tables.refs,
            "refs_norm": tables.refs_norm,
        }

    def _sorted_map(self, table: str) -> SortedKeys:
        found = self._sorted.get(table)
        if found is None:
            assert self._path is not None
            found = self._sorted[table] = SortedKeys.kept(
                self._path.with_name(f"{self._path.stem}.{table}.sorted"),
                self._sha256,
                lambda: {k.encode(): v for k, v in _MAP.decode(self._raw[table]).items()},
            )
        return found

    def _lookup(self, table: str, key: str) -> list[int]:
        found = self._rows.get((table, key))
        if found is not None:
            return found
        try:
            if self._sha256 is not None:
                found = self._sorted_map(table).find(key.encode()) or []
            else:
                names = self._names.get(table)
                if names is None:
                    names = self._names[table] = _NAMES.decode(self._raw[table])
                raw = names.get(key)
                found = [] if raw is None else _ROWS.decode(raw)
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            if self._damaged is None:
                raise
            raise self._damaged(exc) from None
        self._rows[(table, key)] = found
        return found

    def definitions(self, name: str) -> list[int]:
        return self._lookup("defs", name)

    def definitions_ci(self, name: str) -> list[int]:
        return self._lookup("defs_lower", fold(name))

    def references(self, name: str) -> list[int]:
        exact = self._lookup("refs", name.rsplit(".", 1)[-1])
        return exact if exact else self._lookup("refs_norm", fold(name))
