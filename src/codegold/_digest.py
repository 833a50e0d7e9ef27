"""A file's sha256, also hashed on a thread while other work goes on: this module
imports only hashlib and threading, so a command can start hashing before it imports
what it needs to read the file."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path


def digest_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def digest_meanwhile(path: Path) -> Callable[[], str]:
    """The sha256 of ``path``, computed on another thread (hashlib and file reads
    release the GIL, so it costs a core the process often has spare, not its own
    time); the returned call waits for it, and raises what hashing raised."""
    done: list[str] = []
    failed: list[BaseException] = []

    def work() -> None:
        try:
            done.append(digest_file(path))
        except BaseException as exc:  # handed to whoever asks for the digest
            failed.append(exc)

    thread = threading.Thread(target=work, name="codegold-digest", daemon=True)
    thread.start()

    def digest() -> str:
        thread.join()
        if failed:
            raise failed[0]
        return done[0]

    return digest
