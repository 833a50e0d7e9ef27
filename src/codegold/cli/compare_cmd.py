"""`codegold compare`, `codegold gate` and `codegold export-trec`: wiring only.

Heavy imports (numpy, rich, the comparison itself) happen inside the commands, so
`codegold --help` and `codegold gate --help` stay fast.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from codegold.evaluate.records import CaseResult
    from codegold.gate import GateDecision

_RESULTS = click.Path(path_type=Path, dir_okay=True)


@click.command("compare")
@click.argument("base", type=_RESULTS)
@click.argument("head", type=_RESULTS)
@click.option(
    "--json",
    "json_out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the full comparison as JSON (every case, every slice).",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seed of the randomization test and the bootstrap.",
)
@click.option(
    "--resamples",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Sign flips and bootstrap resamples per slice and metric.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="markdown: GitHub-flavoured Markdown for a CI step summary ($GITHUB_STEP_SUMMARY).",
)
def compare(
    base: Path, head: Path, json_out: Path | None, seed: int, resamples: int, fmt: str
) -> None:
    """Compare two runs (results.json, or their run folders) case by case and slice
    by slice.

    Flagged slices (regressed, or holding regressed cases behind a better mean) are listed
    first. Exits 0 whatever changed; use `codegold gate` to block.
    """
    import dataclasses

    from rich.console import Console

    from codegold._io import write_json_atomic
    from codegold.cases.selection import restrict, run_selection
    from codegold.compare import compare_runs, run_differences, run_summary
    from codegold.evaluate.records import load_results

    # A partial run (--case/--tag) is compared on the cases it ran, and says so.
    only, notes = restrict(run_selection(base), run_selection(head))
    base_records, head_records = load_results(base), load_results(head)
    if only is not None:
        base_records = [r for r in base_records if r.case_id in only]
        head_records = [r for r in head_records if r.case_id in only]
    comparison = compare_runs(
        base_records,
        head_records,
        seed=seed,
        resamples=resamples,
        base_label=str(base),
        head_label=str(head),
        incomparable=run_differences(
            base_records, head_records, run_summary(base), run_summary(head)
        ),
    )
    if notes:
        comparison = dataclasses.replace(comparison, notes=(*notes, *comparison.notes))
        for note in notes:
            click.echo(f"note: {note}", err=True)
    from codegold.redact import redact_json, redact_text

    if json_out is not None:
        write_json_atomic(json_out, redact_json(comparison.to_dict())[0])
    if fmt == "markdown":
        click.echo(redact_text(comparison.to_markdown()), nl=False)
        return
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = max(console.width, 200)
    # Rendered first, printed redacted (case ids and labels are free text too).
    with console.capture() as captured:
        console.print(comparison.to_rich())
    click.echo(redact_text(captured.get()), nl=False)
    if json_out is not None:
        click.echo(f"wrote {json_out}")


@click.command("gate")
@click.argument("results", type=_RESULTS)
@click.option(
    "--policy",
    "policy_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help="Gate policy (TOML).",
)
@click.option(
    "--baseline", type=_RESULTS, help="Baseline run, required when the policy uses noRegression."
)
@click.option(
    "--json",
    "json_out",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Also write the decision as JSON.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown"]),
    default="text",
    show_default=True,
    help="markdown: GitHub-flavoured Markdown for a CI step summary ($GITHUB_STEP_SUMMARY).",
)
@click.option(
    "--allow-partial",
    is_flag=True,
    help="Gate a partial run (run --case/--tag) on the cases it ran; the baseline is "
    "restricted to them.",
)
@click.option(
    "--allow-incomparable",
    is_flag=True,
    help="Gate against a baseline of another suite, cutoff, evaluator version or mode.",
)
@click.option("--include-drafts", is_flag=True, help="Gate draft cases too (records tagged draft).")
def gate(
    results: Path,
    policy_path: Path,
    baseline: Path | None,
    json_out: Path | None,
    fmt: str,
    allow_partial: bool,
    allow_incomparable: bool,
    include_drafts: bool,
) -> None:
    """Decide whether a run blocks CI, printing every reason.

    Exits 1 when blocked, 0 when not, 2 on bad input (including a noRegression
    policy without --baseline, a partial run without --allow-partial, and a baseline
    that is not comparable with the run without --allow-incomparable).
    """
    import dataclasses

    from codegold.evaluate.records import load_results
    from codegold.gate import evaluate_gate, load_policy

    policy = load_policy(policy_path)
    only, notes = _gate_scope(results, baseline, allow_partial)
    records = load_results(results)
    base_records = load_results(baseline) if baseline is not None else None
    if only is not None:
        records = [r for r in records if r.case_id in only]
        if base_records is not None:
            base_records = [r for r in base_records if r.case_id in only]
    if not include_drafts:
        records, base_records, notes = _without_drafts(results, records, base_records, notes)
    differences: list[str] = []
    if baseline is not None and base_records is not None:
        differences = _incomparable(results, baseline, records, base_records, allow_incomparable)
    notes = [*notes, *(f"not comparable with {baseline}: {d}" for d in differences)]
    decision = evaluate_gate(
        records,
        policy,
        base_records,
        results_label=str(results),
        baseline_label=str(baseline) if baseline is not None else "baseline",
    )
    if notes:
        decision = dataclasses.replace(decision, warnings=(*notes, *decision.warnings))
    _emit_decision(decision, json_out, fmt)
    if decision.blocked:
        # SystemExit rather than ctx.exit: the code must survive any caller of main().
        raise SystemExit(1)


def _without_drafts(
    results: Path,
    records: list[CaseResult],
    base_records: list[CaseResult] | None,
    notes: list[str],
) -> tuple[list[CaseResult], list[CaseResult] | None, list[str]]:
    """The records of reviewed cases only (drafts carry the tag ``draft``), and a note
    when some were left out; a run of drafts only is refused."""
    from codegold.cases.suite import DRAFT_TAG
    from codegold.errors import InputError

    drafts = [r.case_id for r in records if DRAFT_TAG in r.tags]
    if not drafts:
        return records, base_records, notes
    kept = [r for r in records if DRAFT_TAG not in r.tags]
    if not kept:
        raise InputError(
            "every case of the run is a draft; review them or pass --include-drafts",
            file=str(results),
        )
    if base_records is not None:
        base_records = [r for r in base_records if DRAFT_TAG not in r.tags]
    return kept, base_records, [*notes, f"left out {len(drafts)} draft case(s) (--include-drafts)"]


def _gate_scope(
    results: Path, baseline: Path | None, allow_partial: bool
) -> tuple[frozenset[str] | None, list[str]]:
    """(the case ids both runs are restricted to, or None for all; notes saying so).

    A partial run (or baseline) without ``--allow-partial`` is refused."""
    from codegold.cases.selection import partial_note, restrict, run_selection
    from codegold.errors import InputError

    selection = run_selection(results)
    base_selection = run_selection(baseline) if baseline is not None else None
    partial = [
        (str(p), s)
        for p, s in ((results, selection), (baseline, base_selection))
        if s and s.partial
    ]
    if partial and not allow_partial:
        where, chosen = partial[0]
        raise InputError(
            f"{partial_note('this', chosen)}; a gate decides on full runs "
            "(rerun without --case/--tag, or pass --allow-partial)",
            file=where,
        )
    only, notes = restrict(base_selection, selection) if baseline is not None else (None, [])
    if selection is not None and selection.partial:
        only = frozenset(selection.selected) if only is None else only
        notes = notes or [partial_note(str(results), selection)]
    return only, notes


def _incomparable(
    results: Path,
    baseline: Path,
    records: Sequence[CaseResult],
    base_records: Sequence[CaseResult],
    allow_incomparable: bool,
) -> list[str]:
    """How the baseline differs from the run; refused unless ``--allow-incomparable``."""
    from codegold.compare import run_differences, run_summary
    from codegold.errors import InputError

    differences = run_differences(
        base_records, records, run_summary(baseline), run_summary(results)
    )
    if differences and not allow_incomparable:
        raise InputError(
            f"refusing to gate {results} against {baseline}, which is not comparable: "
            + "; ".join(differences)
            + " (pass --allow-incomparable to gate anyway)"
        )
    return differences


def _emit_decision(decision: GateDecision, json_out: Path | None, fmt: str) -> None:
    """Print the decision (text or Markdown), and write it as JSON when asked; redacted."""
    from codegold._io import write_json_atomic
    from codegold.redact import redact_json, redact_text

    if json_out is not None:
        write_json_atomic(json_out, redact_json(decision.to_dict())[0])
    if fmt == "markdown":
        click.echo(redact_text(decision.to_markdown()), nl=False)
    else:
        for line in decision.lines():
            click.echo(redact_text(line))


@click.command("export-trec")
@click.argument("results", type=_RESULTS)
@click.option(
    "--out-dir",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Folder for run.trec and qrels.trec.",
)
@click.option(
    "--granularity",
    type=click.Choice(["chunk", "symbol", "file"]),
    default="chunk",
    show_default=True,
    help="Document id: chunk id, file#symbol, or file path.",
)
@click.option(
    "--suite",
    "suite_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Gold suite: file-level gold qrels instead of the projection (needs --granularity file).",
)
@click.option("--tag", default="codegold", show_default=True, help="Run tag (last column).")
@click.option(
    "--full",
    is_flag=True,
    help="Write every ranked chunk, not only the first `cutoff` of each case.",
)
def export_trec(
    results: Path,
    out_dir: Path,
    granularity: str,
    suite_path: Path | None,
    tag: str,
    full: bool,
) -> None:
    """Write TREC run and qrels files, to cross-check with trec_eval or ir_measures.

    Without --suite the qrels are a graded projection of the results' per-rank
    matches (required evidence 2, supporting 1, else 0, plus one document for each
    piece of gold nothing retrieved): nDCG@cutoff equals codegold's gradedNdcg and
    RR(rel=2) its reciprocalRank, case by case.
    """
    from codegold.evaluate.records import load_results
    from codegold.trec import GRANULARITIES
    from codegold.trec import export_trec as write_trec

    suite = None
    if suite_path is not None:
        from codegold.cases import load_suite

        suite = load_suite(suite_path)
    chosen = next(g for g in GRANULARITIES if g == granularity)
    export = write_trec(
        load_results(results),
        out_dir,
        suite=suite,
        granularity=chosen,
        tag=tag,
        full=full,
        source=str(results),
    )
    click.echo(
        f"wrote {export.run_path} ({export.run_lines} lines) and {export.qrels_path} "
        f"({export.qrels_lines} lines): {export.queries} queries at {export.granularity} "
        f"level, qrels from {export.qrels_source}"
    )
    if export.skipped_invalid:
        click.echo(f"left out {len(export.skipped_invalid)} invalid case(s) (never scored)")
    if export.empty:
        click.echo(
            f"{len(export.empty)} case(s) retrieved nothing: run trec_eval with -c to count them"
        )
