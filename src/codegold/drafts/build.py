"""Drafting gold cases from traces: pin, resolve, redact, merge, mark ``status: draft``.

Each traced question becomes a case at a revision (the record's own, else the one
asked for, else HEAD). What it points at is resolved against codegold's reference
parse of that revision: a line becomes the innermost definition chunk covering it
(its symbol and role), a symbol the definition of that name, a file with no line a
file-level target. Identical questions at one revision merge into one case, their
targets ranked by how often the traces pointed at them. Queries lose secrets, e-mail
addresses and the user names of home folders (:func:`codegold.redact.redact_personal`).
Nothing a draft says is trusted: every case is ``status: draft`` with a ``TODO:``
rationale, skipped by `run` and `gate` until a person reviews it.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from codegold._io import write_text_atomic
from codegold.cases.match import symbol_matches
from codegold.cases.suite import RATIONALE_PLACEHOLDER, load_suite
from codegold.chunking import Chunk, chunk_file
from codegold.chunking.config import role_for_file
from codegold.corpus.git import GitRepo
from codegold.corpus.model import FileRole
from codegold.corpus.policy import PathPolicy, load_policy
from codegold.drafts.evidence import Evidence, Opened, ReadStats, read_evidence
from codegold.errors import InputError
from codegold.redact import PersonalRedaction, redact_personal
from codegold.resolve import FINE_PARSE, normalise_path
from codegold.roles import Role

MAX_TARGETS = 5
"""Targets kept per drafted case, the most pointed-at first."""


@dataclass(frozen=True, slots=True)
class ProposedTarget:
    file: str
    symbol: str | None
    roles: tuple[str, ...] | None

    def to_yaml(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file}
        if self.symbol:
            out["symbol"] = self.symbol
        if self.roles:
            out["roles"] = list(self.roles)
        return out


@dataclass
class _Parsed:
    lines: int
    definitions: tuple[Chunk, ...]  # chunks that name a symbol and are not call sites
    file_role: FileRole


class ReferenceParse:
    """Files of a repository parsed by codegold's reference chunker, per revision."""

    def __init__(self, git: GitRepo, *, policy_path: Path | None = None) -> None:
        self.git = git
        self.policy_path = policy_path
        self._policies: dict[str, PathPolicy] = {}
        self._files: dict[tuple[str, str], _Parsed | None] = {}
        self._listing: dict[str, frozenset[str]] = {}

    def paths(self, revision: str) -> frozenset[str]:
        if revision not in self._listing:
            self._listing[revision] = frozenset(e.path for e in self.git.list_files(revision))
        return self._listing[revision]

    def locate(self, revision: str, raw: str) -> str | None:
        """The repository path ``raw`` names at ``revision`` (``./`` and ``\\`` dropped;
        an absolute path from someone's machine by its longest tail that exists)."""
        path = normalise_path(raw.strip())
        known = self.paths(revision)
        if path in known:
            return path
        parts = [p for p in path.split("/") if p]
        for i in range(1, len(parts)):
            tail = "/".join(parts[i:])
            if tail in known:
                return tail
        return None

    def _policy(self, revision: str) -> PathPolicy:
        if revision not in self._policies:
            self._policies[revision] = load_policy(
                repo=self.git, revision=revision, config_path=self.policy_path
            )
        return self._policies[revision]

    def role(self, revision: str, path: str) -> FileRole:
        """What the path policy at ``revision`` says ``path`` is, by its path alone."""
        return self._policy(revision).classify(path).role

    def parse(self, revision: str, path: str) -> _Parsed | None:
        key = (revision, path)
        if key not in self._files:
            data = self.git.read_path(revision, path)
            if data is None:
                self._files[key] = None
            else:
                text = data.decode("utf-8", errors="replace")
                role = self._policy(revision).classify(path, data[:8192]).role
                chunks = chunk_file(path, text, file_role=role, config=FINE_PARSE).chunks
                n = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
                named = tuple(c for c in chunks if c.symbol and c.role is not Role.CALL_SITE)
                self._files[key] = _Parsed(n, named, role)
        return self._files[key]


def _file_level(path: str, parsed: _Parsed) -> ProposedTarget:
    role = role_for_file(parsed.file_role, Role.DEFINITION)
    # an ordinary source file says nothing about the role of the evidence in it
    return ProposedTarget(path, None, None if role is Role.DEFINITION else (role.value,))


def propose(parse: ReferenceParse, revision: str, opened: Opened) -> ProposedTarget | str:
    """The target ``opened`` points at, at ``revision``, or why there is none."""
    path = parse.locate(revision, opened.file)
    if path is None:
        return "file not at the revision"
    parsed = parse.parse(revision, path)
    if parsed is None:
        return "file not at the revision"
    definitions = parsed.definitions
    if opened.symbol:
        named = [c for c in definitions if symbol_matches(opened.symbol, c.symbol, c.symbols)]
        if not named:
            return _file_level(path, parsed)
        best = min(named, key=lambda c: (c.start_line, c.end_line))
        return ProposedTarget(path, best.symbol, (best.role.value,))
    if opened.line is None:
        return _file_level(path, parsed)
    start, end = opened.line, opened.end_line or opened.line
    if start > parsed.lines:
        return "line past the end of the file"
    covering = [c for c in definitions if c.start_line <= start and c.end_line >= min(end, start)]
    if not covering:
        return _file_level(path, parsed)
    inner = min(covering, key=lambda c: (c.end_line - c.start_line, -c.start_line))
    return ProposedTarget(path, inner.symbol, (inner.role.value,))


_IDENT = re.compile(r"^[A-Za-z_$][\w$]*(?:[.:#][A-Za-z_$][\w$]*)*(?:\(\))?$")
_TRACE = re.compile(
    r"(?:Traceback \(most recent call last\)|\bat \S+ \(|\w+(?:Error|Exception)\b:)"
)


def guess_query_class(query: str) -> str | None:
    """``exact_identifier`` for a bare name, ``stack_trace`` for pasted error output."""
    q = query.strip()
    if _IDENT.match(q):
        return "exact_identifier"
    if _TRACE.search(q):
        return "stack_trace"
    return None


def _slug(query: str) -> str:
    words = re.findall(r"[a-z0-9]+", query.lower())
    return "-".join(words[:5])[:40].strip("-") or "query"


@dataclass
class _Draft:
    query: str
    revision: str
    first_line: int
    lines: list[int] = field(default_factory=list)
    targets: Counter[ProposedTarget] = field(default_factory=Counter)
    order: dict[ProposedTarget, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        digest = hashlib.sha256(f"{self.revision}\0{self.query}".encode()).hexdigest()[:8]
        return f"draft-{_slug(self.query)}-{digest}"


@dataclass
class DraftReport:
    """What `codegold draft` did, for its summary lines."""

    fmt: str
    records: int = 0
    passing: int = 0
    cases: int = 0
    merged: int = 0
    targets: int = 0
    symbol_targets: int = 0
    skipped: Counter[str] = field(default_factory=Counter)
    redacted: PersonalRedaction = field(default_factory=PersonalRedaction)
    revisions: int = 0
    seconds: float = 0.0

    def lines(self, out: Path) -> list[str]:
        said = [
            f"drafted {self.cases} case(s) from {self.records} {self.fmt} record(s) "
            f"({self.merged} merged into an identical question) at {self.revisions} "
            f"revision(s), in {self.seconds:.2f} s",
            f"targets: {self.targets} ({self.symbol_targets} resolved to a symbol, "
            f"{self.targets - self.symbol_targets} file-level)",
        ]
        if self.passing:
            said.append(f"skipped {self.passing} answer(s) whose verdict says they passed")
        for reason, n in sorted(self.skipped.items()):
            said.append(f"skipped {n} pointer(s): {reason}")
        r = self.redacted
        said.append(
            f"redacted: {r.secrets} secret(s), {r.emails} e-mail address(es), "
            f"{r.user_paths} user name(s) in paths"
        )
        said.append(f"wrote {out}: every case is 'status: draft'; review before use")
        return said


def _pin(
    git: GitRepo, stated: str | None, default: str, cache: dict[str, str | None]
) -> str | None:
    if stated is None:
        return default
    if stated not in cache:
        try:
            cache[stated] = git.resolve(stated)
        except InputError:
            cache[stated] = None
    return cache[stated]


def collect(
    evidence: Iterable[Evidence], parse: ReferenceParse, default_revision: str, report: DraftReport
) -> list[_Draft]:
    """Merge evidence into drafts (one per question and revision), in first-seen order."""
    drafts: dict[tuple[str, str], _Draft] = {}
    pins: dict[str, str | None] = {}
    for item in evidence:
        revision = _pin(parse.git, item.revision, default_revision, pins)
        if revision is None:
            report.skipped["revision not in the repository"] += 1
            continue
        query, found = redact_personal(" ".join(item.query.split()))
        report.redacted += found
        if not query:
            report.skipped["empty query"] += 1
            continue
        key = (revision, query.casefold())
        draft = drafts.get(key)
        if draft is None:
            draft = drafts[key] = _Draft(query, revision, item.line)
        else:
            report.merged += 1
        draft.lines.append(item.line)
        if item.note and item.note not in draft.notes:
            draft.notes.append(redact_personal(item.note)[0])
        for opened in item.opened:
            proposed = propose(parse, revision, opened)
            if isinstance(proposed, str):
                report.skipped[proposed] += 1
                continue
            draft.targets[proposed] += 1
            draft.order.setdefault(proposed, len(draft.order))
    kept = [d for d in drafts.values() if d.targets]
    report.skipped["question with no resolvable pointer"] += len(drafts) - len(kept)
    if not report.skipped["question with no resolvable pointer"]:
        del report.skipped["question with no resolvable pointer"]
    return kept


def _case(draft: _Draft, fmt: str, pinned: str) -> dict[str, Any]:
    ranked = sorted(draft.targets, key=lambda t: (-draft.targets[t], draft.order[t]))
    targets = ranked[:MAX_TARGETS]
    more = len(draft.lines) - 1
    origin = f"{fmt} line {draft.first_line}" + (f" and {more} more" if more else "")
    if draft.notes:
        origin += f" ({'; '.join(draft.notes[:3])})"
    case: dict[str, Any] = {"id": draft.id, "query": draft.query}
    qclass = guess_query_class(draft.query)
    if qclass:
        case["queryClass"] = qclass
    if draft.revision != pinned:
        case["repositoryRevision"] = draft.revision
    case["status"] = "draft"
    case["origin"] = origin
    case["accepted"] = [t.to_yaml() for t in targets]
    why = {
        "search-log": "the engineer opened these after the search",
        "assistant-trace": "an answer given this context failed: keep only what answers "
        "the query, add what was missing",
        "review-comments": "a reviewer commented on this code",
    }[fmt]
    case["rationale"] = f"{RATIONALE_PLACEHOLDER} say why these targets answer the query ({why})"
    return case


def render_suite(
    drafts: list[_Draft], fmt: str, *, name: str, repository: str, source: str
) -> tuple[str, int]:
    """The draft suite as YAML (deterministic) and the number of revisions it pins."""
    revisions = Counter(d.revision for d in drafts)
    pinned = min(revisions, key=lambda r: (-revisions[r], r))
    doc: dict[str, Any] = {
        "suite": name,
        "repository": {"name": repository, "revision": pinned},
        "cases": [_case(d, fmt, pinned) for d in drafts],
    }
    header = (
        f"# Drafted by `codegold draft --from {fmt}` from {source}.\n"
        "# Every case is a proposal: check its targets, write its rationale, then remove\n"
        "# 'status: draft'. `codegold run` and `gate` skip drafts (--include-drafts).\n"
    )
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    body = yaml.dump(
        doc, Dumper=dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None
    )
    return header + body, len(revisions)


def draft_suite(
    fmt: str,
    trace: Path,
    repo: Path,
    out: Path,
    *,
    revision: str | None = None,
    name: str | None = None,
    policy_path: Path | None = None,
) -> DraftReport:
    """Read ``trace`` (format ``fmt``), draft cases against ``repo``, write ``out``."""
    t0 = time.perf_counter()
    report = DraftReport(fmt)
    stats = ReadStats()
    with GitRepo(repo) as git:
        default = git.resolve(revision or "HEAD")
        parse = ReferenceParse(git, policy_path=policy_path)
        drafts = collect(read_evidence(fmt, trace, stats), parse, default, report)
    report.records, report.passing = stats.records, stats.passing
    if not drafts:
        raise InputError(
            f"no case could be drafted from {stats.records} record(s): "
            + (", ".join(f"{n} {r}" for r, n in sorted(report.skipped.items())) or "none"),
            file=str(trace),
        )
    source, _ = redact_personal(trace.name)
    where = repo.resolve()
    repo_name = where.name.removesuffix(".git")
    if repo_name in ("repo", "") and where.parent.name:  # a mirror's <owner+name>/repo
        repo_name = where.parent.name.removesuffix(".git")
    text, report.revisions = render_suite(
        drafts, fmt, name=name or f"drafts-{_slug(trace.stem)}", repository=repo_name,
        source=source,
    )  # fmt: skip
    write_text_atomic(out, text)
    load_suite(out)  # what we wrote must load: a draft suite is a suite
    report.cases = len(drafts)
    report.targets = sum(min(len(d.targets), MAX_TARGETS) for d in drafts)
    report.symbol_targets = sum(
        1
        for d in drafts
        for t in sorted(d.targets, key=lambda t: (-d.targets[t], d.order[t]))[:MAX_TARGETS]
        if t.symbol
    )
    report.seconds = time.perf_counter() - t0
    return report
