"""`codegold batch`: many suites, repositories and revisions, on this machine or Ray."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from codegold.cli._options import embedder_option


@click.command("batch")
@click.argument("plan_path", metavar="PLAN.toml", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(path_type=Path),
    help="Folder for OUT/<suite>/ (attempts, results, summary) and OUT/summary.json.",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: a pool of this machine's processes; ray: a Ray cluster (codegold[ray]).",
)
@click.option(
    "--ray-address",
    default=None,
    metavar="ADDR",
    help="Join this Ray cluster (default: start a local Ray instance).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (local) or CPUs of the local Ray instance; default: the cores.",
)
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Index root every worker reads and writes (default: OUT/index). On a cluster, "
    "a path every node sees at the same place.",
)
@click.option(
    "--shard-size",
    type=click.IntRange(min=1),
    default=25,
    show_default=True,
    help="Cases per retrieval-and-evaluation task.",
)
@embedder_option
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
def batch(
    plan_path: Path,
    out_dir: Path,
    executor: str,
    ray_address: str | None,
    workers: int | None,
    index_dir: Path | None,
    shard_size: int,
    embedder: str,
    quiet: bool,
) -> None:
    """Run every suite of a plan: index tasks per (repository, revision), shared across
    suites, then retrieval-and-evaluation tasks per shard of cases.

    Writes OUT/<suite>/ as `run` does and OUT/summary.json over all of them (slices by
    repository and by repository size). A suite whose index or cases fail is reported
    and the rest go on; the exit code is then 2.
    """
    from codegold.batch import load_plan, run_batch
    from codegold.batch.executors import make_executor
    from codegold.cli._progress import echo_err, progress_bar

    plan = load_plan(plan_path)
    runner = make_executor(executor, address=ray_address, workers=workers)
    try:
        with progress_bar() as report:
            result = run_batch(
                plan,
                out_dir,
                runner,
                index_dir=index_dir,
                embedder=embedder,
                shard_size=shard_size,
                progress=None if quiet else report,
                log=echo_err,
            )
    finally:
        runner.close()
    if not quiet:
        overall = result.summary["overall"]
        execution = result.summary["execution"]
        for suite in result.summary["suites"]:
            state = suite["status"] if suite["error"] is None else f"FAILED: {suite['error']}"
            click.echo(f"{suite['name']}: {suite['cases']} cases, {state}")
        click.echo(
            f"batch: {overall['cases']} cases over {len(result.suites)} suites, "
            f"{execution['executor']} x{execution['workers']}, {execution['seconds']}s; "
            f"wrote {out_dir}/summary.json"
        )
    if result.failed:
        sys.exit(2)
