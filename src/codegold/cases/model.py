"""The gold-suite file contract (SPEC §1).

Files speak camelCase; these Structs rename their snake_case fields on the way in
and out, and reject unknown fields.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from codegold.roles import Role

Sha = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{40}$")]
Cutoff = Annotated[int, msgspec.Meta(ge=1)]
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]


class _Model(
    msgspec.Struct, rename="camel", forbid_unknown_fields=True, frozen=True, omit_defaults=True
):
    pass


class Lines(_Model, frozen=True, array_like=True):
    """A 1-based inclusive span ``[start, end]`` at the pinned revision."""

    start: Annotated[int, msgspec.Meta(ge=1)]
    end: Annotated[int, msgspec.Meta(ge=1)]


class Target(_Model, frozen=True):
    """Evidence that satisfies a case: a file (or glob), optional symbol and roles."""

    file: NonEmpty | None = None
    file_pattern: NonEmpty | None = None
    symbol: NonEmpty | None = None
    roles: tuple[Role, ...] | None = None
    lines: Lines | None = None

    def describe(self) -> str:
        where = self.file or self.file_pattern or "?"
        parts = [where]
        if self.symbol:
            parts.append(f"#{self.symbol}")
        if self.roles:
            parts.append(f" [{','.join(self.roles)}]")
        return "".join(parts)


class Group(_Model, frozen=True):
    """A required evidence group: satisfied by any one of its targets."""

    id: NonEmpty
    any_of: tuple[Target, ...]


class Context(_Model, frozen=True):
    """Reliable user state only."""

    open_file: str | None = None
    path_prefix: str | None = None
    language: str | None = None
    package: str | None = None


class Repository(_Model, frozen=True):
    name: str | None = None
    revision: Sha | None = None
    url: str | None = None


class Defaults(_Model, frozen=True):
    cutoff: Cutoff | None = None
    forbidden_path_prefixes: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None


class Case(_Model, frozen=True):
    """One gold case. ``cutoff`` and revision may come from the suite."""

    id: NonEmpty
    query: NonEmpty
    query_class: str | None = None
    repository_revision: Sha | None = None
    cutoff: Cutoff | None = None
    context: Context | None = None
    accepted: tuple[Target, ...] | None = None
    groups: tuple[Group, ...] | None = None
    supporting: tuple[Target, ...] | None = None
    forbidden_path_prefixes: tuple[str, ...] | None = None
    rationale: str | None = None
    tags: tuple[str, ...] | None = None
    status: Literal["draft", "reviewed"] | None = None
    """``draft``: proposed by `codegold draft`/`init` from traces or code, not yet
    checked by a person; `run` and `gate` skip it unless asked. Default ``reviewed``."""
    origin: str | None = None
    """Where a drafted case came from (``search-log line 42``); kept after review."""


class SuiteFile(_Model, frozen=True):
    """The top level of a suite file as written."""

    cases: tuple[Case, ...]
    suite: str | None = None
    repository: Repository | None = None
    defaults: Defaults | None = None
    schema_: str | None = msgspec.field(default=None, name="$schema")


ACCEPTED_GROUP_ID = "accepted"
QueryClass = Literal[
    "exact_identifier",
    "behavior",
    "stack_trace",
    "usage_example",
    "overloaded_name",
    "configuration",
]
