"""Issue reports: rank files by aggregated evidence, then read chunks off them.

A pasted bug report (what I did, what I expected, what happened, a traceback, a
reproducer) names the file to fix through many weak signals spread over the file, not
through one chunk. So the unit ranked here is the file: its best chunks' lexical
scores summed with decay (not max-pooled), whole-file BM25, files the traceback's
frames and the report's paths and dotted module names point to, and files defining
the identifiers written as code. Test and docs files are demoted (a reproducer's
words match the tests). The ranked output is still chunks: each file's best chunks,
files in the aggregated order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from codegold.index.store import LoadedIndex
from codegold.index.tokenize import tokenize
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.query import QueryAnalysis

_DOTTED_MODULE = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+([\w, ()]+)|import\s+([\w., ]+))", re.M)


@dataclass
class FileEvidence:
    chunk: float = 0.0  # decayed sum of the file's best chunk scores
    whole: float = 0.0  # whole-file BM25
    frame: float = 0.0  # a traceback frame lands in this file
    path: float = 0.0  # the report names this path
    module: float = 0.0  # a dotted module name or import resolves to this file
    definition: float = 0.0  # defines identifiers the report writes as code
    role: str = "source"
    best_rows: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, float | str]:
        return {
            "chunk": round(self.chunk, 6),
            "whole": round(self.whole, 6),
            "frame": self.frame,
            "path": self.path,
            "module": self.module,
            "definition": round(self.definition, 6),
            "role": self.role,
        }


def query_weights(analysis: QueryAnalysis, cfg: RetrieverConfig) -> dict[str, float]:
    """Term weights: 1 + log(count) for the report's words, plus the same again times
    ``issue_code_weight`` for words of identifiers written as code."""
    counts = Counter(analysis.terms)
    weights = {t: 1.0 + math.log(c) for t, c in counts.items()}
    code: Counter[str] = Counter()
    for ident in analysis.code_identifiers:
        code.update(tokenize(ident.replace(".", " ")))
    for _, func in analysis.frames:
        code.update(tokenize(func))
    for term, c in code.items():
        weights[term] = weights.get(term, 0.0) + cfg.issue_code_weight * (1.0 + math.log(c))
    return weights


_DOC_DIRS = frozenset({"doc", "docs", "documentation", "example", "examples", "tutorial"})
#: Folders of bundled third-party code (astropy's cextern/, extern/ply): rarely the fix.
_VENDOR_DIRS = frozenset(
    {"extern", "cextern", "external", "vendor", "vendored", "_vendor", "third_party", "bundled"}
)


def _role_of(path: str, file_role: str, language: str | None, primary: str | None) -> str:
    """``test``, ``docs`` (docs files, and code under doc/ or examples/), ``other``
    (no programming language: translations, templates, data), ``foreign`` (code in
    another language than the repository's main one: vendored JS in a Python
    project), else ``source``."""
    if file_role == "test":
        return "test"
    folders = path.split("/")[:-1]
    if file_role == "docs" or any(part in _DOC_DIRS for part in folders):
        return "docs"
    if language is None or any(part in _VENDOR_DIRS for part in folders):
        return "other"
    if primary is not None and language != primary:
        return "foreign"
    return "source"


_PRIMARY: dict[str, str | None] = {}


def primary_language(index: LoadedIndex) -> str | None:
    """The language most source files of the index are written in."""
    key = str(index.folder)
    if key not in _PRIMARY:
        _PRIMARY[key] = _primary(index)
    return _PRIMARY[key]


def _primary(index: LoadedIndex) -> str | None:
    """The language of most first-party source files, when it holds a clear majority
    (60%); None (no language is foreign) otherwise."""
    counts = Counter(
        e.language
        for e in index.inventory
        if e.language
        and str(e.role) == "source"
        and e.chunks
        and not any(part in _VENDOR_DIRS for part in e.path.split("/")[:-1])
    )
    if not counts:
        return None
    best = min(counts, key=lambda lang: (-counts[lang], lang))
    return best if counts[best] >= 0.6 * sum(counts.values()) else None


def _suffix_match(path: str, files: dict[str, int]) -> str | None:
    """The indexed file a (possibly absolute, site-packages) path names: the longest
    suffix of its components that is an indexed path."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    for i in range(len(parts)):
        candidate = "/".join(parts[i:])
        if candidate in files:
            return candidate
    return None


def _module_files(dotted: str, files: dict[str, int]) -> list[str]:
    """``a.b.c`` as a module (``a/b/c.py``, ``a/b/c/__init__.py``) or an attribute of
    one (``a/b.py``); also under a ``src/`` or ``lib/`` layout."""
    parts = dotted.split(".")
    for cut in (len(parts), len(parts) - 1):
        if cut < 2 and cut != len(parts):
            break  # ``a.b`` as an attribute of package ``a``: too broad
        base = "/".join(parts[:cut])
        out = [
            candidate
            for prefix in ("", "src/", "lib/")
            for candidate in (f"{prefix}{base}.py", f"{prefix}{base}/__init__.py")
            if candidate in files
        ]
        if out:
            return out
    return []


def gather(
    index: LoadedIndex, analysis: QueryAnalysis, cfg: RetrieverConfig
) -> tuple[dict[str, FileEvidence], np.ndarray]:
    """Per-file evidence for an issue report, and the chunk score vector."""
    weights = query_weights(analysis, cfg)
    chunk_scores = index.lexical.weighted_scores(weights)
    files_index, file_names = index.file_lexical
    whole = files_index.weighted_scores(weights)
    file_row = index.file_row
    evidence: dict[str, FileEvidence] = {}
    chunks = index.chunks

    primary = primary_language(index)
    inventory = index.inventory_by_path

    def ev(path: str) -> FileEvidence:
        found = evidence.get(path)
        if found is None:
            entry = inventory.get(path)
            role = (
                _role_of(path, str(entry.role), entry.language, primary)
                if entry is not None
                else "source"
            )
            found = evidence[path] = FileEvidence(role=role)
        return found

    nz = np.flatnonzero(chunk_scores > 0)
    top = nz[np.argsort(-chunk_scores[nz], kind="stable")][:3000]
    per_file: dict[str, list[int]] = {}
    for row in top.tolist():
        per_file.setdefault(chunks[row].file, []).append(row)
    decay = cfg.issue_chunk_decay
    for path, rows in per_file.items():
        rows.sort(key=lambda r: (-float(chunk_scores[r]), r))
        e = ev(path)
        e.best_rows = rows[: max(cfg.issue_chunks_per_file, 1)]
        e.chunk = sum(
            float(chunk_scores[r]) * decay**i for i, r in enumerate(rows[: cfg.issue_chunk_top])
        )
    wnz = np.flatnonzero(whole > 0)
    for row in wnz[np.argsort(-whole[wnz], kind="stable")][:500].tolist():
        ev(file_names[row]).whole = float(whole[row])
    for path, _func in analysis.frames:
        hit = _suffix_match(path, file_row)
        if hit is not None:
            ev(hit).frame = 1.0
    for path in analysis.paths:
        hit = _suffix_match(path, file_row)
        if hit is not None:
            ev(hit).path = 1.0
    dotted: set[str] = set(_DOTTED_MODULE.findall(analysis.raw))
    for m in _IMPORT.finditer(analysis.raw):
        if m.group(1):
            dotted.add(m.group(1))
            for name in re.findall(r"\w+", m.group(2)):
                dotted.add(f"{m.group(1)}.{name}")
        elif m.group(3):
            dotted.update(n.strip().split(" ")[0] for n in m.group(3).split(","))
    for name in sorted(dotted):
        for hit in _module_files(name, file_row):
            ev(hit).module = 1.0
    table = index.symbols
    names = list(dict.fromkeys([*analysis.code_identifiers, *(f for _, f in analysis.frames)]))
    for name in names:
        found = table.definitions(name.rsplit(".", 1)[-1]) if name else []
        if not found or len(found) > 50:
            continue
        share = 1.0 / math.log2(1 + len(found))
        for path in {chunks[r].file for r in found}:
            ev(path).definition += share
    return evidence, chunk_scores


def rank_files(evidence: dict[str, FileEvidence], cfg: RetrieverConfig) -> list[tuple[str, float]]:
    """Files by fused evidence: each signal divided by its best, weighted, summed;
    tests and docs multiplied down."""
    if not evidence:
        return []
    best_chunk = max(e.chunk for e in evidence.values()) or 1.0
    best_whole = max(e.whole for e in evidence.values()) or 1.0
    best_def = max(e.definition for e in evidence.values()) or 1.0
    scored: list[tuple[str, float]] = []
    for path, e in evidence.items():
        score = (
            cfg.issue_chunk_weight * e.chunk / best_chunk
            + cfg.issue_file_weight * e.whole / best_whole
            + cfg.issue_frame_weight * e.frame
            + cfg.issue_path_weight * e.path
            + cfg.issue_module_weight * e.module
            + cfg.issue_definition_weight * e.definition / best_def
        )
        if e.role == "test":
            score *= cfg.issue_test_factor
        elif e.role == "docs":
            score *= cfg.issue_docs_factor
        elif e.role in ("other", "foreign"):
            score *= cfg.issue_other_factor
        scored.append((path, score))
    scored.sort(key=lambda fs: (-fs[1], fs[0]))
    return scored


def chunk_order(
    index: LoadedIndex,
    ranking: list[tuple[str, float]],
    evidence: dict[str, FileEvidence],
    depth: int,
) -> list[tuple[int, float]]:
    """Chunks for the ranked files: first each file's best chunk, files in order, then
    each file's next chunk, so the distinct files come out in the file order."""
    lists: list[tuple[list[int], float]] = []
    for path, score in ranking[:depth]:
        rows = evidence[path].best_rows or index.rows_by_file.get(path, [])[:1]
        if rows:
            lists.append((rows, score))
    order: list[tuple[int, float]] = []
    rounds = max((len(rows) for rows, _ in lists), default=0)
    for i in range(rounds):
        for rows, score in lists:
            if i < len(rows) and len(order) < depth:
                order.append((rows[i], score))
    out: list[tuple[int, float]] = []
    for row, score in order:
        # scores fall strictly along the order, so a reader sorting by score agrees
        if out and score >= out[-1][1]:
            score = out[-1][1] * 0.999
        out.append((row, score))
    return out


__all__ = ["FileEvidence", "chunk_order", "gather", "query_weights", "rank_files"]
