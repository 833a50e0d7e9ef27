"""`codegold run` (the main job) and `codegold retrieve`."""

from __future__ import annotations

from pathlib import Path

import click

from codegold.cli.index_cmd import embedder_option, resolve_embedder


def _retriever_config(path: Path | None) -> object:
    from codegold.retrieve.config import RetrieverConfig

    return RetrieverConfig.load(path) if path else RetrieverConfig()


@click.command("retrieve")
@click.option("--cases", "cases_path", required=True, type=click.Path(path_type=Path))
@click.option(
    "--index",
    "index_dir",
    required=True,
    type=click.Path(path_type=Path),
    help="Index root holding a build for every revision the suite pins.",
)
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(path_type=Path),
    help="attempts.jsonl to write.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Retriever settings (TOML [retriever], or the JSON `tune` writes).",
)
@click.option("--repeat", default=1, show_default=True, help="Attempts per case.")
@embedder_option
def retrieve(
    cases_path: Path,
    index_dir: Path,
    out_path: Path,
    config_path: Path | None,
    repeat: int,
    embedder: str,
) -> None:
    """Retrieve for every case of a suite with the reference retriever."""
    from codegold._io import write_jsonl_atomic
    from codegold.cases import load_suite
    from codegold.cli._progress import progress_bar
    from codegold.retrieve.runner import RetrievalSession

    suite = load_suite(cases_path)
    session = RetrievalSession(
        index_dir,
        _retriever_config(config_path),  # type: ignore[arg-type]
        embedder=resolve_embedder(embedder),
    )
    with progress_bar() as report:
        attempts = session.retrieve_suite(suite, repeat=repeat, progress=report)
    write_jsonl_atomic(out_path, attempts)
    click.echo(f"wrote {len(attempts)} attempts to {out_path}")


@click.command("run")
@click.option(
    "--cases",
    "cases_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Gold suite (YAML, JSON or JSONL).",
)
@click.option(
    "--repo",
    "repo_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Git repository (normal or bare) holding the pinned revisions.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=Path("codegold-out"),
    show_default=True,
    help="Folder for attempts.jsonl, results.json, summary.json.",
)
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Index root (default: OUT/index). Missing builds are made.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Retriever settings (TOML [retriever], or the JSON `tune` writes).",
)
@click.option(
    "--policy",
    "policy_path",
    type=click.Path(path_type=Path),
    default=None,
    help="codegold.toml with [policy] (default: the repository's own, at the revision).",
)
@click.option(
    "--retriever",
    "retriever_name",
    type=click.Choice(["hybrid", "bm25-window"]),
    default="hybrid",
    show_default=True,
    help="The reference retriever, or a plain BM25 over 40-line windows as a baseline.",
)
@click.option("--repeat", default=1, show_default=True, help="Attempts per case (all stored).")
@embedder_option
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
def run(
    cases_path: Path,
    repo_path: Path,
    out_dir: Path,
    index_dir: Path | None,
    config_path: Path | None,
    policy_path: Path | None,
    retriever_name: str,
    repeat: int,
    embedder: str,
    quiet: bool,
) -> None:
    """Index the repository at each pinned revision, retrieve for every case, evaluate.

    Writes OUT/attempts.jsonl, OUT/results.json and OUT/summary.json. Exits 0 when it
    evaluated, whatever the pass rate (`codegold gate` decides what blocks).
    """
    from codegold.cli.pipeline import run_pipeline

    summary, records = run_pipeline(
        cases_path=cases_path,
        repo_path=repo_path,
        out_dir=out_dir,
        index_dir=index_dir,
        config_path=config_path,
        policy_path=policy_path,
        retriever_name=retriever_name,
        repeat=repeat,
        embedder=resolve_embedder(embedder),
        quiet=quiet,
    )
    if not quiet:
        from codegold.report.terminal import print_summary

        print_summary(summary, records)
        click.echo(f"wrote {out_dir}/attempts.jsonl, results.json, summary.json")
