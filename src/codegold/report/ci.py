"""What CI shows beside the reports: where each case is written in its suite file, and
GitHub Actions ``::error`` annotations that point there.

``case_lines`` reads a suite (YAML, JSON or JSONL) for the line of each case's ``id``,
so an annotation (or a JUnit ``<testcase line=…>``) opens the pull request's diff at
the case that failed. ``attempt_times`` gives each attempt's recorded duration, for
JUnit's ``time``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from codegold.errors import InputError
from codegold.evaluate.records import CaseResult
from codegold.redact import redact
from codegold.report.junit import failure_message

__all__ = ["attempt_times", "case_lines", "github_annotations"]


def case_lines(path: str | Path) -> dict[str, int]:
    """The 1-based line of each case's ``id`` in the suite file (its item's first line
    when the id is not a plain scalar)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    if p.suffix == ".jsonl":
        out: dict[str, int] = {}
        for number, line in enumerate(text.splitlines(), start=1):
            try:
                row = json.loads(line) if line.strip() else None
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and isinstance(row.get("id"), str):
                out.setdefault(row["id"], number)
        return out
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        raise InputError(f"cannot read the suite: {exc}", file=str(p)) from None
    cases = _child(root, "cases")
    out = {}
    if isinstance(cases, yaml.SequenceNode):
        for item in cases.value:
            node = _child(item, "id")
            if isinstance(node, yaml.ScalarNode):
                out.setdefault(str(node.value), node.start_mark.line + 1)
    return out


def _child(node: object, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            found: yaml.Node = v
            return found
    return None


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotations(
    records: Sequence[CaseResult], suite_file: str, lines: Mapping[str, int]
) -> list[str]:
    """One ``::error`` workflow command per failed or invalid case, at its line in
    ``suite_file`` (a path relative to the repository root), in case order."""
    out: list[str] = []
    seen: set[str] = set()
    for record in sorted(records, key=lambda r: (r.case_id, r.attempt_id or "")):
        if record.passed or record.case_id in seen:
            continue
        seen.add(record.case_id)
        if record.valid:
            message = failure_message(record)
            title = f"codegold: {record.case_id} failed"
        else:
            message = redact(f"invalid run: {record.invalid_reason or '?'}")[0]
            title = f"codegold: {record.case_id} invalid"
        where = [f"file={_escape_property(suite_file)}"]
        if record.case_id in lines:
            where.append(f"line={lines[record.case_id]}")
        where.append(f"title={_escape_property(title)}")
        out.append(f"::error {','.join(where)}::{_escape_data(message)}")
    return out


def attempt_times(path: str | Path) -> dict[str, float]:
    """Seconds each attempt took (``durationMs``), by attempt id; {} without the file."""
    p = Path(path)
    if not p.is_file():
        return {}
    out: dict[str, float] = {}
    with p.open("rb") as handle:
        for line in handle:
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(row, dict):
                continue
            ms = row.get("durationMs")
            if isinstance(row.get("attemptId"), str) and isinstance(ms, int | float):
                out[row["attemptId"]] = float(ms) / 1000.0
    return out
