"""Retrieval attempts from the traces a pipeline already writes (OpenTelemetry, OpenInference).

Reads two formats:

* **OTLP/JSON**, as the OpenTelemetry collector's file exporter writes it: one
  ``{"resourceSpans": [...]}`` document per line (or one for the whole file); ids in
  hex, as the OTLP/JSON encoding says, or base64, as protobuf's JSON mapping gives them;
* **Phoenix span exports**: a JSON array (or ``{"data": [...]}``, or JSON lines) of
  spans with ``context.trace_id``/``context.span_id``, ``parent_id``, ``span_kind``,
  ``start_time`` and ``attributes``, nested or flattened (``attributes.input.value``
  columns of a spans dataframe).

A span whose ``openinference.span.kind`` is ``RETRIEVER`` becomes an attempt: its
``retrieval.documents.N.document.{id,content,score,metadata}`` the ranked chunks (file
from ``metadata.file_path``/``file_name``/``source``, lines from
``metadata.start_line``/``end_line`` when present), its ``input.value`` the query. It
is joined to a case by a ``codegold.case_id`` attribute on the span or an ancestor,
else by exact query text; a span that matches no case is listed, never guessed. An
LLM span later in the same trace whose input holds a document (its id or its text)
makes that document part of ``contextIds``, for answer linkage.

The chunks are written as SPEC §2 minimal chunks: ``codegold eval --repo`` resolves
them against codegold's parse of each file at the revision.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from codegold.attempts import asserted_manifest
from codegold.cases.suite import ResolvedCase, Suite
from codegold.errors import InputError

__all__ = ["Span", "TraceImport", "import_traces", "read_spans"]

KIND = "openinference.span.kind"
CASE_ATTRIBUTE = "codegold.case_id"
REVISION_ATTRIBUTES = ("codegold.revision", "repository.revision")
_DOC = re.compile(r"^retrieval\.documents\.(\d+)\.document\.(id|content|score|metadata)$")
_LLM_INPUT = ("input.value", "llm.input_messages", "llm.prompts", "llm.prompt_template.variables")
_HEX = re.compile(r"^[0-9a-fA-F]+$")


@dataclass(frozen=True)
class Span:
    """One span, its attributes flattened to dotted keys."""

    trace_id: str
    span_id: str
    parent_id: str | None
    name: str
    start_ns: int
    end_ns: int
    attributes: Mapping[str, Any]

    @property
    def kind(self) -> str:
        value = self.attributes.get(KIND)
        return str(value).upper() if value is not None else ""


@dataclass
class TraceImport:
    """What an import found: the attempts (attempt-format dicts, minimal chunks), the
    retriever spans it could not join to a case (with the reason), and the cases no
    span answered."""

    attempts: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[tuple[str, str]] = field(default_factory=list)
    cases_without_spans: list[str] = field(default_factory=list)
    spans: int = 0
    retriever_spans: int = 0


# -- reading ---------------------------------------------------------------------------


def _documents(path: Path) -> Iterator[Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", file=str(path)) from None
    try:
        yield json.loads(text)
        return
    except json.JSONDecodeError:
        pass
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=number) from None


def read_spans(path: str | Path) -> list[Span]:
    """Every span of an OTLP/JSON or Phoenix export, in (start time, span id) order."""
    p = Path(path)
    spans: list[Span] = []
    for doc in _documents(p):
        spans.extend(_spans_of(doc, str(p)))
    spans.sort(key=lambda s: (s.start_ns, s.span_id))
    return spans


def _spans_of(doc: Any, source: str) -> Iterator[Span]:
    if isinstance(doc, list):
        for item in doc:
            yield from _spans_of(item, source)
    elif isinstance(doc, dict) and "resourceSpans" in doc:
        for resource in doc.get("resourceSpans") or ():
            scopes = resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans")
            for scope in scopes or ():
                for raw in scope.get("spans") or ():
                    yield _otlp_span(raw, source)
    elif isinstance(doc, dict) and isinstance(doc.get("data"), list):
        yield from _spans_of(doc["data"], source)
    elif isinstance(doc, dict) and ("context" in doc or "context.span_id" in doc):
        yield _phoenix_span(doc, source)
    else:
        raise InputError(
            "neither OTLP/JSON (resourceSpans) nor a Phoenix span export (context.span_id)",
            file=source,
        )


def _otlp_id(value: Any) -> str:
    if not isinstance(value, str) or not value:
        return ""
    if _HEX.match(value) and len(value) in (16, 32):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return value


def _otlp_value(value: Any) -> Any:
    if not isinstance(value, dict):
        return value
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_otlp_value(v) for v in (value["arrayValue"] or {}).get("values", [])]
    if "kvlistValue" in value:
        pairs = (value["kvlistValue"] or {}).get("values", [])
        return {p["key"]: _otlp_value(p.get("value")) for p in pairs}
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def _otlp_span(raw: Mapping[str, Any], source: str) -> Span:
    attributes: dict[str, Any] = {}
    for pair in raw.get("attributes") or ():
        _flatten(pair.get("key", ""), _otlp_value(pair.get("value")), attributes)
    span_id = _otlp_id(raw.get("spanId"))
    if not span_id:
        raise InputError("a span without spanId", file=source)
    return Span(
        trace_id=_otlp_id(raw.get("traceId")),
        span_id=span_id,
        parent_id=_otlp_id(raw.get("parentSpanId")) or None,
        name=str(raw.get("name", "")),
        start_ns=int(raw.get("startTimeUnixNano") or 0),
        end_ns=int(raw.get("endTimeUnixNano") or 0),
        attributes=attributes,
    )


def _iso_ns(value: Any) -> int:
    if isinstance(value, int | float):
        return int(value)
    if not isinstance(value, str) or not value:
        return 0
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000) * 1000


def _phoenix_span(raw: Mapping[str, Any], source: str) -> Span:
    nested_context = raw.get("context")
    context: Mapping[str, Any] = nested_context if isinstance(nested_context, dict) else {}
    trace_id = context.get("trace_id") or raw.get("context.trace_id") or ""
    span_id = context.get("span_id") or raw.get("context.span_id") or ""
    if not span_id:
        raise InputError("a span without context.span_id", file=source)
    attributes: dict[str, Any] = {}
    nested = raw.get("attributes")
    if isinstance(nested, dict):
        for key, value in nested.items():
            _flatten(key, value, attributes)
    for key, value in raw.items():
        if key.startswith("attributes.") and value is not None:
            _flatten(key.removeprefix("attributes."), value, attributes)
    kind = raw.get("span_kind")
    if kind and KIND not in attributes:
        attributes[KIND] = kind
    return Span(
        trace_id=str(trace_id),
        span_id=str(span_id),
        parent_id=str(raw["parent_id"]) if raw.get("parent_id") else None,
        name=str(raw.get("name", "")),
        start_ns=_iso_ns(raw.get("start_time")),
        end_ns=_iso_ns(raw.get("end_time")),
        attributes=attributes,
    )


def _flatten(prefix: str, value: Any, out: dict[str, Any]) -> None:
    """Nested dicts and lists of dicts become dotted keys (``retrieval.documents.0.…``);
    lists of scalars stay lists."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), inner, out)
    elif isinstance(value, list) and any(isinstance(v, dict) for v in value):
        for i, inner in enumerate(value):
            _flatten(f"{prefix}.{i}", inner, out)
    else:
        out[prefix] = value


# -- joining -----------------------------------------------------------------------------


def _metadata(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            decoded = json.loads(value)
        except json.JSONDecodeError:
            return {}
        return decoded if isinstance(decoded, dict) else {}
    return {}


def _documents_of(span: Span) -> list[dict[str, Any]]:
    """The span's retrieved documents in rank order, as minimal chunks."""
    by_index: dict[int, dict[str, Any]] = {}
    meta_parts: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        m = _DOC.match(key)
        if m:
            by_index.setdefault(int(m.group(1)), {})[m.group(2)] = value
            continue
        # metadata flattened one level further (nested exports)
        if key.startswith("retrieval.documents.") and ".document.metadata." in key:
            head, _, leaf = key.partition(".document.metadata.")
            number = head.removeprefix("retrieval.documents.")
            if number.isdigit():
                meta_parts.setdefault(int(number), {})[leaf] = value
    chunks: list[dict[str, Any]] = []
    for index in sorted(set(by_index) | set(meta_parts)):
        doc = by_index.get(index, {})
        meta = {**_metadata(doc.get("metadata")), **meta_parts.get(index, {})}
        chunk: dict[str, Any] = {}
        recorded = next(
            (meta[k] for k in ("file_path", "file_name", "source", "path", "file") if meta.get(k)),
            None,
        )
        if recorded is not None:
            chunk["file"] = str(recorded)
        for key, name in (
            ("start_line", "startLine"),
            ("end_line", "endLine"),
            ("startLine", "startLine"),
            ("endLine", "endLine"),
        ):
            value = meta.get(key)
            if isinstance(value, int) and not isinstance(value, bool):
                chunk[name] = value
        if doc.get("content") is not None:
            chunk["excerpt"] = str(doc["content"])
        if doc.get("id") is not None:
            chunk["chunkId"] = str(doc["id"])
        score = doc.get("score")
        if isinstance(score, int | float) and not isinstance(score, bool):
            chunk["score"] = float(score)
        for key in ("symbol", "role"):
            if isinstance(meta.get(key), str):
                chunk[key] = meta[key]
        chunks.append(chunk)
    return chunks


def _query(span: Span) -> str | None:
    value = span.attributes.get("input.value")
    if not isinstance(value, str):
        return None
    if str(span.attributes.get("input.mime_type", "")).endswith("json"):
        try:
            decoded = json.loads(value)
        except json.JSONDecodeError:
            return value
        if isinstance(decoded, dict):
            for key in ("query", "query_str", "input", "question"):
                if isinstance(decoded.get(key), str):
                    return str(decoded[key])
        if isinstance(decoded, str):
            return decoded
    return value


def _ancestor_attribute(span: Span, by_id: Mapping[str, Span], key: str) -> Any:
    seen: set[str] = set()
    current: Span | None = span
    while current is not None and current.span_id not in seen:
        if current.attributes.get(key) is not None:
            return current.attributes[key]
        seen.add(current.span_id)
        current = by_id.get(current.parent_id) if current.parent_id else None
    return None


def _llm_text(span: Span) -> str:
    parts = [
        str(value)
        for key, value in sorted(span.attributes.items())
        if any(key == p or key.startswith(p + ".") for p in _LLM_INPUT) and value is not None
    ]
    return "\n".join(parts)


def _context_ids(
    retriever: Span, chunks: Sequence[dict[str, Any]], llm_spans: Iterable[Span]
) -> list[str] | None:
    later = [
        s
        for s in llm_spans
        if s.trace_id == retriever.trace_id and s.start_ns >= retriever.start_ns
    ]
    if not later:
        return None
    text = "\n".join(_llm_text(s) for s in later)
    ids: list[str] = []
    for chunk in chunks:
        chunk_id = chunk.get("chunkId")
        if chunk_id is None:
            continue
        excerpt = str(chunk.get("excerpt") or "").strip()
        if chunk_id in text or (len(excerpt) >= 20 and excerpt in text):
            ids.append(str(chunk_id))
    return ids


def _iso(ns: int) -> str | None:
    if ns <= 0:
        return None
    moment = datetime.fromtimestamp(ns / 1e9, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _case_of(
    span: Span,
    query: str | None,
    by_id: Mapping[str, Span],
    cases: Mapping[str, ResolvedCase],
    by_query: Mapping[str, list[str]],
) -> tuple[str | None, str | None]:
    """(the case a retriever span answers, or None; why it matches none, or None).

    A ``codegold.case_id`` attribute on the span or an ancestor names the case; else
    the span's query must equal exactly one case's query."""
    case_id = _ancestor_attribute(span, by_id, CASE_ATTRIBUTE)
    if case_id is not None:
        case_id = str(case_id)
        if case_id not in cases:
            return None, f"codegold.case_id {case_id!r} is not in the suite"
        return case_id, None
    matches = by_query.get((query or "").strip(), [])
    if not matches:
        shown = (query or "")[:60]
        return None, f"query {shown!r} matches no case"
    if len(matches) > 1:
        return None, f"query matches several cases: {', '.join(sorted(matches))}"
    return matches[0], None


def _asserted_index(
    span: Span,
    case_id: str,
    by_id: Mapping[str, Span],
    revision_for: Callable[[str], str | None] | None,
    source: str,
) -> dict[str, Any] | None:
    """The index manifest asserted for the span's attempt, or None when no revision is known."""
    revision = revision_for(case_id) if revision_for is not None else None
    if revision is None:
        stated = _ancestor_attribute(span, by_id, REVISION_ATTRIBUTES[0])
        stated = stated or _ancestor_attribute(span, by_id, REVISION_ATTRIBUTES[1])
        revision = str(stated) if stated else None
    if revision is None:
        return None
    manifest = asserted_manifest(revision, source=f"trace:{Path(source).name}")
    return {
        "buildId": manifest.build_id,
        "repositoryRevision": manifest.repository_revision,
        "chunkerVersion": manifest.chunker_version,
        "pathPolicy": manifest.path_policy,
        "builtAt": manifest.built_at,
        "complete": True,
        "revisionAsserted": True,
    }


def _attempt_of(
    span: Span, attempt_id: str, case: ResolvedCase, query: str | None, llm: Sequence[Span]
) -> dict[str, Any]:
    """The attempt a retriever span records, without its index manifest."""
    chunks = _documents_of(span)
    attempt: dict[str, Any] = {
        "attemptId": attempt_id,
        "caseId": case.id,
        "query": query if query is not None else case.query,
        "retriever": {"name": f"trace:{span.name}" if span.name else "trace"},
        "mode": "imported",
        "ranked": chunks,
        "debug": {"traceId": span.trace_id, "spanId": span.span_id},
    }
    context = _context_ids(span, chunks, llm)
    if context is not None:
        attempt["contextIds"] = context
    started = _iso(span.start_ns)
    if started is not None:
        attempt["startedAt"] = started
        if span.end_ns >= span.start_ns:
            attempt["durationMs"] = round((span.end_ns - span.start_ns) / 1e6, 3)
    return attempt


def import_traces(
    spans: Sequence[Span],
    suite: Suite,
    *,
    revision_for: Callable[[str], str | None] | None = None,
    source: str = "",
) -> TraceImport:
    """Attempts for the suite's cases from the retriever spans of ``spans``.

    ``revision_for(case_id)`` gives the revision to assert for a case's attempts (from
    ``--assume-revision``); else a ``codegold.revision`` (or ``repository.revision``)
    attribute on the span or an ancestor is asserted; else the attempt has no manifest
    and its case will be invalid, as SPEC §2 says."""
    result = TraceImport(spans=len(spans))
    by_id = {s.span_id: s for s in spans}
    cases = {c.id: c for c in suite.cases}
    by_query: dict[str, list[str]] = {}
    for case in suite.cases:
        by_query.setdefault(case.query.strip(), []).append(case.id)
    llm = [s for s in spans if s.kind == "LLM"]
    counts: dict[str, int] = {}
    for span in spans:
        if span.kind != "RETRIEVER":
            continue
        result.retriever_spans += 1
        query = _query(span)
        case_id, problem = _case_of(span, query, by_id, cases, by_query)
        if case_id is None:
            result.unmatched.append((span.span_id, problem or ""))
            continue
        counts[case_id] = counts.get(case_id, 0) + 1
        attempt = _attempt_of(span, f"{case_id}#{counts[case_id]}", cases[case_id], query, llm)
        index = _asserted_index(span, case_id, by_id, revision_for, source)
        if index is not None:
            attempt["index"] = index
        result.attempts.append(attempt)
    answered = {a["caseId"] for a in result.attempts}
    result.cases_without_spans = [c.id for c in suite.cases if c.id not in answered]
    return result
