"""BM25 over pre-tokenized chunks, stored as plain numpy arrays.

Weights are precomputed per (term, chunk) at build time, so a query is a handful of
vectorised adds: one slice of postings per query term.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgspec
import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class BM25Params:
    k1: float = 1.2
    b: float = 0.75


class BM25Index:
    """An immutable BM25 index: vocabulary, postings (chunk rows) and weights."""

    def __init__(
        self,
        vocab: dict[str, int],
        indptr: npt.NDArray[np.int64],
        rows: npt.NDArray[np.int32],
        weights: npt.NDArray[np.float32],
        n_docs: int,
        params: BM25Params,
    ) -> None:
        self.vocab = vocab
        self.indptr = indptr
        self.rows = rows
        self.weights = weights
        self.n_docs = n_docs
        self.params = params

    @classmethod
    def build(cls, docs: Sequence[Sequence[str]], params: BM25Params = BM25Params()) -> BM25Index:
        n = len(docs)
        lengths = np.fromiter((len(d) for d in docs), dtype=np.float64, count=n)
        avgdl = float(lengths.mean()) if n else 0.0
        postings: dict[str, list[tuple[int, int]]] = {}
        for row, doc in enumerate(docs):
            for term, tf in Counter(doc).items():
                postings.setdefault(term, []).append((row, tf))
        terms = sorted(postings)
        vocab = {t: i for i, t in enumerate(terms)}
        sizes = np.fromiter((len(postings[t]) for t in terms), dtype=np.int64, count=len(terms))
        indptr = np.zeros(len(terms) + 1, dtype=np.int64)
        np.cumsum(sizes, out=indptr[1:])
        total = int(indptr[-1])
        rows = np.empty(total, dtype=np.int32)
        tfs = np.empty(total, dtype=np.float64)
        idf = np.empty(len(terms), dtype=np.float64)
        for i, term in enumerate(terms):
            plist = postings[term]
            s, e = indptr[i], indptr[i + 1]
            rows[s:e] = [r for r, _ in plist]
            tfs[s:e] = [tf for _, tf in plist]
            df = len(plist)
            idf[i] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        k1, b = params.k1, params.b
        norm = k1 * (1.0 - b + b * lengths[rows] / avgdl) if total else np.zeros(0)
        term_idf = np.repeat(idf, sizes)
        weights = (term_idf * tfs * (k1 + 1.0) / (tfs + norm)).astype(np.float32)
        return cls(vocab, indptr, rows, weights, n, params)

    def scores(self, query_terms: Sequence[str]) -> npt.NDArray[np.float32]:
        """Dense score vector over all chunks (zeros where no term matched)."""
        out = np.zeros(self.n_docs, dtype=np.float32)
        for term in query_terms:
            i = self.vocab.get(term)
            if i is None:
                continue
            s, e = self.indptr[i], self.indptr[i + 1]
            out[self.rows[s:e]] += self.weights[s:e]
        return out

    def top(self, query_terms: Sequence[str], k: int) -> list[tuple[int, float]]:
        """Best ``k`` rows, score descending then row ascending (deterministic)."""
        scores = self.scores(query_terms)
        return top_k(scores, k)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        np.save(folder / "indptr.npy", self.indptr)
        np.save(folder / "rows.npy", self.rows)
        np.save(folder / "weights.npy", self.weights)
        meta = {
            "nDocs": self.n_docs,
            "k1": self.params.k1,
            "b": self.params.b,
            "terms": list(self.vocab),
        }
        (folder / "vocab.json").write_bytes(msgspec.json.encode(meta))

    @classmethod
    def load(cls, folder: Path) -> BM25Index:
        meta = msgspec.json.decode((folder / "vocab.json").read_bytes())
        vocab = {t: i for i, t in enumerate(meta["terms"])}
        return cls(
            vocab,
            np.load(folder / "indptr.npy"),
            np.load(folder / "rows.npy", mmap_mode="r"),
            np.load(folder / "weights.npy", mmap_mode="r"),
            int(meta["nDocs"]),
            BM25Params(k1=float(meta["k1"]), b=float(meta["b"])),
        )


def top_k(scores: npt.NDArray[np.float32], k: int) -> list[tuple[int, float]]:
    """Rows with positive score, best first; ties broken by row (stable)."""
    nz = np.flatnonzero(scores > 0)
    if nz.size == 0:
        return []
    if nz.size > k:
        part = nz[np.argpartition(-scores[nz], k - 1)[:k]]
        # include every row tied with the k-th score so tie-breaking stays by row
        kth = scores[part].min()
        part = nz[scores[nz] >= kth]
    else:
        part = nz
    order = np.lexsort((part, -scores[part]))
    chosen = part[order][:k]
    return [(int(r), float(scores[r])) for r in chosen]
