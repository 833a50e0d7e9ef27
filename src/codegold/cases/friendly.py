"""What a suite author gets besides a hard error: warnings for a query class or tag
outside the suite's vocabulary, paths written ``./src/x.ts`` or ``src\\x.ts``
normalised (with a warning), and "did you mean" for an unknown field.

Warnings never change a verdict; they are returned with the suite (``Suite.warnings``)
and printed by the commands that load it."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence

import msgspec

from codegold.cases.model import Case, Context, Defaults, SuiteFile, Target

__all__ = [
    "BUILTIN_QUERY_CLASSES",
    "did_you_mean",
    "normalise_paths",
    "struct_fields",
    "vocabulary_warnings",
]

BUILTIN_QUERY_CLASSES = (
    "behavior",
    "configuration",
    "exact_identifier",
    "issue_report",
    "overloaded_name",
    "stack_trace",
    "usage_example",
)
"""The query classes codegold knows (the SPEC's six, and ``issue_report``, the class a
pasted issue text gets); a suite adds its own under ``vocabulary.queryClasses``."""


def did_you_mean(name: str, choices: Iterable[str], *, cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or an empty string."""
    choices = list(choices)
    close = difflib.get_close_matches(name, sorted(set(choices)), n=1, cutoff=cutoff)
    if not close:
        lowered = {c.lower(): c for c in choices}
        if name.lower() in lowered:
            close = [lowered[name.lower()]]
    return f" (did you mean '{close[0]}'?)" if close else ""


def struct_fields(struct: type[msgspec.Struct]) -> tuple[str, ...]:
    """The names a struct's fields have in the file (camelCase)."""
    return tuple(f.encode_name for f in msgspec.structs.fields(struct))


# -- paths ------------------------------------------------------------------------------


_ESCAPE = re.compile(r"\\x[0-9a-fA-F]{2}")


def _clean(value: str) -> str:
    """``./a`` -> ``a``; ``src\\x.ts`` -> ``src/x.ts`` for a path written with
    backslashes only (a path with ``/`` keeps its backslashes: on POSIX they are part
    of a file name, and ``\\xNN`` is how codegold writes a byte that is not UTF-8)."""
    out = value
    if "/" not in out and "\\" in out and not _ESCAPE.search(out):
        out = out.replace("\\", "/")
    while "//" in out:
        out = out.replace("//", "/")
    while out.startswith("./"):
        out = out[2:]
    return out


def _may_change(value: str | None) -> bool:
    """Whether :func:`_clean` could change ``value`` (a quick test; it may not)."""
    return value is not None and ("\\" in value or "//" in value or value.startswith("./"))


def _case_paths(case: Case) -> Iterator[str | None]:
    """Every path a case names (targets, forbidden prefixes, context)."""
    targets = [*(case.accepted or ()), *(case.supporting or ())]
    for group in case.groups or ():
        targets.extend(group.any_of)
    for t in targets:
        yield t.file
        yield t.file_pattern
    yield from case.forbidden_path_prefixes or ()
    if case.context is not None:
        yield case.context.open_file
        yield case.context.path_prefix


class _Paths:
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def fix(self, value: str | None, where: str) -> str | None:
        if value is None:
            return None
        clean = _clean(value)
        if clean != value and clean:
            self.warnings.append(f"{where}: path {value!r} read as {clean!r}")
            return clean
        return value

    def many(self, values: tuple[str, ...] | None, where: str) -> tuple[str, ...] | None:
        if values is None:
            return None
        return tuple(self.fix(v, f"{where}[{i}]") or v for i, v in enumerate(values))

    def target(self, t: Target, where: str) -> Target:
        file = self.fix(t.file, f"{where}.file")
        pattern = self.fix(t.file_pattern, f"{where}.filePattern")
        if file == t.file and pattern == t.file_pattern:
            return t
        return msgspec.structs.replace(t, file=file, file_pattern=pattern)

    def targets(self, ts: tuple[Target, ...] | None, where: str) -> tuple[Target, ...] | None:
        if ts is None:
            return None
        return tuple(self.target(t, f"{where}[{i}]") for i, t in enumerate(ts))

    def context(self, c: Context | None, where: str) -> Context | None:
        if c is None:
            return None
        return msgspec.structs.replace(
            c,
            open_file=self.fix(c.open_file, f"{where}.openFile"),
            path_prefix=self.fix(c.path_prefix, f"{where}.pathPrefix"),
        )

    def case(self, case: Case) -> Case:
        if not any(map(_may_change, _case_paths(case))):  # the usual case: clean paths
            return case
        where = f"case {case.id}"
        groups = (
            tuple(
                msgspec.structs.replace(
                    g, any_of=self.targets(g.any_of, f"{where}: groups[{i}].anyOf") or ()
                )
                for i, g in enumerate(case.groups)
            )
            if case.groups is not None
            else None
        )
        return msgspec.structs.replace(
            case,
            accepted=self.targets(case.accepted, f"{where}: accepted"),
            groups=groups,
            supporting=self.targets(case.supporting, f"{where}: supporting"),
            forbidden_path_prefixes=self.many(
                case.forbidden_path_prefixes, f"{where}: forbiddenPathPrefixes"
            ),
            context=self.context(case.context, f"{where}: context"),
        )


def normalise_paths(parsed: SuiteFile, text: str | None = None) -> tuple[SuiteFile, list[str]]:
    """Every path of the suite with ``\\`` read as ``/`` and a leading ``./`` dropped
    (git paths have neither); one warning per path changed. Given the suite's ``text``
    (YAML, JSON or JSONL) and none of what :func:`_may_change` looks for in it, nor a
    backslash (how either would be escaped), no path can change: the cases are not
    looked at one by one."""
    if text is not None and "\\" not in text and "//" not in text and "./" not in text:
        return parsed, []
    paths = _Paths()
    defaults: Defaults | None = parsed.defaults
    if defaults is not None:
        defaults = msgspec.structs.replace(
            defaults,
            forbidden_path_prefixes=paths.many(
                defaults.forbidden_path_prefixes, "defaults.forbiddenPathPrefixes"
            ),
        )
    cases = tuple(paths.case(c) for c in parsed.cases)
    if not paths.warnings:
        return parsed, []
    return msgspec.structs.replace(parsed, cases=cases, defaults=defaults), paths.warnings


# -- vocabulary -------------------------------------------------------------------------


def _near_duplicates(counts: Counter[str], kind: str, cases_of: dict[str, str]) -> list[str]:
    """A value used once that is one or two keystrokes from a value used more often is
    most likely a typo (similarity 0.85: 'sesions' for 'sessions', not 'env' for 'dev'
    nor 'generators' for 'generated')."""
    out: list[str] = []
    common = [v for v, n in counts.items() if n >= 2]
    for value, n in sorted(counts.items()):
        if n != 1:
            continue
        hint = did_you_mean(value, [c for c in common if c != value], cutoff=0.85)
        if hint and _affix(value, hint):
            hint = ""
        if hint:
            out.append(
                f"case {cases_of[value]}: {kind} {value!r} is used by no other case{hint}; "
                "declare it under vocabulary if it is meant"
            )
    return out


def _affix(value: str, hint: str) -> bool:
    """'ignore' inside 'gitignore': a narrower tag, not a typo."""
    other = hint.split("'")[1]
    return value in other or other in value


def vocabulary_warnings(parsed: SuiteFile) -> list[str]:
    """A warning per case whose queryClass or tag is outside the suite's vocabulary:
    the built-in classes plus ``vocabulary.queryClasses``, and ``vocabulary.tags`` when
    the suite declares it. Without declared tags, a tag used by one case only that is
    close to a tag other cases use is flagged as a likely typo."""
    vocabulary = parsed.vocabulary
    extra = vocabulary.query_classes if vocabulary is not None else None
    classes: Sequence[str] = (*BUILTIN_QUERY_CLASSES, *(extra or ()))
    declared_tags = vocabulary.tags if vocabulary is not None else None
    default_tags = tuple(parsed.defaults.tags or ()) if parsed.defaults else ()
    out: list[str] = []
    tag_counts: Counter[str] = Counter()
    first_case: dict[str, str] = {}
    for case in parsed.cases:
        if case.query_class is not None and case.query_class not in classes:
            out.append(
                f"case {case.id}: queryClass {case.query_class!r} is not in the suite's "
                f"vocabulary{did_you_mean(case.query_class, classes)}; it makes a slice of "
                "its own (add it to vocabulary.queryClasses if it is meant)"
            )
        for tag in case.tags or ():
            tag_counts[tag] += 1
            first_case.setdefault(tag, case.id)
            if declared_tags is not None and tag not in declared_tags and tag not in default_tags:
                out.append(
                    f"case {case.id}: tag {tag!r} is not in vocabulary.tags"
                    f"{did_you_mean(tag, (*declared_tags, *default_tags))}"
                )
    if declared_tags is None:
        out.extend(_near_duplicates(tag_counts, "tag", first_case))
    return out
