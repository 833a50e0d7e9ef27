"""A file's sha256, also hashed on a thread while other work goes on: this module
imports only hashlib and threading, so a command can start hashing before it imports
what it needs to read the file."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

DIGEST_BLOCK = 8 << 20
"""How much of a file is read, then hashed, at a time. Both release the GIL, and a
thread that wants it back waits for the main thread's switch interval (5 ms) when
that one runs Python: read by 1 MB, a 100 MB file hashed on a thread while a suite
loads took 0.2 s instead of its 0.09 s (hundreds of waits); by 8 MB, a few dozen."""


def digest_file(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb", buffering=0) as handle:
        buffer = bytearray(DIGEST_BLOCK)  # (pages are only touched as they are read into)
        view = memoryview(buffer)
        while True:
            n = handle.readinto(buffer)
            if not n:
                break
            h.update(view[:n])
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
