"""Definitions found by regular expressions, for code in languages without a grammar.

This is a HEURISTIC, used only where no tree-sitter grammar applies: files of a
language codegold has no grammar for (Perl, R, Elixir, Dart, Zig, SQL, ...), and files
of a structural language whose parse failed (mostly ``ERROR`` nodes). It reads one line
at a time and recognises a definition only where a language's keyword introduces it
at the start of a line (``def name``, ``function name``, ``fn name``, ``sub name``,
``class Name``, ``CREATE TABLE name``...). It does not parse: it misses definitions
written any other way, and it can take a line inside a multi-line string or comment
for one. It never looks inside expressions, so it does not find references.

Names are qualified by indentation: a definition indented under an open container
line (``class``, ``module``, ``defmodule``, ``object``...) is ``Container.name``; a
line at or left of the container's indentation (a closing ``end``/``}`` included)
closes it. Comment lines, lone opening braces and ``#`` directives do not close
anything. A definition
indented under an open function is local and ignored. Perl's ``package Foo;`` qualifies
the definitions after it; its ``__END__`` ends the code and POD blocks (``=head1``
... ``=cut``) are skipped, each starting a new window. Written separators (``A::B``,
Lua ``M:m``, Vim ``a#b``) become dots, and quoting (SQL ``"schema"."table"``) is
dropped.

:func:`find_definitions` returns the definitions; the window chunker uses them to start
windows at definition lines and to fill ``symbol``/``symbols``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Definition",
    "Family",
    "digest",
    "family_for_language",
    "family_for_path",
    "find_definitions",
    "heuristic_families",
]

#: What a matched line is: a function-like definition, a container that qualifies
#: what is indented under it, a statement that qualifies everything after it, or a
#: boundary that only starts a new window (Perl ``__END__`` and POD).
FUNCTION, CONTAINER, PACKAGE, BOUNDARY = "function", "container", "package", "boundary"


@dataclass(frozen=True, slots=True)
class Definition:
    """A definition line: 0-based ``row`` and qualified ``name`` (empty for a boundary)."""

    row: int
    name: str
    container: bool


@dataclass(frozen=True, slots=True)
class Family:
    """One language (or a few close ones) the heuristic knows.

    ``patterns`` are ``(regex, what, prefix)`` tried in order on each line; a regex has
    a ``name`` group and may have a ``kind`` group (Terraform ``resource "kind" "name"``
    reads as ``kind.name``); a non-empty ``prefix`` is put before the name (``var.name``
    for a Terraform variable). ``comments`` are the prefixes of comment lines, which attach to the
    definition below them. ``marker``, when set, must occur in the text for the family
    to apply (``.m`` is Objective-C with ``@interface``, else MATLAB).
    """

    name: str
    extensions: tuple[str, ...]
    patterns: tuple[tuple[re.Pattern[str], str, str], ...]
    comments: tuple[str, ...] = ("#",)
    marker: re.Pattern[str] | None = None


def _family(
    name: str,
    extensions: tuple[str, ...],
    patterns: Sequence[tuple[str, ...]],
    *,
    comments: tuple[str, ...] = ("#",),
    ignore_case: bool = False,
    marker: str | None = None,
) -> Family:
    flags = re.IGNORECASE if ignore_case else 0
    return Family(
        name=name,
        extensions=extensions,
        patterns=tuple(
            (re.compile(entry[0], flags), entry[1], entry[2] if len(entry) > 2 else "")
            for entry in patterns
        ),
        comments=comments,
        marker=re.compile(marker, re.MULTILINE) if marker else None,
    )


_C_COMMENTS = ("//", "/*", "*")
# A C-like function or method: a return type, the name, a parameter list closed on the
# same line, and a body opening (``{`` or ``=>``). Control keywords are rejected below.
_C_LIKE = (
    r"^\s*(?:[\w$<>\[\]?,.*&]+\s+)+(?P<name>[A-Za-z_$][\w$]*)\s*\([^;{}]*\)"
    r"\s*(?:async\s*\*?\s*|const\s*|throws\s+[\w.,\s]+)?(?:\{|=>)"
)
_MODIFIERS = (
    r"^\s*(?:(?:public|private|protected|internal|open|abstract|sealed|final|static|data|"
    r"inline|override|suspend|operator|infix|tailrec|external|lazy|implicit|case|enum|"
    r"annotation|inner|value|fileprivate|mutating|nonmutating|convenience|required|"
    r"dynamic|optional|indirect|async|export|default|readonly|partial|pub|unsafe)\s+|@\w+"
    r"(?:\([^)]*\))?\s+)*"
)

_FAMILIES: tuple[Family, ...] = (
    _family(
        "perl",
        (".pl", ".pm"),
        [
            (r"^\s*package\s+(?P<name>[\w:]+)\s*[;{]", PACKAGE),
            (r"^\s*sub\s+(?P<name>[\w:]+)", FUNCTION),
            (r"^(?P<name>__END__|__DATA__|=(?!cut\b)[a-z]+\d?)\b", BOUNDARY),
        ],
    ),
    _family(
        "r",
        (".r",),
        [
            (r"^\s*(?P<name>[\w.]+)\s*(?:<<?-|=)\s*function\b", FUNCTION),
            (r"^\s*(?P<name>[\w.]+)\s*<-\s*(?:R6::)?R6Class\(", FUNCTION),
            (r"^\s*setClass\(\s*[\"'](?P<name>[\w.]+)", FUNCTION),
        ],
    ),
    _family(
        "elixir",
        (".ex", ".exs"),
        [
            (r"^\s*(?:defmodule|defprotocol)\s+(?P<name>[\w.]+)", CONTAINER),
            (
                r"^\s*(?:def|defp|defmacro|defmacrop|defguard|defguardp|defdelegate)"
                r"\s+(?P<name>[a-z_][\w]*[?!]?)",
                FUNCTION,
            ),
        ],
    ),
    _family(
        "erlang",
        (".erl", ".hrl"),
        [
            (r"^-record\(\s*(?P<name>[a-z]\w*)", FUNCTION),
            (r"^(?P<name>[a-z]\w*)\s*\(.*\)\s*(?:when\b.*)?->", FUNCTION),
        ],
        comments=("%",),
    ),
    _family(
        "dart",
        (".dart",),
        [
            (
                r"^\s*(?:(?:abstract|sealed|base|final|interface|mixin)\s+)*"
                r"(?:class|mixin|enum|extension)\s+(?P<name>\w+)",
                CONTAINER,
            ),
            (r"^\s*typedef\s+(?P<name>\w+)", FUNCTION),
            (_C_LIKE, FUNCTION),
        ],
        comments=(*_C_COMMENTS, "@"),
    ),
    _family(
        "zig",
        (".zig",),
        [
            (
                r"^\s*(?:pub\s+)?const\s+(?P<name>\w+)\s*=\s*(?:extern\s+|packed\s+)?"
                r"(?:struct|enum|union|opaque)\b",
                CONTAINER,
            ),
            (
                r"^\s*(?:pub\s+)?(?:export\s+|extern\s+(?:\"\w+\"\s+)?|inline\s+)?fn\s+"
                r"(?P<name>\w+)",
                FUNCTION,
            ),
        ],
        comments=("//",),
    ),
    _family(
        "sql",
        (".sql",),
        [
            (
                r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:OR\s+ALTER\s+)?"
                r"(?:(?:GLOBAL|LOCAL|TEMP|TEMPORARY|UNLOGGED|MATERIALIZED|UNIQUE|RECURSIVE"
                r"|DEFINER\s*=\s*\S+)\s+)*"
                r"(?:FUNCTION|PROCEDURE|PROC|TABLE|VIEW|TRIGGER|TYPE|INDEX|SEQUENCE|SCHEMA"
                r"|DOMAIN|MACRO)\s+(?:IF\s+NOT\s+EXISTS\s+)?(?P<name>[\w.\"`\[\]]+)",
                FUNCTION,
            ),
        ],
        comments=("--", "/*", "*"),
        ignore_case=True,
    ),
    _family(
        "haskell",
        (".hs",),
        [
            (
                r"^(?:data|newtype|type(?:\s+family)?|class|instance)\s+"
                r"(?:\([^)]*\)\s*=>\s*|[\w\s]*=>\s*)?(?P<name>[A-Z][\w']*)",
                FUNCTION,
            ),
            (r"^(?P<name>[a-z_][\w']*)\s*::", FUNCTION),
        ],
        comments=("--", "{-"),
    ),
    _family(
        "julia",
        (".jl",),
        [
            (r"^\s*(?:bare)?module\s+(?P<name>\w+)", CONTAINER),
            (r"^\s*(?:mutable\s+)?struct\s+(?P<name>\w+)", FUNCTION),
            (r"^\s*abstract\s+type\s+(?P<name>\w+)", FUNCTION),
            (r"^\s*(?:function|macro)\s+(?:[\w.]+\.)?(?P<name>[\w!]+)", FUNCTION),
            (r"^(?P<name>[\w!]+)\([^)]*\)\s*=[^=]", FUNCTION),
        ],
    ),
    _family(
        "ocaml",
        (".ml", ".mli"),
        [
            (r"^\s*module\s+(?:type\s+)?(?P<name>[A-Z][\w']*)", CONTAINER),
            (r"^let\s+(?:rec\s+)?(?P<name>[a-z_][\w']*)", FUNCTION),
            (r"^(?:val|external)\s+(?P<name>[a-z_][\w']*)", FUNCTION),
            (r"^\s*type\s+(?:'\w+\s+|\([^)]*\)\s+)?(?P<name>[a-z_][\w']*)", FUNCTION),
        ],
        comments=("(*",),
    ),
    _family(
        "fsharp",
        (".fs", ".fsi", ".fsx"),
        [
            (r"^\s*module\s+(?:rec\s+)?(?P<name>[A-Z][\w.]*)", CONTAINER),
            (r"^\s*type\s+(?:private\s+|internal\s+)?(?P<name>[A-Z]\w*)", CONTAINER),
            (r"^\s*(?:static\s+)?(?:member|override|abstract)\s+(?:\w+\.)?(?P<name>\w+)", FUNCTION),
            (r"^\s*let\s+(?:rec\s+|inline\s+|private\s+|mutable\s+)*(?P<name>[a-z_]\w*)", FUNCTION),
        ],
        comments=("//", "(*"),
    ),
    _family(
        "clojure",
        (".clj", ".cljs", ".cljc"),
        [
            (
                r"^\s*\((?:defn-?|defmacro|defmulti|defmethod|defprotocol|defrecord|deftype"
                r"|defonce|def)\s+(?:\^\S+\s+)*(?P<name>[^\s()\[\]{}\"]+)",
                FUNCTION,
            ),
        ],
        comments=(";",),
    ),
    _family(
        "lisp",
        (".el", ".lisp", ".cl", ".scm", ".ss", ".rkt"),
        [
            (
                r"^\s*\((?:cl-)?(?:defun|defmacro|defvar|defcustom|defconst|defclass|defgeneric"
                r"|defmethod|defstruct|defsubst|define-derived-mode|define-minor-mode)\s+"
                r"(?P<name>[^\s()]+)",
                FUNCTION,
            ),
            (r"^\s*\(define(?:-syntax|-record-type)?\s+\(?(?P<name>[^\s()]+)", FUNCTION),
        ],
        comments=(";",),
    ),
    _family(
        "groovy",
        (".groovy", ".gradle", ".gvy"),
        [
            (_MODIFIERS + r"(?:class|interface|enum|trait)\s+(?P<name>\w+)", CONTAINER),
            (_MODIFIERS + r"def\s+(?P<name>\w+)\s*\(", FUNCTION),
            (_C_LIKE, FUNCTION),
        ],
        comments=(*_C_COMMENTS, "@"),
    ),
    _family(
        "nim",
        (".nim",),
        [
            (
                r"^\s*(?:proc|func|method|iterator|template|macro|converter)\s+`?"
                r"(?P<name>\w+)",
                FUNCTION,
            ),
            (r"^\s*(?P<name>\w+)\*?(?:\[[^\]]*\])?\s*=\s*(?:ref\s+|ptr\s+)?object\b", FUNCTION),
        ],
    ),
    _family(
        "crystal",
        (".cr",),
        [
            (r"^\s*(?:abstract\s+)?(?:class|module|struct|lib)\s+(?P<name>[\w:]+)", CONTAINER),
            (
                r"^\s*(?:(?:private|protected|abstract)\s+)*def\s+(?:self\.)?(?P<name>[\w?!=]+)",
                FUNCTION,
            ),
        ],
    ),
    _family(
        "objc",
        (".m", ".mm"),
        [
            (r"^\s*@(?:interface|implementation|protocol)\s+(?P<name>\w+)", FUNCTION),
            (r"^\s*[-+]\s*\([^)]*\)\s*(?P<name>\w+)", FUNCTION),
            (_C_LIKE, FUNCTION),
        ],
        comments=_C_COMMENTS,
        marker=r"^\s*(?:#import\b|#include\b|@interface\b|@implementation\b|@protocol\b)",
    ),
    _family(
        "matlab",
        (".m",),
        [
            (r"^\s*classdef\s+(?:\([^)]*\)\s*)?(?P<name>\w+)", CONTAINER),
            (
                r"^\s*function\s+(?:\[[^\]]*\]\s*=\s*|\w+\s*=\s*)?(?P<name>[\w.]+)",
                FUNCTION,
            ),
        ],
        comments=("%",),
    ),
    _family(
        "powershell",
        (".ps1", ".psm1"),
        [
            (r"^\s*class\s+(?P<name>\w+)", CONTAINER),
            (r"^\s*(?:function|filter|workflow)\s+(?:\w+:)?(?P<name>[\w-]+)", FUNCTION),
        ],
        ignore_case=True,
    ),
    _family(
        "fortran",
        (".f90", ".f95", ".f03", ".f08", ".f", ".for"),
        [
            (r"^\s*module\s+(?!procedure\b)(?P<name>\w+)", CONTAINER),
            (
                r"^\s*(?:(?:pure|elemental|recursive|impure|module|integer|real|logical"
                r"|complex|character|double\s+precision|type\s*\(\w+\))(?:\s*\([^)]*\))?\s+)*"
                r"(?:subroutine|function|program)\s+(?P<name>\w+)",
                FUNCTION,
            ),
        ],
        comments=("!",),
        ignore_case=True,
    ),
    _family(
        "vb",
        (".vb", ".bas"),
        [
            (
                r"^\s*(?:(?:Public|Private|Friend|Protected|Shared|Partial|NotInheritable"
                r"|MustInherit)\s+)*(?:Class|Module|Structure|Interface)\s+(?P<name>\w+)",
                CONTAINER,
            ),
            (
                r"^\s*(?:(?:Public|Private|Friend|Protected|Shared|Overrides|Overridable"
                r"|MustOverride|Overloads|Async|Static|ReadOnly|WriteOnly|Default)\s+)*"
                r"(?:Sub|Function|Property|Enum)\s+(?P<name>\w+)",
                FUNCTION,
            ),
        ],
        comments=("'",),
        ignore_case=True,
    ),
    _family(
        "solidity",
        (".sol",),
        [
            (r"^\s*(?:abstract\s+)?(?:contract|interface|library)\s+(?P<name>\w+)", CONTAINER),
            (r"^\s*(?:function|modifier|event|struct|enum|error)\s+(?P<name>\w+)", FUNCTION),
        ],
        comments=_C_COMMENTS,
    ),
    _family(
        "protobuf",
        (".proto",),
        [
            (r"^\s*(?:message|service)\s+(?P<name>\w+)", CONTAINER),
            (r"^\s*(?:enum\s+|rpc\s+)(?P<name>\w+)", FUNCTION),
        ],
        comments=("//", "/*", "*"),
    ),
    _family(
        "graphql",
        (".graphql", ".graphqls", ".gql"),
        [
            (
                r"^\s*(?:extend\s+)?(?:type|interface|enum|input|union|scalar)\s+(?P<name>\w+)",
                FUNCTION,
            ),
            (r"^\s*(?:query|mutation|subscription|fragment)\s+(?P<name>\w+)", FUNCTION),
            (r"^\s*directive\s+@(?P<name>\w+)", FUNCTION),
        ],
    ),
    _family(
        "terraform",
        (".tf", ".hcl"),
        [
            (r"^\s*resource\s+\"(?P<kind>[\w-]+)\"\s+\"(?P<name>[\w-]+)\"", FUNCTION),
            (r"^\s*data\s+\"(?P<kind>[\w-]+)\"\s+\"(?P<name>[\w-]+)\"", FUNCTION, "data"),
            (r"^\s*variable\s+\"(?P<name>[\w-]+)\"", FUNCTION, "var"),
            (r"^\s*module\s+\"(?P<name>[\w-]+)\"", FUNCTION, "module"),
            (r"^\s*(?:output|provider)\s+\"(?P<name>[\w-]+)\"", FUNCTION),
        ],
        comments=("#", "//", "/*", "*"),
    ),
    _family(
        "vim",
        (".vim",),
        [(r"^\s*fu(?:nction)?!?\s+(?P<name>[\w:#.]+)", FUNCTION)],
        comments=('"',),
    ),
    _family(
        "pascal",
        (".pas", ".pp", ".dpr"),
        [
            (
                r"^\s*(?:class\s+)?(?:procedure|function|constructor|destructor)\s+"
                r"(?P<name>[\w.]+)",
                FUNCTION,
            ),
        ],
        comments=("//", "{", "(*"),
        ignore_case=True,
    ),
    _family(
        "gleam",
        (".gleam",),
        [
            (r"^\s*(?:pub\s+)?fn\s+(?P<name>\w+)", FUNCTION),
            (r"^\s*(?:pub\s+)?(?:opaque\s+)?type\s+(?P<name>\w+)", FUNCTION),
        ],
        comments=("//",),
    ),
    _family(
        "elm",
        (".elm",),
        [
            (r"^type\s+(?:alias\s+)?(?P<name>[A-Z]\w*)", FUNCTION),
            (r"^(?P<name>[a-z]\w*)\s*:(?!:)", FUNCTION),
        ],
        comments=("--", "{-"),
    ),
    _family(
        "cmake",
        (".cmake",),
        [(r"^\s*(?:function|macro)\s*\(\s*(?P<name>[\w-]+)", FUNCTION)],
        ignore_case=True,
    ),
)

# C and C++ (macro-heavy headers are what fails to parse): macros with a value or
# parameters, types with a body, functions and prototypes with a return type (also
# written through an argument-list macro, ``int deflate OF((…));``), and
# out-of-line members (``Foo::bar(`` reads as ``Foo.bar``). Namespaces neither match
# nor qualify.
_C_FAMILY_PATTERNS = (
    (r"^\s*#\s*define\s+(?P<name>\w+)(?:\(|[ \t]+\S)", FUNCTION),
    (
        r"^\s*(?:typedef\s+)?(?:struct|union|enum(?:\s+class)?|class)\s+(?:\w+\s+)*?"
        r"(?P<name>[A-Za-z_]\w*)\s*(?:final\s*)?(?:[:{]|$)",
        CONTAINER,
    ),
    (
        r"^\s*(?!(?:return|else|case|goto|typedef|delete|throw|new|using|namespace|struct"
        r"|union|enum|class|if|while|for|switch|do|sizeof)\b)"
        r"(?:(?:[\w:<>,]+[\s*&]+)+|(?=\w+::))(?P<name>~?[A-Za-z_][\w:]*)"
        # a prototype through an argument-list macro, ``deflate OF((…))``, is ``deflate``
        r"(?:\s+_*[A-Z][A-Z0-9_]*\s*\(\s*\(|\s*\((?!\())",
        FUNCTION,
    ),
)

# Yacc/Bison and Lex/Flex sources hold C: their helper functions, macros and types are
# found like C's (grammar rules are not definitions).
_FAMILIES = (
    *_FAMILIES,
    _family("yacc", (".y", ".yy", ".ypp"), _C_FAMILY_PATTERNS, comments=_C_COMMENTS),
    _family("lex", (".l", ".ll", ".lex"), _C_FAMILY_PATTERNS, comments=_C_COMMENTS),
)

# JavaScript and TypeScript definitions a line starts: classes, interfaces, enums and
# namespaces (containers); functions, function-valued variables, type aliases and
# property assignments (`res.send = function`); class members by their signature line.
_JS_FAMILY_PATTERNS = [
    (
        r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?"
        r"(?:class|interface|enum|namespace)\s+(?P<name>[\w$]+)",
        CONTAINER,
    ),
    (
        r"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*"
        r"(?P<name>[\w$]+)",
        FUNCTION,
    ),
    (
        r"^\s*(?:export\s+)?(?:const|let|var)\s+(?P<name>[\w$]+)\s*(?::[^=]+)?=\s*"
        r"(?:async\s+)?(?:function\b|\([^)]*\)?\s*(?:=>|$)|[\w$]+\s*=>|<)",
        FUNCTION,
    ),
    (r"^\s*(?:export\s+)?(?:declare\s+)?type\s+(?P<name>[\w$]+)\s*(?:<.*>)?\s*=", FUNCTION),
    (r"^(?P<name>[\w$]+(?:\.[\w$]+)+)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)", FUNCTION),
    (
        r"^\s+(?:(?:public|private|protected|static|readonly|abstract|override|async|get|set)"
        r"\s+)*\*?(?P<name>#?[\w$]+)\s*(?:<[^>]*>)?\s*\([^;]*\)\s*(?::[^{;=]+)?\{\s*$",
        FUNCTION,
    ),
]

# Fallbacks for structural languages whose parse failed (keyed by language name).
_STRUCTURAL_FAMILIES: tuple[Family, ...] = (
    _family("javascript", (), _JS_FAMILY_PATTERNS, comments=_C_COMMENTS),
    _family("typescript", (), _JS_FAMILY_PATTERNS, comments=_C_COMMENTS),
    _family("tsx", (), _JS_FAMILY_PATTERNS, comments=_C_COMMENTS),
    _family(
        "python",
        (),
        [
            (r"^\s*class\s+(?P<name>\w+)", CONTAINER),
            (r"^\s*(?:async\s+)?def\s+(?P<name>\w+)", FUNCTION),
        ],
    ),
    _family(
        "go",
        (),
        [
            (
                r"^func\s+(?:\(\s*(?:\w+\s+)?\*?(?P<kind>\w+)(?:\[[^\]]*\])?\s*\)\s*)?"
                r"(?P<name>\w+)",
                FUNCTION,
            ),
            (r"^type\s+(?P<name>\w+)", FUNCTION),
        ],
        comments=_C_COMMENTS,
    ),
    _family(
        "java",
        (),
        [
            (_MODIFIERS + r"(?:class|interface|enum|record|@interface)\s+(?P<name>\w+)", CONTAINER),
            (
                _MODIFIERS + r"(?:<[^>()]*>\s+)?(?:[\w<>\[\],?.]+\s+)+(?P<name>\w+)\s*\(",
                FUNCTION,
            ),
        ],
        comments=(*_C_COMMENTS, "@"),
    ),
    _family(
        "rust",
        (),
        [
            (
                r"^\s*impl(?:<[^>]*>)?\s+(?:[^{]*?\s+for\s+)?&?(?:mut\s+)?(?:[\w]+::)*"
                r"(?P<name>\w+)",
                CONTAINER,
            ),
            (r"^\s*(?:pub(?:\([^)]*\))?\s+)?trait\s+(?P<name>\w+)", CONTAINER),
            (
                r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:(?:async|const|unsafe|extern\s+\"\w+\")\s+)*"
                r"fn\s+(?P<name>\w+)",
                FUNCTION,
            ),
            (
                r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|union|type)\s+(?P<name>\w+)",
                FUNCTION,
            ),
            (r"^\s*macro_rules!\s*(?P<name>\w+)", FUNCTION),
        ],
        comments=(*_C_COMMENTS, "#["),
    ),
    _family("c", (), _C_FAMILY_PATTERNS, comments=_C_COMMENTS),
    _family("cpp", (), _C_FAMILY_PATTERNS, comments=_C_COMMENTS),
    _family(
        "csharp",
        (),
        [
            (_MODIFIERS + r"(?:class|interface|struct|enum|record)\s+(?P<name>\w+)", CONTAINER),
            (
                _MODIFIERS + r"(?:[\w<>\[\],?.]+\s+)+(?P<name>\w+)\s*(?:<[^>()]*>)?\s*\(",
                FUNCTION,
            ),
        ],
        comments=(*_C_COMMENTS, "["),
    ),
    _family(
        "ruby",
        (),
        [
            (r"^\s*(?:class|module)\s+(?P<name>[\w:]+)", CONTAINER),
            (r"^\s*def\s+(?:self\.)?(?P<name>[\w?!=]+)", FUNCTION),
        ],
    ),
    _family(
        "kotlin",
        (),
        [
            (_MODIFIERS + r"(?:class|interface|object)\s+(?P<name>\w+)", CONTAINER),
            (_MODIFIERS + r"fun\s+(?:<[^>]*>\s*)?(?P<name>(?:\w+\.)?\w+)\s*\(", FUNCTION),
        ],
        comments=(*_C_COMMENTS, "@"),
    ),
    _family(
        "swift",
        (),
        [
            (
                _MODIFIERS + r"(?:class|struct|enum|protocol|actor|extension)\s+(?P<name>\w+)",
                CONTAINER,
            ),
            (_MODIFIERS + r"func\s+(?P<name>\w+)", FUNCTION),
        ],
        comments=(*_C_COMMENTS, "@"),
    ),
    _family(
        "scala",
        (),
        [
            (_MODIFIERS + r"(?:class|object|trait|enum)\s+(?P<name>\w+)", CONTAINER),
            (_MODIFIERS + r"def\s+(?P<name>\w+)", FUNCTION),
        ],
        comments=(*_C_COMMENTS, "@"),
    ),
    _family(
        "php",
        (),
        [
            (_MODIFIERS + r"(?:class|interface|trait|enum)\s+(?P<name>\w+)", CONTAINER),
            (_MODIFIERS + r"function\s+&?(?P<name>\w+)", FUNCTION),
        ],
        comments=(*_C_COMMENTS, "#"),
    ),
    _family(
        "lua",
        (),
        [(r"^\s*(?:local\s+)?function\s+(?P<name>[\w.:]+)", FUNCTION)],
        comments=("--",),
    ),
    _family(
        "bash",
        (),
        [
            (r"^\s*function\s+(?P<name>[\w:.-]+)", FUNCTION),
            (r"^\s*(?P<name>[\w:.-]+)\s*\(\)", FUNCTION),
        ],
    ),
)

#: Words a definition line never starts with (``else if (x) {``, ``new Foo() {``).
_NOT_FIRST_WORDS = frozenset(
    {
        "if", "for", "while", "switch", "catch", "return", "new", "else", "await", "throw",
        "case", "do", "try", "when", "yield", "using", "lock", "foreach", "elif", "assert",
        "delete", "goto", "not", "and", "or",
    }
)  # fmt: skip
#: Names a definition never has (a C-like regex meeting ``} else if (x) {``).
_NOT_NAMES = frozenset({"if", "for", "while", "switch", "catch", "foreach", "sizeof", "typeof"})
_SEPARATORS = re.compile(r"::|[:#]")
_QUOTES = re.compile(r"[\"`\[\]]")


def _by_extension() -> dict[str, tuple[Family, ...]]:
    table: dict[str, tuple[Family, ...]] = {}
    for family in _FAMILIES:
        for ext in family.extensions:
            table[ext] = (*table.get(ext, ()), family)
    return table


_BY_EXTENSION = _by_extension()
_BY_NAME = {family.name: family for family in (*_FAMILIES, *_STRUCTURAL_FAMILIES)}


def heuristic_families() -> tuple[str, ...]:
    """Names of the languages the heuristic detector knows, sorted."""
    return tuple(sorted(_BY_NAME))


@functools.cache
def digest() -> str:
    """A hash of every family's rules, for the chunker version."""
    rules = [
        [
            f.name,
            list(f.extensions),
            [[p.pattern, p.flags, what, prefix] for p, what, prefix in f.patterns],
            list(f.comments),
            f.marker.pattern if f.marker else None,
        ]
        for f in (*_FAMILIES, *_STRUCTURAL_FAMILIES)
    ]
    encoded = json.dumps([rules, sorted(_NOT_FIRST_WORDS), sorted(_NOT_NAMES)]).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def extension_families() -> dict[str, str]:
    """Extension -> family name, for naming a file's language without its text: the
    first family of the extension that needs no marker, else its first family."""
    out: dict[str, str] = {}
    for extension, families in _BY_EXTENSION.items():
        plain = [f for f in families if f.marker is None]
        out[extension] = (plain or list(families))[0].name
    return out


def family_for_path(path: str, text: str) -> Family | None:
    """The heuristic family for a file by its extension (and, if ambiguous, content)."""
    name = path.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    if dot <= 0:
        return None
    for family in _BY_EXTENSION.get(name[dot:], ()):
        if family.marker is None or family.marker.search(text):
            return family
    return None


def family_for_language(language: str) -> Family | None:
    """The heuristic family of a structural language, for files whose parse failed."""
    return _BY_NAME.get(language)


def _clean(name: str) -> str:
    return _SEPARATORS.sub(".", _QUOTES.sub("", name)).strip(".")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _match(family: Family, line: str, text: str) -> tuple[str, str] | None:
    """``(what, name)`` of the first pattern matching ``line``, the name cleaned."""
    for pattern, what, prefix in family.patterns:
        match = pattern.match(line)
        if match is None:
            continue
        name = _clean(match["name"])
        if not name or name in _NOT_NAMES or text.split()[0] in _NOT_FIRST_WORDS:
            return None
        kind = match.groupdict().get("kind")
        return what, ".".join(part for part in (prefix, kind and _clean(kind), name) if part)
    return None


def find_definitions(family: Family, lines: Sequence[str]) -> list[Definition]:
    """Definition lines of ``lines`` (split on ``\\n``), in order, with qualified names."""
    found: list[Definition] = []
    comments = family.comments
    # Open containers and functions: (indentation, name or None for a function).
    stack: list[tuple[int, str | None]] = []
    package: str | None = None
    pod = False
    for row, line in enumerate(lines):
        text = line.strip()
        if pod:
            pod = not line.startswith("=cut")
            continue
        if not text or text.startswith(comments):
            continue
        matched = _match(family, line, text)
        # A lone brace or a directive (``#if``) that defines nothing closes nothing.
        indent = _indent(line)
        if matched is not None or (text != "{" and text[0] != "#"):
            while stack and indent <= stack[-1][0]:
                stack.pop()
        if matched is None:
            continue
        what, name = matched
        if what == PACKAGE:
            package = name
        elif what == BOUNDARY:
            stack.clear()
            found.append(Definition(row=row, name="", container=False))
            if name.startswith("__"):
                break  # Perl __END__ / __DATA__: no code after it
            pod = True
        elif all(owner is not None for _, owner in stack):  # else: local to a function
            scope = [owner for _, owner in stack if owner is not None]
            if package is not None:
                scope.insert(0, package)
            qualified = ".".join([*scope, name])
            found.append(Definition(row=row, name=qualified, container=what == CONTAINER))
            stack.append((indent, name if what == CONTAINER else None))
    return found
