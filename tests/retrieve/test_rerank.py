"""Precision after the first stage: a qualified name demotes its siblings, hub chunks
and partial matches give way, the MiniLM rerank over the top 30 (source chunks only),
and the docs and legacy penalties holding after it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index.build import BuildOptions, build_index
from codegold.index.store import open_index
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from tests.corpus.gitfixture import make_repo
from tests.retrieve._index import index_files

READER = '''class JsonReader:
    """Reads JSON tokens from a stream."""

    def __init__(self, stream):
        self.stream = stream
        self.lenient = False

    def set_lenient(self, lenient):
        """Accept comments and unquoted names when reading."""
        self.lenient = lenient

    def next_token(self):
        return self.stream.read(1)
'''

WRITER = '''class JsonWriter:
    """Writes JSON tokens to a stream."""

    def __init__(self, stream):
        self.stream = stream
        self.lenient = False

    def set_lenient(self, lenient):
        """Lenient mode does what the reader's lenient mode does: with lenient mode
        set, what the reader accepts in lenient mode the writer writes in lenient
        mode (NaN, comments), so a lenient reader reads what it does."""
        self.lenient = lenient

    def value(self, v):
        self.stream.write(repr(v))
'''

BACKOFF = '''import random


def compute_delay(attempt, base=0.5, cap=30.0):
    """Seconds to sleep before the next retry: doubles each time, with jitter."""
    return min(cap, base * (2 ** attempt)) * random.uniform(0.5, 1.0)


def parse_header(raw):
    """Split a raw header line into name and value."""
    name, _, value = raw.partition(":")
    return name.strip().lower(), value.strip()


def format_size(n):
    """Human-readable byte counts."""
    for unit in ("B", "KB", "MB"):
        if n < 1024:
            return f"{n}{unit}"
        n //= 1024
    return f"{n}GB"
'''

RETRY_DOCS = """# Retries

How long do we wait before retrying a failed request? We wait before retrying:
the wait before retrying grows with every failed request we retry.
"""

LEGACY = '''def compute_delay(attempt):
    """Old fixed wait before retrying a failed request (kept for v1 clients)."""
    return 1.0
'''


def _symbols(index: object, ranked: list[tuple[int, float]]) -> list[str | None]:
    return [index.chunks[row].symbol for row, _ in ranked]  # type: ignore[attr-defined]


def test_a_qualified_name_demotes_the_same_method_of_another_class(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"json/reader.py": READER, "json/writer.py": WRITER})
    query = "what does JsonReader.set_lenient do with lenient mode?"
    ranked = HybridRetriever(index).search(query).ranked  # type: ignore[arg-type]
    # (classes this small are one chunk each, named by the class and its methods)
    assert [index.chunks[r].file for r, _ in ranked][:2] == ["json/reader.py", "json/writer.py"]  # type: ignore[attr-defined]
    result = HybridRetriever(index).search(query)  # type: ignore[arg-type]
    plain = HybridRetriever(index, RetrieverConfig(sibling_factor=1.0)).search(query)  # type: ignore[arg-type]

    def writer_score(res: object) -> float:
        return next(s for r, s in res.ranked if index.chunks[r].file == "json/writer.py")  # type: ignore[attr-defined]

    writer = next(r for r, _ in result.ranked if index.chunks[r].file == "json/writer.py")  # type: ignore[attr-defined]
    assert result.explanations[writer].factors["qualifier"] == RetrieverConfig().sibling_factor
    # the sibling ends far behind; undemoted it is nearly level with the answer
    reader_score = result.ranked[0][1]
    assert writer_score(result) < 0.5 * reader_score < 0.5 * plain.ranked[0][1] / 0.9
    assert writer_score(plain) > 0.9 * plain.ranked[0][1]


def test_a_variable_qualifier_is_not_a_class(tmp_path: Path) -> None:
    """``reader.set_lenient`` names no class (no ``reader`` is defined): nothing is demoted."""
    index = index_files(tmp_path, {"json/reader.py": READER, "json/writer.py": WRITER})
    result = HybridRetriever(index).search("why does reader.set_lenient not stick?")  # type: ignore[arg-type]
    assert all("qualifier" not in e.factors for e in result.explanations.values())


def test_a_qualifier_that_names_a_function_is_not_a_class(tmp_path: Path) -> None:
    """``reader.set_lenient`` where a function ``reader`` opens a JsonReader: the
    qualifier is a variable named after what it holds, and JsonReader.set_lenient is
    not demoted as a sibling of a ``reader`` class nobody defines."""
    opener = "from json.reader import JsonReader\n\n\ndef reader(stream):\n    return JsonReader(stream)\n"
    files = {"json/reader.py": READER, "json/writer.py": WRITER, "json/open.py": opener}
    index = index_files(tmp_path, files)
    assert index.symbols.definitions("reader")  # the name is defined, as a function
    result = HybridRetriever(index).search("why does reader.set_lenient not stick?")  # type: ignore[arg-type]
    assert all("qualifier" not in e.factors for e in result.explanations.values())
    named = HybridRetriever(index).search("why does JsonReader.set_lenient not stick?")  # type: ignore[arg-type]
    assert any("qualifier" in e.factors for e in named.explanations.values())


def test_a_qualified_name_no_definition_answers_demotes_no_sibling(tmp_path: Path) -> None:
    """``Client.timeout`` where Client inherits ``timeout`` from a mixin: the mixin's
    method is the code that runs, not a sibling under another class."""
    chainable = (
        "class Chainable:\n    def timeout(self, options):\n"
        '        """Global or per-operation timeouts."""\n        return self.branch(options)\n'
    )
    client = "from chainable import Chainable\n\n\nclass Client(Chainable):\n    pass\n"
    index = index_files(tmp_path, {"chainable.py": chainable, "client.py": client})
    result = HybridRetriever(index).search("what forms does Client.timeout accept?")  # type: ignore[arg-type]
    assert all("qualifier" not in e.factors for e in result.explanations.values())
    assert index.chunks[result.ranked[0][0]].file == "chainable.py"  # type: ignore[attr-defined]


def _builtin() -> object:
    pytest.importorskip("onnxruntime")
    from codegold.index.embed import BuiltinEmbedder, builtin_available

    if not builtin_available():
        pytest.skip("the built-in model is not installed")
    return BuiltinEmbedder(threads=1)


def test_rerank_embeds_source_only_and_keeps_docs_and_legacy_below(tmp_path: Path) -> None:
    embedder = _builtin()
    files = {
        "net/backoff.py": BACKOFF,
        "net/legacy/backoff.py": LEGACY,
        "docs/retries.md": RETRY_DOCS,
        "tests/test_backoff.py": "def test_delay():\n    assert compute_delay(0) <= 0.5\n",
    }
    repo, (sha,) = make_repo(tmp_path / "r", [files])
    root = tmp_path / "idx"
    policy = PathPolicy()
    with GitRepo(repo) as git:
        manifest = build_index(
            git, sha, root, policy=policy, options=BuildOptions(embedder=embedder)
        )
    index = open_index(root, sha)
    assert "dense" in (manifest.signals or ())
    assert manifest.embedding is not None and manifest.embedding["scope"] == "source"
    assert index.vectors is not None
    norms = np.linalg.norm(index.vectors, axis=1)
    for row, chunk in enumerate(index.chunks):
        assert (norms[row] > 0) == (chunk.file_role == "source"), chunk.file
    query = "how long do we wait before retrying a failed request?"
    result = HybridRetriever(index, embedder=embedder).search(query)
    files_in_order = [index.chunks[r].file for r, _ in result.ranked]
    top = result.ranked[0][0]
    assert index.chunks[top].symbol == "compute_delay"
    assert index.chunks[top].file == "net/backoff.py"
    assert "rerank" in result.explanations[top].signals
    assert files_in_order.index("net/backoff.py") < files_in_order.index("docs/retries.md")
    attempt = HybridRetriever(index, embedder=embedder).retrieve(query, case_id="c", attempt_id="a")
    assert "rerank" in attempt.debug["signals"] and "lexical" in attempt.debug["signals"]
    # the same index without a model at query time: the lexical ranking, no rerank
    lexical = HybridRetriever(index).retrieve(query, case_id="c", attempt_id="a")
    assert "rerank" not in lexical.debug["signals"]


class _CountingEmbedder:
    """The hash provider, counting the queries it is asked to embed."""

    def __init__(self) -> None:
        from codegold.index.embed import HashEmbedder

        self._inner = HashEmbedder(64)
        self.name = self._inner.name
        self.dimension = self._inner.dimension
        self.queries = 0

    def identity(self) -> dict[str, object]:
        return self._inner.identity()

    def embed_documents(self, texts: list[str]) -> object:
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> object:
        self.queries += 1
        return self._inner.embed_query(text)


def test_the_same_query_is_embedded_once_per_retriever(tmp_path: Path) -> None:
    embedder = _CountingEmbedder()
    index = index_files(tmp_path, {"net/backoff.py": BACKOFF}, embedder=embedder)
    retriever = HybridRetriever(index, embedder=embedder)  # type: ignore[arg-type]
    query = "how long do we wait before retrying?"
    first = retriever.search(query).ranked
    assert retriever.search(query).ranked == first
    retriever.search("split a raw header line")
    assert embedder.queries == 2


def test_the_lexical_path_still_weighs_coverage_and_hubs(tmp_path: Path) -> None:
    """Without a model the top of the ranking still gets the query-term coverage factor."""
    index = index_files(tmp_path, {"net/backoff.py": BACKOFF})
    result = HybridRetriever(index).search("how long before the next retry, with jitter?")  # type: ignore[arg-type]
    top = result.ranked[0][0]
    assert index.chunks[top].symbol == "compute_delay"  # type: ignore[attr-defined]
    assert "coverage" in result.explanations[top].factors
    off = HybridRetriever(index, RetrieverConfig(lexical_precision=0)).search("retry jitter")  # type: ignore[arg-type]
    assert all("coverage" not in e.factors for e in off.explanations.values())


TEMPLATED = """def check_callable(options, opt):
    if not callable(options.get(opt)):
        raise TypeError(f"option {opt} must be a function")
"""

DISTRACTOR = '''def option_function(option, function):
    """Pass an option a function: the option serialize takes a function, the option
    encode takes a function; a TypeError option is an option without a function."""
    return {option: function}
'''


def test_a_message_printed_from_a_template_finds_the_raising_site(tmp_path: Path) -> None:
    """The pasted message holds a value (``serialize``) the code never spells: its
    rare three-word runs still find the raising site above a chunk full of its words."""
    index = index_files(tmp_path, {"lib/validator.py": TEMPLATED, "lib/options.py": DISTRACTOR})
    query = "TypeError: option serialize must be a function"

    def top(config: RetrieverConfig) -> tuple[str | None, set[str]]:
        result = HybridRetriever(index, config).search(query)  # type: ignore[arg-type]
        row = result.ranked[0][0]
        return index.chunks[row].symbol, set(result.explanations[row].signals)  # type: ignore[attr-defined]

    symbol, signals = top(RetrieverConfig())
    assert symbol == "check_callable" and "phrase" in signals
    # the whole message is in no chunk: without its runs the phrase signal is silent
    assert "phrase" not in top(RetrieverConfig(phrase_fragments=0))[1]


def test_the_builtin_model_embeds_queries_in_a_one_thread_session() -> None:
    embedder = _builtin()
    from codegold.index.embed import BuiltinEmbedder

    two = BuiltinEmbedder(threads=2)
    assert two.query_threads == 1 and embedder.query_threads == 1  # type: ignore[attr-defined]
    text = "how long do we wait before retrying a failed request?"
    assert two.embed_query(text).tobytes() == two.embed_documents([text])[0].tobytes()


def test_a_chunk_without_a_vector_keeps_its_lexical_place_through_the_rerank(
    tmp_path: Path,
) -> None:
    """Tests are not embedded: the model has no opinion on them, so a test the query
    names stays first instead of falling behind every embedded chunk."""
    embedder = _builtin()
    files = {
        "net/backoff.py": BACKOFF,
        "tests/test_backoff.py": "def test_delay_grows():\n    assert compute_delay(0) <= 0.5\n",
    }
    index = index_files(tmp_path, files, embedder=embedder)
    result = HybridRetriever(index, embedder=embedder).search("where is test_delay_grows defined")  # type: ignore[arg-type]
    top = result.ranked[0][0]
    assert index.chunks[top].symbol == "test_delay_grows"  # type: ignore[attr-defined]
    assert any("rerank" in e.signals for e in result.explanations.values())


def test_the_score_fusion_keeps_the_lexical_gaps_and_breaks_near_ties(tmp_path: Path) -> None:
    """``rerank_fusion = "score"``: the head's lexical scores (over the best) plus
    ``w_rerank`` times the cosine's lift over the head's median, so a small weight
    reorders only what the lexical ranking left close; the same query twice gives the
    same order, and with the weight at zero the order is the lexical one."""
    embedder = _CountingEmbedder()
    files = {
        "net/backoff.py": BACKOFF,
        "net/legacy/backoff.py": LEGACY,
        "json/reader.py": READER,
        "lib/validator.py": TEMPLATED,
    }
    index = index_files(tmp_path, files, embedder)
    query = "how long do we wait before the next retry?"
    lexical = HybridRetriever(index).search(query).ranked  # type: ignore[arg-type]
    config = RetrieverConfig(rerank_fusion="score", w_rerank=0.1)
    retriever = HybridRetriever(index, config, embedder=embedder)  # type: ignore[arg-type]
    result = retriever.search(query)
    assert result.ranked == retriever.search(query).ranked
    assert any("rerank" in e.signals for e in result.explanations.values())
    top = result.ranked[0][0]
    assert index.chunks[top].file == "net/backoff.py"  # type: ignore[attr-defined]
    # every final score is the lexical share plus at most the weight
    lex_score = dict(lexical)
    best = lexical[0][1]
    for row, value in result.ranked[: len(lexical)]:
        assert lex_score[row] / best - 1e-9 <= value <= lex_score[row] / best + 0.1 + 1e-9
    still = RetrieverConfig(rerank_fusion="score", w_rerank=1e-9)
    order = HybridRetriever(index, still, embedder=embedder).search(query).ranked  # type: ignore[arg-type]
    assert [r for r, _ in order] == [r for r, _ in lexical]


def test_the_prose_scope_leaves_pasted_messages_and_open_files_to_the_lexical_rank(
    tmp_path: Path,
) -> None:
    """``rerank_scope = "prose"``: the model reranks a question in words; a pasted
    message, a question asked from an open file, or one asking for usage keeps the
    lexical order exactly (no ``rerank`` signal)."""
    from codegold.cases.model import Context

    embedder = _CountingEmbedder()
    index = index_files(
        tmp_path, {"net/backoff.py": BACKOFF, "lib/validator.py": TEMPLATED}, embedder
    )
    config = RetrieverConfig(rerank_scope="prose")
    retriever = HybridRetriever(index, config, embedder=embedder)  # type: ignore[arg-type]

    def reranked(query: str, context: Context | None = None) -> bool:
        result = retriever.search(query, context)
        plain = HybridRetriever(index).search(query, context)  # type: ignore[arg-type]
        ran = any("rerank" in e.signals for e in result.explanations.values())
        if not ran:
            assert result.ranked == plain.ranked
        return ran

    assert reranked("how long do we wait before the next retry?")
    assert not reranked('why do I get "option serialize must be a function"?')
    assert not reranked(
        "how long do we wait before the next retry?", Context(open_file="net/backoff.py")
    )
    assert not reranked("show me an example of how to use compute_delay")
    everywhere = HybridRetriever(index, RetrieverConfig(), embedder=embedder)  # type: ignore[arg-type]
    found = everywhere.search('why do I get "option serialize must be a function"?')
    assert any("rerank" in e.signals for e in found.explanations.values())


def test_the_rerank_knobs_are_checked() -> None:
    from codegold.errors import InputError

    with pytest.raises(InputError, match="rerank_fusion"):
        RetrieverConfig.from_dict({"rerank_fusion": "max"})
    with pytest.raises(InputError, match="rerank_scope"):
        RetrieverConfig.from_dict({"rerank_scope": "some"})


ONCE_CELL = """pub mod unsync {
    pub struct OnceCell<T> {
        inner: core::cell::UnsafeCell<Option<T>>,
    }

    impl<T> OnceCell<T> {
        /// Gets the reference to the underlying value.
        pub fn get(&self) -> Option<&T> {
            unsafe { &*self.inner.get() }.as_ref()
        }
    }
}

pub mod sync {
    pub struct OnceCell<T>(super::imp::OnceCell<T>);

    impl<T> OnceCell<T> {
        /// Gets the reference to the underlying value; None while it is initialized.
        pub fn get(&self) -> Option<&T> {
            if self.0.is_initialized() { Some(unsafe { self.get_unchecked() }) } else { None }
        }
    }
}
"""


def test_a_module_qualified_name_demotes_the_same_method_of_another_module(
    tmp_path: Path,
) -> None:
    """``unsync::OnceCell::get`` (once_cell's src/lib.rs): the chunk of ``sync``'s
    ``OnceCell.get``, also named ``sync.OnceCell.get``, is a sibling; a bare
    ``OnceCell::get`` demotes neither."""
    index = index_files(tmp_path, {"src/lib.rs": ONCE_CELL})

    def demoted(query: str) -> list[int]:
        result = HybridRetriever(index).search(query)  # type: ignore[arg-type]
        return sorted(
            index.chunks[r].start_line  # type: ignore[attr-defined]
            for r, _ in result.ranked
            if "qualifier" in result.explanations[r].factors
        )

    holding = sorted(
        c.start_line
        for c in index.chunks  # type: ignore[attr-defined]
        if "OnceCell.get" in c.symbols
    )
    assert len(holding) == 2
    assert demoted("what does unsync::OnceCell::get return?") == [holding[1]]
    assert demoted("what does sync::OnceCell::get return?") == [holding[0]]
    assert demoted("what does OnceCell::get return?") == []
