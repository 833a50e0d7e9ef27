"""Label migration: where each target of a suite lives at another revision."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import msgspec

from codegold.cases.model import Lines, Target
from codegold.cases.suite import Suite
from codegold.index.store import LoadedIndex
from codegold.lint.document import _render, _Slot, _slots
from codegold.lint.labels import _revision_view
from codegold.lint.model import Part, ReadText, Renames, _plain
from codegold.lint.revision import (
    _Candidate,
    _lines_agree,
    _plural,
    _Revision,
    _Span,
    _under,
    nearest_span,
)
from codegold.lint.similar import similar_body


class Verdict(StrEnum):
    """What became of a target at the new revision."""

    HOLDS = "holds"  # same file, same symbol, same span
    LINES = "lines moved"  # same file and symbol, another span
    RENAMED = "renamed"  # git renamed the file; the symbol is in the new file
    MOVED = "moved symbol"  # the symbol is defined in exactly one other place
    SIMILAR = "renamed symbol"  # gone by name; a body substantially the same elsewhere
    AMBIGUOUS = "ambiguous"  # several places define it
    GONE = "gone"  # nowhere to be found


_RESOLVED = (Verdict.HOLDS, Verdict.LINES, Verdict.RENAMED, Verdict.MOVED, Verdict.SIMILAR)


@dataclass(frozen=True)
class TargetMove:
    """One target at the old revision and (when found) the new one."""

    case_id: str
    parts: tuple[Part, ...]
    old: Target
    new: Target | None
    verdict: Verdict
    detail: str
    candidates: tuple[str, ...] = ()

    @property
    def field(self) -> str:
        return _render(self.parts)

    @property
    def confidence(self) -> str:
        if self.verdict is Verdict.AMBIGUOUS:
            return f"ambiguous: {_plural(len(self.candidates), 'candidate')}"
        return str(self.verdict)

    @property
    def changed(self) -> bool:
        return self.new is not None and self.new != self.old

    def as_json(self) -> dict[str, Any]:
        return {
            "caseId": self.case_id,
            "field": self.field,
            "old": _plain(self.old),
            "new": _plain(self.new) if self.new is not None else None,
            "verdict": str(self.verdict),
            "confidence": self.confidence,
            "detail": self.detail,
            "candidates": list(self.candidates),
        }


@dataclass(frozen=True)
class CaseMove:
    """A case's targets at the new revision; it moves only when every one resolved."""

    case_id: str
    index: int
    old_revision: str
    targets: tuple[TargetMove, ...]

    @property
    def moves(self) -> bool:
        return all(t.verdict in _RESOLVED and t.new is not None for t in self.targets)

    @property
    def blockers(self) -> tuple[TargetMove, ...]:
        return tuple(t for t in self.targets if t.verdict not in _RESOLVED or t.new is None)


@dataclass(frozen=True)
class Migration:
    """A suite planned onto ``to_revision``."""

    suite: str
    to_revision: str
    cases: tuple[CaseMove, ...]
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def targets(self) -> tuple[TargetMove, ...]:
        return tuple(t for c in self.cases for t in c.targets)

    def as_json(self) -> dict[str, Any]:
        return {
            "suite": self.suite,
            "toRevision": self.to_revision,
            "counts": dict(self.counts),
            "movedCases": [c.case_id for c in self.cases if c.moves],
            "keptCases": [c.case_id for c in self.cases if not c.moves],
            "targets": [t.as_json() for t in self.targets],
        }


def plan_migration(
    suite: Suite,
    to_revision: str,
    indexes: Mapping[str, LoadedIndex],
    read_text: ReadText,
    renames: Renames,
) -> Migration:
    """Where each target of ``suite`` lives at ``to_revision`` (a full SHA).

    A target that still holds keeps its label (its ``lines`` updated when the span
    moved). A stale one is looked for, in order: in the file git reports as renamed
    from its own; as the same qualified symbol defined in exactly one other file; as
    a unique definition with the same last name component (``Client.send`` →
    ``Transport.send``). Candidates under the case's forbidden prefixes are never
    proposed; when the target names roles, candidates with one of them are
    preferred. Glob targets are checked but never rewritten.
    """
    views: dict[str, _Revision] = {}
    new = _revision_view(views, indexes, to_revision, read_text)
    rename_maps: dict[str, Mapping[str, str]] = {}
    cases: list[CaseMove] = []
    for n, case in enumerate(suite.cases):
        if case.revision not in rename_maps:
            rename_maps[case.revision] = (
                {} if case.revision == to_revision else renames(case.revision, to_revision)
            )
        moved = rename_maps[case.revision]
        old = (
            _revision_view(views, indexes, case.revision, read_text)
            if case.revision in indexes
            else None
        )
        targets = tuple(
            _move_target(case.id, slot, new, moved, case.forbidden_path_prefixes, old)
            for slot in _slots(case.source)
        )
        cases.append(CaseMove(case.id, n, case.revision, targets))
    counts: dict[str, int] = {str(v): 0 for v in Verdict}
    for c in cases:
        for t in c.targets:
            counts[str(t.verdict)] += 1
    return Migration(suite.path, to_revision, tuple(cases), counts)


def _with_span(target: Target, span: _Span | None, **changes: Any) -> Target:
    if target.lines is not None and span is not None:
        changes["lines"] = Lines(span.start, span.end)
    return msgspec.structs.replace(target, **changes)


def _move_target(
    case_id: str,
    slot: _Slot,
    new: _Revision,
    renamed: Mapping[str, str],
    forbidden: Sequence[str],
    old: _Revision | None = None,
) -> TargetMove:
    t = slot.target
    facts = new.facts(t)

    def move(
        verdict: Verdict, target: Target | None, detail: str, cands: Sequence[str] = ()
    ) -> TargetMove:
        return TargetMove(case_id, slot.parts, t, target, verdict, detail, tuple(cands))

    if facts.exists:
        if t.lines is not None and t.symbol is not None:
            spans = new.spans(facts.files, t.symbol)
            if spans and not _lines_agree(t.lines, spans, new.text):
                s = nearest_span(spans, t.lines, t.roles)
                return move(
                    Verdict.LINES,
                    _with_span(t, s),
                    f"lines {t.lines.start}-{t.lines.end} → {s.start}-{s.end}",
                )
        return move(Verdict.HOLDS, t, f"still holds at {new.short}")

    if t.file is not None and t.file in renamed:
        target = msgspec.structs.replace(t, file=renamed[t.file])
        moved = new.facts(target)
        if moved.exists:
            spans = new.spans(moved.files, t.symbol) if t.symbol else []
            return move(
                Verdict.RENAMED,
                _with_span(target, nearest_span(spans, t.lines, t.roles) if spans else None),
                f"git renamed {t.file} → {renamed[t.file]}",
            )

    if t.symbol is None:
        what = t.file or repr(t.file_pattern)
        return move(Verdict.GONE, None, f"{what} does not exist at {new.short}")

    last = t.symbol.rsplit(".", 1)[-1]
    cands = _candidates(new, t, forbidden, exact=True)
    exact = bool(cands)
    if not exact:
        cands = _candidates(new, t, forbidden, exact=False)
    names = [c.describe() for c in cands]
    if not cands:
        return _renamed(t, old, new, forbidden, move, last)
    what = t.symbol if exact else f"a symbol named {last!r}"
    if len(cands) > 1:
        files = sorted({c.file for c in cands})
        shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
        return move(Verdict.AMBIGUOUS, None, f"{what} is defined in {shown}", names)
    c = cands[0]
    if t.file is None:
        return move(
            Verdict.MOVED,
            None,
            f"{c.symbol} is now in {c.file}, outside {t.file_pattern!r}: glob targets are "
            "not rewritten",
            names,
        )
    if exact:
        detail = f"{t.symbol} is defined only in {c.file} at {new.short}"
    else:
        detail = f"{t.symbol} is gone; {c.symbol} is the only definition named {last!r}"
    if t.roles and not set(c.roles) & set(t.roles):
        detail += f"; its chunks there are {', '.join(c.roles)}"
    return move(Verdict.MOVED, _with_span(t, c.span, file=c.file, symbol=c.symbol), detail, names)


def _renamed(
    t: Target,
    old: _Revision | None,
    new: _Revision,
    forbidden: Sequence[str],
    move: Callable[..., TargetMove],
    last: str,
) -> TargetMove:
    """Nothing defines the name any more: a body substantially the same, renamed or
    moved too, is proposed; else the target is gone."""
    found = (
        similar_body(old, new, t.file, t.symbol, forbidden)
        if old is not None and t.file is not None and t.symbol is not None
        else None
    )
    if found is None:
        return move(Verdict.GONE, None, f"nothing named {last!r} is defined at {new.short}")
    where = "" if found.file == t.file else f" in {found.file}"
    detail = (
        f"nothing named {last!r} is defined at {new.short}; {found.symbol}{where} has a "
        f"body {found.ratio:.0%} the same (renamed?)"
    )
    target = _with_span(t, found.span, file=found.file, symbol=found.symbol)
    return move(Verdict.SIMILAR, target, detail, [f"{found.file}#{found.symbol}"])


def _candidates(
    rev: _Revision, target: Target, forbidden: Sequence[str], *, exact: bool
) -> list[_Candidate]:
    assert target.symbol is not None
    found = [
        c for c in rev.definitions(target.symbol, exact=exact) if _under(c.file, forbidden) is None
    ]
    if target.roles:
        fitting = [c for c in found if set(c.roles) & set(target.roles)]
        if fitting:
            found = fitting
    return found
