"""`codegold eval` and `codegold schema`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from codegold.cli._options import cases_option, policy_option, selection_options


@click.command("eval")
@cases_option
@click.option(
    "--attempts",
    "attempts_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Recorded retrieval attempts (JSONL).",
)
@click.option(
    "--out",
    "out_dir",
    required=True,
    type=click.Path(path_type=Path),
    help="Folder for results.json and summary.json.",
)
@click.option(
    "--repo",
    "repo_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Git repository at the pinned revisions: enables diagnosis of failures, and "
    "resolving chunks that carry only a file and an excerpt or lines.",
)
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="codegold index root used for diagnosis (default: OUT/index; built if missing).",
)
@click.option(
    "--assume-revision",
    "assume_revision",
    default=None,
    metavar="SHA",
    help="The revision your retriever indexed, for attempts without an index manifest: "
    "results then say it was asserted, not proven.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Processes that score a large attempts file when nothing diagnoses (0: two "
    "when the machine has a core to spare; 1: one). The artifacts are the same.",
)
@policy_option
@selection_options
@click.option("--quiet", is_flag=True, help="Print nothing on success.")
def eval_(
    cases_path: Path,
    attempts_path: Path,
    out_dir: Path,
    repo_path: Path | None,
    index_dir: Path | None,
    assume_revision: str | None,
    workers: int,
    policy_path: Path | None,
    case_ids: tuple[str, ...],
    tags: tuple[str, ...],
    quiet: bool,
) -> None:
    """Evaluate recorded attempts against a suite.

    Exits 0 when it evaluated, whatever the pass rate (use `codegold gate` to block),
    2 on bad input.
    """
    from codegold._digest import digest_meanwhile

    # hashed while the pipeline's modules are imported and the suite is read
    digest = digest_meanwhile(attempts_path)
    from codegold.cli._progress import echo_err, progress_bar
    from codegold.pipeline import eval_pipeline

    assumed = None
    if assume_revision is not None:  # (resolving spans is not imported otherwise)
        from codegold.resolve import check_revision

        assumed = check_revision(assume_revision, field="--assume-revision")
    with progress_bar() as report:
        result = eval_pipeline(
            cases_path=cases_path,
            attempts_path=attempts_path,
            out_dir=out_dir,
            repo_path=repo_path,
            index_dir=index_dir,
            case_ids=case_ids,
            tags=tags,
            progress=report,
            log=None if quiet else echo_err,
            assume_revision=assumed,
            policy_path=policy_path,
            workers=workers,
            attempts_digest=digest,
        )
    if not quiet:
        from codegold.report.terminal import print_summary

        print_summary(result.summary, result.records)
        _say_partial(result.summary)
        click.echo(f"wrote {out_dir / 'results.json'} and {out_dir / 'summary.json'}")


@click.command("schema")
@click.argument("kind", type=click.Choice(["suite", "attempts", "results"]))
def schema(kind: str) -> None:
    """Print the JSON Schema of a file format, for editors and validators."""
    import msgspec

    from codegold._io import encode_json

    if kind == "suite":
        from codegold.cases.model import SUITE_SCHEMA_ID, SuiteFile

        doc = msgspec.json.schema(SuiteFile)
        doc["$id"] = SUITE_SCHEMA_ID
    elif kind == "attempts":
        from codegold.attempts import Attempt

        doc = msgspec.json.schema(Attempt)
        doc["description"] = "One JSON object per line (JSONL)."
    else:
        from codegold.evaluate.records import CaseResult

        doc = msgspec.json.schema(list[CaseResult])
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    sys.stdout.buffer.write(encode_json(doc))


def _say_partial(summary: dict[str, object]) -> None:
    selection = summary.get("selection")
    if isinstance(selection, dict):
        from codegold.cases.selection import Selection

        click.echo(f"partial run: {Selection.from_dict(selection).describe()}")
