"""The path policy: which files of a revision are indexed, and in which role.

A :class:`PathPolicy` holds gitignore-style pattern lists (each pattern translated
by pathspec's gitignore rules; ``!`` negation included; the last matching pattern
of a list decides, as in one ``.gitignore`` file). Classifying a
path walks these steps in order; the first that fires decides:

1. ``exclude`` patterns: the path is EXCLUDED, whatever else it is.
2. The **role**, first match in this order: vendored > build > generated > migration >
   test > docs > configuration > source (nothing matched). For one role the evidence
   is, in order: a pattern from the user's configuration; a ``.gitattributes``
   attribute (``linguist-vendored``, ``linguist-generated``,
   ``linguist-documentation``; an attribute set to false vetoes the role's default
   patterns and markers); a default pattern; for *build* only, a build-output marker
   in the file's content (a source-map link as its last line, a webpack runtime, a
   minifier's license pointer: :func:`build_marker`); for *generated* only, a marker
   in the file's header (``@generated``, ``Code generated … DO NOT EDIT``, a
   "generated … DO NOT EDIT" comment, an "auto-generated" comment in the first lines).
3. ``include`` patterns force indexing: they override ``exclude_roles`` (not
   ``exclude``, not the size limit, not binary detection).
4. A role listed in ``exclude_roles`` (default: vendored, build) is EXCLUDED.
   Generated and migration files stay indexed with their role, so a ranker can
   penalise them and an evaluation can catch them as traps.
5. Larger than ``max_file_bytes``: OVERSIZE. Such files are never read, so only
   path rules and attributes give their role.
6. A NUL byte in the first 8 KiB: BINARY.
7. Otherwise INDEXED.

The rule that decided is reported as ``origin:list:pattern`` (``default:vendored:
node_modules/``, ``codegold.toml:exclude:src/legacy/``), ``<file>:<attribute>:
<pattern>`` for ``.gitattributes``, ``content:generated:<marker>``,
``content:build:<marker>``, ``max-file-bytes:<n>`` or ``binary:nul-byte``. An
indexed source file has no rule.

Configuration (``codegold.toml`` ``[policy]``, or ``[tool.codegold.policy]`` in
``pyproject.toml``) uses kebab-case keys. A list key (``exclude``, ``include``,
``vendored``, ``build``, ``generated``, ``migration``, ``test``, ``docs``,
``configuration``) *replaces* the default list; ``extend-<list>`` *adds* to it (both
may be given: the replacement, then the additions). ``exclude-roles`` and
``max-file-bytes`` replace their defaults.

Examples (``examples/``, ``example/``, ``samples/``) are classified as docs: they
show usage, which is what a query asking for an example wants, and they are not the
authoritative definition. So is a Maven site (``src/site/``: the user guide's xdoc,
apt and markdown pages).

Build output is what a build wrote and a project committed anyway: bundles in
``dist/`` and in folders named like it (``dist-module/``, ``dist-cjs/``,
``browser-dist/``), ``umd/``, minified files and source maps, caches and compiled
objects; the inventory adds JavaScript compiled from a TypeScript source of the same
commit (``compiled-from:``). A committed ``build/`` folder is *not* build output by
its name: it holds the build's own scripts and settings (``build/tasks/``, a script
that declares a server's option defaults and generates a validator from them,
``build/cmake/``) far more often, since real output there is ignored rather than
committed. Such files are configuration, as a ``Makefile`` is.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import pathspec

from codegold.corpus.attributes import AttributeValue
from codegold.corpus.model import FileRole, FileStatus
from codegold.errors import InputError

if TYPE_CHECKING:
    from codegold.corpus.git import GitRepo

__all__ = [
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_PATTERNS",
    "POLICY_FORMAT",
    "ROLE_PRECEDENCE",
    "Classification",
    "ContentFacts",
    "PathPolicy",
    "build_marker",
    "generated_marker",
    "is_binary",
    "load_policy",
    "policy_from_table",
]

POLICY_FORMAT: Final = "codegold-path-policy/5"
"""Version of the classification rules; part of the digest, bump it when they change."""

DEFAULT_MAX_FILE_BYTES: Final = 1 << 20
BINARY_SNIFF_BYTES: Final = 8192
HEADER_BYTES: Final = 2048

ROLE_PRECEDENCE: Final = (
    FileRole.VENDORED,
    FileRole.BUILD,
    FileRole.GENERATED,
    FileRole.MIGRATION,
    FileRole.TEST,
    FileRole.DOCS,
    FileRole.CONFIGURATION,
)
"""Roles in the order they are tried; a path matching none is SOURCE."""

_ROLE_ATTRIBUTE: Final[Mapping[FileRole, str]] = {
    FileRole.VENDORED: "linguist-vendored",
    FileRole.GENERATED: "linguist-generated",
    FileRole.DOCS: "linguist-documentation",
}

_LOCKFILES = (
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "pnpm-lock.yaml",
    "bun.lockb",
    "Cargo.lock",
    "poetry.lock",
    "Pipfile.lock",
    "pdm.lock",
    "uv.lock",
    "go.sum",
    "composer.lock",
    "Gemfile.lock",
    "Podfile.lock",
    "mix.lock",
    "flake.lock",
    "packages.lock.json",
    "gradle.lockfile",
)

DEFAULT_PATTERNS: Final[Mapping[str, tuple[str, ...]]] = {
    "exclude": _LOCKFILES,
    "include": (),
    "vendored": (
        "vendor/",
        "vendors/",
        "third_party/",
        "third-party/",
        "thirdparty/",
        "3rdparty/",
        "node_modules/",
        "bower_components/",
        "jspm_packages/",
        ".yarn/",
        ".pnp.*",
        "site-packages/",
        ".venv/",
        "Pods/",
        "Carthage/",
    ),
    "build": (
        "dist/",
        # bundles beside the sources: dist-module/, dist-cjs/, browser-dist/, umd/
        "dist-*/",
        "*-dist/",
        "umd/",
        # not build/: a committed build/ folder holds the build's own scripts and
        # settings (see configuration), since real output there is ignored, not committed
        "out/",
        "target/",
        "*.min.js",
        "*.min.css",
        "*.map",
        "__pycache__/",
        "*.pyc",
        "*.pyo",
        "*.egg-info/",
        ".next/",
        ".nuxt/",
        ".svelte-kit/",
        ".turbo/",
        ".parcel-cache/",
        ".gradle/",
        ".tox/",
        ".nox/",
        ".mypy_cache/",
        ".pytest_cache/",
        ".ruff_cache/",
        "coverage/",
        "htmlcov/",
        ".coverage",
        "*.class",
        "*.o",
        "*.so",
        "*.dylib",
        "*.dll",
        "*.exe",
    ),
    "generated": (
        "*_pb2.py",
        "*_pb2.pyi",
        "*_pb2_grpc.py",
        "*.pb.go",
        "*.pb.gw.go",
        "*.pb.cc",
        "*.pb.h",
        "*.pb.ts",
        "*_pb.js",
        "*_pb.d.ts",
        "*.g.dart",
        "*.freezed.dart",
        "*.generated.*",
        "*.gen.go",
        "*_generated.go",
        "zz_generated.*",
        "*.designer.cs",
        "__generated__/",
        "generated/",
    ),
    "migration": (
        "migrations/",
        "migration/",
        "db/migrate/",
        "alembic/versions/",
        "legacy/",
        "deprecated/",
        "compat/",
        "_compat/",
        "_compat.py",
        "shim/",
        "shims/",
        "archive/",
        "archived/",
        "old/",
    ),
    "test": (
        "test/",
        "tests/",
        "__tests__/",
        "__mocks__/",
        "spec/",
        "testing/",
        "testdata/",
        "test-data/",
        "test_data/",
        "fixtures/",
        "test_*.py",
        "*_test.py",
        "tests.py",
        "conftest.py",
        "*_test.go",
        "*.test.*",
        "*.spec.*",
        "*_spec.rb",
        "*_test.rb",
        "*Test.java",
        "*Tests.java",
        "*Test.kt",
        "*Tests.kt",
        "*Test.php",  # PHPUnit's convention, beside the code as often as under tests/
        "*Test.cs",
        "*Tests.cs",
        "*Tests.swift",
        "*Spec.scala",
        "*Test.scala",
        "*_test.rs",
        "tests.rs",  # Rust: the body of a `#[cfg(test)] mod tests;` kept in its own file
        "*_test.cc",
        "*_test.cpp",
        # C and C++: a program named test is the test suite (hiredis, cJSON and
        # http-parser test.c); not other languages' test.py, test.rb (werkzeug's test
        # client, faraday's test adapter are the library's code)
        "test.c",
        "test.cc",
        "test.cpp",
        "*_unittest.cc",
    ),
    "docs": (
        "docs/",
        "doc/",
        # ...but code in a folder named doc/ is usually a package (Go's cobra/doc, go/doc)
        "!**/doc/**/*.go",
        "!**/doc/**/*.rs",
        "!**/doc/**/*.java",
        "!**/doc/**/*.py",
        "!**/doc/**/*.ts",
        "documentation/",
        "examples/",
        "example/",
        "_examples/",  # Go: folders starting with _ are left out of builds
        "_example/",
        "samples/",
        "**/src/site/",  # Maven's site documentation (src/site/xdoc/*.xml, apt/, markdown/)
        "*.md",
        "*.mdx",
        "*.rst",
        "*.adoc",
        "*.asciidoc",
        "README",
        "README.*",
        "CHANGELOG",
        "CHANGELOG.*",
        "CHANGES",
        "CHANGES.*",
        "HISTORY",
        "HISTORY.*",
        "NEWS",
        "AUTHORS",
        "CONTRIBUTORS",
        "LICENSE",
        "LICENSE.*",
        "COPYING",
    ),
    "configuration": (
        "*.toml",
        "*.yaml",
        "*.yml",
        "*.ini",
        "*.cfg",
        "*.conf",
        "*.properties",
        "/*.json",
        "package.json",
        "tsconfig*.json",
        "jsconfig*.json",
        "composer.json",
        ".env.example",
        ".env.sample",
        ".editorconfig",
        ".gitattributes",
        ".gitignore",
        ".dockerignore",
        ".*rc",
        ".*rc.js",
        ".*rc.cjs",
        ".*rc.json",
        "*.config.js",
        "*.config.cjs",
        "*.config.mjs",
        "*.config.ts",
        "Dockerfile",
        "Dockerfile.*",
        "*.dockerfile",
        "Containerfile",
        "Makefile",
        "*.mk",
        # a committed build/ folder: the build's scripts and settings, as a Makefile is
        # (build/build-validation.js holds a server's option defaults, build/tasks/,
        # build/cmake/), not its output, which is ignored rather than committed
        "build/",
        "CMakeLists.txt",
        "*.cmake",
        "Jenkinsfile",
        "Procfile",
        "Vagrantfile",
        "justfile",
        "MANIFEST.in",
        "requirements*.txt",
        "go.mod",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "Gemfile",
        "config/",
        "configs/",
        "settings/",
        "settings.py",
        ".github/",
        ".circleci/",
        ".vscode/",
        ".devcontainer/",
    ),
}
"""The default pattern list of each policy list (see the module docstring)."""

_ROLE_LISTS: Final[Mapping[FileRole, str]] = {role: role.value for role in ROLE_PRECEDENCE}
_LIST_NAMES: Final = tuple(DEFAULT_PATTERNS)
_DEFAULT_SETS: Final[Mapping[str, frozenset[str]]] = {
    name: frozenset(patterns) for name, patterns in DEFAULT_PATTERNS.items()
}
_DEFAULT_EXCLUDE_ROLES: Final = frozenset({FileRole.VENDORED, FileRole.BUILD})

# Generated-file markers. They count only on comment lines, so source code that
# merely mentions them (a linter, this module) is not mistaken for generated code.
_COMMENT_LEADERS: Final = (
    b"#",
    b"//",
    b"/*",
    b"*",
    b"--",
    b";",
    b"<!--",
    b"%",
    b'"""',
    b"'''",
    b"{-",
    b"(*",
    b"{{/*",
)
_STRONG_MARKERS: Final = (
    ("@generated", re.compile(rb"@generated\b")),
    ("Code generated ... DO NOT EDIT", re.compile(rb"Code generated .*DO NOT EDIT")),
    (
        "generated ... DO NOT EDIT",
        re.compile(rb"(?i)generated.*do not edit|do not edit.*generated"),
    ),
)
_WEAK_MARKER: Final = (
    "auto-generated",
    re.compile(rb"(?i)\b(?:auto-?generated|automatically generated)\b"),
)
_MAYBE_MARKED: Final = (b"enerated", b"ENERATED")
_SOURCE_MAP_TAIL: Final = 1024
_SOURCE_MAP_LINE: Final = re.compile(
    rb"//[#@] sourceMappingURL=\S+|/\*[#@] sourceMappingURL=\S+ ?\*/"
)
_WEBPACK_RUNTIME: Final = re.compile(rb"\s*/\*{6}/ .*// webpackBootstrap\b")
_WEAK_MARKER_LINES: Final = 5
_TAIL_LINES: Final = 5


class Classification(NamedTuple):
    """What the policy decided for one path, and the rule that fired."""

    status: FileStatus
    role: FileRole
    rule: str | None


class ContentFacts(NamedTuple):
    """All that classification reads of a file's content, whatever the policy: its
    generated-code marker (:func:`generated_marker`), whether it looks binary, and its
    build-output marker (:func:`build_marker`). Kept per blob, they let a file be
    classified again without reading it."""

    marker: str | None
    binary: bool
    built: str | None

    @classmethod
    def of(cls, content: bytes) -> ContentFacts:
        return cls(generated_marker(content), is_binary(content), build_marker(content))


def is_binary(head: bytes) -> bool:
    """Whether content looks binary: a NUL byte in its first 8 KiB."""
    return b"\0" in head[:BINARY_SNIFF_BYTES]


def _comment_lines(lines: Sequence[bytes]) -> list[bytes]:
    return [line for line in lines if line.lstrip().startswith(_COMMENT_LEADERS)]


def build_marker(content: bytes) -> str | None:
    """What says a file is a compiler's or a bundler's output, or None.

    * its last non-blank line is a source-map link (``//# sourceMappingURL=…``,
      ``/*# sourceMappingURL=… */``): tsc, babel, esbuild, rollup, webpack and sass
      write it there, under the code they emitted, and nobody writes it by hand;
    * a webpack runtime among its first lines (``/******/ … // webpackBootstrap``);
    * a minifier's license pointer as its first line (``/*! For license information
      please see app.js.LICENSE.txt */``).

    A file that merely mentions these (a bundler's own source, a test asserting a
    source-map comment in a string) is not matched: they count only in those places,
    on lines that are nothing else.
    """
    end = content[-_SOURCE_MAP_TAIL:]
    if b"sourceMappingURL=" in end:
        last = end.rstrip().rsplit(b"\n", 1)[-1].strip()
        if _SOURCE_MAP_LINE.fullmatch(last):
            return "sourceMappingURL"
    start = content[:HEADER_BYTES]
    if b"webpackBootstrap" in start:
        lines = start.split(b"\n")[:_WEAK_MARKER_LINES]
        if any(_WEBPACK_RUNTIME.match(line) for line in lines):
            return "webpackBootstrap"
    if start.startswith(b"/*! For license information please see "):
        return "license pointer"
    return None


def generated_marker(content: bytes) -> str | None:
    """The generated-code marker in a file's header (or last lines), or None.

    Strong markers (``@generated``, ``Code generated … DO NOT EDIT``, a line saying
    both "generated" and "do not edit") count on any comment line of the first
    2 KiB or of the last five lines; "auto-generated" only on a comment among the
    first five non-blank lines.
    """
    start, end = content[:HEADER_BYTES], content[-HEADER_BYTES:]
    if not any(word in part for word in _MAYBE_MARKED for part in (start, end)):
        return None  # the common case, decided by a fast substring search
    head_lines = start.split(b"\n")
    head = _comment_lines(head_lines)
    tail = _comment_lines(end.rstrip(b"\n").split(b"\n")[-_TAIL_LINES:])
    for name, regex in _STRONG_MARKERS:
        if any(regex.search(line) for line in head) or any(regex.search(ln) for ln in tail):
            return name
    first = _comment_lines([ln for ln in head_lines if ln.strip()][:_WEAK_MARKER_LINES])
    name, regex = _WEAK_MARKER
    if any(regex.search(line) for line in first):
        return name
    return None


_NAMED_GROUP = re.compile(r"\(\?P<[^>]+>")
_SIMPLE_PATTERN = re.compile(r"[^/\\\s]+/?")
_GLOB_CHARS = re.compile(r"[*?\[]")
_DIR_CACHE_LIMIT = 1 << 16


@functools.cache
def _gitignore_pattern() -> Any:
    """The pattern class :class:`pathspec.GitIgnoreSpec` makes each line into."""
    return type(pathspec.GitIgnoreSpec.from_lines(["x"]).patterns[0])


def _pattern_regex(line: str) -> tuple[str, bool] | None:
    """pathspec's regex for one gitignore line (named groups removed), and whether
    the line includes (False: a ``!`` line); None for a blank line or a comment.
    Translated by the pattern class's own ``pattern_to_regex``, without compiling the
    line's regex (the matcher compiles its alternations once)."""
    regex, include = _gitignore_pattern().pattern_to_regex(line)
    if regex is None or include is None:
        return None
    if not isinstance(regex, str):
        raise ValueError(f"unsupported pattern {line!r}")
    return _NAMED_GROUP.sub("(?:", regex), bool(include)


def _alternation(parts: list[tuple[int, str]]) -> re.Pattern[str] | None:
    """One regex trying the patterns from the last to the first, so that the
    alternative that matches is the last matching pattern."""
    if not parts:
        return None
    return re.compile("|".join(f"(?P<p{i}>{body})" for i, body in sorted(parts, reverse=True)))


def _matched(regex: re.Pattern[str] | None, text: str) -> int:
    if regex is None:
        return -1
    found = regex.match(text)
    if found is None or found.lastgroup is None:
        return -1
    return int(found.lastgroup[1:])


class _Matcher:
    """One pattern list, compiled. The last matching pattern decides (a ``!``
    pattern un-matches), as in a ``.gitignore`` file.

    Most patterns name one path component (``vendor/``, ``*.min.js``,
    ``conftest.py``): those are checked per component, with the directory part
    memoised, instead of running every pattern's ``^(?:.+/)?…`` regex over the
    whole path. Patterns with an inner or leading ``/`` or ``**`` run on the
    whole path. Both give pathspec's gitignore translation of each pattern.
    """

    def __init__(self, patterns: tuple[str, ...]) -> None:
        self.patterns = patterns
        self._include: list[bool] = []
        literal_any: dict[str, int] = {}
        literal_dir: dict[str, int] = {}
        glob_any: list[tuple[int, str]] = []
        glob_dir: list[tuple[int, str]] = []
        whole: list[tuple[int, str]] = []
        for index, line in enumerate(patterns):
            compiled = _pattern_regex(line)
            self._include.append(compiled[1] if compiled else False)
            if compiled is None:
                continue
            body = line[1:] if line.startswith("!") else line
            if not _SIMPLE_PATTERN.fullmatch(body) or "**" in body:
                whole.append((index, compiled[0]))
                continue
            dir_only = body.endswith("/")
            name = body.rstrip("/")
            if _GLOB_CHARS.search(name) is None:
                (literal_dir if dir_only else literal_any)[name] = index
            else:
                component = _pattern_regex("/" + name)
                assert component is not None
                (glob_dir if dir_only else glob_any).append((index, component[0]))
        self._literal_any = literal_any
        self._literal_dir = literal_dir
        self._glob_any = _alternation(glob_any)
        self._glob_dir = _alternation(glob_dir)
        self._whole = _alternation(whole)
        self._dirs: dict[str, int] = {}
        self._paths: dict[str, str | None] = {}

    def _dir_index(self, directory: str) -> int:
        best = self._dirs.get(directory)
        if best is not None:
            return best
        best = -1
        if directory:
            for part in directory.split("/"):
                best = max(
                    best,
                    self._literal_any.get(part, -1),
                    self._literal_dir.get(part, -1),
                    _matched(self._glob_any, part),
                    _matched(self._glob_dir, part),
                )
        if len(self._dirs) >= _DIR_CACHE_LIMIT:
            self._dirs.clear()
        self._dirs[directory] = best
        return best

    def match(self, path: str) -> str | None:
        """The pattern that matches ``path``; None if none does (or a ``!`` one wins).
        Memoised: an inventory classifies a file once by its path and again once its
        content is known."""
        if not self.patterns:
            return None
        try:
            return self._paths[path]
        except KeyError:
            pass
        if len(self._paths) >= _DIR_CACHE_LIMIT:
            self._paths.clear()
        found = self._paths[path] = self._match(path)
        return found

    def _match(self, path: str) -> str | None:
        directory, _, base = path.rpartition("/")
        best = max(
            self._dir_index(directory),
            self._literal_any.get(base, -1),
            _matched(self._glob_any, base),
            _matched(self._whole, path),
        )
        if best < 0 or not self._include[best]:
            return None
        return self.patterns[best]


def _patterns(name: str) -> Any:
    return field(default=DEFAULT_PATTERNS[name])


@dataclass(frozen=True)
class PathPolicy:
    """The effective path policy (see the module docstring for the precedence).

    ``PathPolicy()`` is the default policy. ``origin`` names where non-default
    patterns came from (``codegold.toml``); it labels rules but is not part of the
    policy's identity or digest.
    """

    exclude: tuple[str, ...] = _patterns("exclude")
    include: tuple[str, ...] = _patterns("include")
    vendored: tuple[str, ...] = _patterns("vendored")
    build: tuple[str, ...] = _patterns("build")
    generated: tuple[str, ...] = _patterns("generated")
    migration: tuple[str, ...] = _patterns("migration")
    test: tuple[str, ...] = _patterns("test")
    docs: tuple[str, ...] = _patterns("docs")
    configuration: tuple[str, ...] = _patterns("configuration")
    exclude_roles: frozenset[FileRole] = _DEFAULT_EXCLUDE_ROLES
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    detect_compiled: bool = True
    detect_old_versions: bool = True
    origin: str = field(default="policy", compare=False)

    def __post_init__(self) -> None:
        for name in _LIST_NAMES:
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(p, str) for p in value):
                raise TypeError(f"PathPolicy.{name} must be a sequence of pattern strings")
            object.__setattr__(self, name, tuple(value))
        object.__setattr__(
            self, "exclude_roles", frozenset(FileRole(r) for r in self.exclude_roles)
        )
        if isinstance(self.max_file_bytes, bool) or self.max_file_bytes < 1:
            raise ValueError("PathPolicy.max_file_bytes must be a positive integer")

    @functools.cached_property
    def _matchers(self) -> Mapping[str, _Matcher]:
        return {name: _Matcher(getattr(self, name)) for name in _LIST_NAMES}

    # -- identity ----------------------------------------------------------------

    def as_dict(self) -> dict[str, Any]:
        """The effective policy as plain JSON data (what the digest covers)."""
        data: dict[str, Any] = {name: list(getattr(self, name)) for name in _LIST_NAMES}
        data["excludeRoles"] = sorted(role.value for role in self.exclude_roles)
        data["maxFileBytes"] = self.max_file_bytes
        data["detectCompiled"] = self.detect_compiled
        data["detectOldVersions"] = self.detect_old_versions
        data["format"] = POLICY_FORMAT
        return data

    def digest(self) -> str:
        """sha256 (hex) of the canonical JSON of :meth:`as_dict` (keys sorted)."""
        canonical = json.dumps(
            self.as_dict(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    # -- classification ----------------------------------------------------------

    def _label(self, name: str, pattern: str) -> str:
        origin = "default" if pattern in _DEFAULT_SETS[name] else self.origin
        return f"{origin}:{name}:{pattern}"

    def _role(
        self,
        path: str,
        content: bytes | ContentFacts | None,
        attrs: Mapping[str, AttributeValue | bool],
    ) -> tuple[FileRole, str | None, bool]:
        """``(role, rule, undecided)``; undecided: content markers were not checked."""
        lists = self._matchers
        undecided = False
        for role in ROLE_PRECEDENCE:
            name = _ROLE_LISTS[role]
            hit = lists[name].match(path)
            if hit is not None and hit not in _DEFAULT_SETS[name]:
                return role, self._label(name, hit), undecided
            attr_name = _ROLE_ATTRIBUTE.get(role)
            attr = attrs.get(attr_name) if attr_name else None
            if attr is not None:
                value = attr.value if isinstance(attr, AttributeValue) else bool(attr)
                if value:
                    where = (
                        f"{attr.file}:{attr_name}:{attr.pattern}"
                        if isinstance(attr, AttributeValue)
                        else f"gitattributes:{attr_name}"
                    )
                    return role, where, undecided
                continue  # explicitly unset: default patterns and markers do not apply
            if hit is not None:
                return role, self._label(name, hit), undecided
            if role is FileRole.BUILD:
                if content is None:
                    undecided = True
                    continue
                built = (
                    content.built if isinstance(content, ContentFacts) else build_marker(content)
                )
                if built is not None:
                    return role, f"content:build:{built}", False
            if role is FileRole.GENERATED:
                if content is None:
                    undecided = True
                    continue
                marker = (
                    content.marker
                    if isinstance(content, ContentFacts)
                    else generated_marker(content)
                )
                if marker is not None:
                    return role, f"content:generated:{marker}", False
        return FileRole.SOURCE, None, undecided

    def _decide(
        self,
        path: str,
        content: bytes | ContentFacts | None,
        attrs: Mapping[str, AttributeValue | bool] | None,
        size: int | None,
    ) -> tuple[Classification, bool]:
        """The classification and whether it is final without the content."""
        oversize = size is not None and size > self.max_file_bytes
        if oversize:
            content = None
        role, role_rule, undecided = self._role(path, content, attrs or {})
        lists = self._matchers
        excluded_by = lists["exclude"].match(path)
        if excluded_by is not None:
            return Classification(
                FileStatus.EXCLUDED, role, self._label("exclude", excluded_by)
            ), True
        included_by = lists["include"].match(path)
        include_rule = None if included_by is None else self._label("include", included_by)
        if oversize:
            if role in self.exclude_roles and include_rule is None:
                return Classification(
                    FileStatus.EXCLUDED, role, self._role_rule(role, role_rule)
                ), True
            return Classification(
                FileStatus.OVERSIZE, role, f"max-file-bytes:{self.max_file_bytes}"
            ), True
        if role in self.exclude_roles and include_rule is None:
            return Classification(
                FileStatus.EXCLUDED, role, self._role_rule(role, role_rule)
            ), not undecided
        if isinstance(content, ContentFacts) and content.binary:
            return Classification(FileStatus.BINARY, role, "binary:nul-byte"), True
        if isinstance(content, bytes) and is_binary(content):
            return Classification(FileStatus.BINARY, role, "binary:nul-byte"), True
        return Classification(FileStatus.INDEXED, role, include_rule or role_rule), False

    def _role_rule(self, role: FileRole, rule: str | None) -> str:
        return rule if rule is not None else f"{self.origin}:exclude-roles:{role.value}"

    def classify(
        self,
        path: str,
        head: bytes | None = None,
        attrs: Mapping[str, AttributeValue | bool] | None = None,
        *,
        size: int | None = None,
    ) -> Classification:
        """Classify ``path`` (repository-relative, ``/``-separated).

        ``head`` is the file's content, or at least its first 8 KiB (None: unknown,
        content rules are skipped); ``attrs`` its ``.gitattributes`` lookup
        (:meth:`GitAttributes.lookup`, or plain booleans by attribute name); ``size``
        its size in bytes (None: unknown, no size limit applied).
        """
        return self._decide(path, head, attrs, size)[0]

    def classify_known(
        self,
        path: str,
        facts: ContentFacts,
        attrs: Mapping[str, AttributeValue | bool] | None = None,
        *,
        size: int | None = None,
    ) -> Classification:
        """:meth:`classify` of a file whose content gave ``facts`` (the same result)."""
        return self._decide(path, facts, attrs, size)[0]

    def classify_path(
        self,
        path: str,
        attrs: Mapping[str, AttributeValue | bool] | None = None,
        *,
        size: int | None = None,
    ) -> Classification | None:
        """The classification if the file's content cannot change it, else None.

        Lets an inventory read only the blobs whose content matters: a file that
        may be indexed (binary check, generated markers) or whose role a
        generated marker could still change.
        """
        result, final = self._decide(path, None, attrs, size)
        return result if final else None


# -- loading -----------------------------------------------------------------------

_POLICY_KEYS: Final = frozenset(
    {name for name in _LIST_NAMES}
    | {f"extend-{name}" for name in _LIST_NAMES}
    | {"exclude-roles", "max-file-bytes", "detect-compiled", "detect-old-versions"}
)


def _string_list(value: object, *, file: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError("must be a list of strings", file=file, field=key)
    return tuple(value)


def policy_from_table(table: Mapping[str, Any], *, file: str, origin: str) -> PathPolicy:
    """The effective policy for a ``[policy]`` table read from ``file``.

    ``file`` names the source in errors; ``origin`` labels the rules it adds.
    """
    unknown = sorted(set(table) - _POLICY_KEYS)
    if unknown:
        allowed = ", ".join(sorted(_POLICY_KEYS))
        raise InputError(
            f"unknown key {unknown[0]!r} in the policy table (allowed: {allowed})",
            file=file,
            field=unknown[0],
        )
    lists: dict[str, tuple[str, ...]] = {}
    for name in _LIST_NAMES:
        base = (
            _string_list(table[name], file=file, key=name)
            if name in table
            else DEFAULT_PATTERNS[name]
        )
        extra = _string_list(table.get(f"extend-{name}", []), file=file, key=f"extend-{name}")
        patterns = base + extra
        try:
            pathspec.GitIgnoreSpec.from_lines(patterns)
        except Exception as exc:  # pathspec raises ValueError subclasses
            raise InputError(f"invalid pattern: {exc}", file=file, field=name) from None
        lists[name] = patterns
    roles = _DEFAULT_EXCLUDE_ROLES
    if "exclude-roles" in table:
        raw = _string_list(table["exclude-roles"], file=file, key="exclude-roles")
        known = {r.value for r in FileRole}
        bad = [r for r in raw if r not in known]
        if bad:
            raise InputError(
                f"unknown role {bad[0]!r} (known: {', '.join(sorted(known))})",
                file=file,
                field="exclude-roles",
            )
        roles = frozenset(FileRole(r) for r in raw)
    max_bytes = table.get("max-file-bytes", DEFAULT_MAX_FILE_BYTES)
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise InputError("must be a positive integer", file=file, field="max-file-bytes")
    detect = table.get("detect-compiled", True)
    if not isinstance(detect, bool):
        raise InputError("must be true or false", file=file, field="detect-compiled")
    old_versions = table.get("detect-old-versions", True)
    if not isinstance(old_versions, bool):
        raise InputError("must be true or false", file=file, field="detect-old-versions")
    return PathPolicy(
        **lists,
        exclude_roles=roles,
        max_file_bytes=max_bytes,
        detect_compiled=detect,
        detect_old_versions=old_versions,
        origin=origin,
    )


def _parse_toml(data: bytes, *, file: str) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(f"not valid TOML: {exc}", file=file) from None


def _policy_table(document: Mapping[str, Any], *, file: str, pyproject: bool) -> Any:
    if pyproject:
        tool = document.get("tool", {})
        section = tool.get("codegold") if isinstance(tool, dict) else None
        if section is None:
            return None
        where = "[tool.codegold]"
    else:
        section, where = document, "the document"
    if not isinstance(section, dict):
        raise InputError(f"{where} must be a table", file=file)
    table = section.get("policy", {})
    if not isinstance(table, dict):
        raise InputError("policy must be a table", file=file, field="policy")
    return table


def load_policy(
    *,
    repo: GitRepo | None = None,
    revision: str | None = None,
    config_path: Path | None = None,
) -> PathPolicy:
    """The effective path policy, from the first source that exists:

    1. ``config_path`` (a ``codegold.toml``; a file named ``pyproject.toml`` is read
       at ``[tool.codegold.policy]``);
    2. ``codegold.toml`` at the root of ``repo`` *at* ``revision`` (git objects,
       never the working tree);
    3. ``[tool.codegold]`` in ``pyproject.toml`` at that revision;
    4. the defaults.

    Only the ``policy`` table is read and checked; other tables belong to other
    parts of codegold.
    """
    if config_path is not None:
        path = Path(config_path)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(f"cannot read policy file: {exc.strerror}", file=str(path)) from None
        pyproject = path.name == "pyproject.toml"
        document = _parse_toml(data, file=str(path))
        table = _policy_table(document, file=str(path), pyproject=pyproject)
        if table is None:
            raise InputError("no [tool.codegold] table", file=str(path))
        return policy_from_table(table, file=str(path), origin=path.name)
    if repo is None:
        return PathPolicy(origin="default")
    if revision is None:
        raise ValueError("load_policy(repo=...) needs the revision to read the policy at")
    sha = repo.resolve(revision)
    for name, pyproject in (("codegold.toml", False), ("pyproject.toml", True)):
        found = repo.read_path(sha, name)
        if found is None:
            continue
        label = f"{name} at {sha[:12]}"
        table = _policy_table(_parse_toml(found, file=label), file=label, pyproject=pyproject)
        if table is None:
            continue
        return policy_from_table(table, file=label, origin=name)
    return PathPolicy(origin="default")
