"""Where batch tasks run: ``local`` (a pool of this machine's processes) or ``ray``.

An executor runs one function over a list of jobs and gives the outcomes back in job
order, whatever order they finished in, so the results never depend on scheduling.
A task that raises (a crash, a lost worker: not a codegold error, which the task
reports itself) is retried ``retries`` times, then reported as failed.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from types import TracebackType
from typing import Any, Protocol

from codegold.batch.tasks import TaskOutcome
from codegold.errors import EnvironmentProblem, InputError, missing_extra

Progress = Callable[[str, int, int], None]
RETRIES = 2


class Executor(Protocol):
    name: str
    workers: int

    def map(
        self,
        fn: Callable[[Any], TaskOutcome],
        jobs: Sequence[Any],
        *,
        label: str,
        progress: Progress | None = None,
    ) -> list[TaskOutcome]: ...

    def close(self) -> None: ...


def _failed(exc: BaseException, tries: int) -> TaskOutcome:
    return TaskOutcome(error=f"task failed after {tries} tries: {type(exc).__name__}: {exc}")


class LocalExecutor:
    """``workers`` processes of this machine (spawned, so each starts clean)."""

    name = "local"

    def __init__(self, workers: int | None = None, retries: int = RETRIES) -> None:
        self.workers = max(1, workers or os.cpu_count() or 1)
        self.retries = retries
        self._pool = ProcessPoolExecutor(
            max_workers=self.workers, mp_context=multiprocessing.get_context("spawn")
        )

    def map(
        self,
        fn: Callable[[Any], TaskOutcome],
        jobs: Sequence[Any],
        *,
        label: str,
        progress: Progress | None = None,
    ) -> list[TaskOutcome]:
        outcomes: list[TaskOutcome | None] = [None] * len(jobs)
        tries = [0] * len(jobs)
        pending: dict[Future[TaskOutcome], int] = {}
        for i, job in enumerate(jobs):
            pending[self._pool.submit(fn, job)] = i
        done_count = 0
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                i = pending.pop(future)
                tries[i] += 1
                exc = future.exception()
                if exc is None:
                    outcomes[i] = future.result()
                elif tries[i] <= self.retries:
                    pending[self._pool.submit(fn, jobs[i])] = i
                    continue
                else:
                    outcomes[i] = _failed(exc, tries[i])
                done_count += 1
                if progress is not None:
                    progress(label, done_count, len(jobs))
        return [o for o in outcomes if o is not None]

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class RayExecutor:
    """Tasks on a Ray cluster: the one at ``address``, or a local instance started here
    with ``workers`` CPUs (default: every core of the machine)."""

    name = "ray"

    def __init__(
        self, address: str | None = None, workers: int | None = None, retries: int = RETRIES
    ) -> None:
        try:
            import ray
        except ImportError:
            raise missing_extra("ray", "--executor ray") from None
        self._ray = ray
        self.retries = retries
        self._started = False
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": True}
            if address is None:
                cpus = max(1, workers or os.cpu_count() or 1)
                # a small object store: tasks return records, indexes travel by path
                options.update(num_cpus=cpus, object_store_memory=256 * 1024 * 1024)
            try:
                ray.init(address=address, **options)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                where = address or "a local instance"
                raise EnvironmentProblem(f"cannot start Ray on {where}: {exc}") from None
            self._started = True
        self.workers = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call, unused-ignore]
        self._remote: dict[Any, Any] = {}

    def map(
        self,
        fn: Callable[[Any], TaskOutcome],
        jobs: Sequence[Any],
        *,
        label: str,
        progress: Progress | None = None,
    ) -> list[TaskOutcome]:
        ray = self._ray
        if fn not in self._remote:
            self._remote[fn] = ray.remote(
                num_cpus=1, max_retries=self.retries, retry_exceptions=True
            )(fn)
        remote = self._remote[fn]
        refs = [remote.remote(job) for job in jobs]
        pending = list(refs)
        done_count = 0
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            done_count += len(done)
            if progress is not None:
                progress(label, done_count, len(jobs))
        outcomes: list[TaskOutcome] = []
        for ref in refs:
            try:
                outcomes.append(ray.get(ref))
            except Exception as exc:  # a task that failed on every try
                outcomes.append(_failed(exc, self.retries + 1))
        return outcomes

    def close(self) -> None:
        if self._started:
            self._ray.shutdown()

    def __enter__(self) -> RayExecutor:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def make_executor(name: str, *, address: str | None, workers: int | None) -> Executor:
    if name == "local":
        if address is not None:
            raise InputError("--ray-address needs --executor ray", field="--ray-address")
        return LocalExecutor(workers)
    if name == "ray":
        return RayExecutor(address, workers)
    raise InputError(f"unknown executor {name!r} (local, ray)", field="--executor")
