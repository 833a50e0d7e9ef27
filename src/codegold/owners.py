"""Teams for failures: the ``[owners]`` table of ``codegold.toml``.

A diagnosis names a pipeline boundary (``ranking``, ``indexing``, ``dataset``, ...);
the ``[owners]`` table maps it, and the paths a case is about, to the team that acts
on it::

    [owners]
    default = "search-platform"          # optional: a failure no rule matches

    [owners.boundaries]                   # boundary -> team
    ranking = "search-relevance"
    "parser/chunker" = "code-intel"

    [[owners.rules]]                      # most specific: first match wins
    paths = ["src/payments/"]             # gitignore-style, on the case's target files
    boundary = "ranking"                  # optional
    team = "payments-search"

Resolution, first that fires: a ``rules`` entry whose ``paths`` match one of the
case's target files (and whose ``boundary``, when given, is the diagnosis owner),
in file order; then ``boundaries``; then ``default``; else no team.
The team is the record's ``diagnosis.team`` (null without a table or a match).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pathspec

from codegold.errors import InputError

if TYPE_CHECKING:
    from codegold.cases.suite import ResolvedCase, Suite
    from codegold.corpus.git import GitRepo
    from codegold.evaluate.records import CaseResult

__all__ = ["OwnerMap", "assign_teams", "load_owners", "owners_from_table"]

_KEYS = ("default", "boundaries", "rules")
_RULE_KEYS = ("paths", "boundary", "team")


@dataclass(frozen=True)
class _Rule:
    paths: tuple[str, ...]
    boundary: str | None
    team: str
    spec: pathspec.GitIgnoreSpec | None


@dataclass(frozen=True)
class OwnerMap:
    """The parsed ``[owners]`` table."""

    boundaries: Mapping[str, str]
    rules: tuple[_Rule, ...] = ()
    default: str | None = None
    source: str | None = None

    def __bool__(self) -> bool:
        return bool(self.boundaries or self.rules or self.default)

    def team(self, owner: str | None, files: Sequence[str]) -> str | None:
        """The team for a failure routed to ``owner`` on a case about ``files``."""
        for rule in self.rules:
            if rule.boundary is not None and rule.boundary != owner:
                continue
            if rule.spec is None or any(rule.spec.match_file(f) for f in files):
                return rule.team
        if owner is not None and owner in self.boundaries:
            return self.boundaries[owner]
        return self.default


def _team(value: object, *, file: str, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError("a team must be a non-empty string", file=file, field=key)
    return value.strip()


def owners_from_table(table: Mapping[str, Any], *, file: str) -> OwnerMap:
    """Validate an ``[owners]`` table; an unknown key or a bad value is an InputError."""
    from codegold.roles import OWNERS

    for key in table:
        if key not in _KEYS:
            raise InputError(
                f"unknown key in [owners] (known: {', '.join(_KEYS)})", file=file, field=key
            )
    default = table.get("default")
    boundaries_raw = table.get("boundaries", {})
    if not isinstance(boundaries_raw, dict):
        raise InputError("must be a table", file=file, field="owners.boundaries")
    known = sorted(set(OWNERS.values()))
    boundaries: dict[str, str] = {}
    for name, team in boundaries_raw.items():
        if name not in known:
            raise InputError(
                f"unknown boundary {name!r} (known: {', '.join(known)})",
                file=file,
                field=f"owners.boundaries.{name}",
            )
        boundaries[name] = _team(team, file=file, key=f"owners.boundaries.{name}")
    rules_raw = table.get("rules", [])
    if not isinstance(rules_raw, list):
        raise InputError("must be an array of tables", file=file, field="owners.rules")
    rules: list[_Rule] = []
    for i, raw in enumerate(rules_raw):
        where = f"owners.rules[{i}]"
        if not isinstance(raw, dict):
            raise InputError("must be a table", file=file, field=where)
        for key in raw:
            if key not in _RULE_KEYS:
                raise InputError(
                    f"unknown key (known: {', '.join(_RULE_KEYS)})",
                    file=file,
                    field=f"{where}.{key}",
                )
        paths = raw.get("paths", [])
        if not isinstance(paths, list) or not all(isinstance(p, str) and p for p in paths):
            raise InputError("must be a list of path patterns", file=file, field=f"{where}.paths")
        boundary = raw.get("boundary")
        if boundary is not None and boundary not in known:
            raise InputError(
                f"unknown boundary {boundary!r} (known: {', '.join(known)})",
                file=file,
                field=f"{where}.boundary",
            )
        if not paths and boundary is None:
            raise InputError("a rule needs paths, a boundary or both", file=file, field=where)
        spec = pathspec.GitIgnoreSpec.from_lines(paths) if paths else None
        rules.append(
            _Rule(
                tuple(paths), boundary, _team(raw.get("team"), file=file, key=f"{where}.team"), spec
            )
        )
    return OwnerMap(
        boundaries=boundaries,
        rules=tuple(rules),
        default=_team(default, file=file, key="owners.default") if default is not None else None,
        source=file,
    )


def _from_document(data: bytes, *, file: str, pyproject: bool) -> OwnerMap | None:
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"not valid TOML: {exc}", file=file) from None
    if pyproject:
        tool = document.get("tool", {})
        document = tool.get("codegold", {}) if isinstance(tool, dict) else {}
        if not isinstance(document, dict):
            return None
    table = document.get("owners")
    if table is None:
        return None
    if not isinstance(table, dict):
        raise InputError("must be a table", file=file, field="owners")
    return owners_from_table(table, file=file)


def load_owners(
    *,
    config_path: Path | None = None,
    repo: GitRepo | None = None,
    revision: str | None = None,
) -> OwnerMap | None:
    """The ``[owners]`` table of ``config_path`` (the ``--policy`` file), else of the
    repository's ``codegold.toml`` (or ``[tool.codegold]`` of ``pyproject.toml``) at
    ``revision``; None when there is none."""
    if config_path is not None:
        path = Path(config_path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read policy file: {exc.strerror}", file=str(path)) from None
        return _from_document(data, file=str(path), pyproject=path.name == "pyproject.toml")
    if repo is None or revision is None:
        return None
    sha = repo.resolve(revision)
    for name, pyproject in (("codegold.toml", False), ("pyproject.toml", True)):
        found = repo.read_path(sha, name)
        if found is None:
            continue
        owners = _from_document(found, file=f"{name} at {sha[:12]}", pyproject=pyproject)
        if owners is not None:
            return owners
    return None


def case_files(case: ResolvedCase) -> list[str]:
    """The files a case is about: its required targets', then its supporting ones'
    (file patterns included, as written), in suite order without repeats."""
    out: list[str] = []
    for group in case.groups:
        for target in group.any_of:
            name = target.file or target.file_pattern
            if name and name not in out:
                out.append(name)
    for target in case.supporting:
        name = target.file or target.file_pattern
        if name and name not in out:
            out.append(name)
    return out


def assign_teams(
    records: list[CaseResult], suite: Suite, owners: OwnerMap | None
) -> list[CaseResult]:
    """Each diagnosed record with the team its owner and case files map to."""
    if not owners:
        return records
    cases = suite.by_id()
    out: list[CaseResult] = []
    for r in records:
        if r.diagnosis is None:
            out.append(r)
            continue
        case = cases.get(r.case_id)
        files = case_files(case) if case is not None else []
        team = owners.team(r.diagnosis.owner, files)
        out.append(
            msgspec.structs.replace(r, diagnosis=msgspec.structs.replace(r.diagnosis, team=team))
        )
    return out


def owner_label(owner: str, team: str | None) -> str:
    """``ranking`` or, with a team, ``ranking (search-relevance)``: how every report
    names who acts on a failure."""
    return f"{owner} ({team})" if team else owner
