"""Progress on long work: a rich bar on a terminal, silence in CI and pipes.

Each stage's bar shows done/total, its rate and the time left; a stage that reports
its end (or whose work came from a cache) ends full, never at 0/N."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


def quiet() -> bool:
    return bool(os.environ.get("CI") or os.environ.get("CODEGOLD_QUIET_PROGRESS")) or not (
        sys.stderr.isatty()
    )


def rate_text(speed: float | None) -> str:
    """``12.3/s`` (``-`` before a rate is known); ``/min`` below one a second."""
    if not speed:
        return "-/s"
    if speed < 1:
        return f"{speed * 60:.1f}/min"
    return f"{speed:,.1f}/s" if speed < 100 else f"{speed:,.0f}/s"


@contextmanager
def progress_bar() -> Iterator[Callable[[str, int, int], None]]:
    """Yields ``report(stage, done, total)``. A stage reported again from 0 after it
    finished (the next revision's index) starts a fresh bar."""
    if quiet():
        yield lambda stage, done, total: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        Task,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class RateColumn(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed if task.finished else task.speed
            if speed is None and task.elapsed:  # too quick for rich's samples
                speed = task.completed / task.elapsed
            return Text(rate_text(speed), style="progress.data.speed")

    tasks: dict[str, Any] = {}
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(bar_width=24),
        MofNCompleteColumn(),
        RateColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        TimeElapsedColumn(),
        transient=False,
    ) as bar:

        def report(stage: str, done: int, total: int) -> None:
            if total <= 0:  # nothing to do (every file came from the cache): done
                total = done = 1
            task = tasks.get(stage)
            if task is not None and done == 0 and bar.tasks[task].finished:
                task = None  # a new round of the same stage
            if task is None:
                tasks[stage] = task = bar.add_task(stage, total=total)
            bar.update(task, completed=min(done, total), total=total)

        yield report
        # the work is done (an error would not reach here): every bar ends full, also
        # a stage whose files all came from the cache
        for task in bar.tasks:
            if not task.finished:
                bar.update(task.id, completed=task.total)


def echo_err(message: str) -> None:
    print(message, file=sys.stderr)
