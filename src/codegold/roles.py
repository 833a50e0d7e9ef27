"""Spec literals: source roles, match kinds, diagnosis causes and owners."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal


class Role(StrEnum):
    """The role a chunk of code plays (SPEC §1)."""

    DEFINITION = "definition"
    DECLARATION = "declaration"
    CALL_SITE = "call_site"
    TEST = "test"
    DOCS = "docs"
    CONFIGURATION = "configuration"
    GENERATED = "generated"
    MIGRATION = "migration"


RoleName = Literal[
    "definition",
    "declaration",
    "call_site",
    "test",
    "docs",
    "configuration",
    "generated",
    "migration",
]
"""The same roles as plain strings, for hot decoding paths."""


class Match(StrEnum):
    """How a ranked chunk relates to its case."""

    ACCEPTED = "accepted"
    SUPPORTING = "supporting"
    FORBIDDEN = "forbidden"
    NONE = "none"


class Cause(StrEnum):
    """Diagnosis causes (SPEC §4), in the order the boundaries are walked."""

    INVALID_RUN = "invalid_run"
    STALE_LABEL = "stale_label"
    EXCLUDED_BY_POLICY = "excluded_by_policy"
    NOT_CHUNKED = "not_chunked"
    METADATA_MISMATCH = "metadata_mismatch"
    CHUNK_BOUNDARY = "chunk_boundary"
    QUERY_REWRITE = "query_rewrite"
    RETRIEVAL_MISS = "retrieval_miss"
    RERANKER_DEMOTION = "reranker_demotion"
    BELOW_CUTOFF = "below_cutoff"
    FORBIDDEN_SOURCE = "forbidden_source"
    REVISION_MISMATCH = "revision_mismatch"
    ANSWER_IGNORED_EVIDENCE = "answer_ignored_evidence"
    NO_ATTEMPT = "no_attempt"
    UNDETERMINED = "undetermined"


OWNERS: dict[Cause, str] = {
    Cause.INVALID_RUN: "indexing",
    Cause.STALE_LABEL: "dataset",
    Cause.EXCLUDED_BY_POLICY: "indexing",
    Cause.NOT_CHUNKED: "parser/chunker",
    Cause.METADATA_MISMATCH: "parser/chunker",
    Cause.CHUNK_BOUNDARY: "parser/chunker",
    Cause.QUERY_REWRITE: "retrieval",
    Cause.RETRIEVAL_MISS: "retrieval",
    Cause.RERANKER_DEMOTION: "reranker",
    Cause.BELOW_CUTOFF: "ranking",
    Cause.FORBIDDEN_SOURCE: "ranking / index policy",
    Cause.REVISION_MISMATCH: "indexing (freshness)",
    Cause.ANSWER_IGNORED_EVIDENCE: "answer generation",
    Cause.NO_ATTEMPT: "retrieval",
    Cause.UNDETERMINED: "unknown",
}
