"""The summary table printed after every run (rich)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from codegold.evaluate.metrics import family, metric
from codegold.evaluate.records import CaseResult
from codegold.owners import owner_label

_COLUMNS = tuple(
    metric(name)
    for name in (
        "cases",
        "valid",
        "passRate",
        "hitRate",
        "meanGroupRecall",
        "mrr",
        "forbiddenRate",
        "revisionMismatchRate",
        "supportingRecall",
        "gradedNdcg",
    )
)
"""The registered metrics the terminal table shows, in order."""


def print_summary(
    summary: dict[str, Any], records: Sequence[CaseResult], *, max_failures: int = 20
) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from codegold.redact import redact_text

    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 120)
    table = Table(title="codegold: retrieval at the production cutoff", title_justify="left")
    table.add_column("slice", justify="left")
    for m in _COLUMNS:
        table.add_column(m.heading, justify="right")

    def row(name: str, agg: dict[str, Any]) -> None:
        table.add_row(name, *(m.render(agg[m.name]) for m in _COLUMNS))

    row("overall", summary["overall"])
    for name, agg in summary["slices"].items():
        row(name, agg)
    console.print(table)

    failed = [r for r in records if not r.passed]
    if failed:
        console.print(f"[bold]{len(failed)} failed[/bold] (of {len(records)}):")
    for record in failed[:max_failures]:
        line = redact_text(f"{record.case_id}: {failure_reason(record)}")
        console.print(f"  [red]FAIL[/red] {escape(line)}")
    if len(failed) > max_failures:
        console.print(f"  … {len(failed) - max_failures} more in results.json")
    causes = summary["overall"].get("causes") or {}
    if causes:
        console.print("causes: " + ", ".join(f"{k} {v}" for k, v in causes.items()))
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
