"""C preprocessor conditionals that split braces, resolved before parsing.

tree-sitter parses a C or C++ file as written, with every ``#if`` branch in place.
When the branches of one conditional open or close braces that the code after it
relies on, the usual case being alternative signatures of one function::

    #ifdef WIN32
    int umain(int argc, char *argv[]) {
    #else
    int main(int argc, char *argv[]) {
    #endif
      ... the one body ...
    }

the parse sees two opening braces for one closing brace, and the function, often the
whole rest of the file, ends up under ``ERROR`` nodes. :func:`resolve_conditionals`
gives the parser a copy of the source with the same bytes at the same offsets except
for a few lines turned to spaces:

* only conditionals where some branch's braces (outside comments, strings and
  directives) do not balance are touched, innermost first;
* their directive lines (``#if…``, ``#elif``, ``#else``, ``#endif``) are blanked;
* of a conditional with an ``#else`` or ``#elif`` the last branch is kept as written;
  of one without, the implicit empty branch is (``extern "C" {`` in ``#ifdef
  __cplusplus`` goes, with its closing ``}`` in the later conditional);
* of an ``#if … #else`` whose branches all end inside a statement they leave open
  (two ``if (…)`` heads for one body, two declarators for one function) the last branch
  is kept and the others lose that open statement;
* of an ``#if … #elif/#else`` placed inside a statement the line above it leaves open,
  every branch finishing that statement (alternative initialisers ``x =`` ``#if A {…};``
  ``#else {…};``, alternative bodies of one ``if (…)``), the first branch is kept;
* a branch ending in a bare ``extern "C"`` (before a declaration after ``#endif``)
  loses that line;
* every other unbalanced branch loses its unbalanced tail only: the declaration that
  opens the unclosed brace (from the statement before it), or everything up to the
  last unmatched closing brace. The balanced code before it (a whole function in the
  ``WIN32`` branch) stays.

Independently of conditionals, a line holding only an upper-case macro invocation
between statements (``Q_OBJECT``, ``Q_PROPERTY(…)``, ``YY_ATTRIBUTE_UNUSED``; not an
enumerator or an argument, which a ``}``, ``)`` or operator follows) is blanked: the
parser would read it as the type of the declaration after it.

A prototype written through an argument-list macro for pre-ANSI compilers, ``int
deflate OF((z_streamp strm, int flush));`` (also ``__P((…))``, ``_ANSI_ARGS_((…))``),
loses the macro's name and its outer parentheses (``int deflate    (z_streamp strm, int
flush) ;``): the parser would read the macro as the function's name.

A ``/* … */`` comment on a continued line of a ``#define`` is blanked too
(:func:`blank_macro_comments`): the parser would end the macro there.

Each blanked tail that reads as a function header is reported as an
:class:`Alternative`: the chunker puts its lines and name into the definition that
follows, so ``umain`` and ``main`` above are one chunk with both names.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

__all__ = ["Alternative", "Resolution", "blank_macro_comments", "resolve_conditionals"]

_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(\w+)")
_LINKAGE = re.compile(rb'^[ \t]*extern[ \t]+"C(?:\+\+)?"[ \t]*(?://.*|/\*.*\*/[ \t]*)?$')
_OPENERS = frozenset({b"if", b"ifdef", b"ifndef"})
_BRANCHES = frozenset({b"elif", b"else", b"elifdef", b"elifndef"})


@dataclass(frozen=True, slots=True)
class Alternative:
    """A function header in a blanked branch: rows ``start..end`` (0-based), within the
    conditional whose directives span ``group_start..group_end``."""

    start: int
    end: int
    text: str
    group_start: int
    group_end: int


@dataclass(frozen=True, slots=True)
class Resolution:
    """What the parser reads (``source``), and the function headers taken out of it."""

    source: bytes
    alternatives: tuple[Alternative, ...]
    blanked_rows: frozenset[int]
    #: The blanked bare macro invocations (``Q_OBJECT``, ``YY_ATTRIBUTE_UNUSED``): they
    #: lead the definition right below them like a comment.
    macro_rows: frozenset[int] = frozenset()


@dataclass(slots=True)
class _Branch:
    start: int  # first row after its directive
    end: int = -1  # last row before the next directive of the group
    explicit_else: bool = False


@dataclass(slots=True)
class _Group:
    directive_rows: list[int] = field(default_factory=list)
    branches: list[_Branch] = field(default_factory=list)
    children: list[_Group] = field(default_factory=list)


def _scan(lines: list[bytes]) -> tuple[list[list[tuple[int, int]]], set[int], list[_Group]]:
    """Braces per row (``(column, +1|-1)``, outside comments, strings and directives),
    the rows of directive lines (continuations included), and the conditional tree."""
    braces: list[list[tuple[int, int]]] = [[] for _ in lines]
    directive_rows: set[int] = set()
    roots: list[_Group] = []
    stack: list[_Group] = []
    in_comment = False
    continued = False
    for row, line in enumerate(lines):
        if continued:
            directive_rows.add(row)
            continued = line.rstrip().endswith(b"\\")
            continue
        if not in_comment:
            match = _DIRECTIVE.match(line) if b"#" in line else None
            if match is not None:
                directive_rows.add(row)
                continued = line.rstrip().endswith(b"\\")
                word = match.group(1)
                if word in _OPENERS:
                    group = _Group(directive_rows=[row], branches=[_Branch(row + 1)])
                    (stack[-1].children if stack else roots).append(group)
                    stack.append(group)
                elif word in _BRANCHES and stack:
                    group = stack[-1]
                    group.branches[-1].end = row - 1
                    group.directive_rows.append(row)
                    group.branches.append(_Branch(row + 1, explicit_else=True))
                elif word == b"endif" and stack:
                    group = stack.pop()
                    group.branches[-1].end = row - 1
                    group.directive_rows.append(row)
                # A directive may end in a comment that runs on.
                in_comment = _ends_in_comment(line)
                continue
            found = _BRACE_OR_OPENER.search(line)
            if found is not None:
                # (most code lines hold no brace, comment or string: nothing to record)
                in_comment = _braces(line, braces[row], False, found.start())
            continue
        in_comment = _braces(line, braces[row], True)
    # Unterminated conditionals are left alone.
    complete = [g for g in roots if _complete(g)]
    return braces, directive_rows, complete


def _complete(group: _Group) -> bool:
    group.children = [c for c in group.children if _complete(c)]
    return all(b.end >= b.start - 1 for b in group.branches) and len(group.directive_rows) >= 2


def _ends_in_comment(line: bytes) -> bool:
    opened = line.rfind(b"/*")
    return opened != -1 and line.find(b"*/", opened + 2) == -1 and line.find(b"//") == -1


#: What :func:`_braces` stops at outside a comment: a comment's or a string's start, a brace.
_BRACE_OR_OPENER = re.compile(rb"[/\"'{}]")
#: What ends a string literal's scan: its quote, or a backslash escaping the next byte.
_STRING_STOP = {0x22: re.compile(rb'["\\]'), 0x27: re.compile(rb"['\\]")}


def _braces(line: bytes, out: list[tuple[int, int]], in_comment: bool, start: int = 0) -> bool:
    """Append the braces of one code line to ``out``; return whether a block comment
    is still open at its end. (The scan jumps from one byte that matters to the next;
    ``start``: where to begin, no such byte before it.)"""
    n = len(line)
    search = _BRACE_OR_OPENER.search
    i = start
    while True:
        if in_comment:
            end = line.find(b"*/", i)
            if end == -1:
                return True
            in_comment = False
            i = end + 2
        found = search(line, i)
        if found is None:
            return False
        i = found.start()
        c = line[i]
        if c == 0x7B:  # '{'
            out.append((i, 1))
            i += 1
        elif c == 0x7D:  # '}'
            out.append((i, -1))
            i += 1
        elif c == 0x2F:  # '/'
            nxt = line[i + 1] if i + 1 < n else 0
            if nxt == 0x2F:
                return False
            if nxt == 0x2A:
                in_comment = True
                i += 2
            else:
                i += 1
        else:  # a quote: skip the literal, escapes included
            stop = _STRING_STOP[c].search
            i += 1
            while True:
                at = stop(line, i)
                if at is None:
                    return False
                i = at.start()
                if line[i] == c:
                    i += 1
                    break
                i += 2


def _statement_end(line: bytes) -> bool:
    text = line.split(b"//", 1)[0].rstrip()
    return text.endswith((b";", b"}"))


_TRAILING_COMMENT = re.compile(rb"(?://.*|/\*(?:(?!\*/).)*\*/[ \t]*)$")


def _open_end(line: bytes) -> bool:
    """The line ends inside a statement (after an ``if (…)`` head, a declarator, an
    operator), not after ``;``, a brace, a label's ``:`` or a list's ``,``."""
    text = _TRAILING_COMMENT.sub(b"", line.rstrip()).rstrip()
    if not text or text.endswith(b"*/"):
        return False
    return not text.endswith((b";", b"{", b"}", b",", b":", b"\\"))


#: A line holding only an upper-case macro invocation, no ``;`` after it: ``Q_OBJECT``,
#: ``Q_PROPERTY(int x READ x)``, ``G_DEFINE_TYPE (Foo, foo, G_TYPE_OBJECT)``.
_BARE_MACRO = re.compile(
    rb"^[ \t]*[A-Z][A-Z0-9_]+[ \t]*(?:\([^;{}]*\))?[ \t]*(?://.*|/\*(?:(?!\*/).)*\*/[ \t]*)?$"
)
#: What a code line after a bare macro may not start with: the macro is then part of an
#: expression, an enumerator list or a function header (``LAST_KIND`` before ``};``).
_CONTINUATION = re.compile(rb"^[ \t]*[})\],;.?:{=+\-*/%&|<>!^]")
#: A top-level code line that is a declarator with no type before it
#: (``yaml_parser_load(yaml_parser_t *parser)``): a macro line above it in the first
#: column is its type (``YAML_DECLARE(int)``, ``EXPORT_API``). Statement keywords are no
#: declarator (``YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN`` above ``switch (kind)``).
_DECLARATOR = re.compile(
    rb"^\**[ \t]*(?!(?:if|for|while|switch|return|sizeof|do|else|case|goto)\b)"
    rb"[A-Za-z_][A-Za-z0-9_]*[ \t]*\("
)


def _bare_macros(lines: list[bytes], directive_rows: set[int]) -> set[int]:
    """Rows of bare macro invocations between statements (after ``;``, a brace or a
    label's ``:``): they expand to declarations the parser cannot see, and it reads them
    as the type of the declaration after them (``Q_OBJECT public:`` in a Qt class)."""
    rows: set[int] = set()
    previous: bytes | None = None
    candidate: int | None = None
    in_comment = False
    for row, line in enumerate(lines):
        text = line.strip()
        if in_comment:
            in_comment = b"*/" not in text
            continue
        if row in directive_rows or not text or text.startswith(b"//"):
            continue
        if text.startswith(b"/*"):
            in_comment = b"*/" not in text
            continue
        if candidate is not None:
            declarator = (
                lines[candidate][:1] not in (b" ", b"\t")
                and _DECLARATOR.match(line)
                and not _BARE_MACRO.match(line)
            )
            if _CONTINUATION.match(line) is None and not declarator:
                rows.add(candidate)
            candidate = None
        # (an upper-case letter first, or no bare macro: most lines are spared the regex)
        if (
            0x41 <= text[0] <= 0x5A  # A-Z
            and _BARE_MACRO.match(line)
            and (previous is None or not _open_end(previous))
        ):
            # A run of them (``Q_OBJECT`` then ``Q_PROPERTY(…)``) stands between statements.
            candidate = row
            continue
        previous = line
    return rows


def _inner_first(groups: Sequence[_Group]) -> Iterator[_Group]:
    """Each group after the groups nested in it, in order. (Not a closure calling itself
    in :func:`resolve_conditionals`: its cell would hold it in a cycle, and with it the
    file's lines, until the cyclic collector runs -- which a build keeps off.)"""
    for group in groups:
        yield from _inner_first(group.children)
        yield group


#: ``name OF((``: a declarator's name, then an upper-case macro taking the parameter
#: list in double parentheses (the K&R-compatible prototype idiom).
_ARGUMENT_MACRO = re.compile(
    rb"(?m)^(?![ \t]*#)[^\n]*?(?:[A-Za-z0-9_]|\))[ \t]+(_*[A-Z][A-Z0-9_]*)[ \t]*\((\()"
)
#: Words that may stand before a macro call in an expression (``return MAX((a), b)``).
_EXPRESSION_WORDS = frozenset(
    b"return sizeof case else do goto typeof alignof _Alignof __typeof__".split()
)


def _argument_macros(source: bytes) -> list[tuple[int, int, int]]:
    """``(start, end, close)`` of each ``MACRO((`` of an argument-list macro prototype:
    bytes ``start..end`` hold the macro's name and its opening parenthesis, ``close`` is
    its closing one. Only where the inner list is the macro's whole argument and a
    ``;``, ``{`` or the line's end follows (``MAX((p).len, n)`` is no prototype)."""
    found: list[tuple[int, int, int]] = []
    for match in _ARGUMENT_MACRO.finditer(source):
        before = source[: match.start(1)].rstrip()
        if before.endswith(b")"):
            # Only a function pointer's declarator, ``(*alloc_func) OF((…))``: after a
            # parameter list it is an attribute (``f(…) JANSSON_ATTRS((unused))``).
            opened = _opening_parenthesis(before)
            if opened < 0 or not before[opened + 1 :].lstrip().startswith(b"*"):
                continue
        word = re.search(rb"[A-Za-z_][A-Za-z0-9_]*$", before)
        if word is not None and word.group() in _EXPRESSION_WORDS:
            continue
        depth = 0
        inner_close = -1
        for index in range(match.start(2), len(source)):
            byte = source[index]
            if byte == 0x28:  # (
                depth += 1
            elif byte == 0x29:  # )
                depth -= 1
                if depth == 0:
                    inner_close = index
                    break
            elif byte in b";{}":
                break
        if inner_close < 0:
            continue
        close = inner_close + 1
        while close < len(source) and source[close] in b" \t":
            close += 1
        if close >= len(source) or source[close] != 0x29:
            continue
        after = source[close + 1 :].lstrip(b" \t")[:1]
        if after and after not in b";{\r\n":
            continue
        found.append((match.start(1), match.start(2), close))
    return found


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define\b")
_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/")


def blank_macro_comments(source: bytes) -> bytes | None:
    """``source`` with the ``/* … */`` comments on the lines of a ``#define`` continued
    by ``\\`` turned to spaces (same offsets), or None when there are none. The
    parser ends a macro at a comment followed by a continuation: http-parser's
    ``HTTP_ERRNO_MAP(XX)``, 46 lines of ``XX(…) \\`` with a ``/* Callback-related errors
    */ \\`` heading each group, ended at its first heading, and its entries were read as
    file-level calls."""
    if b"/*" not in source or b"define" not in source:
        return None
    lines = source.split(b"\n")
    changed = False
    inside = False
    for row, line in enumerate(lines):
        macro = inside or _DEFINE.match(line) is not None
        continued = line.rstrip(b"\r").endswith(b"\\")
        if macro and (inside or continued) and b"/*" in line:
            blanked = _BLOCK_COMMENT.sub(lambda m: b" " * len(m.group(0)), line)
            if blanked != line:
                lines[row] = blanked
                changed = True
        inside = macro and continued
    return b"\n".join(lines) if changed else None


def resolve_conditionals(source: bytes) -> Resolution | None:
    """The source the parser should read, or None when no conditional splits braces,
    no bare macro invocation sits between statements and no prototype is written
    through an argument-list macro."""
    macro_args = _argument_macros(source) if b"((" in source else []
    if b"{" not in source and b"}" not in source:
        if not macro_args:
            return None
        return Resolution(_blank_argument_macros(source, macro_args), (), frozenset())
    lines = source.split(b"\n")
    braces, directive_rows, groups = _scan(lines)
    macros = _bare_macros(lines, directive_rows)
    blanked: set[int] = set(macros)
    alternatives: list[Alternative] = []

    def delta(branch: _Branch) -> int:
        return sum(
            step
            for row in range(branch.start, branch.end + 1)
            if row not in blanked and row not in directive_rows
            for _, step in braces[row]
        )

    def tail(branch: _Branch) -> tuple[int, int] | None:
        """The unbalanced rows of a branch: from the start of the declaration opening
        its first unclosed brace to its end, or from its start to its last unmatched
        closing brace."""
        steps = [
            (row, step)
            for row in range(branch.start, branch.end + 1)
            if row not in blanked and row not in directive_rows
            for _, step in braces[row]
        ]
        depth = 0
        low = 0
        low_at = -1  # index in steps after which depth stays above its minimum
        last_close = -1
        for index, (row, step) in enumerate(steps):
            depth += step
            if depth <= low:
                low = depth
                low_at = index
                if step < 0:
                    last_close = row
        if depth > low:
            opener_row = steps[low_at + 1][0]
            start = branch.start
            for row in range(opener_row - 1, branch.start - 1, -1):
                if row in directive_rows or row in blanked:
                    continue
                if _statement_end(lines[row]):
                    start = row + 1
                    break
            return start, branch.end
        if last_close >= 0:
            return branch.start, last_close
        return None

    def code_rows(branch: _Branch) -> list[int]:
        return [
            r
            for r in range(branch.start, branch.end + 1)
            if r not in directive_rows and r not in blanked and lines[r].strip()
        ]

    def alternative_heads(group: _Group) -> bool:
        """Every branch of an ``#if … #else`` ends inside a statement it leaves open:
        alternative heads of one statement (``if (localtime_s(…))`` / ``if
        (localtime_r(…) == NULL)``, then one body after ``#endif``)."""
        if len(group.branches) < 2 or not group.branches[-1].explicit_else:
            return False
        for branch in group.branches:
            rows = code_rows(branch)
            if not rows or not _open_end(lines[rows[-1]]):
                return False
        return True

    def before(group: _Group) -> bytes | None:
        """The last code line above a conditional (directives and comments skipped)."""
        row = group.directive_rows[0] - 1
        while row >= 0:
            line = lines[row]
            text = line.strip()
            if row in directive_rows or row in blanked or not text:
                row -= 1
                continue
            if text.startswith((b"/*", b"*", b"//")) or text.endswith(b"*/"):
                row -= 1
                continue
            return line
        return None

    def alternative_completions(group: _Group) -> bool:
        """An ``#if … #else`` (or ``#elif``) placed inside a statement the line above it
        leaves open, every branch finishing that statement: alternative initialisers
        (``static uByte nines[N] =`` ``#if SINGLE {9, …};`` ``#elif DOUBLE {9, …};``)
        or alternative bodies of one ``if (…)`` (``#ifdef FREE FREE(v); #else
        free(v); #endif``). The parser reads one statement with several ends."""
        if len(group.branches) < 2 or group.children:
            return False
        above = before(group)
        if above is None or not _open_end(above):
            return False
        for branch in group.branches:
            rows = code_rows(branch)
            if not rows or not _statement_end(lines[rows[-1]]):
                return False
        return True

    def expression_part(group: _Group) -> bool:
        """An ``#if`` without ``#else`` placed inside an expression: the line above it
        leaves the statement open and so does its branch (``CRT_treeStr =`` ``#ifdef W
        CRT_utf8 ? CRT_treeStrUtf8 :`` ``#endif`` ``CRT_treeStrAscii;``; flags joined
        by ``|``). The parser reads no directive inside an expression; the branch is
        kept as written, a part of the one statement."""
        if len(group.branches) != 1 or group.children:
            return False
        above = before(group)
        if above is None or not _open_end(above):
            return False
        rows = code_rows(group.branches[0])
        if not rows:
            return False
        last = lines[rows[-1]]
        # (a conditional expression's ``:`` is no label's)
        return _open_end(last) or (b"?" in last and last.rstrip().endswith(b":"))

    def open_tail(branch: _Branch) -> tuple[int, int] | None:
        """The rows of the statement a branch leaves open, from the previous
        statement's end."""
        rows = code_rows(branch)
        if not rows:
            return None
        start = branch.start
        for row in reversed(rows[:-1]):
            if not _open_end(lines[row]):
                start = row + 1
                break
        return start, branch.end

    def resolve(group: _Group) -> None:
        for branch in group.branches:
            # `#ifdef __cplusplus` / `extern "C"` / `#endif` before one declaration (the
            # autoconf alloca idiom): the linkage applies to code outside the branch.
            rows = [
                r
                for r in range(branch.start, branch.end + 1)
                if r not in directive_rows and r not in blanked and lines[r].strip()
            ]
            if rows and _LINKAGE.match(lines[rows[-1]]):
                blanked.add(rows[-1])
        balanced = all(delta(branch) == 0 for branch in group.branches)
        part = balanced and expression_part(group)
        completions = balanced and not part and alternative_completions(group)
        if balanced and not part and not completions and not alternative_heads(group):
            return
        kept = group.branches[-1] if group.branches[-1].explicit_else else None
        if completions:
            # The first branch is kept (the one a plain ``#if`` reading shows first);
            # an ``#if`` without ``#else`` may be the empty one, which must not be kept.
            kept = group.branches[0]
        group_start, group_end = group.directive_rows[0], group.directive_rows[-1]
        for row in group.directive_rows:
            blanked.add(row)
            # Continuation lines of a directive go with it.
            nxt = row + 1
            while nxt in directive_rows and lines[nxt - 1].rstrip().endswith(b"\\"):
                blanked.add(nxt)
                nxt += 1
        if part:
            return
        for branch in group.branches:
            if branch is kept:
                continue
            if completions:
                rows = code_rows(branch)
                span = (rows[0], rows[-1]) if rows else None
            elif balanced:
                span = open_tail(branch)
            elif delta(branch) == 0:
                continue
            else:
                span = tail(branch)
            if span is None:
                continue
            start, end = span
            while start < end and not lines[start].strip():
                start += 1
            rows = [r for r in range(start, end + 1) if r not in directive_rows]
            blanked.update(range(start, end + 1))
            text = b"\n".join(lines[r] for r in rows).decode("utf-8", "replace")
            if not completions and kept is not None and b"(" in b"".join(lines[r] for r in rows):
                alternatives.append(Alternative(start, end, text, group_start, group_end))

    for group in _inner_first(groups):
        resolve(group)
    if not blanked and not macro_args:
        return None
    out = bytearray(_blank_argument_macros(source, macro_args))
    starts = [0]
    for line in lines[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    for row in blanked:
        begin = starts[row]
        out[begin : begin + len(lines[row])] = b" " * len(lines[row])
    return Resolution(bytes(out), tuple(alternatives), frozenset(blanked), frozenset(macros))


def _opening_parenthesis(text: bytes) -> int:
    """The offset of the ``(`` matching the ``)`` that ends ``text`` (-1: none)."""
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        byte = text[index]
        if byte == 0x29:  # )
            depth += 1
        elif byte == 0x28:  # (
            depth -= 1
            if depth == 0:
                return index
        elif byte in b";{}":
            break
    return -1


def _blank_argument_macros(source: bytes, spans: list[tuple[int, int, int]]) -> bytes:
    """``source`` with each argument-list macro's name, its opening and its closing
    parenthesis turned to spaces (same length, same offsets)."""
    if not spans:
        return source
    out = bytearray(source)
    for start, end, close in spans:
        out[start:end] = b" " * (end - start)
        out[close] = 0x20
    return bytes(out)
