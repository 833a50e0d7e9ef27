"""Languages the structural chunker understands, as data, in a registry keyed by name.

A :class:`LanguageSpec` says which files a language owns, where its tree-sitter grammar
and its tags query come from, and a few policies the chunker applies to the captures
(which capture kinds are containers, which parent nodes belong to a definition's span,
which identifiers never count as references). Everything language-specific about
*finding* definitions lives in the query file (``queries/<name>.scm``); see
``queries/README.md`` for the capture names the chunker reads.

Built-in languages are registered with :func:`register_language`, the same call a
third party uses. Third parties may also publish an entry point in the group
``codegold.languages`` whose object is a :class:`LanguageSpec`, an iterable of them, or
a zero-argument callable returning either; entry points are loaded on the first
registry lookup.

Grammars and compiled queries are loaded lazily and cached per process: the cache
holds immutable objects only, so a worker process simply rebuilds it.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codegold.errors import EnvironmentProblem, InputError
from codegold.registry import Registry

if TYPE_CHECKING:  # imported when a grammar is loaded: asking a file's language needs none
    from tree_sitter import Language, Query

__all__ = [
    "CHUNK_KINDS",
    "CONTAINER_KINDS",
    "ENTRY_POINT_GROUP",
    "FUNCTION_KINDS",
    "SYMBOL_KINDS",
    "CompiledQuery",
    "LanguageSpec",
    "builtin_query",
    "compiled_query",
    "get_language",
    "grammar",
    "language_for_path",
    "register_language",
    "registered_languages",
]

ENTRY_POINT_GROUP = "codegold.languages"

#: Capture kinds (``@definition.<kind>``) that become chunks of their own.
CHUNK_KINDS: frozenset[str] = frozenset(
    {
        "function",
        "method",
        "class",
        "interface",
        "type",
        "struct",
        "enum",
        "impl",
        "trait",
        "module",
    }
)
#: Capture kinds that only add a name to the chunk they start in.
SYMBOL_KINDS: frozenset[str] = frozenset({"constant", "field"})
#: Chunk kinds whose nested definitions are local (not chunks, not symbols).
FUNCTION_KINDS: frozenset[str] = frozenset({"function", "method"})
#: Chunk kinds that hold members: they qualify member names and may be split.
CONTAINER_KINDS: frozenset[str] = CHUNK_KINDS - FUNCTION_KINDS


@dataclass(frozen=True, slots=True)
class LanguageSpec:
    """One language the structural chunker can parse.

    ``grammar`` returns the grammar pointer a ``tree_sitter.Language`` wraps (for the
    official wheels, ``tree_sitter_python.language``). ``query`` returns the tags query
    text. ``extensions`` are matched as case-insensitive suffixes of the file name, the
    longest match winning (so ``.d.ts`` can mean something ``.ts`` does not).
    """

    name: str
    extensions: tuple[str, ...]
    grammar: Callable[[], object]
    query: Callable[[], str]
    #: Distribution names whose versions change the parse (stamped into the chunker version).
    distributions: tuple[str, ...] = ()
    #: Parent node types that belong to the span of the definition they wrap
    #: (Python ``decorated_definition``, JS ``export_statement``).
    wrapper_node_types: frozenset[str] = frozenset()
    #: Container kinds that are always split into their members, however small, and
    #: that do not qualify member names (Rust ``mod``, TypeScript ``namespace``).
    namespace_kinds: frozenset[str] = frozenset()
    #: File-name suffixes whose every chunk is a declaration (``.pyi``, ``.d.ts``).
    declaration_suffixes: tuple[str, ...] = ()
    #: Identifiers never reported as references (``self``).
    reference_stopwords: frozenset[str] = frozenset()
    #: Child node types that hold a definition's body when the grammar gives it no
    #: ``body`` field (Kotlin ``class_body``, ``function_body``).
    body_types: frozenset[str] = frozenset()
    #: Keywords that close a block on a line of their own (Ruby ``end``): such a line
    #: is folded into the chunk before it, like a closing bracket.
    closing_words: frozenset[str] = frozenset()
    #: ``(regex, replacement)`` pairs applied in order to every qualified name the
    #: chunker makes (not to test titles): JavaScript ``X.prototype.m`` -> ``X.m``.
    symbol_rewrites: tuple[tuple[str, str], ...] = ()
    #: Name a member by its innermost container only (Ruby ``Base.compile!`` inside
    #: ``module Sinatra``), keeping the fully qualified name as a second symbol.
    innermost_qualifier: bool = False
    #: Resolve C preprocessor conditionals whose branches split braces before parsing
    #: (alternative signatures of one function under ``#ifdef``; see preprocessor.py).
    resolve_conditionals: bool = False
    #: A container chunk holding member prototypes (bodies defined elsewhere) is a
    #: declaration: C++ ``class X { void f(); };`` in a header.
    prototype_containers_declare: bool = False
    #: Node type of a macro definition whose transcribers are item templates (Rust
    #: ``macro_rules!``): the functions, types and methods written in them with literal
    #: names are also symbols of the macro's chunk (``Value.from`` of ``impl From<$t>
    #: for Value { fn from … }``).
    macro_item_definitions: str | None = None

    def __post_init__(self) -> None:
        if not self.name or not self.name.replace("_", "").replace("-", "").isalnum():
            raise InputError(f"language name {self.name!r} must be a plain word")
        if not self.extensions:
            raise InputError(f"language {self.name!r} needs at least one file extension")
        for ext in (*self.extensions, *self.declaration_suffixes):
            if not ext.startswith("."):
                raise InputError(f"language {self.name!r}: extension {ext!r} must start with '.'")
        for pattern, _ in self.symbol_rewrites:
            try:
                re.compile(pattern)
            except re.error as exc:
                raise InputError(
                    f"language {self.name!r}: symbol rewrite {pattern!r} is not a regex: {exc}"
                ) from None
        unknown = self.namespace_kinds - CONTAINER_KINDS
        if unknown:
            raise InputError(f"language {self.name!r}: unknown namespace kinds {sorted(unknown)}")


def builtin_query(name: str) -> str:
    """The text of a query file shipped with codegold (``queries/<name>.scm``), with each
    ``; @include FRAGMENT`` line replaced by ``queries/FRAGMENT.scm``, itself read the
    same way (patterns that grammars sharing node names, JavaScript and TypeScript, keep
    in one place, or that one query repeats under several parents)."""
    from importlib import resources  # (only where a query is read: not for a file's language)

    folder = resources.files("codegold.chunking").joinpath("queries")

    def read(fragment: str, within: tuple[str, ...]) -> str:
        if fragment in within:
            raise ValueError(f"query {name!r}: {fragment}.scm includes itself")
        text = folder.joinpath(f"{fragment}.scm").read_text(encoding="utf-8")
        # a fragment may include another (a function body's property assignments, in
        # every body _js_common reads them in)
        return _INCLUDE.sub(lambda m: read(m.group(1), (*within, fragment)), text)

    return read(name, ())


_INCLUDE = re.compile(r"^; @include (\S+)[^\n]*\n", re.MULTILINE)


def _builtin(
    name: str,
    extensions: tuple[str, ...],
    module: str,
    attribute: str = "language",
    *,
    query: str | None = None,
    distribution: str,
    **policies: Any,
) -> LanguageSpec:
    def load_grammar() -> object:
        import importlib

        try:
            grammar_module = importlib.import_module(module)
        except ImportError as exc:  # pragma: no cover - a core dependency
            raise EnvironmentProblem(
                f"the {name} grammar is missing: pip install '{distribution}'"
            ) from exc
        loader: Callable[[], object] = getattr(grammar_module, attribute)
        return loader()

    return LanguageSpec(
        name=name,
        extensions=extensions,
        grammar=load_grammar,
        query=functools.partial(builtin_query, query or name),
        distributions=(distribution,),
        **policies,
    )


_JS_WRAPPERS = frozenset({"export_statement"})
#: ``X.prototype.m`` is ``X.m``; ``exports.parse`` and ``module.exports.parse`` are ``parse``.
_JS_REWRITES = ((r"\.prototype(?=\.|$)", ""), (r"^(?:module\.)?exports\.", ""))
_C_WRAPPERS = frozenset({"type_definition", "linkage_specification"})
_TS_WRAPPERS = frozenset({"export_statement", "ambient_declaration"})

_BUILTINS: tuple[LanguageSpec, ...] = (
    _builtin(
        "python",
        (".py", ".pyi"),
        "tree_sitter_python",
        distribution="tree-sitter-python",
        wrapper_node_types=frozenset({"decorated_definition"}),
        declaration_suffixes=(".pyi",),
        reference_stopwords=frozenset({"self", "cls"}),
    ),
    _builtin(
        "javascript",
        (".js", ".mjs", ".cjs", ".jsx"),
        "tree_sitter_javascript",
        distribution="tree-sitter-javascript",
        wrapper_node_types=_JS_WRAPPERS,
        # Test suites (describe("…")) are the only JavaScript modules: always split.
        namespace_kinds=frozenset({"module"}),
        symbol_rewrites=_JS_REWRITES,
    ),
    _builtin(
        "typescript",
        (".ts", ".mts", ".cts", ".d.ts", ".d.mts", ".d.cts"),
        "tree_sitter_typescript",
        "language_typescript",
        distribution="tree-sitter-typescript",
        wrapper_node_types=_TS_WRAPPERS,
        namespace_kinds=frozenset({"module"}),
        symbol_rewrites=_JS_REWRITES,
        declaration_suffixes=(".d.ts", ".d.mts", ".d.cts"),
    ),
    _builtin(
        "tsx",
        (".tsx",),
        "tree_sitter_typescript",
        "language_tsx",
        query="typescript",
        distribution="tree-sitter-typescript",
        wrapper_node_types=_TS_WRAPPERS,
        namespace_kinds=frozenset({"module"}),
        symbol_rewrites=_JS_REWRITES,
    ),
    _builtin(
        "go",
        (".go",),
        "tree_sitter_go",
        distribution="tree-sitter-go",
        wrapper_node_types=frozenset({"type_declaration"}),
    ),
    _builtin("java", (".java",), "tree_sitter_java", distribution="tree-sitter-java"),
    _builtin(
        "rust",
        (".rs",),
        "tree_sitter_rust",
        distribution="tree-sitter-rust",
        namespace_kinds=frozenset({"module"}),
        macro_item_definitions="macro_definition",
        # ``impl Index<Match> for [u8]``: rustdoc's names for slice, array and tuple types.
        symbol_rewrites=(
            (r"^\[[^\[\]]*;[^\[\]]*\](?=\.|$)", "array"),
            (r"^\[.*\](?=\.|$)", "slice"),
            (r"^\(.*\)(?=\.|$)", "tuple"),
        ),
    ),
    # ``.h`` is C by its name; chunk_file reads a header with C++-only syntax as C++.
    _builtin(
        "c",
        (".c", ".h"),
        "tree_sitter_c",
        distribution="tree-sitter-c",
        wrapper_node_types=_C_WRAPPERS,
        resolve_conditionals=True,
    ),
    _builtin(
        "cpp",
        (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++", ".ipp"),
        "tree_sitter_cpp",
        distribution="tree-sitter-cpp",
        wrapper_node_types=_C_WRAPPERS | {"template_declaration"},
        resolve_conditionals=True,
        prototype_containers_declare=True,
    ),
    _builtin("csharp", (".cs",), "tree_sitter_c_sharp", distribution="tree-sitter-c-sharp"),
    _builtin(
        "ruby",
        (".rb", ".rake", ".gemspec"),
        "tree_sitter_ruby",
        distribution="tree-sitter-ruby",
        closing_words=frozenset({"end"}),
        # ``define_method(:name)`` and ``alias_method :new, :old`` name with a symbol.
        symbol_rewrites=((r"(^|\.):(?!:)", r"\1"),),
        innermost_qualifier=True,
    ),
    _builtin(
        "kotlin",
        (".kt", ".kts"),
        "tree_sitter_kotlin",
        distribution="tree-sitter-kotlin",
        body_types=frozenset({"class_body", "enum_class_body", "function_body"}),
    ),
    _builtin(
        "swift",
        (".swift",),
        "tree_sitter_swift",
        distribution="tree-sitter-swift",
        reference_stopwords=frozenset({"_", "$0", "$1", "$2", "$3"}),
    ),
    _builtin("php", (".php",), "tree_sitter_php", "language_php", distribution="tree-sitter-php"),
    _builtin("scala", (".scala",), "tree_sitter_scala", distribution="tree-sitter-scala"),
    _builtin(
        "lua",
        (".lua",),
        "tree_sitter_lua",
        distribution="tree-sitter-lua",
        reference_stopwords=frozenset({"self"}),
        closing_words=frozenset({"end"}),
    ),
    _builtin("bash", (".sh", ".bash"), "tree_sitter_bash", distribution="tree-sitter-bash"),
)

_lock = threading.RLock()


def _adopt(name: str, loaded: object) -> list[tuple[str, LanguageSpec]]:
    """An entry point's object: a spec, an iterable of specs, or a callable giving either."""
    if callable(loaded) and not isinstance(loaded, LanguageSpec):
        loaded = loaded()
    specs = [loaded] if isinstance(loaded, LanguageSpec) else list(loaded)  # type: ignore[call-overload]
    for spec in specs:
        if not isinstance(spec, LanguageSpec):
            raise TypeError(f"{spec!r} is not a LanguageSpec")
    return [(spec.name, spec) for spec in specs]


def _derived_changed() -> None:
    _suffix_table.cache_clear()
    grammar.cache_clear()
    compiled_query.cache_clear()


LANGUAGES: Registry[LanguageSpec] = Registry(
    "language", ENTRY_POINT_GROUP, adopt=_adopt, on_change=_derived_changed
)
"""Structural languages by name: the built-ins below, plugins from entry points."""


def register_language(spec: LanguageSpec, *, replace: bool = False) -> None:
    """Add a language to the registry; a name already taken is an error unless ``replace``."""
    with _lock:
        LANGUAGES.register(spec.name, spec, replace=replace)


def _load_plugins() -> None:
    with _lock:
        LANGUAGES.load_all()


def registered_languages() -> tuple[str, ...]:
    """Names of every registered language (plugins included), sorted."""
    _load_plugins()
    return tuple(sorted(LANGUAGES.items))


def get_language(name: str) -> LanguageSpec:
    """The spec registered under ``name``; an unknown name is an :class:`InputError`."""
    _load_plugins()
    return LANGUAGES.get(name)


@functools.cache
def _suffix_table() -> tuple[tuple[int, ...], dict[str, str]]:
    """The suffixes' lengths, longest first, and suffix -> language (among equal
    suffixes the first registered, the built-ins, wins): a name is looked up once per
    length instead of tested against every suffix."""
    table: dict[str, str] = {}
    for spec in LANGUAGES.items.values():
        for ext in spec.extensions:
            table.setdefault(ext.lower(), spec.name)
    return tuple(sorted({len(s) for s in table}, reverse=True)), table


def language_for_path(path: str) -> str | None:
    """The structural language owning ``path`` by its file name (its longest
    registered suffix, shorter than the name), or None."""
    _load_plugins()
    name = path.rsplit("/", 1)[-1].lower()
    lengths, table = _suffix_table()
    size = len(name)
    for length in lengths:
        if length < size:
            language = table.get(name[size - length :])
            if language is not None:
                return language
    return None


@functools.cache
def grammar(name: str) -> Language:
    """The tree-sitter ``Language`` of a registered language, loaded once."""
    from tree_sitter import Language

    return Language(get_language(name).grammar())


@dataclass(frozen=True, slots=True)
class CompiledQuery:
    """A language's tags query, compiled, with the digest of its text."""

    query: Query
    digest: str


@functools.cache
def query_digest(name: str) -> str:
    """sha256 of a language's query text: what the chunker version needs, without
    compiling the query (which costs tens of milliseconds per language)."""
    return hashlib.sha256(get_language(name).query().encode("utf-8")).hexdigest()


@functools.cache
def compiled_query(name: str) -> CompiledQuery:
    """Compile a language's query (once per process), checking its definition kinds."""
    from tree_sitter import Query

    source = get_language(name).query()
    query = Query(grammar(name), source)
    for index in range(query.capture_count):
        capture = query.capture_name(index)
        prefix, _, kind = capture.partition(".")
        if prefix in ("definition", "declaration") and kind not in CHUNK_KINDS | SYMBOL_KINDS:
            raise InputError(f"query of language {name!r}: unknown definition kind in @{capture}")
    return CompiledQuery(query=query, digest=query_digest(name))


for _spec in _BUILTINS:
    register_language(_spec)
