"""`codegold freshness`: how far an index is behind its branch, for a scheduled job."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("freshness")
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=".codegold/index",
    show_default=True,
    help="Index root folder (or one build folder).",
)
@click.option(
    "--repo",
    "repo_path",
    required=True,
    type=click.Path(path_type=Path),
    help="Git repository (normal or bare) the index was built from.",
)
@click.option("--branch", default="HEAD", show_default=True, help="Branch (or ref) to compare.")
@click.option(
    "--max-behind",
    type=click.IntRange(min=0),
    default=None,
    help="Exit 1 when the index is more than N commits behind the branch head.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def freshness(
    index_dir: Path, repo_path: Path, branch: str, max_behind: int | None, as_json: bool
) -> None:
    """Report how far the index revision is behind the branch head (commits and commit
    time). Exit 0 fresh enough, 1 past --max-behind, 2 bad input, 3 environment."""
    from codegold._io import encode_json
    from codegold.freshness import check_freshness, describe

    result = check_freshness(index_dir, repo_path, branch=branch, max_behind=max_behind)
    if as_json:
        click.echo(encode_json(result.to_json()).decode("utf-8").rstrip("\n"))
    else:
        for line in describe(result):
            click.echo(line)
    if result.stale:
        # SystemExit rather than ctx.exit: the code must survive any caller of main().
        raise SystemExit(1)
