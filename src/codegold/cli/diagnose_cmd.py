"""`codegold diagnose`: read a run folder the way an engineer would."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from codegold.attempts import Attempt
    from codegold.evaluate.records import CaseResult


@click.command("diagnose")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--case", "case_id", default=None, help="Only this case (default: every failure).")
@click.option(
    "--bundle",
    "bundle_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Write one evidence bundle (JSON + Markdown) per failed case here.",
)
@click.option(
    "--repo",
    "repo_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Repository, for excerpts around the expected symbol.",
)
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=None,
    help="codegold index root (default: RUN_DIR/index when it exists).",
)
@click.option("-k", "depth", default=8, show_default=True, help="Ranked chunks to show.")
def diagnose(
    run_dir: Path,
    case_id: str | None,
    bundle_dir: Path | None,
    repo_path: Path | None,
    index_dir: Path | None,
    depth: int,
) -> None:
    """Explain failed cases of a run folder (the OUT of `run` or `eval`)."""
    from codegold._io import ensure_output_dir
    from codegold.attempts import iter_attempts
    from codegold.diagnose.bundle import build_bundle, write_bundles
    from codegold.errors import InputError
    from codegold.evaluate.records import load_results
    from codegold.index.store import IndexCache
    from codegold.pipeline import diagnosis_context
    from codegold.report.artifacts import ATTEMPTS

    records = load_results(run_dir)
    if bundle_dir is not None:
        ensure_output_dir(bundle_dir, "--bundle")
    chosen = [r for r in records if (r.case_id == case_id if case_id else not r.passed)]
    if case_id and not chosen:
        raise InputError(f"no case {case_id!r} in the results", file=str(run_dir))
    wanted = {r.attempt_id for r in chosen if r.attempt_id}
    attempts = {}
    if (run_dir / ATTEMPTS).exists():
        attempts = {
            a.attempt_id: a for a in iter_attempts(run_dir / ATTEMPTS) if a.attempt_id in wanted
        }
    git = None
    if repo_path is not None:
        from codegold.corpus.git import GitRepo

        git = GitRepo(repo_path)
    ctx = diagnosis_context(git, IndexCache(index_dir or (run_dir / "index")))

    try:
        for record in chosen:
            _print_case(record, attempts.get(record.attempt_id or ""), depth)
        if not chosen:
            click.echo("no failed cases")
        if bundle_dir is not None:
            bundles = [
                build_bundle(
                    r,
                    attempts.get(r.attempt_id or ""),
                    index=ctx.index_for(r.repository_revision or ""),
                    read_text=ctx.text,
                )
                for r in chosen
                if not r.passed
            ]
            paths = write_bundles(bundle_dir, bundles)
            click.echo(f"wrote {len(paths)} evidence bundle(s) to {bundle_dir}")
    finally:
        if git is not None:
            git.close()


def _echo(text: str) -> None:
    """Every line diagnose prints is redacted, as bundles and reports are."""
    from codegold.redact import redact_text

    click.echo(redact_text(text))


def _print_case(record: CaseResult, att: Attempt | None, depth: int) -> None:
    verdict = "PASS" if record.passed else ("INVALID" if not record.valid else "FAIL")
    _echo(f"CASE {record.case_id} [{verdict}] attempt={record.attempt_id}")
    _echo(f"  query:     {record.query}")
    if att is not None:
        if att.rewritten_query is not None and att.rewritten_query != record.query:
            _echo(f"  rewritten: {att.rewritten_query}")
        if att.filters:
            _echo(f"  filters:   {att.filters}")
    _echo(
        f"  revision:  {record.repository_revision}  cutoff={record.cutoff}  "
        f"firstRelevantRank={record.first_relevant_rank}  groupRecall={record.group_recall}"
    )
    d = record.diagnosis
    if d is not None:
        groups = (d.evidence or {}).get("groups") or {}
        for gid, facts in groups.items():
            for f in facts:
                _echo(f"  expected [{gid}] {f['target']}  span={f['span']}  exists={f['exists']}")
    for e in record.ranked[:depth]:
        mark = {"accepted": "✓", "forbidden": "✗", "supporting": "~"}.get(e.match, " ")
        cut = "  ── cutoff ──\n" if e.rank == record.cutoff + 1 else ""
        _echo(
            f"{cut}  {mark} {e.rank:>3}. {e.file}:{e.start_line}-{e.end_line} "
            f"{e.symbol or '-'} [{e.role}] rev={e.repository_revision[:12]} "
            f"score={e.score:.4g}"
        )
    if d is not None:
        _echo(f"  cause: {d.cause} → {d.owner}: {d.detail}")
    _echo("")
