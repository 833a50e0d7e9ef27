"""The on-disk index: one folder per build, switched in atomically.

::

    ROOT/
      cache.sqlite                 chunks and vectors by blob / content, shared by builds
      builds/<buildId>/            a complete build (manifest.json written last)
      builds/.tmp-<buildId>-<pid>/ a build in progress: never looks complete
      revisions/<sha>.json         which build serves a revision (replaced atomically)

A crash mid-build leaves only a ``.tmp-`` folder without a manifest; the pointer
still names the previous build, which stays usable.

The manifest records the size and SHA-256 of every other file of its build
(``files``). Opening a build checks them before anything is decoded: a truncated
or altered file is refused as :class:`DamagedIndex` (exit 3, naming the build and
the file), never half-read, and ``codegold index`` rebuilds over such a build.

Hashing 60 MB on every ``codegold search`` would cost more than the search, so a file
whose digest was checked once is remembered in ``verified.json`` beside the manifest
by its size, inode, modification and change times (as git's index does). Later opens
check every size and those stamps, and hash again only a file whose stamp differs:
any write to a file (a truncation, a flipped byte, a copy over it) moves its change
time, which no one can set back. A file changed less than :data:`SETTLED_NS` before
it was checked is never stamped (file times tick coarsely, so a write in the same
tick could hide), and a build whose folder cannot be written is hashed every time.

Chunks are decoded row by row, when a row is first read: ``chunks.msgpack`` is
memory-mapped, where each row ends is read from ``chunks.ends`` (derived from the
table's framing by the first open, see :mod:`codegold.index.derived`), and a search
decodes the few hundred rows it ranks, not every chunk text of the index.
"""

from __future__ import annotations

import contextlib
import hashlib
import heapq
import mmap
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, overload

import msgspec
import numpy as np
import numpy.typing as npt

from codegold._io import write_bytes_atomic, write_json_atomic
from codegold._lines import split_lines
from codegold._paths import by_file_name
from codegold.corpus.model import FileRole, FileStatus
from codegold.errors import EnvironmentProblem, InputError
from codegold.index._msgpack import array_header
from codegold.index.derived import read_derived, read_derived_map, write_derived
from codegold.index.lexical import BM25Builder, BM25Index
from codegold.index.manifest import IndexManifest
from codegold.index.symbols import StoredSymbols, SymbolTable
from codegold.index.tokenize import path_tokens, tokenize, word_tokens
from codegold.index.vectors import load_vectors

FORMAT_VERSION = "codegold-index/4"
MANIFEST = "manifest.json"
#: Which files of a build were hashed and found matching, by their stat (not listed in
#: the manifest: written after it, by whoever opened the build first).
VERIFIED = "verified.json"
#: A file changed this recently when it was hashed is not stamped (racy timestamps).
SETTLED_NS = 2_000_000_000
#: The row ends of chunks.msgpack (little-endian int64), derived from its framing by
#: the first search (see :mod:`codegold.index.derived`).
CHUNK_ENDS = "chunks.ends"
#: chunks.msgpack with ASCII letters lowercased, derived by the first phrase search of
#: a table this large (a smaller one is lowered in memory when a search needs it)
CHUNK_LOWER = "chunks.lower"
_LOWER_KEPT = 8 << 20


class DamagedIndex(EnvironmentProblem):
    """A build marked complete whose files do not match its manifest."""

    def __init__(self, folder: Path, file: str, what: str) -> None:
        self.folder = folder
        self.file = file
        root = folder.parent.parent
        super().__init__(
            f"index build {folder.name} under {root} is damaged: {file} {what} "
            f"(rebuild it: codegold index REPO --revision REV --out {root})"
        )


class FileDigest(msgspec.Struct, frozen=True):
    size: int
    sha256: str


class _ManifestFiles(msgspec.Struct):
    complete: bool = False
    files: dict[str, FileDigest] | None = None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def digest_files(
    folder: Path, known: Mapping[str, FileDigest] | None = None
) -> dict[str, FileDigest]:
    """Size and SHA-256 of every file under ``folder`` but the manifest, by relative path.

    ``known``: digests taken of files from the very bytes written to them (by relative
    path); such a file of the size recorded there is not read again."""
    out: dict[str, FileDigest] = {}
    known = known or {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.name != MANIFEST:
            rel = path.relative_to(folder).as_posix()
            size = path.stat().st_size
            taken = known.get(rel)
            if taken is not None and taken.size == size:
                out[rel] = taken
            else:
                out[rel] = FileDigest(size=size, sha256=_sha256(path))
    return out


def digest_pieces(pieces: Iterable[bytes]) -> FileDigest:
    """The :class:`FileDigest` of a file made of ``pieces`` written in order."""
    digest = hashlib.sha256()
    size = 0
    for piece in pieces:
        digest.update(piece)
        size += len(piece)
    return FileDigest(size=size, sha256=digest.hexdigest())


class _Stamp(msgspec.Struct, frozen=True, array_like=True):
    """What a file looked like when its digest last matched the manifest."""

    size: int
    inode: int
    mtime_ns: int
    ctime_ns: int
    sha256: str


class _Verified(msgspec.Struct):
    files: dict[str, _Stamp] = msgspec.field(default_factory=dict)


def _stamp(st: os.stat_result, sha256: str) -> _Stamp:
    return _Stamp(st.st_size, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, sha256)


def _read_verified(folder: Path) -> dict[str, _Stamp]:
    try:
        return msgspec.json.decode((folder / VERIFIED).read_bytes(), type=_Verified).files
    except (OSError, msgspec.DecodeError, msgspec.ValidationError):
        return {}  # none yet, unreadable or damaged: everything is hashed again


def verify_build(folder: Path) -> dict[str, FileDigest]:
    """Check every file the manifest lists against its recorded size and digest, and
    return those digests (none for an incomplete build).

    Sizes are checked every time; a file is hashed unless its stamp in
    ``verified.json`` shows it unchanged since its digest last matched.
    """
    raw = _read_manifest_bytes(folder)
    if raw is None:
        return {}
    try:
        listed = msgspec.json.decode(raw, type=_ManifestFiles)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise DamagedIndex(folder, MANIFEST, "is not a valid manifest") from None
    if not listed.complete:
        return {}
    if listed.files is None:
        raise DamagedIndex(folder, MANIFEST, "records no file digests (an older format)")
    known = _read_verified(folder)
    stamps: dict[str, _Stamp] = {}
    now = time.time_ns()
    for rel, expected in sorted(listed.files.items()):
        path = folder / rel
        try:
            st = path.stat()
        except FileNotFoundError:
            raise DamagedIndex(folder, rel, "is missing") from None
        except OSError as exc:
            raise DamagedIndex(folder, rel, f"cannot be read ({exc.strerror})") from None
        if st.st_size != expected.size:
            raise DamagedIndex(
                folder, rel, f"has {st.st_size} bytes where the manifest records {expected.size}"
            )
        stamp = _stamp(st, expected.sha256)
        if known.get(rel) == stamp:
            stamps[rel] = stamp
            continue
        try:
            actual = _sha256(path)
        except OSError as exc:
            raise DamagedIndex(folder, rel, f"cannot be read ({exc.strerror})") from None
        if actual != expected.sha256:
            raise DamagedIndex(folder, rel, "does not match its recorded SHA-256")
        if now - max(st.st_mtime_ns, st.st_ctime_ns) >= SETTLED_NS:
            stamps[rel] = stamp
    if stamps != known:
        with contextlib.suppress(OSError):  # a read-only index: hashed again next time
            write_bytes_atomic(folder / VERIFIED, msgspec.json.encode(_Verified(stamps)))
    return listed.files


class IndexedChunk(msgspec.Struct, frozen=True, array_like=True):
    """A chunk as stored: the chunker's output plus identity and provenance."""

    chunk_id: str
    file: str
    start_line: int
    end_line: int
    language: str
    kind: str
    role: str
    symbol: str | None
    symbols: tuple[str, ...]
    references: tuple[str, ...]
    text: str
    header: str
    blob: str
    file_role: str
    digest: str


class _ChunkHead(msgspec.Struct, frozen=True, array_like=True):
    """The leading fields of a stored chunk (the rest are skipped, not decoded)."""

    chunk_id: str
    file: str


CHUNKS = "chunks.msgpack"


class ChunkTable(Sequence[IndexedChunk]):
    """The chunks of a build, each decoded when it is first read.

    Opening reads only where each row of ``chunks.msgpack`` ends (derived from its
    framing once, then kept in ``chunks.ends``);
    ``table[row]`` decodes that row once. Iterating decodes every row at once (C speed),
    for the callers that walk the whole index.
    """

    def __init__(self, data: bytes | mmap.mmap, folder: Path, sha256: str | None = None) -> None:
        self._folder = folder
        self._data = data
        self._sha256 = sha256
        ends = _valid_ends(read_derived(folder / CHUNK_ENDS, sha256), len(data))
        if ends is None:
            try:
                framing = msgspec.msgpack.decode(data, type=list[msgspec.Raw])
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise self._damaged(exc) from None
            lengths = np.fromiter(map(len, framing), dtype=np.int64, count=len(framing))
            ends = len(data) - int(lengths.sum()) + np.cumsum(lengths)
            write_derived(folder / CHUNK_ENDS, sha256, ends.astype("<i8").tobytes())
        self._ends = ends
        self._first = len(array_header(len(ends)))  # where row 0 starts
        self._view = memoryview(data)
        self._rows: list[IndexedChunk | None] = [None] * len(ends)
        self._complete = False

    @classmethod
    def open(cls, folder: Path, sha256: str | None = None) -> ChunkTable:
        """The table of ``folder/chunks.msgpack``, memory-mapped read-only; ``sha256``
        (its verified digest) lets the row ends a previous open derived be reused."""
        with (folder / CHUNKS).open("rb") as handle:
            if os.fstat(handle.fileno()).st_size == 0:
                return cls(b"", folder)
            return cls(mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ), folder, sha256)

    def _raw(self, row: int) -> memoryview:
        """The stored bytes of ``row`` (one msgpack item)."""
        start = int(self._ends[row - 1]) if row else self._first
        return self._view[start : int(self._ends[row])]

    def _damaged(self, exc: Exception) -> DamagedIndex:
        return DamagedIndex(self._folder, CHUNKS, f"cannot be decoded ({type(exc).__name__})")

    def __len__(self) -> int:
        return len(self._ends)

    @property
    def decoded(self) -> int:
        """How many rows have been decoded so far."""
        return len(self._rows) if self._complete else sum(r is not None for r in self._rows)

    @overload
    def __getitem__(self, index: int) -> IndexedChunk: ...

    @overload
    def __getitem__(self, index: slice) -> list[IndexedChunk]: ...

    def __getitem__(self, index: int | slice) -> IndexedChunk | list[IndexedChunk]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._ends)))]
        if index < 0:
            index += len(self._rows)
        chunk = self._rows[index]
        if chunk is None:
            try:
                chunk = _CHUNK_DECODER.decode(self._raw(index))
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise self._damaged(exc) from None
            self._rows[index] = chunk
        return chunk

    def __iter__(self) -> Iterator[IndexedChunk]:
        return iter(self.all())

    def all(self) -> list[IndexedChunk]:
        """Every chunk, decoded (once) in one pass."""
        if not self._complete:
            try:
                rows = msgspec.msgpack.decode(self._data, type=list[IndexedChunk])
            except (msgspec.DecodeError, msgspec.ValidationError) as exc:
                raise self._damaged(exc) from None
            self._rows = list(rows)
            self._complete = True
        return self._rows  # type: ignore[return-value]

    @cached_property
    def _lowered(self) -> tuple[bytes | mmap.mmap, int]:
        """The stored bytes with ASCII letters lowercased (a buffer to ``find`` in) and
        where the table's first byte is in it. A large table's are derived once and
        kept beside it (:data:`CHUNK_LOWER`); a small one's are made here."""
        size = len(self._data)
        if self._keeps_lowered:
            kept = read_derived_map(self._folder / CHUNK_LOWER, self._sha256)
            if kept is not None and len(kept[0]) - kept[1] == size:
                return kept
            low = bytes(self._data).lower()
            write_derived(self._folder / CHUNK_LOWER, self._sha256, low)
            return low, 0
        return bytes(self._data).lower(), 0

    @property
    def _keeps_lowered(self) -> bool:
        return self._sha256 is not None and len(self._data) >= _LOWER_KEPT

    def _rows_holding(self, char: str) -> list[int]:
        """Rows whose stored bytes hold the non-ASCII ``char`` (a vectorised scan for
        its UTF-8 bytes: ``bytes.find`` is slow for a needle this short)."""
        code = char.encode()
        data = np.frombuffer(self._data, dtype=np.uint8)
        at = np.flatnonzero(data[: len(data) - len(code) + 1] == code[0])
        for i, byte in enumerate(code[1:], start=1):
            at = at[data[at + i] == byte]
        rows = np.unique(np.searchsorted(self._ends, at, side="right"))
        return [int(r) for r in rows if r < len(self._ends)]

    def rows_containing(self, phrase: str, limit: int) -> list[int] | None:
        """Rows whose lowercased text contains ``phrase``, in row order, at most
        ``limit``; None when only decoding every text can tell (a non-ASCII phrase).

        The lowered bytes find the candidate rows (every row whose text holds the
        phrase, and some whose other fields do); each is decoded and checked.
        """
        if not phrase.isascii() or "\0" in phrase:
            return None
        low, base = self._lowered
        ends = self._ends
        n = len(ends)

        def matches(needle: bytes) -> Iterator[int]:
            at = low.find(needle, base)
            while at != -1:
                row = int(np.searchsorted(ends, at - base, side="right"))
                if row >= n:
                    return
                yield row
                at = low.find(needle, base + int(ends[row]))

        found: list[Iterator[int]] = [matches(phrase.encode())]
        found += [iter(self._rows_holding(char)) for char in _lowering_into(phrase)]
        candidates = heapq.merge(*found)
        rows: list[int] = []
        for row in candidates:
            if len(rows) >= limit:
                break
            if (not rows or rows[-1] < row) and phrase in self[row].text.lower():
                rows.append(row)
        return rows

    def rows_among(self, rows: Iterable[int], phrase: str, limit: int) -> list[int]:
        """Those of ``rows`` (ascending) whose lowercased text contains the ASCII
        ``phrase``, at most ``limit``: a row's stored bytes, lowercased, say whether it
        is worth decoding (they hold the phrase, or one of the characters whose
        ``str.lower()`` holds ASCII), and only such a row is decoded and checked. A
        large table's lowered bytes are kept (:attr:`_lowered`), so each row is a
        bounded ``find`` in them; a small table's rows are lowered one by one."""
        needle = phrase.encode()
        odd = [char.encode() for char in _lowering_into(phrase)]
        found: list[int] = []
        if self._keeps_lowered:
            low, base = self._lowered
            data, ends = self._data, self._ends
            for row in rows:
                if len(found) >= limit:
                    break
                start = int(ends[row - 1]) if row else self._first
                end = int(ends[row])
                worth = low.find(needle, base + start, base + end) != -1 or any(
                    data.find(o, start, end) != -1 for o in odd
                )
                if worth and phrase in self[row].text.lower():
                    found.append(row)
            return found
        for row in rows:
            if len(found) >= limit:
                break
            raw = bytes(self._raw(row))
            worth = needle in raw.lower() or any(o in raw for o in odd)
            if worth and phrase in self[row].text.lower():
                found.append(row)
        return found

    @cached_property
    def heads(self) -> list[tuple[str, str]]:
        """Each row's (chunk id, file), without decoding texts."""
        if self._complete:
            return [(c.chunk_id, c.file) for c in self.all()]
        try:
            heads = msgspec.msgpack.decode(self._data, type=list[_ChunkHead])
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise self._damaged(exc) from None
        return [(h.chunk_id, h.file) for h in heads]


_CHUNK_DECODER = msgspec.msgpack.Decoder(IndexedChunk)


def _valid_ends(payload: memoryview | None, size: int) -> npt.NDArray[np.int64] | None:
    """Row ends read back from :data:`CHUNK_ENDS`, if they can frame a table of
    ``size`` bytes (ascending, the last at its end, after the array header)."""
    if payload is None or len(payload) % 8:
        return None
    ends = np.frombuffer(payload, dtype="<i8").astype(np.int64)
    if not len(ends):
        return None
    first = len(array_header(len(ends)))
    if int(ends[-1]) != size or int(ends[0]) <= first or np.any(np.diff(ends) <= 0):
        return None
    return ends


def _lowering_into(phrase: str) -> list[str]:
    """The characters outside ASCII whose ``str.lower()`` can make part of the ASCII
    ``phrase``: U+0130 lowers to "i" + U+0307 (so only a phrase ending in "i" can match
    through it) and the Kelvin sign to "k". A text holding the phrase once lowered holds
    it in its stored bytes lowered as ASCII, or holds one of these."""
    odd = []
    if phrase.endswith("i"):
        odd.append("\u0130")
    if "k" in phrase:
        odd.append("\u212a")
    return odd


#: Runs of word characters in a phrase, as the tokenizer's word pattern sees them, and
#: the runs that are one whole word to it (a letter then letters and digits, or digits).
_PHRASE_WORD = re.compile(r"[A-Za-z0-9_$]+")
_WHOLE_WORD = re.compile(r"[a-z][a-z0-9]*|[0-9]+")
#: A phrase is checked against the rows of its rarest inner word when that word is in
#: at most this many rows (or half of them), else against every text at once.
_ANCHOR_ROWS = 4096


class StoredInventoryEntry(msgspec.Struct, frozen=True, rename="camel"):
    path: str
    blob: str
    size: int
    status: FileStatus
    role: FileRole
    language: str | None = None
    rule: str | None = None
    chunks: int = 0


class _Pointer(msgspec.Struct, frozen=True, rename="camel"):
    build_id: str


@dataclass(frozen=True)
class IndexRoot:
    """Paths inside an index root folder."""

    root: Path

    @property
    def builds(self) -> Path:
        return self.root / "builds"

    @property
    def cache(self) -> Path:
        return self.root / "cache.sqlite"

    def build_dir(self, build_id: str) -> Path:
        return self.builds / build_id

    def pointer(self, revision: str) -> Path:
        return self.root / "revisions" / f"{revision}.json"

    def current_build(self, revision: str) -> str | None:
        pointer = self.pointer(revision)
        try:
            data = msgspec.json.decode(pointer.read_bytes(), type=_Pointer)
        except FileNotFoundError:
            return None
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            raise EnvironmentProblem(
                f"index {self.root}: revision pointer {pointer.name} is damaged "
                f"(rebuild it: codegold index REPO --revision {revision} --out {self.root})"
            ) from None
        return data.build_id

    def switch(self, revision: str, build_id: str) -> None:
        write_json_atomic(self.pointer(revision), {"buildId": build_id, "revision": revision})

    def revisions(self) -> list[str]:
        folder = self.root / "revisions"
        if not folder.is_dir():
            return []
        return sorted(p.stem for p in folder.glob("*.json"))

    def clean_stale_tmp(self) -> None:
        """Remove half-built folders left by builds that died (``.tmp-<build>-<pid>``).

        A folder whose process is still alive belongs to a build running beside this
        one (two runs sharing an index root) and is left alone.
        """
        import shutil  # (not at start-up: searches never clean)

        if self.builds.is_dir():
            for tmp in self.builds.glob(".tmp-*"):
                if not _builder_alive(tmp.name):
                    shutil.rmtree(tmp, ignore_errors=True)


def _builder_alive(name: str) -> bool:
    """Whether the process that named a ``.tmp-<build>-<pid>`` folder still runs."""
    _, _, pid_text = name.rpartition("-")
    if not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


FILE_LEXICAL = "files"


def chunk_body_tokens(chunk: IndexedChunk) -> list[str]:
    """A chunk's own tokens (text, header, names twice) without its path."""
    names: list[str] = []
    for name in chunk.symbols or ((chunk.symbol,) if chunk.symbol else ()):
        names.extend(tokenize(name.replace(".", " ")))
    return [*tokenize(chunk.text), *tokenize(chunk.header), *names, *names]


def _read_manifest_bytes(build_dir: Path) -> bytes | None:
    try:
        return (build_dir / MANIFEST).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DamagedIndex(build_dir, MANIFEST, f"cannot be read ({exc.strerror})") from None


def read_manifest(build_dir: Path) -> IndexManifest | None:
    """The build's manifest, None when it has none; a damaged one is :class:`DamagedIndex`."""
    raw = _read_manifest_bytes(build_dir)
    if raw is None:
        return None
    try:
        return msgspec.json.decode(raw, type=IndexManifest)
    except (msgspec.DecodeError, msgspec.ValidationError):
        raise DamagedIndex(build_dir, MANIFEST, "is not a valid manifest") from None


@dataclass
class LoadedIndex:
    """A complete build, loaded for querying and diagnosis."""

    folder: Path
    manifest: IndexManifest
    chunks: Sequence[IndexedChunk]
    lexical: BM25Index
    symbols: SymbolTable | StoredSymbols
    vectors: npt.NDArray[np.float32] | None
    config: dict[str, Any] = field(default_factory=dict)
    #: the verified size and SHA-256 of each file of the build (from its manifest)
    digests: dict[str, FileDigest] = field(default_factory=dict)

    @cached_property
    def inventory(self) -> list[StoredInventoryEntry]:
        try:
            raw = (self.folder / "inventory.json").read_bytes()
            return msgspec.json.decode(raw, type=list[StoredInventoryEntry])
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            raise DamagedIndex(self.folder, "inventory.json", "cannot be decoded") from None

    @cached_property
    def inventory_by_path(self) -> dict[str, StoredInventoryEntry]:
        return {e.path: e for e in self.inventory}

    @cached_property
    def rows_by_file(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for row, (_, path) in enumerate(self._heads):
            out.setdefault(path, []).append(row)
        return out

    @cached_property
    def row_of_id(self) -> dict[str, int]:
        return {chunk_id: i for i, (chunk_id, _) in enumerate(self._heads)}

    @property
    def _heads(self) -> list[tuple[str, str]]:
        chunks = self.chunks
        if isinstance(chunks, ChunkTable):
            return chunks.heads
        return [(c.chunk_id, c.file) for c in chunks]

    @property
    def revision(self) -> str:
        return self.manifest.repository_revision

    @cached_property
    def text_blob(self) -> tuple[str, list[int]]:
        """All chunk texts, lowercased and joined by NUL, with each chunk's start offset:
        exact phrase search (error messages, quoted strings) in one C-speed scan."""
        starts: list[int] = []
        parts: list[str] = []
        offset = 0
        for chunk in self.chunks:
            starts.append(offset)
            text = chunk.text.lower()
            parts.append(text)
            offset += len(text) + 1
        return "\0".join(parts), starts

    def file_text(self, path: str) -> str | None:
        """A file's text rebuilt from its chunks (enough for spans and excerpts), for
        when no repository is at hand; None for a file with no chunk."""
        rows = self.rows_by_file.get(path, [])
        if not rows:
            return None
        end = max(self.chunks[r].end_line for r in rows)
        lines = [""] * end
        for r in rows:
            chunk = self.chunks[r]
            for i, line in enumerate(split_lines(chunk.text)):
                if chunk.start_line - 1 + i < end:
                    lines[chunk.start_line - 1 + i] = line
        return "\n".join(lines)

    @cached_property
    def file_lexical(self) -> tuple[BM25Index, list[str]]:
        """BM25 over whole files (each file's chunk tokens together, its path once) and
        the file of each row. Builds write it (``files/``); an older build gets it
        made here from the chunks' text."""
        folder = self.folder / FILE_LEXICAL
        if (folder / "files.json").exists():
            files = msgspec.json.decode((folder / "files.json").read_bytes(), type=list[str])
            return BM25Index.load(folder, _sha(self.digests, f"{FILE_LEXICAL}/vocab.json")), files
        by_file: dict[str, list[str]] = {}
        for chunk in self.chunks:
            by_file.setdefault(chunk.file, []).extend(chunk_body_tokens(chunk))
        files = sorted(by_file)
        builder = BM25Builder()
        for path in files:
            builder.add([*by_file[path], *path_tokens(path)])
        return builder.finish(), files

    @cached_property
    def file_row(self) -> dict[str, int]:
        return {f: i for i, f in enumerate(self.file_lexical[1])}

    @cached_property
    def files_by_name(self) -> dict[str, tuple[str, ...]]:
        """The indexed files by file name (where a bare name in a trace may point)."""
        return by_file_name(self.file_row)

    def _anchored_rows(self, phrase: str) -> list[int] | None:
        """The rows that can hold ``phrase``, from the postings of one word inside it;
        None when no word can vouch for it (then every text is scanned).

        A word with a non-word character on both sides within the phrase (``not`` in
        ``could not solve``) is a whole word of any text holding the phrase, and BM25
        indexed every whole word of every text (lowercased, stemmed, stop words kept),
        so its postings hold every such row. Words with a ``k`` are passed over (the
        Kelvin sign lowercases to one), and so is a word too common to narrow much.
        """
        if not phrase.isascii():
            return None
        lexical = self.lexical
        best: tuple[int, int] | None = None
        for match in _PHRASE_WORD.finditer(phrase):
            word = match.group()
            if match.start() == 0 or match.end() == len(phrase) or "k" in word:
                continue
            if not _WHOLE_WORD.fullmatch(word) or (len(word) < 2 and not word.isdigit()):
                continue
            term = lexical.vocab.get(word_tokens(word)[0])
            if term is None:
                return []  # a whole word no text holds
            start, end = int(lexical.indptr[term]), int(lexical.indptr[term + 1])
            if best is None or end - start < best[1] - best[0]:
                best = (start, end)
        if best is None or best[1] - best[0] > max(_ANCHOR_ROWS, lexical.n_docs // 2):
            return None
        return sorted(lexical.rows[best[0] : best[1]].tolist())

    @cached_property
    def _phrase_rows(self) -> dict[str, tuple[int, list[int]]]:
        return {}

    def rows_containing(self, phrase: str, limit: int = 200) -> list[int]:
        """Rows whose text contains ``phrase`` (lowercase), in row order, at most ``limit``.

        Answers are kept per phrase: a search asks for a pasted message's phrase and
        then for its three-word runs, often the same words."""
        asked, rows = self._phrase_rows.get(phrase, (0, []))
        if limit <= asked or len(rows) < asked:
            return rows[:limit]
        rows = self._rows_containing(phrase, limit)
        self._phrase_rows[phrase] = (limit, rows)
        return rows

    def _rows_containing(self, phrase: str, limit: int) -> list[int]:
        import bisect

        anchored = self._anchored_rows(phrase)
        if anchored is not None:
            if isinstance(self.chunks, ChunkTable):
                return self.chunks.rows_among(anchored, phrase, limit)
            return [r for r in anchored if phrase in self.chunks[r].text.lower()][:limit]
        if isinstance(self.chunks, ChunkTable):
            found = self.chunks.rows_containing(phrase, limit)
            if found is not None:
                return found
        blob, starts = self.text_blob
        rows: list[int] = []
        at = blob.find(phrase)
        while at != -1 and len(rows) < limit:
            row = bisect.bisect_right(starts, at) - 1
            if not rows or rows[-1] != row:
                rows.append(row)
            next_start = starts[row + 1] if row + 1 < len(starts) else len(blob)
            at = blob.find(phrase, next_start)
        return rows


def _damaged_by(folder: Path, file: str) -> Callable[[Exception], Exception]:
    def damaged(exc: Exception) -> Exception:
        return DamagedIndex(folder, file, f"cannot be decoded ({type(exc).__name__})")

    return damaged


def _sha(digests: dict[str, FileDigest], rel: str) -> str | None:
    """The verified SHA-256 of a build's file ``rel`` (None: not listed)."""
    found = digests.get(rel)
    return found.sha256 if found else None


def load_build(folder: Path) -> LoadedIndex:
    """A complete build, every file checked against its manifest before it is decoded."""
    manifest = read_manifest(folder)
    if manifest is None or not manifest.complete:
        raise InputError(f"index build {folder} is incomplete (no complete manifest)")
    digests = verify_build(folder)
    reading = CHUNKS
    try:
        chunks = ChunkTable.open(folder, _sha(digests, CHUNKS))
        vectors = None
        if (folder / "vectors.npy").exists():
            reading = "vectors.npy"
            vectors = load_vectors(folder / reading)
        reading = "build.json"
        config = msgspec.json.decode((folder / reading).read_bytes())
        reading = "lexical"
        lexical = BM25Index.load(folder / reading, _sha(digests, "lexical/vocab.json"))
        reading = "symbols.msgpack"
        symbols = SymbolTable.open(
            folder / reading, _damaged_by(folder, reading), _sha(digests, reading)
        )
    except (OSError, ValueError, KeyError, msgspec.DecodeError, msgspec.ValidationError) as exc:
        # Digests matched, so the build was written wrong; still never a traceback.
        detail = exc.strerror if isinstance(exc, OSError) else type(exc).__name__
        raise DamagedIndex(folder, reading, f"cannot be decoded ({detail})") from None
    return LoadedIndex(
        folder=folder,
        manifest=manifest,
        chunks=chunks,
        lexical=lexical,
        symbols=symbols,
        vectors=vectors,
        config=config,
        digests=digests,
    )


def open_index(root: str | Path, revision: str | None = None) -> LoadedIndex:
    """The complete build serving ``revision`` (or the only revision) under ``root``."""
    where = IndexRoot(Path(root))
    if not where.root.is_dir() or not where.revisions():
        raise InputError(
            f"no codegold index at {root} (build one with: codegold index REPO --out {root})"
        )
    if revision is None:
        revisions = where.revisions()
        if len(revisions) != 1:
            raise InputError(
                f"index {root} holds {len(revisions)} revisions; name one with --revision"
            )
        revision = revisions[0]
    if len(revision) < 40:
        matches = [r for r in where.revisions() if r.startswith(revision.lower())]
        if len(matches) == 1:
            revision = matches[0]
    build_id = where.current_build(revision)
    if build_id is None:
        known = ", ".join(r[:12] for r in where.revisions()) or "none"
        raise InputError(f"index {root} has no build for revision {revision} (has: {known})")
    return load_build(where.build_dir(build_id))


class IndexCache:
    """The loaded index of each revision under one root, read at most once.

    One cache serves every stage of a command (retrieval, diagnosis, lint, tune), so a
    run loads each revision's build once. ``loads`` counts the builds actually read.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        self.loads = 0
        self._loaded: dict[str, LoadedIndex] = {}
        self._missing: dict[str, InputError] = {}

    def get(self, revision: str) -> LoadedIndex:
        """The index serving ``revision``; :class:`InputError` when there is no complete
        build (remembered until :meth:`forget`)."""
        loaded = self._loaded.get(revision)
        if loaded is not None:
            return loaded
        if revision in self._missing:
            raise self._missing[revision]
        try:
            loaded = open_index(self.root, revision)
        except InputError as exc:
            self._missing[revision] = exc
            raise
        self.loads += 1
        self._loaded[revision] = loaded
        return loaded

    def find(self, revision: str) -> LoadedIndex | None:
        """The index serving ``revision``, or None when it has no complete build."""
        try:
            return self.get(revision)
        except InputError:
            return None

    def forget(self, revision: str) -> None:
        """Drop what is known of ``revision`` (after building it)."""
        self._loaded.pop(revision, None)
        self._missing.pop(revision, None)
