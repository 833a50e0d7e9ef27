"""Running part of a suite (`run --case ID`, `--tag T`), and saying so.

A selection is part of the run identity (summary.json's ``selection``; ``null`` for a
full run), so `compare` and `gate` never take a partial run for a full one: `compare`
restricts both runs to the cases both ran and flags it, `gate` refuses a partial run
unless asked to gate it anyway.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from codegold.cases.suite import Suite
from codegold.errors import InputError

SUMMARY = "summary.json"


@dataclass(frozen=True, slots=True)
class Selection:
    """Which cases of a suite a run covered, and what asked for them."""

    case_ids: tuple[str, ...]
    """Asked for by ``--case``, in the order given."""
    tags: tuple[str, ...]
    """Asked for by ``--tag``."""
    selected: tuple[str, ...]
    """The cases run, in suite order."""
    total: int
    """Cases in the suite."""

    @property
    def partial(self) -> bool:
        return len(self.selected) < self.total

    def describe(self) -> str:
        asked = [f"--case {c}" for c in self.case_ids] + [f"--tag {t}" for t in self.tags]
        return f"{len(self.selected)} of {self.total} cases ({' '.join(asked)})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "cases": list(self.case_ids),
            "tags": list(self.tags),
            "selected": list(self.selected),
            "of": self.total,
            "partial": self.partial,
        }

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> Selection:
        return cls(
            case_ids=tuple(raw.get("cases") or ()),
            tags=tuple(raw.get("tags") or ()),
            selected=tuple(raw.get("selected") or ()),
            total=int(raw.get("of") or 0),
        )


def select_cases(
    suite: Suite, case_ids: Sequence[str] = (), tags: Sequence[str] = ()
) -> tuple[Suite, Selection | None]:
    """The sub-suite of the cases named by ``case_ids`` and of those carrying any of
    ``tags`` (a union), and its :class:`Selection`; the suite itself and None when
    nothing is asked. A case id or tag that selects nothing is an :class:`InputError`."""
    if not case_ids and not tags:
        return suite, None
    known = {c.id for c in suite.cases}
    for case_id in case_ids:
        if case_id not in known:
            raise InputError(
                f"no case {case_id!r} in the suite ({len(known)} cases)",
                file=suite.path,
                field="--case",
            )
    present = {t for c in suite.cases for t in c.tags}
    for tag in tags:
        if tag not in present:
            known_tags = ", ".join(sorted(present)) or "none"
            raise InputError(
                f"no case carries tag {tag!r} (tags: {known_tags})", file=suite.path, field="--tag"
            )
    wanted, wanted_tags = set(case_ids), set(tags)
    cases = tuple(c for c in suite.cases if c.id in wanted or wanted_tags.intersection(c.tags))
    selection = Selection(
        case_ids=tuple(dict.fromkeys(case_ids)),
        tags=tuple(dict.fromkeys(tags)),
        selected=tuple(c.id for c in cases),
        total=len(suite.cases),
    )
    return replace(suite, cases=cases), selection


def run_selection(path: str | Path) -> Selection | None:
    """The selection recorded beside a results.json (its run folder's summary.json);
    None for a full run, or when there is no summary to say."""
    p = Path(path)
    summary = (p if p.is_dir() else p.parent) / SUMMARY
    import json

    try:
        raw = json.loads(summary.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = raw.get("selection") if isinstance(raw, dict) else None
    return Selection.from_dict(found) if isinstance(found, dict) else None


def partial_note(label: str, selection: Selection | None) -> str:
    if selection is None or not selection.partial:
        return f"{label} is a full run"
    return f"{label} is a partial run: {selection.describe()}"


def restrict(
    base: Selection | None, head: Selection | None
) -> tuple[frozenset[str] | None, list[str]]:
    """The case ids a comparison of two runs may look at (None: all), and the notes
    that flag it. Two full runs, or two runs of the same selection, are left alone."""
    parts = [s for s in (base, head) if s is not None and s.partial]
    if not parts or (base == head):
        return None, []
    ids = frozenset.intersection(*(frozenset(s.selected) for s in parts))
    notes = [
        partial_note("base", base),
        partial_note("head", head),
        f"compared on the {len(ids)} case(s) both runs ran; the others are neither removed nor new",
    ]
    return ids, notes
