"""A content-addressed cache of chunking output and vectors (SQLite, stdlib).

Chunks are keyed by blob SHA, path-derived inputs (language, file role, path) and
the chunker version; vectors by chunk digest and embedder identity. Indexing a
neighbouring revision therefore re-chunks and re-embeds only what changed.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path


class BuildCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS files (key TEXT PRIMARY KEY, data BLOB)")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, data BLOB)")

    def get_many(self, table: str, keys: Iterable[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        keys = list(keys)
        for i in range(0, len(keys), 500):
            batch = keys[i : i + 500]
            marks = ",".join("?" * len(batch))
            rows = self._db.execute(
                f"SELECT key, data FROM {_table(table)} WHERE key IN ({marks})", batch
            )
            found.update({k: bytes(v) for k, v in rows})
        return found

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
