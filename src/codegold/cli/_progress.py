"""Progress on long work: a rich bar on a terminal, silence in CI and pipes."""

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


@contextmanager
def progress_bar() -> Iterator[Callable[[str, int, int], None]]:
    """Yields ``report(stage, done, total)``."""
    if quiet():
        yield lambda stage, done, total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    tasks: dict[str, Any] = {}
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), transient=True
    ) as bar:

        def report(stage: str, done: int, total: int) -> None:
            if stage not in tasks:
                tasks[stage] = bar.add_task(stage, total=total or 1)
            bar.update(tasks[stage], completed=done, total=total or 1)

        yield report


def echo_err(message: str) -> None:
    print(message, file=sys.stderr)
