"""The reference retriever: lexical + symbol + path (+ dense) signals, fused, then
reranked by role preference, reliable path context and legacy/generated policy."""

from __future__ import annotations

import math
import posixpath
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from codegold import __version__
from codegold.attempts import Attempt, RetrievedChunk, RetrieverInfo
from codegold.cases.model import Context
from codegold.index.lexical import top_k
from codegold.index.store import IndexedChunk, LoadedIndex
from codegold.index.tokenize import split_identifier, stem
from codegold.index.vectors import search as vector_search
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.protocol import Retriever as Retriever
from codegold.retrieve.query import Intent, QueryAnalysis, analyze

RETRIEVER_NAME = "codegold-hybrid"
LEGACY_ROLES = frozenset({"migration"})
#: Chunk kinds that can be hubs: long type bodies and modules, not functions.
HUB_KINDS = frozenset({"class", "interface", "type", "struct", "enum", "impl", "trait", "module"})


@dataclass
class Explanation:
    row: int
    signals: dict[str, tuple[int, float]] = field(default_factory=dict)
    fused: float = 0.0
    factors: dict[str, float] = field(default_factory=dict)
    final: float = 0.0
    dropped: str | None = None


@dataclass
class SearchResult:
    analysis: QueryAnalysis
    filters: dict[str, Any]
    candidates: list[tuple[int, float]]
    ranked: list[tuple[int, float]]
    explanations: dict[int, Explanation]


class HybridRetriever:
    """The reference retriever over one loaded index."""

    name = RETRIEVER_NAME

    def __init__(
        self,
        index: LoadedIndex,
        config: RetrieverConfig | None = None,
        embedder: Any = None,
        rewriter: Callable[[str], str] | None = None,
    ) -> None:
        self.index = index
        self.config = config or RetrieverConfig()
        self.rewriter = rewriter
        self.embedder = embedder if index.vectors is not None else None
        self._name_parts: dict[str, frozenset[str]] = {}
        self._query_vectors: dict[str, Any] = {}
        self._roles_for: tuple[object, Intent, dict[str, float]] = (None, Intent.GENERAL, {})
        self._terms_of: tuple[object, frozenset[str]] = (None, frozenset())
        self._test_only: tuple[object, bool] = (None, False)
        self._builds: dict[str, tuple[bool, frozenset[str]]] = {}
        self._deprecated: dict[int, str | None] = {}
        self._query_words: tuple[object, set[str]] = (None, set())
        self._callee_rows: dict[int, list[list[int]]] = {}
        self._file_kinds: dict[str, str | None] = {}
        self._tooling_only: tuple[object, bool] = (None, False)
        self._whole_classes: dict[int, tuple[str, ...]] = {}

    # -- signals ---------------------------------------------------------------

    def _lexical(self, analysis: QueryAnalysis) -> list[tuple[int, float]]:
        terms = list(analysis.terms)
        for ident in analysis.identifiers:
            # the whole identifier, lowercased, is one more exact token
            terms.append(ident.rsplit(".", 1)[-1].lower())
        shorts = [_ABBREVIATIONS[w.lower()] for w in analysis.words if w.lower() in _ABBREVIATIONS]
        weight = self.config.abbreviation_weight
        if not shorts or weight <= 0:
            scores = self.index.lexical.scores(terms)
        else:
            # "environment variable": code writes ENV; the short form counts for less
            weights: dict[str, float] = {}
            for term in terms:
                weights[term] = weights.get(term, 0.0) + 1.0
            for short in shorts:
                weights[short] = weights.get(short, 0.0) + weight
            scores = self.index.lexical.weighted_scores(weights)
        return self._with_code(top_k(scores, self.config.candidates_per_signal), scores, analysis)

    def _with_code(
        self, hits: list[tuple[int, float]], scores: Any, analysis: QueryAnalysis
    ) -> list[tuple[int, float]]:
        """The lexical hits of a question about the code, followed, when test code and
        stubs crowd out the code (fewer than ``code_candidates`` other chunks among
        them), by the best code chunks below them: ``Logger.opt`` is written a hundred
        times in tests/test_opt.py and once where it is defined, and the code around
        the definition should still be a candidate."""
        want = self.config.code_candidates
        if want <= 0 or analysis.intent not in _ASIDE_INTENTS:
            return hits
        if len(hits) < self.config.candidates_per_signal:
            return hits  # every chunk that holds a term is in already
        chunks = self.index.chunks
        have = sum(1 for row, _ in hits if self._is_code(chunks[row]))
        if have >= want:
            return hits
        # The best code chunks outside the hits, by score then row (as top_k orders),
        # read one row at a time: a search decodes only the chunks it looks at.
        present = {row for row, _ in hits}
        scores32 = np.asarray(scores, dtype=np.float32)
        positive = np.flatnonzero(scores32 > 0)
        extra: list[tuple[int, float]] = []
        for row in positive[np.lexsort((positive, -scores32[positive]))]:
            r = int(row)
            if r in present or not self._is_code(chunks[r]):
                continue
            extra.append((r, float(scores32[r])))
            if len(extra) >= want - have:
                break
        return hits + extra

    def _is_code(self, chunk: IndexedChunk) -> bool:
        """Whether a chunk is code: a definition, declaration or call site that is not
        test code, a test harness or a stub (nor docs, configuration, …)."""
        return chunk.role in _CODE_ROLES and self._file_kind(chunk) is None

    def _symbol_names(self, analysis: QueryAnalysis) -> list[tuple[str, float]]:
        """Names to look up, with a weight: code-looking identifiers fully, plain
        words only when some chunk defines exactly that name."""
        names: list[tuple[str, float]] = [(i, 1.0) for i in analysis.identifiers]
        if names and not _bare_names(analysis):
            # the asker named code; plain words are prose ("refresh token"), not names
            return names
        table = self.index.symbols
        for word in analysis.words:
            if len(word) >= 3 and table.definitions(word):
                names.append((word, 0.6))
        return names

    def _symbols(
        self, analysis: QueryAnalysis
    ) -> tuple[list[tuple[int, float]], list[tuple[int, float]]]:
        table = self.index.symbols
        defs: dict[int, float] = {}
        refs: dict[int, float] = {}
        for name, weight in self._symbol_names(analysis):
            exact = table.definitions(name)
            found = exact or table.definitions_ci(name)
            if found and weight == 1.0 and self._namespace(found, analysis):
                found = []
            if found:
                # a name defined in many places says less about each place
                share = weight * (1.0 if exact else 0.6) / math.log2(1 + len(found))
                for row in found:
                    defs[row] = defs.get(row, 0.0) + share
            used = table.references(name)
            if used:
                share = weight / math.log2(1 + len(used))
                for row in used:
                    refs[row] = refs.get(row, 0.0) + share
        return _order(defs), _order(refs)

    def _namespace(self, rows: list[int], analysis: QueryAnalysis) -> bool:
        """Whether a name the prose question writes is the project's namespace: only
        modules, classes and other containers define it, in more than
        ``_NAMESPACE_FILES`` files (``module HTTParty`` opened again in every file of
        a gem, a PHP or C# namespace). Every file's wrapper would otherwise rank as
        the definition asked for; a bare name (``get`` with a file open) keeps them."""
        if not _prose_question(analysis):
            return False
        chunks = self.index.chunks
        if any(chunks[r].kind not in HUB_KINDS for r in rows):
            return False
        return len({chunks[r].file for r in rows}) > _NAMESPACE_FILES

    def _callees(
        self, analysis: QueryAnalysis, defs: list[tuple[int, float]]
    ) -> list[tuple[int, float]]:
        """The definitions of what the named code calls, in call order.

        A question about how a named function behaves ("how does c.ShouldBind pick
        JSON vs XML") is often answered one call down (``binding.Default``). For the
        best few definitions of a name the query writes as code (prose questions only:
        not a bare identifier, a pasted message or a request for examples), each name
        called in the body with one to three definitions adds those definitions, in
        call order, each by how few places define it.
        """
        if not defs or not analysis.identifiers:
            return []
        if not _prose_question(analysis):
            return []  # a bare name (``Context.ShouldBind``) asks where it is defined
        if analysis.errors or analysis.intent in (Intent.USAGE, Intent.TEST):
            return []
        hits: dict[int, float] = {}
        position = 0
        for row, _ in defs[:_CALLERS]:
            for found in self._called_by(row):
                position += 1
                for target in found:
                    if target != row and target not in hits:
                        hits[target] = 1.0 / (len(found) * math.log2(1 + position))
        return _order(hits)[: self.config.candidates_per_signal]

    def _called_by(self, row: int) -> list[list[int]]:
        """The definitions of each name a chunk calls (or, in a method, each member of
        its own object it reads), in order, names with one to three definitions only;
        worked out once per chunk."""
        known = self._callee_rows.get(row)
        if known is not None:
            return known
        table = self.index.symbols
        chunk = self.index.chunks[row]
        own = set(chunk.symbols or ((chunk.symbol,) if chunk.symbol else ()))
        own |= {n.rsplit(".", 1)[-1] for n in own}
        owner = chunk.symbol.rsplit(".", 1)[0] if chunk.symbol and "." in chunk.symbol else None
        called = _CALLED.findall(chunk.text)
        if owner is not None:
            # ``self.encoding`` in Response.text: the owner's own members, calls or
            # not (a property is read, not called)
            called += [f"{owner}.{m}" for m in _MEMBER.findall(chunk.text)]
        out: list[list[int]] = []
        for name in dict.fromkeys(called):
            if name in own or name in _NOT_CALLS or len(name) < 3:
                continue
            found = table.definitions(name)
            if found and len(found) <= _CALLEE_DEFS:
                out.append(found)
        if len(self._callee_rows) >= _QUERY_CACHE:
            self._callee_rows.clear()
        self._callee_rows[row] = out
        return out

    def _paths(self, analysis: QueryAnalysis) -> list[tuple[int, float]]:
        hits: dict[int, float] = {}
        if not analysis.paths:
            return []
        for path, rows in self.index.rows_by_file.items():
            for mentioned in analysis.paths:
                if path == mentioned or path.endswith("/" + mentioned):
                    score = 1.0
                elif mentioned in path:
                    score = 0.5
                else:
                    continue
                for row in rows:
                    hits[row] = max(hits.get(row, 0.0), score)
        return _order(hits)[: self.config.candidates_per_signal]

    def _phrases(self, analysis: QueryAnalysis) -> list[tuple[int, float]]:
        """Chunks containing a literal fragment of a pasted error message or quote."""
        hits: dict[int, float] = {}
        for phrase in analysis.phrases:
            rows = self.index.rows_containing(phrase, limit=self.config.candidates_per_signal)
            if not rows:
                continue
            weight = len(phrase.split()) / math.log2(1 + len(rows))
            for row in rows:
                hits[row] = max(hits.get(row, 0.0), weight)
        if self.config.phrase_fragments > 0 and (analysis.errors or _MESSAGE.search(analysis.raw)):
            # a message printed from a template ("%s/%d is not defined", `option ${x}
            # must be ${y}`) holds values the code never spells: its three-word runs
            # still name the raising site, each by how rare it is
            extra: dict[int, float] = {}
            for window in _fragments(analysis.phrases):
                rows = self.index.rows_containing(window, limit=_FRAGMENT_LIMIT + 1)
                if not rows or len(rows) > _FRAGMENT_LIMIT:
                    continue
                weight = self.config.phrase_fragments / math.log2(1 + len(rows))
                for row in rows:
                    extra[row] = extra.get(row, 0.0) + weight
            for row, value in extra.items():
                hits[row] = hits.get(row, 0.0) + value
        return _order(hits)[: self.config.candidates_per_signal]

    def _raise_sites(self, analysis: QueryAnalysis) -> list[tuple[int, float]]:
        """The code that raises a pasted message kept in a message table.

        Many libraries keep their messages in one table keyed by an error code
        (``'object.unknown': '{{#label}} is not allowed'``, ``"unknown": "Unknown
        field."``, ``Self::ExtraForbidden {..} => "Extra inputs are not permitted"``)
        and raise them by the key elsewhere (``$_createError('object.unknown', …)``,
        ``self.error_messages["unknown"]``, ``ErrorTypeDefaults::ExtraForbidden``).
        For each phrase of the message found on a keyed line of non-test code, the
        other chunks that write that key (as the same quoted string, or as the same
        name), each by how few chunks write it.
        """
        if not analysis.phrases:
            return []
        chunks = self.index.chunks
        keys: dict[tuple[str, str], float] = {}
        limit = self.config.candidates_per_signal
        for phrase in analysis.phrases:
            rows = self.index.rows_containing(phrase, limit=limit)
            if not rows or len(rows) >= limit:
                continue  # too common a phrase to say which entry it is
            for row in rows:
                chunk = chunks[row]
                if chunk.role in ("test", "docs"):
                    continue
                text = chunk.text
                low = text.lower()
                if len(low) != len(text):
                    text = low  # a character that lowers to two: offsets in one spelling
                at = low.find(phrase)
                while at >= 0:
                    start = text.rfind("\n", 0, at) + 1
                    above = text.rfind("\n", 0, max(start - 1, 0)) + 1 if start else start
                    previous = text[above : start - 1] if start else ""
                    entry = _message_key(text[start:at], previous)
                    if entry is not None:
                        weight = len(phrase.split()) / math.log2(1 + len(rows))
                        keys[entry] = max(keys.get(entry, 0.0), weight)
                    at = low.find(phrase, at + len(phrase))
        hits: dict[int, float] = {}
        for (kind, key), weight in list(keys.items())[:_RAISE_KEYS]:
            if kind == "name":
                found = list(self.index.symbols.references(key))
                if len(found) > 4 * _RAISE_LIMIT:
                    continue  # a name written everywhere says nothing
            else:
                # one scan for the key, then the rows that write it quoted; a key in
                # more rows than that is too common to say where it is raised
                quoted = [f"{q}{key}{q}" for q in "'\"`"]
                rows = self.index.rows_containing(key, limit=4 * _RAISE_LIMIT)
                if len(rows) >= 4 * _RAISE_LIMIT:
                    continue
                found = [r for r in rows if any(f in chunks[r].text.lower() for f in quoted)]
            found = [
                r
                for r in found
                if chunks[r].role not in ("test", "docs")
                and not any(p in chunks[r].text.lower() for p in analysis.phrases)
            ]
            if not found or len(found) > _RAISE_LIMIT:
                continue
            for r in found:
                hits[r] = max(hits.get(r, 0.0), weight / math.log2(1 + len(found)))
        return _order(hits)[:limit]

    def _frames(self, analysis: QueryAnalysis) -> list[tuple[int, float]]:
        """The chunks a pasted trace's frames point into (``path:line`` resolved to an
        indexed file, the chunk spanning the line), innermost frame first."""
        if not analysis.locations:
            return []
        from codegold.retrieve import issue  # (only traces and issue reports need it)

        located = issue.located_rows(self.index, analysis.locations)
        return [(row, 1.0 / (1 + position)) for position, row in located]

    def _dense(self, analysis: QueryAnalysis) -> list[tuple[int, float]]:
        if self.embedder is None or self.index.vectors is None:
            return []
        query = self._query_vector(analysis.raw)
        hits = vector_search(self.index.vectors, query, self.config.candidates_per_signal)
        return [(row, score) for row, score in hits if score > 0]

    def _query_vector(self, text: str) -> Any:
        """The query's embedding, computed once per retriever: a run that asks the same
        question again (retries, repeats, tune's trials) pays for the model once."""
        vector = self._query_vectors.get(text)
        if vector is None:
            assert self.embedder is not None
            vector = np.asarray(self.embedder.embed_query(text), dtype=np.float32)
            vector.setflags(write=False)
            if len(self._query_vectors) >= _QUERY_CACHE:
                self._query_vectors.pop(next(iter(self._query_vectors)))
            self._query_vectors[text] = vector
        return vector

    # -- fusion and reranking ---------------------------------------------------

    def search(self, query: str, context: Context | None = None) -> SearchResult:
        cfg = self.config
        analysis = analyze(query)
        if analysis.issue_report and cfg.issue_reports:
            return self._search_issue(analysis, context)
        defs, refs = self._symbols(analysis)
        signals: dict[str, tuple[float, list[tuple[int, float]]]] = {
            "lexical": (cfg.w_lexical, self._lexical(analysis)),
            "symbol": (cfg.w_symbol, defs[: cfg.candidates_per_signal]),
            "reference": (cfg.w_reference, refs[: cfg.candidates_per_signal]),
            "path": (cfg.w_path, self._paths(analysis)),
            "phrase": (cfg.w_phrase, self._phrases(analysis)),
            "dense": (cfg.w_dense, self._dense(analysis) if cfg.dense_mode == "fuse" else []),
            "callee": (cfg.w_callee, self._callees(analysis, defs) if cfg.w_callee > 0 else []),
            "raise": (cfg.w_raise, self._raise_sites(analysis) if cfg.w_raise > 0 else []),
            "frame": (cfg.w_frame, self._frames(analysis) if cfg.w_frame > 0 else []),
        }
        fused, explanations = self._fuse(signals)
        retrieved = _order(fused)
        filters = _filters(context)
        ranked = self._adjust(retrieved, explanations, analysis, context)
        candidates = _pre_rerank(ranked, retrieved[: max(cfg.depth, cfg.candidates_per_signal)])
        ranked = self._refine(ranked, analysis, explanations, context)
        return SearchResult(
            analysis=analysis,
            filters=filters,
            candidates=candidates,
            ranked=ranked[: cfg.depth],
            explanations=explanations,
        )

    def _fuse(
        self, signals: dict[str, tuple[float, list[tuple[int, float]]]]
    ) -> tuple[dict[int, float], dict[int, Explanation]]:
        """Each signal's weighted hits summed per row (reciprocal rank or max-normalised
        score), with each row's per-signal rank and score."""
        cfg = self.config
        explanations: dict[int, Explanation] = {}
        fused: dict[int, float] = {}
        for name, (weight, hits) in signals.items():
            if not hits or weight <= 0:
                continue
            best = hits[0][1] or 1.0
            for rank, (row, score) in enumerate(hits, start=1):
                if cfg.fusion == "rrf":
                    value = weight / (cfg.rrf_k + rank)
                else:
                    value = weight * score / best
                fused[row] = fused.get(row, 0.0) + value
                explanations.setdefault(row, Explanation(row)).signals[name] = (rank, score)
        return fused, explanations

    def _adjust(
        self,
        candidates: list[tuple[int, float]],
        explanations: dict[int, Explanation],
        analysis: QueryAnalysis,
        context: Context | None,
    ) -> list[tuple[int, float]]:
        """The candidates times their factors (filtered ones dropped), best first, ties by
        chunk id."""
        cfg = self.config
        ranked: list[tuple[int, float]] = []
        qualified = [q for q in _qualified(analysis) if self._names_a_definition(q)]
        for row, score in candidates:
            exp = explanations[row]
            exp.fused = score
            named = "symbol" in exp.signals and bool(analysis.identifiers)
            factors = self._factors(row, analysis, context, named=named)
            chunk = self.index.chunks[row]
            if (
                factors is not None
                and qualified
                and chunk.symbol is not None
                and _qualifier_verdict(chunk.symbols or (chunk.symbol,), qualified) == "sibling"
            ):
                # the query names JsonReader.setLenient: JsonWriter.setLenient is a trap
                factors["qualifier"] = cfg.sibling_factor
            if factors is None:
                continue
            deprecation = 1.0 if "frame" in exp.signals else self._deprecation(row, analysis)
            if deprecation != 1.0:
                factors["deprecated"] = deprecation
            exp.factors = factors
            final = score
            for value in factors.values():
                final *= value
            exp.final = final
            ranked.append((row, final))
        ranked.sort(key=lambda rs: (-rs[1], self.index.chunks[rs[0]].chunk_id))
        return ranked

    def _names_a_definition(self, qualified: list[str]) -> bool:
        """Whether a qualified name the query writes names code the index defines: its
        qualifier a type of the code (a class, module, struct, …; not a variable such
        as ``mail.bcc`` or ``$mail->send()``, nor a spec's ``describe "mail"``), and the
        name defined under it. ``HTTP.timeout``, which a mixin (``Chainable.timeout``)
        defines, demotes no "sibling": that is the code it runs."""
        chunks = self.index.chunks
        table = self.index.symbols
        if not any(
            chunks[r].kind in HUB_KINDS and self._is_code(chunks[r])
            for r in table.definitions(qualified[-2])
        ):
            return False
        return any(
            _qualifier_verdict(chunks[r].symbols or (chunks[r].symbol or "",), [qualified])
            == "match"
            for r in table.definitions(qualified[-1])
        )

    def _refine(
        self,
        ranked: list[tuple[int, float]],
        analysis: QueryAnalysis,
        explanations: dict[int, Explanation],
        context: Context | None = None,
    ) -> list[tuple[int, float]]:
        """The configured later stages in order: rerank, collapse, diversify, expand."""
        cfg = self.config
        if cfg.dense_mode == "rerank" and cfg.rerank_depth > 0 and cfg.w_rerank > 0:
            ranked = self._rerank(analysis, ranked, explanations, context)
        if cfg.collapse_duplicates:
            ranked = self._collapse(ranked, explanations)
        if cfg.max_per_symbol:
            ranked = self._diversify(ranked, analysis, explanations, context)
        if cfg.expand_neighbors:
            ranked = self._expand(ranked)
        return ranked

    def _precision(
        self, row: int, coverage: Any, analysis: QueryAnalysis, exp: Explanation
    ) -> float:
        """Rerank-stage multipliers: the idf-weighted share of the query's terms the
        chunk holds, and a penalty for hub chunks (a 200-line struct or module matches
        every word of a question without answering it)."""
        cfg = self.config
        chunk = self.index.chunks[row]
        factor = 1.0
        if coverage is not None:
            share = float(coverage[row])
            if "legacy" in exp.factors or "generated" in exp.factors or "deprecated" in exp.factors:
                # a legacy or generated copy covers the words as well as the code in
                # use: it earns no credit for that, so its penalty holds
                share = 0.0
            exp.factors["coverage"] = 1.0 - cfg.coverage_strength * (1.0 - share)
            factor *= exp.factors["coverage"]
        lines = chunk.end_line - chunk.start_line + 1
        named = "symbol" in exp.signals and bool(analysis.identifiers)
        if cfg.hub_lines > 0 and lines > cfg.hub_lines and not named and chunk.kind in HUB_KINDS:
            exp.factors["hub"] = (cfg.hub_lines / lines) ** cfg.hub_power
            factor *= exp.factors["hub"]
        return factor

    def _rerank(
        self,
        analysis: QueryAnalysis,
        ranked: list[tuple[int, float]],
        explanations: dict[int, Explanation],
        context: Context | None = None,
    ) -> list[tuple[int, float]]:
        """Cosine over the top ``rerank_depth`` (chunks that have a vector: source code),
        fused by reciprocal rank with the lexical rank, times query-term coverage and
        the hub penalty; the docs, legacy, generated and sibling penalties are applied
        again after the fusion, so they hold."""
        vectors = self.index.vectors
        if not ranked:
            return ranked
        cfg = self.config
        if self.embedder is None or vectors is None or not self._model_decides(analysis, context):
            return self._lexical_precision(analysis, ranked, explanations)
        if cfg.rerank_fusion == "score":
            return self._rerank_scores(analysis, ranked, explanations)
        head = ranked[: cfg.rerank_depth]
        rows = [row for row, _ in head]
        matrix = np.asarray(vectors[rows], dtype=np.float32)
        has = np.linalg.norm(matrix, axis=1) > 0
        if not has.any():
            return self._lexical_precision(analysis, ranked, explanations)
        query = self._query_vector(analysis.raw)
        cosine = matrix @ query
        dense_order = sorted(
            (i for i in range(len(rows)) if has[i]), key=lambda i: (-float(cosine[i]), rows[i])
        )
        dense_rank = {rows[i]: n for n, i in enumerate(dense_order, start=1)}
        k = cfg.rerank_k
        coverage = (
            self.index.lexical.coverage(analysis.terms) if cfg.coverage_strength > 0 else None
        )
        fused: list[tuple[int, float]] = []
        for lex_rank, (row, _) in enumerate(head, start=1):
            exp = explanations[row]
            # the lexical rank already holds every first-stage factor (role, docs,
            # legacy, generated, sibling); those penalties also cap what the model can
            # add, so a legacy copy or a sibling the model likes stays below
            penalty = 1.0
            for name in _MODEL_CAPS:
                penalty *= exp.factors.get(name, 1.0)
            value = 1.0 / (k + lex_rank)
            if row in dense_rank:
                value += penalty * cfg.w_rerank / (k + dense_rank[row])
                exp.signals["rerank"] = (dense_rank[row], round(float(cosine[rows.index(row)]), 6))
            else:
                # no vector (tests, docs, config are not embedded): the model has no
                # opinion, so the chunk keeps its lexical place instead of losing the
                # share every embedded chunk gets
                value += penalty * cfg.w_rerank / (k + lex_rank)
            value *= self._precision(row, coverage, analysis, exp)
            if self.index.chunks[row].role in ("docs", "migration", "generated"):
                # prose pages match a question's words wholesale: their role penalty
                # holds again after the fusion
                value *= exp.factors.get("role", 1.0)
            exp.final = value
            fused.append((row, value))
        return self._above_tail(fused, ranked[cfg.rerank_depth :])

    def _above_tail(
        self, fused: list[tuple[int, float]], tail: list[tuple[int, float]]
    ) -> list[tuple[int, float]]:
        """The reranked head in order (ties by chunk id), then the rest of the ranking
        with its scores scaled to stay below the head's last."""
        fused.sort(key=lambda rs: (-rs[1], self.index.chunks[rs[0]].chunk_id))
        floor = fused[-1][1]
        if tail and tail[0][1] > 0:
            scale = floor * 0.999 / tail[0][1]
            tail = [(row, score * scale) for row, score in tail]
        return fused + tail

    def _model_decides(self, analysis: QueryAnalysis, context: Context | None) -> bool:
        """Whether the model reranks this query: with ``rerank_scope`` ``prose``, only a
        question in words (no pasted message or quoted text, no open file, not asking
        for usage or tests), where names do not settle it."""
        if self.config.rerank_scope == "all":
            return True
        if analysis.phrases or analysis.errors:
            return False
        if context is not None and context.open_file:
            return False
        if analysis.intent in (Intent.USAGE, Intent.TEST):
            return False
        return _prose_question(analysis)

    def _rerank_scores(
        self,
        analysis: QueryAnalysis,
        ranked: list[tuple[int, float]],
        explanations: dict[int, Explanation],
    ) -> list[tuple[int, float]]:
        """The lexical precision scores of the head plus ``w_rerank`` times each
        chunk's cosine above the head's median, over the head's spread: the model
        breaks near-ties of the lexical ranking instead of replacing its gaps."""
        cfg = self.config
        vectors = self.index.vectors
        assert vectors is not None
        rescored = self._lexical_precision(analysis, ranked, explanations)
        head = rescored[: cfg.rerank_depth]
        rows = [row for row, _ in head]
        matrix = np.asarray(vectors[rows], dtype=np.float32)
        has = np.linalg.norm(matrix, axis=1) > 0
        if not has.any() or head[0][1] <= 0:
            return rescored
        cosine = matrix @ self._query_vector(analysis.raw)
        present = cosine[has]
        middle = float(np.median(present))
        spread = float(present.max()) - middle
        top = head[0][1]
        fused: list[tuple[int, float]] = []
        for i, (row, score) in enumerate(head):
            exp = explanations[row]
            lift = 0.0
            if has[i]:
                if spread > 1e-6:
                    lift = max(0.0, (float(cosine[i]) - middle) / spread)
                for name in _MODEL_CAPS:
                    lift *= exp.factors.get(name, 1.0)
                exp.signals["rerank"] = (0, round(float(cosine[i]), 6))
            value = score / top + cfg.w_rerank * lift
            exp.final = value
            fused.append((row, value))
        return self._above_tail(fused, rescored[cfg.rerank_depth :])

    def _lexical_precision(
        self,
        analysis: QueryAnalysis,
        ranked: list[tuple[int, float]],
        explanations: dict[int, Explanation],
    ) -> list[tuple[int, float]]:
        """Without the model: the top ``rerank_depth`` times the same query-term
        coverage and hub factors the model rerank applies, the rest kept below them."""
        cfg = self.config
        if cfg.lexical_precision <= 0:
            return ranked
        head = ranked[: cfg.rerank_depth]
        coverage = (
            self.index.lexical.coverage(analysis.terms) if cfg.coverage_strength > 0 else None
        )
        rescored: list[tuple[int, float]] = []
        for row, score in head:
            exp = explanations[row]
            factor = self._precision(row, coverage, analysis, exp) ** cfg.lexical_precision
            exp.final = score * factor
            rescored.append((row, exp.final))
        rescored.sort(key=lambda rs: (-rs[1], self.index.chunks[rs[0]].chunk_id))
        tail = ranked[cfg.rerank_depth :]
        if tail and rescored and tail[0][1] > rescored[-1][1]:
            scale = rescored[-1][1] * 0.999 / tail[0][1]
            tail = [(row, score * scale) for row, score in tail]
        return rescored + tail

    def _search_issue(self, analysis: QueryAnalysis, context: Context | None) -> SearchResult:
        """An issue report: files by aggregated evidence, their best chunks in order."""
        from codegold.retrieve import issue

        cfg = self.config
        evidence, _ = issue.gather(self.index, analysis, cfg)
        files = issue.rank_files(evidence, cfg)
        ranked = issue.chunk_order(
            self.index, files, evidence, cfg.depth, share=cfg.issue_chunk_share
        )
        ranked = self._deprecated_down(ranked, analysis)
        if cfg.max_tooling >= 0 and self._tooling_aside(analysis, context):
            ranked = self._tooling_last(ranked, analysis)
        file_rank = {path: (n, score) for n, (path, score) in enumerate(files, start=1)}
        explanations: dict[int, Explanation] = {}
        for row, score in ranked:
            path = self.index.chunks[row].file
            exp = explanations[row] = Explanation(row)
            exp.signals["file"] = file_rank[path]
            exp.fused = file_rank[path][1]
            exp.final = score
        return SearchResult(
            analysis=analysis,
            filters=_filters(context),
            candidates=ranked,
            ranked=ranked,
            explanations=explanations,
        )

    def _tooling_last(
        self, ranked: list[tuple[int, float]], analysis: QueryAnalysis
    ) -> list[tuple[int, float]]:
        """An issue report's chunks with test code and stubs after the rest (beyond the
        first ``max_tooling``), in order; scores still fall along the order. The
        reproducer in a report matches the tests, and a stub repeats the signature the
        report calls, but the fix is in the code."""
        chunks = self.index.chunks
        head: list[tuple[int, float]] = []
        tail: list[tuple[int, float]] = []
        allowed = self.config.max_tooling
        for row, score in ranked:
            if self._tooling(chunks[row], analysis):
                if allowed <= 0:
                    tail.append((row, score))
                    continue
                allowed -= 1
            head.append((row, score))
        if not tail:
            return ranked
        out: list[tuple[int, float]] = []
        for row, score in head + tail:
            if out and score >= out[-1][1]:
                score = out[-1][1] * 0.999
            out.append((row, score))
        return out

    def _factors(
        self,
        row: int,
        analysis: QueryAnalysis,
        context: Context | None,
        *,
        named: bool,
    ) -> dict[str, float] | None:
        """Multipliers for one candidate, or None when a hard filter drops it."""
        cfg = self.config
        chunk = self.index.chunks[row]
        factors: dict[str, float] = {"role": self._role_factor(chunk, analysis)}
        if named and chunk.role == "test" and self._defined_only_in_tests(analysis):
            # "where is the rgtest! macro defined": a name only test code defines is
            # answered by that test code, whatever the intent's view of tests
            factors["role"] = self._role_factor(chunk, analysis, role="definition")
        if named:
            # it defines a name the asker wrote as code (a plain English word such as
            # "group" that happens to name a function earns no boost)
            factors["symbol"] = cfg.symbol_boost
        if cfg.name_match > 0 and not analysis.identifiers and (chunk.symbol or chunk.symbols):
            # by its name, or by a name it defines: a block of declarations by what it
            # declares (``const defaultMultipartMemory``), a Rust impl block by its
            # methods (``validate_smart`` in ``impl UnionValidator``)
            names = (chunk.symbol,) if chunk.symbol else ()
            named_by_query = max(
                self._name_match(name, analysis) for name in names + chunk.symbols[:_DECLARED]
            )
            if named_by_query > 0:
                factors["name"] = 1.0 + cfg.name_match * named_by_query
        if (
            cfg.type_factor != 1.0
            and chunk.kind in HUB_KINDS
            and chunk.kind not in ("module", "impl")
            and not named
            and len(analysis.words) >= 3  # a question in prose, not a bare type name
            and analysis.intent in (Intent.DEFINITION, Intent.GENERAL)
            and not self._acts_as_named(row, analysis)
        ):
            # a question in prose about behaviour is answered by code that acts, not by
            # the type or interface that names the same nouns (a class short enough to
            # stay one chunk holds its methods' bodies: when the question names one of
            # them, that is code that acts)
            factors["shape"] = cfg.type_factor
        if chunk.kind == "module" and _thin(chunk):
            # a line or two of imports or glue: rarely what anyone asked for
            factors["thin"] = cfg.thin_factor
        legacy = chunk.file_role == "migration" or chunk.role in LEGACY_ROLES
        if legacy and not analysis.mentions_legacy and not _names_its_version(chunk.file, analysis):
            if cfg.legacy_mode == "filter":
                return None
            if cfg.legacy_mode == "penalty":
                factors["legacy"] = cfg.legacy_factor
        if (
            cfg.build_tag_factor != 1.0
            and chunk.language == "go"
            and not self._default_build(chunk.file, analysis)
        ):
            # `//go:build nomsgpack`: a file only a custom build tag compiles is not the
            # code a normal build runs (unless the question names the tag)
            factors["build"] = cfg.build_tag_factor
        generated = chunk.file_role == "generated" or chunk.role == "generated"
        if generated and not analysis.mentions_generated:
            if cfg.generated_mode == "filter":
                return None
            if cfg.generated_mode == "penalty":
                factors["generated"] = cfg.generated_factor
        if context is not None:
            boost = self._context_factor(chunk, context)
            if boost is None:
                return None
            if boost != 1.0:
                factors["context"] = boost
            if (
                named
                and cfg.open_file_named_boost != 1.0
                and chunk.file == context.open_file
                and not _prose_question(analysis)
            ):
                # a bare name with a file open ("nextToken" with UTF8StreamJsonParser.java
                # open): of the many definitions of the name, the asker means the open
                # file's (in a question in prose a name the open file defines may be
                # where the asker stands, not what they ask about)
                factors["opened"] = cfg.open_file_named_boost
        return factors

    @staticmethod
    def _method_candidates(chunk: Any) -> list[str]:
        """The ``Class.method`` names a class chunk lists for its own members, less
        constructors, dunders and printing methods (a plain type or an exception class
        holds them too). Cheap: the chunk's symbols only."""
        if chunk.kind != "class" or not chunk.symbol:
            return []
        prefix = chunk.symbol + "."
        own = chunk.symbol.rsplit(".", 1)[-1]
        names = {
            s[len(prefix) :]
            for s in chunk.symbols
            if s.startswith(prefix) and s[len(prefix) :].isidentifier()
        }
        return sorted(
            own + "." + m
            for m in names
            if not m.startswith("__") and m != own and m not in _TYPE_MEMBERS
        )

    def _class_methods(self, row: int) -> tuple[str, ...]:
        """The methods a class chunk holds the bodies of (``Class.method``), when it is
        the whole class: no member of it is a chunk of its own (the class was short
        enough not to be split), and the name is written as a function in it
        (``parse(``, ``def parse``), not only as a field; see
        :meth:`_method_candidates` for the names left out. psr7's 107-line ``Query``
        holds ``Query.parse``; joda-money's ``DefaultCurrencyUnitDataProvider`` its
        loaders. Empty for other chunks."""
        known = self._whole_classes.get(row)
        if known is not None:
            return known
        chunk = self.index.chunks[row]
        found: tuple[str, ...] = ()
        candidates = self._method_candidates(chunk)
        if candidates and chunk.symbol:
            prefix = chunk.symbol + "."
            chunks = self.index.chunks
            split = any(
                other != row and any(s.startswith(prefix) for s in chunks[other].symbols)
                for other in self._file_rows(row)
            )
            if not split:
                kept = []
                for name in candidates:
                    m = re.escape(name.rsplit(".", 1)[-1])
                    if re.search(rf"\bdef\s+(?:self\.)?{m}\b|\b{m}\s*\(", chunk.text):
                        kept.append(name)
                found = tuple(kept)
        self._whole_classes[row] = found
        return found

    def _file_rows(self, row: int) -> list[int]:
        """The rows of the chunk's file. A build stores a file's chunks side by side, so
        the rows around ``row`` with its file are all of them when they are as many as
        the inventory counts; otherwise (or with no count) the full map is built, which
        decodes every chunk's head (80 ms on sympy's 39k chunks)."""
        chunks = self.index.chunks
        path = chunks[row].file
        first = last = row
        while first > 0 and chunks[first - 1].file == path:
            first -= 1
        while last + 1 < len(chunks) and chunks[last + 1].file == path:
            last += 1
        entry = self.index.inventory_by_path.get(path)
        if entry is not None and entry.chunks == last - first + 1:
            return list(range(first, last + 1))
        return self.index.rows_by_file.get(path) or []

    def _acts_as_named(self, row: int, analysis: QueryAnalysis) -> bool:
        """Whether a whole class chunk holds a method whose name the question's words
        spell (:meth:`_name_match` at least a third: "parsing a query string" spells
        ``Query.parse``): the class then answers as that method's chunk would. The
        names are matched first, so the file's other chunks (whether the class was
        split) are looked at only for a class whose method the question spells."""
        spelled = [
            name
            for name in self._method_candidates(self.index.chunks[row])
            if self._name_match(name, analysis) >= _METHOD_NAMED
        ]
        if not spelled:
            return False
        methods = self._class_methods(row)
        return any(name in methods for name in spelled)

    def _deprecation(self, row: int, analysis: QueryAnalysis) -> float:
        """The factor for code marked deprecated (``@Deprecated``, ``@deprecated``, ``//
        Deprecated:``), 1.0 for the rest. A deprecated type stands beside the type that
        replaced it and repeats its names and messages (commons-cli's ``Parser``,
        commons-text's ``StrSubstitutor``), so it and its members take
        ``deprecated_factor``; a deprecated member of a current type is often still the
        code that runs (JUnit's ``validateInstanceMethods``, unified's internal
        ``Processor.copy``): ``deprecated_member_factor`` (off by default). 1.0 when
        the query asks about old code or names the chunk qualified (a trace frame that
        points into it is the caller's check)."""
        cfg = self.config
        if analysis.mentions_legacy:
            return 1.0
        marked = self._marked_deprecated(row)
        if marked is None:
            return 1.0
        chunk = self.index.chunks[row]
        names = tuple(n for n in chunk.symbols or (chunk.symbol or "",) if n.strip(".:#"))
        if names and _qualifier_verdict(names, _qualified(analysis)) == "match":
            return 1.0
        return cfg.deprecated_factor if marked == "type" else cfg.deprecated_member_factor

    def _deprecated_down(
        self, ranked: list[tuple[int, float]], analysis: QueryAnalysis
    ) -> list[tuple[int, float]]:
        """An issue report's or trace's chunks times their deprecation factor (not those a
        trace frame points into), reordered; scores still fall along the order."""
        from codegold.retrieve import issue

        located = {row for _, row in issue.located_rows(self.index, analysis.locations)}
        out: list[tuple[int, float]] = []
        changed = False
        for row, score in ranked:
            factor = 1.0 if row in located else self._deprecation(row, analysis)
            if factor != 1.0:
                score *= factor
                changed = True
            out.append((row, score))
        if not changed:
            return ranked
        out.sort(key=lambda rs: -rs[1])
        for i in range(1, len(out)):
            if out[i][1] >= out[i - 1][1]:
                out[i] = (out[i][0], out[i - 1][1] * 0.999)
        return out

    def _marked_deprecated(self, row: int) -> str | None:
        """``type`` when a chunk's enclosing declaration is marked deprecated (in its
        header: ``@Deprecated``, ``#[deprecated]``, ``[Obsolete]``) or it is a type
        marked so itself; ``member`` when it is another declaration marked so (an
        annotation or attribute before its body, or a ``@deprecated`` tag or Go
        ``Deprecated:`` paragraph in the doc comment that leads it, not the comments of
        the members a class chunk goes on to hold); else None."""
        if row in self._deprecated:
            return self._deprecated[row]
        chunk = self.index.chunks[row]
        marked: str | None = None
        if _DEPRECATED_MARK.search(chunk.header):
            marked = "type"
        elif _DEPRECATED_MARK.search(_prelude(chunk.text)):
            marked = "type" if chunk.kind in HUB_KINDS else "member"
        self._deprecated[row] = marked
        return marked

    def _default_build(self, path: str, analysis: QueryAnalysis) -> bool:
        """Whether a Go file's ``//go:build`` constraint holds with no custom tag set
        (any platform will do: ``!nomsgpack`` does, ``nomsgpack`` or ``ignore`` not), or
        the question names one of its tags."""
        known = self._builds.get(path)
        if known is None:
            known = (True, frozenset())
            rows = self.index.rows_by_file.get(path) or []
            if rows:
                first = min(rows, key=lambda r: self.index.chunks[r].start_line)
                m = _GO_BUILD.search(self.index.chunks[first].text)
                if m is not None:
                    tags = frozenset(
                        t.lower()
                        for t in _GO_BUILD_TOKEN.findall(m.group(1))
                        if t[0].isalpha() and t not in _GO_PLATFORM
                    )
                    known = (_constraint_holds(m.group(1)), tags)
            self._builds[path] = known
        holds, tags = known
        if holds:
            return True
        if self._query_words[0] is not analysis:
            self._query_words = (analysis, {w.lower() for w in _NAME_WORD.findall(analysis.raw)})
        return bool(tags & self._query_words[1])

    def _name_match(self, symbol: str, analysis: QueryAnalysis) -> float:
        """How much of a chunk's name (its last two segments, identifiers split) the
        query's words spell: ``defaultMultipartMemory`` for "the default memory limit
        for multipart forms". The share of the name's parts the query holds, times how
        many it holds (up to three), so one common word naming a one-word symbol counts
        for a third."""
        parts = self._name_parts.get(symbol)
        if parts is None:
            words = _NAME_WORD.findall(symbol)[-2:]
            found: set[str] = set()
            for word in words:
                pieces = split_identifier(word)
                for piece in pieces[1:] if len(pieces) > 1 else pieces:
                    if len(piece) >= 2 and not piece.isdigit():
                        found.add(stem(piece))
            parts = self._name_parts[symbol] = frozenset(found)
        if not parts:
            return 0.0
        terms = self._query_terms(analysis)
        matched = len(parts & terms)
        return (matched / len(parts)) * min(matched, 3) / 3

    def _query_terms(self, analysis: QueryAnalysis) -> frozenset[str]:
        if self._terms_of[0] is not analysis:
            self._terms_of = (analysis, frozenset(analysis.terms))
        return self._terms_of[1]

    def _defined_only_in_tests(self, analysis: QueryAnalysis) -> bool:
        """Every definition of some identifier the query names lies in test code."""
        if self._test_only[0] is not analysis:
            chunks = self.index.chunks
            found = False
            for ident in analysis.identifiers:
                rows = self.index.symbols.definitions(ident)
                if rows and all(chunks[r].role == "test" for r in rows):
                    found = True
                    break
            self._test_only = (analysis, found)
        return self._test_only[1]

    def _file_kind(self, chunk: IndexedChunk) -> str | None:
        """``test`` for test code: by its role, or by a path that reads as a test suite
        or harness where the path policy saw source (``testes/``, ``ltests.h``,
        ``e2e-tests/``); ``stub`` for a type stub or signature file beside the code it
        describes (``loguru/__init__.pyi`` by ``__init__.py``, ``sig/http.rbs`` for
        ``lib/http.rb``, ``index.d.ts`` by ``index.js``); else None. The path's verdict
        is worked out once per file; a test chunk of a source file (Rust's ``mod
        tests``) is test code by its own role."""
        if chunk.role == "test" or chunk.file_role == "test":
            return "test"
        path = chunk.file
        if path in self._file_kinds:
            return self._file_kinds[path]
        kind: str | None = None
        if chunk.file_role == "source":
            if _TEST_SUITE.search(path):
                kind = "test"
            elif self._describes_code(path):
                kind = "stub"
        self._file_kinds[path] = kind
        return kind

    def _describes_code(self, path: str) -> bool:
        """A stub whose implementation the index holds: the same name with the code's
        extension in the same folder, or in a folder that mirrors the stub's below its
        top (``sig/http/client.rbs``, ``lib/http/client.rb``)."""
        m = _STUB.search(path)
        if m is None:
            return False
        base = path[: m.start()]
        files = self.index.rows_by_file
        implementations = _STUB_IMPLEMENTATIONS[m.group(1)]
        if any(base + ext in files for ext in implementations):
            return True
        below = base.split("/", 1)[1] if "/" in base else base
        ends = tuple("/" + below + ext for ext in implementations)
        return any(f.endswith(ends) or f in ends for f in files)

    def _tooling(self, chunk: IndexedChunk, analysis: QueryAnalysis) -> bool:
        """Test code or a type stub (see :meth:`_file_kind`) that the question does not
        ask for: a stub counts unless the question speaks of types or signatures, and
        neither counts in a file the question names by path."""
        kind = self._file_kind(chunk)
        if kind is None:
            return False
        if kind == "stub" and _ASKS_TYPES.search(analysis.raw):
            return False
        return not any(chunk.file == p or chunk.file.endswith("/" + p) for p in analysis.paths)

    def _tooling_aside(self, analysis: QueryAnalysis, context: Context | None) -> bool:
        """Whether test code and stubs wait for every code chunk: not when the open
        file is one of them, nor when some name the question writes is defined only
        there (``where is the rgtest! macro defined``, a type alias only a stub spells)."""
        if context is not None and context.open_file:
            rows = self.index.rows_by_file.get(context.open_file)
            if rows and self._file_kind(self.index.chunks[rows[0]]) is not None:
                return False
        if self._tooling_only[0] is not analysis:
            chunks = self.index.chunks
            only = False
            for ident in analysis.identifiers:
                rows = self.index.symbols.definitions(ident)
                if rows and all(self._file_kind(chunks[r]) is not None for r in rows):
                    only = True
                    break
            self._tooling_only = (analysis, only)
        return not self._tooling_only[1]

    def _role_factor(
        self, chunk: IndexedChunk, analysis: QueryAnalysis, role: str | None = None
    ) -> float:
        """How much the query's intent prefers the chunk's role (or ``role``), softened
        by role_strength."""
        cfg = self.config
        if self._roles_for[0] is not analysis:
            intent = analysis.intent
            if intent is Intent.GENERAL and (analysis.errors or analysis.paths):
                intent = Intent.DEFINITION
            key = intent.value
            if intent is Intent.DEFINITION and analysis.how_to and "how_to" in cfg.role_preferences:
                key = "how_to"
            prefs = cfg.role_preferences.get(key) or cfg.role_preferences["general"]
            if key == "how_to":
                # the project's own notes (a changelog, contributing guide) show no
                # task done: they keep the definition question's docs factor
                prefs = {**prefs, "notes": cfg.role_preferences["definition"]["docs"]}
            # one table per query: role -> factor (the per-chunk work is a lookup)
            table = {role: 1.0 - cfg.role_strength * (1.0 - v) for role, v in prefs.items()}
            self._roles_for = (analysis, intent, table)
        _, intent, table = self._roles_for
        if role is not None:
            factor = table.get(role)
            return 1.0 - cfg.role_strength * 0.5 if factor is None else factor
        role = chunk.role
        if (
            intent is Intent.TEST
            and role in ("definition", "declaration")
            and _TESTING.search(chunk.file)
        ):
            role = "test"  # a testing utility (click/testing.py, django/test/) is test tooling
        elif role in _CODE_ROLES and self._file_kind(chunk) == "test":
            role = "test"  # a test suite or harness the path policy took as source
        elif (
            role == "test"
            and intent is not Intent.TEST
            and chunk.language == "go"
            and chunk.symbol is not None
            and _GO_EXAMPLE.match(chunk.symbol)
        ):
            role = "docs"  # a Go ``ExampleX`` function: documentation godoc shows under X
        elif role == "docs" and "notes" in table and _PROJECT_NOTES.search(chunk.file):
            role = "notes"
        factor = table.get(role)
        return 1.0 - cfg.role_strength * 0.5 if factor is None else factor

    def _context_factor(self, chunk: IndexedChunk, context: Context) -> float | None:
        cfg = self.config
        factor = 1.0
        strict = cfg.context_mode == "filter"
        if context.path_prefix:
            inside = chunk.file.startswith(context.path_prefix)
            if strict and not inside:
                return None
            if inside:
                factor *= cfg.path_prefix_boost
        if context.language:
            same = chunk.language == context.language
            if strict and not same:
                return None
            if same:
                factor *= cfg.language_boost
        if context.open_file:
            here = posixpath.dirname(context.open_file)
            there = posixpath.dirname(chunk.file)
            if chunk.file == context.open_file:
                # the open file itself above its directory siblings
                factor *= cfg.open_file_boost * cfg.open_file_self_boost
            elif here and (
                there == here or there.startswith(here + "/") or here.startswith(there + "/")
            ):
                factor *= cfg.open_file_boost
            elif here and there.split("/")[:2] == here.split("/")[:2]:
                factor *= 1.0 + (cfg.open_file_boost - 1.0) / 2
        if context.package:
            segments = chunk.file.split("/")
            if context.package in segments or chunk.file.startswith(context.package):
                factor *= cfg.package_boost
        return factor

    def _collapse(
        self, ranked: list[tuple[int, float]], explanations: dict[int, Explanation]
    ) -> list[tuple[int, float]]:
        """Two copies of the same code count once, at the better-ranked copy's place.

        The copy kept is the one that is not legacy, generated or vendored, then the one
        with the shorter path, then the better-ranked: a byte-identical file under
        ``legacy/`` never stands in for the one in use.
        """
        chunks = self.index.chunks
        copies: dict[str, list[int]] = {}
        for i, (row, _) in enumerate(ranked):
            copies.setdefault(chunks[row].digest, []).append(i)

        def preference(i: int) -> tuple[bool, int, int]:
            chunk = chunks[ranked[i][0]]
            secondary = chunk.file_role in ("migration", "generated", "vendored") or (
                chunk.role in ("migration", "generated")
            )
            return (secondary, len(chunk.file), i)

        kept: list[tuple[int, float]] = []
        for i, (row, score) in enumerate(ranked):
            group = copies[chunks[row].digest]
            if group[0] != i:
                continue
            keep = row if len(group) == 1 else ranked[min(group, key=preference)][0]
            for j in group:
                if ranked[j][0] != keep:
                    explanations[ranked[j][0]].dropped = f"duplicate of {chunks[keep].chunk_id}"
            kept.append((keep, score))
        return kept

    def _diversify(
        self,
        ranked: list[tuple[int, float]],
        analysis: QueryAnalysis,
        explanations: dict[int, Explanation],
        context: Context | None = None,
    ) -> list[tuple[int, float]]:
        """Chunks that would crowd the cutoff go after every other chunk has had its turn:

        * more than ``max_per_symbol`` chunks per (file, first name defined) (five
          overloads of one method), or ``max_per_symbol_prose`` for a question in prose;
        * in a prose question that names code, more than ``max_named`` chunks defining
          a name it writes (the named class, its constructors and overloads fill the
          cutoff while the answer is the code they call or share the file with);
        * more than ``max_per_go_name`` Go chunks per last name, across files (Go has no
          overloading: the same method on many receivers, ``intValue.Set``,
          ``floatValue.Set``, …, or a package-level forwarder and the method it calls,
          logrus ``Fatal`` and ``Logger.Fatal``, fill the cutoff with one name), unless
          its qualifier is a name the query writes or the open file defines or uses
          (golang-jwt's open ``oauth2.go`` builds a ``MultiExtractor``: its
          ``ExtractToken`` is the one asked for, after ``HeaderExtractor``'s and
          ``ArgumentExtractor``'s);
        * for an implementation question (not one about tests, examples or docs), more
          than ``max_asides`` docs chunks, and more than ``max_tooling`` chunks of test
          code or of type stubs (see :meth:`_tooling`; with ``max_tooling`` -1, test
          chunks count among ``max_asides``).
        """
        cfg = self.config
        prose = _prose_question(analysis)
        limit = cfg.max_per_symbol
        if prose and cfg.max_per_symbol_prose:
            limit = cfg.max_per_symbol_prose
        named_cap = cfg.max_named if prose and analysis.identifiers else 0
        about_code = analysis.intent in _ASIDE_INTENTS
        aside_cap = cfg.max_asides if about_code else 0
        if about_code and analysis.how_to and analysis.intent is Intent.DEFINITION:
            aside_cap = cfg.max_asides_how_to
        tooling_cap = -1
        if about_code and cfg.max_tooling >= 0 and self._tooling_aside(analysis, context):
            tooling_cap = cfg.max_tooling
        aside_roles = _ASIDE_ROLES if tooling_cap < 0 else _DOCS_ROLES
        if prose and about_code and not _ASKS_DECLARATION.search(analysis.raw):
            ranked = self._bodies_first(ranked)
        seen: dict[tuple[str, str], int] = {}
        go_names: dict[str, int] = {}
        go_wanted: set[str] | None = None
        named = asides = tooling = 0
        head: list[tuple[int, float]] = []
        tail: list[tuple[int, float]] = []
        for row, score in ranked:
            chunk = self.index.chunks[row]
            if tooling_cap >= 0 and self._tooling(chunk, analysis):
                tooling += 1
                if tooling > tooling_cap:
                    tail.append((row, score))
                    continue
            elif aside_cap and chunk.role in aside_roles:
                asides += 1
                if asides > aside_cap:
                    tail.append((row, score))
                    continue
            if named_cap and "symbol" in explanations[row].signals:
                named += 1
                if named > named_cap:
                    tail.append((row, score))
                    continue
            if chunk.symbol is None:
                head.append((row, score))
                continue
            leaf = None
            if cfg.max_per_go_name and chunk.language == "go" and chunk.role in _CODE_ROLES:
                # one Go method name on many receivers, or a forwarder and its method
                leaf = _last_name(chunk.symbol)
                if go_wanted is None:
                    go_wanted = self._go_qualifiers(analysis, context)
                qualifier = chunk.symbol[: -len(leaf) - 1] if chunk.symbol != leaf else ""
                if go_names.get(leaf, 0) >= cfg.max_per_go_name and qualifier not in go_wanted:
                    tail.append((row, score))
                    continue
            # by the names the chunk defines: a Rust type's impl blocks share the
            # type's name but hold different methods, overloads share one name
            key = (chunk.file, chunk.symbols[0] if chunk.symbols else chunk.symbol)
            seen[key] = seen.get(key, 0) + 1
            if seen[key] > limit:
                tail.append((row, score))
                continue
            if leaf is not None:
                go_names[leaf] = go_names.get(leaf, 0) + 1
            head.append((row, score))
        return head + tail

    def _go_qualifiers(self, analysis: QueryAnalysis, context: Context | None) -> set[str]:
        """The receiver names a Go method past ``max_per_go_name`` may still carry: the
        names the query writes (each part of a qualified one), and those the open
        file's chunks define or use."""
        wanted: set[str] = set()
        for ident in analysis.identifiers:
            wanted.update(re.split(r"\.|::|#", ident))
        if context is not None and context.open_file:
            chunks = self.index.chunks
            for row in self.index.rows_by_file.get(context.open_file) or ():
                chunk = chunks[row]
                wanted.update(chunk.references)
                wanted.update(chunk.symbols)
        wanted.discard("")
        return wanted

    def _bodies_first(self, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """A prototype in a header whose body is also ranked gives its place to the body
        and waits for every other chunk: a question about how the code behaves or is
        configured is answered where the function does it, and a header's prototype
        with its doc comment would otherwise take a second slot of the cutoff (or the
        first, its words being the question's)."""
        chunks = self.index.chunks
        bodies: dict[str, int] = {}
        for row, _ in ranked:
            chunk = chunks[row]
            if chunk.role == "definition" and chunk.symbol is not None:
                bodies.setdefault(chunk.symbol, row)
        if not bodies:
            return ranked
        head: list[tuple[int, float]] = []
        tail: list[tuple[int, float]] = []
        taken: set[int] = set()
        for row, score in ranked:
            if row in taken:
                continue
            chunk = chunks[row]
            body = bodies.get(chunk.symbol) if chunk.symbol is not None else None
            if body is not None and chunk.role == "declaration" and _HEADER.search(chunk.file):
                if body not in taken:
                    taken.add(body)
                    head.append((body, score))
                tail.append((row, score))
                continue
            taken.add(row)
            head.append((row, score))
        return head + tail

    def _expand(self, ranked: list[tuple[int, float]]) -> list[tuple[int, float]]:
        """Place each top hit's neighbouring chunks (same file) right after it."""
        n = self.config.expand_neighbors
        present = {row for row, _ in ranked}
        out: list[tuple[int, float]] = []
        chunks = self.index.chunks
        for row, score in ranked[: self.config.depth]:
            out.append((row, score))
            for delta in range(1, n + 1):
                for neighbour in (row - delta, row + delta):
                    if (
                        0 <= neighbour < len(chunks)
                        and neighbour not in present
                        and chunks[neighbour].file == chunks[row].file
                    ):
                        present.add(neighbour)
                        out.append((neighbour, score * 0.999))
        return out

    # -- attempts ----------------------------------------------------------------

    def to_chunk(self, row: int, score: float) -> RetrievedChunk:
        c = self.index.chunks[row]
        return RetrievedChunk(
            chunk_id=c.chunk_id,
            file=c.file,
            start_line=c.start_line,
            end_line=c.end_line,
            role=c.role,  # type: ignore[arg-type]
            repository_revision=self.index.revision,
            score=round(score, 8),
            symbol=c.symbol,
            symbols=c.symbols or None,
        )

    def retrieve(
        self,
        query: str,
        *,
        case_id: str,
        context: Context | None = None,
        attempt_id: str,
        cutoff: int | None = None,
        retry_of: str | None = None,
    ) -> Attempt:
        started = datetime.now(UTC)
        t0 = time.perf_counter()
        searched = self.rewriter(query) if self.rewriter is not None else query
        result = self.search(searched, context)
        ranked = [self.to_chunk(r, s) for r, s in result.ranked]
        candidates = [self.to_chunk(r, s) for r, s in result.candidates]
        context_ids = tuple(c.chunk_id for c in ranked[: cutoff or len(ranked)])
        return Attempt(
            attempt_id=attempt_id,
            case_id=case_id,
            retry_of=retry_of,
            query=query,
            rewritten_query=searched,
            filters=result.filters,
            index=self.index.manifest,
            retriever=RetrieverInfo(
                name=RETRIEVER_NAME, version=__version__, config=self.config.to_dict()
            ),
            candidates=tuple(candidates),
            ranked=tuple(ranked),
            context_ids=context_ids,
            started_at=started.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            duration_ms=round((time.perf_counter() - t0) * 1000, 3),
            debug={
                "analysis": result.analysis.as_dict(),
                # the signals that ran for this query (``rerank``: the model reranked)
                "signals": sorted({n for e in result.explanations.values() for n in e.signals}),
            },
        )


#: words of prose and the short forms code spells them with
_ABBREVIATIONS = {
    "environment": "env",
    "configuration": "config",
    "directory": "dir",
    "directories": "dir",
    "message": "msg",
    "messages": "msg",
    "number": "num",
    "arguments": "arg",
    "argument": "arg",
    "parameters": "params",
    "parameter": "param",
    "initialize": "init",
    "initialization": "init",
    "maximum": "max",
    "minimum": "min",
    "buffer": "buf",
    "request": "req",
    "response": "res",
    "context": "ctx",
    "temporary": "tmp",
    "attribute": "attr",
    "attributes": "attr",
    "reference": "ref",
    "length": "len",
    "character": "char",
    "pointer": "ptr",
    "callback": "cb",
    "previous": "prev",
    "current": "cur",
    "source": "src",
    "destination": "dst",
    "index": "idx",
    "specification": "spec",
    "information": "info",
    "database": "db",
    "connection": "conn",
    "authentication": "auth",
    "authorization": "auth",
    "application": "app",
    "document": "doc",
    "documents": "doc",
    "expression": "expr",
    "regular": "regex",
    "separator": "sep",
    "delimiter": "delim",
    "options": "opt",
    "statistics": "stat",
    "synchronous": "sync",
    "asynchronous": "async",
}
_NAME_WORD = re.compile(r"[A-Za-z_$][\w$]*")
#: first-stage factors that also cap what the model rerank adds to a chunk (a legacy
#: copy, a generated file, a sibling of the named qualifier stays below)
_MODEL_CAPS = ("legacy", "generated", "qualifier", "deprecated")


def _thin(chunk: Any) -> bool:
    """A chunk of a line or two, not counting Rust attribute lines (``#[cfg(…)]`` above
    a ``pub use``): glue."""
    lines = chunk.end_line - chunk.start_line + 1
    if lines <= 2:
        return True
    if lines > 6 or "#[" not in chunk.text:
        return False
    return sum(1 for line in chunk.text.split("\n") if not line.lstrip().startswith("#[")) <= 2


#: methods a plain type or an exception class holds as well (constructors, printing)
_TYPE_MEMBERS = frozenset(
    ["initialize", "constructor", "init", "new", "to_s", "inspect", "toString", "message"]
)
#: how much of a method's name the question must spell for a whole class to act as it
_METHOD_NAMED = 1 / 3
#: C and C++ headers, where prototypes are declared
_HEADER = re.compile(r"\.(?:h|hh|hpp|hxx)$")
#: a question that asks for the declaration, the header or its documentation
_ASKS_DECLARATION = re.compile(
    r"\b(?:headers?|declar\w*|prototypes?|documented|doc ?comments?|signatures?)\b", re.I
)
#: questions about the code itself, for which tests and docs are asides
_ASIDE_INTENTS = frozenset([Intent.DEFINITION, Intent.GENERAL, Intent.CONFIGURATION])
_ASIDE_ROLES = frozenset(["test", "docs"])
_DOCS_ROLES = frozenset(["docs"])
_CODE_ROLES = frozenset(["definition", "declaration", "call_site"])
#: a test suite or harness by its path, beyond the path policy's patterns: a folder or
#: file named as tests (``testes/``, ``unittests/``, ``e2e-tests/``, ``test_utils/``,
#: ``ltests.h``, ``parser_test.c``); English words ending in "tests" are not, nor is a
#: file named just ``test`` (``adapter/test.rb``: a library's test adapter is its code)
_TEST_SUITE = re.compile(
    r"(?:^|/)(?!(?:con|pro|at|de)tests[/.])"
    r"(?:\w*tests|testes|test[-_][\w-]+|[\w-]+[-_]tests?)(?:/|\.\w+$)",
    re.I,
)
#: type stubs and signature files, and the extensions of the code each describes
_STUB = re.compile(r"\.(pyi|rbs|d\.ts|d\.mts|d\.cts)$")
_STUB_IMPLEMENTATIONS = {
    "pyi": (".py",),
    "rbs": (".rb",),
    "d.ts": (".js", ".jsx"),
    "d.mts": (".mjs",),
    "d.cts": (".cjs",),
}
#: a question about types or signatures, which a stub answers
_ASKS_TYPES = re.compile(
    r"\b(?:types?|typed|typing|typings|type hints?|signatures?|annotations?|annotated|"
    r"stubs?|overloads?|generics?|declarations?|pyi|rbs|d\.ts)\b",
    re.I,
)
_TESTING = re.compile(r"(?:^|/)(?:test|tests|testing|fixtures?|mocks?|fakes?)(?:/|\.\w+$)")
_GO_EXAMPLE = re.compile(r"Example(?:$|[A-Z_])")
#: a project's notes about itself, not about using it: changelog, release notes,
#: contributing guide, code of conduct, security policy, authors, licence
_PROJECT_NOTES = re.compile(
    r"(?:^|/)(?:change_?log|changes|history|news|releases?|release[-_ ]?notes|contributing|"
    r"code_of_conduct|security|authors|contributors|licen[cs]e|upgrad(?:e|ing))(?:\.\w+)?$",
    re.I,
)
_VERSION_WORD = re.compile(r"\bv\d+\b")


#: a deprecation marker: an annotation or attribute, a doc tag, Go's doc paragraph
_DEPRECATED_MARK = re.compile(
    r"@Deprecated\b|#\[deprecated\b|\[Obsolete\b|@deprecated\b|^\s*(?://|\*|#)\s*Deprecated:",
    re.M,
)
#: a line of a declaration's lead-in: blank, a comment, an annotation or attribute
_LEAD_LINE = re.compile(r"\s*(?:$|//|/\*|\*|#|@\w|\[\w)")


def _prelude(text: str) -> str:
    """A chunk's lead-in: its leading comments, annotations and attributes, and its
    declaration up to the body's opening brace (where annotations share its line)."""
    out: list[str] = []
    in_comment = False
    for line in text.splitlines():
        if in_comment or _LEAD_LINE.match(line):
            out.append(line)
            stripped = line.strip()
            if in_comment:
                in_comment = "*/" not in stripped
            elif stripped.startswith("/*"):
                in_comment = "*/" not in stripped[2:]
            continue
        out.append(line.split("{", 1)[0])
        break
    return "\n".join(out)


def _names_its_version(path: str, analysis: QueryAnalysis) -> bool:
    """ "how did v3 parse dates" asks about the v3/ copy: no legacy penalty for it."""
    asked = set(_VERSION_WORD.findall(analysis.raw.lower()))
    return bool(asked) and any(part.lower() in asked for part in path.split("/")[:-1])


_GO_BUILD = re.compile(r"^//go:build ([^\n]+)$", re.M)
_GO_BUILD_TOKEN = re.compile(r"\s*(&&|\|\||!|\(|\)|[\w.]+)")
#: tags a normal build sets on some platform: GOOS, GOARCH, the toolchain, go1.N
_GO_PLATFORM = frozenset(
    [
        "aix",
        "android",
        "darwin",
        "dragonfly",
        "freebsd",
        "hurd",
        "illumos",
        "ios",
        "js",
        "linux",
        "nacl",
        "netbsd",
        "openbsd",
        "plan9",
        "solaris",
        "wasip1",
        "windows",
        "zos",
        "unix",
        "386",
        "amd64",
        "arm",
        "arm64",
        "loong64",
        "mips",
        "mipsle",
        "mips64",
        "mips64le",
        "ppc64",
        "ppc64le",
        "riscv64",
        "s390x",
        "wasm",
        "cgo",
        "gc",
    ]
)


def _constraint_holds(expr: str) -> bool:
    """A ``//go:build`` expression with every platform tag true and every custom tag
    false (unparsable: true, the file is not judged)."""
    tokens: list[str] = []
    rest = expr.strip()
    while rest:
        m = _GO_BUILD_TOKEN.match(rest)
        if m is None:
            return True
        tokens.append(m.group(1))
        rest = rest[m.end() :].strip()
    pos = 0

    def parse_or() -> bool:
        nonlocal pos
        value = parse_and()
        while pos < len(tokens) and tokens[pos] == "||":
            pos += 1
            value = parse_and() or value
        return value

    def parse_and() -> bool:
        nonlocal pos
        value = parse_not()
        while pos < len(tokens) and tokens[pos] == "&&":
            pos += 1
            value = parse_not() and value
        return value

    def parse_not() -> bool:
        nonlocal pos
        if pos >= len(tokens):
            raise ValueError(expr)
        token = tokens[pos]
        pos += 1
        if token == "!":
            return not parse_not()
        if token == "(":
            value = parse_or()
            if pos >= len(tokens) or tokens[pos] != ")":
                raise ValueError(expr)
            pos += 1
            return value
        if token in ("&&", "||", ")"):
            raise ValueError(expr)
        return token in _GO_PLATFORM or token.startswith("go1")

    try:
        value = parse_or()
    except ValueError:
        return True
    return value if pos == len(tokens) else True


def _prose_question(analysis: QueryAnalysis) -> bool:
    """Two words or more besides the names it writes as code: not a bare name."""
    named_parts = {p for i in analysis.identifiers for p in re.split(r"\W+", i)}
    return len([w for w in analysis.words if w not in named_parts]) >= 2


def _last_name(symbol: str) -> str:
    """A symbol's last part: ``Set`` of ``intValue.Set``."""
    return re.split(r"\.|::|#", symbol)[-1]


def _bare_names(analysis: QueryAnalysis) -> bool:
    """Whether the query is nothing but a few names, a code-looking one beside plain
    ones ("LineUtil simplify": a module and the function it exports): then the plain
    words are names too, not prose."""
    tokens = analysis.raw.split()
    return 1 < len(tokens) <= 3 and len(tokens) == len(analysis.identifiers) + len(analysis.words)


def _qualified(analysis: QueryAnalysis) -> list[list[str]]:
    """The query's qualified names (``JsonReader.setLenient``), as parts."""
    out: list[list[str]] = []
    for ident in analysis.identifiers:
        parts = [p for p in re.split(r"\.|::|#|->", ident) if p]
        if len(parts) >= 2 and parts not in out:
            out.append(parts)
    return out


def _qualifier_verdict(names: tuple[str, ...], qualified: list[list[str]]) -> str | None:
    """``match`` when a chunk's name ends with a qualified name the query wrote (or the
    query's name ends with the chunk's, and no longer name of the chunk contradicts
    it), ``sibling`` when it has the same last part under another qualifier, else None:
    for ``sync::OnceCell::get``, a chunk named ``OnceCell.get`` and
    ``unsync.OnceCell.get`` is a sibling."""
    verdict: str | None = None
    split = [[p for p in re.split(r"\.|::|#", name) if p] for name in names]
    for q in qualified:
        partial = conflict = False
        for parts in split:
            if not parts or parts[-1] != q[-1]:
                continue
            if parts[-len(q) :] == q:
                return "match"
            if q[-len(parts) :] == parts:
                partial = True
            elif len(parts) >= 2:
                conflict = True
        if partial and not conflict:
            # (``OnceCell.get`` for ``sync::OnceCell::get``: the chunk says no more)
            return "match"
        if conflict:
            # (``unsync.OnceCell.get`` beside its ``OnceCell.get``: another module's)
            verdict = "sibling"
    return verdict


#: how many of the named definitions lend their callees, and how widely a callee's
#: name may be defined before it says nothing about which one runs
_DECLARED = 32  # the names of a declarations block that name_match reads
_CALLERS = 3
_CALLEE_DEFS = 3
#: a call's name: the last part of ``x.y.name(`` (``name!(`` for a Rust macro)
_CALLED = re.compile(r"([A-Za-z_$][\w$]*)!?\s*\(")
#: a member of the enclosing object: ``self.x``, ``this.x``, ``this.#x``
_MEMBER = re.compile(r"\b(?:self|this|cls)\.#?([A-Za-z_$][\w$]*)")
_NOT_CALLS = frozenset(
    [
        "if",
        "for",
        "while",
        "switch",
        "return",
        "function",
        "catch",
        "typeof",
        "sizeof",
        "elif",
        "match",
        "new",
        "not",
        "and",
        "or",
        "func",
        "def",
        "fn",
        "lambda",
        "super",
        "self",
        "this",
        "await",
        "yield",
        "assert",
        "print",
        "println",
        "format",
        "panic",
        "len",
        "make",
        "append",
        "int",
        "str",
        "bool",
        "float",
        "string",
        "list",
        "dict",
        "set",
        "tuple",
        "map",
        "some",
        "ok",
        "err",
        "Some",
        "Ok",
        "Err",
        "None",
        "require",
        "import",
        "export",
    ]
)
_FRAGMENT_LIMIT = 20
#: a message table's entry up to its message: ``'object.unknown': '``, ``"unknown":
#: "``, ``Self::ExtraForbidden {..} => "``, ``UNKNOWN("``, ``case ERR_X: return "``
_KEYED = re.compile(
    r"^\s*(?:(?:case|var|const|let|static|final|public|private|protected|readonly|pub|"
    r"export)\s+)*"
    r"(?:(?P<q>['\"`])(?P<quoted>[\w.$:/-]{3,})(?P=q)"
    r"|(?P<name>[A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)*))"
    r"\s*(?:\{[^}]*\}\s*|\([^)]*\)\s*)?(?P<sep>:|=>|=|\(|,)\s*(?:return\s+)?"
    r"(?:[\w.]+\s*\(\s*)?[rfbu]?['\"`]"
    r"(?:[^\w'\"`]|\{\{[^}]*\}\}|\$\{[^}]*\}|\{[^}]*\}|%[sdvq])*$"
)
#: a match arm or ``case`` label alone on its line (its message on the next)
_ARM = re.compile(
    r"^\s*(?:case\s+)?(?:(?P<q>['\"`])(?P<quoted>[\w.$:/-]{3,})(?P=q)"
    r"|(?P<name>[A-Za-z_$][\w$]*(?:(?:::|\.)[A-Za-z_$][\w$]*)*))"
    r"\s*(?:\{[^}]*\}\s*|\([^)]*\)\s*)?(?:=>\s*\{?|:)\s*$"
)
#: a line that only returns, writes or formats its message
_CALL_ONLY = re.compile(r"^\s*(?:return\s+)?(?:[\w.!]+\s*\(\s*)*[rfbu]?['\"`]?\W{0,12}$")
_RAISE_KEYS = 4
#: a name only container chunks define, in more files than this, is a namespace
_NAMESPACE_FILES = 4
_RAISE_LIMIT = 20
#: signs of a pasted program message (not a statement in prose)
_MESSAGE = re.compile(r"\b(?:error|warning|exception|fatal|panic|failed)\b|\w:\s", re.I)
_QUERY_CACHE = 4096


def _message_key(before: str, previous: str) -> tuple[str, str] | None:
    """The key of a message-table entry from the text before its message on the line
    (or, for a match arm or ``case`` whose message is on the next line, the line
    above): ``("quoted", "object.unknown")`` or ``("name", "ExtraForbidden")``."""
    m = _KEYED.match(before)
    if m is not None and m.group("sep") == "(" and not (m.group("name") or "A")[0].isupper():
        m = None  # ``f.write_str("…")``, ``error("…")``: a call, not an entry
    if m is None:
        m = _ARM.match(previous) if _CALL_ONLY.match(before) else None
        if m is None:
            return None
    if m.group("quoted"):
        return ("quoted", m.group("quoted").lower())
    name = re.split(r"::|\.", m.group("name"))[-1]
    if len(name) < 3 or name in _NOT_CALLS:
        return None
    return ("name", name)


def _fragments(phrases: tuple[str, ...]) -> list[str]:
    """The distinct three-word runs of the phrases, in order (at most 24)."""
    out: dict[str, None] = {}
    for phrase in phrases:
        words = phrase.split()
        for i in range(len(words) - 2):
            window = " ".join(words[i : i + 3])
            if len(window) >= 8 and window != phrase:
                out[window] = None
    return list(out)[:24]


def _order(scores: dict[int, float]) -> list[tuple[int, float]]:
    return sorted(scores.items(), key=lambda rs: (-rs[1], rs[0]))


def _pre_rerank(
    first_stage: list[tuple[int, float]], retrieved: list[tuple[int, float]]
) -> list[tuple[int, float]]:
    """The attempt's ``candidates`` (SPEC §2: the pre-rerank list): the rows candidate
    generation retrieved, in the order and with the scores the first stage gave them
    (role, legacy, sibling and context factors applied; rows a filter dropped left out),
    which is the list the rerank stage receives. Recording the fused order instead
    would make diagnosis blame the reranker for what the first-stage factors did."""
    kept = {row for row, _ in retrieved}
    return [(row, score) for row, score in first_stage if row in kept]


def _filters(context: Context | None) -> dict[str, Any]:
    if context is None:
        return {}
    out: dict[str, Any] = {}
    for key, value in (
        ("openFile", context.open_file),
        ("pathPrefix", context.path_prefix),
        ("language", context.language),
        ("package", context.package),
    ):
        if value:
            out[key] = value
    return out
