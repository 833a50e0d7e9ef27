"""The summary table printed after every run (rich)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from codegold.evaluate.metrics import family, metric
from codegold.evaluate.records import CaseResult
from codegold.owners import owner_label

_COLUMNS = tuple(
    metric(name)
    for name in (
        "cases",
        "passRate",
        "meanGroupRecall",
        "mrr",
        "hitRate",
        "forbiddenRate",
        "valid",
        "revisionMismatchRate",
        "supportingRecall",
        "gradedNdcg",
    )
)
"""The registered metrics the terminal table shows, most important first: a narrow
terminal keeps the columns that fit, from the left."""


def fitting_columns(
    names: Sequence[str], rows: Sequence[Sequence[str]], headings: Sequence[str], width: int
) -> int:
    """How many of the metric columns fit beside the full slice names in ``width``
    (at least the first two). Each column takes its widest cell plus 2 of padding and
    1 of separator."""
    used = max((len(n) for n in names), default=5) + 2
    fit = 0
    for i, heading in enumerate(headings):
        cell = max([len(heading), *(len(r[i]) for r in rows)]) + 3
        if used + cell > width and fit >= 2:
            break
        used += cell
        fit += 1
    return fit


def print_summary(
    summary: dict[str, Any],
    records: Sequence[CaseResult],
    *,
    max_failures: int = 20,
) -> None:
    """Failures first (what failed, why, who acts), then the causes, then the table of
    overall and per-slice figures, as wide as the terminal
    allows: slice names are never cut; columns that do not fit are left out and named."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from codegold.redact import redact_text

    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console.width = max(console.width, 120)
    # one pass, keeping only the failures shown: records may be read from disk
    failed = 0
    shown: list[CaseResult] = []
    for r in records:
        if not r.passed:
            failed += 1
            if len(shown) < max_failures:
                shown.append(r)
    if failed:
        console.print(f"[bold]{failed} failed[/bold] (of {len(records)}):")
    for record in shown:
        line = redact_text(f"{record.case_id}: {failure_reason(record)}")
        console.print(f"  [red]FAIL[/red] {escape(line)}")
    if failed > max_failures:
        console.print(f"  … {failed - max_failures} more in results.json")
    causes = summary["overall"].get("causes") or {}
    if causes:
        console.print("causes: " + ", ".join(f"{k} {v}" for k, v in causes.items()))
    teams = summary["overall"].get("teams") or {}
    if teams:
        console.print("teams: " + ", ".join(f"{k} {v}" for k, v in teams.items()))

    named = [("overall", summary["overall"]), *summary["slices"].items()]
    rows = [[m.render(agg.get(m.name)) for m in _COLUMNS] for _, agg in named]
    headings = [m.heading for m in _COLUMNS]
    fit = fitting_columns([n for n, _ in named], rows, headings, console.width - 1)
    table = Table(
        title="codegold: retrieval at the production cutoff",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
    )
    width = max(len(n) for n, _ in named)
    table.add_column("slice", justify="left", no_wrap=True, min_width=width)
    for heading in headings[:fit]:
        table.add_column(heading, justify="right", no_wrap=True)
    for (name, _), row in zip(named, rows, strict=True):
        table.add_row(name, *row[:fit])
    console.print(table)
    if fit < len(_COLUMNS):
        left = ", ".join(headings[fit:])
        console.print(f"(not shown at {console.width} columns: {left}; summary.json has them)")
    budget = budget_line(summary["overall"])
    if budget:
        console.print(budget)


def budget_line(aggregate: dict[str, Any]) -> str | None:
    """The context budget of an aggregate in one line (None when it has none)."""
    shares = [(m.short, aggregate.get(m.name)) for m in family("budget")]
    if all(v is None for _, v in shares):
        return None
    return "context budget (share of the cutoff): " + ", ".join(
        f"{name} {float(v) * 100:.1f}%" for name, v in shares if v is not None
    )


def failure_reason(record: CaseResult) -> str:
    """One readable line: why this record failed."""
    if not record.valid:
        return f"invalid run: {record.invalid_reason}"
    parts: list[str] = []
    if record.diagnosis is not None and record.diagnosis.cause == "no_attempt":
        return "no attempt was recorded"
    if record.missing_group_ids:
        deeper = [e for e in record.ranked[record.cutoff :] if e.match == "accepted"]
        where = f" (first accepted chunk at rank {deeper[0].rank})" if deeper else ""
        parts.append(
            f"missing {', '.join(record.missing_group_ids)} within top {record.cutoff}{where}"
        )
    if record.forbidden_chunk_ids:
        first = next(e for e in record.ranked if e.match == "forbidden")
        parts.append(f"forbidden {first.file} at rank {first.rank}")
    if record.revision_mismatches:
        parts.append(f"{len(record.revision_mismatches)} chunk(s) from another revision")
    if record.diagnosis is not None and record.diagnosis.cause not in ("invalid_run",):
        who = owner_label(record.diagnosis.owner, record.diagnosis.team)
        parts.append(f"cause: {record.diagnosis.cause} → {who}")
    return "; ".join(parts) or "failed"
