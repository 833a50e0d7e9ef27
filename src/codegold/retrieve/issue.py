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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from codegold.index.store import LoadedIndex
from codegold.index.tokenize import STOPWORDS, tokenize, tokenize_query
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.query import QueryAnalysis, code_spans, looks_like_code

_DOTTED_MODULE = re.compile(r"\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\b")
_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+([\w, ()]+)|import\s+([\w., ]+))", re.M)


@dataclass
class FileEvidence:
    chunk: float = 0.0  # decayed sum of the file's best chunk scores
    top_chunks: list[float] = field(default_factory=list)  # best chunk scores, descending
    whole: float = 0.0  # whole-file BM25
    plain: float = 0.0  # whole-file BM25 of the report as written (no cleaning, no weights)
    frame: float = 0.0  # a traceback frame lands in this file
    path: float = 0.0  # the report names this path
    module: float = 0.0  # a dotted module name or import resolves to this file
    definition: float = 0.0  # defines identifiers the report writes as code
    name: float = 0.0  # idf-weighted share of the file's name the report's words cover
    role: str = "source"
    best_rows: list[int] = field(default_factory=list)  # the chunks to show, best first
    row_scores: list[float] = field(default_factory=list)  # their scores as shown

    def as_dict(self) -> dict[str, float | str]:
        return {
            "chunk": round(self.chunk, 6),
            "whole": round(self.whole, 6),
            "plain": round(self.plain, 6),
            "frame": self.frame,
            "path": self.path,
            "module": self.module,
            "definition": round(self.definition, 6),
            "name": round(self.name, 6),
            "role": self.role,
        }


_HEADING = re.compile(r"^\s{0,3}(?:#{1,6}\s.*|\*\*[^*\n]{1,80}\*\*:?|__[^_\n]{1,80}__:?)\s*$")
_CHECKBOX = re.compile(r"^\s*[-*+]\s+\[[ xX]\]\s")
_NO_RESPONSE = re.compile(r"^\s*_?no response_?\s*$", re.I)
_HTML_TAG = re.compile(r"</?(?:details|summary|br|p|sub|sup|b|i)\b[^>]*>", re.I)
_URL = re.compile(r"\bhttps?://[^\s)>\]]+")
_URL_PATH = re.compile(r"/(?:blob|tree|raw)/[^/\s]+/([^\s#?]+)")
_KEY_VALUE = re.compile(
    r"^\s*(?:[-*+]\s+)?([A-Za-z][\w.\- ]{0,40}?)\s*(?::|==|>=|<=|~=)\s*(\S.*?)\s*$"
)
_TABLE_ROW = re.compile(r"^\s*[A-Za-z][\w.\-\[\]]*\s{2,}v?\d[\w.+\-!]*(?:\s+\S+){0,3}\s*$")
_VERSIONISH = re.compile(r"^(?:v?\d[\w.+\-]*|none|n/?a|unknown|(?:not )?installed)\b", re.I)
_CODE_WORD = re.compile(r"\b[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*\b")


def _environment_lines(lines: list[str]) -> set[int]:
    """Lines of version listings (``numpy: 1.22``, ``pandas==1.4``, ``OS: Linux`` in a
    run of them, ``pip list`` rows): runs of three or more key/value lines; the whole
    run when it is long and mostly versions, else only its version lines."""
    drop: set[int] = set()
    run: list[tuple[int, bool]] = []

    def close() -> None:
        if len(run) >= 3:
            versions = [i for i, v in run if v]
            if len(run) >= 5 and len(versions) * 2 >= len(run):
                drop.update(i for i, _ in run)
            else:
                drop.update(versions)
        run.clear()

    for i, line in enumerate(lines):
        if not line.strip():
            continue  # blank lines neither extend nor break a listing
        m = _KEY_VALUE.match(line)
        if m is not None:
            key, value = m.group(1), m.group(2)
            run.append((i, bool(_VERSIONISH.match(value)) or "version" in key.lower()))
        elif _TABLE_ROW.match(line):
            run.append((i, True))
        else:
            close()
    close()
    return drop


def clean_report(text: str) -> tuple[str, str]:
    """The report's title (its first line) and its body without the boilerplate issue
    templates add: headings, checklists, "No response", HTML details tags, version
    listings of the environment, and URLs (a repository URL's file path is kept)."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _URL.sub(lambda m: " ".join(_URL_PATH.findall(m.group(0))) or " ", text)
    text = _HTML_TAG.sub(" ", text)
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return "", ""
    title = lines[first].strip().lstrip("#").strip()
    rest = lines[first + 1 :]
    drop = _environment_lines(rest)
    body = [
        line
        for i, line in enumerate(rest)
        if i not in drop
        and not _HEADING.match(line)
        and not _CHECKBOX.match(line)
        and not _NO_RESPONSE.match(line)
    ]
    return title, "\n".join(body)


@dataclass(frozen=True)
class ReportTerms:
    """What the ranking reads off a report once its boilerplate is gone."""

    weights: dict[str, float]
    code_identifiers: tuple[str, ...]
    text: str  # title and cleaned body
    title_identifiers: tuple[str, ...] = ()  # code the title names


def report_terms(analysis: QueryAnalysis, cfg: RetrieverConfig) -> ReportTerms:
    """Term weights: ``1 + log(count)`` for the cleaned report's words (BM25's idf is
    in the index weights); plus ``issue_title_weight`` for the title's words; plus
    ``issue_code_weight`` times the same for words of identifiers written as code
    and of traceback functions."""
    if cfg.issue_clean:
        title, body = clean_report(analysis.raw)
    else:
        title, body = "", analysis.raw
    text = f"{title}\n{body}"
    counts = Counter(tokenize_query(text))
    weights = {t: 1.0 + math.log(c) for t, c in counts.items()}
    if cfg.issue_title_weight:
        for term in dict.fromkeys(tokenize_query(title)):
            weights[term] = weights.get(term, 0.0) + cfg.issue_title_weight
    identifiers: list[str] = []
    for span in code_spans(text) if cfg.issue_clean else ():
        identifiers.extend(
            w for w in _CODE_WORD.findall(span) if len(w) >= 3 and w.lower() not in STOPWORDS
        )
    if not cfg.issue_clean:
        identifiers = list(analysis.code_identifiers)
    code: Counter[str] = Counter()
    for ident in identifiers:
        code.update(tokenize(ident.replace(".", " ")))
    for _, func in analysis.frames:
        code.update(tokenize(func))
    for term, c in code.items():
        weights[term] = weights.get(term, 0.0) + cfg.issue_code_weight * (1.0 + math.log(c))
    return ReportTerms(
        weights, tuple(dict.fromkeys(identifiers)), text, tuple(title_identifiers(title))
    )


_TITLE_CODE = re.compile(r"`([^`]+)`|([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)|([A-Za-z_]\w*)(?=\()")


def title_identifiers(title: str) -> list[str]:
    """The code a report's title names: backticked spans, dotted names, calls, and
    words written like code (``snake_case``, ``camelCase``)."""
    found: list[str] = []
    for m in _TITLE_CODE.finditer(title):
        if m.group(1) is not None:
            found.extend(_CODE_WORD.findall(m.group(1)))
        else:
            found.append(m.group(2) or m.group(3))
    found.extend(w for w in re.findall(r"[A-Za-z_]\w*", title) if looks_like_code(w))
    return [w for w in dict.fromkeys(found) if len(w) >= 3 and w.lower() not in STOPWORDS]


def plain_weights(text: str) -> dict[str, float]:
    """The report's words as written, each counted as often as it occurs: plain BM25's
    query, the same for every report (no cleaning, title or code weights)."""
    return {t: float(c) for t, c in Counter(tokenize_query(text)).items()}


def query_weights(analysis: QueryAnalysis, cfg: RetrieverConfig) -> dict[str, float]:
    """The report's term weights (see :func:`report_terms`)."""
    return report_terms(analysis, cfg).weights


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
    if _DECLARATION_FILE.search(path):
        return "declaration"
    return "source"


#: Files that declare what other files implement: C and C++ headers, TypeScript
#: declaration files, Python stubs.
_DECLARATION_FILE = re.compile(r"\.(?:h|hh|hpp|hxx|pyi)$|\.d\.[mc]?ts$")

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


def _suffix_match(
    path: str, files: Mapping[str, int], named: Mapping[str, tuple[str, ...]]
) -> str | None:
    """The indexed file a (possibly absolute, site-packages) path names: the longest
    suffix of its components that is an indexed path; else the one indexed file that
    ends with the longest suffix of two components or more (``site-packages/pkg/a.py``
    is ``src/pkg/a.py``), or with the whole path when it is a bare file name
    (``xmlparse.c`` in a gdb frame); None when several files fit equally well.
    ``named`` is the indexed paths by file name (:attr:`LoadedIndex.files_by_name`)."""
    parts = [p for p in path.replace("\\", "/").split("/") if p and p != "."]
    if not parts:
        return None
    for i in range(len(parts)):
        candidate = "/".join(parts[i:])
        if candidate in files:
            return candidate
    candidates = named.get(parts[-1], ())
    for i in range(len(parts)):
        if len(parts) - i < 2 and len(parts) > 1:
            break  # one shared file name says little about a longer path
        tail = "/" + "/".join(parts[i:])
        found = [f for f in candidates if f.endswith(tail)]
        if found:
            return found[0] if len(found) == 1 else None
    return None


def located_rows(
    index: LoadedIndex, locations: tuple[tuple[str, int], ...]
) -> list[tuple[int, int]]:
    """(frame position, row) for each pasted trace location that resolves to an indexed
    file and falls inside one of its chunks (the smallest that spans the line), in the
    locations' order, each row once."""
    files = index.file_row
    named = index.files_by_name
    rows_by_file = index.rows_by_file
    chunks = index.chunks
    out: list[tuple[int, int]] = []
    seen: set[int] = set()
    for position, (path, line) in enumerate(locations):
        hit = _suffix_match(path, files, named)
        if hit is None:
            continue
        spanning = [
            (chunks[r].end_line - chunks[r].start_line, r)
            for r in rows_by_file.get(hit, [])
            if chunks[r].start_line <= line <= chunks[r].end_line
        ]
        if spanning:
            row = min(spanning)[1]
            if row not in seen:
                seen.add(row)
                out.append((position, row))
    return out


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


_TOP_KEPT = 8
#: A file's chunks considered for showing (its best by lexical score).
_SHOWN_FROM = 12


def _shape(chunk: Any, cfg: RetrieverConfig) -> float:
    """How much a chunk's lexical score counts when choosing which of a file's chunks
    to show: a chunk of ``issue_wrapper_lines`` or fewer (a wrapper passing the call
    the report names on to the code that does the work, a getter) ``issue_wrapper_factor``
    of it, since a report describes behaviour and the behaviour lives where the work
    is done; a line or two of module glue (an import, one long constant) also
    ``thin_factor`` of it, as in question ranking, so it stays below a short function;
    module documentation (a ``docs`` chunk) ``issue_docs_factor`` of it."""
    lines = chunk.end_line - chunk.start_line + 1
    factor = cfg.issue_wrapper_factor if lines <= cfg.issue_wrapper_lines else 1.0
    if chunk.kind == "module" and lines <= 2:
        factor *= cfg.thin_factor  # glue stays below a short definition
    if chunk.role == "docs":
        # a source file's module documentation (Rust ``//!``) matches a report's words
        # wholesale; the code it describes is what the report is about
        factor *= cfg.issue_docs_factor
    return factor


def chunk_evidence(top_chunks: list[float], cfg: RetrieverConfig) -> float:
    """A file's chunk evidence: its best ``issue_chunk_top`` chunk scores, the i-th
    multiplied by ``issue_chunk_decay ** i`` (not max-pooled: a file that matches in
    several places says more than one matching chunk)."""
    decay = cfg.issue_chunk_decay
    return sum(score * decay**i for i, score in enumerate(top_chunks[: cfg.issue_chunk_top]))


def gather(
    index: LoadedIndex, analysis: QueryAnalysis, cfg: RetrieverConfig
) -> tuple[dict[str, FileEvidence], np.ndarray]:
    """Per-file evidence for an issue report, and the chunk score vector."""
    terms = report_terms(analysis, cfg)
    weights = terms.weights
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
    for path, rows in per_file.items():
        rows.sort(key=lambda r: (-float(chunk_scores[r]), r))
        e = ev(path)
        e.top_chunks = [float(chunk_scores[r]) for r in rows[:_TOP_KEPT]]
        e.chunk = chunk_evidence(e.top_chunks, cfg)
        shown = sorted(
            ((float(chunk_scores[r]) * _shape(chunks[r], cfg), r) for r in rows[:_SHOWN_FROM]),
            key=lambda sr: (-sr[0], sr[1]),
        )[: max(cfg.issue_chunks_per_file, 1)]
        e.best_rows = [r for _, r in shown]
        e.row_scores = [score for score, _ in shown]
    wnz = np.flatnonzero(whole > 0)
    for row in wnz[np.argsort(-whole[wnz], kind="stable")][:500].tolist():
        ev(file_names[row]).whole = float(whole[row])
    if cfg.issue_plain_weight:
        plain = files_index.weighted_scores(plain_weights(analysis.raw))
        pnz = np.flatnonzero(plain > 0)
        for row in pnz[np.argsort(-plain[pnz], kind="stable")][:500].tolist():
            ev(file_names[row]).plain = float(plain[row])
    for path, _func in analysis.frames:
        hit = _suffix_match(path, file_row, index.files_by_name)
        if hit is not None:
            ev(hit).frame = 1.0
    _show_located(index, analysis, cfg, ev, chunk_scores)
    url_paths = [p for m in _URL.finditer(analysis.raw) for p in _URL_PATH.findall(m.group(0))]
    for path in [*analysis.paths, *url_paths]:
        hit = _suffix_match(path, file_row, index.files_by_name)
        if hit is not None:
            ev(hit).path = 1.0
    source = terms.text if cfg.issue_clean else analysis.raw
    dotted: set[str] = set(_DOTTED_MODULE.findall(source))
    for m in _IMPORT.finditer(source):
        if m.group(1):
            dotted.add(m.group(1))
            for name in re.findall(r"\w+", m.group(2)):
                dotted.add(f"{m.group(1)}.{name}")
        elif m.group(3):
            dotted.update(n.strip().split(" ")[0] for n in m.group(3).split(","))
    for name in sorted(dotted):
        if cfg.issue_clean and "." not in name:
            continue  # ``import xarray``: the whole package, not a file in it
        for hit in _module_files(name, file_row):
            ev(hit).module = 1.0
    if cfg.issue_definition_weight:
        _definitions(index, analysis, terms, cfg, ev)
    for path, e in evidence.items():
        e.name = _name_share(path, weights, index)
    return evidence, chunk_scores


def _show_located(
    index: LoadedIndex,
    analysis: QueryAnalysis,
    cfg: RetrieverConfig,
    ev: Callable[[str], FileEvidence],
    chunk_scores: np.ndarray,
) -> None:
    """A file a pasted trace points into shows the chunks its lines fall in first,
    innermost frame first: the report's words pick the file, the frame the place."""
    located: dict[str, list[int]] = {}
    chunks = index.chunks
    for _, row in located_rows(index, analysis.locations):
        located.setdefault(chunks[row].file, []).append(row)
    keep = max(cfg.issue_chunks_per_file, 1)
    for path, rows in located.items():
        e = ev(path)
        e.frame = 1.0
        best = max([*e.row_scores[:1], *(float(chunk_scores[r]) for r in rows)]) or 1e-9
        rest = [(r, s) for r, s in zip(e.best_rows, e.row_scores, strict=True) if r not in rows]
        shown = [(r, best) for r in rows] + rest
        e.best_rows = [r for r, _ in shown[:keep]]
        e.row_scores = [s for _, s in shown[:keep]]


def _definitions(
    index: LoadedIndex,
    analysis: QueryAnalysis,
    terms: ReportTerms,
    cfg: RetrieverConfig,
    ev: Callable[[str], FileEvidence],
) -> None:
    """Files defining the identifiers the title, the code spans and the frames name,
    each name's share ``1 / log2(1 + definitions)`` (a name defined in 50 places or
    more says nothing)."""
    table = index.symbols
    chunks = index.chunks
    in_title = set(terms.title_identifiers)
    names = list(
        dict.fromkeys(
            [*terms.title_identifiers, *terms.code_identifiers, *(f for _, f in analysis.frames)]
        )
    )
    for name in names:
        found = table.definitions(name.rsplit(".", 1)[-1]) if name else []
        if not found or len(found) > 50:
            continue
        share = 1.0 / math.log2(1 + len(found))
        if name in in_title:
            share *= cfg.issue_title_definition_factor
        for path in {chunks[r].file for r in found}:
            ev(path).definition += share


def _idf(index: LoadedIndex, term: str) -> float:
    """A chunk term's idf, ``log(1 + N / df)``; 0 for a term no chunk holds."""
    lex = index.lexical
    i = lex.vocab.get(term)
    if i is None:
        return 0.0
    df = int(lex.indptr[i + 1] - lex.indptr[i])
    return math.log1p(lex.n_docs / max(df, 1))


def _name_share(path: str, weights: dict[str, float], index: LoadedIndex) -> float:
    """How much of the file's name (its parent folder's for ``__init__``/``index``)
    the report's words cover, each name word counted by its idf."""
    parts = path.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    if stem in ("__init__", "index", "mod", "main", "__main__") and len(parts) > 1:
        stem = parts[-2]
    words = list(dict.fromkeys(tokenize(stem)))
    idf = {w: _idf(index, w) for w in words}
    total = sum(idf.values())
    if total <= 0:
        return 0.0
    return sum(v for w, v in idf.items() if w in weights) / total


def rank_files(evidence: dict[str, FileEvidence], cfg: RetrieverConfig) -> list[tuple[str, float]]:
    """Files by fused evidence: each signal divided by its best, weighted, summed;
    tests and docs multiplied down."""
    if not evidence:
        return []
    best_chunk = max(e.chunk for e in evidence.values()) or 1.0
    best_whole = max(e.whole for e in evidence.values()) or 1.0
    best_def = max(e.definition for e in evidence.values()) or 1.0
    best_plain = max(e.plain for e in evidence.values()) or 1.0
    scored: list[tuple[str, float]] = []
    for path, e in evidence.items():
        score = (
            cfg.issue_chunk_weight * e.chunk / best_chunk
            + cfg.issue_file_weight * e.whole / best_whole
            + cfg.issue_frame_weight * e.frame
            + cfg.issue_path_weight * e.path
            + cfg.issue_module_weight * e.module
            + cfg.issue_definition_weight * e.definition / best_def
            + cfg.issue_name_weight * e.name
            + cfg.issue_plain_weight * e.plain / best_plain
        )
        if e.role == "test":
            score *= cfg.issue_test_factor
        elif e.role == "docs":
            score *= cfg.issue_docs_factor
        elif e.role in ("other", "foreign"):
            score *= cfg.issue_other_factor
        elif e.role == "declaration":
            score *= cfg.issue_declaration_factor
        scored.append((path, score))
    scored.sort(key=lambda fs: (-fs[1], fs[0]))
    return scored


def chunk_order(
    index: LoadedIndex,
    ranking: list[tuple[str, float]],
    evidence: dict[str, FileEvidence],
    depth: int,
    share: float = 0.0,
) -> list[tuple[int, float]]:
    """Chunks for the ranked files. A file's best chunk scores as the file; its i-th
    scores the file's score times the chunk's lexical score relative to the file's
    best, raised to ``share`` (0: every file's best chunk first, files in order, then
    each file's next chunk). The distinct files come out in the file order either way."""
    entries: list[tuple[float, int, int, int]] = []  # score, file rank, i, row
    for n, (path, score) in enumerate(ranking[:depth]):
        e = evidence[path]
        rows = e.best_rows or index.rows_by_file.get(path, [])[:1]
        best = e.row_scores[0] if e.row_scores else 0.0
        for i, row in enumerate(rows):
            if i == 0:
                entries.append((score, n, 0, row))
            elif share > 0 and best > 0 and i < len(e.row_scores):
                entries.append((score * (e.row_scores[i] / best) ** share, n, i, row))
            else:
                entries.append((-float(i), n, i, row))  # after every first chunk
    entries.sort(key=lambda x: (-x[0], x[2], x[1]) if x[0] >= 0 else (1, x[2], x[1]))
    order = [(row, score) for score, _, _, row in entries[:depth]]
    out: list[tuple[int, float]] = []
    for row, score in order:
        # scores fall strictly along the order, so a reader sorting by score agrees
        if out and (score >= out[-1][1] or score <= 0):
            score = out[-1][1] * 0.999
        out.append((row, score))
    return out


__all__ = [
    "FileEvidence",
    "ReportTerms",
    "chunk_order",
    "clean_report",
    "gather",
    "query_weights",
    "rank_files",
    "report_terms",
]
