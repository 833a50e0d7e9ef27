"""`codegold run` (the main job) and `codegold retrieve`."""

from __future__ import annotations

from pathlib import Path

import click

from codegold.cli._options import (
    cases_option,
    embedder_option,
    policy_option,
    repo_option,
    retriever_config_option,
    selection_options,
)
from codegold.cli.index_cmd import resolve_embedder


def _retriever_config(path: Path | None) -> object:
    from codegold.retrieve.config import RetrieverConfig

    return RetrieverConfig.load(path) if path else RetrieverConfig()


@click.command("retrieve")
@cases_option
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
@retriever_config_option
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
    from codegold.redact import redact_attempt

    write_jsonl_atomic(out_path, [redact_attempt(a) for a in attempts])
    click.echo(f"wrote {len(attempts)} attempts to {out_path}")


@click.command("run")
@cases_option
@repo_option
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
@retriever_config_option
@policy_option
@click.option(
    "--retriever",
    "retriever_name",
    default="hybrid",
    show_default=True,
    help="hybrid (the reference retriever), bm25-window or bm25-file (plain baselines), "
    "command:CMD or http:URL (your own pipeline, one JSON request per case; see README), "
    "llamaindex:MODULE:FACTORY or langchain:MODULE:FACTORY (a retriever of those libraries), "
    "or a plugin's name.",
)
@click.option("--repeat", default=1, show_default=True, help="Attempts per case (all stored).")
@embedder_option
@click.option(
    "--assume-revision",
    "assume_revision",
    default=None,
    metavar="SHA",
    help="For command:/http: pipelines that send no index manifest: the revision they "
    "indexed. Results then say it was asserted, not proven.",
)
@selection_options
@click.option(
    "--include-drafts", is_flag=True, help="Also run cases marked 'status: draft' (tag draft)."
)
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
    assume_revision: str | None,
    case_ids: tuple[str, ...],
    tags: tuple[str, ...],
    include_drafts: bool,
    quiet: bool,
) -> None:
    """Index the repository at each pinned revision, retrieve for every case, evaluate.

    Writes OUT/attempts.jsonl, OUT/results.json and OUT/summary.json. Exits 0 when it
    evaluated, whatever the pass rate (`codegold gate` decides what blocks).
    """
    from codegold.cli._progress import echo_err, progress_bar
    from codegold.pipeline import run_pipeline
    from codegold.resolve import check_revision

    assumed = check_revision(assume_revision, field="--assume-revision")
    with progress_bar() as report:
        result = run_pipeline(
            cases_path=cases_path,
            repo_path=repo_path,
            out_dir=out_dir,
            index_dir=index_dir,
            config_path=config_path,
            policy_path=policy_path,
            retriever_name=retriever_name,
            repeat=repeat,
            embedder=resolve_embedder(embedder),
            case_ids=case_ids,
            tags=tags,
            progress=report,
            log=None if quiet else echo_err,
            assume_revision=assumed,
            include_drafts=include_drafts,
        )
    if not quiet:
        from codegold.report.terminal import print_summary

        print_summary(result.summary, result.records)
        _say_partial(result.summary)
        click.echo(f"wrote {out_dir}/attempts.jsonl, results.json, summary.json")


def _say_partial(summary: dict[str, object]) -> None:
    selection = summary.get("selection")
    if isinstance(selection, dict):
        from codegold.cases.selection import Selection

        click.echo(f"partial run: {Selection.from_dict(selection).describe()}")
