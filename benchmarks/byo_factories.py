"""Retrievers a team might plug in, for benchmarks/byo_adapters.py: a LlamaIndex BM25
retriever over SentenceSplitter nodes, and a LangChain BaseRetriever doing BM25 over
40-line windows (lines in the metadata). Both see only the checkout codegold hands them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

EXTS = (".py", ".rst", ".md")


def _files(repo_dir: str) -> list[Path]:
    return sorted(p for p in Path(repo_dir).rglob("*") if p.is_file() and p.suffix in EXTS)


def build_llama(repo_dir: str, revision: str) -> Any:
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import SentenceSplitter
    from llama_index.retrievers.bm25 import BM25Retriever

    docs = SimpleDirectoryReader(input_files=[str(p) for p in _files(repo_dir)]).load_data()
    splitter = SentenceSplitter(
        chunk_size=200,
        chunk_overlap=0,
        tokenizer=str.split,
        id_func=lambda i, doc: f"{Path(doc.metadata['file_path']).relative_to(repo_dir)}#{i}",
    )
    nodes = splitter.get_nodes_from_documents(docs)
    return BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=10)


def _words(text: str) -> list[str]:
    spaced = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ")
    return re.findall(r"[a-z0-9]+", spaced.lower())


def windows(repo_dir: str, size: int = 40) -> list[dict[str, Any]]:
    out = []
    for path in _files(repo_dir):
        lines = path.read_text(errors="replace").splitlines()
        for start in range(0, len(lines), size):
            end = min(start + size, len(lines))
            out.append(
                {
                    "file": str(path.relative_to(repo_dir)),
                    "startLine": start + 1,
                    "endLine": end,
                    "text": "\n".join(lines[start:end]),
                }
            )
    return out


def build_langchain(repo_dir: str, revision: str) -> Any:
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from rank_bm25 import BM25Okapi

    class WindowBM25(BaseRetriever):
        docs: list[Document]
        bm25: Any
        k: int = 10

        def _get_relevant_documents(self, query: str, *, run_manager: Any) -> list[Document]:
            scores = self.bm25.get_scores(_words(query))
            order = sorted(range(len(self.docs)), key=lambda i: (-scores[i], i))[: self.k]
            return [self.docs[i] for i in order]

    docs = [
        Document(
            page_content=w["text"],
            metadata={
                "source": str(Path(repo_dir) / w["file"]),
                "start_line": w["startLine"],
                "end_line": w["endLine"],
            },
            id=f"{w['file']}:{w['startLine']}",
        )
        for w in windows(repo_dir)
    ]
    return WindowBM25(docs=docs, bm25=BM25Okapi([_words(d.page_content) for d in docs]))
