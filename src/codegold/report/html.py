"""One self-contained HTML page for a run (SPEC §6 *report*).

The page reads offline and without JavaScript: inline CSS, inline SVG plots, a
Content-Security-Policy that forbids every fetch, and no link that leaves the page.
A few lines of inline script add table sorting and a record filter; without them
every table is still complete.

Aggregate numbers come from summary.json as written, never recomputed here, so the
page and the file cannot disagree; the per-record views (the rank histogram, the
failed cases) come from the records. Free text taken from the run (queries,
diagnosis details, evidence) goes through :func:`codegold.redact.redact`
and everything is HTML-escaped. The same inputs give the same bytes.
"""

from __future__ import annotations

import html
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import msgspec

from codegold.evaluate.metrics import METRICS, Metric, metric
from codegold.evaluate.records import CaseResult, RankedEntry
from codegold.evaluate.summary import SLICE_KINDS
from codegold.owners import owner_label
from codegold.redact import redact_record, redact_text
from codegold.report.terminal import failure_reason

__all__ = ["METRIC_COLUMNS", "OPTIONAL_COLUMNS", "rank_histogram", "render_html"]

_e = html.escape


def _column(m: Metric) -> tuple[str, str, str]:
    return (m.name, m.label, m.format)


_COUNTS_FIRST = ("cases", "records", "valid", "passed", "failed", "invalid")
METRIC_COLUMNS: tuple[tuple[str, str, str], ...] = tuple(
    _column(m)
    for m in sorted(
        (m for m in METRICS.values() if not m.optional and m.family != "budget"),
        key=lambda m: (
            _COUNTS_FIRST.index(m.name) if m.name in _COUNTS_FIRST else len(_COUNTS_FIRST),
        ),
    )
)
"""The columns of every metrics table: summary.json key, heading, format (from the
metric registry; counts first, then the means in registry order). The context budget
shares are a table of their own, not columns here."""

OPTIONAL_COLUMNS: tuple[tuple[str, str, str], ...] = tuple(
    _column(m) for m in METRICS.values() if m.optional
)
"""Columns shown only when the summary's overall aggregate carries the key."""

_SLICE_KIND_LABELS = {
    "queryClass": "Query class",
    "tag": "Tag",
    "language": "Language",
    "area": "Repository area",
    "role": "Target role",
}
PAST_CUTOFF = "past cutoff"
NEVER = "never"
_EXTRA_RANKS = 3  # ranked rows shown past the cutoff, besides the first accepted one
_MAX_EXTRA_RANKS = 20
_SCALAR_LIST_INLINE = 8


# -- formatting ------------------------------------------------------------------------


def _fmt(value: Any, kind: str) -> str:
    if value is None:
        return "–"
    if kind == "pct":
        return f"{float(value) * 100:.1f}%"
    if kind == "num":
        return f"{float(value):.3f}"
    return str(value)


def _data_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else ""
    return str(value)


def _short_rev(rev: str | None) -> str:
    return (rev or "")[:12]


# -- the page --------------------------------------------------------------------------


def render_html(
    records: Sequence[CaseResult],
    summary: Mapping[str, Any],
    *,
    comparison_html: str | None = None,
    title: str | None = None,
    max_failed: int = 1000,
) -> str:
    """The report page as one string.

    ``records`` are results.json records, ``summary`` the summary.json document of the
    same run. ``comparison_html`` is a trusted fragment (``Comparison.to_html()``)
    placed as is. At most ``max_failed`` failed records get a section of their own;
    the rest are counted. Inputs are not modified.
    """
    ordered = sorted(records, key=lambda r: (r.case_id, r.attempt_id or ""))
    suite = summary.get("suite") if isinstance(summary.get("suite"), Mapping) else None
    suite_name = str(suite.get("name")) if suite and suite.get("name") else None
    page_title = title or (f"codegold report: {suite_name}" if suite_name else "codegold report")
    failed = [r for r in ordered if not r.passed]
    anchors = {id(r): f"case-{i + 1}" for i, r in enumerate(failed[:max_failed])}

    body: list[str] = [
        f"<header><h1>{_e(page_title)}</h1>",
        _headline(summary, ordered),
        "</header>",
        _nav(comparison_html is not None, bool(failed)),
        _failures_table(failed, anchors),
        _overall_section(summary, ordered),
    ]
    if comparison_html is not None:
        body.append(f'<section id="comparison">\n{comparison_html}\n</section>')
    body += [
        _slices_section(summary),
        _histogram_section(ordered),
        _causes_section(summary, ordered),
        _records_section(ordered, anchors),
        _failed_section(failed, anchors, max_failed),
        _identity_section(summary),
        "<footer><p>Written by codegold. Aggregates are copied from summary.json; "
        "excerpts and free text are shown with secrets redacted.</p></footer>",
    ]
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            # Nothing on this page may be fetched: it is meant to be read offline.
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
            f"<title>{_e(page_title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            *body,
            f"<script>{_SCRIPT}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _headline(summary: Mapping[str, Any], records: Sequence[CaseResult]) -> str:
    overall = summary.get("overall") or {}
    cutoffs = sorted({r.cutoff for r in records})
    cut = ", ".join(str(c) for c in cutoffs) or "–"

    def card(name: str, note: str) -> tuple[str, str, str]:
        m = metric(name)
        value = overall.get(name, 0 if m.format == "int" else None)
        return m.label, _fmt(value, m.format), note

    cards = [
        card("passRate", f"{overall.get('passed', 0)} of {overall.get('valid', 0)} valid"),
        card("hitRate", f"cutoff {cut}"),
        card("mrr", "first relevant rank, within cutoff"),
        card("meanGroupRecall", "mean over valid"),
        card("failed", "valid records that failed"),
        card("invalid", "never scored"),
    ]
    items = "".join(
        f'<div class="card"><div class="card-label">{_e(label)}</div>'
        f'<div class="card-value">{_e(value)}</div><div class="card-note">{_e(note)}</div></div>'
        for label, value, note in cards
    )
    return f'<div class="cards">{items}</div>'


def reached_rank(record: CaseResult) -> str:
    """Where the first accepted chunk landed: ``3``, ``12 (cutoff 5)``, or why none."""
    if not record.valid:
        return "invalid"
    if record.first_relevant_rank is not None:
        return str(record.first_relevant_rank)
    deeper = [e.rank for e in record.ranked if e.match == "accepted"]
    if deeper:
        return f"{min(deeper)} (cutoff {record.cutoff})"
    return "not retrieved"


def _failures_table(failed: Sequence[CaseResult], anchors: Mapping[int, str]) -> str:
    """What failed, why, who acts on it: one row per failed record, each linking to its
    card further down. The first thing under the headline figures."""
    if not failed:
        return '<section id="failures"><h2>Failed cases</h2><p>No case failed.</p></section>'
    rows = []
    for r in failed:
        anchor = anchors.get(id(r))
        case = _e(r.case_id) + (f" <small>{_e(r.attempt_id)}</small>" if r.attempt_id else "")
        if anchor:
            case = f'<a href="#{anchor}">{case}</a>'
        d = r.diagnosis
        cause = _e(d.cause) if d is not None else "–"
        owner = _e(d.owner) if d is not None else "–"
        team = _e(d.team) if d is not None and d.team else "–"
        rank = reached_rank(r)
        rows.append(
            f'<tr class="verdict-{_verdict(r)}">'
            f'<td data-key="case" data-value="{_e(r.case_id)}">{case}</td>'
            f'<td data-key="cause">{cause}</td>'
            f'<td data-key="owner">{owner}</td>'
            f'<td data-key="team">{team}</td>'
            f'<td data-key="rank" class="num" data-value="{_e(rank)}">{_e(rank)}</td>'
            f'<td data-key="why" class="why">{_e(redact_text(failure_reason(r)))}</td></tr>'
        )
    has_team = any(r.diagnosis is not None and r.diagnosis.team for r in failed)
    head = (
        "<th>case</th><th>cause</th><th>owner</th>"
        + ("<th>team</th>" if has_team else "")
        + '<th class="num">rank reached</th><th>what went wrong</th>'
    )
    if not has_team:
        rows = [row.replace('<td data-key="team">–</td>', "") for row in rows]
    return "\n".join(
        [
            '<section id="failures">',
            f"<h2>Failed cases <small>({len(failed)})</small></h2>",
            '<table class="plain sortable" id="failures-table">'
            f"<thead><tr>{head}</tr></thead><tbody>",
            *rows,
            "</tbody></table>",
            "</section>",
        ]
    )


def _nav(has_comparison: bool, has_failed: bool) -> str:
    links = [("failures", "Failures"), ("overall", "Overall")]
    if has_comparison:
        links.append(("comparison", "Comparison"))
    links += [
        ("slices", "Slices"),
        ("ranks", "Ranks"),
        ("causes", "Causes"),
        ("records", "Records"),
    ]
    if has_failed:
        links.append(("failed", "Case cards"))
    links.append(("identity", "Run identity"))
    return "<nav>" + " · ".join(f'<a href="#{a}">{_e(t)}</a>' for a, t in links) + "</nav>"


# -- identity --------------------------------------------------------------------------

_IDENTITY_SKIP = {"overall", "slices", "slicesByMode", "suite", "indexes"}


def _identity_section(summary: Mapping[str, Any]) -> str:
    out = [
        '<section id="identity">',
        "<details><summary><h2>Run identity</h2></summary>",
        '<dl class="identity">',
    ]
    suite = summary.get("suite")
    if isinstance(suite, Mapping):
        for key, label in (
            ("name", "suite"),
            ("file", "suite file"),
            ("digest", "suite digest"),
            ("repository", "repository"),
            ("revisions", "revisions"),
        ):
            if key in suite:
                out.append(f"<dt>{_e(label)}</dt><dd>{_plain(suite[key])}</dd>")
        for key in sorted(
            k for k in suite if k not in ("name", "file", "digest", "repository", "revisions")
        ):
            out.append(f"<dt>suite {_e(key)}</dt><dd>{_plain(suite[key])}</dd>")
    for key in sorted(k for k in summary if k not in _IDENTITY_SKIP):
        out.append(f"<dt>{_e(key)}</dt><dd>{_plain(summary[key])}</dd>")
    if len(out) == 3:
        out.append("<dt>identity</dt><dd>unknown: no summary.json identity was given</dd>")
    out.append("</dl>")
    indexes = summary.get("indexes")
    if isinstance(indexes, list) and indexes:
        out.append("<h3>Index manifests</h3>")
        out.append(_dict_table(indexes, table_id="indexes"))
    elif "indexes" in summary:
        out.append("<p>No index manifest was recorded with the attempts.</p>")
    out.append("</details>")
    out.append("</section>")
    return "\n".join(out)


def _plain(value: Any) -> str:
    """A scalar or a short list as text (identity values are not redacted: they are
    digests, versions and names the run itself chose)."""
    if isinstance(value, list):
        return ", ".join(_e(str(v)) for v in value) or "–"
    if value is None:
        return "–"
    if isinstance(value, Mapping):
        return f"<code>{_e(json.dumps(value, sort_keys=True))}</code>"
    return f"<code>{_e(str(value))}</code>"


def _dict_table(rows: Sequence[Any], *, table_id: str | None = None) -> str:
    keys: list[str] = []
    for row in rows:
        if isinstance(row, Mapping):
            keys.extend(k for k in row if k not in keys)
    ident = f' id="{_e(table_id)}"' if table_id else ""
    head = "".join(f"<th>{_e(str(k))}</th>" for k in keys)
    body = []
    for row in rows:
        cells = "".join(
            f"<td>{_e(_scalar_text(row.get(k)) if isinstance(row, Mapping) else '')}</td>"
            for k in keys
        )
        body.append(f"<tr>{cells}</tr>")
    return (
        f'<table class="plain"{ident}><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _scalar_text(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


# -- metric tables ---------------------------------------------------------------------


def _columns(summary: Mapping[str, Any]) -> tuple[tuple[str, str, str], ...]:
    overall = summary.get("overall") or {}
    return METRIC_COLUMNS + tuple(c for c in OPTIONAL_COLUMNS if c[0] in overall)


def _metrics_table(
    rows: Iterable[tuple[str, Mapping[str, Any]]],
    *,
    table_id: str,
    first: str,
    columns: Sequence[tuple[str, str, str]],
) -> str:
    head = f'<th data-key="slice">{_e(first)}</th>' + "".join(
        f'<th data-key="{key}" class="num">{_e(label)}</th>' for key, label, _ in columns
    )
    body = []
    for name, agg in rows:
        cells = f'<td data-key="slice" data-value="{_e(name)}">{_e(name)}</td>' + "".join(
            f'<td data-key="{key}" data-value="{_e(_data_value(agg.get(key)))}" class="num">'
            f"{_e(_fmt(agg.get(key), kind))}</td>"
            for key, _, kind in columns
        )
        body.append(f"<tr>{cells}</tr>")
    return (
        f'<table class="metrics sortable" id="{_e(table_id)}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _overall_section(summary: Mapping[str, Any], records: Sequence[CaseResult]) -> str:
    overall = summary.get("overall") or {}
    cutoffs = sorted({r.cutoff for r in records})
    note = (
        f"Only the first cutoff chunks count (cutoff {', '.join(map(str, cutoffs))}). "
        if cutoffs
        else ""
    )
    return "\n".join(
        [
            '<section id="overall">',
            "<h2>Overall</h2>",
            f"<p>{_e(note)}Rates are over valid records; invalid records are reported, "
            "never scored. <em>cases</em> counts distinct case ids, <em>records</em> counts "
            "attempts.</p>",
            _metrics_table(
                [("overall", overall)],
                table_id="metrics-overall",
                first="slice",
                columns=_columns(summary),
            ),
            "</section>",
        ]
    )


def _slices_section(summary: Mapping[str, Any]) -> str:
    slices = summary.get("slices") or {}
    groups: dict[str, list[tuple[str, Mapping[str, Any]]]] = {}
    for name, agg in slices.items():
        kind, sep, value = str(name).partition(":")
        if not sep or kind not in SLICE_KINDS:
            kind, value = "other", str(name)
        groups.setdefault(kind, []).append((value, agg))
    out = ['<section id="slices">', "<h2>Slices</h2>"]
    if not groups:
        out.append(
            "<p>No slices: the records carry no query class, tag, language, area "
            "or target role.</p>"
        )
    for kind in (*SLICE_KINDS, "other"):
        if kind not in groups:
            continue
        label = _SLICE_KIND_LABELS.get(kind, "Other")
        out.append(f'<h3 id="slices-{kind}">{_e(label)} <small>({len(groups[kind])})</small></h3>')
        out.append(
            _metrics_table(
                sorted(groups[kind], key=lambda g: g[0]),
                table_id=f"metrics-{kind}",
                first=kind,
                columns=_columns(summary),
            )
        )
    out.append("</section>")
    return "\n".join(out)


# -- rank histogram --------------------------------------------------------------------


def rank_histogram(records: Iterable[CaseResult]) -> list[tuple[str, int]]:
    """Valid records by where the first acceptable chunk landed: ranks ``1..cutoff``
    (up to the largest cutoff), ``past cutoff`` (the ranked list's first accepted
    entry beyond the record's cutoff) and ``never``."""
    valid = [r for r in records if r.valid]
    top = max((r.cutoff for r in valid), default=0)
    counts: Counter[str] = Counter()
    for r in valid:
        if r.first_relevant_rank is not None and r.first_relevant_rank <= r.cutoff:
            counts[str(r.first_relevant_rank)] += 1
        elif any(e.match == "accepted" and e.rank > r.cutoff for e in r.ranked):
            counts[PAST_CUTOFF] += 1
        else:
            counts[NEVER] += 1
    labels = [str(i) for i in range(1, top + 1)] + [PAST_CUTOFF, NEVER]
    return [(label, counts[label]) for label in labels]


def _histogram_section(records: Sequence[CaseResult]) -> str:
    bins = rank_histogram(records)
    valid = [r for r in records if r.valid]
    cutoffs = sorted({r.cutoff for r in valid})
    mixed = len(cutoffs) > 1
    note = (
        "Cutoffs differ between cases; a rank counts in its bar only when it is within "
        "that case's own cutoff."
        if mixed
        else ""
    )
    rows = "".join(
        f'<tr><td data-key="bin">{_e(label)}</td>'
        f'<td data-key="count" data-value="{n}" class="num">{n}</td></tr>'
        for label, n in bins
    )
    return "\n".join(
        [
            '<section id="ranks">',
            "<h2>First relevant rank</h2>",
            f"<p>Where the first acceptable chunk landed, for {len(valid)} valid records. "
            f"{_e(note)}</p>",
            '<div class="plot-row">',
            _histogram_svg(bins),
            '<table class="plain" id="rank-histogram"><thead><tr><th>rank</th>'
            f'<th class="num">records</th></tr></thead><tbody>{rows}</tbody></table>',
            "</div>",
            "</section>",
        ]
    )


def _histogram_svg(bins: Sequence[tuple[str, int]]) -> str:
    width, height = 560, 230
    left, right, top, bottom = 36, 10, 18, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    peak = max((n for _, n in bins), default=0) or 1
    slot = plot_w / max(len(bins), 1)
    bar_w = slot * 0.72
    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        'role="img" aria-labelledby="hist-title">',
        '<title id="hist-title">Records by first relevant rank</title>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{width - right}" y2="{top + plot_h}" '
        'class="axis"/>',
    ]
    for tick in _ticks(peak):
        y = top + plot_h - plot_h * tick / peak
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" class="grid"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" class="tick" text-anchor="end">{tick}</text>'
        )
    for i, (label, n) in enumerate(bins):
        x = left + i * slot + (slot - bar_w) / 2
        h = plot_h * n / peak
        y = top + plot_h - h
        cls = "bar-miss" if label == NEVER else "bar-past" if label == PAST_CUTOFF else "bar-hit"
        text = f"rank {label}" if label not in (NEVER, PAST_CUTOFF) else label
        parts.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w:.1f}" height="{h:.1f}" '
            f'class="{cls}"><title>{_e(text)}: {n}</title></rect>'
        )
        parts.append(
            f'<text x="{x + bar_w / 2:.1f}" y="{y - 4:.1f}" class="count" '
            f'text-anchor="middle">{n}</text>'
        )
        parts.append(
            f'<text x="{x + bar_w / 2:.1f}" y="{top + plot_h + 16:.1f}" class="tick" '
            f'text-anchor="middle">{_e(label)}</text>'
        )
    if len(bins) > 2:
        x = left + (len(bins) - 2) * slot
        parts.append(
            f'<line x1="{x:.1f}" y1="{top - 6}" x2="{x:.1f}" y2="{top + plot_h + 22}" '
            'class="cutoff"/>'
        )
        parts.append(
            f'<text x="{x - 4:.1f}" y="{top + plot_h + 34}" class="tick cutoff-label" '
            'text-anchor="end">cutoff ▸</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _ticks(peak: int) -> list[int]:
    step = max(1, math.ceil(peak / 4))
    return list(range(step, peak + 1, step))


# -- causes and owners -----------------------------------------------------------------


def _causes_section(summary: Mapping[str, Any], records: Sequence[CaseResult]) -> str:
    overall = summary.get("overall") or {}
    causes: Mapping[str, int] = overall.get("causes") or {}
    owners: Mapping[str, int] = overall.get("owners") or {}
    undiagnosed = sum(1 for r in records if not r.passed and r.diagnosis is None)
    owners_of: dict[str, set[str]] = {}
    for r in records:
        if not r.passed and r.diagnosis is not None:
            owners_of.setdefault(r.diagnosis.cause, set()).add(r.diagnosis.owner)
    out = ['<section id="causes">', "<h2>Causes and owners</h2>"]
    if not causes and not undiagnosed:
        out.append("<p>No failed records.</p>")
    else:
        out.append(
            "<p>Each failed record's first broken boundary, and the team it routes to"
            f". Counts are records.{' ' if undiagnosed else ''}"
            + (f"{undiagnosed} failed record(s) carry no diagnosis yet." if undiagnosed else "")
            + "</p>"
        )
    cause_rows = _by_count(causes)
    owner_rows = _by_count(owners)
    out.append('<div class="plot-row">')
    if cause_rows:
        out.append('<div class="breakdown"><h3>By cause</h3>')
        out.append(_bars_svg(cause_rows, "causes"))
        body = "".join(
            f'<tr><td data-key="cause">{_e(c)}</td>'
            f'<td data-key="owner">{_e(", ".join(sorted(owners_of.get(c, ()))) or "–")}</td>'
            f'<td data-key="count" data-value="{n}" class="num">{n}</td></tr>'
            for c, n in cause_rows
        )
        if undiagnosed:
            body += (
                '<tr class="undiagnosed"><td>(no diagnosis)</td><td>–</td>'
                f'<td class="num">{undiagnosed}</td></tr>'
            )
        out.append(
            '<table class="plain" id="causes-table"><thead><tr><th>cause</th>'
            f'<th>owner</th><th class="num">records</th></tr></thead><tbody>{body}'
            "</tbody></table></div>"
        )
    if owner_rows:
        out.append('<div class="breakdown"><h3>By owner</h3>')
        out.append(_bars_svg(owner_rows, "owners"))
        body = "".join(
            f'<tr><td data-key="owner">{_e(o)}</td>'
            f'<td data-key="count" data-value="{n}" class="num">{n}</td></tr>'
            for o, n in owner_rows
        )
        out.append(
            '<table class="plain" id="owners-table"><thead><tr><th>owner</th>'
            f'<th class="num">records</th></tr></thead><tbody>{body}</tbody></table></div>'
        )
    teams: Mapping[str, int] = overall.get("teams") or {}
    if teams:
        body = "".join(
            f'<tr><td data-key="team">{_e(t)}</td>'
            f'<td data-key="count" data-value="{n}" class="num">{n}</td></tr>'
            for t, n in _by_count(teams)
        )
        out.append(
            '<div class="breakdown"><h3>By team</h3>'
            '<table class="plain" id="teams-table"><thead><tr><th>team</th>'
            f'<th class="num">records</th></tr></thead><tbody>{body}</tbody></table></div>'
        )
    out.append("</div>")
    out.append("</section>")
    return "\n".join(out)


def _by_count(counts: Mapping[str, Any]) -> list[tuple[str, int]]:
    return sorted(((str(k), int(v)) for k, v in counts.items()), key=lambda kv: (-kv[1], kv[0]))


def _bars_svg(rows: Sequence[tuple[str, int]], what: str) -> str:
    label_w, bar_max, row_h = 190, 220, 22
    width = label_w + bar_max + 40
    height = row_h * len(rows) + 8
    peak = max(n for _, n in rows) or 1
    parts = [
        f'<svg class="plot" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'role="img" aria-label="{_e(what)}">',
    ]
    for i, (name, n) in enumerate(rows):
        y = 4 + i * row_h
        w = max(bar_max * n / peak, 1.0)
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 15}" class="tick" text-anchor="end">{_e(name)}</text>'
        )
        parts.append(
            f'<rect x="{label_w}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" '
            f'class="bar-cause"><title>{_e(name)}: {n}</title></rect>'
        )
        parts.append(f'<text x="{label_w + w + 5:.1f}" y="{y + 15}" class="count">{n}</text>')
    parts.append("</svg>")
    return "".join(parts)


# -- all records -----------------------------------------------------------------------


def _verdict(record: CaseResult) -> str:
    if not record.valid:
        return "invalid"
    return "pass" if record.passed else "fail"


def _records_section(records: Sequence[CaseResult], anchors: Mapping[int, str]) -> str:
    rows = []
    for r in records:
        verdict = _verdict(r)
        case = _e(r.case_id)
        anchor = anchors.get(id(r))
        if anchor:
            case = f'<a href="#{anchor}">{case}</a>'
        cause = (
            f"{r.diagnosis.cause} → {owner_label(r.diagnosis.owner, r.diagnosis.team)}"
            if r.diagnosis and not r.passed
            else ""
        )
        rows.append(
            f'<tr class="verdict-{verdict}">'
            f'<td data-value="{_e(r.case_id)}">{case}</td>'
            f"<td>{_e(r.attempt_id or '')}</td>"
            f"<td>{_e(r.query_class or '')}</td>"
            f'<td><span class="badge {verdict}">{verdict}</span></td>'
            f'<td class="num" data-value="{_data_value(r.first_relevant_rank)}">'
            f"{_e(_fmt(r.first_relevant_rank, 'int'))}</td>"
            f'<td class="num">{r.cutoff}</td>'
            f'<td class="num" data-value="{_data_value(r.reciprocal_rank)}">'
            f"{_fmt(r.reciprocal_rank, 'num')}</td>"
            f'<td class="num" data-value="{_data_value(r.group_recall)}">'
            f"{_fmt(r.group_recall, 'num')}</td>"
            f"<td>{_e(cause)}</td></tr>"
        )
    return "\n".join(
        [
            '<section id="records">',
            f"<h2>Records <small>({len(records)})</small></h2>",
            '<p class="controls"><label>filter <input type="search" id="record-filter" '
            'placeholder="case, class, cause…"></label> <label><input type="checkbox" '
            'id="failed-only"> failed only</label></p>',
            '<table class="plain sortable" id="records-table"><thead><tr><th>case</th>'
            "<th>attempt</th><th>query class</th><th>verdict</th>"
            '<th class="num">first rank</th><th class="num">cutoff</th><th class="num">RR</th>'
            '<th class="num">group recall</th><th>cause → owner</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>",
            "</section>",
        ]
    )


# -- failed cases ----------------------------------------------------------------------


def _failed_section(
    failed: Sequence[CaseResult], anchors: Mapping[int, str], max_failed: int
) -> str:
    if not failed:
        return '<section id="failed"><h2>Failed cases</h2><p>None.</p></section>'
    out = ['<section id="failed">', f"<h2>Failed cases <small>({len(failed)})</small></h2>"]
    for record in failed[:max_failed]:
        out.append(_case_section(record, anchors[id(record)]))
    if len(failed) > max_failed:
        out.append(
            f'<p class="note">… {len(failed) - max_failed} more failed records in results.json.</p>'
        )
    out.append("</section>")
    return "\n".join(out)


_MARKS = re.compile(r"\[REDACTED:([a-z_]+)\]")


def _case_section(original: CaseResult, anchor: str) -> str:
    record, found = redact_record(original)
    verdict = _verdict(record)
    query = record.query
    attempt = (
        f' <small class="attempt">attempt {_e(record.attempt_id)}</small>'
        if record.attempt_id
        else ""
    )
    facts: list[tuple[str, str]] = [
        ("query", f'<span class="query">{_e(query)}</span>'),
        ("expected revision", f"<code>{_e(record.repository_revision or '–')}</code>"),
        ("cutoff", str(record.cutoff)),
    ]
    if record.query_class:
        facts.append(("query class", _e(record.query_class)))
    if record.valid:
        facts.append(("first relevant rank", _e(_fmt(record.first_relevant_rank, "int"))))
        facts.append(("group recall", _fmt(record.group_recall, "num")))
    if record.missing_group_ids:
        facts.append(("missing groups", _code_list(record.missing_group_ids)))
    if record.forbidden_chunk_ids:
        facts.append(("forbidden chunks", _code_list(record.forbidden_chunk_ids)))
    if record.revision_mismatches:
        facts.append(("revision mismatches", _code_list(record.revision_mismatches)))
    if record.supporting_found:
        facts.append(("supporting found", _code_list(record.supporting_found)))
    if record.tags:
        facts.append(("tags", _code_list(record.tags)))
    if record.nondeterministic:
        facts.append(("nondeterministic", "ranking differs between identical attempts"))
    reason = failure_reason(record)
    out = [
        f'<section class="case {verdict}" id="{anchor}" data-case="{_e(record.case_id)}">',
        f'<h3><span class="badge {verdict}">{verdict}</span> {_e(record.case_id)}{attempt}</h3>',
        f'<p class="verdict-line">{_e(reason)}</p>',
        '<dl class="facts">' + "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in facts) + "</dl>",
        _ranked_table(record),
    ]
    if record.diagnosis is not None:
        detail = record.diagnosis.detail
        evidence = record.diagnosis.evidence
        out.append('<div class="diagnosis">')
        out.append(
            f'<p><span class="cause">{_e(record.diagnosis.cause)}</span> → '
            f'<span class="owner">'
            f"{_e(owner_label(record.diagnosis.owner, record.diagnosis.team))}</span></p>"
        )
        if detail:
            out.append(f'<p class="detail">{_e(detail)}</p>')
        if evidence:
            out.append(
                f'<details class="evidence"><summary>Raw evidence ({len(evidence)} fields)'
                "</summary>"
            )
            out.append(_evidence_html(evidence, depth=0))
            out.append("</details>")
        out.append("</div>")
    else:
        out.append('<p class="note">No diagnosis recorded for this case.</p>')
    # results.json is written redacted, so count the markers the record carries.
    marks = _MARKS.findall(msgspec.json.encode(record).decode("utf-8"))
    if marks or found:
        kinds = ", ".join(sorted(set(marks) | {f.kind.value for f in found}))
        count = max(len(marks), len(found))
        out.append(f'<p class="note redacted">{count} secret(s) redacted ({_e(kinds)}).</p>')
    out.append("</section>")
    return "\n".join(out)


def _code_list(values: Iterable[str]) -> str:
    return ", ".join(f"<code>{_e(v)}</code>" for v in values)


def _ranked_rows_shown(record: CaseResult) -> list[RankedEntry]:
    ranked = sorted(record.ranked, key=lambda e: e.rank)
    last = record.cutoff + _EXTRA_RANKS
    deeper = next(
        (e.rank for e in ranked if e.rank > record.cutoff and e.match == "accepted"), None
    )
    if deeper is not None:
        last = max(last, deeper)
    last = min(last, record.cutoff + _MAX_EXTRA_RANKS)
    return [e for e in ranked if e.rank <= last]


def _ranked_table(record: CaseResult) -> str:
    shown = _ranked_rows_shown(record)
    if not shown:
        return '<p class="note">The ranked list is empty.</p>'
    rows = []
    marked = False
    for e in shown:
        if e.rank > record.cutoff and not marked:
            rows.append(
                f'<tr class="cutoff-row"><td colspan="8">cutoff {record.cutoff}: '
                "nothing below this line reached the answer stage</td></tr>"
            )
            marked = True
        mismatch = (
            record.repository_revision is not None
            and e.repository_revision != record.repository_revision
        )
        rev_cls = ' class="rev-mismatch"' if mismatch else ""
        rev_mark = " ≠" if mismatch else ""
        rows.append(
            f'<tr class="match-{_e(e.match)}">'
            f'<td class="num">{e.rank}</td>'
            f"<td><code>{_e(e.file)}</code></td>"
            f'<td class="num">{e.start_line}–{e.end_line}</td>'
            f"<td>{_e(e.symbol or '–')}</td>"
            f"<td>{_e(e.role)}</td>"
            f'<td{rev_cls} title="{_e(e.repository_revision)}"><code>'
            f"{_e(_short_rev(e.repository_revision))}</code>{rev_mark}</td>"
            f'<td><span class="match">{_e(e.match)}</span></td>'
            f'<td class="num score">{_e(_score(e.score))}</td></tr>'
        )
    hidden = len(record.ranked) - len(shown)
    more = (
        f'<p class="note">{hidden} more ranked chunk(s) in results.json.</p>' if hidden > 0 else ""
    )
    return (
        '<table class="plain ranked"><thead><tr><th class="num">rank</th><th>file</th>'
        '<th class="num">lines</th><th>symbol</th><th>role</th><th>revision</th>'
        '<th>match</th><th class="num">score</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{more}"
    )


def _score(score: float) -> str:
    return f"{score:.4g}" if math.isfinite(score) else str(score)


# -- evidence --------------------------------------------------------------------------

_MAX_DEPTH = 5


# Top-level evidence reads in pipeline order (query, filters, revisions, index,
# candidates, excerpts, label, context) whatever order the bundle's keys came in.
_EVIDENCE_ORDER = (
    "query",
    "filter",
    "revision",
    "index",
    "build",
    "chunker",
    "version",
    "cutoff",
    "inventory",
    "candidate",
    "rerank",
    "ranked",
    "excerpt",
    "rationale",
    "context",
)


def _evidence_order(key: Any) -> tuple[int, str]:
    k = str(key).lower()
    return next(
        (i for i, word in enumerate(_EVIDENCE_ORDER) if word in k), len(_EVIDENCE_ORDER)
    ), ""


def _evidence_html(value: Any, *, depth: int, key: str = "") -> str:
    """A small definition list; strings that look like excerpts become <pre>."""
    if depth > _MAX_DEPTH:
        return f"<pre>{_e(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False))}</pre>"
    if isinstance(value, Mapping):
        return _evidence_mapping(value, depth=depth)
    if isinstance(value, list):
        return _evidence_list(value, depth=depth, key=key)
    if isinstance(value, str):
        if "\n" in value or "excerpt" in key.lower() or len(value) > 160:
            return f'<pre class="excerpt">{_e(value)}</pre>'
        return f"<code>{_e(value)}</code>" if value else '<span class="empty">""</span>'
    return f"<code>{_e(_scalar_text(value))}</code>"


def _evidence_mapping(value: Mapping[Any, Any], *, depth: int) -> str:
    if not value:
        return '<span class="empty">–</span>'
    keys = sorted(value, key=_evidence_order) if depth == 0 else list(value)
    items = "".join(
        f"<dt>{_e(str(k))}</dt><dd>{_evidence_html(value[k], depth=depth + 1, key=str(k))}</dd>"
        for k in keys
    )
    return f'<dl class="evidence">{items}</dl>'


def _multiline(values: Iterable[Any]) -> bool:
    return any(isinstance(v, str) and "\n" in v for v in values)


def _flat_rows(value: list[Any]) -> bool:
    """Mappings of scalars (or empty containers) only, none multi-line: a table."""
    return (
        all(isinstance(v, Mapping) for v in value)
        and all(not isinstance(x, Mapping | list) or not x for v in value for x in v.values())
        and not any(_multiline(v.values()) for v in value)
    )


def _evidence_list(value: list[Any], *, depth: int, key: str) -> str:
    if not value:
        return '<span class="empty">none</span>'
    scalars = all(not isinstance(v, Mapping | list) for v in value)
    if scalars and len(value) <= _SCALAR_LIST_INLINE and not _multiline(value):
        return ", ".join(f"<code>{_e(_scalar_text(v))}</code>" for v in value)
    if not scalars and _flat_rows(value):
        return _dict_table(value)
    return (
        "<ol>"
        + "".join(f"<li>{_evidence_html(v, depth=depth + 1, key=key)}</li>" for v in value)
        + "</ol>"
    )


# -- style and script ------------------------------------------------------------------

_CSS = """
:root { --fg: #1d232b; --muted: #5b6573; --line: #d9dee5; --bg: #ffffff; --soft: #f5f7fa;
  --ok: #1f7a3d; --ok-bg: #e3f4e8; --bad: #b3261e; --bad-bg: #fbe7e5; --warn: #8a5a00;
  --warn-bg: #fff3d6; --info: #1d5fa6; --info-bg: #e4eefa; --bar: #3c6e9f; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1180px; padding: 24px 28px 48px; color: var(--fg);
  background: var(--bg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto,
  "Liberation Sans", "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 14px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 2px solid
  var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
h4 { font-size: 13px; margin: 12px 0 4px; color: var(--muted); text-transform: uppercase;
  letter-spacing: .04em; }
small { color: var(--muted); font-weight: normal; }
code, pre, .query { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas,
  "Liberation Mono", "DejaVu Sans Mono", monospace; font-size: 12.5px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 4px;
  padding: 8px 10px; overflow-x: auto; white-space: pre-wrap; word-break: break-word;
  margin: 2px 0; }
nav { position: sticky; top: 0; background: var(--bg); padding: 6px 0;
  border-bottom: 1px solid var(--line); z-index: 1; }
nav a { color: var(--info); text-decoration: none; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin-bottom: 12px; }
.card { flex: 1 1 140px; border: 1px solid var(--line); border-radius: 6px;
  padding: 8px 12px; background: var(--soft); }
.card-label { color: var(--muted); font-size: 12px; text-transform: uppercase;
  letter-spacing: .04em; }
.card-value { font-size: 24px; font-weight: 600; }
.card-note { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; margin: 6px 0 12px; font-size: 13px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left;
  vertical-align: top; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
table.sortable th { cursor: pointer; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.metrics td:first-child { font-weight: 500; }
table.metrics { font-size: 12px; }
table.metrics th { white-space: normal; vertical-align: bottom; }
table.metrics th, table.metrics td { padding: 3px 5px; }
dl.identity, dl.facts { display: grid; grid-template-columns: max-content 1fr;
  gap: 2px 14px; margin: 6px 0; }
dl.identity dt, dl.facts dt { color: var(--muted); }
dl.identity dd, dl.facts dd { margin: 0; word-break: break-all; }
dl.evidence { display: grid; grid-template-columns: max-content minmax(0, 1fr);
  gap: 3px 12px; margin: 2px 0; padding-left: 8px; border-left: 3px solid var(--line); }
dl.evidence dt { font-weight: 600; color: var(--muted); font-size: 12px; }
dl.evidence dd { margin: 0; min-width: 0; }
ol { margin: 2px 0; padding-left: 22px; }
.plot-row { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.breakdown { flex: 1 1 420px; }
svg.plot { max-width: 100%; height: auto; font: 11px system-ui, sans-serif; }
svg .axis { stroke: var(--fg); stroke-width: 1; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .tick { fill: var(--muted); }
svg .count { fill: var(--fg); font-weight: 600; }
svg .bar-hit { fill: #3c8f5a; }
svg .bar-past { fill: #d08c1a; }
svg .bar-miss { fill: #c2453d; }
svg .bar-cause { fill: var(--bar); }
svg .cutoff { stroke: var(--fg); stroke-dasharray: 4 3; }
.badge { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 11px;
  font-weight: 700; text-transform: uppercase; letter-spacing: .03em; }
.badge.pass { background: var(--ok-bg); color: var(--ok); }
.badge.fail { background: var(--bad-bg); color: var(--bad); }
.badge.invalid { background: var(--warn-bg); color: var(--warn); }
section.case { border: 1px solid var(--line); border-left: 4px solid var(--bad);
  border-radius: 4px; padding: 4px 14px 10px; margin: 14px 0; }
section.case.invalid { border-left-color: #d08c1a; }
section.case h3 { margin-top: 8px; }
.verdict-line { font-weight: 500; margin: 2px 0 6px; }
tr.match-accepted td { background: var(--ok-bg); }
tr.match-forbidden td { background: var(--bad-bg); }
tr.match-supporting td { background: var(--info-bg); }
td.rev-mismatch { color: var(--bad); font-weight: 600; }
tr.cutoff-row td { border-top: 2px dashed var(--fg); color: var(--muted); font-size: 12px;
  text-align: center; background: var(--bg); }
td.score { color: var(--muted); }
.diagnosis { background: var(--soft); border-radius: 4px; padding: 4px 12px 8px; }
.cause { font-weight: 700; color: var(--bad); }
.owner { font-weight: 600; }
.note { color: var(--muted); font-size: 12.5px; }
.empty { color: var(--muted); }
.controls input[type=search] { padding: 3px 6px; width: 240px; }
#comparison table { width: 100%; }
#comparison td { white-space: nowrap; }
#comparison td.notes { white-space: normal; }
#failures-table { width: 100%; }
#failures-table td.why { color: var(--muted); font-size: 12.5px; }
details > summary { cursor: pointer; }
details > summary h2 { display: inline-block; border: 0; margin: 24px 0 8px; }
details.evidence > summary { color: var(--muted); font-size: 12.5px; margin: 8px 0 4px; }
footer { margin-top: 40px; color: var(--muted); font-size: 12px; }
@media print { nav, .controls { display: none; } section.case { break-inside: avoid; } }
"""

# Optional niceties; the page is complete without them.
_SCRIPT = """
(function () {
  function key(td) {
    var v = td.getAttribute('data-value');
    if (v === null) { v = td.textContent.trim(); }
    var n = parseFloat(v);
    return (v !== '' && !isNaN(n) && isFinite(v)) ? n : v.toLowerCase();
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    table.querySelectorAll('thead th').forEach(function (th, col) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0];
        var asc = th.getAttribute('data-sort') !== 'asc';
        table.querySelectorAll('thead th').forEach(function (h) {
          h.removeAttribute('data-sort');
        });
        th.setAttribute('data-sort', asc ? 'asc' : 'desc');
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a.cells[col]), y = key(b.cells[col]);
          var c = (typeof x === typeof y) ? (x < y ? -1 : x > y ? 1 : 0)
                                          : (typeof x === 'number' ? -1 : 1);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  var filter = document.getElementById('record-filter');
  var failedOnly = document.getElementById('failed-only');
  function apply() {
    var q = filter.value.toLowerCase();
    document.querySelectorAll('#records-table tbody tr').forEach(function (tr) {
      var show = tr.textContent.toLowerCase().indexOf(q) >= 0 &&
                 (!failedOnly.checked || !tr.classList.contains('verdict-pass'));
      tr.style.display = show ? '' : 'none';
    });
  }
  if (filter && failedOnly) {
    filter.addEventListener('input', apply);
    failedOnly.addEventListener('change', apply);
  }
})();
"""
