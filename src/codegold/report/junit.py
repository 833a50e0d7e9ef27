"""JUnit XML for CI dashboards (SPEC §6 *report*).

One ``<testsuite>`` for the run and one ``<testcase>`` per record: a failed record
carries a ``<failure>`` whose message is one line (cause → owner, missing groups,
forbidden files) and whose body lists the ranked chunks within the cutoff; an
invalid record carries an ``<error>``: it was never scored. Run aggregates go into
``<properties>``. Given the suite's case lines, each ``<testcase>`` carries ``file`` and
``line`` (CI dashboards link there); given the attempts' recorded durations, ``time``
is the seconds its retrieval took (the suite's ``time`` their sum), else 0. No
timestamps: the same run gives the same bytes. Queries and diagnosis details are
redacted like the HTML.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from codegold.evaluate.metrics import counts, means
from codegold.evaluate.records import CaseResult
from codegold.owners import owner_label
from codegold.redact import redact

__all__ = ["failure_message", "render_junit"]

_PROPERTIES = tuple(m.name for m in (*means(), *counts()) if not m.optional)
"""The summary figures written as suite properties: the registry's means, then its counts."""
# Characters XML 1.0 cannot carry at all, even escaped.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _clean(text: str) -> str:
    return _INVALID_XML.sub("\ufffd", text)


def _prop_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(value)
    return str(value)


def render_junit(
    records: Sequence[CaseResult],
    summary: Mapping[str, Any],
    *,
    suite_file: str | None = None,
    case_lines: Mapping[str, int] | None = None,
    times: Mapping[str, float] | None = None,
) -> str:
    """The JUnit XML document for a run, as a string with an XML declaration.

    ``suite_file`` and ``case_lines`` (case id -> line) locate each case; ``times``
    (attempt id -> seconds) time it."""
    ordered = sorted(records, key=lambda r: (r.case_id, r.attempt_id or ""))
    suite = summary.get("suite") if isinstance(summary.get("suite"), Mapping) else None
    suite_name = str(suite.get("name")) if suite and suite.get("name") else "codegold"
    per_case = Counter(r.case_id for r in ordered)
    counts = _suite_counts(ordered, times or {})
    root = ET.Element("testsuites", {"name": "codegold", **counts})
    testsuite = ET.SubElement(root, "testsuite", {"name": _clean(suite_name), **counts})
    _add_properties(testsuite, summary)
    for record in ordered:
        name = record.case_id
        if per_case[record.case_id] > 1:
            name = f"{record.case_id} [{record.attempt_id or '?'}]"
        attributes = _case_attributes(
            record, name, record.query_class or suite_name, suite_file, case_lines, times or {}
        )
        _add_outcome(ET.SubElement(testsuite, "testcase", attributes), record)
    ET.indent(root, space="  ")
    xml = ET.tostring(root, encoding="unicode", short_empty_elements=True)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml + "\n"


def _suite_counts(ordered: Sequence[CaseResult], times: Mapping[str, float]) -> dict[str, str]:
    """The tests, failures, errors, skipped and time attributes of the suite."""
    return {
        "tests": str(len(ordered)),
        "failures": str(sum(1 for r in ordered if r.valid and not r.passed)),
        "errors": str(sum(1 for r in ordered if not r.valid)),
        "skipped": "0",
        "time": _seconds(sum(times.get(r.attempt_id or "", 0.0) for r in ordered)),
    }


def _add_properties(testsuite: ET.Element, summary: Mapping[str, Any]) -> None:
    """The run's aggregates, then its identity, as ``<property>`` elements."""
    props = ET.SubElement(testsuite, "properties")
    overall = summary.get("overall") or {}
    for key in _PROPERTIES:
        if key in overall:
            ET.SubElement(props, "property", {"name": key, "value": _prop_value(overall[key])})
    for key, value in _identity_properties(summary):
        ET.SubElement(props, "property", {"name": key, "value": _clean(value)})


def _case_attributes(
    record: CaseResult,
    name: str,
    classname: str,
    suite_file: str | None,
    case_lines: Mapping[str, int] | None,
    times: Mapping[str, float],
) -> dict[str, str]:
    attributes = {"classname": _clean(classname), "name": _clean(name)}
    if suite_file is not None:
        attributes["file"] = _clean(suite_file)
        if case_lines and record.case_id in case_lines:
            attributes["line"] = str(case_lines[record.case_id])
    attributes["time"] = _seconds(times.get(record.attempt_id or "", 0.0))
    return attributes


def _add_outcome(case: ET.Element, record: CaseResult) -> None:
    """An ``<error>`` for an invalid record, a ``<failure>`` for a failed one."""
    if not record.valid:
        error = ET.SubElement(
            case,
            "error",
            {
                "message": _clean(_redacted(f"invalid run: {record.invalid_reason or '?'}")),
                "type": "invalid_run",
            },
        )
        error.text = _clean(_body(record))
    elif not record.passed:
        failure = ET.SubElement(
            case,
            "failure",
            {
                "message": _clean(failure_message(record)),
                "type": record.diagnosis.cause if record.diagnosis else "failed",
            },
        )
        failure.text = _clean(_body(record))


def _seconds(value: float) -> str:
    return f"{value:.6f}".rstrip("0").rstrip(".") if value else "0"


def _identity_properties(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    suite = summary.get("suite")
    if isinstance(suite, Mapping):
        for key in ("name", "digest", "repository"):
            if suite.get(key) is not None:
                out.append((f"suite.{key}", str(suite[key])))
    for key in ("evaluatorVersion", "codegoldVersion", "attemptsDigest"):
        if summary.get(key) is not None:
            out.append((key, str(summary[key])))
    indexes = summary.get("indexes")
    if isinstance(indexes, list) and indexes:
        ids = [str(m.get("buildId")) for m in indexes if isinstance(m, Mapping)]
        out.append(("indexes", ", ".join(ids)))
    retrievers = summary.get("retrievers")
    if isinstance(retrievers, list) and retrievers:
        out.append(("retrievers", ", ".join(str(r) for r in retrievers)))
    return out


def _redacted(text: str) -> str:
    return redact(text)[0]


def failure_message(record: CaseResult) -> str:
    """One line: cause → owner, missing groups, forbidden files, revision trouble."""
    parts: list[str] = []
    if record.diagnosis is not None:
        who = owner_label(record.diagnosis.owner, record.diagnosis.team)
        parts.append(f"{record.diagnosis.cause} → {who}")
    if record.missing_group_ids:
        parts.append(
            f"missing groups within top {record.cutoff}: {', '.join(record.missing_group_ids)}"
        )
    if record.forbidden_chunk_ids:
        forbidden = set(record.forbidden_chunk_ids)
        files = sorted({e.file for e in record.ranked if e.chunk_id in forbidden})
        parts.append(f"forbidden: {', '.join(files or record.forbidden_chunk_ids)}")
    if record.revision_mismatches:
        parts.append(f"{len(record.revision_mismatches)} chunk(s) from another revision")
    return _redacted("; ".join(parts) or "failed").replace("\n", " ")


def _body(record: CaseResult) -> str:
    query = _redacted(record.query)
    lines = [
        f"query: {query}",
        f"expected revision: {record.repository_revision or '-'}",
        f"cutoff: {record.cutoff}",
    ]
    if record.valid:
        lines.append(f"first relevant rank: {record.first_relevant_rank or '-'}")
    if record.diagnosis is not None:
        who = owner_label(record.diagnosis.owner, record.diagnosis.team)
        lines.append(f"cause: {record.diagnosis.cause} -> {who}")
        if record.diagnosis.detail:
            lines.append(f"detail: {_redacted(record.diagnosis.detail)}")
    top = [e for e in sorted(record.ranked, key=lambda e: e.rank) if e.rank <= record.cutoff]
    lines.append(f"ranked (top {record.cutoff}):" if top else "ranked: (empty)")
    lines.extend(
        f"  rank={e.rank} file={e.file}:{e.start_line}-{e.end_line} symbol={e.symbol or '-'} "
        f"role={e.role} revision={e.repository_revision} match={e.match} score={e.score:g}"
        for e in top
    )
    deeper = next(
        (
            e
            for e in sorted(record.ranked, key=lambda e: e.rank)
            if e.rank > record.cutoff and e.match == "accepted"
        ),
        None,
    )
    if deeper is not None:
        lines.append(f"  (first accepted chunk past the cutoff: rank {deeper.rank}, {deeper.file})")
    return "\n".join(lines) + "\n"
