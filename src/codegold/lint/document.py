"""The suite document as written: its parsed cases, and where each label sits in the file."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import yaml

from codegold.cases.model import Case, SuiteFile, Target
from codegold.cases.suite import Suite, _parse_document
from codegold.errors import InputError
from codegold.lint.model import Part


def read_suite_file(path: str | Path) -> SuiteFile:
    """The suite file as written (defaults not applied): for re-emitting it."""
    p = Path(path)
    raw = _parse_document(p, p.read_bytes().decode("utf-8"))
    if isinstance(raw, list):
        raw = {"cases": raw}
    try:
        return msgspec.convert(raw, SuiteFile)
    except msgspec.ValidationError as exc:  # pragma: no cover - load_suite accepted it
        raise InputError(str(exc), file=str(p)) from None


class _Document:
    """A suite file's own fields and the line of any node in it."""

    def __init__(self, suite: Suite) -> None:
        path = Path(suite.path)
        text = path.read_bytes().decode("utf-8")
        self.file = read_suite_file(path)
        self._jsonl = path.suffix.lower() == ".jsonl"
        self._lines: list[int] = []
        self._root: Any = None
        if self._jsonl:
            self._lines = [n for n, ln in enumerate(text.split("\n"), start=1) if ln.strip()]
        elif len(text) < 5_000_000:
            try:
                self._root = yaml.compose(
                    text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)
                )
            except yaml.YAMLError:  # pragma: no cover - load_suite parsed it
                self._root = None

    def line(self, parts: Sequence[Part]) -> int | None:
        """The 1-based line of the node at ``parts`` (``["cases", 3, "groups", 0]``)."""
        if self._jsonl:
            if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
                return self._lines[parts[1]] if parts[1] < len(self._lines) else None
            return None
        node = self._root
        if node is None:
            return None
        if isinstance(node, yaml.SequenceNode) and parts and parts[0] == "cases":
            parts = parts[1:]  # a bare list of cases
        line: int | None = node.start_mark.line + 1
        for part in parts:
            if isinstance(part, int) and isinstance(node, yaml.SequenceNode):
                if part >= len(node.value):
                    break
                node = node.value[part]
            elif isinstance(part, str) and isinstance(node, yaml.MappingNode):
                value = next((v for k, v in node.value if k.value == part), None)
                if value is None:
                    break
                node = value
            else:
                break
            line = node.start_mark.line + 1
        return line


def _render(parts: Sequence[Part]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


@dataclass(frozen=True, slots=True)
class _Slot:
    """A target and where it sits in its case (``("groups", 1, "anyOf", 0)``)."""

    parts: tuple[Part, ...]
    target: Target
    required: bool


def _slots(case: Case) -> list[_Slot]:
    out: list[_Slot] = []
    for j, t in enumerate(case.accepted or ()):
        out.append(_Slot(("accepted", j), t, True))
    for i, g in enumerate(case.groups or ()):
        for j, t in enumerate(g.any_of):
            out.append(_Slot(("groups", i, "anyOf", j), t, True))
    for j, t in enumerate(case.supporting or ()):
        out.append(_Slot(("supporting", j), t, False))
    return out
