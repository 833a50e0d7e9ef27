"""Structural chunking: one chunk per definition, found by a tree-sitter tags query.

How a file becomes chunks (every step works on whole lines):

1. Parse; if more than half the non-blank lines sit under ``ERROR`` nodes (definitions
   that parsed cleanly inside one not counted), give up on most of the structure: the
   top-level definitions that hold no error (of two lines or more) are still chunks, and
   the lines between them become line windows, with ``parse_ok=False`` (for a language
   the regex heuristic knows, windows cut at and named by the definitions it finds).
2. Run the language's query once (``captures``): definitions, their names (each
   ``@name`` belongs to the innermost definition node containing it), leading
   comments and references. Definitions nested in a function are local: they are
   not chunks (tests named by a title, ``it("…")``, never are); a function nested in
   a top-level or member function adds ``outer.inner`` to the symbols of its chunk.
   Names are qualified by enclosing containers (``Outer.Inner.method``) or by an
   explicit ``@scope`` (Go receivers), never by namespaces (Rust ``mod``, TypeScript
   ``namespace``) nor by a titled test; a namespace's members, and the members of its
   containers, also have the namespaced name (``sync.OnceCell``, ``sync.OnceCell.get``).
3. A definition's span takes in its wrapper nodes (decorators, ``export``) and the
   contiguous block of comments/attributes right above it at the same indentation.
4. Partition the file top-down. Definitions become chunks; the lines between them are
   grouped into ``module`` chunks of at most ``max_chunk_lines`` lines, cut at statement
   boundaries. A container longer than ``max_chunk_lines`` (or any namespace) is split:
   its members of at least ``min_member_lines`` lines (their doc comment counted)
   become chunks of their own whose
   ``header`` holds the enclosing signatures, and the rest of its body (signature,
   docstring, fields, short members) forms chunks of the container's kind. A function
   longer than ``long_definition_factor * max_chunk_lines`` is cut like a container
   at the named functions nested in it (of at least ``min_member_lines``: pieces of
   their own that define ``outer.inner``) and at statement boundaries into pieces that
   all carry its symbol: the first keeps the function's kind, the rest are ``window`` chunks with
   the signature as ``header``. Lines holding only closing brackets (or a closing
   keyword such as Ruby's ``end``) are folded into the chunk before them, except the
   end of a split container or function after its last member: a ``module`` chunk
   owned by nothing, so that the member's chunk ends where the member does. An
   unsplit module that only wraps one class or module is owned (named) by it, its
   kind kept.
5. ``symbols`` of a chunk are the qualified names whose definition starts in it (an
   ``impl`` block defines its methods, not its type); ``references`` the identifiers it
   uses minus the names it defines, calls first when capped.

Roles, for source-like files: ``declaration`` for ``@declaration`` captures and for
everything in declaration files (``.pyi``, ``.d.ts``); ``definition`` for other
definitions and for module chunks that define a constant; ``call_site`` for module
chunks that only import and run code; ``docs`` for module documentation (``@docs``
comments, Rust's ``//!``), which from ``min_member_lines`` lines on is a chunk of its
own between the code around it. Test, docs, config, generated and migration
files give every chunk their own role.

Chunks never overlap, are sorted by line, and cover every non-blank line.
"""

from __future__ import annotations

import re
import threading
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, compress
from operator import attrgetter
from typing import Any

from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree

from codegold.chunking.config import DEFAULT_CONFIG, ChunkerConfig, ChunkResult, role_for_file
from codegold.chunking.heuristic import family_for_language
from codegold.chunking.languages import (
    CHUNK_KINDS,
    CONTAINER_KINDS,
    FUNCTION_KINDS,
    LanguageSpec,
    compiled_query,
    get_language,
    grammar,
)
from codegold.chunking.model import Chunk
from codegold.chunking.preprocessor import (
    Alternative,
    blank_macro_comments,
    resolve_conditionals,
)
from codegold.chunking.window import heuristic_chunks, window_chunks
from codegold.corpus.model import FileRole
from codegold.roles import Role

__all__ = ["chunk_source", "closes_block"]

#: Share of non-blank lines under ERROR nodes above which a parse is not trusted.
ERROR_LINE_SHARE = 0.5

_DEFINITION = "definition."
_DECLARATION = "declaration."
_REFERENCE = "reference."
_CLOSERS = frozenset(")]};,")
#: Spaces between closing brackets (jQuery's ``} );``) leave a line closing only.
_BLANKS = frozenset(" \t")


def closes_block(line: str, closing_words: frozenset[str]) -> bool:
    """Whether ``line`` holds only closing brackets, or a closing keyword such as Ruby's
    ``end`` (one of ``closing_words``) with brackets after it: the lines the chunker
    folds into the chunk before them."""
    text = line.strip()
    return not (set(text) - _CLOSERS - _BLANKS) or bool(
        closing_words and text.rstrip(")];, \t") in closing_words
    )


#: When patterns capture one node with different kinds, the more specific kind wins
#: (after a declaration beating a definition): ``struct`` over Go's generic ``type``,
#: any chunk kind over a name-only kind.
_KIND_RANK: dict[str, int] = {
    kind: rank
    for rank, kind in enumerate(
        reversed(
            (
                "struct", "interface", "enum", "trait", "impl", "class", "module",
                "type", "method", "function", "field", "constant",
            )
        )
    )
}  # fmt: skip

_local = threading.local()


def _parser(language: str) -> Parser:
    # Parsers are not thread-safe: one per thread and language.
    parsers: dict[str, Parser] | None = getattr(_local, "parsers", None)
    if parsers is None:
        parsers = _local.parsers = {}
    parser = parsers.get(language)
    current = grammar(language)
    if parser is None or parser.language is not current:
        parser = parsers[language] = Parser(current)
    return parser


_errors: dict[str, tuple[Language, Query]] = {}


def _error_query(language: str) -> Query:
    """``(ERROR) @error`` compiled once per grammar (it costs a millisecond or two, and
    every file whose parse holds an error asks for it)."""
    current = grammar(language)
    cached = _errors.get(language)
    if cached is None or cached[0] is not current:
        cached = _errors[language] = (current, Query(current, "(ERROR) @error"))
    return cached[1]


@dataclass(slots=True, eq=False)
class _Def:
    """A definition found by the query (one node, possibly several names)."""

    node: Node
    start_byte: int
    end_byte: int
    row: int
    kind: str
    declaration: bool
    names: list[str] = field(default_factory=list)
    scope: str | None = None
    parent: _Def | None = None
    children: list[_Def] = field(default_factory=list)
    qnames: list[str] = field(default_factory=list)
    #: Of ``qnames``, the names a namespace gives (``sync.OnceCell``): what its members'
    #: namespaced names are made of.
    namespaced: list[str] = field(default_factory=list)
    local: bool = False
    #: Named by a test title (``it("…")``): never qualified, qualifies nothing.
    titled: bool = False
    #: Marked ``@constructor``: a member constructor is named by its class
    #: (``Money.Money``); a class with a primary constructor also defines that name.
    constructor: bool = False
    span_start: int = 0
    span_col: int = 0
    span_end: int = 0
    #: ``@key``: the literal names a loop runs over (``['get', 'head'].forEach``): a
    #: written ``obj[key]`` name stands for ``obj.get`` and ``obj.head``.
    keys: list[str] = field(default_factory=list)
    #: ``@member``: names the definition makes members of itself (delegations).
    members: list[str] = field(default_factory=list)
    #: ``@next_body``: the block right after the definition node that is its body
    #: (Catch2's ``TEST_CASE("…")`` statement, then ``{…}``): the definition ends there.
    tail: Node | None = None
    #: A local function whose lines are a chunk of their own, in a function long enough
    #: to be cut into pieces (fastify's ``inject`` in ``fastify``): the chunk is a piece
    #: of the outer function that defines ``qnames``, ``outer.inner``.
    promoted: bool = False

    @property
    def qname(self) -> str:
        return self.qnames[0]


@dataclass(slots=True, eq=False)
class _Piece:
    start: int
    end: int
    kind: str
    owner: _Def | None
    #: Only the closing lines of a split container or function after its last member
    #: (a ``}``, Ruby's ``end``): owned by nothing, so no member runs through them.
    closing: bool = False
    #: Module documentation (``@docs``, Rust's ``//!``): its role is ``docs``.
    docs: bool = False


#: Captures that name, qualify or delimit the definition containing them, in the order
#: they are applied when several start and end at the same bytes.
_NAME_CAPTURES = ("filename", "name", "title", "scope", "body", "constructor", "key", "member")
_ESCAPED_QUOTE = re.compile(r"\\([\\'\"`])")


def _title_text(literal: str) -> str:
    """The value of a test title's string literal (quotes off, escaped quotes undone)."""
    text = literal.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"`":
        text = text[1:-1]
    return _ESCAPED_QUOTE.sub(r"\1", text).strip()


def _base_name(path: str, suffixes: tuple[str, ...]) -> str:
    """A file's name without its language's extension: ``lib/request.js`` -> ``request``."""
    name = path.rsplit("/", 1)[-1]
    lowered = name.lower()
    for suffix in sorted(suffixes, key=len, reverse=True):
        if lowered.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name.rsplit(".", 1)[0] if "." in name[1:] else name


_REWRITES: dict[tuple[tuple[str, str], ...], tuple[tuple[re.Pattern[str], str], ...]] = {}


def _impl_type_parameters(node: Node) -> set[str]:
    """The type parameter names a Rust ``impl<…>`` declares (empty for other nodes)."""
    params = node.child_by_field_name("type_parameters") if node.type == "impl_item" else None
    if params is None:
        return set()
    names: set[str] = set()
    for child in params.named_children:
        name = child.child_by_field_name("name") if child.type == "type_parameter" else None
        if name is None and child.type == "type_identifier":
            name = child
        if name is not None and name.text is not None:
            names.add(name.text.decode("utf-8", "replace"))
    return names


def _base_type_name(node: Node | None) -> str | None:
    """``Matcher`` of a Rust trait path ``Matcher``, ``grep::Matcher`` or ``From<T>``."""
    while node is not None and node.type in ("generic_type", "scoped_type_identifier"):
        node = node.child_by_field_name("type" if node.type == "generic_type" else "name")
    if node is None or node.type != "type_identifier" or node.text is None:
        return None
    return node.text.decode("utf-8", "replace")


def _rewrite(names: list[str], rewrites: tuple[tuple[str, str], ...]) -> list[str]:
    """Apply a language's symbol rewrites to qualified names, keeping order, dropping
    duplicates and names rewritten to nothing."""
    if not rewrites:
        return names
    compiled = _REWRITES.get(rewrites)
    if compiled is None:
        compiled = _REWRITES[rewrites] = tuple((re.compile(p), r) for p, r in rewrites)
    out: list[str] = []
    for name in names:
        for pattern, replacement in compiled:
            name = pattern.sub(replacement, name)
        if name and name not in out:
            out.append(name)
    return out or names


#: A namespace name that may qualify (``Util``, ``A.B``; not ``"@types/node"``).
_NAMESPACE = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
_SUBSCRIPT = re.compile(r"^(.+)\[[A-Za-z_$][\w$]*\]$")


def _expand_keys(names: list[str], keys: list[str]) -> list[str]:
    """``obj[key]`` written in a loop over literal names: ``obj.<name>`` for each of
    them (other names kept as they are)."""
    out: list[str] = []
    for name in names:
        match = _SUBSCRIPT.match(name)
        expanded = [f"{match.group(1)}.{key}" for key in keys] if match else [name]
        out.extend(n for n in expanded if n not in out)
    return out


#: JavaScript/TypeScript variable declarations, and the values that make one a function.
_DECLARATIONS = frozenset({"lexical_declaration", "variable_declaration"})
_FUNCTION_VALUES = frozenset({"function_expression", "arrow_function", "generator_function"})
#: A C or C++ macro: defined for the rest of the file wherever the ``#define`` sits, so
#: one inside a function is named bare (``XX``, not ``http_parser_execute.XX``).
_MACRO_DEFINITIONS = frozenset({"preproc_def", "preproc_function_def"})

_START_BYTE = attrgetter("start_byte")
_END_BYTE = attrgetter("end_byte")


def _reference_priority(capture: str) -> int:
    kind = capture[len(_REFERENCE) :]
    return 0 if kind == "call" else 1 if kind == "type" else 2


def _last_row(node: Node) -> int:
    """The last row a node has text on (a node may end just after a newline)."""
    row, column = node.end_point
    start_row = node.start_point[0]
    return row - 1 if column == 0 and row > start_row else row


def _end_row(d: _Def) -> int:
    """The last row of a definition: of its node, or of its ``@next_body`` block."""
    return _last_row(d.tail if d.tail is not None else d.node)


class _File:
    """The per-file state of one chunking run."""

    def __init__(
        self,
        path: str,
        text: str,
        spec: LanguageSpec,
        file_role: FileRole,
        config: ChunkerConfig,
    ) -> None:
        self.path = path
        self.spec = spec
        self.config = config
        self.file_role = file_role
        self.text = text
        self.lines = text.split("\n")
        self.src = text.encode("utf-8", "surrogatepass")
        #: One byte a character: a node's byte offsets index ``text`` as they are.
        self.ascii = len(self.src) == len(text)
        # (an ASCII file's lines are as long in bytes as in characters: no second split)
        byte_lines = self.lines if self.ascii else self.src.split(b"\n")
        self.line_starts = list(accumulate(map((1).__add__, map(len, byte_lines)), initial=0))
        lowered = path.lower()
        self.declaration_file = bool(spec.declaration_suffixes) and lowered.endswith(
            spec.declaration_suffixes
        )
        self.pieces: list[_Piece] = []
        #: Every definition :meth:`nest` linked (see :meth:`unlink`).
        self.nested: list[_Def] = []
        self.leading_at: dict[int, tuple[int, int]] = {}
        #: Last rows of ``/** ... */`` doc blocks: they attach across one blank line.
        self.doc_block_ends: set[int] = set()
        #: Rows of ``@docs`` comments standing alone on their lines (Rust ``//!``).
        self.docs_rows: set[int] = set()
        self._signatures: dict[int, str] = {}
        self._breaks: dict[int, list[int]] = {}
        self.definition_ids: set[int] = set()
        #: Bodies given by ``@body`` captures, by definition node id.
        self.bodies: dict[int, Node] = {}
        self.base_name = _base_name(path, spec.extensions + spec.declaration_suffixes)
        #: What the parser reads: the source, or (C, C++) a copy with the conditionals
        #: that split braces resolved, byte for byte at the same offsets.
        self.parse_src = self.src
        self.alternatives: tuple[Alternative, ...] = ()
        self.macro_rows: frozenset[int] = frozenset()
        if spec.resolve_conditionals:
            resolution = resolve_conditionals(self.src)
            if resolution is not None:
                self.parse_src = resolution.source
                self.alternatives = resolution.alternatives
                self.macro_rows = resolution.macro_rows
            blanked = blank_macro_comments(self.parse_src)
            if blanked is not None:
                self.parse_src = blanked
        #: First rows of definitions whose alternative headers sit above them.
        self.span_floor: dict[int, int] = {}
        #: The parse of ``parse_src``, once :meth:`run` has made it.
        self.tree: Tree | None = None

    # ---- helpers -------------------------------------------------------------

    def blank(self, row: int) -> bool:
        return not self.lines[row].strip()

    def decode(self, node: Node) -> str:
        return self.src[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def line_end_byte(self, row: int) -> int:
        """Byte offset just past ``row``'s text (before its newline)."""
        nxt = row + 1
        return self.line_starts[nxt] - 1 if nxt < len(self.line_starts) else len(self.src)

    def trim(self, start: int, end: int) -> tuple[int, int] | None:
        while start <= end and self.blank(start):
            start += 1
        while end >= start and self.blank(end):
            end -= 1
        return (start, end) if start <= end else None

    def error_share(self, root: Node, language: str, captured: dict[str, list[Node]]) -> float:
        """Share of non-blank lines under ``ERROR`` nodes, not counting the lines of
        definitions that parsed cleanly inside one (the functions of a macro-heavy C
        file whose one unparsable statement left the whole file under an ``ERROR``)."""
        rows: set[int] = set()
        for node in QueryCursor(_error_query(language)).captures(root).get("error", []):
            rows.update(range(node.start_point[0], _last_row(node) + 1))
        if rows:
            for capture, nodes in captured.items():
                if capture.startswith((_DEFINITION, _DECLARATION)):
                    for node in nodes:
                        if not node.has_error:
                            rows.difference_update(range(node.start_point[0], _last_row(node) + 1))
        covered = sum(1 for row in rows if not self.blank(row))
        non_blank = sum(1 for line in self.lines if line.strip())
        return covered / non_blank if non_blank else 0.0

    # ---- definitions ----------------------------------------------------------

    def collect_definitions(self, captured: dict[str, list[Node]]) -> list[_Def]:
        """Definitions from one ``captures`` pass; names go to their innermost definition."""
        found: dict[int, _Def] = {}
        for capture, nodes in captured.items():
            if capture.startswith(_DEFINITION):
                kind, declaration = capture[len(_DEFINITION) :], False
            elif capture.startswith(_DECLARATION):
                kind, declaration = capture[len(_DECLARATION) :], True
            else:
                continue
            for node in nodes:
                if kind == "constant" and node.child_count and node.children[-1].is_missing:
                    # A declaration the parser closed with an invented ``;`` is a macro's
                    # words read as one (``JNIEXPORT jint`` before ``JNICALL f(…) {``).
                    continue
                existing = found.get(node.id)
                if existing is None:
                    found[node.id] = _Def(
                        node=node,
                        start_byte=node.start_byte,
                        end_byte=node.end_byte,
                        row=node.start_point[0],
                        kind=kind,
                        declaration=declaration,
                    )
                elif (declaration, _KIND_RANK[kind]) > (
                    existing.declaration,
                    _KIND_RANK[existing.kind],
                ):
                    existing.kind, existing.declaration = kind, declaration
        for body in captured.get("next_body", []):
            # A macro call the grammar reads as a statement, its block as the next one.
            before = body.prev_named_sibling
            owner = found.get(before.id) if before is not None else None
            if owner is not None and owner.tail is None:
                owner.tail = body
                owner.end_byte = body.end_byte
                self.bodies[owner.node.id] = body
        ordered = sorted(found.values(), key=lambda d: (d.start_byte, -d.end_byte))
        self.assign_names(ordered, captured)
        for d in ordered:
            if d.kind == "function" and len(d.names) > 1:
                self.name_function_declarator_first(d)
            if d.kind == "impl" and d.names and d.names[0] in _impl_type_parameters(d.node):
                # Rust ``impl<M: Matcher> Matcher for &M``: ``M`` is no type anyone names;
                # the trait is (``Matcher.find_at``), and the impl stays one container.
                trait = _base_type_name(d.node.child_by_field_name("trait"))
                d.names[:] = [trait] if trait else []
        if self.alternatives:
            self.adopt_alternatives(ordered)
        named = [d for d in ordered if d.names]
        self.definition_ids = {d.node.id for d in named}
        self.nest(named)
        return named

    def assign_names(self, ordered: list[_Def], captured: dict[str, list[Node]]) -> None:
        """Give each name-like capture to the innermost definition containing it.

        ``@name`` adds its text, ``@title`` a string literal's value (and marks the
        definition titled), ``@filename`` the file's base name (first), ``@scope`` an
        explicit qualifier, ``@body`` the definition's body, ``@constructor`` marks a
        constructor.
        """
        marks = sorted(
            (node.start_byte, node.end_byte, order, node)
            for order, capture in enumerate(_NAME_CAPTURES)
            for node in captured.get(capture, [])
        )
        stack: list[_Def] = []
        index = 0
        for start, end, order, node in marks:
            while index < len(ordered) and ordered[index].start_byte <= start:
                d = ordered[index]
                while stack and stack[-1].end_byte <= d.start_byte:
                    stack.pop()
                stack.append(d)
                index += 1
            while stack and stack[-1].end_byte < end:
                stack.pop()
            if not stack:
                continue
            owner = stack[-1]
            capture = _NAME_CAPTURES[order]
            if capture == "body":
                self.bodies.setdefault(owner.node.id, node)
                continue
            if capture == "constructor":
                owner.constructor = True
                continue
            if capture == "filename":
                if self.base_name and self.base_name not in owner.names:
                    owner.names.insert(0, self.base_name)
                continue
            text = self.decode(node)
            if capture == "key":
                if text not in owner.keys:
                    owner.keys.append(text)
                continue
            if capture == "member":
                if text not in owner.members:
                    owner.members.append(text)
                continue
            if capture == "scope":
                # Ruby ``class A::B::C`` has the scope ``A::B``: qualify as ``A.B``.
                owner.scope = owner.scope or text.replace("::", ".")
                continue
            if capture == "title":
                text = _title_text(text)
                if not text:
                    continue
                owner.titled = True
            if text not in owner.names:
                owner.names.append(text)

    def name_function_declarator_first(self, d: _Def) -> None:
        """In ``var rootjQuery, rquickExpr = …, init = jQuery.fn.init = function (…) {…}``
        (a function among other declarators), the function's own names come first
        (``init``, ``jQuery.fn.init``): the chunk is named by what it defines."""
        node = d.node
        if node.type == "export_statement":
            node = node.named_children[-1] if node.named_children else node
        if node.type not in _DECLARATIONS or node.named_child_count < 2:
            return
        for declarator in node.named_children:
            if declarator.type != "variable_declarator":
                continue
            targets = [declarator.child_by_field_name("name")]
            value = declarator.child_by_field_name("value")
            while value is not None and value.type == "assignment_expression":
                targets.append(value.child_by_field_name("left"))
                value = value.child_by_field_name("right")
            if value is None or value.type not in _FUNCTION_VALUES:
                continue
            first = [t for t in (self.decode(n) for n in targets if n is not None) if t in d.names]
            d.names[:] = first + [n for n in d.names if n not in first]
            return

    def adopt_alternatives(self, ordered: list[_Def]) -> None:
        """Give each function header blanked out of a conditional (``#ifdef WIN32``
        ``int umain(…) {`` ``#else`` ``int main(…) {`` ``#endif``) to the function whose
        kept header sits in that conditional and whose body runs past it: its name
        becomes a second name, its lines part of the definition's span."""
        for alternative in self.alternatives:
            for d in ordered:
                if (
                    d.kind == "function"
                    and d.names
                    and alternative.end < d.row <= alternative.group_end
                    and _last_row(d.node) > alternative.group_end
                ):
                    name = _header_name(alternative.text, self.spec.name)
                    if name is not None and name not in d.names:
                        d.names.append(name)
                    floor = self.span_floor.get(d.node.id, d.row)
                    self.span_floor[d.node.id] = min(floor, alternative.start)
                    break

    def unlink(self) -> None:
        """Forget the links :meth:`nest` made (parent to children and back, a cycle
        holding each definition's node, and so the whole tree): once the file is
        chunked, it is freed at once rather than by the cyclic collector, which a build
        keeps off."""
        for d in self.nested:
            d.parent = None
            d.children = []
        self.nested = []

    def nest(self, ordered: list[_Def]) -> None:
        """Link each definition to its enclosing one, then name it in that scope."""
        stack: list[_Def] = []
        self.nested.extend(ordered)
        for d in ordered:
            while stack and stack[-1].end_byte <= d.start_byte:
                stack.pop()
            parent = stack[-1] if stack else None
            d.parent = parent
            if parent is not None:
                parent.children.append(d)
                # A test written as a call is a test wherever it sits (Quick's `spec()`,
                # a shared-examples helper): never local.
                d.local = not d.titled and (parent.local or parent.kind in FUNCTION_KINDS)
            if d.kind in CHUNK_KINDS:
                stack.append(d)
            if d.local or d.titled:
                d.qnames = list(d.names)
                continue
            self.qualify(d, parent)
            if d.node.type == self.spec.macro_item_definitions and d.qnames:
                d.qnames += [n for n in _macro_items(d.node, self.spec.name) if n not in d.qnames]

    def qualify(self, d: _Def, parent: _Def | None) -> None:
        """Name ``d`` by its nearest enclosing definition that is neither a namespace nor
        titled: a function there becomes a method, a constructor takes its name."""
        namespaces = self.spec.namespace_kinds
        qualifier = parent
        #: Names of the namespaces passed on the way (TypeScript ``namespace Util``).
        passed: list[str] = []
        while qualifier is not None and (qualifier.kind in namespaces or qualifier.titled):
            if not qualifier.titled and qualifier.names:
                passed.append(qualifier.names[0])
            qualifier = qualifier.parent
        if d.kind == "function" and qualifier is not None:
            d.kind = "method"
        if d.constructor and qualifier is not None and d.kind not in CONTAINER_KINDS:
            d.names = [qualifier.names[0].rsplit(".", 1)[-1]]
        base = d.scope or (qualifier.qname if qualifier is not None else None)
        if d.keys:
            d.names = _expand_keys(d.names, d.keys)
        qnames = self.qualified_names(d, base)
        namespaced: list[str] = []
        if not d.scope and qualifier is not None and not passed and d.kind not in namespaces:
            # A member of a container that sits in a namespace (``mod sync { impl
            # OnceCell { fn get } }``) has the namespaced name too, through its container's
            # (``sync.OnceCell`` -> ``sync.OnceCell.get``): a label for one module's
            # ``OnceCell.get`` then tells it from another module's.
            namespaced = [
                f"{q}.{name}"
                for q in qualifier.namespaced
                for name in d.names
                if f"{q}.{name}" not in qnames
            ]
            qnames += namespaced
        if d.members and d.kind in CONTAINER_KINDS:
            # A delegation defines its members, not the object it delegates from.
            qnames = [f"{qnames[0]}.{member}" for member in d.members]
        if passed and d.kind not in namespaces and all(_NAMESPACE.match(n) for n in passed):
            # A namespace does not qualify, but what engineers call through it (``Util.trim``
            # for ``namespace Util { export function trim }``, Rust ``fmt::write``) is a
            # name too: the namespaced spelling follows the plain one.
            prefix = ".".join(reversed(passed))
            namespaced = [f"{prefix}.{q}" for q in qnames if not q.startswith(prefix + ".")]
            qnames += namespaced
        d.qnames = _rewrite(qnames, self.spec.symbol_rewrites)
        if namespaced:
            d.namespaced = [
                q for q in _rewrite(namespaced, self.spec.symbol_rewrites) if q in d.qnames
            ]

    def qualified_names(self, d: _Def, base: str | None) -> list[str]:
        """``d``'s names under ``base``, before the spec's rewrites."""
        qnames = [f"{base}.{name}" if base else name for name in d.names]
        if self.spec.innermost_qualifier and base and "." in base and d.kind not in CONTAINER_KINDS:
            # Ruby: a method is named by its innermost class or module; the fully
            # qualified spelling stays as a second name.
            inner = base.rsplit(".", 1)[1]
            qnames = [f"{inner}.{name}" for name in d.names] + qnames
        if d.constructor and d.kind in CONTAINER_KINDS:
            qnames.append(f"{qnames[0]}.{d.names[0]}")
        return qnames

    def compute_span(self, d: _Def) -> None:
        top = d.node
        parent = top.parent
        wrappers = self.spec.wrapper_node_types
        while parent is not None and parent.type in wrappers:
            # A wrapper holding several definitions (Go's ``type ( A ...; B ... )``)
            # belongs to none of them.
            if any(
                child.id in self.definition_ids and child.id != top.id
                for child in parent.named_children
            ):
                break
            top = parent
            parent = top.parent
        d.span_start, d.span_col = top.start_point
        d.span_end = max(_last_row(top), _end_row(d))
        floor = self.span_floor.get(d.node.id)
        if floor is not None and floor < d.span_start:
            d.span_start = floor
            d.span_col = len(self.lines[floor]) - len(self.lines[floor].lstrip())

    def stands_alone(self, node: Node) -> bool:
        """Whether ``node`` has its lines to itself (nothing before or after it on them)."""
        row = node.start_point[0]
        if self.src[self.line_starts[row] : node.start_byte].strip():
            return False
        return not self.src[node.end_byte : self.line_end_byte(_last_row(node))].strip()

    def collect_docs(self, nodes: Sequence[Node]) -> set[int]:
        """Mark the rows of module documentation (``@docs``: Rust ``//!``) that stands
        alone on its lines; the ids of those nodes, which lead no definition."""
        ids: set[int] = set()
        for node in nodes:
            if self.stands_alone(node):
                ids.add(node.id)
                self.docs_rows.update(range(node.start_point[0], _last_row(node) + 1))
        return ids

    def collect_leading(self, nodes: Sequence[Node], docs: set[int] | None = None) -> None:
        """Index leading comments/attributes that stand alone on their lines (but for
        module documentation, the ids in ``docs``), and the bare macro lines the
        preprocessor blanked (``YY_ATTRIBUTE_UNUSED`` above ``static int f(…)``)."""
        src = self.src
        for row in self.macro_rows:
            line = self.lines[row]
            self.leading_at[row] = (row, len(line) - len(line.lstrip()))
        for node in nodes:
            if docs and node.id in docs:
                continue
            if not self.stands_alone(node):
                continue
            row, column = node.start_point
            last = _last_row(node)
            previous = self.leading_at.get(last)
            if previous is None or row < previous[0]:
                self.leading_at[last] = (row, column)
                if src[node.start_byte : node.start_byte + 3] == b"/**":
                    self.doc_block_ends.add(last)

    def attach_leading(self, d: _Def, floor: int) -> int:
        """The first row of the comments that document ``d``: the contiguous block right
        above it at its column, or a ``/** ... */`` block one blank line above it (the
        JSDoc style of Express and Koa), with the block contiguous above that."""
        row = d.span_start
        doc = self.leading_at.get(row - 2) if row - 2 in self.doc_block_ends else None
        if (
            doc is not None
            and row - 1 not in self.leading_at
            and self.blank(row - 1)
            and doc[1] == d.span_col
            and doc[0] >= floor
        ):
            row = doc[0]
        while True:
            entry = self.leading_at.get(row - 1)
            if entry is None or entry[1] != d.span_col or entry[0] < floor:
                return row
            row = entry[0]

    def body(self, node: Node) -> Node | None:
        """A definition's ``@body`` capture, its ``body`` field, or its child of one of
        the spec's body types."""
        found = self.bodies.get(node.id) or node.child_by_field_name("body")
        if found is None and self.spec.body_types:
            body_types = self.spec.body_types
            for child in reversed(node.named_children):
                if child.type in body_types:
                    return child
        return found

    # ---- partition ------------------------------------------------------------

    def breaks(self, node: Node) -> list[int]:
        """Rows where a statement starts inside ``node``, descending into long ones."""
        cached = self._breaks.get(node.id)
        if cached is not None:
            return cached
        rows: list[int] = []
        limit = self.config.max_chunk_lines
        pending = [node]
        while pending:
            current = pending.pop()
            for child in current.named_children:
                start = child.start_point[0]
                rows.append(start)
                if _last_row(child) - start + 1 > limit and child.named_child_count:
                    pending.append(child)
        rows.sort()
        self._breaks[node.id] = rows
        return rows

    def pack(self, start: int, end: int, node: Node | None) -> list[tuple[int, int]]:
        """Cut ``[start, end]`` into runs of at most ``max_chunk_lines`` at statement starts."""
        limit = self.config.max_chunk_lines
        trimmed = self.trim(start, end)
        if trimmed is None:
            return []
        start, end = trimmed
        if end - start + 1 <= limit:
            return [(start, end)]
        rows = self.breaks(node) if node is not None else []
        runs: list[tuple[int, int]] = []
        while start <= end:
            if end - start + 1 <= limit:
                cut = end + 1
            else:
                index = bisect_right(rows, start + limit) - 1
                cut = rows[index] if index >= 0 and rows[index] > start else start + limit
            run = self.trim(start, cut - 1)
            if run is not None:
                runs.append(run)
            start = cut
        return runs

    def only_closers(self, start: int, end: int) -> bool:
        words = self.spec.closing_words
        return all(closes_block(line, words) for line in self.lines[start : end + 1])

    def emit_gap(self, start: int, end: int, owner: _Def | None, node: Node | None) -> None:
        trimmed = self.trim(start, end)
        if trimmed is None:
            return
        start, end = trimmed
        docs = self.docs_rows
        if docs and not docs.isdisjoint(range(start, end + 1)):
            # Module documentation of at least ``min_member_lines`` lines (blank lines
            # within it counted) is a chunk of its own, apart from the ``mod``/``use``
            # lines around it.
            cursor = start
            row = start
            while row <= end:
                if row not in docs:
                    row += 1
                    continue
                last = row
                scan = row + 1
                while scan <= end and (scan in docs or self.blank(scan)):
                    if scan in docs:
                        last = scan
                    scan += 1
                if last - row + 1 >= self.config.min_member_lines:
                    self.emit_code(cursor, row - 1, owner, node)
                    kind = owner.kind if owner is not None else "module"
                    for run_start, run_end in self.pack(row, last, node):
                        self.pieces.append(_Piece(run_start, run_end, kind, owner, docs=True))
                    cursor = last + 1
                row = scan
            self.emit_code(cursor, end, owner, node)
            return
        self.emit_code(start, end, owner, node)

    def emit_code(self, start: int, end: int, owner: _Def | None, node: Node | None) -> None:
        trimmed = self.trim(start, end)
        if trimmed is None:
            return
        start, end = trimmed
        pieces = self.pieces
        if pieces and pieces[-1].end < start and self.only_closers(start, end):
            previous = pieces[-1]
            if owner is None or previous.owner is owner or previous.closing:
                pieces[-1].end = end
            else:
                # The end of a split container after its last member: that member's
                # chunk ends where the member does.
                pieces.append(_Piece(start, end, "module", None, closing=True))
            return
        kind = owner.kind if owner is not None else "module"
        for run_start, run_end in self.pack(start, end, node):
            pieces.append(_Piece(run_start, run_end, kind, owner))

    def emit_level(
        self,
        start: int,
        end: int,
        members: list[_Def],
        owner: _Def | None,
        node: Node | None,
    ) -> None:
        cursor = start
        min_row = owner.row + 1 if owner is not None else 0
        for member in members:
            if member.row < max(cursor, min_row):
                # Shares a line with what came before: stays in that chunk.
                if self.pieces and self.pieces[-1].end >= member.row and cursor > start:
                    self.pieces[-1].end = max(self.pieces[-1].end, member.span_end)
                    cursor = max(cursor, member.span_end + 1)
                continue
            first = max(cursor, min_row, self.attach_leading(member, max(cursor, min_row)))
            self.emit_gap(cursor, first - 1, owner, node)
            self.emit_definition(member, first)
            cursor = max(cursor, member.span_end + 1)
        self.emit_gap(cursor, end, owner, node)

    def emit_definition(self, d: _Def, start: int) -> None:
        config = self.config
        end = d.span_end
        length = end - start + 1
        body = self.body(d.node) if d.kind in CONTAINER_KINDS else None
        if body is not None and (
            d.kind in self.spec.namespace_kinds or length > config.max_chunk_lines
        ):
            # Short members ahead of the first longer one stay in the header chunk;
            # from there on every member is a chunk of its own. A member's size counts
            # the comment block documenting it (a one-line prototype under its javadoc).
            members: list[_Def] = []
            for child in d.children:
                if child.kind in CHUNK_KINDS and not child.local:
                    self.compute_span(child)
                    size = child.span_end - self.attach_leading(child, d.row + 1) + 1
                    if members or size >= config.min_member_lines:
                        members.append(child)
            self.emit_level(start, end, members, d, body)
            return
        long = config.max_chunk_lines * (
            1 if d.kind == "constant" else config.long_definition_factor
        )
        if length > long:
            nested = self.nested_functions(d) if d.kind in FUNCTION_KINDS else []
            if nested:
                # Cut at its nested functions instead: each is a chunk of its own that
                # defines ``outer.inner``, the code between them pieces as below; all
                # are pieces of the function, carrying its symbol (a label for the
                # outer function still matches the code it runs).
                first_piece = len(self.pieces)
                self.emit_level(start, end, nested, d, d.tail or d.node)
                for piece in self.pieces[first_piece:]:
                    if piece.owner is d:
                        if not piece.start <= d.row <= piece.end:
                            piece.kind = "window"
                    elif piece.owner is not None:
                        piece.owner = d
                return
            for run_start, run_end in self.pack(start, end, d.tail or d.node):
                # A constant's first piece is module-level code, as it was unsplit.
                first = "module" if d.kind == "constant" else d.kind
                kind = first if run_start <= d.row <= run_end else "window"
                self.pieces.append(_Piece(run_start, run_end, kind, d))
            return
        # (its kind stays the wrapper's: what the chunk's text is)
        self.pieces.append(_Piece(start, end, d.kind, self.wrapped(d)))

    def nested_functions(self, d: _Def) -> list[_Def]:
        """The named functions nested in a long function ``d`` that become chunks of
        their own (those of at least ``min_member_lines``, their comments counted),
        promoted and named ``outer.inner`` (see :meth:`local_names`)."""
        if not d.qnames or d.titled:
            return []
        nested: list[_Def] = []
        for child in d.children:
            if not (child.local and child.kind in FUNCTION_KINDS and not child.declaration):
                continue
            if not child.names:
                continue
            self.compute_span(child)
            size = child.span_end - self.attach_leading(child, d.row + 1) + 1
            if size >= self.config.min_member_lines:
                child.qnames = self.local_names(child, d)
                child.promoted = True
                nested.append(child)
        return nested

    def wrapped(self, d: _Def) -> _Def:
        """The definition a chunk of ``d`` (unsplit) is owned by: ``d``, or for a module
        that only wraps one class or module (Ruby's ``module Puma`` around ``class
        CommonLogger``), the innermost one so wrapped: what the chunk is about."""
        while d.kind == "module" and not d.titled and d.kind not in self.spec.namespace_kinds:
            inner = [c for c in d.children if c.kind in CHUNK_KINDS and not c.local]
            if len(inner) != 1 or inner[0].kind not in CONTAINER_KINDS or inner[0].titled:
                break
            d = inner[0]
        return d

    # ---- chunk metadata -------------------------------------------------------

    def signature(self, d: _Def) -> str:
        """The first line(s) of a definition, up to where its body opens."""
        cached = self._signatures.get(id(d))
        if cached is not None:
            return cached
        last = d.row
        body = self.body(d.node)
        if body is not None:
            # Up to the token before the body (``:``, a name), or the body's first line
            # when it opens there (``{``); comments in between are not signature.
            before = body.prev_sibling
            while before is not None and before.is_extra:
                before = before.prev_sibling
            body_row = body.start_point[0]
            last = body_row if before is None else _last_row(before)
        text = "\n".join(self.lines[d.row : max(last, d.row) + 1])
        self._signatures[id(d)] = text
        return text

    def header(self, piece: _Piece) -> str:
        owner = piece.owner
        if owner is None:
            return ""
        chain: list[_Def] = []
        ancestor = owner.parent
        while ancestor is not None:
            # (a module that only wraps the owner starts in the piece: no header)
            if not piece.start <= ancestor.row <= piece.end:
                chain.append(ancestor)
            ancestor = ancestor.parent
        parts = [self.signature(a) for a in reversed(chain)]
        if not piece.start <= owner.row <= piece.end:
            parts.append(self.signature(owner))
        return "\n".join(parts)

    def role(self, piece: _Piece, defines: bool, prototypes: bool = False) -> Role:
        """``prototypes``: the piece is (part of) a container and holds prototypes of
        its members, which makes it a declaration where the language says so."""
        if piece.docs:
            natural = Role.DOCS
        elif self.declaration_file:
            natural = Role.DECLARATION
        elif piece.owner is None:
            natural = Role.DEFINITION if defines else Role.CALL_SITE
        elif piece.owner.declaration or (prototypes and self.spec.prototype_containers_declare):
            natural = Role.DECLARATION
        else:
            natural = Role.DEFINITION
        return role_for_file(self.file_role, natural)

    def references(self, refs: dict[Any, int], excluded: set[str], cap: int) -> tuple[str, ...]:
        """The names of a piece's references (``refs``: word to best priority) that it
        does not define and that are no stopwords, at most ``cap``, the best kept."""
        stopwords = self.spec.reference_stopwords
        if self.ascii:
            names = refs.keys() - excluded
            if stopwords:
                names -= stopwords
            if len(names) > cap:
                names = {name for _, name in sorted([(refs[n], n) for n in names])[:cap]}
            return tuple(sorted(names))
        ranked: list[tuple[int, str]] = []
        for raw, priority in refs.items():
            name = raw.decode("utf-8", "replace")
            if name not in excluded and name not in stopwords:
                ranked.append((priority, name))
        if len(ranked) > cap:
            ranked.sort()
            ranked = ranked[:cap]
        return tuple(sorted(name for _, name in ranked))

    # ---- the run --------------------------------------------------------------

    def run(self, language: str) -> ChunkResult:
        tree = self.tree = _parser(language).parse(self.parse_src)
        root = tree.root_node
        captured = QueryCursor(compiled_query(language).query).captures(root)
        if root.has_error and self.error_share(root, language, captured) > ERROR_LINE_SHARE:
            return self.fallback(language, captured)
        definitions = self.collect_definitions(captured)
        docs = self.collect_docs(captured.get("docs", []))
        self.collect_leading(captured.get("leading", []), docs)

        top: list[_Def] = []
        limit = self.config.max_chunk_lines
        for d in definitions:
            if d.parent is not None or not (d.kind in CHUNK_KINDS or d.kind == "constant"):
                continue
            self.compute_span(d)
            # A constant longer than a chunk (a 300-line table of file types) is cut
            # like a long function, every piece carrying its name; shorter ones stay
            # names of the module chunk they sit in.
            if d.kind in CHUNK_KINDS or d.span_end - d.span_start + 1 > limit:
                top.append(d)
        self.emit_level(0, len(self.lines) - 1, top, None, root)
        return ChunkResult(
            chunks=self.build(definitions, captured), parse_ok=True, language=language
        )

    def build(self, definitions: list[_Def], captured: dict[str, list[Node]]) -> tuple[Chunk, ...]:
        pieces = self.pieces
        starts = [p.start for p in pieces]
        symbols: list[dict[str, None]] = [{} for _ in pieces]
        defined: list[set[str]] = [set() for _ in pieces]
        #: Pieces of a container holding a member prototype (see ``role``).
        prototypes: set[int] = set()
        for d in definitions:
            index = bisect_right(starts, d.row) - 1
            if index < 0 or d.row > pieces[index].end:
                continue
            defined[index].update(d.names)
            if (
                d.declaration
                and d.kind in FUNCTION_KINDS
                and d.parent is not None
                and d.parent is pieces[index].owner
                and d.parent.kind in CONTAINER_KINDS
            ):
                prototypes.add(index)
            if d.promoted:
                for qname in d.qnames:
                    symbols[index][qname] = None
                continue
            if d.local and d.node.type in _MACRO_DEFINITIONS:
                # a macro defined in a function is a name of the file's: bare
                for name in d.names:
                    symbols[index][name] = None
                continue
            if d.local:
                # A function nested in a function is no chunk, but the chunk holding
                # it defines ``outer.inner`` (a decorator's ``wrapper``, attrs'
                # ``define.wrap``): what an engineer writes for it.
                outer = d.parent
                if (
                    d.kind in FUNCTION_KINDS
                    and not d.declaration
                    and outer is not None
                    and not ((outer.local and not outer.promoted) or outer.titled)
                    and outer.kind in FUNCTION_KINDS
                    and outer.qnames
                ):
                    for name in self.local_names(d, outer):
                        symbols[index][name] = None
                for name in self.cut_local_class_names(d, pieces[index]):
                    symbols[index][name] = None
                continue
            if d.kind == "impl":
                continue
            for qname in d.qnames:
                symbols[index][qname] = None

        for index, piece in enumerate(pieces):
            # A member split out of an interface (a declaration container: Java's 170-line
            # interface of documented prototypes) is part of that declaration: its chunk
            # also names the interface, so a label for the interface finds its members.
            owner = piece.owner
            container = owner.parent if owner is not None and not owner.local else None
            if (
                container is not None
                and container.declaration
                and container.kind in CONTAINER_KINDS
                and container.qnames
            ):
                symbols[index].setdefault(container.qname, None)

        line_starts = self.line_starts
        byte_starts = [line_starts[p.start] for p in pieces]
        byte_ends = [self.line_end_byte(p.end) for p in pieces]
        #: Per piece, each word it references with the best priority it has there: the
        #: text itself when the file is ASCII (byte offsets are then character offsets),
        #: else its bytes, decoded once per piece (see :meth:`references`).
        refs: list[dict[Any, int]] = [{} for _ in pieces]
        # Calls first, then types, then the rest: the first priority a word gets is its best.
        ordered = sorted(
            (_reference_priority(capture), nodes)
            for capture, nodes in captured.items()
            if capture.startswith(_REFERENCE)
        )
        nodes = list(chain.from_iterable(group for _, group in ordered))
        if nodes and pieces:
            # every reference's piece at once (bisect_right over the pieces' first bytes);
            # the byte offsets are read into lists in C and kept as they are when every
            # reference lies in a piece (the usual case: only blank lines are in none)
            import numpy as np

            begins = list(map(_START_BYTE, nodes))
            ends = list(map(_END_BYTE, nodes))
            at = np.array(begins, dtype=np.int64)
            priorities = np.repeat(
                np.asarray([p for p, _ in ordered], dtype=np.int64), [len(g) for _, g in ordered]
            )
            within = np.searchsorted(np.asarray(byte_starts, dtype=np.int64), at, "right") - 1
            last = np.asarray(byte_ends, dtype=np.int64)[np.maximum(within, 0)]
            inside = (within >= 0) & (at < last)
            if not inside.all():
                kept = np.flatnonzero(inside)
                within, priorities = within[kept], priorities[kept]
                mask = inside.tolist()
                begins, ends = list(compress(begins, mask)), list(compress(ends, mask))
            source: str | bytes = self.text if self.ascii else self.src
            for i, begin, end, priority in zip(
                within.tolist(), begins, ends, priorities.tolist(), strict=True
            ):
                refs[i].setdefault(source[begin:end], priority)

        chunks: list[Chunk] = []
        cap = self.config.max_references
        for index, piece in enumerate(pieces):
            owner = piece.owner
            names = tuple(symbols[index])
            excluded = defined[index]
            if owner is not None:
                excluded.update(owner.names)
            chunks.append(
                Chunk(
                    file=self.path,
                    start_line=piece.start + 1,
                    end_line=piece.end + 1,
                    language=self.spec.name,
                    kind=piece.kind,
                    role=self.role(piece, bool(names), index in prototypes),
                    symbol=owner.qname if owner is not None else None,
                    symbols=names,
                    references=self.references(refs[index], excluded, cap),
                    text="\n".join(self.lines[piece.start : piece.end + 1]),
                    header=self.header(piece),
                )
            )
        return tuple(chunks)

    def cut_local_class_names(self, d: _Def, piece: _Piece) -> list[str]:
        """What a piece of a function cut into pieces defines for a class ``d`` local
        to it, or a method of one (jsonschema's 380-line ``create()`` building ``class
        Validator``): ``Validator`` and ``Validator.iter_errors``, as an engineer writes
        them. A function short enough to be one chunk (a test defining a helper class)
        defines none of its local classes."""
        if d.declaration or not d.names:
            return []
        if d.kind in CONTAINER_KINDS:
            cls, function = d, d.parent
        elif d.kind in FUNCTION_KINDS and d.parent is not None and d.parent.kind in CONTAINER_KINDS:
            cls, function = d.parent, d.parent.parent
        else:
            return []
        if (
            function is None
            or function.local
            or function.titled
            or function.kind not in FUNCTION_KINDS
            or cls.parent is not function
            or not cls.names
            or cls.kind == "impl"
            or piece.owner is not function
            or (piece.start <= function.row and piece.end >= function.span_end)
        ):
            return []
        if cls is d:
            return [cls.names[0]]
        return [f"{cls.names[0]}.{d.names[0]}"]

    def local_names(self, d: _Def, outer: _Def) -> list[str]:
        """What the chunk of ``outer`` (a function) defines for a function ``d`` nested
        in it: ``outer.inner`` for a named function, and for a function assigned to a
        property there (``router.use = router.add = …`` in a factory) each target as
        written, ``this.m`` read as ``outer.m``; a C macro by its bare name."""
        if d.node.type in _MACRO_DEFINITIONS:
            return list(d.names)
        if not any("." in name for name in d.names):
            return [f"{outer.qname}.{d.names[0]}"]
        names = [
            f"{outer.qname}.{name[5:]}" if name.startswith("this.") else name for name in d.names
        ]
        return _rewrite(names, self.spec.symbol_rewrites)

    def fallback(self, language: str, captured: dict[str, list[Node]] | None = None) -> ChunkResult:
        """Windows for a file whose parse is mostly errors; with ``captured``, the
        top-level definitions that parsed cleanly all the same (the functions around
        the one unparsable macro-heavy function of a C file) are chunks as usual, and
        only the lines between them are windows."""
        structural: list[Chunk] = []
        gaps = [(0, len(self.lines) - 1)]
        if captured is not None:
            structural = self.clean_chunks(captured)
            gaps = []
            cursor = 0
            for chunk in structural:
                if chunk.start_line - 1 > cursor:
                    gaps.append((cursor, chunk.start_line - 2))
                cursor = chunk.end_line
            if cursor < len(self.lines):
                gaps.append((cursor, len(self.lines) - 1))
        natural = Role.DECLARATION if self.declaration_file else Role.CALL_SITE
        family = family_for_language(language)
        chunks = list(structural)
        for start, end in gaps:
            lines = self.lines
            if (start, end) != (0, len(lines) - 1):
                lines = [line if start <= row <= end else "" for row, line in enumerate(lines)]
            if family is not None:
                # Languages added with the regex heuristic keep their definitions' names.
                chunks += heuristic_chunks(
                    self.path,
                    lines,
                    language=language,
                    family=family,
                    file_role=self.file_role,
                    natural=natural,
                    config=self.config,
                )
            else:
                chunks += window_chunks(
                    self.path,
                    lines,
                    language=language,
                    role=role_for_file(self.file_role, natural),
                    config=self.config,
                )
        chunks.sort(key=lambda c: c.start_line)
        return ChunkResult(chunks=tuple(chunks), parse_ok=False, language=language)

    def clean_chunks(self, captured: dict[str, list[Node]]) -> list[Chunk]:
        """Chunks of the top-level definitions of a bad parse that hold no error."""
        definitions = self.collect_definitions(captured)
        top = [
            d
            for d in definitions
            # A one-line "definition" out of a broken parse is too often a stray header.
            if d.parent is None
            and d.kind in CHUNK_KINDS
            and not d.node.has_error
            and _end_row(d) > d.row
        ]
        if not top:
            return []
        self.collect_leading(captured.get("leading", []))
        self.pieces = []
        cursor = 0
        for d in top:
            self.compute_span(d)
            if d.span_start < cursor:
                continue
            self.emit_definition(d, max(cursor, self.attach_leading(d, cursor)))
            cursor = d.span_end + 1
        return list(self.build(definitions, captured))


#: What a metavariable (``$ty``) reads as when a macro body is parsed as items: no name
#: anyone writes, so a definition named by one is left out.
_METAVARIABLE = "__codegold_metavariable_"


def _transcribe(nodes: Sequence[Node], out: list[str]) -> None:
    """The tokens of a macro transcriber with each repetition ``$( … ),*`` written once
    and each metavariable replaced by a placeholder identifier."""
    for node in nodes:
        if node.type == "metavariable":
            out.append(_METAVARIABLE + (node.text or b"").decode("utf-8", "replace")[1:])
        elif node.type == "token_repetition":
            inner = node.children
            opened = next((i for i, c in enumerate(inner) if c.type == "("), None)
            closed = max((i for i, c in enumerate(inner) if c.type == ")"), default=None)
            if opened is not None and closed is not None and closed > opened:
                _transcribe(inner[opened + 1 : closed], out)
        elif node.child_count:
            _transcribe(node.children, out)
        elif node.text is not None:
            out.append(node.text.decode("utf-8", "replace"))


def _macro_items(node: Node, language: str) -> list[str]:
    """Names of the items a ``macro_rules!`` writes with literal names: free functions,
    structs, enums and traits bare, methods of an ``impl`` of a named type ``Type.method``
    (a type or name given by a metavariable is none anyone writes, and a method outside
    an impl has no type to be named by)."""
    names: list[str] = []
    for rule in node.named_children:
        right = rule.child_by_field_name("right") if rule.type == "macro_rule" else None
        if right is None or right.child_count < 2:
            continue
        tokens: list[str] = []
        _transcribe(right.children[1:-1], tokens)
        if not any(token in ("fn", "struct", "enum", "trait", "impl") for token in tokens):
            continue
        tree = _parser(language).parse(" ".join(tokens).encode("utf-8", "surrogatepass"))
        for item in tree.root_node.named_children:
            if item.type == "function_item" and _takes_self(item):
                # A method written for whatever impl invokes the macro: no type to name.
                continue
            if item.type in ("function_item", "struct_item", "enum_item", "trait_item"):
                _add_item_name(names, None, item.child_by_field_name("name"))
            elif item.type == "impl_item":
                owner = _base_type_name(item.child_by_field_name("type"))
                body = item.child_by_field_name("body")
                if owner is None or owner.startswith(_METAVARIABLE) or body is None:
                    continue
                for member in body.named_children:
                    if member.type == "function_item":
                        _add_item_name(names, owner, member.child_by_field_name("name"))
    return names


def _takes_self(function: Node) -> bool:
    parameters = function.child_by_field_name("parameters")
    return parameters is not None and any(
        child.type == "self_parameter" for child in parameters.named_children
    )


def _add_item_name(names: list[str], owner: str | None, node: Node | None) -> None:
    if node is None or node.text is None:
        return
    name = node.text.decode("utf-8", "replace")
    if _METAVARIABLE in name or not re.fullmatch(r"\w+", name):
        return
    qualified = f"{owner}.{name}" if owner else name
    if qualified not in names:
        names.append(qualified)


def _header_name(header: str, language: str) -> str | None:
    """The name a lone function header (``int umain(int argc, char **argv) {``)
    declares, read by parsing it with an empty body; C++ ``A::b`` reads ``A.b``."""
    tree = _parser(language).parse((header + "\n}\n").encode("utf-8", "surrogatepass"))
    for node in tree.root_node.named_children:
        if node.type != "function_definition":
            continue
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type != "function_declarator":
            declarator = declarator.child_by_field_name("declarator") or (
                declarator.named_children[-1] if declarator.named_children else None
            )
        if declarator is None:
            return None
        name = declarator.child_by_field_name("declarator")
        if name is None or name.text is None:
            return None
        text = name.text.decode("utf-8", "replace").replace("::", ".")
        return text if re.fullmatch(r"[\w.~]+", text) else None
    return None


def chunk_source(
    path: str,
    text: str,
    *,
    language: str,
    file_role: FileRole,
    config: ChunkerConfig = DEFAULT_CONFIG,
) -> ChunkResult:
    """Chunk one source file of a registered structural language.

    ``path`` is recorded in every chunk (and decides declaration files such as
    ``.pyi``); ``text`` is the whole file. See the module docstring for the rules.
    """
    return parse_and_chunk(path, text, language=language, file_role=file_role, config=config)[0]


def parse_and_chunk(
    path: str,
    text: str,
    *,
    language: str,
    file_role: FileRole,
    config: ChunkerConfig = DEFAULT_CONFIG,
) -> tuple[ChunkResult, Tree]:
    """:func:`chunk_source`, and the tree it parsed the file into (for C and C++, the
    source with its brace-splitting conditionals resolved, at the same offsets), so a
    caller that reads the syntax again (Rust's test modules) does not parse it twice."""
    file = _File(path, text, get_language(language), file_role, config)
    try:
        result = file.run(language)
    finally:
        file.unlink()
    assert file.tree is not None
    return result, file.tree
