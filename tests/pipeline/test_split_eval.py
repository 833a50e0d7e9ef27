"""`codegold eval` with two processes (the parent reads the first half of the attempts
file, a forked worker the second) writes byte for byte what one process writes, and
fails with the same error at the same line; a worker that fails leaves its half to the
parent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import codegold.pipeline.scoring as scoring
from codegold.errors import InputError
from codegold.pipeline import eval_pipeline
from tests.evaluate.golden_fixture import write_fixture, write_in_order
from tests.evaluate.test_golden_eval import GOLDEN, _digest


@pytest.fixture
def split_always(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Split every file, and record what each worker sent back (None: it failed)."""
    monkeypatch.setattr(scoring, "SPLIT_MIN_BYTES", 0)
    parts: list[object] = []
    real = scoring._Worker.result

    def result(self: Any) -> Any:
        part = real(self)
        parts.append(part)
        return part

    monkeypatch.setattr(scoring._Worker, "result", result)
    return parts


def _eval(suite: Path, attempts: Path, out: Path, workers: int) -> tuple[bytes, bytes]:
    eval_pipeline(cases_path=suite, attempts_path=attempts, out_dir=out, workers=workers)
    return (out / "results.json").read_bytes(), (out / "summary.json").read_bytes()


@pytest.mark.parametrize("kind", ["shuffled", "in-order"])
def test_two_processes_write_what_one_writes(
    kind: str, tmp_path: Path, split_always: list[object]
) -> None:
    suite, attempts = (write_fixture if kind == "shuffled" else write_in_order)(tmp_path)
    one = _eval(suite, attempts, tmp_path / "one", 1)
    assert split_always == []
    two = _eval(suite, attempts, tmp_path / "two", 2)
    assert len(split_always) == 1 and split_always[0] is not None  # the worker scored
    assert two == one
    out = tmp_path / "two"
    assert (_digest(out / "results.json"), _digest(out / "summary.json")) == GOLDEN[kind]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True)


def _error(suite: Path, attempts: Path, out: Path, workers: int) -> str:
    with pytest.raises(InputError) as caught:
        eval_pipeline(cases_path=suite, attempts_path=attempts, out_dir=out, workers=workers)
    return str(caught.value)


@pytest.mark.parametrize("bad", ["not json", "unknown case", "repeated id", "late repeat"])
def test_bad_input_in_the_second_half_fails_as_one_process_fails(
    bad: str, tmp_path: Path, split_always: list[object]
) -> None:
    suite, attempts = write_in_order(tmp_path)
    lines = _lines(attempts)
    at = len(lines) * 3 // 4  # in the worker's half
    row = json.loads(lines[at])
    if bad == "not json":
        lines[at] = "{not json\n"
    elif bad == "unknown case":
        lines[at] = json.dumps({**row, "caseId": "no-such-case"}) + "\n"
    elif bad == "repeated id":  # the id of a line the parent reads
        lines[at] = json.dumps({**row, "attemptId": json.loads(lines[3])["attemptId"]}) + "\n"
    else:  # the worker's own id, again in its half
        lines.append(json.dumps({**row, "attemptId": json.loads(lines[-1])["attemptId"]}) + "\n")
    attempts.write_text("".join(lines), encoding="utf-8")
    one = _error(suite, attempts, tmp_path / "one", 1)
    two = _error(suite, attempts, tmp_path / "two", 2)
    assert two == one
    assert f":{at + 1}" in one or bad == "late repeat"
    assert not (tmp_path / "two" / "results.json").exists()


def test_a_failed_worker_leaves_its_half_to_the_parent(
    tmp_path: Path, split_always: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    suite, attempts = write_fixture(tmp_path)
    one = _eval(suite, attempts, tmp_path / "one", 1)

    def broken(*args: object) -> None:
        raise MemoryError("the worker ran out")

    monkeypatch.setattr(scoring, "_score_span", broken)
    two = _eval(suite, attempts, tmp_path / "two", 2)
    assert split_always == [None]
    assert two == one


@pytest.mark.parametrize(
    ("cores", "load", "workers"), [(2, 0.4, 2), (2, 1.6, 1), (4, 2.0, 2), (1, 0.0, 1)]
)
def test_the_default_splits_only_with_a_core_to_spare(
    cores: int, load: float, workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scoring.os, "sched_getaffinity", lambda pid: set(range(cores)))
    monkeypatch.setattr(scoring.os, "getloadavg", lambda: (load, load, load))
    assert scoring._spare_workers() == workers


def test_without_sched_getaffinity_the_cpu_count_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    # macOS has no sched_getaffinity: the eval must still run (and may split)
    monkeypatch.delattr(scoring.os, "sched_getaffinity")
    monkeypatch.setattr(scoring.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(scoring.os, "getloadavg", lambda: (0.2, 0.2, 0.2))
    assert scoring._spare_workers() == 2


def test_where_no_process_can_fork_one_reads_it_all(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(scoring.os, "fork")
    assert scoring._spare_workers() == 1


def test_the_worker_is_forked_once_the_digest_thread_is_done(
    tmp_path: Path, split_always: list[object], monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading
    import time

    import codegold._digest as hashing

    slow_digest = hashing.digest_file

    def digest_file(path: Path) -> str:
        time.sleep(0.3)  # still hashing when the attempts are about to be split
        return slow_digest(path)

    monkeypatch.setattr(hashing, "digest_file", digest_file)
    threads: list[int] = []
    real_start = scoring._Worker.start

    def start(*args: Any) -> Any:
        threads.append(threading.active_count())
        return real_start(*args)

    monkeypatch.setattr(scoring._Worker, "start", start)
    suite, attempts = write_in_order(tmp_path)
    two = _eval(suite, attempts, tmp_path / "two", 2)
    assert threads == [1] and split_always[0] is not None
    assert two == _eval(suite, attempts, tmp_path / "one", 1)
