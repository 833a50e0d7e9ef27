"""Loading gold suites: YAML, JSON or JSONL, whole or not at all.

A suite is bounded before anything is built from it: at most
:data:`MAX_SUITE_DEPTH` levels of nested mappings and lists, and at most
:data:`MAX_SUITE_NODES` values once every YAML alias is expanded (an alias counts
as a copy of what it names, as the loaded suite will hold it). A file past either
bound is refused with exit 2 before it is loaded, so a small "billion laughs" file
cannot exhaust memory or time, and a deeply nested one cannot crash the parser.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgspec

from codegold.cases.friendly import (
    did_you_mean,
    normalise_paths,
    struct_fields,
    vocabulary_warnings,
)
from codegold.cases.model import (
    ACCEPTED_GROUP_ID,
    Case,
    Context,
    Defaults,
    Group,
    Repository,
    SuiteFile,
    Target,
    Vocabulary,
)
from codegold.errors import InputError

DEFAULT_CUTOFF = 5
MAX_SUITE_DEPTH = 64
MAX_SUITE_NODES = 2_000_000


class ResolvedCase(msgspec.Struct, frozen=True):
    """A case with suite defaults applied: what the evaluator works on.

    A frozen struct, not a frozen dataclass: a suite makes one per case before eval
    forks, and a frozen dataclass sets each field through ``object.__setattr__``
    (some 18,000 instructions per case for its 14 fields; a struct, some 2,000).
    Made by :func:`load_suite` only (``required_targets`` follows from ``groups``)."""

    id: str
    query: str
    query_class: str | None
    revision: str
    cutoff: int
    context: Context | None
    groups: tuple[Group, ...]
    supporting: tuple[Target, ...]
    forbidden_path_prefixes: tuple[str, ...]
    rationale: str | None
    tags: tuple[str, ...]
    source: Case
    required_targets: tuple[Target, ...]
    """Every target of every required group, in order (made once: scoring reads it
    several times per attempt)."""
    status: str = "reviewed"

    @property
    def draft(self) -> bool:
        return self.status == "draft"


@dataclass(frozen=True, slots=True)
class Suite:
    """A loaded suite: its cases in file order, and the digest of the file's bytes."""

    path: str
    name: str | None
    repository_name: str | None
    revision: str | None
    digest: str
    cases: tuple[ResolvedCase, ...]
    warnings: tuple[str, ...] = ()
    """What the author should look at but that changes no verdict (cases.friendly)."""

    def by_id(self) -> dict[str, ResolvedCase]:
        return {c.id: c for c in self.cases}

    @property
    def drafts(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.cases if c.draft)

    @property
    def revisions(self) -> tuple[str, ...]:
        return tuple(sorted({c.revision for c in self.cases if c.revision}))


_PATH_PART = re.compile(r"\.([A-Za-z_$][\w$]*)|\[(\d+)\]")


def _split_path(path: str) -> list[str | int]:
    parts: list[str | int] = []
    for name, index in _PATH_PART.findall(path.removeprefix("$")):
        parts.append(int(index) if index else name)
    return parts


def _yaml_line(text: str, parts: Sequence[str | int]) -> int | None:
    """The 1-based line of the node at ``parts`` in a YAML/JSON document, if found."""
    import yaml

    try:
        node: Any = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None
    line: int | None = None
    for part in parts:
        if node is None:
            break
        line = node.start_mark.line + 1
        if isinstance(part, int) and isinstance(node, yaml.SequenceNode):
            node = node.value[part] if part < len(node.value) else None
        elif isinstance(part, str) and isinstance(node, yaml.MappingNode):
            found = None
            for key, value in node.value:
                if key.value == part:
                    found = value
                    line = key.start_mark.line + 1
                    break
            node = found
        else:
            break
    if node is not None:
        line = node.start_mark.line + 1
    return line


def _case_and_field(raw: Any, parts: Sequence[str | int]) -> tuple[str | None, str | None]:
    """Map a document path to (case id, field path inside the case)."""
    if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
        case_id = None
        cases = raw.get("cases") if isinstance(raw, dict) else None
        if isinstance(cases, list) and parts[1] < len(cases) and isinstance(cases[parts[1]], dict):
            cid = cases[parts[1]].get("id")
            case_id = str(cid) if cid is not None else f"#{parts[1] + 1}"
        else:
            case_id = f"#{parts[1] + 1}"
        field = _render_parts(parts[2:])
        return case_id, field or None
    return None, _render_parts(parts) or None


def _render_parts(parts: Sequence[str | int]) -> str:
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _friendly(message: str) -> str:
    message = message.replace(" | null", "")
    return message.replace(
        "Expected `str` matching regex '^[0-9a-f]{40}$'",
        "expected a full 40-hex commit SHA (lowercase)",
    )


def _unknown_field(message: str) -> str | None:
    m = re.search(r"unknown field `([^`]+)`", message)
    return m.group(1) if m else None


_STRUCT_AT: dict[str, type[msgspec.Struct]] = {
    "": SuiteFile,
    "cases": Case,
    "groups": Group,
    "anyOf": Target,
    "accepted": Target,
    "supporting": Target,
    "context": Context,
    "repository": Repository,
    "defaults": Defaults,
    "vocabulary": Vocabulary,
}


def _did_you_mean_field(parts: Sequence[str | int], unknown: str) -> str:
    """`` (did you mean 'queryClass'?)`` for an unknown field at ``parts``."""
    names = [p for p in parts if isinstance(p, str)]
    struct = _STRUCT_AT.get(names[-1] if names else "")
    if struct is None:
        return ""
    return did_you_mean(unknown, struct_fields(struct))


def _decode_text(path: Path, data: bytes) -> str:
    try:
        return data.decode("utf-8").removeprefix("\ufeff")  # editors on Windows add a BOM
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"not UTF-8 (byte {exc.start}: {data[exc.start : exc.start + 1]!r})",
            file=str(path),
            line=line,
        ) from None


def _check_yaml_bounds(path: Path, text: str) -> None:
    """Depth and alias-expanded size of a YAML document, from parser events only
    (no node is composed, so neither bound can be hit while checking it); and no plain
    scalar that YAML readers disagree about (:func:`_unportable`). A syntax error is
    reported with the case and field it broke (:func:`_yaml_syntax_error`)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    sizes: dict[str, int] = {}
    frames: list[tuple[str | None, int, bool]] = []  # (anchor, expanded count, flow)
    flow = 0  # open flow collections ({…}, […])
    total = 0
    try:
        for event in yaml.parse(text, Loader=loader):
            if isinstance(event, yaml.ScalarEvent):
                total += 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
                if flow and not event.style and "?" in event.value:  # plain: None or ""
                    raise _unportable(path, text, event)
            elif isinstance(event, yaml.AliasEvent):
                total += sizes.get(str(event.anchor), 1)
            elif isinstance(event, yaml.CollectionStartEvent):
                total += 1
                frames.append((event.anchor, total - 1, bool(event.flow_style)))
                flow += bool(event.flow_style)
                if len(frames) > MAX_SUITE_DEPTH:
                    line = event.start_mark.line + 1 if event.start_mark else None
                    raise InputError(
                        f"nested deeper than {MAX_SUITE_DEPTH} levels "
                        "(a suite needs a handful; the file is not a suite)",
                        file=str(path),
                        line=line,
                    )
            elif isinstance(event, yaml.CollectionEndEvent) and frames:
                anchor, start, was_flow = frames.pop()
                flow -= was_flow
                if anchor is not None:
                    sizes[anchor] = total - start
            else:
                continue
            if total > MAX_SUITE_NODES:
                mark = event.start_mark
                raise InputError(
                    f"more than {MAX_SUITE_NODES:,} values once YAML aliases are expanded "
                    "(alias expansion is bounded; write the cases out, or split the suite)",
                    file=str(path),
                    line=mark.line + 1 if mark else None,
                )
    except yaml.YAMLError as exc:
        raise _yaml_syntax_error(path, text, exc) from None


class _EventPath:
    """The document path of each node a YAML parser reports, and the ids of the cases
    seen so far: enough to name the case and field of a problem found mid-parse."""

    def __init__(self) -> None:
        # one frame per open collection: [is mapping, key or index, expecting a key, flow]
        self.frames: list[list[Any]] = []
        self.ids: dict[int, str] = {}
        self.parts: list[str | int] = []  # the path of the last node reported

    def node(self, value: str | None) -> None:
        """A scalar (``value``), alias or collection starts; a collection is then open."""
        frames = self.frames
        if frames:
            top = frames[-1]
            if not top[0]:
                top[1] += 1
            elif top[2]:  # a key: it names the value that follows
                self.parts = [*self._path(frames[:-1]), str(value)]
                return
        self.parts = self._path(frames)
        if value is not None and len(self.parts) == 3 and self.parts[2] == "id":
            case = self.parts[1]
            if isinstance(case, int):
                self.ids.setdefault(case, value)

    def after(self, value: str | None) -> None:
        """A node (scalar, alias, or a collection now closed) is done."""
        if self.frames and self.frames[-1][0]:
            top = self.frames[-1]
            if top[2]:
                top[1] = value
            top[2] = not top[2]

    def _path(self, frames: Sequence[list[Any]]) -> list[str | int]:
        parts: list[str | int] = [f[1] for f in frames]
        if parts and isinstance(parts[0], int):  # a bare list of cases
            parts = ["cases", *parts]
        return parts

    def feed(self, event: Any) -> None:
        import yaml

        if isinstance(event, yaml.ScalarEvent):
            self.node(event.value)
            self.after(event.value)
        elif isinstance(event, yaml.AliasEvent):
            self.node(None)
            self.after(None)
        elif isinstance(event, yaml.CollectionStartEvent):
            self.node(None)
            mapping = isinstance(event, yaml.MappingStartEvent)
            self.frames.append([mapping, -1, True, bool(event.flow_style)])
        elif isinstance(event, yaml.CollectionEndEvent) and self.frames:
            self.frames.pop()
            self.after(None)

    def in_flow(self) -> bool:
        """Whether a ``{…}`` or ``[…]`` is open."""
        return any(f[3] for f in self.frames)

    def where(self) -> tuple[str | None, str | None]:
        """(case id, field) of the last node reported."""
        parts = self.parts
        if len(parts) >= 2 and parts[0] == "cases" and isinstance(parts[1], int):
            case_id = self.ids.get(parts[1], f"#{parts[1] + 1}")
            return case_id, _render_parts(parts[2:]) or None
        return None, _render_parts(parts) or None


def _walk_events(text: str, until: Any) -> tuple[_EventPath, Any]:
    """Parse ``text`` again, up to the event ``until`` (a mark) or the first error;
    return the path tracker and the last scalar event seen."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    tracker = _EventPath()
    last = None
    try:
        for event in yaml.parse(text, Loader=loader):
            tracker.feed(event)
            if isinstance(event, yaml.ScalarEvent):
                last = event
            mark = event.start_mark
            if (
                until is not None
                and mark is not None
                and (mark.line, mark.column)
                >= (
                    until.line,
                    until.column,
                )
            ):
                break
    except yaml.YAMLError:
        pass
    return tracker, last


def _unportable(path: Path, text: str, event: Any) -> InputError:
    """A plain scalar holding ``?`` inside ``{…}`` or ``[…]``: libyaml (and so codegold,
    which parses with it when it is there) reads it, PyYAML's pure-Python loader, the
    one ``yaml.safe_load`` uses, stops at the ``?``. A suite must read the same in every
    tool and on every machine, so it is refused, with the fix."""
    tracker, _ = _walk_events(text, event.start_mark)
    case_id, field = tracker.where()
    key = field.rsplit(".", 1)[-1] if field else "value"
    return InputError(
        f"plain value {event.value!r} inside {{…}} or […] holds '?': libyaml reads it, "
        f"PyYAML's own yaml.safe_load refuses it; quote it ({key}: "
        f'"{event.value}")',
        file=str(path),
        case_id=case_id,
        field=field,
        line=event.start_mark.line + 1,
    )


def _yaml_syntax_error(path: Path, text: str, exc: Any) -> InputError:
    """``invalid YAML``, naming the case the error is in, and the field when the error
    is on the line of the plain value it cut short (``query: How does x work: …``),
    with the fix."""
    mark = getattr(exc, "problem_mark", None)
    line: int | None = mark.line + 1 if mark is not None else None
    problem = getattr(exc, "problem", None) or str(exc)
    tracker, last = _walk_events(text, None)
    case_id, field = tracker.where()
    hint = ""
    held = None
    if last is not None and not last.style:  # the last value read was plain
        at = last.end_mark.line + 1
        rest = text.split("\n")[at - 1][last.end_mark.column :]
        if rest.startswith(":") and at == line:
            held = "': '"
        elif rest.startswith(" #") and tracker.in_flow():
            held, line = "' #'", at  # a comment ate the rest of the {…} or […]
    if held is not None:
        hint = f" (a plain value cannot hold {held}: quote the whole value)"
    elif last is None or line is None or last.end_mark.line + 1 != line:
        field = None
    return InputError(
        f"invalid YAML: {problem}{hint}", file=str(path), case_id=case_id, field=field, line=line
    )


def _depth(value: Any) -> int:
    """How deeply lists and mappings nest in a decoded document (iteratively)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if depth <= MAX_SUITE_DEPTH:
                stack.extend((child, depth + 1) for child in item)
    return deepest


def _may_nest_too_deep(path: Path, text: str) -> bool:
    """Whether a JSON or JSONL suite could nest deeper than :data:`MAX_SUITE_DEPTH`:
    a document opens at most as many levels as it has ``[`` and ``{`` (a JSONL line's
    cases sit two levels down), so only a document with more of them is walked."""
    if path.suffix.lower() == ".json":
        return text.count("[") + text.count("{") > MAX_SUITE_DEPTH
    limit = MAX_SUITE_DEPTH - 2
    return any(line.count("[") + line.count("{") > limit for line in text.split("\n"))


def _parse_document(path: Path, text: str) -> Any:
    try:
        raw = _parse_bounded(path, text)
        if (
            path.suffix.lower() in (".json", ".jsonl")
            and _may_nest_too_deep(path, text)
            and _depth(raw) > MAX_SUITE_DEPTH
        ):
            raise RecursionError
        return raw
    except RecursionError:
        raise InputError(
            f"nested deeper than {MAX_SUITE_DEPTH} levels (the file is not a suite)",
            file=str(path),
        ) from None


def _parse_bounded(path: Path, text: str) -> Any:
    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        cases: list[Any] = []
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                cases.append(msgspec.json.decode(line))
            except msgspec.DecodeError as exc:
                raise InputError(f"invalid JSON: {exc}", file=str(path), line=number) from None
        return {"cases": cases}
    if suffix == ".json":
        try:
            return msgspec.json.decode(text)
        except msgspec.DecodeError as exc:
            raise InputError(f"invalid JSON: {exc}", file=str(path)) from None
    import yaml  # a JSON or JSONL suite never needs it

    _check_yaml_bounds(path, text)
    try:
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError as exc:  # composing found what parsing did not (a bad alias)
        raise _yaml_syntax_error(path, text, exc) from None


def _jsonl_line(text: str, index: int) -> int | None:
    seen = -1
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            seen += 1
            if seen == index:
                return number
    return None


def load_suite(path: str | Path) -> Suite:
    """Load and validate a suite. Raises :class:`InputError` naming file, case and field."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a suite file", file=str(p)) from None
    text = _decode_text(p, data)
    if not text.strip():
        raise InputError("empty suite file", file=str(p))
    typed = _typed_jsonl(p, text) if p.suffix.lower() == ".jsonl" else None
    parsed = typed if typed is not None else _parsed(p, text, data)
    parsed, path_warnings = normalise_paths(parsed, text)
    suite = _resolve(p, parsed, digest=hashlib.sha256(data).hexdigest())
    warnings = [*path_warnings, *vocabulary_warnings(parsed)]
    return replace(suite, warnings=tuple(f"{p}: {w}" for w in warnings)) if warnings else suite


_CASE = msgspec.json.Decoder(Case)


def _typed_jsonl(path: Path, text: str) -> SuiteFile | None:
    """A JSONL suite decoded straight into cases (no intermediate dicts: a large
    suite's peak memory is then its cases, not twice them), or None when any line is
    not a valid case, or the file could nest too deep: the general path then finds the
    problem and names its line, case and field."""
    limit = MAX_SUITE_DEPTH - 2  # _may_nest_too_deep's test of each line, on the way
    cases: list[Case] = []
    try:
        for line in text.split("\n"):
            if line.count("[") + line.count("{") > limit:
                return None
            if line and not line.isspace():
                cases.append(_CASE.decode(line))
    except (msgspec.DecodeError, RecursionError):  # ValidationError is a DecodeError
        return None
    return SuiteFile(cases=tuple(cases))


def _parsed(p: Path, text: str, data: bytes) -> SuiteFile:
    """The suite document parsed and checked against the suite contract; a problem
    raises :class:`InputError` naming file, line, case and field."""
    raw = _parse_document(p, text)
    if isinstance(raw, list):
        raw = {"cases": raw}
    if not isinstance(raw, dict):
        raise InputError("expected a mapping with 'cases' or a list of cases", file=str(p))
    try:
        return msgspec.convert(raw, SuiteFile)
    except msgspec.ValidationError as exc:
        message = str(exc)
        m = re.search(r" - at `([^`]+)`$", message)
        parts = _split_path(m.group(1)) if m else []
        detail = _friendly(message[: m.start()] if m else message)
        unknown = _unknown_field(detail)
        if unknown is not None:
            detail += _did_you_mean_field(parts, unknown)
            parts = [*parts, unknown]
        case_id, field = _case_and_field(raw, parts)
        line = None
        if p.suffix.lower() == ".jsonl":
            if len(parts) >= 2 and isinstance(parts[1], int):
                line = _jsonl_line(text, parts[1])
        elif len(data) < 5_000_000:
            line = _yaml_line(text, parts)
        raise InputError(detail, file=str(p), case_id=case_id, field=field, line=line) from None


@dataclass(frozen=True)
class _Defaults:
    """What the suite gives every case that does not say otherwise."""

    revision: str | None
    cutoff: int
    forbidden: tuple[str, ...] | None
    tags: tuple[str, ...] | None

    @classmethod
    def of(cls, parsed: SuiteFile) -> _Defaults:
        d = parsed.defaults
        return cls(
            revision=parsed.repository.revision if parsed.repository else None,
            cutoff=d.cutoff if d and d.cutoff else DEFAULT_CUTOFF,
            forbidden=tuple(d.forbidden_path_prefixes) if d and d.forbidden_path_prefixes else None,
            tags=tuple(d.tags) if d and d.tags else None,
        )


def _resolve(path: Path, parsed: SuiteFile, *, digest: str) -> Suite:
    """Check every case of a parsed suite and apply the suite's defaults, in file order;
    the first problem raises, naming file, case and field."""
    if not parsed.cases:
        raise InputError("the suite has no cases", file=str(path), field="cases")
    defaults = _Defaults.of(parsed)
    seen: set[str] = set()
    resolved: list[ResolvedCase] = []
    for case in parsed.cases:
        if case.id in seen:
            raise InputError("duplicate case id", file=str(path), case_id=case.id, field="id")
        seen.add(case.id)
        resolved.append(_resolve_case(path, case, defaults))
    return Suite(
        path=str(path),
        name=parsed.suite,
        repository_name=parsed.repository.name if parsed.repository else None,
        revision=defaults.revision,
        digest=digest,
        cases=tuple(resolved),
    )


def _resolve_case(path: Path, case: Case, defaults: _Defaults) -> ResolvedCase:
    def fail(message: str, field: str) -> InputError:
        return InputError(message, file=str(path), case_id=case.id, field=field)

    groups = _required_groups(case, fail)
    _check_targets(case, fail)
    forbidden = case.forbidden_path_prefixes
    if forbidden is None:
        forbidden = defaults.forbidden or ()
    revision = case.repository_revision or defaults.revision
    if revision is None:
        raise fail(
            "no revision: set repositoryRevision on the case or repository.revision "
            "on the suite (a full 40-hex commit SHA)",
            "repositoryRevision",
        )
    _check_traps(case, groups, tuple(forbidden), fail)
    status = case.status or "reviewed"
    if status == "reviewed" and case.origin is not None and not has_rationale(case.rationale):
        raise fail(
            f"a drafted case ({case.origin}) is reviewed only with a rationale: say why "
            "its targets are right, or keep 'status: draft'",
            "rationale",
        )
    # positional, in the order of the fields: called once per case of the suite
    return ResolvedCase(
        case.id,
        case.query,
        case.query_class,
        revision,
        case.cutoff or defaults.cutoff,
        case.context,
        tuple(groups),
        case.supporting or (),
        tuple(forbidden),
        case.rationale,
        _tags(case, defaults, status),
        case,
        groups[0].any_of  # (most cases: one group)
        if len(groups) == 1
        else tuple(t for g in groups for t in g.any_of),
        status,
    )


def _tags(case: Case, defaults: _Defaults, status: str) -> tuple[str, ...]:
    """The suite's default tags, the case's, and ``draft`` for a draft, each once."""
    if defaults.tags is None and status != "draft":  # (the usual case)
        return tuple(dict.fromkeys(case.tags)) if case.tags else ()
    return tuple(
        dict.fromkeys(
            [*(defaults.tags or ()), *(case.tags or ()), *([DRAFT_TAG] * (status == "draft"))]
        )
    )


DRAFT_TAG = "draft"
"""The tag every draft case carries in results, so `gate` can leave drafts out."""

RATIONALE_PLACEHOLDER = "TODO:"
"""How a drafted rationale starts until a person writes it; it counts as none."""


def has_rationale(rationale: str | None) -> bool:
    """A written rationale: not empty, not a draft's ``TODO:`` placeholder."""
    text = (rationale or "").strip()
    return bool(text) and not text.upper().startswith(RATIONALE_PLACEHOLDER)


def without_drafts(suite: Suite) -> Suite:
    """The suite's reviewed cases only (what `run` scores unless drafts are asked for);
    a suite of drafts only is an InputError."""
    from dataclasses import replace

    kept = tuple(c for c in suite.cases if not c.draft)
    if not kept:
        raise InputError(
            f"all {len(suite.cases)} cases are drafts: review them (rationale, remove "
            "'status: draft') or pass --include-drafts",
            file=suite.path,
        )
    return replace(suite, cases=kept)


_Fail = Callable[[str, str], InputError]


def _required_groups(case: Case, fail: _Fail) -> list[Group]:
    """``accepted`` (as the group of that id) then ``groups``: each non-empty, ids unique."""
    groups: list[Group] = []
    if case.accepted is not None:
        if not case.accepted:
            raise fail("'accepted' is empty", "accepted")
        groups.append(Group(id=ACCEPTED_GROUP_ID, any_of=case.accepted))
    group_ids: set[str] = {ACCEPTED_GROUP_ID} if case.accepted else set()
    for i, group in enumerate(case.groups or ()):
        if group.id in group_ids:
            raise fail(f"duplicate group id {group.id!r}", f"groups[{i}].id")
        if not group.any_of:
            raise fail("group has no targets", f"groups[{i}].anyOf")
        group_ids.add(group.id)
        groups.append(group)
    if not groups:
        raise fail("a case needs 'accepted' or 'groups'", "accepted")
    return groups


def _check_targets(case: Case, fail: _Fail) -> None:
    for targets in _target_lists(case):
        for target in targets:
            if _target_fault(target) is not None:
                _target_problem(case, fail)


def _target_problem(case: Case, fail: _Fail) -> None:
    """Raise the first target problem of ``case``, naming where it lies (looked for
    again only once :func:`_check_targets` found one: most cases have none)."""
    for where, targets in _all_targets(case):
        for j, target in enumerate(targets):
            fault = _target_fault(target)
            if fault is not None:
                message, field = fault
                raise fail(message, f"{where}[{j}]{field}")


def _target_fault(target: Target) -> tuple[str, str] | None:
    """What is wrong with one target, and the field below it that says so; None
    when nothing is."""
    if (target.file is None) == (target.file_pattern is None):
        return "a target needs exactly one of 'file' or 'filePattern'", ""
    if target.lines is not None and target.lines.end < target.lines.start:
        return "lines end before they start", ".lines"
    return None


def _check_traps(
    case: Case, groups: Sequence[Group], forbidden: tuple[str, ...], fail: _Fail
) -> None:
    """No required target may lie under one of the case's forbidden prefixes."""
    if not forbidden:
        return
    offset = 1 if case.accepted else 0
    for i, group in enumerate(groups):
        for j, target in enumerate(group.any_of):
            file = target.file
            if not file or not file.startswith(forbidden):  # (the usual target)
                continue
            trap = next(p for p in forbidden if file.startswith(p))
            raise fail(
                f"required target {target.file!r} lies under forbidden prefix {trap!r}",
                "accepted"
                if group.id == ACCEPTED_GROUP_ID and case.accepted
                else f"groups[{i - offset}].anyOf[{j}]",
            )


def _target_lists(case: Case) -> list[tuple[Target, ...]]:
    """:func:`_all_targets` without the names of where they lie."""
    out = [case.accepted] if case.accepted else []
    if case.groups:
        out.extend(g.any_of for g in case.groups)
    if case.supporting:
        out.append(case.supporting)
    return out


def _all_targets(case: Case) -> list[tuple[str, tuple[Target, ...]]]:
    out: list[tuple[str, tuple[Target, ...]]] = []
    if case.accepted:
        out.append(("accepted", case.accepted))
    for i, g in enumerate(case.groups or ()):
        out.append((f"groups[{i}].anyOf", g.any_of))
    if case.supporting:
        out.append(("supporting", case.supporting))
    return out
