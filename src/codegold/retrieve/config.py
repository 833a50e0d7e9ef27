"""The reference retriever's knobs: one frozen, serialisable configuration."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from codegold.errors import InputError

ROLE_PREFERENCES: dict[str, dict[str, float]] = {
    "definition": {
        "definition": 1.0,
        "declaration": 0.9,
        "call_site": 0.5,
        "test": 0.3,
        "docs": 0.4,
        "configuration": 0.4,
        "generated": 0.5,
        "migration": 0.5,
    },
    "general": {
        "definition": 1.0,
        "declaration": 0.9,
        "call_site": 0.6,
        "test": 0.45,
        "docs": 0.55,
        "configuration": 0.45,
        "generated": 0.5,
        "migration": 0.5,
    },
    # "example of X", "how do I use X": the API that does it, its docs and the code
    # that calls it, before tests (whose setup and assertions bury the call; on the
    # v5+v6 suites test 0.5 and definition 1.0 won 7 cases and lost 2, v7 +1)
    "usage": {
        "definition": 1.0,
        "declaration": 0.6,
        "call_site": 1.0,
        "test": 0.5,
        "docs": 0.95,
        "configuration": 0.7,
        "generated": 0.5,
        "migration": 0.5,
    },
    # "how do I <do something>" (a definition question otherwise): the API that does
    # it and the docs that show it
    "how_to": {
        "definition": 1.0,
        "declaration": 0.9,
        "call_site": 0.6,
        "test": 0.3,
        "docs": 0.95,
        "configuration": 0.4,
        "generated": 0.5,
        "migration": 0.5,
    },
    "test": {
        "definition": 0.5,
        "declaration": 0.45,
        "call_site": 0.7,
        "test": 1.0,
        "docs": 0.5,
        "configuration": 0.6,
        "generated": 0.4,
        "migration": 0.4,
    },
    # "how do I configure X": where the setting is declared and where it takes
    # effect (code), above the project's own build files (pyproject.toml, Cargo.toml)
    "configuration": {
        "definition": 1.0,
        "declaration": 0.9,
        "call_site": 0.6,
        "test": 0.35,
        "docs": 0.7,
        "configuration": 0.5,
        "generated": 0.5,
        "migration": 0.5,
    },
    "docs": {
        "definition": 0.7,
        "declaration": 0.7,
        "call_site": 0.6,
        "test": 0.4,
        "docs": 1.0,
        "configuration": 0.6,
        "generated": 0.4,
        "migration": 0.4,
    },
}


@dataclass(frozen=True)
class RetrieverConfig:
    """Weights and switches of the reference retriever.

    ``fusion`` is ``rrf`` (reciprocal rank, ``rrf_k``) or ``weighted`` (each signal's
    scores divided by its best, then weighted). ``legacy_mode`` / ``generated_mode``:
    ``penalty`` multiplies by the factor, ``filter`` drops, ``off`` leaves alone.
    Context filters (``pathPrefix``, ``language``) are preferences unless
    ``context_mode`` is ``filter``. ``openFile`` multiplies chunks of its directory (and
    the directories above and below it) by ``open_file_boost``, and the open file's own
    chunks by ``open_file_boost * open_file_self_boost``, so it outranks its siblings.
    """

    fusion: str = "rrf"
    # 25, not 20: a flatter reciprocal-rank curve lets the role, coverage and hub
    # factors reorder code chunks that lexical ranks below many tests and docs (tuned
    # with hub_lines and w_callee on the v5+v6 development suites, 464 -> 472 of 638;
    # 20 older suites 279 -> 279 of 348)
    rrf_k: float = 25.0
    w_lexical: float = 3.0
    w_symbol: float = 1.5
    w_reference: float = 0.3
    w_dense: float = 0.5
    w_path: float = 1.0
    w_phrase: float = 3.0
    # three-word runs of a pasted message, each found in few chunks (0: off)
    phrase_fragments: float = 1.0
    # functions the named definition calls ("how does c.ShouldBind pick JSON vs XML":
    # the answer is often in binding.Default, which ShouldBind calls); 0: off
    w_callee: float = 2.0
    # a pasted message found in a message table (``'object.unknown': '… is not
    # allowed'``): the code that raises it by its key; 0: off
    w_raise: float = 3.0
    # the chunks a pasted trace's ``path:line`` frames fall in, innermost first (0: off)
    w_frame: float = 3.0
    # the short forms code writes for a question's words (environment: env), each
    # counted this much in the lexical query (0: off)
    abbreviation_weight: float = 0.5
    candidates_per_signal: int = 100
    depth: int = 50
    role_strength: float = 1.0
    legacy_mode: str = "penalty"
    legacy_factor: float = 0.35
    # a Go file only a custom build tag compiles (``//go:build nomsgpack``), unless the
    # question speaks of build tags
    build_tag_factor: float = 0.35
    # code marked deprecated, unless the query asks about old code: a deprecated type
    # and its members, a deprecated member of a current type (HybridRetriever._deprecation).
    # A deprecated member is often the code that still runs (unified's `@deprecated`
    # internal Processor.copy, JUnit's validateInstanceMethods): 0.7 lost
    # unified-issue-attacher-runs-again, so it is off
    deprecated_factor: float = 0.35
    deprecated_member_factor: float = 1.0
    generated_mode: str = "penalty"
    generated_factor: float = 0.35
    context_mode: str = "prefer"
    open_file_boost: float = 1.25
    open_file_self_boost: float = 1.2
    # a bare name with a file open: the open file's chunk that defines it (2.0 and 3.0
    # won the same 5 dev cases, nextToken / isValid / getCenter / __rich_console__)
    open_file_named_boost: float = 2.0
    path_prefix_boost: float = 1.5
    language_boost: float = 1.15
    package_boost: float = 1.2
    symbol_boost: float = 1.3
    # a chunk whose name the query's words spell (see HybridRetriever._name_match)
    name_match: float = 0.0
    # prose questions about behaviour: type, struct, interface and enum chunks
    type_factor: float = 0.7
    thin_factor: float = 0.5
    collapse_duplicates: bool = True
    max_per_symbol: int = 2
    # the same for a question in prose (0: max_per_symbol)
    max_per_symbol_prose: int = 1
    # Go has no overloading: one method name on many receivers (``intValue.Set``,
    # ``floatValue.Set``, … of one interface) and a package-level forwarder beside the
    # method it calls (logrus ``Fatal`` -> ``Logger.Fatal``) share a last name across
    # files; at most this many Go chunks per last name before every other chunk has had
    # its turn (0: off); a method whose receiver the query names, or the open file
    # defines or uses, keeps its place
    max_per_go_name: int = 2
    # a prose question that names code: chunks defining a name it writes, at most this
    # many before every other chunk has had its turn (0: off)
    max_named: int = 3
    # a question about the code (definition, general, configuration intent): test and
    # docs chunks, at most this many before every code chunk has had its turn (0: off)
    max_asides: int = 1
    # the same for a "how do I <do something>" question (its docs show how)
    max_asides_how_to: int = 0
    # the same question: test code (by its role, or by a path that reads as a test
    # suite or harness: ``testes/``, ``ltests.h``) and type stubs beside their
    # implementation (``.pyi``, ``.rbs``, ``.d.ts``), at most this many before every
    # code chunk has had its turn; -1: they count among ``max_asides`` instead
    max_tooling: int = 0
    # the same question, when test code and stubs take the lexical candidates: the
    # best other chunks below them join until this many are candidates (0: off)
    code_candidates: int = 20
    expand_neighbors: int = 0
    # dense: "rerank" (cosine over the top ``rerank_depth`` lexical results, fused by
    # reciprocal rank with the lexical rank), "fuse" (a first-stage signal over the
    # whole corpus), or "off"
    dense_mode: str = "rerank"
    rerank_depth: int = 30
    rerank_k: float = 10.0
    # the model's share: with "score" fusion, the most its cosine adds to a lexical
    # score of at most 1 (the head's best); with "rrf", its weight beside the lexical
    # rank's 1 (0.5 was the default of the rrf fusion)
    w_rerank: float = 0.05
    # "score" (default): the lexical scores over the head's best plus ``w_rerank`` times
    # the cosine's lift over the head's median, so the model breaks near-ties; "rrf":
    # reciprocal ranks of the lexical and the cosine order (on 667 development cases
    # the rrf fusion lost 7 to the lexical ranking, the score fusion won 1)
    rerank_fusion: str = "score"
    # which queries the model reranks: "all", or "prose" (a question in words: no
    # pasted message, no open file, not asking for usage or tests)
    rerank_scope: str = "all"
    coverage_strength: float = 0.2
    # a type or module chunk longer than this is a hub for a question that does not
    # name it (its penalty grows as (hub_lines / lines) ** hub_power)
    hub_lines: int = 80
    hub_power: float = 0.5
    sibling_factor: float = 0.4
    # without the model: the coverage and hub factors still apply to the top
    # ``rerank_depth``, raised to this power (0: off)
    lexical_precision: float = 1.0
    # issue reports (a pasted bug report): files ranked by aggregated evidence
    issue_reports: bool = True
    issue_chunk_weight: float = 1.5
    issue_file_weight: float = 1.5
    issue_chunk_decay: float = 0.5
    issue_chunk_top: int = 2
    issue_code_weight: float = 1.0
    issue_frame_weight: float = 0.5
    issue_path_weight: float = 1.0
    issue_module_weight: float = 0.0
    issue_definition_weight: float = 0.0  # off: unstable under leave-one-repository-out
    issue_test_factor: float = 0.3
    issue_docs_factor: float = 0.3
    issue_other_factor: float = 0.3
    issue_declaration_factor: float = 0.8  # headers, .d.ts, .pyi: they declare, others act
    issue_chunks_per_file: int = 3
    # a file's next chunks score its score times (chunk / its best chunk) ** share, so a
    # file far ahead shows more of itself before the next file's best (0: one each)
    issue_chunk_share: float = 3.0
    issue_clean: bool = True  # drop template headings, checklists, version listings, URLs
    issue_title_weight: float = 3.0
    issue_name_weight: float = 0.75
    issue_title_definition_factor: float = 1.0  # a definition the title names counts this much
    issue_plain_weight: float = 0.0  # whole-file BM25 of the report as written (the floor)
    # which of a file's chunks to show: one of this many lines or fewer (a wrapper
    # that passes the named call on, a one-line getter) counts this much of its score
    issue_wrapper_lines: int = 10
    issue_wrapper_factor: float = 0.6
    role_preferences: dict[str, dict[str, float]] = field(
        default_factory=lambda: {k: dict(v) for k, v in ROLE_PREFERENCES.items()}
    )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, raw: dict[str, Any], *, source: str = "config") -> RetrieverConfig:
        known = {f.name for f in fields(cls)}
        aliases = {k.replace("-", "_"): v for k, v in raw.items()}
        unknown = sorted(set(aliases) - known)
        if unknown:
            raise InputError(f"unknown retriever setting(s): {', '.join(unknown)}", file=source)
        merged = {**asdict(cls()), **aliases}
        if "role_preferences" in aliases:
            prefs = {k: dict(v) for k, v in ROLE_PREFERENCES.items()}
            for intent, table in aliases["role_preferences"].items():
                prefs.setdefault(intent, {}).update(table)
            merged["role_preferences"] = prefs
        config = cls(**merged)
        for name, allowed in (
            ("fusion", ("rrf", "weighted")),
            ("legacy_mode", ("penalty", "filter", "off")),
            ("generated_mode", ("penalty", "filter", "off")),
            ("context_mode", ("prefer", "filter")),
            ("dense_mode", ("rerank", "fuse", "off")),
            ("rerank_fusion", ("rrf", "score")),
            ("rerank_scope", ("all", "prose")),
        ):
            if getattr(config, name) not in allowed:
                raise InputError(
                    f"{name} must be one of {', '.join(allowed)}", file=source, field=name
                )
        return config

    @classmethod
    def load(cls, path: str | Path) -> RetrieverConfig:
        """Read ``[retriever]`` from a TOML file, or a JSON object (as `tune` writes)."""
        import tomllib

        import msgspec

        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", file=str(p)) from None
        if p.suffix == ".json":
            raw = msgspec.json.decode(data)
            raw = raw.get("retriever", raw)
        else:
            try:
                doc = tomllib.loads(data.decode("utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise InputError(f"invalid TOML: {exc}", file=str(p)) from None
            raw = doc.get("retriever", doc.get("tool", {}).get("codegold", {}).get("retriever", {}))
        if not isinstance(raw, dict):
            raise InputError("expected a table of retriever settings", file=str(p))
        return cls.from_dict(raw, source=str(p))
