"""results.json is written in its own temporary file as records are scored: the
array is ended in place when they came in suite order, copied to a fresh file when
not (the same bytes either way: the golden digests), and a run that fails leaves
neither the file nor the folders it made."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegold.errors import InputError
from codegold.evaluate.spool import RecordSpool
from codegold.pipeline import eval_pipeline
from tests.evaluate.golden_fixture import write_in_order


def test_records_in_order_are_the_file_itself(tmp_path: Path) -> None:
    target = tmp_path / "out" / "results.json"
    spool = RecordSpool(target)
    tickets = [spool.put(f"a{i}", json.dumps({"n": i}).encode()) for i in range(3)]
    offsets, lengths = spool.write(target, [spool.run(0, 3), b'{"n":3}'])
    assert not target.exists()  # renamed once it is on disk
    spool.finish()
    spool.close()
    data = target.read_bytes()
    assert data == b'[\n{"n": 0},\n{"n": 1},\n{"n": 2},\n{"n":3}\n]\n'
    assert [json.loads(data[o : o + n]) for o, n in zip(offsets, lengths, strict=True)] == [
        {"n": i} for i in range(4)
    ]
    assert [t.index for t in tickets] == [0, 1, 2]
    assert sorted(p.name for p in target.parent.iterdir()) == ["results.json"]


def test_records_out_of_order_are_copied_to_the_same_bytes(tmp_path: Path) -> None:
    target = tmp_path / "results.json"
    spool = RecordSpool(target)
    for i in range(3):
        spool.put(f"a{i}", json.dumps({"n": i}).encode())
    spool.write(target, [spool.run(2, 1), spool.run(0, 2)])
    spool.finish()
    spool.close()
    assert target.read_bytes() == b'[\n{"n": 2},\n{"n": 0},\n{"n": 1}\n]\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.json"]


def test_a_failed_run_leaves_no_folder_and_no_temporary_file(tmp_path: Path) -> None:
    suite, attempts = write_in_order(tmp_path, n_cases=40)
    lines = attempts.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[30] = "{not json\n"
    attempts.write_text("".join(lines), encoding="utf-8")
    made = tmp_path / "a" / "b" / "out"
    with pytest.raises(InputError):
        eval_pipeline(cases_path=suite, attempts_path=attempts, out_dir=made)
    assert not (tmp_path / "a").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "notes.txt").write_text("mine")
    with pytest.raises(InputError):
        eval_pipeline(cases_path=suite, attempts_path=attempts, out_dir=kept / "out")
    assert sorted(p.name for p in kept.iterdir()) == ["notes.txt"]


def test_a_run_that_fails_after_writing_its_records_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "out" / "results.json"
    spool = RecordSpool(target)
    spool.put("a", b"{}")
    spool.write(target, [spool.run(0, 1)])
    spool.close()  # (the summary failed: finish is never reached)
    assert not (tmp_path / "out").exists()


def test_written_records_go_to_disk_ahead_and_a_failed_fsync_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    import codegold.evaluate.spool as spool_module

    monkeypatch.setattr(spool_module, "SYNC_AHEAD_BYTES", 16)
    flushed: list[int] = []  # what the file held each time its fsync was started ahead
    real_ahead = spool_module._ResultsFile.sync_ahead

    def sync_ahead(self: spool_module._ResultsFile) -> None:
        real_ahead(self)
        flushed.append(os.fstat(self.handle.fileno()).st_size)

    monkeypatch.setattr(spool_module._ResultsFile, "sync_ahead", sync_ahead)
    target = tmp_path / "results.json"
    spool = RecordSpool(target)
    for i in range(6):
        spool.put(f"a{i}", json.dumps({"n": i}).encode())
    spool.write(target, [spool.run(0, 6)])
    spool.finish()
    spool.close()
    data = target.read_bytes()
    assert json.loads(data) == [{"n": i} for i in range(6)]
    # started while records were still being written, on the bytes written so far
    assert flushed and all(0 < n < len(data) for n in flushed)

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(spool_module.os, "fsync", failing)
    spool = RecordSpool(tmp_path / "again.json")
    for i in range(6):
        spool.put(f"a{i}", json.dumps({"n": i}).encode())
    spool.write(tmp_path / "again.json", [spool.run(0, 6)])
    with pytest.raises(OSError, match="Input/output"):
        spool.finish()
    spool.close()
    assert not (tmp_path / "again.json").exists()
