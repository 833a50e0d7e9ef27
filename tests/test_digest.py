"""A file's digest read in blocks is the sha256 of its bytes, whatever its size
against the block (empty, a block less one, a block, one more, several)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from codegold import _digest
from codegold._digest import digest_file, digest_meanwhile


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 4097, 3 * 4096 + 5])
def test_digest_is_sha256_of_the_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    monkeypatch.setattr(_digest, "DIGEST_BLOCK", 4096)
    path = tmp_path / "a.jsonl"
    data = os.urandom(size)
    path.write_bytes(data)
    expected = hashlib.sha256(data).hexdigest()
    assert digest_file(path) == expected
    assert digest_meanwhile(path)() == expected


def test_digest_of_a_large_file_in_default_blocks(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    data = os.urandom(_digest.DIGEST_BLOCK + 12345)
    path.write_bytes(data)
    assert digest_file(path) == hashlib.sha256(data).hexdigest()


def test_a_missing_file_raises_when_the_digest_is_asked_for(tmp_path: Path) -> None:
    digest = digest_meanwhile(tmp_path / "missing.jsonl")
    with pytest.raises(FileNotFoundError):
        digest()
