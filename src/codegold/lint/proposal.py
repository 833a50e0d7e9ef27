"""The proposed suite: the migrated labels written back as YAML, old labels kept in comments."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec
import yaml

from codegold.cases.model import Case, Repository, SuiteFile, Target
from codegold.cases.suite import Suite
from codegold.lint.migrate import Migration
from codegold.lint.model import Part, _plain
from codegold.lint.revision import _plural


def proposal_path(suite_path: str | Path, to_revision: str) -> Path:
    """``<suite stem>.<rev12>.proposed.yaml`` beside the suite."""
    p = Path(suite_path)
    return p.with_name(f"{p.stem}.{to_revision[:12]}.proposed.yaml")


def _flow(value: Any) -> str:
    """One YAML value on one line (flow style), as PyYAML quotes it."""
    if _has_break(value):
        # A JSON string is a YAML double-quoted scalar; escape what YAML reads as a
        # line break or refuses outright.
        return "".join(_escape(ch) for ch in json.dumps(value, ensure_ascii=False))
    text = yaml.safe_dump(
        value, default_flow_style=True, sort_keys=False, allow_unicode=True, width=2**31 - 1
    )
    if text.endswith("\n...\n"):
        text = text[: -len("\n...\n")]
    return text.rstrip("\n")


def _escape(ch: str) -> str:
    if ch.isprintable():
        return ch
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _has_break(value: Any) -> bool:
    if isinstance(value, str):
        return any(ch in value for ch in "\n\r\x85\u2028\u2029") or not value.isprintable()
    if isinstance(value, dict):
        return any(_has_break(k) or _has_break(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_break(v) for v in value)
    return False


def _comment(text: str) -> str:
    return "# " + " ".join(text.split())


class _Writer:
    """Block YAML for the suite's structure, flow YAML for its leaves, with comments.

    Comments are keyed by document path and written on the lines above the node.
    """

    def __init__(self, comments: Mapping[tuple[Part, ...], Sequence[str]]) -> None:
        self.comments = comments
        self.lines: list[str] = []

    def _notes(self, path: tuple[Part, ...], indent: int) -> None:
        for note in self.comments.get(path, ()):
            self.lines.append(" " * indent + _comment(note))

    def mapping(self, value: Mapping[str, Any], path: tuple[Part, ...], indent: int) -> None:
        for key, item in value.items():
            here = (*path, key)
            self._notes(here, indent)
            head = " " * indent + _flow(key) + ":"
            if _is_block_list(item):
                self.lines.append(head)
                self.sequence(item, here, indent + 2)
            else:
                self.lines.append(f"{head} {_flow(item)}")

    def sequence(self, items: Sequence[Any], path: tuple[Part, ...], indent: int) -> None:
        for i, item in enumerate(items):
            here = (*path, i)
            self._notes(here, indent)
            if isinstance(item, dict) and any(_is_block_list(v) for v in item.values()):
                start = len(self.lines)
                self.mapping(item, here, indent + 2)
                # the item's first key goes on the dash line (its notes stay above)
                first = next(
                    j
                    for j in range(start, len(self.lines))
                    if not self.lines[j].lstrip().startswith("#")
                )
                line = self.lines.pop(first)
                self.lines.insert(first, " " * indent + "- " + line[indent + 2 :])
            else:
                self.lines.append(" " * indent + "- " + _flow(item))


def _is_block_list(value: Any) -> bool:
    return isinstance(value, list) and any(isinstance(v, dict) for v in value)


def render_proposal(suite: Suite, file: SuiteFile, migration: Migration) -> str:
    """The suite re-pinned to ``migration.to_revision``, as YAML text.

    Moved cases inherit the new suite revision, each changed target with its old
    label in a ``# was:`` comment above it. Cases that cannot move are kept as they
    were, pinned to their old revision, under a ``# lint: kept`` comment. The text
    is checked to parse back to exactly the intended suite before it is returned.
    """
    rev = migration.to_revision
    comments: dict[tuple[Part, ...], list[str]] = {}
    cases: list[Case] = []
    by_index = {c.index: c for c in migration.cases}
    for n, case in enumerate(file.cases):
        plan = by_index[n]
        at = ("cases", n)
        if not plan.moves:
            reasons = "; ".join(f"{t.field}: {t.confidence}, {t.detail}" for t in plan.blockers)
            comments[at] = [f"lint: kept at {plan.old_revision[:12]}, review: {reasons}"]
            if case.repository_revision is None and plan.old_revision != rev:
                case = msgspec.structs.replace(case, repository_revision=plan.old_revision)
            cases.append(case)
            continue
        if case.repository_revision is not None and case.repository_revision != rev:
            comments[at] = [f"was: repositoryRevision: {case.repository_revision}"]
        case = msgspec.structs.replace(case, repository_revision=None)
        for move in plan.targets:
            if move.changed and move.new is not None:
                comments[(*at, *move.parts)] = [
                    f"was: {_flow(_plain(move.old))}",
                    f"lint: {move.confidence}: {move.detail}",
                ]
                case = _replace_target(case, move.parts, move.new)
        cases.append(case)
    old_repo = file.repository or Repository()
    if old_repo.revision is not None and old_repo.revision != rev:
        comments[("repository",)] = [f"was: revision: {old_repo.revision}"]
    proposed = msgspec.structs.replace(
        file,
        repository=msgspec.structs.replace(old_repo, revision=rev),
        cases=tuple(cases),
    )
    from codegold.redact import redact_json, redact_text

    # A drafted suite is an output like any other: no secret is copied into it.
    doc = redact_json(_document_order(_plain(proposed)))[0]
    comments = {k: [redact_text(line) for line in v] for k, v in comments.items()}
    kept = [c.case_id for c in migration.cases if not c.moves]
    writer = _Writer(comments)
    writer.lines.extend(
        [
            _comment(
                f"Proposed by codegold lint --to-revision {rev[:12]} from {Path(suite.path).name}."
            ),
            _comment(
                "Review every '# was:' line before replacing the original suite; comments of "
                "the original are not carried over."
            ),
        ]
    )
    if kept:
        writer.lines.append(
            _comment(
                f"{_plural(len(kept), 'case')} kept at their old revision (targets not found "
                f"at {rev[:12]}): {', '.join(kept)}."
            )
        )
    writer.mapping(doc, (), 0)
    text = "\n".join(writer.lines) + "\n"
    if yaml.safe_load(text) != doc:  # pragma: no cover - a bug in the writer
        raise RuntimeError("the proposed suite does not parse back to itself")
    msgspec.convert(doc, SuiteFile)
    return text


def _document_order(doc: dict[str, Any]) -> dict[str, Any]:
    order = ["$schema", "suite", "repository", "defaults", "cases"]
    return {k: doc[k] for k in order if k in doc}


def _replace_target(case: Case, parts: tuple[Part, ...], target: Target) -> Case:
    if parts[0] in ("accepted", "supporting"):
        name = "accepted" if parts[0] == "accepted" else "supporting"
        items = list(getattr(case, name) or ())
        index = parts[1]
        assert isinstance(index, int)
        items[index] = target
        return msgspec.structs.replace(case, **{name: tuple(items)})
    gi, ti = parts[1], parts[3]
    assert isinstance(gi, int) and isinstance(ti, int)
    groups = list(case.groups or ())
    any_of = list(groups[gi].any_of)
    any_of[ti] = target
    groups[gi] = msgspec.structs.replace(groups[gi], any_of=tuple(any_of))
    return msgspec.structs.replace(case, groups=tuple(groups))
