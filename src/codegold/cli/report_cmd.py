"""`codegold report`: HTML, JUnit XML and jq-friendly JSON views of a run. Wiring only."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from codegold.evaluate.records import CaseResult

_RESULTS = click.Path(path_type=Path, dir_okay=True)
_OUT = click.Path(path_type=Path, dir_okay=False)


@click.command("report")
@click.argument("results", type=_RESULTS)
@click.option(
    "--summary",
    "summary_path",
    type=_OUT,
    help="summary.json of the same run (default: the one beside RESULTS).",
)
@click.option("--html", "html_out", type=_OUT, help="Write a self-contained HTML page.")
@click.option("--junit", "junit_out", type=_OUT, help="Write JUnit XML.")
@click.option("--json", "json_out", type=_OUT, help="Write {summary, failed: [records]}.")
@click.option(
    "--compare",
    "base",
    type=_RESULTS,
    help="A base run to compare against; embedded in the HTML and the JSON.",
)
@click.option("--title", help="Title of the HTML page.")
@click.option(
    "--cases",
    "cases_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="The suite file, as a path from the repository root: JUnit test cases get its "
    "file and each case's line, and annotations point there.",
)
@click.option(
    "--attempts",
    "attempts_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="attempts.jsonl of the run, for JUnit times (default: the one beside RESULTS).",
)
@click.option(
    "--github-annotations",
    "annotations",
    is_flag=True,
    help="Print a GitHub Actions ::error annotation for every failed or invalid case "
    "(at its line in --cases).",
)
def report(
    results: Path,
    summary_path: Path | None,
    html_out: Path | None,
    junit_out: Path | None,
    json_out: Path | None,
    base: Path | None,
    title: str | None,
    cases_path: Path | None,
    attempts_path: Path | None,
    annotations: bool,
) -> None:
    """Write reports for a run. RESULTS is a results.json or a run folder.

    The summary is summary.json beside the results unless --summary names one; with
    neither, it is recomputed from the records (without the run identity). Queries,
    diagnosis details and evidence are shown with secrets redacted. With no output
    option, prints the summary table. Exits 2 on bad input.
    """
    from codegold.evaluate.records import load_results

    records = load_results(results)
    summary = _load_summary(results, summary_path, records)
    comparison = None
    if base is not None:
        comparison = _compare(base, results, records)
    lines: dict[str, int] = {}
    if cases_path is not None:
        from codegold.report.ci import case_lines

        lines = case_lines(cases_path)
    if annotations:
        from codegold.report.ci import github_annotations

        for line in github_annotations(records, str(cases_path or "codegold"), lines):
            click.echo(line)
    if not (html_out or junit_out or json_out):
        if annotations:
            return
        from codegold.report.terminal import print_summary

        print_summary(summary, records)
        return
    if html_out is not None:
        from codegold.report.html import render_html

        page = render_html(
            records,
            summary,
            comparison_html=comparison.to_html() if comparison is not None else None,
            title=title,
        )
        _write(html_out, page.encode("utf-8"))
    if junit_out is not None:
        from codegold.report.ci import attempt_times
        from codegold.report.junit import render_junit

        run_dir = results if results.is_dir() else results.parent
        times = attempt_times(attempts_path or run_dir / "attempts.jsonl")
        xml = render_junit(
            records,
            summary,
            suite_file=str(cases_path) if cases_path is not None else None,
            case_lines=lines,
            times=times,
        )
        _write(junit_out, xml.encode("utf-8"))
    if json_out is not None:
        from codegold._io import encode_json
        from codegold.redact import redact_record

        doc: dict[str, Any] = {
            "summary": summary,
            "failed": [redact_record(r)[0] for r in _ordered(records) if not r.passed],
        }
        if comparison is not None:
            doc["comparison"] = comparison.to_dict()
        _write(json_out, encode_json(doc))
    for path in (html_out, junit_out, json_out):
        if path is not None:
            click.echo(f"wrote {path}")


def _ordered(records: list[CaseResult]) -> list[CaseResult]:
    return sorted(records, key=lambda r: (r.case_id, r.attempt_id or ""))


def _load_summary(
    results: Path, summary_path: Path | None, records: list[CaseResult]
) -> dict[str, Any]:
    import msgspec

    from codegold.errors import InputError
    from codegold.evaluate.summary import summarize
    from codegold.report.artifacts import SUMMARY

    if summary_path is None:
        beside = (results if results.is_dir() else results.parent) / SUMMARY
        if not beside.is_file():
            click.echo(
                f"codegold: note: no {SUMMARY} beside {results}; recomputed from the records "
                "(the run identity is unknown)",
                err=True,
            )
            return summarize(records, {})
        summary_path = beside
    try:
        raw = msgspec.json.decode(summary_path.read_bytes())
    except FileNotFoundError:
        raise InputError("no such file", file=str(summary_path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(summary_path)) from None
    except msgspec.DecodeError as exc:
        raise InputError(f"not JSON: {exc}", file=str(summary_path)) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("overall"), dict):
        raise InputError("not a codegold summary: no 'overall' object", file=str(summary_path))
    if not isinstance(raw.get("slices", {}), dict):
        raise InputError(
            "not a codegold summary: 'slices' is not an object", file=str(summary_path)
        )
    counted = raw["overall"].get("records")
    if isinstance(counted, int) and counted != len(records):
        raise InputError(
            f"describes {counted} records but {results} holds {len(records)}: not the same run",
            file=str(summary_path),
        )
    return raw


def _compare(base: Path, results: Path, records: list[CaseResult]) -> Any:
    from codegold.errors import EnvironmentProblem
    from codegold.evaluate.records import load_results

    try:
        from codegold.compare import compare_runs
    except ImportError as exc:
        raise EnvironmentProblem(f"--compare is not available here: {exc}") from None
    return compare_runs(load_results(base), records, base_label=str(base), head_label=str(results))


def _write(path: Path, data: bytes) -> None:
    from codegold._io import write_bytes_atomic
    from codegold.errors import EnvironmentProblem

    try:
        write_bytes_atomic(path, data)
    except OSError as exc:  # the machine's folders, not the input: exit 3
        raise EnvironmentProblem(f"{path}: cannot write: {exc.strerror or exc}") from None
