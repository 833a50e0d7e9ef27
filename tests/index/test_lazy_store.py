"""Opening a build decodes only what a query reads, and still refuses a damaged build.

Chunks are decoded row by row, the symbol table name by name; digests are checked in
full the first time and then remembered by each file's stat (``verified.json``), so a
later change to any file (even one a search never reads) is still caught.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import msgspec
import pytest

from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index import store
from codegold.index.build import build_index
from codegold.index.store import (
    VERIFIED,
    ChunkTable,
    DamagedIndex,
    IndexedChunk,
    open_index,
    verify_build,
)
from codegold.index.symbols import SymbolTable
from codegold.retrieve.hybrid import HybridRetriever
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

SOURCE = {
    f"src/mod{i}.py": (
        f"def handler_{i}(request):\n    '''Handle request {i}.'''\n    return request\n\n\n"
        f"class Widget{i}:\n    def render(self):\n        return 'widget {i} failed to render'\n"
    )
    for i in range(12)
}
SOURCE["src/billing.py"] = "def charge(amount):\n    return amount * 2\n"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("lazy")
    repo, (rev,) = make_repo(root / "repo", [SOURCE])
    index = root / "idx"
    with GitRepo(repo) as git:
        build_index(git, rev, index, policy=PathPolicy())
    return repo, index, rev


def _build_folder(index: Path) -> Path:
    (folder,) = (p for p in (index / "builds").iterdir() if not p.name.startswith("."))
    return folder


def test_open_decodes_no_chunk_and_a_search_only_the_rows_it_reads(
    built: tuple[Path, Path, str],
) -> None:
    _, index, rev = built
    loaded = open_index(index, rev)
    chunks = loaded.chunks
    assert isinstance(chunks, ChunkTable)
    assert len(chunks) > 20 and chunks.decoded == 0
    result = HybridRetriever(loaded).search("where is charge computed")
    assert loaded.chunks[result.ranked[0][0]].symbol == "charge"
    assert 0 < chunks.decoded < len(chunks)


def test_lazy_rows_equal_the_eager_decode(built: tuple[Path, Path, str]) -> None:
    _, index, rev = built
    folder = _build_folder(index)
    eager = msgspec.msgpack.decode(
        (folder / "chunks.msgpack").read_bytes(), type=list[IndexedChunk]
    )
    lazy = open_index(index, rev).chunks
    assert [lazy[i] for i in range(len(lazy))] == eager
    assert lazy[-1] == eager[-1] and lazy[2:5] == eager[2:5] and lazy[::7] == eager[::7]
    with pytest.raises(IndexError):
        lazy[len(eager)]
    fresh = open_index(index, rev)
    assert fresh.rows_by_file == {
        f: [i for i, c in enumerate(eager) if c.file == f] for f in {c.file for c in eager}
    }
    assert fresh.row_of_id == {c.chunk_id: i for i, c in enumerate(eager)}
    assert fresh.chunks.decoded == 0  # file and id columns need no chunk text
    assert list(fresh.chunks) == eager and fresh.chunks.decoded == len(eager)


def test_lazy_symbols_answer_every_name_like_the_eager_table(
    built: tuple[Path, Path, str],
) -> None:
    _, index, _ = built
    path = _build_folder(index) / "symbols.msgpack"
    eager = SymbolTable.load(path)
    lazy = SymbolTable.open(path)
    names = {*eager.defs, *eager.refs, "Handler_3", "WIDGET2.RENDER", "x.render", "nope"}
    for name in sorted(names):
        assert lazy.definitions(name) == eager.definitions(name), name
        assert lazy.definitions_ci(name) == eager.definitions_ci(name), name
        assert lazy.references(name) == eager.references(name), name


def _copy_index(index: Path, to: Path) -> Path:
    import shutil

    shutil.copytree(index, to)
    return _build_folder(to)


def test_stamps_skip_hashing_until_a_file_changes(
    built: tuple[Path, Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, index, _ = built
    folder = _copy_index(index, tmp_path / "idx")
    hashed: list[str] = []
    real = store._sha256

    def counting(path: Path) -> str:
        hashed.append(path.relative_to(folder).as_posix())
        return real(path)

    monkeypatch.setattr(store, "_sha256", counting)
    listed = json.loads((folder / "manifest.json").read_text())["files"]

    # copied just now: too fresh to stamp (a write in the same clock tick could hide)
    verify_build(folder)
    assert sorted(hashed) == sorted(listed)
    assert not (folder / VERIFIED).exists()

    monkeypatch.setattr(store, "SETTLED_NS", 0)
    hashed.clear()
    verify_build(folder)
    assert sorted(hashed) == sorted(listed)
    stamped = json.loads((folder / VERIFIED).read_text())["files"]
    assert sorted(stamped) == sorted(listed)
    hashed.clear()
    verify_build(folder)
    assert hashed == []

    time.sleep(0.05)  # past the file clock's tick
    data = bytearray((folder / "inventory.json").read_bytes())
    data[-2] ^= 0x01
    (folder / "inventory.json").write_bytes(bytes(data))
    with pytest.raises(DamagedIndex, match=r"inventory\.json does not match its recorded SHA-256"):
        verify_build(folder)
    assert hashed == ["inventory.json"]


def test_a_damaged_stamp_file_only_means_hashing_again(
    built: tuple[Path, Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, index, rev = built
    folder = _copy_index(index, tmp_path / "idx")
    monkeypatch.setattr(store, "SETTLED_NS", 0)
    verify_build(folder)
    (folder / VERIFIED).write_bytes(b"{not json")
    open_index(tmp_path / "idx", rev)  # hashed again, found intact, stamped again
    assert json.loads((folder / VERIFIED).read_text())["files"]


def test_search_after_the_stamps_still_refuses_a_later_flip(
    built: tuple[Path, Path, str], tmp_path: Path
) -> None:
    _, index, _ = built
    folder = _copy_index(index, tmp_path / "idx")
    time.sleep(store.SETTLED_NS / 1e9 + 0.1)
    first = run_cli("search", "charge", "--index", str(tmp_path / "idx"))
    assert first.returncode == 0, first.stderr
    assert "inventory.json" in json.loads((folder / VERIFIED).read_text())["files"]
    data = bytearray((folder / "inventory.json").read_bytes())
    data[10] ^= 0x01  # a byte inside a path: still valid JSON, a search never reads it
    (folder / "inventory.json").write_bytes(bytes(data))
    refused = run_cli("search", "charge", "--index", str(tmp_path / "idx"))
    assert refused.returncode == 3, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert folder.name in line and "inventory.json" in line and "rebuild" in line


def test_a_row_that_does_not_decode_is_a_clear_error_when_read(
    built: tuple[Path, Path, str], tmp_path: Path
) -> None:
    _, index, _ = built
    folder = _copy_index(index, tmp_path / "idx")
    rows = msgspec.msgpack.decode((folder / "chunks.msgpack").read_bytes())
    row = next(i for i, r in enumerate(rows) if r[7] == "charge")
    rows[row][2] = "not a line number"
    data = msgspec.msgpack.encode(rows)
    (folder / "chunks.msgpack").write_bytes(data)
    # digests that match: the build was written wrong, not damaged afterwards
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["files"]["chunks.msgpack"] = {
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
    }
    (folder / "manifest.json").write_text(json.dumps(manifest))
    refused = run_cli("search", "charge", "--index", str(tmp_path / "idx"))
    assert refused.returncode == 3, refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert "chunks.msgpack" in line and "cannot be decoded" in line and "Traceback" not in line


PHRASES = {
    "src/units.py": "def kelvin():\n    return '273 \u212a above zero, TEMPERATURE Could Not Rise'\n",
    "src/turkish.py": "def city():\n    return '\u0130stanbul and \u0130zm\u0130r'\n",
    "src/accents.py": "def caf\u00e9():\n    return 'Caf\u00e9 could not open: \u00c9T\u00c9'\n",
    "src/plain.py": "def rise():\n    raise ValueError('could not rise above zero')\n",
}


def _eager_rows(chunks: list[IndexedChunk], phrase: str, limit: int) -> list[int]:
    return [i for i, c in enumerate(chunks) if phrase in c.text.lower()][:limit]


@pytest.mark.parametrize(
    "phrase",
    [
        "could not rise",
        "k above",  # the Kelvin sign lowercases to an ASCII k
        "zmi",  # U+0130 lowercases to i + U+0307: "zm\u0130r" holds "zmi"
        "i\u0307stanbul",
        "caf\u00e9 could",
        "\u00e9t\u00e9",
        "Could Not",  # an uppercase phrase matches nothing (texts are lowercased)
        "def ",
        "return",
        "nothing at all here",
        # a word inside the phrase narrows the rows to its postings (then each is checked)
        "temperature could not rise",
        "could not rise above zero",
        "raise valueerror('could",
        "273 k above",  # the only inner word holds a k: every text is scanned
        "return 'caf",
        "could not open",
        "not open:",
        "valueerror('could not rise above zero')",
    ],
)
def test_phrase_rows_from_the_stored_bytes_equal_scanning_every_text(
    tmp_path: Path, phrase: str
) -> None:
    repo, (rev,) = make_repo(tmp_path / "repo", [PHRASES])
    with GitRepo(repo) as git:
        build_index(git, rev, tmp_path / "idx", policy=PathPolicy())
    loaded = open_index(tmp_path / "idx", rev)
    eager = msgspec.msgpack.decode(
        (_build_folder(tmp_path / "idx") / "chunks.msgpack").read_bytes(), type=list[IndexedChunk]
    )
    for limit in (1, 2, 200):
        assert loaded.rows_containing(phrase, limit) == _eager_rows(eager, phrase, limit)
    if phrase == "nothing at all here":
        assert loaded.chunks.decoded == 0  # found in no stored byte: no row decoded


def test_a_phrase_is_checked_only_against_the_rows_of_a_word_inside_it(tmp_path: Path) -> None:
    files = dict(PHRASES)
    files.update({f"src/filler{i}.py": f"def f{i}():\n    return {i}\n" for i in range(30)})
    repo, (rev,) = make_repo(tmp_path / "repo", [files])
    with GitRepo(repo) as git:
        build_index(git, rev, tmp_path / "idx", policy=PathPolicy())
    loaded = open_index(tmp_path / "idx", rev)
    (row,) = loaded.rows_containing("could not rise above zero", 10)
    assert loaded.chunks[row].file == "src/plain.py"
    # "rise" and "above" are in two files' chunks only: those rows were read, and the
    # whole table was never lowercased for a scan
    assert loaded.chunks.decoded <= 4
    assert "_lowered" not in vars(loaded.chunks)
    assert loaded.rows_containing("could not rise above zero", 1) == [row]
    assert loaded.rows_containing("could xyzzy rise", 10) == []  # no text holds "xyzzy"


SEARCH_PROBE = """
import atexit, runpy, sys
report = sys.argv[1]
sys.argv = ["codegold", *sys.argv[2:]]
atexit.register(lambda: open(report, "w").write("\\n".join(sorted(sys.modules))))
runpy.run_module("codegold", run_name="__main__", alter_sys=True)
"""


def test_a_search_imports_no_temp_files_or_archive_modules(
    built: tuple[Path, Path, str], tmp_path: Path
) -> None:
    """A search of a build whose derived files are kept writes nothing, so it leaves
    tempfile and shutil (and the random and compression modules they pull in)
    unimported: a search is mostly start-up."""
    import subprocess
    import sys

    _, index, _ = built
    report = tmp_path / "modules.txt"
    argv = [sys.executable, "-c", SEARCH_PROBE, str(report), "search", "handler_3"]
    for _ in range(2):  # the first derives and keeps the files the second reads
        done = subprocess.run(
            [*argv, "--index", str(index), "--embedder", "none"],
            check=True,
            capture_output=True,
            text=True,
        )
    assert "handler_3" in done.stdout
    modules = set(report.read_text().split())
    assert "codegold.retrieve.hybrid" in modules  # it did search
    assert sorted(m for m in ("tempfile", "shutil", "bz2", "lzma", "random") if m in modules) == []
