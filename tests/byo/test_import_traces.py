"""`codegold import traces`: a real pipeline traced with the real OpenTelemetry SDK, its
trace exported as OTLP/JSON and in Phoenix's shape, imported and evaluated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.byo.repo import CASES, make_shop, write_suite
from tests.conftest import run_cli

pytest.importorskip("opentelemetry.sdk")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")

from tests.byo.pipeline import otlp_json, phoenix_json, traced_run

QUERIES = {cid: q for cid, q, _, _ in CASES}


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str, list[object]]:
    tmp = tmp_path_factory.mktemp("traces")
    repo, rev = make_shop(tmp)
    write_suite(tmp / "suite.yaml", rev)
    questions: list[tuple[str | None, str]] = [
        ("coupon", "apply a coupon?"),  # joined by its codegold.case_id attribute
        (None, QUERIES["express"]),  # joined by exact query text
        (None, QUERIES["cart-total"]),
        (None, "What is for lunch today?"),  # no such case: listed, never guessed
    ]
    return tmp, repo, rev, traced_run(repo, rev, questions)


def _import(tmp: Path, trace: Path, *extra: str) -> tuple[list[dict], str]:
    out = trace.with_suffix(".attempts.jsonl")
    proc = run_cli(
        "import",
        "traces",
        str(trace),
        "--cases",
        str(tmp / "suite.yaml"),
        "--out",
        str(out),
        *extra,
    )
    assert proc.returncode == 0, proc.stderr
    return [json.loads(line) for line in out.read_text().splitlines()], proc.stdout + proc.stderr


@pytest.mark.parametrize("shape", ["otlp", "phoenix"])
def test_trace_becomes_attempts_joined_to_cases(
    traced: tuple[Path, Path, str, list[object]], shape: str
) -> None:
    tmp, repo, rev, spans = traced
    trace = tmp / f"{shape}.json"
    trace.write_text((otlp_json if shape == "otlp" else phoenix_json)(spans) + "\n")  # type: ignore[arg-type]
    attempts, said = _import(tmp, trace, "--assume-revision", rev)
    assert [a["caseId"] for a in attempts] == ["coupon", "express", "cart-total"]
    assert "4 retriever spans -> 3 attempts" in said
    assert "query 'What is for lunch today?' matches no case" in said
    assert "cases without a retriever span: add-item" in said
    coupon = attempts[0]
    assert coupon["query"] == "apply a coupon?"
    assert (
        len(coupon["ranked"]) == 3
        and coupon["ranked"][0]["file"] == "/home/dev/shop/shop/discount.py"
    )
    # the LLM span's prompt held only the first document
    assert coupon["contextIds"] == [coupon["ranked"][0]["chunkId"]]
    assert (
        coupon["index"]["revisionAsserted"] is True and coupon["index"]["repositoryRevision"] == rev
    )

    out = tmp / f"eval-{shape}"
    trace_attempts = trace.with_suffix(".attempts.jsonl")
    proc = run_cli(
        "eval",
        "--cases",
        str(tmp / "suite.yaml"),
        "--attempts",
        str(trace_attempts),
        "--out",
        str(out),
        "--repo",
        str(repo),
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    results = {r["caseId"]: r for r in json.loads((out / "results.json").read_text())}
    assert results["coupon"]["passed"] and results["express"]["passed"]
    assert results["coupon"]["revisionEvidence"] == "asserted"
    ranked = results["coupon"]["ranked"]
    assert ranked[0]["file"] == "shop/discount.py" and all(e["resolved"] for e in ranked)
    assert results["add-item"]["diagnosis"]["cause"] == "no_attempt"
    assert {r["mode"] for r in results.values()} == {"imported"}
    assert json.loads((out / "summary.json").read_text())["mode"] == "imported"


def test_without_a_stated_revision_the_cases_are_invalid_and_said_so(
    traced: tuple[Path, Path, str, list[object]],
) -> None:
    tmp, _, _, spans = traced
    trace = tmp / "plain.json"
    trace.write_text(otlp_json(spans))  # type: ignore[arg-type]
    attempts, said = _import(tmp, trace)
    assert all("index" not in a for a in attempts)
    assert "eval will report their cases invalid" in said


def test_otlp_hex_ids_and_jsonl_lines(tmp_path: Path) -> None:
    from codegold.importers.traces import read_spans

    line = {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": "eee19b7ec3c1b174",
                                "name": "retrieve",
                                "startTimeUnixNano": "1700000000000000000",
                                "endTimeUnixNano": "1700000000500000000",
                                "attributes": [
                                    {
                                        "key": "openinference.span.kind",
                                        "value": {"stringValue": "RETRIEVER"},
                                    },
                                    {
                                        "key": "retrieval.documents.0.document.score",
                                        "value": {"doubleValue": 0.5},
                                    },
                                    {
                                        "key": "retrieval.documents.0.document.id",
                                        "value": {"stringValue": "d1"},
                                    },
                                ],
                            }
                        ]
                    }
                ]
            }
        ]
    }
    path = tmp_path / "t.jsonl"
    path.write_text(
        json.dumps(line)
        + "\n"
        + json.dumps(line).replace("eee19b7ec3c1b174", "eee19b7ec3c1b175")
        + "\n"
    )
    spans = read_spans(path)
    assert [s.span_id for s in spans] == ["eee19b7ec3c1b174", "eee19b7ec3c1b175"]
    assert (
        spans[0].kind == "RETRIEVER"
        and spans[0].attributes["retrieval.documents.0.document.score"] == 0.5
    )


def test_not_a_trace_is_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"hello": 1}')
    suite = write_suite(tmp_path / "s.yaml", "0" * 40)
    proc = run_cli(
        "import", "traces", str(path), "--cases", str(suite), "--out", str(tmp_path / "a.jsonl")
    )
    assert (
        proc.returncode == 2
        and "neither OTLP/JSON" in proc.stderr
        and "Traceback" not in proc.stderr
    )


def test_phoenix_dataframe_rows_with_flattened_columns(tmp_path: Path) -> None:
    """`get_spans_dataframe().to_json(orient="records", lines=True)`: dotted columns,
    documents as a list of dicts keyed `document.*`."""
    from codegold.importers.traces import _documents_of, read_spans

    row = {
        "name": "retrieve",
        "span_kind": "RETRIEVER",
        "parent_id": None,
        "start_time": "2024-05-01T10:00:00+00:00",
        "end_time": "2024-05-01T10:00:00.250000+00:00",
        "context.span_id": "a1b2c3d4e5f60718",
        "context.trace_id": "0af7651916cd43dd8448eb211c80319c",
        "attributes.input.value": "How is a coupon percentage applied to the total?",
        "attributes.retrieval.documents": [
            {
                "document.id": "n1",
                "document.content": "def apply_coupon(total, coupon):",
                "document.score": 2.5,
                "document.metadata": {"file_path": "shop/discount.py", "start_line": 4},
            },
        ],
    }
    path = tmp_path / "phoenix.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (span,) = read_spans(path)
    assert span.kind == "RETRIEVER" and span.end_ns - span.start_ns == 250_000_000
    assert _documents_of(span) == [
        {
            "file": "shop/discount.py",
            "startLine": 4,
            "excerpt": "def apply_coupon(total, coupon):",
            "chunkId": "n1",
            "score": 2.5,
        }
    ]
