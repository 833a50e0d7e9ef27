"""The gold-suite file contract (SPEC §1).

Files speak camelCase; these Structs rename their snake_case fields on the way in
and out, and reject unknown fields. Every field carries a description, which
``codegold schema suite`` puts into the JSON Schema for editors.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from codegold.roles import Role

Sha = Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{40}$")]
Cutoff = Annotated[int, msgspec.Meta(ge=1)]
NonEmpty = Annotated[str, msgspec.Meta(min_length=1)]

SUITE_SCHEMA_ID = "urn:codegold:schema:suite:1"
"""The ``$id`` of the suite's JSON Schema."""


def _doc(text: str) -> msgspec.Meta:
    return msgspec.Meta(description=text)


class _Model(
    msgspec.Struct, rename="camel", forbid_unknown_fields=True, frozen=True, omit_defaults=True
):
    pass


class Lines(_Model, frozen=True, array_like=True):
    """A 1-based inclusive span ``[start, end]`` at the pinned revision."""

    start: Annotated[int, msgspec.Meta(ge=1, description="First line (1-based).")]
    end: Annotated[int, msgspec.Meta(ge=1, description="Last line (inclusive).")]


class Target(_Model, frozen=True):
    """Evidence that satisfies a case: a file (or glob), optional symbol and roles."""

    file: Annotated[
        NonEmpty | None,
        _doc("Repository-relative path at the pinned revision, with '/' (e.g. src/auth.py)."),
    ] = None
    file_pattern: Annotated[
        NonEmpty | None, _doc("Glob over repository paths, instead of file (e.g. src/**/*.ts).")
    ] = None
    symbol: Annotated[
        NonEmpty | None,
        _doc("Qualified symbol the chunk must define (e.g. Session.refresh); any when absent."),
    ] = None
    roles: Annotated[
        tuple[Role, ...] | None,
        _doc(
            "Acceptable source roles of the chunk (definition, usage, test, ...); any when absent."
        ),
    ] = None
    lines: Annotated[
        Lines | None, _doc("Span [start, end] the chunk must cover, at the pinned revision.")
    ] = None

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

    id: Annotated[NonEmpty, _doc("Group id, unique in the case; named in missingGroupIds.")]
    any_of: Annotated[
        tuple[Target, ...], _doc("Targets any one of which satisfies the group within the cutoff.")
    ]


class Context(_Model, frozen=True):
    """Reliable user state only."""

    open_file: Annotated[
        str | None, _doc("The file open in the editor when the query was asked.")
    ] = None
    path_prefix: Annotated[str | None, _doc("A folder the user scoped the search to.")] = None
    language: Annotated[str | None, _doc("The language the user works in (e.g. python).")] = None
    package: Annotated[str | None, _doc("The package or module the user works in.")] = None


class Repository(_Model, frozen=True):
    """The repository the suite is about."""

    name: Annotated[str | None, _doc("A name for reports (e.g. acme/shop).")] = None
    revision: Annotated[
        Sha | None, _doc("Full 40-hex commit every case is pinned to unless it says otherwise.")
    ] = None
    url: Annotated[str | None, _doc("Where the repository lives, for people.")] = None


class Defaults(_Model, frozen=True):
    """What every case gets unless it says otherwise."""

    cutoff: Annotated[Cutoff | None, _doc("How many ranked chunks count (default 10).")] = None
    forbidden_path_prefixes: Annotated[
        tuple[str, ...] | None, _doc("Paths no chunk within the cutoff may come from.")
    ] = None
    tags: Annotated[tuple[str, ...] | None, _doc("Tags added to every case.")] = None


class Vocabulary(_Model, frozen=True):
    """The query classes and tags the suite means to use; anything else warns."""

    query_classes: Annotated[
        tuple[str, ...] | None, _doc("Query classes beyond the built-in ones.")
    ] = None
    tags: Annotated[
        tuple[str, ...] | None,
        _doc(
            "Every tag cases may carry; when absent, a tag one case uses that is close to "
            "another case's warns as a likely typo."
        ),
    ] = None


class Case(_Model, frozen=True):
    """One gold case. ``cutoff`` and revision may come from the suite."""

    id: Annotated[NonEmpty, _doc("Stable case id, unique in the suite.")]
    query: Annotated[NonEmpty, _doc("The query exactly as a user or agent sent it.")]
    query_class: Annotated[
        str | None,
        _doc(
            "Kind of query, a slice of its own: exact_identifier, behavior, stack_trace, "
            "usage_example, overloaded_name, configuration (or one of vocabulary.queryClasses)."
        ),
    ] = None
    repository_revision: Annotated[
        Sha | None, _doc("Full 40-hex commit the labels hold at (default repository.revision).")
    ] = None
    cutoff: Annotated[Cutoff | None, _doc("How many ranked chunks count for this case.")] = None
    context: Annotated[Context | None, _doc("Reliable user state sent with the query.")] = None
    accepted: Annotated[
        tuple[Target, ...] | None, _doc("Shorthand for one required group 'accepted': any target.")
    ] = None
    groups: Annotated[
        tuple[Group, ...] | None, _doc("Required evidence groups: every one must be satisfied.")
    ] = None
    supporting: Annotated[
        tuple[Target, ...] | None, _doc("Useful but not required evidence (graded 1).")
    ] = None
    forbidden_path_prefixes: Annotated[
        tuple[str, ...] | None, _doc("Paths no chunk within the cutoff may come from (traps).")
    ] = None
    rationale: Annotated[str | None, _doc("Why these targets answer the query, for reviewers.")] = (
        None
    )
    tags: Annotated[tuple[str, ...] | None, _doc("Free labels; each one is a slice (tag:X).")] = (
        None
    )
    status: Annotated[
        Literal["draft", "reviewed"] | None,
        _doc(
            "draft: proposed by codegold draft/init, not yet checked by a person (run and "
            "gate skip it unless asked); reviewed (the default) needs a rationale."
        ),
    ] = None
    """``draft``: proposed by `codegold draft`/`init` from traces or code, not yet
    checked by a person; `run` and `gate` skip it unless asked. Default ``reviewed``."""
    origin: Annotated[
        str | None, _doc("Where a drafted case came from (e.g. search-log line 42).")
    ] = None
    """Where a drafted case came from (``search-log line 42``); kept after review."""


class SuiteFile(_Model, frozen=True):
    """The top level of a suite file as written."""

    cases: Annotated[tuple[Case, ...], _doc("The gold cases, in order.")]
    suite: Annotated[str | None, _doc("The suite's name, for reports.")] = None
    repository: Annotated[Repository | None, _doc("The repository and its default revision.")] = (
        None
    )
    defaults: Annotated[Defaults | None, _doc("What every case gets unless it says otherwise.")] = (
        None
    )
    vocabulary: Annotated[
        Vocabulary | None, _doc("Query classes and tags the suite means to use.")
    ] = None
    schema_: Annotated[
        str | None, _doc("JSON Schema the file follows, for editors (ignored by codegold).")
    ] = msgspec.field(default=None, name="$schema")


ACCEPTED_GROUP_ID = "accepted"
QueryClass = Literal[
    "exact_identifier",
    "behavior",
    "stack_trace",
    "usage_example",
    "overloaded_name",
    "configuration",
]
