#!/usr/bin/env python3
"""Bring-your-own-pipeline adapters end to end on a real repository, with figures.

    python benchmarks/corpora.py click && python benchmarks/byo_adapters.py

For each adapter (llamaindex:, langchain:, command: answering minimal chunks, and an
OpenTelemetry trace of a traced LlamaIndex pipeline imported with `import traces`) it
runs the click gold suite (symbol-level targets) and prints the pass rate, how many
chunks codegold resolved, and the cost of resolution per chunk: the attempts' chunks,
reduced to what the retriever sent, resolved again with a fresh resolver (cold: every
file parsed once) and then again (warm: parses cached).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
ROOT = HERE.parent
CORPUS = HERE / ".work" / "corpora" / "click"
SUITE = HERE / "suites" / "click.yaml"
WORK = HERE / ".work" / "byo"


def resolution_cost(repo: Path, attempts: list[dict[str, Any]]) -> tuple[int, float, float]:
    from codegold.corpus.git import GitRepo
    from codegold.resolve import SpanResolver

    sent = []
    for a in attempts:
        revision = a["index"]["repositoryRevision"]
        for c in a["ranked"]:
            raw = {"file": c["file"], "excerpt": c.get("excerpt")}
            claim = c.get("claim") or {}
            if claim.get("startLine") is not None:
                raw.update(startLine=claim["startLine"], endLine=claim["endLine"])
            sent.append((raw, revision))
    with GitRepo(repo) as git:
        figures = []
        resolver = SpanResolver.from_git(git)
        for _ in range(2):
            t0 = time.perf_counter()
            for rank, (raw, revision) in enumerate(sent, 1):
                resolver.resolve(raw, revision, rank=rank)
            figures.append((time.perf_counter() - t0) / max(1, len(sent)) * 1e6)
    return len(sent), figures[0], figures[1]


def report(name: str, out: Path, repo: Path, seconds: float) -> None:
    results = json.loads((out / "results.json").read_text())
    attempts = [json.loads(x) for x in (out / "attempts.jsonl").read_text().splitlines()]
    valid = [r for r in results if r["valid"]]
    passed = sum(r["passed"] for r in valid)
    ranked = [e for r in results for e in r["ranked"]]
    resolved = sum(1 for e in ranked if e.get("resolved"))
    within = [e for r in results for e in r["ranked"][: r["cutoff"]]]
    mismatched = sum(1 for e in ranked if e.get("claimMismatch"))
    n, cold, warm = resolution_cost(repo, attempts)
    evidence = sorted({r.get("revisionEvidence") for r in results if r.get("revisionEvidence")})
    print(
        f"{name:<11} cases {len(results)} valid {len(valid)} passed {passed} "
        f"pass@5 {passed / max(1, len(results)):.3f} | chunks {len(ranked)} resolved {resolved} "
        f"(within cutoff {len(within)}) claimMismatch {mismatched} | resolve {n} chunks: "
        f"cold {cold:.0f} us/chunk, warm {warm:.0f} us/chunk | revision {','.join(evidence)} "
        f"| {seconds:.1f} s"
    )


def run(name: str, spec: str, extra: dict[str, Any] | None = None) -> None:
    from codegold.pipeline import run_pipeline

    out = WORK / name
    t0 = time.perf_counter()
    run_pipeline(
        cases_path=SUITE,
        repo_path=CORPUS,
        out_dir=out,
        index_dir=WORK / "index",
        retriever_name=spec,
        **(extra or {}),
    )
    report(name, out, CORPUS, time.perf_counter() - t0)


def traced(revision: str) -> Path:
    """The LlamaIndex pipeline, each query traced by the OpenTelemetry SDK with
    OpenInference attributes (retriever span, then an LLM span whose prompt holds the
    top three documents), exported as one OTLP/JSON request."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from byo_factories import build_llama
    from codegold.cases import load_suite
    from codegold.corpus.git import GitRepo
    from codegold.retrieve.frameworks import checkout

    with GitRepo(CORPUS) as git:
        root = checkout(git, revision, WORK / "index" / "checkouts").resolve()
    retriever = build_llama(str(root), revision)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("click-rag")
    for case in load_suite(SUITE).cases:
        with tracer.start_as_current_span("query") as chain:
            chain.set_attribute("openinference.span.kind", "CHAIN")
            chain.set_attribute("codegold.revision", revision)
            with tracer.start_as_current_span("retrieve") as span:
                span.set_attribute("openinference.span.kind", "RETRIEVER")
                span.set_attribute("input.value", case.query)
                found = retriever.retrieve(case.query)
                for i, hit in enumerate(found):
                    p = f"retrieval.documents.{i}.document"
                    span.set_attribute(f"{p}.id", hit.node.node_id)
                    span.set_attribute(f"{p}.content", hit.node.get_content())
                    span.set_attribute(f"{p}.score", float(hit.score or 0.0))
                    span.set_attribute(f"{p}.metadata", json.dumps(hit.node.metadata))
            with tracer.start_as_current_span("llm") as llm:
                llm.set_attribute("openinference.span.kind", "LLM")
                context = "\n\n".join(h.node.get_content() for h in found[:3])
                llm.set_attribute("llm.input_messages.0.message.role", "user")
                llm.set_attribute(
                    "llm.input_messages.0.message.content", f"{context}\n\nQ: {case.query}"
                )
    provider.shutdown()
    path = WORK / "click-trace.otlp.json"
    path.write_text(json.dumps(MessageToDict(encode_spans(exporter.get_finished_spans()))) + "\n")
    print(
        f"trace: {len(exporter.get_finished_spans())} spans, {path.stat().st_size} bytes -> {path}"
    )
    return path


def main() -> None:
    from codegold.cases import load_suite
    from codegold.pipeline import eval_pipeline

    WORK.mkdir(parents=True, exist_ok=True)
    revision = load_suite(SUITE).revisions[0]
    run("llamaindex", "llamaindex:byo_factories:build_llama")
    run("langchain", "langchain:byo_factories:build_langchain")
    run(
        "command",
        f"command:{sys.executable} {HERE / 'byo_command.py'} {CORPUS}",
        {"assume_revision": revision},
    )
    trace = traced(revision)
    from codegold.importers.traces import import_traces, read_spans

    t0 = time.perf_counter()
    found = import_traces(read_spans(trace), load_suite(SUITE), source=str(trace))
    out = WORK / "traces"
    out.mkdir(exist_ok=True)
    (out / "attempts.jsonl").write_text("".join(json.dumps(a) + "\n" for a in found.attempts))
    ctx = [len(a.get("contextIds", [])) for a in found.attempts]
    print(
        f"import traces: {found.spans} spans, {found.retriever_spans} retriever spans -> "
        f"{len(found.attempts)} attempts, unmatched {len(found.unmatched)}, contextIds per "
        f"attempt {min(ctx)}-{max(ctx)} ({time.perf_counter() - t0:.2f} s)"
    )
    t0 = time.perf_counter()
    eval_pipeline(
        cases_path=SUITE,
        attempts_path=out / "attempts.jsonl",
        out_dir=out,
        repo_path=CORPUS,
        index_dir=WORK / "index",
    )
    report("traces", out, CORPUS, time.perf_counter() - t0)


if __name__ == "__main__":
    main()
