"""The inventory of a revision: every path, what the policy did with it, and why.

:func:`build_inventory` lists the commit's tree once (``ls-tree``), classifies each
path by its name, size and ``.gitattributes``, then reads -- through one
``cat-file --batch`` stream, each distinct blob once -- only the files whose content
matters: those that may be indexed (binary check, generated markers) and those
whose role a generated marker could still change. Vendored, build, explicitly
excluded and oversize files are never read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, MutableMapping
from typing import NamedTuple

from codegold.corpus.attributes import AttributeValue
from codegold.corpus.git import MISSING_OBJECT, MODE_GITLINK, MODE_SYMLINK, GitRepo
from codegold.corpus.model import FileEntry, FileRole, FileStatus, InventoryEntry
from codegold.corpus.policy import Classification, ContentFacts, PathPolicy

__all__ = ["LFS_RULE", "BlobFacts", "Inventory", "build_inventory", "is_lfs_pointer"]

LanguageOf = Callable[[str], str | None]

LFS_RULE = "git-lfs-pointer"
_LFS_VERSION = b"version https://git-lfs.github.com/spec/"
_LFS_MAX_BYTES = 1024  # the LFS specification caps a pointer file at 1024 bytes


def is_lfs_pointer(data: bytes) -> bool:
    """Whether ``data`` is a Git LFS pointer file (the spec's ``version``/``oid`` lines)."""
    return (
        len(data) < _LFS_MAX_BYTES
        and data.startswith(_LFS_VERSION)
        and b"\noid sha256:" in data
        and b"\nsize " in data
    )


class BlobFacts(NamedTuple):
    """All an inventory reads of a blob (whatever the policy): the facts
    classification reads, and whether it is a Git LFS pointer."""

    marker: str | None
    binary: bool
    lfs: bool
    built: str | None

    @classmethod
    def of(cls, data: bytes) -> BlobFacts:
        content = ContentFacts.of(data)
        return cls(content.marker, content.binary, is_lfs_pointer(data), content.built)

    def content(self) -> ContentFacts:
        """The facts classification reads."""
        return ContentFacts(self.marker, self.binary, self.built)


class Inventory(NamedTuple):
    """``entries``: every path at the revision, sorted by path (submodules and
    symlinks included, as EXCLUDED). ``contents``: the bytes of every INDEXED file,
    by path, undecoded (but those whose blob facts were known, and not read)."""

    entries: list[InventoryEntry]
    contents: dict[str, bytes]


def _entry(
    file: FileEntry, result: Classification, language_of: LanguageOf | None
) -> InventoryEntry:
    return InventoryEntry(
        path=file.path,
        blob=file.blob,
        size=file.size,
        status=result.status,
        role=result.role,
        language=language_of(file.path) if language_of is not None else None,
        rule=result.rule,
    )


def build_inventory(
    repo: GitRepo,
    revision: str,
    policy: PathPolicy,
    *,
    language_of: LanguageOf | None = None,
    facts: MutableMapping[str, BlobFacts] | None = None,
) -> Inventory:
    """Classify every path of ``revision`` and read the indexed files' bytes.

    Symlinks are EXCLUDED with rule ``symlink`` (their blob is a path, not code, and
    following them could leave the commit); submodules are EXCLUDED with rule
    ``submodule`` (their content is another repository). Paths git would refuse to
    check out (``..``, ``.git`` components) are EXCLUDED with their ``unsafe-path:``
    rule and never read; blobs missing from the object database are UNREADABLE
    (rule ``missing-object``); Git LFS pointers are LFS_POINTER. ``language_of`` maps a
    path to its language name (the chunking module's ``language_for_path``).

    ``facts``, by blob id (a cache kept by the caller): a blob found there is not read
    (its file is classified from them, and left out of ``contents`` when INDEXED); the
    facts of every blob read are added to it.
    """
    sha = repo.resolve(revision)
    files = repo.list_files(sha, submodules=True)
    attributes = repo.attributes(sha, files)
    no_attrs: Mapping[str, AttributeValue] = {}

    decided: dict[str, InventoryEntry] = {}
    pending: list[FileEntry] = []
    for file in files:
        attrs = attributes.lookup(file.path) if attributes else no_attrs
        if file.problem is not None:
            # Never read: a path checkout would refuse, or an object git does not have.
            role = policy.classify(file.path, None, attrs).role
            status = (
                FileStatus.UNREADABLE if file.problem == MISSING_OBJECT else FileStatus.EXCLUDED
            )
            decided[file.path] = _entry(
                file, Classification(status, role, file.problem), language_of
            )
            continue
        if file.mode in (MODE_SYMLINK, MODE_GITLINK):
            role = policy.classify(file.path, None, attrs).role
            rule = "symlink" if file.mode == MODE_SYMLINK else "submodule"
            decided[file.path] = _entry(
                file, Classification(FileStatus.EXCLUDED, role, rule), language_of
            )
            continue
        result = policy.classify_path(file.path, attrs, size=file.size)
        if result is None:
            pending.append(file)
        else:
            decided[file.path] = _entry(file, result, language_of)

    contents: dict[str, bytes] = {}
    known = facts if facts is not None else {}
    if pending:
        unread = sorted({f.blob for f in pending if f.blob not in known})
        blobs = dict(repo.read_blobs(unread))
        if facts is not None:
            facts.update((blob, BlobFacts.of(data)) for blob, data in blobs.items())
        for file in pending:
            attrs = attributes.lookup(file.path) if attributes else no_attrs
            data = blobs.get(file.blob)
            if data is None:
                fact = known[file.blob]
                result = policy.classify_known(file.path, fact.content(), attrs, size=file.size)
                lfs = fact.lfs
            else:
                result = policy.classify(file.path, data, attrs, size=file.size)
                lfs = is_lfs_pointer(data)
            if result.status is FileStatus.INDEXED and lfs:
                result = Classification(FileStatus.LFS_POINTER, result.role, LFS_RULE)
            decided[file.path] = _entry(file, result, language_of)
            if result.status is FileStatus.INDEXED and data is not None:
                contents[file.path] = data

    if policy.detect_compiled and FileRole.BUILD in policy.exclude_roles:
        for path, source in compiled_copies(decided).items():
            old = decided[path]
            decided[path] = InventoryEntry(
                path=old.path,
                blob=old.blob,
                size=old.size,
                status=FileStatus.EXCLUDED,
                role=FileRole.BUILD,
                language=old.language,
                rule=f"compiled-from:{source}",
            )
            contents.pop(path, None)
    if policy.detect_old_versions:
        for path, rule in older_versions(decided).items():
            old = decided[path]
            decided[path] = InventoryEntry(
                path=old.path,
                blob=old.blob,
                size=old.size,
                status=old.status,
                role=FileRole.MIGRATION,
                language=old.language,
                rule=rule,
            )
    entries = [decided[path] for path in sorted(decided)]
    return Inventory(entries, contents)


# v3/, 3.x/, v3.x/: a major version's copy (not a bare 3/, which may be anything)
_VERSION_DIR = re.compile(r"^(?:v(\d+)|v?(\d+)\.x)$", re.IGNORECASE)
_VERSIONED_ROLES = frozenset({FileRole.SOURCE, FileRole.DOCS})


def older_versions(entries: Mapping[str, InventoryEntry]) -> dict[str, str]:
    """Source and docs files under a versioned folder (``v3/``, ``1.x/``) that has a
    newer sibling (``v4/``, ``2.x/``): the older copy is kept for compatibility (the
    code) or for users of the old major (its manual), so it is a migration/legacy trap
    for questions about current behaviour. Returns path -> rule."""
    versions: dict[str, dict[int, str]] = {}  # parent -> version -> folder name
    located: list[tuple[str, str, int, str]] = []
    for path, entry in entries.items():
        if entry.status is not FileStatus.INDEXED or entry.role not in _VERSIONED_ROLES:
            continue
        parts = path.split("/")[:-1]
        for depth, part in enumerate(parts):
            m = _VERSION_DIR.match(part)
            if m:
                parent = "/".join(parts[:depth])
                number = int(m.group(1) or m.group(2))
                names = versions.setdefault(parent, {})
                names[number] = min(names.get(number, part), part)
                located.append((path, parent, number, part))
                break
    found: dict[str, str] = {}
    for path, parent, version, name in located:
        newest = max(versions[parent])
        if version < newest:
            where = f"{parent}/" if parent else ""
            found[path] = (
                f"older-version:{where}{name}/ (newest {where}{versions[parent][newest]}/)"
            )
    return found


_COMPILED_SUFFIXES = (".d.cts", ".d.mts", ".d.ts", ".cjs", ".mjs", ".js")
_SOURCE_SUFFIXES = (".tsx", ".mts", ".cts", ".ts")


def _strip(path: str, suffixes: tuple[str, ...]) -> str | None:
    for suffix in suffixes:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return None


def compiled_copies(entries: Mapping[str, InventoryEntry]) -> dict[str, str]:
    """JavaScript and declaration files that are compiled copies of a TypeScript source
    in the same commit (``v4/core/errors.cjs`` beside ``src/v4/core/errors.ts``): the
    path minus its extension ends with the source's last two path segments. They are
    build output however they are laid out, and would otherwise answer every question
    about that code twice more."""
    sources: dict[str, list[str]] = {}
    for path, entry in entries.items():
        if entry.status is not FileStatus.INDEXED or path.endswith((".d.ts", ".d.mts", ".d.cts")):
            continue
        stem = _strip(path, _SOURCE_SUFFIXES)
        if stem is not None:
            tail = "/".join(stem.split("/")[-2:])
            sources.setdefault(tail, []).append(path)
    found: dict[str, str] = {}
    if not sources:
        return found
    for path, entry in entries.items():
        if entry.status is not FileStatus.INDEXED:
            continue
        stem = _strip(path, _COMPILED_SUFFIXES)
        if stem is None:
            continue
        parts = stem.split("/")
        if len(parts) < 2:
            continue
        candidates = [s for s in sources.get("/".join(parts[-2:]), []) if s != path]
        if candidates:
            found[path] = sorted(candidates)[0]
    return found
