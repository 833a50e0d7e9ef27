"""BM25 over pre-tokenized chunks, stored as plain numpy arrays.

Weights are precomputed per (term, chunk) at build time, so a query is a handful of
vectorised adds: one slice of postings per query term.
"""

from __future__ import annotations

import contextlib
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain
from pathlib import Path
from typing import Any, Protocol

import msgspec
import numpy as np
import numpy.typing as npt

from codegold.index.derived import SortedKeys
from codegold.index.strings import StringTable, check_ids, offsets


@dataclass(frozen=True)
class BM25Params:
    k1: float = 1.2
    b: float = 0.75


class BM25Index:
    """An immutable BM25 index: vocabulary, postings (chunk rows) and weights."""

    def __init__(
        self,
        vocab: Mapping[str, int],
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
        builder = BM25Builder()
        for doc in docs:
            builder.add(doc)
        return builder.finish(params)

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

    def weighted_scores(self, terms: Mapping[str, float]) -> npt.NDArray[np.float32]:
        """Like :meth:`scores`, each term's contribution multiplied by its weight."""
        out = np.zeros(self.n_docs, dtype=np.float32)
        for term, weight in terms.items():
            i = self.vocab.get(term)
            if i is None or weight == 0:
                continue
            s, e = self.indptr[i], self.indptr[i + 1]
            out[self.rows[s:e]] += np.float32(weight) * self.weights[s:e]
        return out

    def coverage(self, query_terms: Sequence[str]) -> npt.NDArray[np.float32]:
        """Per chunk, the idf-weighted share of the distinct query terms it contains
        (1.0: every term; a term no chunk holds counts for nothing)."""
        out = np.zeros(self.n_docs, dtype=np.float32)
        total = 0.0
        n = self.n_docs
        for term in dict.fromkeys(query_terms):
            i = self.vocab.get(term)
            if i is None:
                continue
            s, e = int(self.indptr[i]), int(self.indptr[i + 1])
            idf = float(np.log1p((n - (e - s) + 0.5) / ((e - s) + 0.5)))
            out[self.rows[s:e]] += np.float32(idf)
            total += idf
        if total > 0:
            out /= np.float32(total)
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
    def load(cls, folder: Path, vocab_sha256: str | None = None) -> BM25Index:
        """The index saved in ``folder``; ``vocab_sha256`` (the verified digest of its
        ``vocab.json``) lets the sorted term list a previous load derived be reused."""
        raw = (folder / "vocab.json").read_bytes()
        meta = _read_meta(raw, verified=vocab_sha256 is not None)
        indptr = np.load(folder / "indptr.npy")
        return cls(
            _Vocab(raw, folder / SORTED_TERMS, vocab_sha256, size=len(indptr) - 1),
            indptr,
            np.load(folder / "rows.npy", mmap_mode="r"),
            np.load(folder / "weights.npy", mmap_mode="r"),
            meta.n_docs,
            BM25Params(k1=float(meta.k1), b=float(meta.b)),
        )


class _Meta(msgspec.Struct, rename="camel"):
    """vocab.json without its terms (they are decoded when first needed)."""

    n_docs: int
    k1: float
    b: float


_TERMS_KEY = b',"terms":'


def _read_meta(raw: bytes, verified: bool) -> _Meta:
    """The counts and parameters of ``vocab.json``. :meth:`BM25Index.save` writes its
    terms last, so a verified file's head holds everything else: decoding only the
    head skips walking a large vocabulary (a search looks terms up in ``vocab.sorted``).
    Any other shape is decoded whole, as an unverified file always is."""
    if verified:
        at = raw.find(_TERMS_KEY)
        if at > 0:
            with contextlib.suppress(msgspec.DecodeError, msgspec.ValidationError):
                return msgspec.json.decode(raw[:at] + b"}", type=_Meta)
    return msgspec.json.decode(raw, type=_Meta)


class _Terms(msgspec.Struct):
    terms: list[str]


#: The vocabulary's terms in byte order, with their ids (derived on first use).
SORTED_TERMS = "vocab.sorted"


class _Vocab(Mapping[str, int]):
    """Term -> id over the stored vocabulary, without decoding it for a short query.

    A process that looks up a few terms (one ``codegold search``) searches the sorted
    term list a previous process derived (``vocab.sorted``; derived and kept now when
    there is none); past :attr:`LOOKUPS` lookups the dict is built once, as loading
    used to.
    """

    LOOKUPS = 4096

    def __init__(
        self,
        terms: list[str] | bytes,
        sorted_path: Path | None = None,
        sha256: str | None = None,
        size: int | None = None,
    ) -> None:
        """``terms`` in id order, or the bytes of ``vocab.json`` holding them; only
        the stored form, with its verified digest, is searched without the dict."""
        self._raw = terms if isinstance(terms, bytes) else b""
        self._terms_list = None if isinstance(terms, bytes) else terms
        self._sorted_path = sorted_path
        self._sha256 = sha256
        self._size = size  # how many terms the stored form holds (from the postings)
        self._ids: dict[str, int] | None = None
        # without the stored form's digest nothing is derived: the dict at once
        self._lookups = 0 if isinstance(terms, bytes) and sha256 else self.LOOKUPS

    @property
    def _terms(self) -> list[str]:
        if self._terms_list is None:
            self._terms_list = msgspec.json.decode(self._raw, type=_Terms).terms
        return self._terms_list

    @cached_property
    def _sorted(self) -> SortedKeys:
        return SortedKeys.kept(
            self._sorted_path,
            self._sha256,
            lambda: {t.encode(): [i] for i, t in enumerate(self._terms)},
            count=self._size,
        )

    def _dict(self) -> dict[str, int]:
        if self._ids is None:
            self._ids = dict(zip(self._terms, range(len(self._terms)), strict=True))
        return self._ids

    def __getitem__(self, term: str) -> int:
        if self._ids is None and self._lookups < self.LOOKUPS:
            self._lookups += 1
            found = self._sorted.find(term.encode())
            if found is None:
                raise KeyError(term)
            return found[0]
        return self._dict()[term]

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.get(term) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        if self._terms_list is None and self._size is not None:
            return self._size
        return len(self._terms)


class BM25Builder:
    """Streams documents in, keeping only int32 term ids; postings are made with one
    vectorised sort at the end (no per-posting Python work)."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}
        self._ids: list[npt.NDArray[np.int32]] = []
        self._lengths: list[int] = []

    def add(self, doc: Sequence[str]) -> None:
        self._add_tokens(doc, [len(doc)])

    def add_joined(self, docs: Sequence[str]) -> None:
        """Several documents at once, each its tokens joined by single spaces (the
        index's cache format): one vocabulary pass for the lot."""
        lengths = [d.count(" ") + 1 if d else 0 for d in docs]
        self._add_tokens(" ".join(d for d in docs if d).split(), lengths)

    def _add_tokens(self, tokens: Sequence[str], lengths: list[int]) -> None:
        vocab = self.vocab
        new = [t for t in dict.fromkeys(tokens) if t not in vocab]
        if new:
            base = len(vocab)
            vocab.update(zip(new, range(base, base + len(new)), strict=True))
        self._ids.append(
            np.fromiter(map(vocab.__getitem__, tokens), dtype=np.int32, count=len(tokens))
        )
        self._lengths.extend(lengths)

    def finish(self, params: BM25Params = BM25Params()) -> BM25Index:
        n = len(self._lengths)
        lengths = np.asarray(self._lengths, dtype=np.float64)
        ids = np.concatenate(self._ids) if self._ids else np.zeros(0, dtype=np.int32)
        self._ids = []
        docs = np.repeat(np.arange(n, dtype=np.int64), lengths.astype(np.int64))
        keys = ids.astype(np.int64) * max(n, 1) + docs
        del ids, docs
        pairs, counts = np.unique(keys, return_counts=True)  # by term, then by document
        del keys
        terms = pairs // max(n, 1)
        rows = (pairs % max(n, 1)).astype(np.int32)
        return _assemble(dict(self.vocab), terms, rows, counts, lengths, params)


def int32_bytes(values: Iterable[int]) -> bytes:
    """Native int32s, as ``np.frombuffer(..., dtype=np.int32)`` reads them back."""
    return array("i", values).tobytes()


class TermCounts(msgspec.Struct, array_like=True):
    """The term frequencies of a run of documents, as a build caches them per file:
    ``terms`` in first-occurrence order over the run; per posting (document-major,
    each document's terms in first-occurrence order) the term (index into ``terms``)
    and its count; per document its number of postings and its length (int32)."""

    terms: list[str]
    term_ids: bytes
    counts: bytes
    postings: bytes
    lengths: bytes

    @classmethod
    def of(cls, docs: Sequence[Mapping[str, int]]) -> TermCounts:
        """From each document's term counts, in first-occurrence order (a Counter)."""
        first = dict.fromkeys(chain.from_iterable(docs))  # first occurrence decides order
        local = dict(zip(first, range(len(first)), strict=True))
        ids = list(map(local.__getitem__, chain.from_iterable(docs)))
        counts = list(chain.from_iterable(d.values() for d in docs))
        return cls(
            terms=list(local),
            term_ids=int32_bytes(ids),
            counts=int32_bytes(counts),
            postings=int32_bytes(map(len, docs)),
            lengths=int32_bytes(sum(d.values()) for d in docs),
        )


class WholeFile(msgspec.Struct, array_like=True):
    """A file as one document of the whole-file BM25: its terms (indexes into its
    chunk :class:`TermCounts` ``terms``) in first-occurrence order over the document,
    each with its count (int32), and its length."""

    term_ids: bytes
    counts: bytes
    length: int


class InternedCounts(msgspec.Struct, array_like=True):
    """:class:`TermCounts` as a build cache stores it: ``terms`` are ids of the
    cache's :class:`~codegold.index.strings.StringTable` (int32), the rest as there."""

    terms: bytes
    term_ids: bytes
    counts: bytes
    postings: bytes
    lengths: bytes

    @classmethod
    def of(cls, counts: TermCounts, terms: npt.NDArray[np.int32]) -> InternedCounts:
        return cls(
            terms=terms.astype(np.int32).tobytes(),
            term_ids=counts.term_ids,
            counts=counts.counts,
            postings=counts.postings,
            lengths=counts.lengths,
        )


class _Postings(Protocol):
    counts: bytes
    postings: bytes
    lengths: bytes


def _sizes(raws: Sequence[bytes]) -> npt.NDArray[np.int64]:
    """The number of int32s in each of ``raws``."""
    return np.fromiter((len(r) // 4 for r in raws), dtype=np.int64, count=len(raws))


def stable_argsort(keys: npt.NDArray[np.integer[Any]]) -> npt.NDArray[np.intp]:
    """``np.argsort(keys, kind="stable")`` for non-negative keys below 2**32, as one or
    two radix passes over 16-bit digits (numpy sorts 16-bit keys by radix, in linear
    time; wider ones by timsort, two to three times slower on a build's postings)."""
    if keys.size == 0:
        return np.zeros(0, dtype=np.intp)
    top = int(keys.max())
    if top < 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    if top >= 1 << 32 or int(keys.min()) < 0:
        return np.argsort(keys, kind="stable")
    low = np.argsort((keys & 0xFFFF).astype(np.uint16), kind="stable")
    high = np.argsort((keys[low] >> 16).astype(np.uint16), kind="stable")
    out: npt.NDArray[np.intp] = low[high]
    return out


def first_order(ids: npt.NDArray[np.int32]) -> npt.NDArray[np.int64]:
    """The distinct values of ``ids`` in the order they first occur."""
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64)
    by_value = stable_argsort(ids)
    ranked = ids[by_value]
    starts = np.flatnonzero(np.concatenate(([True], ranked[1:] != ranked[:-1])))
    first = by_value[starts]  # each value's first position (stable: the earliest)
    order: npt.NDArray[np.int64] = ranked[starts][stable_argsort(first)].astype(np.int64)
    return order


def global_ids(
    runs: Sequence[bytes], local: Sequence[bytes], strings: StringTable
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    """Runs of string ids (checked against ``strings``) and, per run, indexes into it
    (``local``), as one array of string ids; and the runs concatenated."""
    flat = _int32s(runs)
    check_ids(flat, strings)
    at = _int32s(local).astype(np.int64) + np.repeat(offsets(_sizes(runs)), _sizes(local))
    return flat[at], flat


class IndexMerger:
    """The chunk index and the whole-file index from files' cached contributions, fed
    in file order, each array identical to what a :class:`BM25Builder` fed the same
    tokens makes. Terms are string ids throughout: strings are read only for the
    vocabulary that is written."""

    def __init__(self, strings: StringTable) -> None:
        self.strings = strings
        self._files: list[tuple[InternedCounts, WholeFile | None]] = []

    def add(self, chunks: InternedCounts, whole: WholeFile | None) -> None:
        """One file: its chunks' term counts and, when it has chunks, the file as one
        document (``whole`` numbers its terms in ``chunks.terms``)."""
        self._files.append((chunks, whole))

    def add_many(self, files: Sequence[tuple[InternedCounts, WholeFile | None]]) -> None:
        """:meth:`add` of each file in turn."""
        self._files.extend(files)

    def finish(self, params: BM25Params = BM25Params()) -> tuple[BM25Index, BM25Index]:
        """Both indexes (the files fed are let go)."""
        chunk_index, file_index = self.chunk_index(params), self.file_index(params)
        self._files = []
        return chunk_index, file_index

    def chunk_index(self, params: BM25Params = BM25Params()) -> BM25Index:
        """The chunk index of the files fed so far (they are kept: see :meth:`finish`)."""
        parts = [chunks for chunks, _ in self._files]
        sids, runs = global_ids([p.terms for p in parts], [p.term_ids for p in parts], self.strings)
        # a term's id is its rank by first occurrence, file after file (each file's
        # terms are listed in the order its postings first use them)
        order = first_order(runs)
        dense = np.zeros(len(self.strings), dtype=np.int32)
        dense[order] = np.arange(len(order), dtype=np.int32)
        names = self.strings.strings
        # the term list as the index stores it (a dict is built only if it is queried)
        vocab = _Vocab(list(map(names.__getitem__, order.tolist())))
        return _from_postings(vocab, dense[sids], parts, params)

    def file_index(self, params: BM25Params = BM25Params()) -> BM25Index:
        """The whole-file index of the files fed so far (independent of
        :meth:`chunk_index`: the two can be made in two processes)."""
        # the file documents: the same runs, each file's whole-file term indexes
        with_whole = [(p, w) for p, w in self._files if w is not None]
        file_sids, _ = global_ids(
            [p.terms for p, _ in with_whole], [w.term_ids for _, w in with_whole], self.strings
        )
        file_order = first_order(file_sids)  # the file index's own vocabulary
        dense = np.zeros(len(self.strings), dtype=np.int32)
        dense[file_order] = np.arange(len(file_order), dtype=np.int32)
        names = self.strings.strings
        file_vocab = _Vocab(list(map(names.__getitem__, file_order.tolist())))
        wholes = [w for _, w in with_whole]
        docs = TermCounts(
            terms=[],
            term_ids=b"",
            counts=b"".join(f.counts for f in wholes),
            postings=int32_bytes(len(f.counts) // 4 for f in wholes),
            lengths=int32_bytes(f.length for f in wholes),
        )
        return _from_postings(file_vocab, dense[file_sids], [docs], params)


def intern_counts(parts: Sequence[TermCounts], strings: StringTable) -> list[InternedCounts]:
    """``parts`` with their terms numbered in ``strings``."""
    runs = strings.ids_of([p.terms for p in parts])
    return [InternedCounts.of(p, ids) for p, ids in zip(parts, runs, strict=True)]


def merge_term_counts(parts: Sequence[TermCounts], params: BM25Params = BM25Params()) -> BM25Index:
    """One index over runs of documents, in order: identical, array for array, to a
    :class:`BM25Builder` fed every run's documents token by token."""
    strings = StringTable()
    merger = IndexMerger(strings)
    for part in intern_counts(parts, strings):
        merger.add(part, None)
    return merger.finish(params)[0]


def _from_postings(
    vocab: Mapping[str, int],
    ids: npt.NDArray[np.int32],
    parts: Sequence[_Postings],
    params: BM25Params,
) -> BM25Index:
    per_doc = _int32s([p.postings for p in parts])
    docs = np.repeat(np.arange(len(per_doc), dtype=np.int32), per_doc)
    order = stable_argsort(ids)  # by term, then by document (already in order)
    tf = _int32s([p.counts for p in parts])[order]
    lengths = _int32s([p.lengths for p in parts]).astype(np.float64)
    df = np.bincount(ids, minlength=len(vocab))
    return _assemble_df(vocab, df, docs[order], tf, lengths, params)


def merge_indexes(
    chunks: Sequence[TermCounts],
    files: Sequence[WholeFile | None],
    params: BM25Params = BM25Params(),
) -> tuple[BM25Index, BM25Index]:
    """:class:`IndexMerger` over files at once."""
    strings = StringTable()
    merger = IndexMerger(strings)
    for part, whole in zip(intern_counts(chunks, strings), files, strict=True):
        merger.add(part, whole)
    return merger.finish(params)


def _int32s(raws: Sequence[bytes]) -> npt.NDArray[np.int32]:
    if not raws:
        return np.zeros(0, dtype=np.int32)
    return np.frombuffer(b"".join(raws), dtype=np.int32)


def _assemble(
    vocab: dict[str, int],
    terms: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int32],
    counts: npt.NDArray[np.int64],
    lengths: npt.NDArray[np.float64],
    params: BM25Params,
) -> BM25Index:
    """The index from its postings sorted by term then row, with their counts."""
    df = np.bincount(terms, minlength=len(vocab))
    return _assemble_df(vocab, df, rows, counts, lengths, params)


def _assemble_df(
    vocab: Mapping[str, int],
    df: npt.NDArray[np.int64],
    rows: npt.NDArray[np.int32],
    counts: npt.NDArray[np.integer[Any]],
    lengths: npt.NDArray[np.float64],
    params: BM25Params,
) -> BM25Index:
    """:func:`_assemble` given each term's number of postings (``df``, term order)."""
    n = len(lengths)
    n_terms = len(vocab)
    indptr = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(df, out=indptr[1:])
    idf = np.log1p((n - df + 0.5) / (df + 0.5))
    avgdl = float(lengths.mean()) if n else 1.0
    tf = counts.astype(np.float64)
    k1, b = params.k1, params.b
    # idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avgdl)), operation for
    # operation (the same roundings), in place: no temporary per step
    norm = lengths[rows]
    norm *= b
    norm /= avgdl or 1.0
    norm += 1.0 - b
    norm *= k1
    norm += tf
    weights = np.repeat(idf, df)  # each posting's term's idf (postings are by term)
    weights *= tf
    weights *= k1 + 1.0
    weights /= norm
    return BM25Index(vocab, indptr, rows, weights.astype(np.float32), n, params)


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
