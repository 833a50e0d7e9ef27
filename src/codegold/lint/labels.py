"""Lint: every label checked at the revision its case pins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import msgspec

from codegold.cases.match import symbol_matches
from codegold.cases.model import Case, SuiteFile
from codegold.cases.suite import ResolvedCase, Suite, has_rationale
from codegold.corpus.model import FileStatus
from codegold.diagnose.targets import TargetFacts
from codegold.errors import InputError
from codegold.index.store import IndexedChunk, LoadedIndex
from codegold.lint.document import _Document, _render, _Slot, _slots
from codegold.lint.model import (
    _INDEXED,
    _ROLE_BY_PATH,
    _UNCHECKABLE,
    LARGE_CUTOFF,
    Check,
    Finding,
    LintReport,
    Part,
    ReadText,
    Severity,
)
from codegold.lint.revision import (
    _lines_agree,
    _literal_prefix,
    _plural,
    _Revision,
    _similar_paths,
    _under,
    describe_spans,
    nearest_span,
)


class _Collector:
    def __init__(self, suite: Suite, doc: _Document) -> None:
        self.suite = suite.path
        self.doc = doc
        self.findings: list[Finding] = []

    def add(
        self,
        severity: Severity,
        check: Check,
        case: tuple[str, int] | None,
        parts: Sequence[Part],
        message: str,
    ) -> None:
        """``case``: (id, index in the file) or None for a suite-level field."""
        if case is None:
            doc_parts: list[Part] = list(parts)
            case_id = None
        else:
            doc_parts = ["cases", case[1], *parts]
            case_id = case[0]
        self.findings.append(
            Finding(
                severity=severity,
                check=check,
                suite=self.suite,
                case_id=case_id,
                field=_render(parts) or None,
                message=message,
                line=self.doc.line(doc_parts),
            )
        )


def _revision_view(
    views: dict[str, _Revision],
    indexes: Mapping[str, LoadedIndex],
    revision: str,
    read_text: ReadText,
) -> _Revision:
    view = views.get(revision)
    if view is None:
        index = indexes.get(revision)
        if index is None:
            raise InputError(f"no codegold index for revision {revision}")
        view = views[revision] = _Revision(index, revision, read_text)
    return view


def lint_suites(
    suites: Sequence[Suite],
    indexes: Mapping[str, LoadedIndex],
    read_text: ReadText,
) -> LintReport:
    """Check every suite against the index of each revision its cases pin.

    ``indexes`` maps each full revision SHA to codegold's index of it; ``read_text``
    reads a file at a revision (for the text fallback when no chunk names a
    symbol). Ids and queries are compared across all ``suites``.
    """
    views: dict[str, _Revision] = {}
    seen_ids: dict[str, str] = {}
    seen_queries: dict[tuple[str, str, str], tuple[str, str]] = {}
    findings: list[Finding] = []
    for suite in suites:
        doc = _Document(suite)
        out = _Collector(suite, doc)
        _lint_defaults(out, suite, doc.file, views, indexes, read_text)
        for n, case in enumerate(suite.cases):
            where = (case.id, n)
            raw = case.source
            rev = _revision_view(views, indexes, case.revision, read_text)
            _lint_identity(out, where, case, suite.path, seen_ids, seen_queries)
            slots = _slots(raw)
            for slot in slots:
                _lint_target(out, where, rev, slot)
            _lint_forbidden(out, where, rev, raw, slots, case.forbidden_path_prefixes)
            _lint_context(out, where, rev, raw)
            _lint_hygiene(out, where, raw, slots)
        findings.extend(out.findings)
    return LintReport(tuple(findings))


def _lint_identity(
    out: _Collector,
    where: tuple[str, int],
    case: ResolvedCase,
    suite_path: str,
    seen_ids: dict[str, str],
    seen_queries: dict[tuple[str, str, str], tuple[str, str]],
) -> None:
    """Unique ids, and no query asked twice with the same context at the same revision."""
    if case.id in seen_ids:
        out.add(
            Severity.ERROR,
            Check.DUPLICATE_ID,
            where,
            ["id"],
            f"id {case.id!r} is also used in {seen_ids[case.id]}",
        )
    else:
        seen_ids[case.id] = suite_path
    key = (
        " ".join(case.query.casefold().split()),
        msgspec.json.encode(case.context, order="sorted").decode(),
        case.revision,
    )
    if key in seen_queries:
        other_id, other_suite = seen_queries[key]
        where_other = "" if other_suite == suite_path else f" (in {other_suite})"
        out.add(
            Severity.WARNING,
            Check.DUPLICATE_QUERY,
            where,
            ["query"],
            f"cases {other_id!r}{where_other} and {case.id!r} ask the same query with "
            "the same context at the same revision",
        )
    else:
        seen_queries[key] = (case.id, suite_path)


def _lint_hygiene(out: _Collector, where: tuple[str, int], raw: Case, slots: list[_Slot]) -> None:
    """A production cutoff, a rationale, and a note on file-level gold."""
    if raw.cutoff is not None and raw.cutoff > LARGE_CUTOFF:
        out.add(
            Severity.WARNING,
            Check.LARGE_CUTOFF,
            where,
            ["cutoff"],
            f"cutoff {raw.cutoff} is above {LARGE_CUTOFF}: use the cutoff the answer "
            "stage really receives, never a convenient larger number",
        )
    if raw.status == "draft":
        out.add(
            Severity.WARNING,
            Check.DRAFT,
            where,
            ["status"],
            f"draft{f' ({raw.origin})' if raw.origin else ''}: run and gate skip it until "
            "a person checks its targets, writes a rationale and removes 'status: draft'",
        )
    if not has_rationale(raw.rationale):
        out.add(
            Severity.WARNING,
            Check.NO_RATIONALE,
            where,
            ["rationale"],
            "no rationale: say why these targets are acceptable, for whoever "
            "maintains the label after the code moves",
        )
    for slot in slots:
        t = slot.target
        if slot.required and t.symbol is None and not t.roles:
            out.add(
                Severity.INFO,
                Check.FILE_LEVEL_TARGET,
                where,
                slot.parts,
                f"{t.describe()} is file-level gold (no symbol, no roles): any chunk "
                "of the file satisfies it; allowed, but weak",
            )


def _lint_defaults(
    out: _Collector,
    suite: Suite,
    file: SuiteFile,
    views: dict[str, _Revision],
    indexes: Mapping[str, LoadedIndex],
    read_text: ReadText,
) -> None:
    defaults = file.defaults
    if defaults is None:
        return
    if defaults.cutoff is not None and defaults.cutoff > LARGE_CUTOFF:
        out.add(
            Severity.WARNING,
            Check.LARGE_CUTOFF,
            None,
            ["defaults", "cutoff"],
            f"default cutoff {defaults.cutoff} is above {LARGE_CUTOFF}: use the cutoff the "
            "answer stage really receives, never a convenient larger number",
        )
    inherited = [c for c in suite.cases if c.source.forbidden_path_prefixes is None]
    revisions = sorted({c.revision for c in inherited})
    for i, prefix in enumerate(defaults.forbidden_path_prefixes or ()):
        absent = [
            r
            for r in revisions
            if not _revision_view(views, indexes, r, read_text).has_prefix(prefix)
        ]
        if absent:
            at = ", ".join(r[:12] for r in absent)
            out.add(
                Severity.WARNING,
                Check.FORBIDDEN_PREFIX_UNUSED,
                None,
                ["defaults", "forbiddenPathPrefixes", i],
                f"forbidden prefix {prefix!r} matches no path at {at}: a typo, or stale",
            )


def _lint_target(out: _Collector, where: tuple[str, int], rev: _Revision, slot: _Slot) -> None:
    """The target's checks in order, each stopping the walk when what follows can't be checked."""
    t = slot.target
    facts = rev.facts(t)
    if not facts.files:
        _missing_file_finding(out, where, rev, slot)
        return
    place = t.file or f"any file matching {t.file_pattern!r}"
    if _unreadable_finding(out, where, rev, slot, facts):
        return
    if _missing_symbol_finding(out, where, rev, slot, facts, place):
        return
    indexed = [e for e in facts.inventory if e.status in _INDEXED]
    if not indexed:
        _excluded_finding(out, where, rev, slot, facts)
        return
    files = [e.path for e in indexed]
    named = _named_chunks(out, where, rev, slot, files, place)
    if named is None:
        return
    if t.roles and named and not any(c.role in t.roles for c in named):
        _role_finding(out, where, rev, slot, named)
    if t.lines is not None:
        _lines_finding(out, where, rev, slot, files)


def _missing_file_finding(
    out: _Collector, where: tuple[str, int], rev: _Revision, slot: _Slot
) -> None:
    t = slot.target
    if t.file is not None:
        similar = _similar_paths(rev, t.file)
        hint = f" (same name: {', '.join(similar)})" if similar else ""
        out.add(
            Severity.ERROR,
            Check.MISSING_FILE,
            where,
            [*slot.parts, "file"],
            f"{t.file} does not exist at {rev.short}{hint}",
        )
    else:
        out.add(
            Severity.ERROR,
            Check.NO_MATCHING_FILE,
            where,
            [*slot.parts, "filePattern"],
            f"no file at {rev.short} matches {t.file_pattern!r}",
        )


def _unreadable_finding(
    out: _Collector, where: tuple[str, int], rev: _Revision, slot: _Slot, facts: TargetFacts
) -> bool:
    """Every matching file is an LFS pointer or a missing blob: warn, and stop."""
    if not all(e.status in _UNCHECKABLE for e in facts.inventory):
        return False
    t = slot.target
    e = facts.inventory[0]
    lfs = e.status is FileStatus.LFS_POINTER
    out.add(
        Severity.WARNING,
        Check.LFS_POINTER if lfs else Check.UNREADABLE_FILE,
        where,
        [*slot.parts, "file" if t.file else "filePattern"],
        f"{e.path} is a Git LFS pointer at {rev.short}: its content is stored outside "
        "git, so codegold neither indexes it nor checks symbol, roles or lines"
        if lfs
        else f"{e.path} is listed at {rev.short} but its blob is missing from the "
        "repository's object database (a partial clone or a damaged copy): it is not "
        "indexed, and symbol, roles and lines are not checked",
    )
    return True


def _missing_symbol_finding(
    out: _Collector,
    where: tuple[str, int],
    rev: _Revision,
    slot: _Slot,
    facts: TargetFacts,
    place: str,
) -> bool:
    """The symbol is not defined in the target's files: report where it is, and stop."""
    t = slot.target
    if t.symbol is None or facts.symbol_found is not False:
        return False
    elsewhere = [c for c in rev.definitions(t.symbol, exact=True) if c.file not in facts.files]
    hint = ""
    if elsewhere:
        shown = ", ".join(c.file for c in elsewhere[:3])
        more = f" and {len(elsewhere) - 3} more" if len(elsewhere) > 3 else ""
        hint = f"; it is defined in {shown}{more}"
    out.add(
        Severity.ERROR,
        Check.MISSING_SYMBOL,
        where,
        [*slot.parts, "symbol"],
        f"{t.symbol} is not defined in {place} at {rev.short}{hint}",
    )
    return True


def _excluded_finding(
    out: _Collector, where: tuple[str, int], rev: _Revision, slot: _Slot, facts: TargetFacts
) -> None:
    t = slot.target
    e = facts.inventory[0]
    rule = f", rule {e.rule}" if e.rule else ""
    out.add(
        Severity.WARNING,
        Check.EXCLUDED_BY_POLICY,
        where,
        [*slot.parts, "file" if t.file else "filePattern"],
        f"{e.path} exists at {rev.short} but codegold's path policy leaves it out of the "
        f"index ({e.status}{rule}): the reference retriever never returns it; symbol, "
        "roles and lines are not checked",
    )


def _named_chunks(
    out: _Collector,
    where: tuple[str, int],
    rev: _Revision,
    slot: _Slot,
    files: Sequence[str],
    place: str,
) -> list[IndexedChunk] | None:
    """The indexed chunks the target names; None (after an info finding) when no chunk does."""
    t = slot.target
    chunks = rev.chunks(files)
    if t.symbol is None:
        return chunks
    named = [c for c in chunks if symbol_matches(t.symbol, c.symbol, c.symbols)]
    if not named:
        out.add(
            Severity.INFO,
            Check.SYMBOL_NOT_CHUNKED,
            where,
            [*slot.parts, "symbol"],
            f"{t.symbol} looks defined in {place} (by its text) but no chunk of codegold's "
            f"index at {rev.short} carries it: roles and lines are not checked",
        )
        return None
    return named


def _role_finding(
    out: _Collector,
    where: tuple[str, int],
    rev: _Revision,
    slot: _Slot,
    named: Sequence[IndexedChunk],
) -> None:
    t = slot.target
    assert t.roles is not None
    found = sorted({c.role for c in named})
    files = sorted({c.file for c in named})
    what = f"{t.symbol} in {', '.join(files)}" if t.symbol else ", ".join(files)
    why = ""
    by_path = [
        rev.index.inventory_by_path[f]
        for f in files
        if rev.index.inventory_by_path[f].role in _ROLE_BY_PATH
    ]
    if by_path:
        e = by_path[0]
        rule = f" (rule {e.rule})" if e.rule else ""
        why = (
            f": the path policy classifies {e.path} as {e.role}{rule}, "
            f"so all its chunks are {e.role}"
        )
    out.add(
        Severity.WARNING,
        Check.ROLE_MISMATCH,
        where,
        [*slot.parts, "roles"],
        f"labelled {', '.join(t.roles)}, but codegold's index gives {what} only "
        f"{', '.join(found)} at {rev.short}{why}",
    )


def _lines_finding(
    out: _Collector, where: tuple[str, int], rev: _Revision, slot: _Slot, files: Sequence[str]
) -> None:
    t = slot.target
    assert t.lines is not None
    label = f"{t.lines.start}-{t.lines.end}"
    if t.symbol is None:
        lengths = [(f, (rev.text(f) or "").count("\n") + 1) for f in files[:1]]
        for f, n in lengths:
            if t.lines.end > n:
                out.add(
                    Severity.WARNING,
                    Check.LINES_MISMATCH,
                    where,
                    [*slot.parts, "lines"],
                    f"labelled lines {label}, but {f} has {n} lines at {rev.short}",
                )
        return
    spans = rev.spans(files, t.symbol)
    if not spans or _lines_agree(t.lines, spans, rev.text):
        return
    s = nearest_span(spans, t.lines, t.roles)
    inside = "" if s.primary else f" (the span of its chunk, {s.container or 'a container'})"
    out.add(
        Severity.WARNING,
        Check.LINES_MISMATCH,
        where,
        [*slot.parts, "lines"],
        f"labelled lines {label}, but {t.symbol} is at {s.start}-{s.end} in {s.file} at "
        f"{rev.short}{inside}{describe_spans(s, spans)}",
    )


def _lint_forbidden(
    out: _Collector,
    where: tuple[str, int],
    rev: _Revision,
    raw: Case,
    slots: Sequence[_Slot],
    prefixes: Sequence[str],
) -> None:
    own = raw.forbidden_path_prefixes is not None
    if own:  # inherited defaults are checked once, at the suite level
        for i, prefix in enumerate(prefixes):
            if not rev.has_prefix(prefix):
                out.add(
                    Severity.WARNING,
                    Check.FORBIDDEN_PREFIX_UNUSED,
                    where,
                    ["forbiddenPathPrefixes", i],
                    f"forbidden prefix {prefix!r} matches no path at {rev.short}: a typo, or stale",
                )
    if not prefixes:
        return
    for slot in slots:
        t = slot.target
        kind = "required" if slot.required else "supporting"
        if t.file is not None:
            trap = _under(t.file, prefixes)
            if trap is not None and not slot.required:  # the loader rejects required ones
                out.add(
                    Severity.WARNING,
                    Check.TARGET_UNDER_FORBIDDEN,
                    where,
                    [*slot.parts, "file"],
                    f"supporting target {t.file} lies under forbidden prefix {trap!r}",
                )
            continue
        assert t.file_pattern is not None
        matched = rev.facts(t).files
        under = [f for f in matched if _under(f, prefixes)]
        trap = _under(_literal_prefix(t.file_pattern), prefixes)
        if trap is not None or (matched and len(under) == len(matched)):
            trap = trap or _under(under[0], prefixes)
            out.add(
                Severity.ERROR if slot.required else Severity.WARNING,
                Check.TARGET_UNDER_FORBIDDEN,
                where,
                [*slot.parts, "filePattern"],
                f"{kind} pattern {t.file_pattern!r} lies under forbidden prefix {trap!r}: a "
                "forbidden chunk satisfies nothing, so this target never can",
            )
        elif under:
            out.add(
                Severity.WARNING,
                Check.TARGET_UNDER_FORBIDDEN,
                where,
                [*slot.parts, "filePattern"],
                f"{kind} pattern {t.file_pattern!r} also matches "
                f"{_plural(len(under), 'file')} under forbidden prefixes ({', '.join(under[:3])})"
                ": those can never satisfy it",
            )


def _lint_context(out: _Collector, where: tuple[str, int], rev: _Revision, raw: Case) -> None:
    ctx = raw.context
    if ctx is None:
        return
    if ctx.open_file and ctx.open_file not in rev.index.inventory_by_path:
        out.add(
            Severity.WARNING,
            Check.CONTEXT_MISSING,
            where,
            ["context", "openFile"],
            f"open file {ctx.open_file} does not exist at {rev.short}",
        )
    if ctx.path_prefix and not rev.has_prefix(ctx.path_prefix):
        out.add(
            Severity.WARNING,
            Check.CONTEXT_MISSING,
            where,
            ["context", "pathPrefix"],
            f"path prefix {ctx.path_prefix!r} matches no path at {rev.short}",
        )
