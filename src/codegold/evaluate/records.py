"""The per-case result record (SPEC §3), as written to results.json."""

from __future__ import annotations

from typing import Any

import msgspec


class _Record(msgspec.Struct, rename="camel"):
    pass


class RankedEntry(_Record):
    rank: int
    chunk_id: str
    file: str
    symbol: str | None
    role: str
    repository_revision: str
    score: float
    match: str
    start_line: int
    end_line: int
    covers_target_span: bool = False


class Diagnosis(_Record):
    cause: str
    owner: str
    detail: str
    evidence: dict[str, Any] = msgspec.field(default_factory=dict)


class CaseResult(_Record):
    case_id: str
    query: str
    query_class: str | None
    repository_revision: str | None
    cutoff: int
    attempt_id: str | None
    valid: bool
    invalid_reason: str | None
    passed: bool
    first_relevant_rank: int | None
    reciprocal_rank: float
    group_recall: float
    missing_group_ids: list[str]
    supporting_found: list[str]
    forbidden_chunk_ids: list[str]
    revision_mismatches: list[str]
    tags: list[str]
    language: str | None
    area: str | None
    target_roles: list[str]
    ranked: list[RankedEntry]
    diagnosis: Diagnosis | None = None
    nondeterministic: bool | None = None
