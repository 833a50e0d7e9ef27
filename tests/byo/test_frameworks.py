"""LlamaIndex and LangChain retrievers, built over a real repository, measured end to end.

The factories below are what a team would write: real retrievers of those libraries
(LlamaIndex's BM25 retriever over SentenceSplitter nodes; a LangChain BaseRetriever
doing BM25 over line windows), built over the checkout codegold hands them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.byo.repo import make_shop, write_suite
from tests.conftest import run_cli

pytest.importorskip("llama_index.core")
pytest.importorskip("llama_index.retrievers.bm25")
pytest.importorskip("langchain_core")
pytest.importorskip("rank_bm25")

LLAMA = '''
from llama_index.core import SimpleDirectoryReader
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import NodeWithScore, TextNode
from llama_index.retrievers.bm25 import BM25Retriever


def build(repo_dir, revision):
    docs = SimpleDirectoryReader(
        repo_dir, recursive=True, required_exts=[".py"], filename_as_id=True
    ).load_data()
    splitter = SentenceSplitter(
        chunk_size=40, chunk_overlap=0, tokenizer=str.split,
        id_func=lambda i, doc: f"{doc.doc_id}#{i}",
    )
    nodes = splitter.get_nodes_from_documents(docs)
    return BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=3)


class Stale(BaseRetriever):
    """Answers shipping questions from a file that is not at the revision."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def _retrieve(self, query_bundle):
        found = self.inner.retrieve(query_bundle.query_str)
        if "shipping" in query_bundle.query_str:
            ghost = TextNode(text="def ship(): ...", id_="ghost", metadata={"file_path": "shop/ghost.py"})
            found = [NodeWithScore(node=ghost, score=9.0), *found]
        return found


def build_stale(repo_dir, revision):
    return Stale(build(repo_dir, revision))
'''

LANGCHAIN = '''
import re
from pathlib import Path
from typing import Any

from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from rank_bm25 import BM25Okapi


def _words(text):
    return re.findall(r"[a-z]+", text.lower().replace("_", " "))


class WindowBM25(BaseRetriever):
    """BM25 over 8-line windows of every Python file."""

    docs: list[Document]
    bm25: Any
    k: int = 3

    def _get_relevant_documents(self, query, *, run_manager):
        scores = self.bm25.get_scores(_words(query))
        order = sorted(range(len(self.docs)), key=lambda i: (-scores[i], i))[: self.k]
        return [self.docs[i] for i in order]


def build(repo_dir, revision):
    docs = []
    for path in sorted(Path(repo_dir).rglob("*.py")):
        lines = path.read_text().splitlines()
        for start in range(0, len(lines), 8):
            end = min(start + 8, len(lines))
            docs.append(Document(
                page_content="\\n".join(lines[start:end]),
                metadata={"source": str(path), "start_line": start + 1, "end_line": end},
                id=f"{path.relative_to(repo_dir)}:{start + 1}",
            ))
    return WindowBM25(docs=docs, bm25=BM25Okapi([_words(d.page_content) for d in docs]))
'''


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    tmp = tmp_path_factory.mktemp("frameworks")
    repo, rev = make_shop(tmp)
    write_suite(tmp / "suite.yaml", rev)
    (tmp / "byo_li.py").write_text(LLAMA)
    (tmp / "byo_lc.py").write_text(LANGCHAIN)
    return tmp, repo, rev


def _run(work: Path, repo: Path, spec: str, out: str) -> tuple[list[dict], list[dict]]:
    proc = run_cli(
        "run",
        "--cases",
        "suite.yaml",
        "--repo",
        str(repo),
        "--retriever",
        spec,
        "--out",
        out,
        "--index",
        "index",
        "--embedder",
        "none",
        "--quiet",
        cwd=work,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads((work / out / "results.json").read_text())
    attempts = [
        json.loads(line) for line in (work / out / "attempts.jsonl").read_text().splitlines()
    ]
    return results, attempts


def test_llamaindex_bm25_retriever_end_to_end(work: tuple[Path, Path, str]) -> None:
    tmp, repo, rev = work
    results, attempts = _run(tmp, repo, "llamaindex:byo_li:build", "out-li")
    assert all(r["valid"] for r in results), [r["invalidReason"] for r in results]
    by_id = {r["caseId"]: r for r in results}
    assert by_id["coupon"]["passed"] and by_id["express"]["passed"]
    chunks = [c for a in attempts for c in a["ranked"]]
    assert chunks and all(c["resolved"] for c in chunks)
    # node ids are kept, files made relative to the checkout, symbols from codegold's parse
    assert all(c["chunkId"].rpartition("#")[2].isdigit() for c in chunks)
    assert {c["file"] for c in chunks} <= {
        "shop/cart.py",
        "shop/discount.py",
        "shop/shipping.py",
        "tests/test_cart.py",
    }
    coupon = next(c for a in attempts if a["caseId"] == "coupon" for c in a["ranked"])
    assert coupon["file"] == "shop/discount.py" and "apply_coupon" in coupon["symbols"]
    manifest = attempts[0]["index"]
    assert manifest["revisionAsserted"] is True and manifest["repositoryRevision"] == rev
    assert manifest["chunkerVersion"].startswith("llama-index-core ")
    assert (tmp / "index" / "checkouts" / rev / "shop" / "cart.py").is_file()


def test_a_chunk_codegold_cannot_place_invalidates_only_its_case(
    work: tuple[Path, Path, str],
) -> None:
    tmp, repo, _ = work
    results, _ = _run(tmp, repo, "llamaindex:byo_li:build_stale", "out-stale")
    by_id = {r["caseId"]: r for r in results}
    assert by_id["express"]["valid"] is False
    assert by_id["express"]["invalidReason"].startswith("chunk 1: shop/ghost.py does not exist at ")
    assert all(by_id[c]["valid"] for c in ("coupon", "cart-total", "add-item"))


def test_langchain_retriever_end_to_end(work: tuple[Path, Path, str]) -> None:
    tmp, repo, _ = work
    results, attempts = _run(tmp, repo, "langchain:byo_lc:build", "out-lc")
    assert all(r["valid"] for r in results)
    assert sum(r["passed"] for r in results) >= 3
    chunks = [c for a in attempts for c in a["ranked"]]
    assert all(c["resolved"] and c["claim"]["startLine"] == c["startLine"] for c in chunks)
    assert attempts[0]["index"]["chunkerVersion"].startswith("langchain-core ")


def test_missing_factory_and_wrong_type_are_one_line_errors(work: tuple[Path, Path, str]) -> None:
    tmp, repo, _ = work
    (tmp / "byo_bad.py").write_text("def build(repo_dir, revision):\n    return object()\n")
    for spec, message in (
        ("llamaindex:byo_li:nope", "byo_li has no function 'nope'"),
        ("langchain:byo_bad:build", "returned object, not a langchain_core BaseRetriever"),
        ("llamaindex:byo_li", "expects MODULE:FACTORY"),
    ):
        proc = run_cli(
            "run",
            "--cases",
            "suite.yaml",
            "--repo",
            str(repo),
            "--retriever",
            spec,
            "--out",
            "out-bad",
            "--index",
            "index",
            "--embedder",
            "none",
            "--quiet",
            cwd=tmp,
        )
        assert proc.returncode == 2, proc.stderr
        assert message in proc.stderr and "Traceback" not in proc.stderr
