"""Lint gold suites against their repository, and move them to a new revision.

Both jobs read codegold's own index of each revision (chunks with their symbols,
roles and spans; the inventory of every path) and file text from git, through the
callables the caller passes; nothing here opens a repository or builds an index.

* :func:`lint_suites` checks every label at the revision its case pins: files and
  symbols exist, roles and lines agree with the index, forbidden prefixes name real
  paths, and the suite-wide hygiene rules (unique ids, no duplicated query, a
  production cutoff, a rationale). Each :class:`Finding` names the suite, the case,
  the field (``groups[1].anyOf[0].symbol``) and, when it can, the line.
* :func:`plan_migration` decides, for every target of a suite, whether it still holds
  at another revision and, when it went stale, where it lives now (a git rename, the
  same symbol in another file, a unique definition with the same last name).
  :func:`render_proposal` writes the re-pinned suite as YAML, the old labels kept in
  ``# was:`` comments; cases that cannot move keep their old revision, flagged.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import msgspec
import yaml

from codegold.cases.match import symbol_matches
from codegold.cases.model import Case, Lines, Repository, SuiteFile, Target
from codegold.cases.suite import ResolvedCase, Suite, _parse_document
from codegold.corpus.model import FileRole, FileStatus
from codegold.diagnose.targets import TargetFacts, target_facts
from codegold.errors import InputError
from codegold.index.store import IndexedChunk, LoadedIndex

__all__ = [
    "LARGE_CUTOFF",
    "CaseMove",
    "Check",
    "Finding",
    "LintReport",
    "Migration",
    "ReadText",
    "Renames",
    "Severity",
    "TargetMove",
    "Verdict",
    "lint_suites",
    "plan_migration",
    "proposal_path",
    "read_suite_file",
    "render_proposal",
]

LARGE_CUTOFF = 20
"""A cutoff above this is reported: the answer stage rarely receives more."""

ReadText = Callable[[str, str], str | None]
"""``(revision, path) -> text`` of a file at a revision, or None when there is none."""

Renames = Callable[[str, str], Mapping[str, str]]
"""``(old revision, new revision) -> {old path: new path}`` (``GitRepo.renames``)."""

_INDEXED = (FileStatus.INDEXED, FileStatus.UNPARSABLE)
_UNCHECKABLE = (FileStatus.LFS_POINTER, FileStatus.UNREADABLE)
# File roles that give every chunk of the file their own role (chunking.role_for_file).
_ROLE_BY_PATH = (
    FileRole.TEST,
    FileRole.DOCS,
    FileRole.CONFIGURATION,
    FileRole.GENERATED,
    FileRole.MIGRATION,
)
_MAX_TEXT_READS = 50  # files read for the text fallback of one glob target
_SPAN_GAP = 3  # blank lines between the pieces of one long definition belong to no chunk

Part = str | int


class Severity(StrEnum):
    """How bad a finding is. Only errors fail ``codegold lint`` (exit 1)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Check(StrEnum):
    """What a finding is about: a stable name for filters and JSON consumers."""

    MISSING_FILE = "missing_file"
    NO_MATCHING_FILE = "no_matching_file"
    MISSING_SYMBOL = "missing_symbol"
    SYMBOL_NOT_CHUNKED = "symbol_not_chunked"
    EXCLUDED_BY_POLICY = "excluded_by_policy"
    LFS_POINTER = "lfs_pointer"
    UNREADABLE_FILE = "unreadable_file"
    ROLE_MISMATCH = "role_mismatch"
    LINES_MISMATCH = "lines_mismatch"
    FORBIDDEN_PREFIX_UNUSED = "forbidden_prefix_unused"
    TARGET_UNDER_FORBIDDEN = "target_under_forbidden"
    CONTEXT_MISSING = "context_missing"
    DUPLICATE_ID = "duplicate_id"
    DUPLICATE_QUERY = "duplicate_query"
    LARGE_CUTOFF = "large_cutoff"
    NO_RATIONALE = "no_rationale"
    FILE_LEVEL_TARGET = "file_level_target"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem with one field of one case (``case_id`` None: suite-level)."""

    severity: Severity
    check: Check
    suite: str
    case_id: str | None
    field: str | None
    message: str
    line: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "severity": str(self.severity),
            "check": str(self.check),
            "suite": self.suite,
            "line": self.line,
            "caseId": self.case_id,
            "field": self.field,
            "message": self.message,
        }

    def location(self) -> str:
        return f"{self.suite}:{self.line}" if self.line else self.suite


@dataclass(frozen=True)
class LintReport:
    """Every finding, in suite order, then case order, then field order."""

    findings: tuple[Finding, ...]

    def count(self, severity: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is severity)

    @property
    def exit_code(self) -> int:
        """1 when any finding is an error, else 0."""
        return 1 if self.count(Severity.ERROR) else 0

    def as_json(self) -> dict[str, Any]:
        return {
            "counts": {str(s): self.count(s) for s in Severity},
            "findings": [f.as_json() for f in self.findings],
        }


# -- the suite document -------------------------------------------------------------


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


# -- one revision, as the index sees it -----------------------------------------------


@dataclass(frozen=True, slots=True)
class _Span:
    file: str
    start: int
    end: int
    symbol: str  # the name the index gives the definition
    primary: bool  # the chunk's own symbol (False: a member listed in ``symbols``)
    container: str | None = None  # a member's chunk symbol (its class, impl, ...)


@dataclass(frozen=True, slots=True)
class _Candidate:
    """Where a symbol is defined at a revision (one per file and qualified name)."""

    file: str
    symbol: str
    span: _Span
    roles: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.file}#{self.symbol} ({self.span.start}-{self.span.end})"


class _Revision:
    """Facts about one revision: its index, its paths, and file text on demand."""

    def __init__(self, index: LoadedIndex, revision: str, read_text: ReadText) -> None:
        self.index = index
        self.revision = revision
        self.short = revision[:12]
        self._read_text = read_text
        self.paths = sorted(index.inventory_by_path)
        self._texts: dict[str, str | None] = {}
        self._facts: dict[Target, TargetFacts] = {}

    def text(self, path: str) -> str | None:
        if path not in self._texts:
            self._texts[path] = self._read_text(self.revision, path)
        return self._texts[path]

    def has_prefix(self, prefix: str) -> bool:
        i = bisect.bisect_left(self.paths, prefix)
        return i < len(self.paths) and self.paths[i].startswith(prefix)

    def facts(self, target: Target) -> TargetFacts:
        """:func:`target_facts`, reading file text only when no chunk names the symbol."""
        cached = self._facts.get(target)
        if cached is not None:
            return cached
        facts = target_facts(self.index, target, {})
        if target.symbol is not None and facts.files and facts.symbol_found is False:
            texts: dict[str, str] = {}
            for path in facts.files[:_MAX_TEXT_READS]:
                text = self.text(path)
                if text is not None:
                    texts[path] = text
            facts = target_facts(self.index, target, texts)
        self._facts[target] = facts
        return facts

    def chunks(self, files: Sequence[str]) -> list[IndexedChunk]:
        rows = self.index.rows_by_file
        return [self.index.chunks[r] for f in files for r in rows.get(f, ())]

    def spans(self, files: Sequence[str], symbol: str) -> list[_Span]:
        """Where ``symbol`` is defined in ``files``: definitions first, then members.

        The pieces of one long definition (consecutive chunks with the same symbol)
        make one span.
        """
        primary: list[_Span] = []
        members: list[_Span] = []
        for path in files:
            chunks = sorted(self.chunks([path]), key=lambda c: (c.start_line, c.end_line))
            for c in chunks:
                if c.symbol is not None and symbol_matches(symbol, c.symbol, None):
                    last = primary[-1] if primary else None
                    if (
                        last is not None
                        and last.file == path
                        and last.symbol == c.symbol
                        and c.start_line <= last.end + _SPAN_GAP
                    ):
                        primary[-1] = _Span(
                            path, last.start, max(last.end, c.end_line), c.symbol, True
                        )
                    else:
                        primary.append(_Span(path, c.start_line, c.end_line, c.symbol, True))
                elif symbol_matches(symbol, None, c.symbols):
                    name = next(n for n in c.symbols if n == symbol or n.endswith("." + symbol))
                    members.append(_Span(path, c.start_line, c.end_line, name, False, c.symbol))
        return primary + members

    def definitions(self, symbol: str, *, exact: bool) -> list[_Candidate]:
        """Every (file, name) defining ``symbol`` (``exact``) or its last name component."""
        last = symbol.rsplit(".", 1)[-1]
        found: dict[tuple[str, str], list[IndexedChunk]] = {}
        for c in self.index.chunks:
            names = c.symbols or ((c.symbol,) if c.symbol else ())
            for n in names:
                hit = n == symbol if exact else (n == last or n.endswith("." + last))
                if hit:
                    found.setdefault((c.file, n), []).append(c)
        out: list[_Candidate] = []
        for (path, name), chunks in sorted(found.items()):
            spans = [s for s in self.spans([path], name) if s.symbol == name]
            span = (
                spans[0]
                if spans
                else _Span(path, chunks[0].start_line, chunks[0].end_line, name, False)
            )
            roles = tuple(sorted({c.role for c in chunks}))
            out.append(_Candidate(path, name, span, roles))
        return out


def _lines_agree(lines: Lines, spans: Sequence[_Span]) -> bool:
    """A labelled span agrees when it lies inside a definition and ends where it ends.

    The start may differ: a chunk carries the comments and decorators above a
    definition, a label may not. A member inside a container (``Client.send`` in the
    ``Client`` chunk) can only be checked for containment.
    """
    for s in spans:
        inside = s.start <= lines.start and lines.end <= s.end
        if inside and (not s.primary or lines.end == s.end):
            return True
    return False


def _similar_paths(rev: _Revision, path: str) -> list[str]:
    name = path.rsplit("/", 1)[-1]
    return [p for p in rev.paths if p.rsplit("/", 1)[-1] == name][:3]


def _literal_prefix(pattern: str) -> str:
    m = re.search(r"[*?\[]", pattern)
    return pattern if m is None else pattern[: m.start()]


def _under(path: str, prefixes: Sequence[str]) -> str | None:
    return next((p for p in prefixes if path.startswith(p)), None)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# -- lint -------------------------------------------------------------------------------


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
    if not (raw.rationale and raw.rationale.strip()):
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
    t = slot.target
    facts = rev.facts(t)
    if not facts.files:
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
        return
    place = t.file or f"any file matching {t.file_pattern!r}"
    if all(e.status in _UNCHECKABLE for e in facts.inventory):
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
        return
    if t.symbol is not None and facts.symbol_found is False:
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
        return
    indexed = [e for e in facts.inventory if e.status in _INDEXED]
    if not indexed:
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
        return
    files = [e.path for e in indexed]
    chunks = rev.chunks(files)
    if t.symbol is not None:
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
            return
    else:
        named = chunks
    if t.roles and named and not any(c.role in t.roles for c in named):
        _role_finding(out, where, rev, slot, named)
    if t.lines is not None:
        _lines_finding(out, where, rev, slot, files)


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
    if not spans or _lines_agree(t.lines, spans):
        return
    s = spans[0]
    inside = "" if s.primary else f" (the span of its chunk, {s.container or 'a container'})"
    out.add(
        Severity.WARNING,
        Check.LINES_MISMATCH,
        where,
        [*slot.parts, "lines"],
        f"labelled lines {label}, but {t.symbol} is at {s.start}-{s.end} in {s.file} at "
        f"{rev.short}{inside}",
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


# -- migration --------------------------------------------------------------------------


class Verdict(StrEnum):
    """What became of a target at the new revision."""

    HOLDS = "holds"  # same file, same symbol, same span
    LINES = "lines moved"  # same file and symbol, another span
    RENAMED = "renamed"  # git renamed the file; the symbol is in the new file
    MOVED = "moved symbol"  # the symbol is defined in exactly one other place
    AMBIGUOUS = "ambiguous"  # several places define it
    GONE = "gone"  # nowhere to be found


_RESOLVED = (Verdict.HOLDS, Verdict.LINES, Verdict.RENAMED, Verdict.MOVED)


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
        targets = tuple(
            _move_target(case.id, slot, new, moved, case.forbidden_path_prefixes)
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
            if spans and not _lines_agree(t.lines, spans):
                s = spans[0]
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
                _with_span(target, spans[0] if spans else None),
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
        return move(Verdict.GONE, None, f"nothing named {last!r} is defined at {new.short}")
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


# -- the proposed suite -----------------------------------------------------------------


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


def _plain(value: Any) -> Any:
    """JSON-shaped builtins (lists, not tuples), as a file would hold them."""
    return msgspec.json.decode(msgspec.json.encode(value))


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
    doc = _document_order(_plain(proposed))
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
