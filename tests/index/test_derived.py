"""Derived files: what the first search works out from a verified file of a build (the
row ends of ``chunks.msgpack``, the BM25 vocabulary in byte order) is kept beside it,
used by later opens only while that file is unchanged, and derived again when it is
absent, stale, damaged or cannot be written. Every answer is the same either way."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import msgspec
import pytest

from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index._msgpack import array_header
from codegold.index.build import build_index
from codegold.index.derived import _head, read_derived
from codegold.index.lexical import SORTED_TERMS, _read_meta
from codegold.index.store import CHUNK_ENDS, IndexedChunk, open_index
from codegold.index.symbols import StoredSymbols, SymbolTable
from codegold.retrieve.hybrid import HybridRetriever
from tests.corpus.gitfixture import make_repo

SOURCE = {
    f"src/pkg{i}/mod.py": (
        f"def handler_{i}(request):\n    '''Handle request {i}: could not parse it.'''\n"
        f"    return request\n\n\nclass Widget{i}:\n    def render(self):\n"
        f"        return 'widget {i} failed to render'\n"
    )
    for i in range(15)
}
SOURCE["src/caf\u00e9.py"] = "def caf\u00e9():\n    return '\u00e9t\u00e9 na\u00efve'\n"
QUERIES = ["handler_3", "why does the widget fail to render", '"could not parse" error']


@pytest.fixture()
def index(tmp_path: Path) -> tuple[Path, str]:
    repo, (rev,) = make_repo(tmp_path / "repo", [SOURCE])
    with GitRepo(repo) as git:
        build_index(git, rev, tmp_path / "idx", policy=PathPolicy())
    return tmp_path / "idx", rev


def _folder(index: Path) -> Path:
    (folder,) = (p for p in (index / "builds").iterdir() if not p.name.startswith("."))
    return folder


def _answers(index: Path, rev: str) -> list[list[tuple[str, float]]]:
    loaded = open_index(index, rev)
    retriever = HybridRetriever(loaded)
    return [
        [(loaded.chunks[row].chunk_id, score) for row, score in retriever.search(q).ranked]
        for q in QUERIES
    ]


def _sha(folder: Path, rel: str) -> str:
    return str(json.loads((folder / "manifest.json").read_text())["files"][rel]["sha256"])


def test_the_first_open_derives_and_later_opens_reuse_the_same_answers(
    index: tuple[Path, str],
) -> None:
    root, rev = index
    folder = _folder(root)
    assert not (folder / CHUNK_ENDS).exists()
    first = _answers(root, rev)
    assert all(first)
    ends = (folder / CHUNK_ENDS).read_bytes()
    terms = (folder / "lexical" / SORTED_TERMS).read_bytes()
    assert ends.startswith(_head(_sha(folder, "chunks.msgpack")))
    assert terms.startswith(_head(_sha(folder, "lexical/vocab.json")))
    maps = sorted(p.name for p in folder.glob("symbols.*.sorted"))
    assert "symbols.defs.sorted" in maps  # the symbol maps the queries consulted
    # the row ends are those of the framing
    framing = msgspec.msgpack.decode(
        (folder / "chunks.msgpack").read_bytes(), type=list[msgspec.Raw]
    )
    payload = read_derived(folder / CHUNK_ENDS, _sha(folder, "chunks.msgpack"))
    assert payload is not None
    stored = payload.cast("q").tolist()
    assert len(stored) == len(framing)
    starts = [len(array_header(len(framing))), *stored[:-1]]
    assert [end - start for start, end in zip(starts, stored, strict=True)] == [
        len(r) for r in framing
    ]
    kept = [(folder / rel).stat().st_ino for rel in (CHUNK_ENDS, f"lexical/{SORTED_TERMS}")]
    assert _answers(root, rev) == first
    # reused, not written again (a rewrite is atomic: a new file)
    assert [(folder / rel).stat().st_ino for rel in (CHUNK_ENDS, f"lexical/{SORTED_TERMS}")] == kept
    assert (folder / CHUNK_ENDS).read_bytes() == ends
    # every stored term is found at its id, and a term no chunk holds is not
    loaded = open_index(root, rev)
    vocab = loaded.lexical.vocab
    stored_terms = json.loads((folder / "lexical" / "vocab.json").read_text())["terms"]
    assert len(vocab) == len(stored_terms)
    assert [vocab.get(t) for t in stored_terms] == list(range(len(stored_terms)))
    assert vocab.get("xyzzy") is None and "xyzzy" not in vocab
    assert loaded.chunks[len(loaded.chunks) - 1] == loaded.chunks[-1]
    # every name of every symbol map answers as the eagerly loaded table does
    eager_symbols = SymbolTable.load(folder / "symbols.msgpack")
    for table in ("defs", "defs_lower", "refs", "refs_norm"):
        names: dict[str, list[int]] = getattr(eager_symbols, table)
        assert names
        assert {k: loaded.symbols._lookup(table, k) for k in names} == names
        assert loaded.symbols._lookup(table, "no_such_name") == []
    eager = msgspec.msgpack.decode(
        (folder / "chunks.msgpack").read_bytes(), type=list[IndexedChunk]
    )
    assert [loaded.chunks[i] for i in range(len(eager))] == eager


def test_later_opens_frame_neither_the_symbol_table_nor_the_vocabulary(
    index: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With every map a search consults derived once, a later search reads the symbol
    maps and terms from their sorted copies only: walking the whole symbol table or
    the term list costs more than the search itself on a large repository."""
    root, rev = index
    folder = _folder(root)
    first = _answers(root, rev)
    decoded: list[int] = []
    real = msgspec.json.decode

    def counting(raw: bytes, **kw: object) -> object:
        decoded.append(len(raw))
        return real(raw, **kw)  # type: ignore[call-overload]

    monkeypatch.setattr(msgspec.json, "decode", counting)
    loaded = open_index(root, rev)
    retriever = HybridRetriever(loaded)
    again = [
        [(loaded.chunks[row].chunk_id, score) for row, score in retriever.search(q).ranked]
        for q in QUERIES
    ]
    assert again == first
    assert isinstance(loaded.symbols, StoredSymbols)
    assert "_raw" not in loaded.symbols.__dict__  # the table was never framed
    vocab_size = (folder / "lexical" / "vocab.json").stat().st_size
    assert vocab_size not in decoded  # nor vocab.json decoded whole
    meta = _read_meta((folder / "lexical" / "vocab.json").read_bytes(), verified=True)
    full = real((folder / "lexical" / "vocab.json").read_bytes())
    assert (meta.n_docs, meta.k1, meta.b) == (full["nDocs"], full["k1"], full["b"])
    assert loaded.lexical.n_docs == full["nDocs"]


def test_a_vocabulary_of_another_shape_or_unverified_is_decoded_whole() -> None:
    terms_first = b'{"terms":["a",",\\"terms\\":"],"nDocs":3,"k1":1.5,"b":0.5}'
    for verified in (True, False):
        meta = _read_meta(terms_first, verified=verified)
        assert (meta.n_docs, meta.k1, meta.b) == (3, 1.5, 0.5)
    with pytest.raises(msgspec.ValidationError):
        _read_meta(b'{"nDocs":3,"k1":1.5,"terms":[]}', verified=True)


def test_an_unverified_symbol_table_is_framed_at_once(index: tuple[Path, str]) -> None:
    root, _ = index
    path = _folder(root) / "symbols.msgpack"
    assert "_raw" in StoredSymbols(path.read_bytes()).__dict__
    with pytest.raises(msgspec.DecodeError):
        StoredSymbols(path.read_bytes()[:-3])
    # a verified one is framed when a map must be derived, damage reported then
    damaged = StoredSymbols(path.read_bytes()[:-3], lambda e: ValueError("damaged"), path, "0" * 64)
    with pytest.raises(ValueError, match="damaged"):
        damaged.definitions("handler_3")


@pytest.mark.parametrize(
    "damage",
    [
        "stale",  # derived from other bytes (another build's file)
        "truncated",
        "unframed",  # the right head, rows that do not frame the table
        "unwritable",  # a folder where the derived file cannot be written
    ],
)
def test_a_derived_file_that_cannot_be_trusted_is_derived_again(
    index: tuple[Path, str], damage: str
) -> None:
    root, rev = index
    folder = _folder(root)
    expected = _answers(root, rev)
    derived = [
        (folder / CHUNK_ENDS, "chunks.msgpack"),
        (folder / "lexical" / SORTED_TERMS, "lexical/vocab.json"),
        *((p, "symbols.msgpack") for p in sorted(folder.glob("symbols.*.sorted"))),
    ]
    assert len(derived) >= 3
    for path, source in derived:
        good = path.read_bytes()
        head = _head(_sha(folder, source))
        if damage == "stale":
            path.write_bytes(_head("0" * 64) + good[len(head) :])
        elif damage == "truncated":
            path.write_bytes(good[: len(head) + 12])
        elif damage == "unframed":
            payload = bytearray(good[len(head) :])
            payload[:8] = (999_999).to_bytes(8, "little")  # a count the rest does not hold
            path.write_bytes(head + bytes(payload))
        else:
            path.unlink()
            path.mkdir()
        assert _answers(root, rev) == expected
        if damage == "unwritable":
            assert path.is_dir()
            shutil.rmtree(path)
        else:
            assert path.read_bytes() == good  # derived again and kept


LOWER_PHRASES = [
    "could not rise",
    "k above",  # the Kelvin sign lowercases to an ASCII k
    "zmi",  # U+0130 lowercases to i + U+0307
    "temperature could not rise",
    "could not rise above zero",
    "raise valueerror('could",
    "273 k above",
    "could not open",
    "not open:",
    "def ",
    "nothing at all here",
]


def test_a_large_tables_lowered_bytes_are_kept_and_answer_as_scanning_every_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codegold.index import store
    from tests.index.test_lazy_store import PHRASES

    monkeypatch.setattr(store, "_LOWER_KEPT", 0)  # every table counts as large
    files = {**PHRASES, **{f"src/f{i}.py": f"def f{i}():\n    return {i}\n" for i in range(20)}}
    repo, (rev,) = make_repo(tmp_path / "repo", [files])
    with GitRepo(repo) as git:
        build_index(git, rev, tmp_path / "idx", policy=PathPolicy())
    folder = _folder(tmp_path / "idx")
    eager = msgspec.msgpack.decode(
        (folder / "chunks.msgpack").read_bytes(), type=list[IndexedChunk]
    )
    for phrase in LOWER_PHRASES:
        for limit in (1, 200):
            loaded = open_index(tmp_path / "idx", rev)  # a fresh process's view
            want = [i for i, c in enumerate(eager) if phrase in c.text.lower()][:limit]
            assert loaded.rows_containing(phrase, limit) == want, phrase
    kept = (folder / store.CHUNK_LOWER).read_bytes()
    assert (
        kept
        == _head(_sha(folder, "chunks.msgpack")) + (folder / "chunks.msgpack").read_bytes().lower()
    )
