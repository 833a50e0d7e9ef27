"""A small real RAG pipeline over the shop repository, traced with the OpenTelemetry SDK
and OpenInference attribute names, as a team's instrumented pipeline would be."""

from __future__ import annotations

import json
import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

WINDOW = 6


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower().replace("_", " ")))


def windows(repo: Path, revision: str) -> list[dict[str, Any]]:
    names = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", revision],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    out = []
    for name in names:
        if not name.endswith(".py"):
            continue
        text = subprocess.run(
            ["git", "-C", str(repo), "show", f"{revision}:{name}"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        lines = text.splitlines()
        for start in range(0, len(lines), WINDOW):
            body = "\n".join(lines[start : start + WINDOW])
            if body.strip():
                out.append({"id": f"{name}@{start + 1}", "path": name, "text": body})
    return out


def retrieve(
    docs: list[dict[str, Any]], query: str, k: int = 3
) -> list[tuple[dict[str, Any], float]]:
    q = _words(query)
    scored = [(d, len(q & _words(d["text"])) / (1 + len(_words(d["text"])) ** 0.5)) for d in docs]
    scored.sort(key=lambda p: (-p[1], p[0]["id"]))
    return scored[:k]


def traced_run(
    repo: Path,
    revision: str,
    questions: list[tuple[str | None, str]],
    *,
    root: str = "/home/dev/shop",
) -> list[Any]:
    """Answer each question (case id or None, query) with retrieve -> prompt, every step a
    span; returns the finished ReadableSpans."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("shop-rag")
    docs = windows(repo, revision)
    for case_id, query in questions:
        with tracer.start_as_current_span("rag") as chain:
            chain.set_attribute("openinference.span.kind", "CHAIN")
            chain.set_attribute("input.value", query)
            if case_id is not None:
                chain.set_attribute("codegold.case_id", case_id)
            with tracer.start_as_current_span("retrieve") as span:
                span.set_attribute("openinference.span.kind", "RETRIEVER")
                span.set_attribute("input.value", query)
                found = retrieve(docs, query)
                for i, (doc, score) in enumerate(found):
                    prefix = f"retrieval.documents.{i}.document"
                    span.set_attribute(f"{prefix}.id", doc["id"])
                    span.set_attribute(f"{prefix}.content", doc["text"])
                    span.set_attribute(f"{prefix}.score", score)
                    span.set_attribute(
                        f"{prefix}.metadata", json.dumps({"file_path": f"{root}/{doc['path']}"})
                    )
            with tracer.start_as_current_span("llm") as llm:
                llm.set_attribute("openinference.span.kind", "LLM")
                # only the best document fits the prompt budget
                prompt = f"Context:\n{found[0][0]['text']}\n\nQuestion: {query}"
                llm.set_attribute("llm.input_messages.0.message.role", "user")
                llm.set_attribute("llm.input_messages.0.message.content", prompt)
                llm.set_attribute("output.value", "(answer)")
    provider.shutdown()
    return list(exporter.get_finished_spans())


def otlp_json(spans: list[Any]) -> str:
    """One OTLP/JSON ExportTraceServiceRequest, via the SDK's own OTLP encoder."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    return json.dumps(MessageToDict(encode_spans(spans)))


def phoenix_json(spans: list[Any]) -> str:
    """The same spans in Phoenix's span-export shape (nested context, attributes dict)."""
    out = []
    for s in spans:
        out.append(
            {
                "name": s.name,
                "context": {
                    "trace_id": f"{s.context.trace_id:032x}",
                    "span_id": f"{s.context.span_id:016x}",
                },
                "parent_id": f"{s.parent.span_id:016x}" if s.parent else None,
                "span_kind": s.attributes.get("openinference.span.kind"),
                "start_time": datetime.fromtimestamp(s.start_time / 1e9, UTC).isoformat(),
                "end_time": datetime.fromtimestamp(s.end_time / 1e9, UTC).isoformat(),
                "attributes": dict(s.attributes),
            }
        )
    return json.dumps(out)
