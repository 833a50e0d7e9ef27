"""A content-addressed cache of chunking output and vectors (SQLite, stdlib).

What the inventory read of each blob (:class:`BlobFacts`: generated marker, binary,
LFS pointer, build-output marker) is kept by blob id too (table ``blob_facts``; the
older ``facts`` table lacks the build-output marker and is not read), so that a
neighbouring revision reads only the blobs it has not seen.

Chunks are keyed by blob SHA, path-derived inputs (language, file role, path) and
the chunker version; vectors by chunk digest and embedder identity. Indexing a
neighbouring revision therefore re-chunks and re-embeds only what changed.

File records name their terms and symbol keys by the ids of one append-only
:class:`StringTable` kept in the same database (table ``strings``: each row the
strings one write numbered, in order). Records are written in the same transaction
as the strings they introduce, so a record read is always covered by the table read
after it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec

from codegold.corpus.inventory import BlobFacts
from codegold.index.strings import StringTable

T = TypeVar("T")
_STRINGS = msgspec.msgpack.Decoder(list[str])
_FACTS = msgspec.msgpack.Decoder(tuple[str | None, bool, bool, str | None])


class BuildCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS files (key TEXT PRIMARY KEY, data BLOB)")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, data BLOB)")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS strings (seq INTEGER PRIMARY KEY, data BLOB NOT NULL)"
        )
        self._db.execute("CREATE TABLE IF NOT EXISTS blob_facts (blob TEXT PRIMARY KEY, data BLOB)")
        self._db.commit()
        self.strings = StringTable()
        self._seq = 0  # the last row of ``strings`` read into :attr:`strings`

    def blob_facts(self) -> dict[str, BlobFacts]:
        """What the inventory read of every blob it read before (any revision)."""
        rows = self._db.execute("SELECT blob, data FROM blob_facts")
        return {blob: BlobFacts(*_FACTS.decode(data)) for blob, data in rows}

    def put_blob_facts(self, facts: dict[str, BlobFacts]) -> None:
        if facts:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO blob_facts (blob, data) VALUES (?, ?)",
                    ((b, msgspec.msgpack.encode(tuple(f))) for b, f in sorted(facts.items())),
                )

    def sync_strings(self) -> StringTable:
        """:attr:`strings` with every row written since it was last read (read the
        records first: the table read after them covers every id they hold)."""
        rows = self._db.execute(
            "SELECT seq, data FROM strings WHERE seq > ? ORDER BY seq", (self._seq,)
        )
        for seq, data in rows:
            self.strings.extend(_STRINGS.decode(data))
            self._seq = seq
        return self.strings

    def put_interned(
        self, table: str, make: Callable[[StringTable], tuple[list[tuple[str, bytes]], T]]
    ) -> T:
        """Records made by ``make`` from the string table (which it may extend), stored
        with the strings they introduced in one transaction that holds the write lock,
        so that two builds sharing the cache never number two strings alike."""
        self._db.execute("BEGIN IMMEDIATE")
        mark = len(self.strings)
        seq = self._seq
        try:
            self.sync_strings()
            mark, seq = len(self.strings), self._seq
            items, out = make(self.strings)
            new = self.strings.strings[mark:]
            if new:
                cursor = self._db.execute(
                    "INSERT INTO strings (data) VALUES (?)", (msgspec.msgpack.encode(new),)
                )
                seq = cursor.lastrowid or seq
            self._db.executemany(
                f"INSERT OR REPLACE INTO {_table(table)} (key, data) VALUES (?, ?)", items
            )
            self._db.commit()
        except BaseException:
            self._db.rollback()
            self.strings.truncate(mark)
            raise
        self._seq = seq
        return out

    def _rows_of(self, table: str, columns: str, keys: Iterable[str]) -> Iterator[Any]:
        """``columns`` of the rows of ``table`` whose key is among ``keys`` (asked 500
        keys at a time: SQLite bounds a statement's parameters)."""
        keys = list(keys)
        for i in range(0, len(keys), 500):
            batch = keys[i : i + 500]
            marks = ",".join("?" * len(batch))
            yield from self._db.execute(
                f"SELECT {columns} FROM {_table(table)} WHERE key IN ({marks})", batch
            )

    def get_many(self, table: str, keys: Iterable[str]) -> dict[str, bytes]:
        return {k: bytes(v) for k, v in self._rows_of(table, "key, data", keys)}

    def has_many(self, table: str, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are stored (read from the key index alone: no record is
        read). Rows are never deleted, so each stays readable by :meth:`get_many`."""
        return {k for (k,) in self._rows_of(table, "key", keys)}

    def put_many(self, table: str, items: Iterable[tuple[str, bytes]]) -> None:
        with self._db:
            self._db.executemany(
                f"INSERT OR REPLACE INTO {_table(table)} (key, data) VALUES (?, ?)", items
            )

    def close(self) -> None:
        self._db.close()


def _table(name: str) -> str:
    if name not in ("files", "vectors"):
        raise ValueError(name)
    return name
