"""`codegold draft`: real traces into draft cases over real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from codegold.cases.suite import load_suite
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

APP = '''\
import os


class Client:
    """A client."""

    def send(self, request):
        body = request.body
        return body

    def close(self):
        return None


def helper(x):
    return x + 1
'''
TEST = """\
from app import helper


def test_helper():
    assert helper(1) == 2
"""


def _repo(tmp_path: Path) -> tuple[Path, list[str]]:
    return make_repo(
        tmp_path,
        [
            {"src/app.py": APP, "tests/test_app.py": TEST, "README.md": "# demo\n"},
            {"src/app.py": APP + "\n\ndef later():\n    return 2\n"},
        ],
    )


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_search_log_drafts_pinned_resolved_redacted_cases(tmp_path: Path) -> None:
    repo, shas = _repo(tmp_path)
    log = _jsonl(
        tmp_path / "search.jsonl",
        [
            {"query": "how does Client send a request", "opened": [{"file": "src/app.py", "line": 9}]},
            {"query": "helper", "opened": [{"file": "/home/alice/code/repo/src/app.py", "line": 16},
                                            {"file": "tests/test_app.py", "line": 5}]},
            # the same question again: merged, its pointer counted twice
            {"query": "how does  Client send a request", "opened": [{"file": "src/app.py", "line": 8},
                                                                    {"file": "README.md"}]},
            {"query": "ask bob@example.com about C:\\Users\\bob\\x.py token "
                      "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
             "opened": [{"file": "src/app.py", "line": 12}], "revision": shas[0][:10]},
            {"query": "gone", "opened": [{"file": "src/deleted.py", "line": 1}]},
            {"query": "past the end", "opened": [{"file": "src/app.py", "line": 999}]},
        ],
    )  # fmt: skip
    out = tmp_path / "draft.yaml"
    done = run_cli(
        "draft", "--from", "search-log", str(log), "--repo", str(repo), "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "drafted 3 case(s) from 6 search-log record(s) (1 merged" in done.stdout
    assert "skipped 1 pointer(s): file not at the revision" in done.stdout
    assert "skipped 1 pointer(s): line past the end of the file" in done.stdout
    assert "redacted: 1 secret(s), 1 e-mail address(es), 1 user name(s) in paths" in done.stdout
    text = out.read_text()
    for leaked in ("bob@example.com", "Users\\bob", "ghp_", "alice"):
        assert leaked not in text
    doc = yaml.safe_load(text)
    assert doc["repository"]["revision"] == shas[1]  # HEAD: most cases pin it
    cases = {c["query"]: c for c in doc["cases"]}
    send = cases["how does Client send a request"]
    assert send["status"] == "draft"
    assert send["origin"] == "search-log line 1 and 1 more"
    assert send["accepted"][0] == {
        "file": "src/app.py",
        "symbol": "Client.send",
        "roles": ["definition"],
    }
    assert send["accepted"][1] == {"file": "README.md", "roles": ["docs"]}  # no line: file-level
    assert send["rationale"].startswith("TODO:")
    helper = cases["helper"]
    assert helper["queryClass"] == "exact_identifier"
    assert helper["accepted"] == [
        {"file": "src/app.py", "symbol": "helper", "roles": ["definition"]},  # absolute path's tail
        {"file": "tests/test_app.py", "symbol": "test_helper", "roles": ["test"]},
    ]
    secret = next(c for c in doc["cases"] if "[REDACTED:email]" in c["query"])
    assert secret["repositoryRevision"] == shas[0]  # the record's own (short) revision, in full
    assert secret["accepted"] == [
        {"file": "src/app.py", "symbol": "Client.close", "roles": ["definition"]}
    ]
    assert "C:\\Users\\[user]\\x.py" in secret["query"]
    # a draft suite is a suite; its cases are drafts
    suite = load_suite(out)
    assert all(c.draft and "draft" in c.tags for c in suite.cases)
    # deterministic: the same trace gives the same bytes
    again = tmp_path / "again.yaml"
    run_cli(
        "draft",
        "--from",
        "search-log",
        str(log),
        "--repo",
        str(repo),
        "--out",
        str(again),
        check=True,
    )
    assert again.read_bytes() == out.read_bytes()


def test_assistant_trace_and_review_comments(tmp_path: Path) -> None:
    repo, shas = _repo(tmp_path)
    trace = _jsonl(
        tmp_path / "answers.jsonl",
        [
            {"query": "where is the request body read", "contextIds": ["src/app.py:8-9", "src/app.py#helper"], "verdict": "wrong"},
            {"query": "fine answer", "files": ["src/app.py"], "verdict": "pass"},
        ],
    )  # fmt: skip
    out = tmp_path / "a.yaml"
    done = run_cli(
        "draft", "--from", "assistant-trace", str(trace), "--repo", str(repo), "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "skipped 1 answer(s) whose verdict says they passed" in done.stdout
    (case,) = yaml.safe_load(out.read_text())["cases"]
    assert case["origin"] == "assistant-trace line 1 (verdict wrong)"
    assert [t.get("symbol") for t in case["accepted"]] == ["Client.send", "helper"]
    comments = _jsonl(
        tmp_path / "review.jsonl",
        [{"body": "This leaks the body. Please copy it first.\nMore text.", "path": "src/app.py",
          "line": 8, "commit": shas[0]}],
    )  # fmt: skip
    out2 = tmp_path / "r.yaml"
    run_cli(
        "draft",
        "--from",
        "review-comments",
        str(comments),
        "--repo",
        str(repo),
        "--out",
        str(out2),
        check=True,
    )
    (review,) = yaml.safe_load(out2.read_text())["cases"]
    assert review["query"] == "This leaks the body."
    assert review["accepted"] == [
        {"file": "src/app.py", "symbol": "Client.send", "roles": ["definition"]}
    ]
    assert yaml.safe_load(out2.read_text())["repository"]["revision"] == shas[0]


def test_bad_traces_are_refused_with_one_line(tmp_path: Path) -> None:
    repo, _ = _repo(tmp_path)
    out = tmp_path / "d.yaml"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "ok", "opened": []}\n{"opened": []}\n')
    done = run_cli(
        "draft", "--from", "search-log", str(bad), "--repo", str(repo), "--out", str(out)
    )
    assert done.returncode == 2
    assert f"{bad}:2, field 'query': missing 'query'" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()
    bad.write_text('{"query": "q", "opened": [{"file": "src/app.py", "line": 0}]}\nnot json\n')
    done = run_cli(
        "draft", "--from", "search-log", str(bad), "--repo", str(repo), "--out", str(out)
    )
    assert done.returncode == 2 and "field 'opened[0].line'" in done.stderr
    nothing = _jsonl(tmp_path / "n.jsonl", [{"query": "q", "opened": [{"file": "nope.py"}]}])
    done = run_cli(
        "draft", "--from", "search-log", str(nothing), "--repo", str(repo), "--out", str(out)
    )
    assert done.returncode == 2 and "no case could be drafted from 1 record(s)" in done.stderr
