"""`codegold eval` and `codegold schema`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegold.cli._options import cases_option

if TYPE_CHECKING:
    from codegold.cases import Suite
    from codegold.evaluate.records import CaseResult


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
    help="Git repository at the pinned revisions: enables diagnosis of failures.",
)
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="codegold index root used for diagnosis (default: OUT/index; built if missing).",
)
@click.option("--quiet", is_flag=True, help="Print nothing on success.")
def eval_(
    cases_path: Path,
    attempts_path: Path,
    out_dir: Path,
    repo_path: Path | None,
    index_dir: Path | None,
    quiet: bool,
) -> None:
    """Evaluate recorded attempts against a suite.

    Exits 0 when it evaluated, whatever the pass rate (use `codegold gate` to block),
    2 on bad input.
    """
    from codegold.attempts import digest_file, iter_attempts
    from codegold.cases import load_suite
    from codegold.evaluate import evaluate_attempts
    from codegold.evaluate.repeat import check_repeats
    from codegold.report.artifacts import AttemptLedger, run_identity, write_results

    suite = load_suite(cases_path)
    ledger = AttemptLedger()
    attempts = iter_attempts(attempts_path, known_cases=[c.id for c in suite.cases])
    records = evaluate_attempts(suite, ledger.watch(attempts))
    if repo_path is not None or index_dir is not None:
        records = _diagnose(
            suite, records, attempts_path, repo_path, index_dir or out_dir / "index", quiet=quiet
        )
    # repeated attempts: the file is read once more, only when some case has several
    records, repeats = check_repeats(records, iter_attempts(attempts_path))
    identity = run_identity(suite, ledger, attempts_digest=digest_file(attempts_path))
    summary = write_results(out_dir, records, {**identity, **repeats})
    if not quiet:
        from codegold.report.terminal import print_summary

        print_summary(summary, records)
        click.echo(f"wrote {out_dir / 'results.json'} and {out_dir / 'summary.json'}")


def _diagnose(
    suite: Suite,
    records: list[CaseResult],
    attempts_path: Path,
    repo_path: Path | None,
    index_root: Path,
    *,
    quiet: bool,
) -> list[CaseResult]:
    """Diagnose failures with codegold's own index of each pinned revision: built from
    the repository when one is given (if missing), else read from ``index_root``."""
    from codegold.attempts import iter_attempts
    from codegold.cli._progress import progress_bar
    from codegold.cli.pipeline import diagnosis_context, ensure_indexes
    from codegold.corpus.git import GitRepo
    from codegold.diagnose import diagnose_records

    failed_ids = {r.attempt_id for r in records if not r.passed and r.attempt_id}
    attempts = {a.attempt_id: a for a in iter_attempts(attempts_path) if a.attempt_id in failed_ids}
    if repo_path is None:
        return diagnose_records(
            suite.by_id(), records, attempts, diagnosis_context(None, index_root)
        )
    with GitRepo(repo_path) as git, progress_bar() as report:
        ensure_indexes(
            git,
            suite.revisions,
            index_root,
            policy_path=None,
            embedder=None,
            repository_name=suite.repository_name,
            report=report,
            quiet=quiet,
        )
        ctx = diagnosis_context(git, index_root)
        return diagnose_records(suite.by_id(), records, attempts, ctx)


@click.command("schema")
@click.argument("kind", type=click.Choice(["suite", "attempts", "results"]))
def schema(kind: str) -> None:
    """Print the JSON Schema of a file format, for editors and validators."""
    import msgspec

    from codegold._io import encode_json

    if kind == "suite":
        from codegold.cases.model import SuiteFile

        doc = msgspec.json.schema(SuiteFile)
    elif kind == "attempts":
        from codegold.attempts import Attempt

        doc = msgspec.json.schema(Attempt)
        doc["description"] = "One JSON object per line (JSONL)."
    else:
        from codegold.evaluate.records import CaseResult

        doc = msgspec.json.schema(list[CaseResult])
    doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    sys.stdout.buffer.write(encode_json(doc))
