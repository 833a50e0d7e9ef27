"""The evaluator's shortcuts give what the plain definitions give: files found by
their NUL-joined names, and results.json written from runs copied file to file."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold._io import EncodedRun, write_encoded_array_atomic
from codegold.evaluate.evaluator import _FileNames

NAMES = ["src/a.py", "src/ab.py", "src/a", "a.py", "src/legacy/a.py", "", "x\0y", "é/ü.ts"]


@settings(max_examples=300, deadline=None)
@given(
    files=st.lists(st.sampled_from(NAMES), max_size=12),
    prefixes=st.lists(st.sampled_from(["src/", "src/a", "", "x", "src/legacy/", "é"]), min_size=1),
    wanted=st.frozensets(st.sampled_from(NAMES)),
)
def test_file_names_find_what_asking_each_file_finds(
    files: list[str], prefixes: list[str], wanted: frozenset[str]
) -> None:
    names = _FileNames(files)
    starting = {i for i, f in enumerate(files) if f.startswith(tuple(prefixes))}
    assert names.starting(tuple(prefixes)) == starting
    assert names.equal(wanted) == [i for i, f in enumerate(files) if f in wanted]


@pytest.mark.parametrize("kernel", [True, False])
def test_runs_copied_from_a_file_write_the_same_array(
    kernel: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not kernel:  # another file system: copy_file_range refuses, blocks are copied

        def refuse(*args: object) -> int:
            raise OSError(errno.EXDEV, "cross-device")

        monkeypatch.setattr(os, "copy_file_range", refuse, raising=False)
    values = [{"n": i, "text": "ü" * (i % 7)} for i in range(40)]
    encoded = [json.dumps(v, separators=(",", ":"), ensure_ascii=False).encode() for v in values]
    with tempfile.TemporaryFile() as spool:
        starts = []
        for data in encoded:
            spool.write(b",\n")
            starts.append(spool.tell())
            spool.write(data)
        spool.flush()

        def run(first: int, last: int) -> EncodedRun:
            lengths = array("q", (len(d) for d in encoded[first : last + 1]))
            end = starts[last] + lengths[-1]
            return EncodedRun(spool.fileno(), starts[first] - 2, end - starts[first] + 2, lengths)

        pieces = [run(0, 9), encoded[10], encoded[11], run(12, 12), run(13, 38), encoded[39]]
        offsets, lengths = write_encoded_array_atomic(tmp_path / "runs.json", pieces)
    plain = write_encoded_array_atomic(tmp_path / "plain.json", encoded)
    written = (tmp_path / "runs.json").read_bytes()
    assert written == (tmp_path / "plain.json").read_bytes()
    assert json.loads(written) == values
    assert (offsets, lengths) == plain
    for i, data in enumerate(encoded):
        assert written[offsets[i] : offsets[i] + lengths[i]] == data
    assert list(lengths) == [len(d) for d in encoded]
