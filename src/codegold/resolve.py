"""Resolve the chunks retrievers in the wild return into codegold's chunk contract.

A retriever outside codegold usually knows a chunk's file and text, sometimes its
lines, rarely its symbols and role. :class:`SpanResolver` locates such a chunk in the
file at the pinned revision (by its lines when it gives them, else by finding its
excerpt), then takes the symbols and role of that span from codegold's own parse of
the file. What the retriever did claim is kept in ``claim``, never overwritten: a
claim that disagrees with the parse is evidence for ``metadata_mismatch``.

A chunk that cannot be resolved (no such file at the revision, an excerpt that is not
in it, lines beyond its end) raises :class:`ChunkProblem` with the reason; callers
make that chunk's case invalid, never the run.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from codegold.attempts import Attempt, ChunkClaim, RetrievedChunk, asserted_manifest
from codegold.chunking import Chunk, ChunkerConfig, chunk_file
from codegold.chunking.config import role_for_file
from codegold.corpus.model import FileRole
from codegold.errors import InputError
from codegold.roles import Role

__all__ = ["ChunkProblem", "SpanResolver", "attempt_from_raw", "is_minimal", "normalise_path"]

_TOKEN = re.compile(r"\S+")
# The finest parse the chunker gives: every member of a container its own chunk and
# no definition cut into pieces, so that a span is named by the definitions it holds.
FINE_PARSE = ChunkerConfig(max_chunk_lines=1, long_definition_factor=10**6, min_member_lines=1)
# A chunk whose span, symbols and role the retriever gave needs no resolution.
_FULL = ("chunkId", "startLine", "endLine", "role", "repositoryRevision", "score")


class ChunkProblem(InputError):
    """Why one chunk could not be resolved (a one-line reason)."""


def is_minimal(raw: Mapping[str, Any]) -> bool:
    """Whether a raw chunk (attempt-format keys) lacks what evaluation needs."""
    return any(raw.get(key) is None for key in _FULL)


def normalise_path(path: str, root: str | None = None) -> str:
    """A repository-relative ``/`` path from what a retriever recorded: absolute paths
    under ``root`` lose it, ``./`` and backslashes are dropped."""
    p = path.replace("\\", "/")
    if root is not None:
        r = root.replace("\\", "/").rstrip("/") + "/"
        if p.startswith(r):
            p = p[len(r) :]
    while p.startswith("./"):
        p = p[2:]
    return p


@dataclass(frozen=True)
class _File:
    text: str
    line_starts: tuple[int, ...]
    chunks: tuple[Chunk, ...]
    file_role: FileRole
    tokens: tuple[tuple[int, int], ...] | None = None
    starts: tuple[int, ...] = ()  # the chunks' start lines (chunks sorted by start)
    longest: int = 0  # the longest chunk, in lines: bounds where an overlap can start

    @classmethod
    def parsed(cls, text: str, chunks: Sequence[Chunk], file_role: FileRole) -> _File:
        ordered = tuple(sorted(chunks, key=lambda c: (c.start_line, c.end_line)))
        return cls(
            text,
            _line_starts(text),
            ordered,
            file_role,
            starts=tuple(c.start_line for c in ordered),
            longest=max((c.end_line - c.start_line + 1 for c in ordered), default=0),
        )

    def overlapping(self, start: int, end: int) -> Sequence[Chunk]:
        """The chunks that overlap lines ``start``-``end``, in file order."""
        lo = bisect.bisect_left(self.starts, start - self.longest)
        hi = bisect.bisect_right(self.starts, end)
        return [c for c in self.chunks[lo:hi] if c.end_line >= start]

    @property
    def lines(self) -> int:
        return len(self.line_starts) - (1 if self.text.endswith("\n") else 0)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)


def _line_starts(text: str) -> tuple[int, ...]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    return tuple(starts)


class SpanResolver:
    """Resolves chunks of one repository against codegold's parse, file by file.

    ``read_text(revision, path)`` gives a file's text (None when there is no such
    file); ``file_role(revision, path, text)`` what the path policy classifies it as.
    Parses are cached per (revision, path).
    """

    def __init__(
        self,
        read_text: Callable[[str, str], str | None],
        file_role: Callable[[str, str, str], FileRole],
    ) -> None:
        self._read_text = read_text
        self._file_role = file_role
        self._files: dict[tuple[str, str], _File | None] = {}
        self.resolved = 0

    @classmethod
    def from_git(cls, git: Any, *, policy_path: Any = None) -> SpanResolver:
        """A resolver reading a :class:`~codegold.corpus.git.GitRepo` at each revision,
        with the path policy in force there (or the one at ``policy_path``)."""
        from codegold.corpus.policy import PathPolicy, load_policy

        policies: dict[str, PathPolicy] = {}

        def read_text(revision: str, path: str) -> str | None:
            data = git.read_path(revision, path)
            return None if data is None else data.decode("utf-8", errors="replace")

        def file_role(revision: str, path: str, text: str) -> FileRole:
            if revision not in policies:
                policies[revision] = load_policy(
                    repo=git, revision=revision, config_path=policy_path
                )
            head = text[:8192].encode("utf-8", errors="replace")
            return policies[revision].classify(path, head).role

        return cls(read_text, file_role)

    def _file(self, revision: str, path: str) -> _File | None:
        key = (revision, path)
        if key not in self._files:
            text = self._read_text(revision, path) if path else None
            if text is None:
                self._files[key] = None
            else:
                role = self._file_role(revision, path, text)
                chunks = chunk_file(path, text, file_role=role, config=FINE_PARSE).chunks
                self._files[key] = _File.parsed(text, chunks, role)
        return self._files[key]

    def resolve(self, raw: Mapping[str, Any], revision: str, *, rank: int) -> RetrievedChunk:
        """The chunk ``raw`` (attempt-format keys, any subset with ``file``) at
        ``revision``, its span, symbols and role from codegold's parse. ``rank``
        (1-based) names the chunk in a problem and makes a missing id."""
        path = raw.get("file")
        if not isinstance(path, str) or not path:
            raise ChunkProblem(f"chunk {rank} has no file")
        path = normalise_path(path)
        found = self._file(revision, path)
        if found is None and path.startswith("/"):
            # an absolute path from the machine that indexed: its longest tail that is
            # a file at the revision
            parts = path.strip("/").split("/")
            for i in range(1, len(parts)):
                tail = "/".join(parts[i:])
                found = self._file(revision, tail)
                if found is not None:
                    path = tail
                    break
        if found is None:
            raise ChunkProblem(f"chunk {rank}: {path} does not exist at {revision[:12]}")
        start, end = self._span(found, raw, path, rank)
        best, symbols = _parse_of_span(found.overlapping(start, end), start, end)
        role = best.role if best is not None else role_for_file(found.file_role, Role.DEFINITION)
        claim = _claim(raw)
        chunk_id = raw.get("chunkId")
        if not isinstance(chunk_id, str) or not chunk_id:
            chunk_id = _chunk_id(path, start, end)
        score = raw.get("score")
        self.resolved += 1
        return RetrievedChunk(
            chunk_id=chunk_id,
            file=path,
            start_line=start,
            end_line=end,
            role=role.value,
            repository_revision=revision,
            score=float(score) if isinstance(score, int | float) else 0.0,
            symbol=_primary(symbols) or (best.symbol if best is not None else None),
            symbols=tuple(symbols) or None,
            excerpt=raw.get("excerpt") if isinstance(raw.get("excerpt"), str) else None,
            resolved=True,
            claim=claim,
        )

    def _span(self, f: _File, raw: Mapping[str, Any], path: str, rank: int) -> tuple[int, int]:
        start, end = raw.get("startLine"), raw.get("endLine")
        if isinstance(start, int) and isinstance(end, int):
            if start < 1 or end < start:
                raise ChunkProblem(f"chunk {rank}: lines {start}-{end} are not a span")
            if end > f.lines:
                raise ChunkProblem(
                    f"chunk {rank}: lines {start}-{end} run past the end of {path} "
                    f"({f.lines} lines)"
                )
            return start, end
        excerpt = raw.get("excerpt")
        if not isinstance(excerpt, str) or not excerpt.strip():
            if raw.get("wholeFile") is True:  # a file-level document (TREC file docids)
                return 1, max(1, f.lines)
            symbol = raw.get("symbol")
            if isinstance(symbol, str) and symbol:  # a file#symbol document
                return _symbol_span(f, symbol, path, rank)
            raise ChunkProblem(f"chunk {rank}: needs startLine/endLine or an excerpt")
        hint = start if isinstance(start, int) else None
        located = _locate(f, excerpt, hint)
        if located is None:
            raise ChunkProblem(f"chunk {rank}: its excerpt is not in {path} at this revision")
        return located


def _symbol_span(f: _File, symbol: str, path: str, rank: int) -> tuple[int, int]:
    """The lines of the definition of ``symbol`` in the parse (all its pieces)."""
    from codegold.cases.match import symbol_matches

    spans = [
        (c.start_line, c.end_line)
        for c in f.chunks
        if c.role is not Role.CALL_SITE and symbol_matches(symbol, c.symbol, c.symbols)
    ]
    if not spans:
        raise ChunkProblem(f"chunk {rank}: {path} defines no {symbol!r} at this revision")
    first = min(spans)
    pieces = [s for s in sorted(spans) if s[0] >= first[0]]
    end = first[1]
    for start, stop in pieces:  # a definition cut in consecutive pieces
        if start <= end + 1:
            end = max(end, stop)
    return first[0], end


def _locate(f: _File, excerpt: str, hint: int | None) -> tuple[int, int] | None:
    """The 1-based line span of ``excerpt`` in the file: verbatim first, else with
    whitespace runs taken as equal (splitters re-join text). Of several places, the
    one nearest ``hint`` (a claimed start line), else the first."""
    needle = excerpt.strip()
    spots: list[tuple[int, int]] = []
    at = f.text.find(needle)
    while at != -1 and len(spots) < 64:
        spots.append((at, at + len(needle)))
        at = f.text.find(needle, at + 1)
    if not spots:
        spots = _locate_loose(f, needle)
    if not spots:
        return None
    if hint is not None:
        spots.sort(key=lambda s: (abs(f.line_of(s[0]) - hint), s[0]))
    begin, stop = spots[0]
    return f.line_of(begin), f.line_of(max(begin, stop - 1))


def _locate_loose(f: _File, needle: str) -> list[tuple[int, int]]:
    words = needle.split()
    if not words:
        return []
    tokens = f.tokens
    if tokens is None:
        tokens = tuple((m.start(), m.end()) for m in _TOKEN.finditer(f.text))
        object.__setattr__(f, "tokens", tokens)
    haystack_words = [f.text[a:b] for a, b in tokens]
    n = len(words)
    out: list[tuple[int, int]] = []
    for i in range(len(haystack_words) - n + 1):
        # interior words equal; the first may be cut at its start, the last at its end
        if not haystack_words[i].endswith(words[0]):
            continue
        if n > 1 and not haystack_words[i + n - 1].startswith(words[-1]):
            continue
        if n == 1 or haystack_words[i + 1 : i + n - 1] == words[1:-1]:
            first = tokens[i]
            last = tokens[i + n - 1]
            out.append((first[1] - len(words[0]), last[0] + len(words[-1])))
            if len(out) >= 64:
                break
    if n == 1 and not out:
        return []
    return out


def _parse_of_span(chunks: Sequence[Chunk], start: int, end: int) -> tuple[Chunk | None, list[str]]:
    """The parse chunk that best describes the span (largest overlap, then the
    smallest, then the first) and the symbols of every chunk the span covers at
    least half of, or that contains the span, in file order."""
    best: Chunk | None = None
    best_key: tuple[int, int, int] | None = None
    symbols: list[str] = []
    for c in chunks:  # in file order
        overlap = min(end, c.end_line) - max(start, c.start_line) + 1
        if overlap <= 0:
            continue
        size = c.end_line - c.start_line + 1
        key = (overlap, -size, -c.start_line)
        if best_key is None or key > best_key:
            best, best_key = c, key
        contains = c.start_line <= start and c.end_line >= end
        if contains or 2 * overlap >= size:
            for name in (c.symbol, *c.symbols):
                if name and name not in symbols:
                    symbols.append(name)
    return best, symbols


def _primary(symbols: list[str]) -> str | None:
    """The outermost of the span's symbols (fewest qualifiers), the first of equals."""
    if not symbols:
        return None
    return min(symbols, key=lambda s: (s.count("."), symbols.index(s)))


def _claim(raw: Mapping[str, Any]) -> ChunkClaim | None:
    def integer(key: str) -> int | None:
        value = raw.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def text(key: str) -> str | None:
        value = raw.get(key)
        return str(value) if value is not None and value != "" else None

    symbols = raw.get("symbols")
    listed = tuple(str(s) for s in symbols) if isinstance(symbols, list | tuple) else ()
    claim = ChunkClaim(
        start_line=integer("startLine"),
        end_line=integer("endLine"),
        symbol=text("symbol"),
        symbols=listed or None,
        role=text("role"),
    )
    return None if claim == ChunkClaim() else claim


def _chunk_id(path: str, start: int, end: int) -> str:
    digest = hashlib.sha256(f"{path}:{start}-{end}".encode()).hexdigest()[:12]
    return f"{path}:{start}-{end}#{digest}"


_SHA = re.compile(r"[0-9a-f]{40}")


def check_revision(value: str | None, *, field: str) -> str | None:
    """A full lower-case 40-hex SHA, or an InputError naming ``field``."""
    if value is None:
        return None
    if not _SHA.fullmatch(value):
        raise InputError(f"expects a full 40-hex commit SHA, got {value!r}", field=field)
    return value


@contextlib.contextmanager
def resolver_for(repo_path: Any) -> Iterator[SpanResolver | None]:
    """A git-backed resolver for the repository at ``repo_path`` (None: no resolver)."""
    if repo_path is None:
        yield None
        return
    from codegold.corpus.git import GitRepo

    with GitRepo(repo_path) as git:
        yield SpanResolver.from_git(git)


def attempt_from_raw(
    raw: dict[str, Any], resolver: SpanResolver | None, assume_revision: str | None
) -> Attempt | None:
    """An attempt whose chunks the strict decoder refused, rebuilt chunk by chunk.

    Minimal chunks are resolved; a chunk that cannot be (or a complete one that is
    malformed) becomes a reason in ``problems``. An unplaceable candidate is dropped:
    candidates are never scored. None when the attempt is malformed beyond its chunks,
    so that the caller reports the strict decoder's error.
    """
    ranked_raw = raw.get("ranked")
    candidates_raw = raw.get("candidates")
    if not isinstance(ranked_raw, list) or not all(isinstance(c, dict) for c in ranked_raw):
        return None
    if candidates_raw is not None and (
        not isinstance(candidates_raw, list) or not all(isinstance(c, dict) for c in candidates_raw)
    ):
        return None
    shell = {**raw, "ranked": [], "candidates": None if candidates_raw is None else []}
    try:
        attempt = msgspec.convert(shell, Attempt)
    except msgspec.ValidationError:
        return None
    index = attempt.index
    if index is None and assume_revision is not None:
        index = asserted_manifest(assume_revision, source="--assume-revision")
    revision = index.repository_revision if index is not None else None
    problems = list(attempt.problems or ())
    ranked = _chunks(ranked_raw, resolver, revision, problems)
    candidates = None
    if candidates_raw is not None:
        candidates = tuple(_chunks(candidates_raw, resolver, revision, []))
    return msgspec.structs.replace(
        attempt,
        ranked=tuple(ranked),
        candidates=candidates,
        index=index,
        problems=tuple(problems) or None,
    )


def _chunks(
    raws: list[dict[str, Any]],
    resolver: SpanResolver | None,
    revision: str | None,
    problems: list[str],
) -> list[RetrievedChunk]:
    out: list[RetrievedChunk] = []
    for rank, raw in enumerate(raws, start=1):
        if not is_minimal(raw):
            try:
                out.append(msgspec.convert(raw, RetrievedChunk))
            except msgspec.ValidationError as exc:
                detail, _, where = str(exc).partition(" - at `")
                field = where.rstrip("`").removeprefix("$.")
                problems.append(
                    f"chunk {rank}: {detail}" + (f" (field {field!r})" if field else "")
                )
            continue
        missing = [key for key in _FULL if raw.get(key) is None]
        if resolver is None:
            problems.append(
                f"chunk {rank} has no {'/'.join(missing)}: resolving it needs the repository"
                " (--repo)"
            )
            continue
        chunk_revision = raw.get("repositoryRevision") or revision
        if not isinstance(chunk_revision, str):
            problems.append(
                f"chunk {rank}: no revision to resolve it at (no index manifest; "
                "--assume-revision states one)"
            )
            continue
        try:
            out.append(resolver.resolve(raw, chunk_revision, rank=rank))
        except ChunkProblem as exc:
            problems.append(str(exc))
    return out
