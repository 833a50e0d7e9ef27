"""Your own pipeline, measured live: the command and HTTP adapters, end to end."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

V2 = "dcead23b68a761db5d8d41607a99b0d2da5e3acb"
# A toy external retriever: always answers the refund question's evidence first.
ANSWER = {
    "ranked": [
        {
            "chunkId": "ext-1",
            "file": "src/payments/refund.ts",
            "startLine": 1,
            "endLine": 5,
            "symbol": "capRefund",
            "role": "definition",
            "repositoryRevision": V2,
            "score": 0.9,
        },
        {
            "chunkId": "ext-2",
            "file": "src/retry.ts",
            "startLine": 1,
            "endLine": 20,
            "symbol": "RetryPolicy",
            "role": "definition",
            "repositoryRevision": V2,
            "score": 0.5,
        },
    ],
    "index": {
        "buildId": "ext-idx",
        "repositoryRevision": V2,
        "chunkerVersion": "ext/1",
        "pathPolicy": "ext",
        "builtAt": "2024-01-01T00:00:00Z",
        "complete": True,
    },
    "retriever": {"name": "toy", "version": "1"},
}
SCRIPT = f"""
import json, sys
request = json.load(sys.stdin)
answer = json.loads({json.dumps(json.dumps(ANSWER))})
answer["rewrittenQuery"] = request["query"].lower()
if request["repositoryRevision"] != "{V2}":
    answer.pop("index")  # it cannot vouch for other revisions
json.dump(answer, sys.stdout)
"""


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("adapters")
    shutil.copytree(
        ROOT / "examples", work / "examples", ignore=shutil.ignore_patterns("repo", "out")
    )
    subprocess.run(
        [sys.executable, "examples/make_example_repo.py"], cwd=work, check=True, capture_output=True
    )
    (work / "toy.py").write_text(SCRIPT)
    return work


def _results(work: Path, out: str) -> dict[str, dict[str, object]]:
    return {r["caseId"]: r for r in json.loads((work / out / "results.json").read_text())}


def test_command_adapter(example: Path) -> None:
    proc = run_cli(
        "run",
        "--cases",
        "examples/acme/suite.yaml",
        "--repo",
        "examples/repo",
        "--out",
        "cmd",
        "--embedder",
        "none",
        "--quiet",
        "--retriever",
        f"command:{sys.executable} toy.py",
        cwd=example,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(example, "cmd")
    assert results["refund-cap"]["passed"] is True
    assert results["retry-policy-definition"]["firstRelevantRank"] == 2
    # the case pinned to another revision got no manifest back: invalid, not scored
    assert results["refund-cap-before-move"]["valid"] is False
    assert "manifest missing" in str(results["refund-cap-before-move"]["invalidReason"])
    attempts = [
        json.loads(line) for line in (example / "cmd" / "attempts.jsonl").read_text().splitlines()
    ]
    assert {a["retriever"]["name"] for a in attempts} == {"toy"}
    assert attempts[0]["rewrittenQuery"] == attempts[0]["query"].lower()


class _Toy(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        answer = dict(ANSWER, rewrittenQuery=request["query"])
        body = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def service() -> Iterator[str]:
    server = HTTPServer(("127.0.0.1", 0), _Toy)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/retrieve"
    server.shutdown()
    server.server_close()


def test_http_adapter(example: Path, service: str) -> None:
    proc = run_cli(
        "run",
        "--cases",
        "examples/acme/suite.yaml",
        "--repo",
        "examples/repo",
        "--out",
        "http",
        "--embedder",
        "none",
        "--quiet",
        "--retriever",
        f"http:{service}",
        cwd=example,
    )
    assert proc.returncode == 0, proc.stderr
    results = _results(example, "http")
    assert results["refund-cap"]["passed"] is True
    assert results["webhook-signature"]["passed"] is False


def test_unknown_retriever_is_a_usage_error(example: Path) -> None:
    proc = run_cli(
        "run",
        "--cases",
        "examples/acme/suite.yaml",
        "--repo",
        "examples/repo",
        "--out",
        "bad",
        "--embedder",
        "none",
        "--retriever",
        "nosuch",
        cwd=example,
    )
    assert proc.returncode == 2
    assert "unknown retriever 'nosuch'" in proc.stderr


def test_failing_command_names_the_case(example: Path) -> None:
    proc = run_cli(
        "run",
        "--cases",
        "examples/acme/suite.yaml",
        "--repo",
        "examples/repo",
        "--out",
        "fail",
        "--embedder",
        "none",
        "--retriever",
        f"command:{sys.executable} -c 'raise SystemExit(3)'",
        cwd=example,
    )
    assert proc.returncode == 3
    assert "exited 3 on case" in proc.stderr
    assert not (example / "fail" / "results.json").exists()
