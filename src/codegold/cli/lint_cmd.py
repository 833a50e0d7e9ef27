"""`codegold lint`: check a suite's labels against the repository, optionally re-pin it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from codegold.cases import Suite
    from codegold.lint import LintReport, Migration

DEFAULT_INDEX = ".codegold/index"


@click.command("lint")
@click.argument("suites", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--repo",
    "repo_path",
    required=True,
    type=click.Path(path_type=Path),
    help="The git repository the suite is pinned to (normal or bare).",
)
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_INDEX,
    show_default=True,
    help="codegold index root; a revision with no build there is indexed first.",
)
@click.option(
    "--to-revision",
    "to_revision",
    default=None,
    help="Also plan the suite onto this revision and write a proposed suite.",
)
@click.option(
    "--out",
    "out_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Proposed suite file (default: <suite stem>.<rev12>.proposed.yaml beside it).",
)
@click.option("--force", is_flag=True, help="Overwrite an existing proposed suite file.")
@click.option(
    "--json",
    "json_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the findings (and the migration plan) as JSON.",
)
def lint(
    suites: tuple[Path, ...],
    repo_path: Path,
    index_dir: Path,
    to_revision: str | None,
    out_path: Path | None,
    force: bool,
    json_path: Path | None,
) -> None:
    """Check every label of SUITE... at the revision its case pins.

    Files and symbols must exist there, roles and lines should agree with codegold's
    index, forbidden prefixes should name real paths. Several suites are checked
    together for duplicate ids and queries.

    With --to-revision, each target is also looked for at REV (git renames, the
    same symbol in another file) and a proposed suite pinned to REV is written; the
    original is never touched.

    Exits 1 when any finding is an error, 0 otherwise, 2 on bad input.
    """
    from codegold._io import write_json_atomic, write_text_atomic
    from codegold.cli._progress import echo_err, progress_bar
    from codegold.pipeline.lint import lint_pipeline
    from codegold.redact import redact_json

    if out_path is not None and to_revision is None:
        raise click.UsageError("--out names the proposed suite: it needs --to-revision")
    if out_path is not None and len(suites) > 1:
        raise click.UsageError("--out takes one suite; with several, each gets its default name")
    with progress_bar() as report:
        done = lint_pipeline(
            suites,
            repo_path,
            index_dir,
            to_revision=to_revision,
            out_path=out_path,
            force=force,
            progress=report,
            log=echo_err,
        )
    _print_report(done.report, done.suites)
    for migration, out, text in zip(done.migrations, done.outputs, done.proposals, strict=True):
        write_text_atomic(out, text)
        _print_migration(migration, out)
    if json_path is not None:
        doc = {
            "suites": [
                {"path": s.path, "digest": s.digest, "cases": len(s.cases)} for s in done.suites
            ],
            **done.report.as_json(),
        }
        if done.migrations:
            doc["migrations"] = [
                {**m.as_json(), "proposed": str(out)}
                for m, out in zip(done.migrations, done.outputs, strict=True)
            ]
        write_json_atomic(json_path, redact_json(doc)[0])
    if done.report.exit_code:
        # SystemExit rather than ctx.exit: the code must survive any caller of main().
        raise SystemExit(done.report.exit_code)


_STYLE = {"error": "bold red", "warning": "yellow", "info": "dim"}


def _print_report(report: LintReport, suites: list[Suite]) -> None:
    from rich.console import Console
    from rich.markup import escape

    from codegold.lint import Severity

    console = Console(highlight=False, soft_wrap=True)
    cases = sum(len(s.cases) for s in suites)
    if console.is_terminal and report.findings:
        from rich.table import Table

        table = Table(title_justify="left", title=f"codegold lint: {cases} cases")
        for col in ("severity", "where", "case", "field", "message"):
            table.add_column(col, overflow="fold")
        for f in report.findings:
            table.add_row(
                f"[{_STYLE[f.severity]}]{f.severity}[/]",
                escape(f.location()),
                escape(f.case_id or "-"),
                escape(f.field or "-"),
                escape(f.message),
            )
        console.print(table)
    else:
        for f in report.findings:
            who = " ".join(p for p in (f.case_id, f.field) if p)
            _echo(f"{f.location()}: {f.severity}: {who + ': ' if who else ''}{f.message}")
    counts = ", ".join(_count(report.count(s), str(s)) for s in Severity)
    verdict = "failed" if report.exit_code else "passed"
    _echo(f"lint {verdict}: {_count(cases, 'case')}, {counts}")


def _count(n: int, word: str) -> str:
    if word == "info":
        return f"{n} info"
    return f"{n} {word}" + ("" if n == 1 else "s")


def _print_migration(migration: Migration, out: Path) -> None:
    from codegold.lint import Verdict

    rev = migration.to_revision[:12]
    counts = ", ".join(f"{v} {k}" for k, v in migration.counts.items() if v)
    _echo(f"to {rev}: {_count(len(migration.targets), 'target')} ({counts})")
    for move in migration.targets:
        if move.verdict is Verdict.HOLDS:
            continue
        new = move.new.describe() if move.new is not None else "?"
        if move.new is not None and move.new.lines is not None:
            new += f" lines {move.new.lines.start}-{move.new.lines.end}"
        _echo(
            f"  {move.case_id} {move.field}: {move.old.describe()} → {new} "
            f"({move.confidence}: {move.detail})"
        )
    moved = [c for c in migration.cases if c.moves]
    kept = [c.case_id for c in migration.cases if not c.moves]
    line = f"wrote {out}: {_count(len(moved), 'case')} moved to {rev}"
    if kept:
        line += f", {len(kept)} kept at their old revision for review ({', '.join(kept)})"
    _echo(line)


def _echo(text: str) -> None:
    """Findings quote queries and labels: printed redacted, like every output."""
    from codegold.redact import redact_text

    click.echo(redact_text(text))
