"""`codegold answers`: wiring only (the join lives in :mod:`codegold.answers`)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("answers")
@click.argument("answers_path", metavar="ANSWERS.jsonl", type=click.Path(path_type=Path))
@click.option(
    "--results",
    "results_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The run folder (or its results.json) the answers were generated from.",
)
@click.option(
    "--attempts",
    "attempts_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Retrieval attempts (JSONL). Default: attempts.jsonl in the run folder.",
)
@click.option(
    "--cases",
    "cases_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Gold suite: judge evidence group by group (default: from the results' matches).",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Folder for answers.json and answers_summary.json. Default: the run folder, "
    "whose results.json and summary.json then get the answer diagnoses.",
)
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
def answers(
    answers_path: Path,
    results_path: Path,
    attempts_path: Path | None,
    cases_path: Path | None,
    out_dir: Path | None,
    quiet: bool,
) -> None:
    """Join an answer log to its retrieval attempts (by attemptId) and class every
    failed answer: evidence absent, evidence present but ignored, or evidence stale.

    Writes the report even when some answer cannot be resolved to its attempt; the
    join is then marked invalid, no run file is changed, and the exit code is 2.
    """
    from codegold.answers import judge_answers, load_answers, update_run, write_answer_artifacts
    from codegold.attempts import digest_file, load_attempts
    from codegold.evaluate.records import RESULTS, load_results
    from codegold.report.artifacts import ATTEMPTS

    run_dir = results_path if results_path.is_dir() else results_path.parent
    results_file = results_path / RESULTS if results_path.is_dir() else results_path
    attempts_file = attempts_path or run_dir / ATTEMPTS
    records = load_results(results_file)
    attempts = load_attempts(attempts_file)
    suite = None
    if cases_path is not None:
        from codegold.cases import load_suite

        suite = load_suite(cases_path)
    logged = load_answers(answers_path)
    report = judge_answers(logged, attempts, records, suite=suite)
    out = out_dir or run_dir
    sources = {
        "answers": answers_path.name,
        "answersDigest": digest_file(answers_path),
        "results": results_file.name,
        "attempts": attempts_file.name,
        "attemptsDigest": digest_file(attempts_file),
        "suite": Path(suite.path).name if suite is not None else None,
    }
    summary = write_answer_artifacts(out, report, sources)
    in_run = out.resolve() == run_dir.resolve()
    if report.valid and in_run:
        update_run(run_dir, records, report)
    if not quiet:
        classes = summary["classes"]
        click.echo(
            f"{summary['answers']} answer(s): {summary['passed']} passed, "
            f"{summary['failed']} failed ({classes['evidence_absent']} evidence absent, "
            f"{classes['evidence_present_ignored']} evidence present but ignored, "
            f"{classes['evidence_stale']} evidence stale); {summary['retries']} retr"
            f"{'y' if summary['retries'] == 1 else 'ies'}"
        )
        for reason in summary["invalidReasons"]:
            click.echo(
                f"unresolvable: answer {reason['answerId']} (line {reason['line']}, case "
                f"{reason['caseId']}): {reason['reason']}"
            )
        wrote = f"wrote {out / 'answers.json'} and {out / 'answers_summary.json'}"
        if report.valid and in_run:
            wrote += f"; updated {results_file.name} and summary.json"
        click.echo(wrote)
    if not report.valid:
        click.echo(
            f"codegold: error: the answer log is invalid: {summary['unresolved']} answer(s) "
            "cannot be resolved to their retrieval attempt",
            err=True,
        )
        raise SystemExit(2)
