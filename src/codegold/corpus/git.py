"""Read a git repository at a pinned revision, from its object database only.

:class:`GitRepo` wraps a normal or a bare repository. Every read goes through git's
object store (``rev-parse``, ``ls-tree``, ``cat-file``) with an explicit ``--git-dir``:
the working tree, the index, uncommitted edits and untracked files are never
consulted, so what codegold indexes is exactly the commit it records.

Blob contents stream through long-lived ``git cat-file --batch`` processes (one per
concurrent reader, reused between calls); a writer thread feeds requests so that a
large read can never deadlock on full pipes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Generator, Iterable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import TracebackType
from typing import IO, Final

from codegold.corpus.attributes import ATTRIBUTES_FILE, GitAttributes, parse_gitattributes
from codegold.corpus.model import FileEntry
from codegold.errors import EnvironmentProblem, InputError

__all__ = [
    "MISSING_OBJECT",
    "MODE_GITLINK",
    "MODE_SYMLINK",
    "NAME_COLLISION",
    "GitRepo",
    "decode_path",
    "unsafe_path",
]

MODE_SYMLINK: Final = "120000"
MODE_GITLINK: Final = "160000"

# FileEntry.problem values (unsafe paths carry their own "unsafe-path:..." text).
MISSING_OBJECT: Final = "missing-object"
NAME_COLLISION: Final = "non-utf8-name-collision"

_OBJECT_ID = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")
# Environment variables that would redirect git to another repository, index or
# object store (set, for instance, when codegold runs inside a git hook).
_DROPPED_ENV_PREFIX = "GIT_"
_PIPE_BUFFER = 1 << 16


def _git_executable() -> str:
    found = shutil.which("git")
    if found is None:
        raise EnvironmentProblem(
            "git is not installed or not on PATH; codegold reads repositories with it"
        )
    return found


def _clean_env(*, isolate_system_config: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(_DROPPED_ENV_PREFIX)}
    env["LC_ALL"] = "C"
    env["LANGUAGE"] = "C"
    # `git replace` refs would substitute objects: read the commit as it really is.
    env["GIT_NO_REPLACE_OBJECTS"] = "1"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_OPTIONAL_LOCKS"] = "0"
    if isolate_system_config:
        env["GIT_CONFIG_NOSYSTEM"] = "1"
    return env


def decode_path(raw: bytes) -> tuple[str, bool]:
    """A tree path as text, and whether it had to be escaped.

    Valid UTF-8 decodes as is. Anything else keeps its valid parts and spells each
    undecodable byte as ``\\xNN`` (Python's ``backslashreplace``), the same way on
    every read, so such a file is indexed, cached, written to JSON and looked up
    again under one stable name.
    """
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return raw.decode("utf-8", "backslashreplace"), True


def unsafe_path(path: str) -> str | None:
    """Why a tree path must never be returned, or None when it is an ordinary path.

    git stores any tree it is handed (``git mktree``), but refuses to check out an
    entry named ``..``, ``.`` or ``.git`` (in any case, with or without trailing dots
    or spaces, which some file systems drop); codegold treats them the same way.
    """
    for part in path.split("/"):
        if part in ("", ".", ".."):
            return f"unsafe-path:{part or 'empty'}-component"
        if part.rstrip(". ").casefold() == ".git" or part.casefold() == "git~1":
            return "unsafe-path:.git-component"
    return None


class _CatFile:
    """One ``git cat-file --batch`` (or ``--batch-check``) process."""

    def __init__(self, argv: list[str], env: dict[str, str], *, check_only: bool) -> None:
        self.check_only = check_only
        # Lives as long as the process; a file, not a pipe, so git can never block on it.
        self._stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115
        mode = "--batch-check" if check_only else "--batch"
        self._proc = subprocess.Popen(
            [*argv, "cat-file", mode],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            env=env,
            bufsize=_PIPE_BUFFER,
        )
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._stdin: IO[bytes] = self._proc.stdin
        self._stdout: IO[bytes] = self._proc.stdout

    def _fail(self, what: str) -> EnvironmentProblem:
        self.kill()
        self._stderr.seek(0)
        detail = self._stderr.read().decode("utf-8", "replace").strip()
        return EnvironmentProblem(
            f"git cat-file failed while reading {what}: {detail or 'no output'}"
        )

    def read_header(self, name: str) -> tuple[str, str, int] | None:
        """One response header: ``(object id, type, size)``, or None when missing."""
        line = self._stdout.readline()
        if not line.endswith(b"\n"):
            raise self._fail(name)
        parts = line[:-1].split(b" ")
        if len(parts) == 3:
            return parts[0].decode("ascii"), parts[1].decode("ascii"), int(parts[2])
        if parts[-1] in (b"missing", b"ambiguous"):
            return None
        raise self._fail(name)

    def read_body(self, size: int, name: str) -> bytes:
        data = self._stdout.read(size + 1)
        if len(data) != size + 1:
            raise self._fail(name)
        return data[:-1]

    def ask(self, name: bytes) -> tuple[str, str, bytes] | None:
        """One request, one response: ``(object id, type, content)`` or None when missing.

        In ``--batch-check`` mode the content is empty.
        """
        try:
            self._stdin.write(name + b"\n")
            self._stdin.flush()
        except BrokenPipeError:
            raise self._fail(repr(name)) from None
        header = self.read_header(repr(name))
        if header is None:
            return None
        oid, kind, size = header
        return oid, kind, b"" if self.check_only else self.read_body(size, repr(name))

    def feed(self, names: list[bytes]) -> threading.Thread:
        """Write many requests from a thread while the caller reads responses."""
        payload = b"".join(n + b"\n" for n in names)

        def write() -> None:
            try:
                self._stdin.write(payload)
                self._stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass  # the reader notices the dead process and reports it

        thread = threading.Thread(target=write, name="codegold-cat-file-writer", daemon=True)
        thread.start()
        return thread

    def alive(self) -> bool:
        return self._proc.poll() is None

    def kill(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
        self._proc.wait()
        for stream in (self._stdin, self._stdout, self._stderr):
            with contextlib.suppress(OSError):
                stream.close()

    def close(self) -> None:
        if self._proc.poll() is None:
            with contextlib.suppress(OSError):
                self._stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
        self.kill()


def _close_pool(idle: dict[bool, list[_CatFile]]) -> None:
    for kind in idle:
        while idle[kind]:
            idle[kind].pop().close()


class GitRepo:
    """A normal or bare git repository, read at pinned revisions only.

    Use as a context manager (or call :meth:`close`) to stop the ``cat-file``
    processes it keeps. One instance may be shared by threads: each concurrent reader
    gets its own ``cat-file`` process.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._git = _git_executable()
        if not self.path.is_dir():
            raise InputError(f"repository {str(self.path)!r} is not a directory")
        probe = subprocess.run(
            [
                self._git,
                "-C",
                str(self.path),
                "rev-parse",
                "--absolute-git-dir",
                "--is-bare-repository",
            ],
            capture_output=True,
            env=_clean_env(isolate_system_config=False),
            check=False,
        )
        if probe.returncode != 0:
            lines = [ln.strip() for ln in probe.stderr.decode("utf-8", "replace").splitlines()]
            fatal = [ln.removeprefix("fatal: ") for ln in lines if ln.startswith("fatal:")]
            detail = "; ".join(fatal) or (lines[-1] if lines else "")
            if "dubious ownership" in detail:
                # The repository is fine; this machine's git refuses it.
                raise EnvironmentProblem(
                    f"git refuses to read {str(self.path)!r}: {detail} "
                    f"(allow it with: git config --global --add safe.directory {self.path})"
                )
            raise InputError(
                f"{str(self.path)!r} is not a readable git repository"
                + (f": {detail}" if detail else "")
            )
        git_dir, bare = probe.stdout.decode("utf-8", "surrogateescape").splitlines()[:2]
        self.git_dir = Path(git_dir)
        self.is_bare = bare.strip() == "true"
        self._env = _clean_env(isolate_system_config=True)
        self._argv = [self._git, f"--git-dir={self.git_dir}", "-c", "core.quotepath=off"]
        self._pool_lock = threading.Lock()
        self._idle: dict[bool, list[_CatFile]] = {False: [], True: []}
        self._resolved: dict[str, str] = {}
        # A repo that is never closed still stops its processes when collected.
        self._finalizer = weakref.finalize(self, _close_pool, self._idle)

    # -- lifecycle -------------------------------------------------------------

    def __enter__(self) -> GitRepo:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the idle ``cat-file`` processes (new ones start on the next read)."""
        with self._pool_lock:
            _close_pool(self._idle)

    def __repr__(self) -> str:
        return f"GitRepo({str(self.path)!r}, bare={self.is_bare})"

    # -- plumbing --------------------------------------------------------------

    def _run(self, *args: str, ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[bytes]:
        done = subprocess.run([*self._argv, *args], capture_output=True, env=self._env, check=False)
        if done.returncode not in ok:
            detail = done.stderr.decode("utf-8", "replace").strip()
            raise EnvironmentProblem(f"git {args[0]} failed in {str(self.path)!r}: {detail}")
        return done

    def _acquire(self, check_only: bool) -> _CatFile:
        with self._pool_lock:
            while self._idle[check_only]:
                proc = self._idle[check_only].pop()
                if proc.alive():
                    return proc
                proc.kill()
        return _CatFile(self._argv, self._env, check_only=check_only)

    def _release(self, proc: _CatFile) -> None:
        with self._pool_lock:
            if proc.alive() and not self._idle[proc.check_only]:
                self._idle[proc.check_only].append(proc)
                return
        proc.close()

    def _ask(self, name: str, *, check_only: bool = False) -> tuple[str, str, bytes] | None:
        proc = self._acquire(check_only)
        try:
            answer = proc.ask(name.encode("utf-8", "surrogateescape"))
        except BaseException:
            proc.kill()
            raise
        self._release(proc)
        return answer

    # -- revisions -------------------------------------------------------------

    def resolve(self, rev: str) -> str:
        """The full object id of the commit ``rev`` names (``rev^{commit}``)."""
        cached = self._resolved.get(rev)
        if cached is not None:
            return cached
        if not rev or rev.startswith("-") or any(c in rev for c in "\n\r\0"):
            raise InputError(f"unknown revision {rev!r} in repository {str(self.path)!r}")
        done = self._run("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}", ok=(0, 1, 128))
        sha = done.stdout.decode("ascii", "replace").strip()
        if done.returncode != 0 or not _OBJECT_ID.fullmatch(sha):
            raise InputError(
                f"unknown revision {rev!r} in repository {str(self.path)!r} "
                "(not a commit reachable in its object database)"
            )
        self._resolved[rev] = sha
        return sha

    def commit_time(self, rev: str) -> datetime:
        """The committer date of ``rev``, timezone-aware."""
        sha = self.resolve(rev)
        answer = self._ask(sha)
        if answer is None:  # pragma: no cover - resolve() proved it exists
            raise InputError(f"unknown revision {rev!r} in repository {str(self.path)!r}")
        header = answer[2].split(b"\n\n", 1)[0]
        for line in header.split(b"\n"):
            if line.startswith(b"committer "):
                _, stamp, offset = line.rsplit(b" ", 2)
                sign = -1 if offset.startswith(b"-") else 1
                minutes = int(offset[1:3]) * 60 + int(offset[3:5])
                zone = timezone(timedelta(minutes=sign * minutes))
                return datetime.fromtimestamp(int(stamp), tz=zone)
        raise EnvironmentProblem(f"commit {sha} has no committer line")  # pragma: no cover

    def uncommitted(self) -> list[str]:
        """Tracked files whose working-tree or staged content differs from HEAD (empty
        for a bare repository). codegold never reads them; a note says so."""
        if self.is_bare:
            return []
        done = subprocess.run(
            [
                self._git,
                "-C",
                str(self.path),
                "status",
                "--porcelain",
                "-z",
                "--untracked-files=no",
            ],
            capture_output=True,
            env=self._env,
            check=False,
        )
        if done.returncode != 0:
            return []  # a work tree git cannot read is not what this note is about
        entries = done.stdout.decode("utf-8", "surrogateescape").split("\0")
        out: list[str] = []
        skip = False
        for entry in entries:
            if skip:  # the source path of a rename
                skip = False
                continue
            if len(entry) > 3:
                out.append(entry[3:])
                skip = entry[0] in "RC"
        return sorted(out)

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        """Whether ``ancestor`` is reachable from ``descendant`` (a commit is its own ancestor)."""
        a, d = self.resolve(ancestor), self.resolve(descendant)
        done = self._run("merge-base", "--is-ancestor", a, d, ok=(0, 1))
        return done.returncode == 0

    def count_commits(self, base: str, tip: str) -> int:
        """How many commits ``tip`` has that ``base`` lacks (``git rev-list --count``)."""
        b, t = self.resolve(base), self.resolve(tip)
        done = self._run("rev-list", "--count", f"{b}..{t}")
        return int(done.stdout.strip() or b"0")

    def renames(self, old: str, new: str) -> dict[str, str]:
        """Files renamed between two commits: ``{old path: new path}``.

        git's own rename detection (``diff --find-renames=50%``) on the two trees,
        so a file moved with small edits counts; nothing else (modes, copies) does.
        """
        a, b = self.resolve(old), self.resolve(new)
        if a == b:
            return {}
        done = self._run(
            "diff",
            "--no-ext-diff",
            "--no-textconv",
            "--find-renames=50%",
            "--name-status",
            "-z",
            a,
            b,
        )
        fields = done.stdout.split(b"\0")
        out: dict[str, str] = {}
        i = 0
        while i < len(fields) and fields[i]:
            status = fields[i]
            if status[:1] in (b"R", b"C"):
                if status[:1] == b"R":
                    src, dst = fields[i + 1], fields[i + 2]
                    out[src.decode("utf-8", "surrogateescape")] = dst.decode(
                        "utf-8", "surrogateescape"
                    )
                i += 3
            else:
                i += 2
        return out

    # -- trees and blobs -------------------------------------------------------

    def list_files(self, rev: str, *, submodules: bool = False) -> list[FileEntry]:
        """Every blob path in the commit's tree, sorted as git sorts them.

        Symlinks are listed (mode ``120000``; their blob is the link target); the
        caller decides what to do with them. Submodules (gitlinks, mode ``160000``)
        are skipped unless ``submodules`` is true; their ``blob`` is then the pinned
        commit id and their size 0.
        """
        sha = self.resolve(rev)
        done = self._run("ls-tree", "-r", "-z", "-l", "--full-tree", sha)
        entries: list[FileEntry] = []
        for record in done.stdout.split(b"\0"):
            if not record:
                continue
            meta, _, raw_path = record.partition(b"\t")
            mode, kind, obj, size = meta.split()
            if kind == b"commit":
                if not submodules:
                    continue
                size = b"0"
            elif kind != b"blob":  # pragma: no cover - ls-tree -r lists no trees
                continue
            path, escaped = decode_path(raw_path)
            problem = unsafe_path(path)
            if problem is None and not size.isdigit():
                # `ls-tree -l` prints BAD when the object is not in the database
                # (a partial clone, a damaged snapshot): list it, never read it.
                problem = MISSING_OBJECT
            entries.append(
                FileEntry(
                    path=path,
                    blob=obj.decode("ascii"),
                    size=int(size) if size.isdigit() else 0,
                    mode=mode.decode("ascii"),
                    problem=problem,
                    escaped=escaped,
                )
            )
        if any(e.escaped for e in entries):
            # An escaped non-UTF-8 name that spells another entry's real name (a file
            # literally called "caf\\xe9.py"): the real name keeps it.
            real = {e.path for e in entries if not e.escaped}
            entries = [
                dataclasses.replace(e, problem=NAME_COLLISION)
                if e.escaped and e.path in real
                else e
                for e in entries
            ]
        return entries

    def read_blobs(self, shas: Iterable[str]) -> Generator[tuple[str, bytes], None, None]:
        """Stream ``(sha, content)`` for each object id, in the order given.

        One ``cat-file --batch`` process serves the whole iteration; requests are
        written from a thread so that neither pipe can fill up and stall git. A
        missing object raises :class:`~codegold.errors.InputError`. Abandoning the
        iterator early is safe (its process is stopped, not reused).
        """
        names = list(shas)
        if not names:
            return
        proc = self._acquire(False)
        writer = proc.feed([n.encode("ascii", "replace") for n in names])
        finished = False
        try:
            for name in names:
                header = proc.read_header(name)
                if header is None:
                    raise InputError(f"object {name} is missing from repository {str(self.path)!r}")
                yield name, proc.read_body(header[2], name)
            finished = True
        finally:
            if finished:
                writer.join()
                self._release(proc)
            else:
                proc.kill()
                writer.join(timeout=5)

    def _lookup(self, sha: str, path: str, *, content: bool) -> tuple[str, bytes] | None:
        """``(blob id, content)`` of ``path`` in commit ``sha``; None if not a file there."""
        if not path or "\0" in path or unsafe_path(path) is not None:
            return None
        if "\n" in path or "\r" in path or "\\" in path:
            # The batch protocol is line based: find such a path in the listing.
            # (and an escaped non-UTF-8 name has no other spelling git understands).
            for entry in self.list_files(sha):
                if entry.path == path and entry.problem is None:
                    data = next(iter(self.read_blobs([entry.blob])))[1] if content else b""
                    return entry.blob, data
            return None
        answer = self._ask(f"{sha}:{path}", check_only=not content)
        if answer is None or answer[1] != "blob":
            return None
        return answer[0], answer[2]

    def read_path(self, rev: str, path: str) -> bytes | None:
        """The content of the file ``path`` at ``rev``, or None when no file is there.

        ``path`` is relative to the repository root, with ``/`` separators. A
        symlink reads as its target path, as git stores it.
        """
        found = self._lookup(self.resolve(rev), path, content=True)
        return None if found is None else found[1]

    def exists(self, rev: str, path: str) -> bool:
        """Whether ``path`` is a file (a blob, symlinks included) at ``rev``."""
        return self._lookup(self.resolve(rev), path, content=False) is not None

    def attributes(self, rev: str, files: Iterable[FileEntry] | None = None) -> GitAttributes:
        """The ``.gitattributes`` files committed at ``rev`` (all directories).

        Only the revision's own files count: ``$GIT_DIR/info/attributes`` and the
        user's global attributes are local state, not part of the commit.
        ``files`` (a listing of ``rev``) saves a second ``ls-tree``.
        """
        listing = self.list_files(rev) if files is None else files
        sources = [
            e
            for e in listing
            if e.mode != MODE_SYMLINK
            and e.problem is None
            and (e.path == ATTRIBUTES_FILE or e.path.endswith("/" + ATTRIBUTES_FILE))
        ]
        texts = dict(self.read_blobs(sorted({e.blob for e in sources})))
        return parse_gitattributes(
            (e.path, texts[e.blob].decode("utf-8", "replace")) for e in sources
        )
