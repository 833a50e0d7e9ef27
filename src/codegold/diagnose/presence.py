"""Is a labelled symbol really there? Decided from the file's text, not from the chunker.

``stale_label`` sends the dataset owner to fix a label, so it must mean that the
evidence is absent from the repository at the pinned revision. These checks read the
text itself: a definition of the symbol's last name in the idioms of the file's
language (``define_method``, getters, property assignments, macro-generated tests
included), or, for a test written as a call, its title string verbatim. What
codegold's chunker extracted plays no part, so a chunker that misses an idiom is
blamed as the chunker, never as the label.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from codegold.cases.match import normalize_symbol
from codegold.chunking.language_table import language_of_path

_NOT_A_TYPE = (
    r"(?!(?:return|new|throw|else|case|await|yield|delete|typeof|sizeof|goto|if|while|for|"
    r"switch)\b)"
)
# A parameter list, across lines, with parentheses nested one deep (callbacks, casts).
_PARAMS = r"\((?:[^()]|\([^()]*\))*\)"

# Keywords after which the next word is the name being defined.
_KEYWORD = {
    "python": r"def|class",
    "ruby": r"def|class|module",
    "javascript": r"function\*?|class|const|let|var",
    "typescript": r"function\*?|class|const|let|var|interface|type|enum|namespace|module",
    "go": r"func(?:\s*\([^)\n]*\))?|type|const|var",
    "rust": r"fn|struct|enum|trait|type|const|static|mod|union|macro_rules!|impl(?:\s*<[^>\n]*>)?",
    "java": r"class|interface|enum|record|@interface",
    "kotlin": r"fun|class|interface|object|val|var|typealias",
    "scala": r"def|class|object|trait|val|var|type",
    "csharp": r"class|interface|enum|struct|record|delegate|event",
    "php": r"function|class|interface|trait|enum|const",
    "c": r"struct|union|enum|typedef|#\s*define",
    "cpp": r"struct|union|enum(?:\s+class)?|class|typedef|using|namespace|#\s*define",
    "swift": r"func|class|struct|enum|protocol|extension|let|var|typealias",
}
_KEYWORD["tsx"] = _KEYWORD["typescript"]
_GENERIC_KEYWORD = "|".join(sorted({k for v in _KEYWORD.values() for k in v.split("|")}))

# Further idioms, each with {n} for the escaped name.
_EXTRA = {
    "python": [r"^[ \t]*{n}[ \t]*(?::[^=\n]+)?=(?!=)"],  # assignment at statement start
    "ruby": [
        r"\b(?:define_method|define_singleton_method|attr_reader|attr_writer|attr_accessor|"
        r"alias_method|delegate|def_delegators?)\b[^\n]*?[:\"']{n}\b",
        r"^[ \t]*alias[ \t]+:?{n}\b",
        r"\bdef[ \t]+\w+\.{n}(?![\w$])",  # def self.name
        r"^[ \t]*{n}[ \t]*=(?!=)",
    ],
    "javascript": [
        r"^[ \t]*(?:(?:static|async|get|set|\*)[ \t]+)*\*?#?[\"']?{n}[\"']?[ \t]*"
        + _PARAMS
        + r"[ \t]*\{{",  # method shorthand, parameters on one line or several
        r"\b(?:get|set)[ \t]+{n}[ \t]*\(",
        r"\.{n}[ \t]*=(?!=)",  # res.send = …, X.prototype.m = …, a.get = a.header = …
        r"^[ \t]*[\"']?{n}[\"']?[ \t]*:",  # object-literal member
        r"\bexport[ \t]+(?:default[ \t]+)?(?:async[ \t]+)?function\*?[ \t]+{n}\b",
        r"(?:\bdefine(?:Property|Getter|Setter)|__define[GS]etter__)\([^\n]*[\"']{n}[\"']",
        r"\.(?:method|access|getter|setter|fluent)\([ \t]*[\"']{n}[\"']",  # node-delegates
        # A name in a literal list a loop makes members from: ['get', 'head'].forEach(…)
        r"[\[,][ \t]*[\"']{n}[\"'][^\n\]]*\][ \t]*"
        r"(?:\)?\.forEach\b|,[ \t]*(?:function\b|\(|\w+[ \t]*=>))",
    ],
    "go": [r"^[ \t]*{n}(?:[ \t]*,[ \t]*\w+)*[ \t]+(?:=|[\w.*\[\]]+)", r"^[ \t]*{n}[ \t]*="],
    "rust": [
        r"\bimpl\b[^\n{{]*\bfor[ \t]+{n}\b",
        r"\b[\w:]+![ \t]*[(\[{{][ \t]*{n}\b",  # rgtest!(name, …), test_case!(name …)
        r"^[ \t]*(?=[A-Z]){n}[ \t]*[,({{=]",  # enum variant
    ],
    "java": [
        r"^[ \t]*(?:@\w+(?:\([^)\n]*\))?[ \t]+)*"
        + _NOT_A_TYPE
        + r"(?:[\w<>\[\],.?@]+[ \t]+)+{n}[ \t]*\(",
        r"^[ \t]*(?=[A-Z]){n}[ \t]*(?:\(|,|;|\{{|$)",  # enum constant; a constructor line
        # A field or constant: [modifiers] Type NAME = … / Type NAME;
        r"^[ \t]*(?:@\w+(?:\([^)\n]*\))?[ \t]+)*"
        + _NOT_A_TYPE
        + r"(?:[\w<>\[\],.?]+[ \t]+)+{n}[ \t]*(?:=(?!=)|;)",
        r"\bfun\b[^\n(=]*\.{n}[ \t]*\(",  # Kotlin extension function
    ],
    "c": [
        # A return type, perhaps wrapped in an export macro: CJSON_PUBLIC(cJSON *) name(
        r"^[ \t]*"
        + _NOT_A_TYPE
        + r"(?:(?:[\w*]+|[A-Z][A-Z0-9_]*\([^()\n]*\))[ \t]+\**)+{n}[ \t]*\(",
        r"^[ \t]*\}}[ \t]*\**{n}[ \t]*;",
        r"\btypedef\b[^;]*\b{n}[ \t]*;",
        r"\(\*[ \t]*{n}\)[ \t]*\(",
        r"^[ \t]*{n}[ \t]*(?:=[^=]|,|$)",
        r"^{n}[ \t]*\(",  # GNU style: the name at column 0 under its return type
    ],
    "php": [r"\bfunction[ \t]+&?{n}\b"],
}
_TS_MODIFIERS = (
    r"^[ \t]*(?:(?:public|private|protected|static|readonly|abstract|override|async|declare|"
    r"get|set)[ \t]+)*\*?#?"
)
_EXTRA["typescript"] = _EXTRA["javascript"] + [
    _TS_MODIFIERS + r"{n}[ \t]*[?!]?[ \t]*[:<=]",
    # A method with a return type, or a signature (overload, abstract, interface member):
    # name<T>(…): R { / name(…): R;
    _TS_MODIFIERS
    + r"{n}[ \t]*[?]?[ \t]*(?:<[^\n]*?>)?[ \t]*"
    + _PARAMS
    + r"[ \t]*(?::[^\n{{;]*)?(?:\{{|:[^\n;]*;)",
]
_EXTRA["tsx"] = _EXTRA["typescript"]
_EXTRA["kotlin"] = _EXTRA["java"]
_EXTRA["csharp"] = _EXTRA["java"]
_EXTRA["scala"] = _EXTRA["java"][1:]
_EXTRA["cpp"] = [*_EXTRA["c"], r"::[ \t]*~?{n}[ \t]*\("]
_EXTRA["swift"] = []

_TITLE_CALL = (
    r"\b(?:it|test|describe|context|specify|example|scenario|feature|suite|should|Run|"
    r"bench|benchmark|test_case|given|when|then|fun)"
    r"(?:\.\w+)*[ \t]*\(?[ \t]*"
)


def _language(path: str) -> str:
    return language_of_path(path) or ""


@lru_cache(maxsize=512)
def _definition_patterns(name: str, language: str) -> tuple[re.Pattern[str], ...]:
    n = re.escape(name)
    keyword = _KEYWORD.get(language, _GENERIC_KEYWORD)
    sources = [rf"(?<![\w.$])(?:{keyword})[ \t]+[*&]?[ \t]*{n}(?![\w$])"]
    extras = _EXTRA.get(language)
    if extras is None:  # an unknown language: every family's idioms but the loosest
        extras = [p for ps in _EXTRA.values() for p in ps if not p.startswith("^[ \\t]*{n}")]
    sources += [p.replace("{n}", n).replace("{{", "{").replace("}}", "}") for p in extras]
    return tuple(re.compile(s, re.MULTILINE) for s in dict.fromkeys(sources))


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _title_line(text: str, title: str) -> int | None:
    """A test written as a call, ``it("…")``, ``test('…')``, RSpec ``it "…"``."""
    quoted = re.escape(title)
    pattern = _TITLE_CALL + r"(?:[\"'`]|%[qQ]?[({\[])" + quoted + r"[\"'`)\]}]"
    m = re.search(pattern, text)
    return _line_of(text, m.start()) if m else None


def last_name(symbol: str) -> str:
    return normalize_symbol(symbol).rsplit(".", 1)[-1]


_COMPUTED = re.compile(r"[\w$]+(?:\.[\w$]+)*\[[\w$]+\]")


def _identifier_like(symbol: str) -> bool:
    return re.fullmatch(r"[\w$]+(?:[.#:]+[\w$]+)*[?!=]?", symbol) is not None


def needle(symbol: str) -> str:
    """The text every definition of ``symbol`` contains (a cheap pre-filter)."""
    return last_name(symbol) if _identifier_like(symbol) else symbol


def definition_line(text: str, symbol: str, path: str) -> int | None:
    """The 1-based line where ``symbol`` is defined in ``text`` (a file at ``path``), or None.

    A symbol that is not an identifier (``"returns 404 for unknown routes"``) is a test
    title and is looked for verbatim as the title of a test call.
    """
    computed = _COMPUTED.fullmatch(symbol.strip())
    if computed is not None:
        # ``app[method]``: a member assigned under a computed name, as written.
        m = re.search(re.escape(symbol.strip()) + r"[ \t]*=(?!=)", text)
        return _line_of(text, m.start()) if m else None
    title = _title_line(text, symbol)
    if title is not None or not _identifier_like(symbol):
        return title
    name = last_name(symbol)
    candidates = [
        _line_of(text, m.start())
        for p in _definition_patterns(name, _language(path))
        if (m := p.search(text)) is not None
    ]
    return min(candidates) if candidates else None


def mention_line(text: str, symbol: str) -> int | None:
    """The first line naming ``symbol`` at all (for call-site, docs or config labels)."""
    name = last_name(symbol) if _identifier_like(symbol) else symbol
    m = re.search(rf"(?<![\w$]){re.escape(name)}(?![\w$])", text)
    return _line_of(text, m.start()) if m else None


def definitions_elsewhere(
    files: Iterable[tuple[str, str]], symbol: str, *, limit: int = 3
) -> list[tuple[str, int]]:
    """Where ``symbol`` is defined among ``(path, text)`` pairs, first ``limit`` by path."""
    wanted = needle(symbol)
    found: list[tuple[str, int]] = []
    for path, text in sorted(files):
        if wanted not in text:
            continue
        line = definition_line(text, symbol, path)
        if line is not None:
            found.append((path, line))
            if len(found) >= limit:
                break
    return found
