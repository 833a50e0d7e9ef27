"""The retrieval-attempt contract (SPEC §2): what a retriever produced for a case."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Literal

import msgspec

from codegold._digest import digest_file as digest_file
from codegold.errors import InputError

# part of the attempt contract (``index``); defined with the index that writes it
from codegold.index.manifest import IndexManifest as IndexManifest
from codegold.roles import RoleName

if TYPE_CHECKING:
    from codegold.resolve import SpanResolver


class _Model(msgspec.Struct, rename="camel", frozen=True, omit_defaults=True):
    pass


class ChunkClaim(_Model, frozen=True):
    """What a retriever said about a chunk that codegold resolved itself (SPEC §2):
    kept as its claim, never overwritten by the parse."""

    start_line: int | None = None
    end_line: int | None = None
    symbol: str | None = None
    symbols: tuple[str, ...] | None = None
    role: str | None = None


class RetrievedChunk(_Model, frozen=True):
    chunk_id: str
    file: str
    start_line: int
    end_line: int
    role: RoleName
    repository_revision: str
    score: float
    symbol: str | None = None
    symbols: tuple[str, ...] | None = None
    excerpt: str | None = None
    # True when codegold located the chunk and took its symbols and role from its own
    # parse; ``claim`` then holds what the retriever sent.
    resolved: bool | None = None
    claim: ChunkClaim | None = None


class RetrieverInfo(_Model, frozen=True):
    name: str
    version: str | None = None
    config: dict[str, Any] | None = None


class Attempt(_Model, frozen=True):
    attempt_id: str
    case_id: str
    ranked: tuple[RetrievedChunk, ...]
    retry_of: str | None = None
    query: str | None = None
    rewritten_query: str | None = None
    filters: dict[str, Any] | None = None
    index: IndexManifest | None = None
    retriever: RetrieverInfo | None = None
    candidates: tuple[RetrievedChunk, ...] | None = None
    context_ids: tuple[str, ...] | None = None
    started_at: str | None = None
    duration_ms: float | None = None
    debug: dict[str, Any] | None = None
    # Why chunks of this attempt could not be resolved (SPEC §2): its case is then
    # invalid with these reasons, never scored, and the rest of the run goes on.
    problems: tuple[str, ...] | None = None
    mode: Literal["live", "recorded", "imported"] | None = None
    """Provenance, when a converter knows it: ``imported`` for attempts made from
    another tool's logs (traces, TREC runs). Records of such attempts say ``imported``."""


_decoder = msgspec.json.Decoder(Attempt)


def decode_attempt(line: bytes) -> Attempt:
    return _decoder.decode(line)


def asserted_manifest(revision: str, *, source: str) -> IndexManifest:
    """The manifest of an index nobody showed codegold: only its revision, as stated."""
    return IndexManifest(
        build_id=f"asserted:{source}@{revision[:12]}",
        repository_revision=revision,
        chunker_version="unknown",
        path_policy="unknown",
        built_at="",
        complete=True,
        revision_asserted=True,
    )


def load_attempts(
    path: str | Path,
    *,
    known_cases: Iterable[str] | None = None,
    resolver: SpanResolver | None = None,
    assume_revision: str | None = None,
) -> list[Attempt]:
    """Load attempts from JSONL. Raises InputError naming file, line, case and field."""
    return list(
        iter_attempts(
            path, known_cases=known_cases, resolver=resolver, assume_revision=assume_revision
        )
    )


def iter_attempts(
    path: str | Path,
    *,
    known_cases: Iterable[str] | None = None,
    resolver: SpanResolver | None = None,
    assume_revision: str | None = None,
    span: tuple[int, int, int] | None = None,
    seen: set[str] | None = None,
    decode: Callable[[bytes], Attempt | None] | None = None,
) -> Iterator[Attempt]:
    """Stream attempts from JSONL, validating each line as it is read.

    Chunks that lack lines, role, revision or id (SPEC §2 *minimal chunks*) are resolved
    with ``resolver`` against the file at the attempt's revision; one that cannot be
    (or any chunk, without a resolver) puts its reason in the attempt's ``problems``,
    so that only its case is invalid. ``assume_revision`` stands in for a missing
    manifest, marked as asserted.

    ``span`` ``(start, end, first_line)`` reads only the lines from byte ``start`` (a
    line's first byte) to byte ``end`` (the byte after a newline, or the file's size),
    numbering them from ``first_line``; ``seen`` holds the attempt ids met before that
    span (a duplicate of one is an error), and takes the span's own.

    ``decode``, given, reads each line first (e.g. into a faster shape for scoring);
    a line it gives None for is read the usual way, with the usual errors.
    """
    p = Path(path)
    try:
        handle = p.open("rb", buffering=1 << 16)  # lines are long: read many at once
    except FileNotFoundError:
        raise InputError("no such file", file=str(p)) from None
    known: set[str] | frozenset[str] | None = None
    if known_cases is not None:  # a set given is read as it is, not copied
        known = known_cases if isinstance(known_cases, set | frozenset) else set(known_cases)
    ids: set[str] = set() if seen is None else seen
    with handle:
        lines: Iterable[tuple[int, bytes]]
        if span is None:
            lines = enumerate(handle, start=1)
        else:
            start, end, first_line = span
            handle.seek(start)
            lines = enumerate(_lines_until(handle, end - start), start=first_line)
        yield from _iter_lines(p, lines, known, ids, resolver, assume_revision, decode)


def _lines_until(handle: IO[bytes], size: int) -> Iterator[bytes]:
    """The lines of ``handle`` from where it stands, ``size`` bytes of them."""
    left = size
    for line in handle:
        if left <= 0:
            return
        left -= len(line)
        yield line


def _decode_line(
    p: Path,
    number: int,
    line: bytes,
    resolver: SpanResolver | None,
    assume_revision: str | None,
) -> Attempt:
    try:
        attempt = _decoder.decode(line)
    except msgspec.ValidationError as exc:
        from codegold.resolve import attempt_from_raw

        raw = msgspec.json.decode(line)
        resolved = (
            attempt_from_raw(_set_aside_bad_manifest(raw), resolver, assume_revision)
            if isinstance(raw, dict)
            else None
        )
        if resolved is None:
            raise _attempt_error(p, number, line, exc) from None
        return resolved
    except msgspec.DecodeError as exc:
        raise InputError(f"invalid JSON: {exc}", file=str(p), line=number) from None
    except RecursionError:
        raise InputError("nested too deeply to read", file=str(p), line=number) from None
    return _assumed(attempt, assume_revision)


def _assumed(attempt: Attempt, assume_revision: str | None) -> Attempt:
    """``attempt``, given the asserted manifest of ``assume_revision`` when it has none."""
    if attempt.index is None and assume_revision is not None:
        attempt = msgspec.structs.replace(
            attempt, index=asserted_manifest(assume_revision, source="--assume-revision")
        )
    return attempt


def _set_aside_bad_manifest(raw: dict[str, Any]) -> dict[str, Any]:
    """A malformed ``index`` makes only its own case invalid: it is dropped (never
    borrowed from elsewhere) and the reason joins the attempt's ``problems``."""
    manifest = raw.get("index")
    if manifest is None:
        return raw
    try:
        msgspec.convert(manifest, IndexManifest)
    except msgspec.ValidationError as exc:
        detail, _, where = str(exc).partition(" - at `")
        field = "index" + where.rstrip("`").removeprefix("$")
        problems = raw.get("problems")
        earlier = list(problems) if isinstance(problems, list) else []
        reason = f"index manifest is malformed: {detail} (field {field})"
        return {**{k: v for k, v in raw.items() if k != "index"}, "problems": [*earlier, reason]}
    return raw


def _iter_lines(
    p: Path,
    lines: Iterable[tuple[int, bytes]],
    known: set[str] | frozenset[str] | None,
    seen: set[str],
    resolver: SpanResolver | None,
    assume_revision: str | None,
    decode: Callable[[bytes], Attempt | None] | None,
) -> Iterator[Attempt]:
    for number, line in lines:
        if line.isspace():  # (strip would copy every line to find out)
            continue
        first = decode(line) if decode is not None else None
        if first is not None:
            attempt = _assumed(first, assume_revision)
        else:
            attempt = _decode_line(p, number, line, resolver, assume_revision)
        if attempt.attempt_id in seen:
            raise InputError(
                f"duplicate attemptId {attempt.attempt_id!r}",
                file=str(p),
                line=number,
                case_id=attempt.case_id,
                field="attemptId",
            )
        seen.add(attempt.attempt_id)
        if known is not None and attempt.case_id not in known:
            raise InputError(
                "attempt for a case that is not in the suite",
                file=str(p),
                line=number,
                case_id=attempt.case_id,
                field="caseId",
            )
        yield attempt


def _attempt_error(
    path: Path, number: int, line: bytes, exc: msgspec.ValidationError
) -> InputError:
    message = str(exc)
    detail, _, where = message.partition(" - at `")
    field = where.rstrip("`").removeprefix("$.") or None
    case_id = None
    try:
        raw = msgspec.json.decode(line)
        if isinstance(raw, dict) and isinstance(raw.get("caseId"), str):
            case_id = raw["caseId"]
    except msgspec.DecodeError:
        pass
    return InputError(detail, file=str(path), line=number, case_id=case_id, field=field)
