"""`codegold draft` and `codegold init`: draft gold cases from traces or from the code."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("draft")
@click.option(
    "--from",
    "fmt",
    required=True,
    type=click.Choice(["search-log", "assistant-trace", "review-comments"]),
    help="The trace format (see `codegold draft --help`).",
)
@click.argument("trace", type=click.Path(path_type=Path))
@click.option(
    "--repo",
    "repo_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Git repository (normal or bare) the traces are about.",
)
@click.option(
    "--revision",
    default=None,
    metavar="SHA",
    help="Pin records that name no revision of their own here (default: HEAD).",
)
@click.option(
    "--out",
    "out_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Draft suite to write (YAML).",
)
@click.option("--name", default=None, help="Suite name (default: drafts-<trace name>).")
@click.option(
    "--policy",
    "policy_path",
    type=click.Path(path_type=Path),
    default=None,
    help="codegold.toml with [policy] (default: the repository's own, at the revision).",
)
def draft(
    fmt: str,
    trace: Path,
    repo_path: Path,
    revision: str | None,
    out_path: Path,
    name: str | None,
    policy_path: Path | None,
) -> None:
    """Turn engineering traces (TRACE, JSONL) into draft gold cases.

    \b
    search-log       {"query", "opened": [{"file", "line"?}], "revision"?, "at"?}
    assistant-trace  {"query", "contextIds" | "files", "verdict"}  (failed answers)
    review-comments  {"body", "path", "line", "commit"}

    Each case is pinned to a revision, its targets resolved to symbols and roles by
    codegold's parse at that revision, secrets, e-mail addresses and user names in
    paths removed, and marked 'status: draft'.
    """
    from codegold.drafts.build import draft_suite

    report = draft_suite(
        fmt, trace, repo_path, out_path, revision=revision, name=name, policy_path=policy_path
    )
    for line in report.lines(out_path):
        click.echo(line)


@click.command("init")
@click.option(
    "--repo",
    "repo_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Git repository (normal or bare) to scaffold a suite for.",
)
@click.option(
    "--out",
    "out_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("suite.yaml"),
    show_default=True,
    help="Suite file to write.",
)
@click.option("--revision", default="HEAD", show_default=True, help="Commit to pin.")
@click.option("--force", is_flag=True, help="Replace OUT when it exists.")
def init(repo_path: Path, out_path: Path, revision: str, force: bool) -> None:
    """Scaffold a suite pinned at HEAD with a few draft example cases drawn from the
    code: an exact-identifier case for a prominent definition, a usage case answered by
    a test, a configuration case for the project manifest."""
    from codegold.drafts.scaffold import scaffold

    report = scaffold(repo_path, out_path, revision=revision, force=force)
    for line in report.lines(out_path):
        click.echo(line)
