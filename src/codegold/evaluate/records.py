"""The per-case result record (SPEC §3), as written to results.json, and the one
loader every reader of results.json goes through (diagnose, report, compare, gate,
TREC export, answers)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import msgspec

from codegold.errors import InputError

RESULTS = "results.json"


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
    # codegold located this chunk and named it from its own parse (SPEC §2)
    resolved: bool | None = None
    # where what the retriever claimed disagrees with that parse: evidence for
    # metadata_mismatch (e.g. "symbol 'ShoppingCart' not in Cart, Cart.add_item")
    claim_mismatch: str | None = None
    duplicate_of: int | None = None
    """The rank of the chunk above that this one duplicates (evaluate.graded)."""


class Diagnosis(_Record):
    cause: str
    owner: str
    detail: str
    evidence: dict[str, Any] = msgspec.field(default_factory=dict)
    team: str | None = None
    """The team the owner and the case's files map to (codegold.owners); null without
    an [owners] table or a match."""


class ContextBudget(_Record):
    """Shares of the cutoff's slots by what fills them (evaluate.graded); they sum to 1."""

    accepted: float
    supporting: float
    forbidden: float
    duplicate: float
    other: float
    unfilled: float


MODES = ("live", "recorded", "imported")
"""Which path produced a record: codegold retrieved (``live``), attempts read from a
file (``recorded``), or attempts converted from another tool's logs (``imported``)."""


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
    first_relevant_rank: int | None  # null, like the two below, for an invalid record
    reciprocal_rank: float | None
    group_recall: float | None
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
    # how the attempt's revision is known: "manifest" (an index manifest said so) or
    # "asserted" (stated by whoever ran the retriever, --assume-revision; not proven)
    revision_evidence: str | None = None
    # Graded evidence, the context budget, context kinds and the mode. None in records
    # written before they existed; always written now.
    mode: str | None = None
    context_kinds: list[str] | None = None
    supporting_recall: float | None = None
    graded_ndcg: float | None = None
    context_budget: ContextBudget | None = None
    unretrieved: list[str] = msgspec.field(default_factory=list)


RecordLike = CaseResult | Mapping[str, Any]
"""A results.json record: typed, or decoded JSON still to be checked."""


def load_results(path: str | Path) -> list[CaseResult]:
    """Read a results.json (or a run folder holding one).

    Bad input raises :class:`InputError` naming the file, the record's case id and the
    field."""
    p = Path(path)
    if p.is_dir():
        p = p / RESULTS
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=str(p)) from None
    try:
        return msgspec.json.decode(data, type=list[CaseResult])
    except msgspec.ValidationError as exc:  # a subclass of DecodeError: first
        # The typed decoder can stop at a shape error before it reaches a syntax error.
        try:
            raw = msgspec.json.decode(data)
        except RecursionError:
            raise InputError("nested too deeply to read", file=str(p)) from None
        except msgspec.DecodeError as syntax:
            raise _not_json(syntax, p) from None
        raise _record_error(exc, raw, str(p)) from None
    except msgspec.DecodeError as exc:
        raise _not_json(exc, p) from None
    except RecursionError:
        raise InputError("nested too deeply to read", file=str(p)) from None


def as_records(records: Sequence[RecordLike], *, source: str | None = None) -> list[CaseResult]:
    """Records as :class:`CaseResult`: typed ones pass through, mappings (decoded JSON)
    are checked, raising :class:`InputError` naming ``source``, the case id and the
    field."""
    out: list[CaseResult] = []
    for index, record in enumerate(records):
        if isinstance(record, CaseResult):
            out.append(record)
            continue
        try:
            out.append(msgspec.convert(record, CaseResult))
        except msgspec.ValidationError as exc:
            raise _record_error(exc, records, source, index=index) from None
    return out


def _not_json(exc: msgspec.DecodeError, path: Path) -> InputError:
    return InputError(f"not a codegold results file (not JSON: {exc})", file=str(path))


def _record_error(
    exc: msgspec.ValidationError, raw: Any, source: str | None, *, index: int | None = None
) -> InputError:
    """Turn msgspec's ``... - at `$[3].passed``` into file, case id and field."""
    message, _, where = str(exc).partition(" - at `$")
    where = where.rstrip("`")
    m = re.match(r"\[(\d+)\]", where)
    if m:
        index, where = int(m.group(1)), where[m.end() :]
    field = re.split(r"[.\[]", where.lstrip("."), maxsplit=1)[0] or None
    missing = re.search(r"field `([^`]+)`", message)
    if missing:
        field = f"{field}.{missing.group(1)}" if field else missing.group(1)
    case_id = None
    if index is not None and isinstance(raw, Sequence) and index < len(raw):
        item = raw[index]
        found = item.get("caseId") if isinstance(item, Mapping) else None
        case_id = found if isinstance(found, str) else None
    where_text = f"record {index}: " if index is not None else ""
    return InputError(
        f"{where_text}not a codegold results record: {message}",
        file=source,
        case_id=case_id,
        field=field,
    )
