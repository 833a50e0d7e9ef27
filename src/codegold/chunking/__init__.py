"""Chunking: turn one file at a revision into retrievable, role-labelled chunks.

::

    chunk_file(path, text, file_role=...)      the single entry point
    ├── structural.chunk_source                tree-sitter, for registered languages
    │     └── window.heuristic_chunks /        fallback when the parse is mostly errors
    │         window.window_chunks
    └── window.chunk_text                      Markdown/RST sections, line windows, and
          └── window.heuristic_chunks          windows cut at regex-found definitions
                                               for code without a grammar (heuristic.py)

Languages are data (:class:`LanguageSpec` plus a ``queries/<name>.scm`` tags query) in a
registry that third parties extend through the ``codegold.languages`` entry point
group. :data:`CHUNKER_VERSION` (or :func:`chunker_version` for a non-default config)
changes whenever the output could.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from codegold._lazy import lazy_getattr
from codegold.corpus.model import FileRole

if TYPE_CHECKING:
    from tree_sitter import Node

    from codegold.chunking.config import (
        DEFAULT_CONFIG,
        ChunkerConfig,
        ChunkResult,
        role_for_file,
    )
    from codegold.chunking.languages import (
        ENTRY_POINT_GROUP,
        LanguageSpec,
        get_language,
        language_for_path,
        register_language,
        registered_languages,
    )
    from codegold.chunking.model import Chunk
    from codegold.chunking.structural import chunk_source
    from codegold.chunking.window import chunk_text, text_format_for_path, window_chunks

# The names this package offers, each imported on first use: a stage that only asks
# a file's language (codegold.chunking.language_table, for `eval`) loads neither
# tree-sitter nor the chunkers.
_WHERE: dict[str, str] = {
    "DEFAULT_CONFIG": "codegold.chunking.config",
    "ChunkerConfig": "codegold.chunking.config",
    "ChunkResult": "codegold.chunking.config",
    "role_for_file": "codegold.chunking.config",
    "ENTRY_POINT_GROUP": "codegold.chunking.languages",
    "LanguageSpec": "codegold.chunking.languages",
    "get_language": "codegold.chunking.languages",
    "language_for_path": "codegold.chunking.languages",
    "register_language": "codegold.chunking.languages",
    "registered_languages": "codegold.chunking.languages",
    "Chunk": "codegold.chunking.model",
    "chunk_source": "codegold.chunking.structural",
    "chunk_text": "codegold.chunking.window",
    "text_format_for_path": "codegold.chunking.window",
    "window_chunks": "codegold.chunking.window",
}

__all__ = [
    "CHUNKER_VERSION",
    "DEFAULT_CONFIG",
    "ENTRY_POINT_GROUP",
    "Chunk",
    "ChunkResult",
    "ChunkerConfig",
    "LanguageSpec",
    "chunk_file",
    "chunk_source",
    "chunk_text",
    "chunker_version",
    "format_chunks",
    "get_language",
    "language_for_path",
    "register_language",
    "registered_languages",
    "role_for_file",
    "text_format_for_path",
    "window_chunks",
]

#: Bump by hand whenever the chunking code changes what it emits.
#: 2: code files of languages without a grammar are windowed at the definitions a
#: regex heuristic finds, and carry their names and language (was: ``text`` windows).
#: 4: SPEC §1 symbol naming: test titles, ``@title``/``@filename``/``@body`` captures,
#: JavaScript property assignments and exported objects, Ruby innermost qualifiers.
#: 5: C/C++ conditionals that split braces are resolved before parsing (one chunk, both
#: names, for a function with ``#ifdef``-chosen signatures); multi-line function macros
#: are chunks; a C++ class holding member prototypes is a declaration; Ruby accessors
#: (``attr_accessor :a``) and delegators name ``Class.a``; JavaScript members made in a
#: loop (``app[method]``, ``['get'].forEach`` -> ``X.get``) and node-delegates chains; a
#: constant longer than a chunk is cut into pieces that all carry its name; a function
#: nested in a function adds ``outer.inner`` to its chunk's symbols.
#: 6: Rust impls for primitive, scoped-in-reference, pointer, trait-object, slice, array
#: and tuple types qualify their members (``str.index``, ``slice.index``); a blanket impl
#: over its own type parameter (``impl<M> Matcher for &M``) is named by the trait.
#: 7: C/C++ conditionals whose branches each finish a statement left open above them
#: (alternative initialisers, alternative ``if`` bodies) are read as their first branch;
#: bare upper-case macro lines between statements (``Q_OBJECT``, ``YY_ATTRIBUTE_UNUSED``)
#: are blanked for the parser and lead the definition below them; cleanly parsed
#: definitions inside an ``ERROR`` do not count against the parse; a function holding a
#: prototype-looking statement (``emit changed();``) stays a definition; members split
#: out of an interface also name it; a namespace member also has its namespaced name
#: (``Util.trim``, Rust ``imp.helper``).
#: 8: a bare macro line directly above a declarator with no type of its own
#: (``YAML_DECLARE(int)`` above ``yaml_parser_load(…)``) is that declaration's type, kept.
#: 9: a member's size counts its doc comment (a documented one-line prototype or
#: overload is a chunk of its own in a split container); a file whose parse is mostly
#: errors keeps the top-level definitions that parsed cleanly as chunks, windowing only
#: the lines between them.
#: 10: a TypeScript type alias of an object type (``type KyOptions = {…}``) is an
#: interface: its properties are named (``KyOptions.timeout``) and a long one is split;
#: a C function whose header is a macro call (``PHP_FUNCTION(strlen)``) is named by it.
#: 11: a constant whose declaration the parser closed with an invented ``;`` names
#: nothing (``JNIEXPORT jint`` before ``JNICALL Java_f(…) {`` no longer defines ``jint``).
#: 12: a macro line is a declaration's type only in the first column, above a declarator
#: that is no statement keyword.
#: 13: JavaScript/TypeScript class values are containers (``module.exports = class App
#: {…}`` is split when long; ``module.exports = exports = internals.Template = class {…}``
#: is ``internals.Template``, members ``internals.Template.render``); a module-level
#: ``const f = wrap((…) => {…})`` is a function; googletest ``TEST(Suite, Name)`` is
#: ``Suite.Name``; Rust ``macro_rules!`` transcribers name the items they write with
#: literal names (``Value.from``); Ruby ``X.class_eval do … end`` qualifies its methods;
#: a Python, JavaScript, TypeScript, Go, Java or Rust file whose parse fails keeps the
#: names the regex fallback finds in its windows (hono's ``src/types.ts``).
#: 14: a JavaScript/TypeScript object literal with function members assigned to a
#: property at module level (``internals.methods = { attempt(…) {…} }``) is a container
#: named by the target (``internals.methods.attempt``).
#: 15: tests written as title macros with their block after them, Catch2/doctest
#: ``TEST_CASE("…") {…}`` and ``SECTION("…")``, and tape/node:test subtests ``t.test("…",
#: …)`` are named by their titles; a C/C++ prototype written through an argument-list
#: macro (``int deflate OF((…));``) is named by the function, not the macro (parser and
#: regex fallback); ``var a = b.c = function …`` names both targets and is a function;
#: a function assigned to a property in a function declaration's body (``router.use =
#: router.add = …`` in ``createRouter``) adds the targets as written to that function's
#: chunk (``this.m`` in ``function Foo`` as ``Foo.m``). Python output is unchanged.
#: 16: the closing lines of a split container or function after its last member (``}``,
#: Ruby's ``end``, jQuery's ``} );``) are a chunk owned by nothing, no longer the tail of
#: that member; a module that only wraps one class or module is named by it (puma's
#: ``module Puma`` around ``class CommonLogger`` is ``Puma.CommonLogger``); members of an
#: object passed alone to ``X.extend({…})`` / ``X.mixin({…})`` are ``X.m``
#: (``jQuery.fn.attr``), of ``A = B = {…}`` ``A.m``; ``var a, init = X.init = function…``
#: is named by the function's names first; a function nested in a function long enough to
#: be cut is a chunk of its own, ``outer.inner``. Python output is unchanged.
#: 17: the same targets assigned in the body of a function that is a definition written
#: as an expression (``export default (o, c, d) => { proto.format = function … }``,
#: ``module.exports = function (schema) {…}``, ``const plugin = (api) => {…}``) are
#: symbols of its chunk (``proto.format``); callbacks passed to calls are left alone. A
#: class local to a function long enough to be cut (jsonschema's ``create()`` building
#: ``class Validator``) and its methods are symbols of the pieces they start in
#: (``Validator.iter_errors``); chunk spans are unchanged.
#: 18: C only. A ``#if`` without ``#else`` inside an expression, its branch continuing
#: what the line above leaves open (``CRT_treeStr =`` ``#ifdef W`` ``a ? b :`` ``#endif``
#: ``c;``, flags ORed under ``#ifndef``), has its directives blanked and its code kept:
#: the function around it (htop's ``CRT_init``) and the rest of the file parse (zlib's
#: deflate.c is structural instead of windows). A file-level variable is named through up
#: to three pointer or array declarators (``*const names[]``, ``table[A][B]``), also in
#: ``#elif``: long tables (``CRT_colorSchemes``) are cut with their name on every piece.
#: 19: members of a type in a namespace (``mod sync { impl OnceCell { fn get } }``) also
#: have the namespaced name (``sync.OnceCell.get``), so a label for one module's
#: ``OnceCell.get`` tells it from another's; Rust module documentation (``//!``, the
#: ``@docs`` capture) of three lines or more is a ``docs`` chunk of its own, apart from
#: the ``mod``/``use`` lines beside it, and leads no item.
#: 20: no chunker change; the path policy takes a C or C++ file named ``test.c``,
#: ``test.cc`` or ``test.cpp`` as a test (http-parser's, hiredis's, cJSON's test suite):
#: its chunks' role is ``test``, so indexes built before are stale.
#: 21: C and C++ only. A macro defined inside a function is named bare, as every macro
#: is (``XX``, not ``http_parser_execute.XX``, in the piece of a cut function it starts
#: in); a one-line ``#define`` there is a symbol of the function's chunk too.
#: 22: C and C++ only. A ``/* … */`` comment on a continued line of a ``#define`` no
#: longer ends the macro for the parser (it reads the comment blanked): http-parser's
#: ``HTTP_ERRNO_MAP`` is one chunk instead of being cut at line 240 with its entries read
#: as calls; the BSD ``tree.h``/``queue.h`` macros and htop's ``Process_makeCommandStr``
#: (whose locals were file-level names) parse whole.
#: 23: JavaScript and TypeScript. A method installed by a top-level helper call taking
#: (target, 'name', function), ``defineMethod(Session.prototype, 'touch', function touch()
#: {…})`` (express-session), ``utils.addMethod(Assertion.prototype, 'x', fn)``, is
#: ``Session.touch``; a default export computed at the export is named by the file: a
#: function wrapped in a call (``export default restArguments(function (…) {…})`` in
#: underscore's modules/bind.js is ``bind``), any other call, ``new``, conditional,
#: ``a || b(…)`` or ``_.templateSettings = {…}`` (also ``_.templateSettings``) a constant
#: (``defaults``, ``isArray``, ``templateSettings``).
ALGORITHM_VERSION = "23"


def chunk_file(
    path: str,
    text: str,
    *,
    file_role: FileRole,
    config: ChunkerConfig | None = None,
) -> ChunkResult:
    """Chunk one file: structurally when a registered language owns ``path``, else as text.

    ``path`` is the repository-relative path recorded in every chunk; ``text`` the
    decoded file; ``file_role`` what the path policy classified it as. A ``.h`` file
    is C unless it uses C++-only syntax (``class X {``, ``namespace``, ``template <``,
    an access specifier, ``#include <vector>``), then C++.
    """
    from codegold.chunking.config import DEFAULT_CONFIG
    from codegold.chunking.languages import language_for_path
    from codegold.chunking.structural import parse_and_chunk
    from codegold.chunking.window import chunk_text

    if config is None:
        config = DEFAULT_CONFIG
    language = language_for_path(path)
    if language == "c" and _is_cpp_header(path, text):
        language = "cpp"
    if language is not None:
        result, tree = parse_and_chunk(
            path, text, language=language, file_role=file_role, config=config
        )
        if language == "rust" and file_role is FileRole.SOURCE and "cfg(test)" in text:
            result = _mark_test_modules(result, tree.root_node)
        return result
    return chunk_text(path, text, file_role=file_role, config=config)


def _rust_test_spans(root: Node) -> list[tuple[int, int]]:
    """1-based line spans of ``#[cfg(test)] mod … { }`` blocks (``root``: the file's
    parse, the chunker's): Rust keeps unit tests inside source files, and they are
    tests, not definitions."""
    spans: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in node.named_children:
            if child.type == "mod_item":
                attribute = child.prev_named_sibling
                if (
                    attribute is not None
                    and attribute.type == "attribute_item"
                    and attribute.text is not None
                    and b"cfg(test)" in attribute.text
                ):
                    spans.append((attribute.start_point[0] + 1, child.end_point[0] + 1))
                    continue
                stack.append(child)
            elif child.type == "declaration_list":
                stack.append(child)
    return spans


def _mark_test_modules(result: ChunkResult, root: Node) -> ChunkResult:
    import dataclasses

    from codegold.roles import Role

    spans = _rust_test_spans(root)
    if not spans:
        return result
    chunks = tuple(
        dataclasses.replace(chunk, role=Role.TEST)
        if any(start <= chunk.start_line and chunk.end_line <= end for start, end in spans)
        else chunk
        for chunk in result.chunks
    )
    return dataclasses.replace(result, chunks=chunks)


#: Syntax only C++ has, at the start of a line: a ``.h`` file holding any is C++.
_CPP_SYNTAX = re.compile(
    r"^[ \t]*(?:template[ \t]*<|namespace(?:[ \t]+[\w:]+)?[ \t]*\{|using[ \t]+namespace\b"
    r"|class[ \t]+\w+[^;(){}]*\{|(?:public|private|protected)[ \t]*:"
    r"|#[ \t]*include[ \t]*<\w+>)",
    re.MULTILINE,
)


def _is_cpp_header(path: str, text: str) -> bool:
    """A ``.h`` file (C by its name) that uses C++ syntax, and so is parsed as C++."""
    return path.lower().endswith(".h") and _CPP_SYNTAX.search(text) is not None


def _distribution_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def chunker_version(config: ChunkerConfig | None = None) -> str:
    """A stamp that changes whenever chunk output could: ``<algorithm>.<digest>``.

    The digest covers the hand-bumped algorithm version, the config values, the
    tree-sitter version, for every registered language its policies, grammar
    distribution versions and query text, and the rules of the regex heuristic.
    """
    from codegold.chunking.config import DEFAULT_CONFIG
    from codegold.chunking.languages import get_language, registered_languages

    specs = tuple(get_language(name) for name in registered_languages())
    return _version(DEFAULT_CONFIG if config is None else config, specs)


@functools.cache
def _version(config: ChunkerConfig, specs: tuple[LanguageSpec, ...]) -> str:
    import hashlib
    import json

    from codegold.chunking.heuristic import digest as heuristic_digest
    from codegold.chunking.languages import query_digest

    languages: list[dict[str, Any]] = []
    for spec in specs:
        name = spec.name
        languages.append(
            {
                "name": name,
                "extensions": list(spec.extensions),
                "distributions": {d: _distribution_version(d) for d in spec.distributions},
                "wrappers": sorted(spec.wrapper_node_types),
                "namespaces": sorted(spec.namespace_kinds),
                "declarationSuffixes": list(spec.declaration_suffixes),
                "stopwords": sorted(spec.reference_stopwords),
                "bodies": sorted(spec.body_types),
                "closingWords": sorted(spec.closing_words),
                "symbolRewrites": [list(pair) for pair in spec.symbol_rewrites],
                "innermostQualifier": spec.innermost_qualifier,
                "resolveConditionals": spec.resolve_conditionals,
                "prototypeContainersDeclare": spec.prototype_containers_declare,
                "query": query_digest(name),
            }
        )
    identity = {
        "algorithm": ALGORITHM_VERSION,
        "config": config.as_dict(),
        "treeSitter": _distribution_version("tree-sitter"),
        "languages": languages,
        "heuristic": heuristic_digest(),
    }
    encoded = json.dumps(identity, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return f"{ALGORITHM_VERSION}.{hashlib.sha256(encoded).hexdigest()[:16]}"


_lazy_name = lazy_getattr(__name__, _WHERE, globals())


def __getattr__(name: str) -> Any:
    # Computed on first use: it compiles every query and reads package metadata.
    if name == "CHUNKER_VERSION":
        return chunker_version()
    return _lazy_name(name)


def format_chunks(chunks: Iterable[Chunk]) -> str:
    """A plain-text table of chunks: lines, kind, role, symbol, and the other symbols."""
    rows = [("lines", "kind", "role", "symbol", "symbols", "refs")]
    for chunk in chunks:
        others = [s for s in chunk.symbols if s != chunk.symbol]
        shown = ", ".join(others[:4]) + (f", +{len(others) - 4}" if len(others) > 4 else "")
        rows.append(
            (
                f"{chunk.start_line}-{chunk.end_line}",
                chunk.kind,
                str(chunk.role),
                chunk.symbol or "-",
                shown or "-",
                str(len(chunk.references)),
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:-1], widths, strict=True))
        + "  "
        + row[-1]
        for row in rows
    ]
    return "\n".join(line.rstrip() for line in lines)
