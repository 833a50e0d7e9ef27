"""Embedding providers: the dense signal of the reference retriever.

A provider turns texts into float32 rows of unit length, so that a dot product is a
cosine. Providers are looked up by a spec string, ``name`` or ``name:argument``:

===========================  ==========================================================
``builtin``                  all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime; needs the
                             ``embed`` extra; no torch, no network
``hash``, ``hash:DIM``       feature hashing of identifier parts; no dependencies; NOT
                             semantic (tests, and a cheap stand-in)
``sentence-transformers:M``  any sentence-transformers model, by local path or a name
                             already in the local Hugging Face cache (never downloads)
``http:URL``                 an OpenAI-compatible ``/embeddings`` endpoint
===========================  ==========================================================

Third parties add providers through the ``codegold.embedders`` entry-point group: the
entry point's name is the provider name, its object a factory taking the argument
string (``""`` when there is none) and returning an :class:`EmbeddingProvider`. The
built-ins are registered through the same :func:`register_provider` call.

Every provider's :meth:`~EmbeddingProvider.identity` goes into the index manifest and
the vector cache key, so it names everything that changes the vectors.
"""

from __future__ import annotations

import base64
import hashlib
import importlib
import importlib.metadata
import inspect
import json
import math
import os
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from codegold.errors import CodegoldError, EnvironmentProblem, InputError
from codegold.registry import Registry

ENTRY_POINT_GROUP = "codegold.embedders"
THREADS_ENV = "CODEGOLD_EMBED_THREADS"
QUERY_THREADS_ENV = "CODEGOLD_EMBED_QUERY_THREADS"

FloatMatrix = npt.NDArray[np.float32]
FloatVector = npt.NDArray[np.float32]


@runtime_checkable
class EmbeddingProvider(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str:
        """The registry name this provider was made under (``builtin``, ``hash``…)."""
        ...

    @property
    def dimension(self) -> int:
        """Length of every vector."""
        ...

    def identity(self) -> dict[str, Any]:
        """JSON-ready description for the index manifest: at least ``name``, ``model``,
        ``version`` and ``dimension``; a weights digest where it is cheap."""
        ...

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        """One row per text, ``(len(texts), dimension)``, float32, unit length."""
        ...

    def embed_query(self, text: str) -> FloatVector:
        """One vector, ``(dimension,)``, float32, unit length."""
        ...


ProviderFactory = Callable[[str], EmbeddingProvider]


def _adopt(name: str, loaded: object) -> list[tuple[str, ProviderFactory]]:
    if not callable(loaded):
        raise EnvironmentProblem(f"embedder plugin {name!r} is not callable")
    return [(name, loaded)]


PROVIDERS: Registry[ProviderFactory] = Registry(
    "embedder", ENTRY_POINT_GROUP, adopt=_adopt, field="embedder"
)
"""Embedding providers by name (built-ins registered below, plugins on demand)."""
_REGISTRY = PROVIDERS.items


def register_provider(name: str, factory: ProviderFactory, *, replace: bool = False) -> None:
    """Make ``factory`` the provider for specs ``name`` and ``name:ARG``.

    The factory receives ARG (``""`` when the spec has none). Registering a taken
    name is an error unless ``replace`` is true.
    """
    PROVIDERS.register(name, factory, replace=replace)


def provider_names() -> list[str]:
    """Every provider name: registered ones and those that entry points offer."""
    return PROVIDERS.names()


def get_provider(spec: str) -> EmbeddingProvider:
    """The provider for ``spec`` (``name`` or ``name:argument``), ready to embed."""
    name, _, argument = spec.strip().partition(":")
    if not name:
        raise InputError("empty embedder spec", field="embedder")
    factory = PROVIDERS.get(name)
    try:
        provider = factory(argument)
    except CodegoldError:
        raise
    except Exception as exc:  # a third-party factory failing in its own way
        raise EnvironmentProblem(f"embedder {spec!r} failed to start: {exc}") from exc
    if not _is_provider(provider):
        raise EnvironmentProblem(
            f"embedder {name!r} returned {type(provider).__name__}, "
            "which is not an EmbeddingProvider"
        )
    return provider


def _is_provider(obj: object) -> bool:
    """The protocol's members are present, checked without reading any of them (a
    ``dimension`` property may cost a request)."""
    for member in ("name", "dimension", "identity", "embed_documents", "embed_query"):
        try:
            inspect.getattr_static(obj, member)
        except AttributeError:
            return False
    return True


def builtin_available() -> bool:
    """True when the ``embed`` extra (onnxruntime and the model file) is installed."""
    from codegold.index import _minilm

    return _minilm.is_installed()


def available_default() -> EmbeddingProvider | None:
    """The built-in provider when its extra is installed, else None (the retriever then
    runs on lexical and symbol signals only, and the manifest says so)."""
    if not builtin_available():
        return None
    return get_provider("builtin")


def resolve_embedder(spec: str) -> EmbeddingProvider | None:
    """The provider ``--embedder`` names: ``none`` gives None, ``auto`` the built-in
    model when its extra is installed (else None: lexical and symbol signals only, and
    the index manifest records which signals it holds), anything else
    :func:`get_provider`."""
    if spec == "none":
        return None
    if spec == "auto":
        return available_default()
    return get_provider(spec)


def _threads(threads: int | None, *, env: str = THREADS_ENV, default: int | None = None) -> int:
    if threads is not None:
        return max(1, threads)
    raw = os.environ.get(env)
    if raw:
        try:
            return max(1, int(raw))
        except ValueError as exc:
            raise InputError(f"{env} must be a whole number, got {raw!r}") from exc
    return default if default is not None else min(4, os.cpu_count() or 1)


def _normalise_rows(matrix: npt.NDArray[Any]) -> FloatMatrix:
    rows = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(rows, axis=1, keepdims=True).astype(np.float32)
    safe = np.where(norms > 0, norms, np.float32(1.0))
    out: FloatMatrix = np.ascontiguousarray(rows / safe, dtype=np.float32)
    return out


# -- builtin ---------------------------------------------------------------------------


class BuiltinEmbedder:
    """all-MiniLM-L6-v2 (384 dimensions) from the ``embed`` extra; see ``_minilm``.

    Texts are cut to their first ``max_tokens`` WordPiece tokens (256 at most, the
    model's limit). ``threads`` (default ``$CODEGOLD_EMBED_THREADS``, else up to 4)
    is onnxruntime's intra-op thread count for documents. Queries (one short text,
    on the search path) run in their own one-thread session, made first (the
    documents' session is made on the first documents): a second thread saves
    little on twenty tokens and, on a busy machine, waiting for it is what makes the
    slow tail (``query_threads`` or ``$CODEGOLD_EMBED_QUERY_THREADS`` change it).
    The same text gives byte-identical
    vectors whatever the batch or thread count it came in.
    """

    name = "builtin"

    def __init__(
        self,
        *,
        threads: int | None = None,
        max_tokens: int = 256,
        query_threads: int | None = None,
    ) -> None:
        from codegold.index import _minilm

        if not 2 <= max_tokens <= _minilm.MAX_TOKENS:
            raise InputError(f"max_tokens must be between 2 and {_minilm.MAX_TOKENS}")
        self.threads = _threads(threads)
        self.query_threads = _threads(query_threads, env=QUERY_THREADS_ENV, default=1)
        self.max_tokens = max_tokens
        # the query session is made (and the files checked) now; the documents' session,
        # with more threads, on the first documents
        self._tokenizer, self._query_model = _minilm.load(self.query_threads, max_tokens)
        self._document_model: Any = (
            self._query_model if self.query_threads == self.threads else None
        )
        self.dimension = _minilm.DIMENSION

    def identity(self) -> dict[str, Any]:
        from codegold.index import _minilm

        return {
            "name": self.name,
            "model": _minilm.MODEL_NAME,
            "variant": _minilm.MODEL_VARIANT,
            "version": "1",
            "dimension": self.dimension,
            "maxTokens": self.max_tokens,
            "pooling": "mean",
            # another onnxruntime release may round the last bit differently
            "runtime": self._query_model.runtime,
            "weightsSha256": _minilm.WEIGHTS_SHA256,
            "vocabSha256": _minilm.VOCAB_SHA256,
        }

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if texts and self._document_model is None:
            from codegold.index import _minilm

            self._document_model = _minilm.MiniLMOnnx(self._query_model.path, self.threads)
        for i, text in enumerate(texts):
            out[i] = self._document_model.encode(self._tokenizer.encode(text))
        return out

    def embed_query(self, text: str) -> FloatVector:
        result: FloatVector = self._query_model.encode(self._tokenizer.encode(text))
        return result


def _builtin_factory(argument: str) -> EmbeddingProvider:
    if argument:
        raise InputError(f"the builtin embedder takes no argument, got {argument!r}")
    return BuiltinEmbedder()


# -- hash ------------------------------------------------------------------------------

_WORD = re.compile(r"[A-Za-z0-9]+")
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def identifier_tokens(text: str) -> list[str]:
    """Lowercased identifier parts, each whole identifier first when it has parts:
    ``createSession`` -> ``createsession``, ``create``, ``session``."""
    tokens: list[str] = []
    for word in _WORD.findall(text):
        parts = [p.lower() for p in _PART.findall(word)]
        if len(parts) > 1:
            tokens.append(word.lower())
        tokens.extend(parts)
    return tokens


class HashEmbedder:
    """Feature hashing of identifier parts: a bag of words, not a model.

    It is NOT semantic: texts are close only when they share identifier parts
    (``createSession`` and ``create_session`` share ``create`` and ``session``), never
    because they mean the same. It exists for tests and as a dependency-free stand-in
    where a vector signal is wanted at no cost. Each token adds ``±(1 + log tf)`` to
    the slot its BLAKE2b hash picks, so the output is the same on every machine and
    Python version. A text with no tokens gives the zero vector.
    """

    name = "hash"

    def __init__(self, dimension: int = 256) -> None:
        if not 8 <= dimension <= 65536:
            raise InputError(f"hash dimension must be between 8 and 65536, got {dimension}")
        self.dimension = dimension

    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": "blake2b-feature-hashing",
            "version": "1",
            "dimension": self.dimension,
        }

    def _slot(self, token: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "big")
        return h % self.dimension, (1.0 if h >> 63 else -1.0)

    def _vector(self, text: str) -> FloatVector:
        counts: dict[str, int] = {}
        for token in identifier_tokens(text):
            counts[token] = counts.get(token, 0) + 1
        acc = np.zeros(self.dimension, dtype=np.float64)
        for token in sorted(counts):
            slot, sign = self._slot(token)
            acc[slot] += sign * (1.0 + math.log(counts[token]))
        norm = float(np.linalg.norm(acc))
        out: FloatVector = (acc / norm if norm > 0 else acc).astype(np.float32)
        return out

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            out[i] = self._vector(text)
        return out

    def embed_query(self, text: str) -> FloatVector:
        return self._vector(text)


def _hash_factory(argument: str) -> EmbeddingProvider:
    if not argument:
        return HashEmbedder()
    try:
        return HashEmbedder(int(argument))
    except ValueError as exc:
        raise InputError(f"hash:DIM needs a whole number, got {argument!r}") from exc


# -- sentence-transformers -------------------------------------------------------------


class SentenceTransformersEmbedder:
    """A sentence-transformers model from a local path or the local Hugging Face cache.

    Needs ``sentence-transformers`` (and so torch) installed by you; it is not part of
    any codegold extra. The model is opened with ``local_files_only``: nothing is
    downloaded. Texts are cut to ``max_tokens`` (default 256, or the model's own limit
    when lower).
    """

    name = "sentence-transformers"

    def __init__(
        self,
        model: str,
        *,
        batch_size: int = 32,
        max_tokens: int = 256,
        threads: int | None = None,
    ) -> None:
        if not model:
            raise InputError(
                "sentence-transformers needs a model: sentence-transformers:NAME_OR_PATH",
                field="embedder",
            )
        try:
            # imported by name: optional, heavy, and without type information
            sentence_transformers: Any = importlib.import_module("sentence_transformers")
            torch: Any = importlib.import_module("torch")
        except ImportError as exc:
            raise EnvironmentProblem(
                "the 'sentence-transformers' embedder needs the sentence-transformers "
                "package: pip install sentence-transformers"
            ) from exc
        self.model_name = model
        self.batch_size = batch_size
        self.version = str(getattr(sentence_transformers, "__version__", "unknown"))
        if threads is not None or os.environ.get(THREADS_ENV):
            torch.set_num_threads(_threads(threads))
        try:
            self._model: Any = sentence_transformers.SentenceTransformer(
                model, device="cpu", local_files_only=True
            )
        except Exception as exc:  # hub and loading errors come in many types
            raise EnvironmentProblem(
                f"cannot open sentence-transformers model {model!r} from local files "
                f"(codegold never downloads models): {exc}"
            ) from exc
        own_limit = int(getattr(self._model, "max_seq_length", max_tokens) or max_tokens)
        self.max_tokens = min(max_tokens, own_limit)
        self._model.max_seq_length = self.max_tokens
        get_dim = getattr(self._model, "get_embedding_dimension", None) or getattr(
            self._model, "get_sentence_embedding_dimension", None
        )
        dim = get_dim() if get_dim is not None else None
        if not dim:
            dim = len(self._encode(["dimension probe"])[0])
        self.dimension = int(dim)

    def _encode(self, texts: Sequence[str]) -> FloatMatrix:
        raw = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            convert_to_numpy=True,
            normalize_embeddings=False,
            show_progress_bar=False,
        )
        return _normalise_rows(np.asarray(raw).reshape(len(texts), -1))

    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model_name,
            "version": self.version,
            "dimension": self.dimension,
            "maxTokens": self.max_tokens,
        }

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._encode(texts)

    def embed_query(self, text: str) -> FloatVector:
        vector: FloatVector = self._encode([text])[0]
        return vector


def _sentence_transformers_factory(argument: str) -> EmbeddingProvider:
    return SentenceTransformersEmbedder(argument)


# -- http ------------------------------------------------------------------------------


class HttpEmbedder:
    """An OpenAI-compatible embeddings endpoint over HTTP (stdlib ``urllib``).

    POSTs ``{"input": [texts], "model": M}`` (``model`` only when set) and reads
    ``{"data": [{"embedding": [...], "index": i}, ...]}``. Rows are re-normalised.
    Environment: ``CODEGOLD_EMBED_HTTP_MODEL`` (model name sent),
    ``CODEGOLD_EMBED_HTTP_KEY`` (sent as a bearer token), ``CODEGOLD_EMBED_HTTP_BATCH``
    (texts per request, default 32), ``CODEGOLD_EMBED_HTTP_TIMEOUT`` (seconds per
    request, default 60). Busy answers (429, 502, 503, 504) and dropped connections are
    retried twice, after 1 and 2 seconds. The dimension is learnt from the first answer.
    """

    name = "http"
    RETRY_STATUS = frozenset({429, 502, 503, 504})

    def __init__(
        self,
        url: str,
        *,
        model: str | None = None,
        api_key: str | None = None,
        batch_size: int = 32,
        timeout: float = 60.0,
        retries: int = 2,
    ) -> None:
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise InputError(
                f"http embedder needs an http(s) URL, got {url!r}: http:https://host/v1/embeddings",
                field="embedder",
            )
        if batch_size < 1:
            raise InputError("batch size must be at least 1")
        self.url = url
        # urllib does not take credentials in the URL: they travel as Basic auth
        host = parsed.hostname or ""
        netloc = f"{host}:{parsed.port}" if parsed.port else host
        self._request_url = urllib.parse.urlunsplit(
            (parsed.scheme, netloc, parsed.path, parsed.query, "")
        )
        self._basic: str | None = None
        if parsed.username is not None:
            pair = f"{urllib.parse.unquote(parsed.username)}:"
            pair += urllib.parse.unquote(parsed.password or "")
            self._basic = base64.b64encode(pair.encode("utf-8")).decode("ascii")
        self.model = model
        self._api_key = api_key
        self.batch_size = batch_size
        self.timeout = timeout
        self.retries = retries
        self._dimension: int | None = None
        self._lock = threading.Lock()

    @classmethod
    def from_environment(cls, url: str) -> HttpEmbedder:
        def number(var: str, default: float) -> float:
            raw = os.environ.get(var)
            if not raw:
                return default
            try:
                return float(raw)
            except ValueError as exc:
                raise InputError(f"{var} must be a number, got {raw!r}") from exc

        return cls(
            url,
            model=os.environ.get("CODEGOLD_EMBED_HTTP_MODEL") or None,
            api_key=os.environ.get("CODEGOLD_EMBED_HTTP_KEY") or None,
            batch_size=int(number("CODEGOLD_EMBED_HTTP_BATCH", 32)),
            timeout=number("CODEGOLD_EMBED_HTTP_TIMEOUT", 60.0),
        )

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            return int(self._post(["dimension probe"]).shape[1])
        return self._dimension

    def _public_url(self) -> str:
        """The URL without credentials or query string, for manifests and messages."""
        p = urllib.parse.urlsplit(self.url)
        host = p.hostname or ""
        netloc = f"{host}:{p.port}" if p.port else host
        return urllib.parse.urlunsplit((p.scheme, netloc, p.path, "", ""))

    def identity(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "url": self._public_url(),
            "version": None,
            "dimension": self.dimension,
        }

    def _request(self, texts: list[str]) -> bytes:
        body: dict[str, Any] = {"input": texts}
        if self.model:
            body["model"] = self.model
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif self._basic:
            headers["Authorization"] = f"Basic {self._basic}"
        data = json.dumps(body).encode("utf-8")
        where = self._public_url()
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(
                self._request_url, data=data, headers=headers, method="POST"
            )
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    payload: bytes = response.read()
                    return payload
            except urllib.error.HTTPError as exc:
                if exc.code in self.RETRY_STATUS and attempt < self.retries:
                    time.sleep(1.0 + attempt)
                    continue
                detail = exc.read(300).decode("utf-8", "replace").strip()
                raise EnvironmentProblem(
                    f"embedding endpoint {where} answered HTTP {exc.code}: {detail or exc.reason}"
                ) from exc
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                if attempt < self.retries:
                    time.sleep(1.0 + attempt)
                    continue
                reason = getattr(exc, "reason", exc)
                raise EnvironmentProblem(
                    f"embedding endpoint {where} unreachable: {reason}"
                ) from exc
        raise EnvironmentProblem(f"embedding endpoint {where}: no answer")  # pragma: no cover

    def _post(self, texts: list[str]) -> FloatMatrix:
        where = self._public_url()
        raw = self._request(texts)
        try:
            payload = json.loads(raw)
            items = payload["data"]
            if not isinstance(items, list):
                raise TypeError("'data' is not a list")
            if items and all(isinstance(i, dict) and "index" in i for i in items):
                items = sorted(items, key=lambda i: int(i["index"]))
            rows = [item["embedding"] for item in items]
            matrix = np.asarray(rows, dtype=np.float64)
        except (ValueError, KeyError, TypeError) as exc:
            raise EnvironmentProblem(
                f"embedding endpoint {where} sent an answer that is not "
                f'{{"data": [{{"embedding": [...]}}]}}: {exc}'
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(texts):
            raise EnvironmentProblem(
                f"embedding endpoint {where} returned {matrix.shape[0] if matrix.ndim else 0} "
                f"vectors for {len(texts)} texts"
            )
        if not np.all(np.isfinite(matrix)):
            raise EnvironmentProblem(f"embedding endpoint {where} returned non-finite numbers")
        with self._lock:
            if self._dimension is None:
                self._dimension = int(matrix.shape[1])
        if matrix.shape[1] != self._dimension:
            raise EnvironmentProblem(
                f"embedding endpoint {where} changed dimension: {matrix.shape[1]}, "
                f"earlier {self._dimension}"
            )
        return _normalise_rows(matrix)

    def embed_documents(self, texts: Sequence[str]) -> FloatMatrix:
        batches = [
            self._post(list(texts[s : s + self.batch_size]))
            for s in range(0, len(texts), self.batch_size)
        ]
        if not batches:
            return np.zeros((0, self.dimension), dtype=np.float32)
        out: FloatMatrix = np.concatenate(batches).astype(np.float32)
        return out

    def embed_query(self, text: str) -> FloatVector:
        vector: FloatVector = self._post([text])[0]
        return vector


def _http_factory(argument: str) -> EmbeddingProvider:
    if not argument:
        raise InputError("http needs a URL: http:https://host/v1/embeddings", field="embedder")
    return HttpEmbedder.from_environment(argument)


def _register_builtins() -> None:
    for name, factory in (
        ("builtin", _builtin_factory),
        ("hash", _hash_factory),
        ("sentence-transformers", _sentence_transformers_factory),
        ("http", _http_factory),
    ):
        register_provider(name, factory, replace=True)


_register_builtins()

__all__ = [
    "ENTRY_POINT_GROUP",
    "BuiltinEmbedder",
    "EmbeddingProvider",
    "HashEmbedder",
    "HttpEmbedder",
    "ProviderFactory",
    "SentenceTransformersEmbedder",
    "available_default",
    "builtin_available",
    "get_provider",
    "identifier_tokens",
    "provider_names",
    "register_provider",
    "resolve_embedder",
]
