"""What a question about code asks for: identifiers, paths, error text, and intent."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from codegold.index.tokenize import STOPWORDS, tokenize_query


class Intent(StrEnum):
    DEFINITION = "definition"  # what is / where is X defined / how does X work
    USAGE = "usage"  # show me an example / how do I use / who calls
    TEST = "test"  # how do tests … / fake / mock
    CONFIGURATION = "configuration"  # how is X configured / which setting
    DOCS = "docs"  # documentation, guide, README
    GENERAL = "general"


_DOTTED = re.compile(r"\b[A-Za-z_$][\w$]*(?:(?:\.|::|#|->)[A-Za-z_$][\w$]*)+\b")
_CALL = re.compile(r"\b([A-Za-z_$][\w$]+)\(")  # `parse(` is code; "Ctrl-C (" is prose
_BACKTICK = re.compile(r"`([^`]+)`")
_HYPHENATED = re.compile(r"(?<![\w-])[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+){2,}(?![\w-])")
_MACRO = re.compile(r"\b([a-z_][a-z0-9_]*)!(?:([(\[{])|(?=\s|$))")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
#: a query that opens with one bare word and a dash: "Use — why …", "gzread - what …"
_LEAD_NAME = re.compile(r"\s*([A-Za-z_$][\w$]*)\s+[—–-]\s")
_EXTENSIONS = (
    r"py|pyi|js|jsx|mjs|cjs|ts|tsx|go|rs|java|kt|rb|php|c|h|cc|cpp|hpp|cs|md|rst|toml|ya?ml|"
    r"json|ini|cfg|sql|sh"
)
# a file name ends at its extension: ``URL.copy_with`` names no ``URL.c``
_PATH = re.compile(
    rf"(?<![\w/])((?:[\w.-]+/)+[\w.-]*\w|[\w-]+\.(?:{_EXTENSIONS})\b)(?![\w.-]*\w)(?::\d+)*"
)
_HAS_EXT = re.compile(rf"\.(?:{_EXTENSIONS})$")
_PY_FRAME = re.compile(r'File "([^"]+)", line (\d+), in ([\w<>]+)')
_JS_FRAME = re.compile(r"\bat (?:async )?([\w$.<>]+) \(?([^\s():]+):(\d+)(?::\d+)?\)?")
_JAVA_FRAME = re.compile(r"\bat ([\w$.]+)\.([\w$<>]+)\(([\w$]+\.java):(\d+)\)")
# where a pasted trace points: ``path:line`` (most runtimes, gdb, sanitizers, Rust and Go
# panics), ``path(line)`` (PHP, MSVC), ``in path on line N`` (PHP); code files only
_CODE_EXT = (
    r"py|pyi|js|jsx|mjs|cjs|ts|tsx|mts|cts|go|rs|java|kt|kts|scala|rb|php|c|h|cc|cpp|cxx|"
    r"hh|hpp|hxx|cs|lua|swift|m|mm|ex|exs|erl|dart|pl|pm"
)
_LOCATED_PATH = rf"([\w.@~+\\/-]*[\w@~+-]\.(?:{_CODE_EXT}))"
_AT_LINE = re.compile(rf"(?<![\w.@~+\\/-]){_LOCATED_PATH}(?::(\d+)\b|\((\d+)\)| on line (\d+)\b)")
_CAUSED_BY = re.compile(r"^\s*Caused by:", re.M)
_ERROR = re.compile(r"\b([A-Z][\w]*(?:Error|Exception|Panic|Failure|Warning))\b:?\s*([^\n]*)")
_QUOTED = re.compile(r"[\"'“]([^\s\"'”][^\"'”]{4,198}[^\s\"'”])[\"'”]")

_INTENT_RULES: tuple[tuple[Intent, re.Pattern[str]], ...] = (
    (
        Intent.TEST,
        re.compile(
            r"\b(tests?|tested|testing|unit ?tests?|fakes?|faked|mocks?|mocked|stubs?|"
            r"fixtures?|spec|assert\w*)\b",
            re.I,
        ),
    ),
    (
        Intent.USAGE,
        re.compile(
            r"\b(example|examples|show me|how (?:do|can|should) (?:i|we|you) (?:use|call|"
            r"invoke|pass)|how to (?:use|call)|usages|usage (?:of|example)|example usage|"
            r"call(?:ed|s)? (?:from|by)|call ?sites?|who (?:calls|uses)|used (?:by|in|from)|"
            r"where (?:is|are) \S+ (?:used|called))\b",
            re.I,
        ),
    ),
    (
        Intent.CONFIGURATION,
        re.compile(
            r"\b(configur\w*|config|settings?|options?|env(?:ironment)? var\w*|flags?|"
            r"defaults?|toggle|tunable|timeout value)\b",
            re.I,
        ),
    ),
    (
        Intent.DOCS,
        re.compile(r"\b(docs?|documentation|documented|readme|guide|tutorial|changelog)\b", re.I),
    ),
    (
        Intent.DEFINITION,
        re.compile(
            r"\b(what (?:is|are|does)|where (?:is|are) \S+ (?:defined|declared|implemented)|"
            r"defin\w*|declar\w*|implement\w*|signature|how (?:does|do|is|are)|"
            r"where (?:do|does|is|are)|which (?:function|class|method|module|type)|"
            # any other question about the code: what/which/where/when/why/how …
            r"^\s*(?:what|which|where|when|why|how|if|in|does|do|is|are|can)\b)\b",
            re.I,
        ),
    ),
)


_CODE_KEYWORDS = frozenset(
    [
        "func",
        "fn",
        "def",
        "function",
        "return",
        "var",
        "let",
        "const",
        "mut",
        "pub",
        "static",
        "void",
        "int",
        "bool",
        "string",
        "str",
        "float",
        "double",
        "long",
        "char",
        "byte",
        "self",
        "this",
        "new",
        "class",
        "struct",
        "interface",
        "impl",
        "type",
        "enum",
        "public",
        "private",
        "protected",
        "final",
        "async",
        "await",
        "yield",
        "import",
        "from",
        "package",
        "use",
    ]
)
_WHY = re.compile(r"\bwhy\b", re.I)
_QUESTION_START = re.compile(
    r"^\s*(how|what|where|why|which|when|who|whose|is|are|does|do|did|can|could|should|"
    r"would|will|show|find|list|explain|give|tell|i|we|my|our|in|if|with|for)\b",
    re.I,
)
#: what only a pasted message or trace has: a line break, an error or exception
#: name, a panic, a traceback, a test runner's FAIL, a path ``::`` or a frame
_PASTED_SHAPE = re.compile(
    r"\n|\b\w*(?:Error|Exception|Failure)\b|\bpanic|\bTraceback\b|\bFAIL|::"
    r"|\bat [\w.$<>]+\(|\w\.\w+:\d+"
)
_USER_VALUE = re.compile(r"'[^']*'|\"[^\"]*\"|`[^`]*`|\b\d[\w.]*")


def phrases_of(text: str) -> list[str]:
    """Literal fragments worth finding verbatim in code: the message's words between
    user-supplied values (quoted values, numbers), lowercased, longest first."""
    fragments: list[str] = []
    # a line break, or the two spaces a pasted line break leaves, ends a sentence too
    for piece in re.split(
        r"[:;,()\[\]{}<>|=]|\.(?:\s|$)|\s*\n\s*|\s{2,}", _USER_VALUE.sub("|", text)
    ):
        for part in piece.split("|"):
            words = part.strip().strip(".!?").split()
            if len(words) >= 2 and len(" ".join(words)) >= 8:
                fragments.append(" ".join(words).lower())
    return sorted(dict.fromkeys(fragments), key=lambda f: (-len(f), f))


_FENCE = re.compile(r"```[^\n]*\n(.*?)(?:```|$)", re.S)
_PROMPT_LINE = re.compile(r"^\s*(?:>>>|\.\.\.|In \[\d+\]:|\$ )\s?(.*)$", re.M)
_INDENTED = re.compile(r"^(?: {4}|\t)(\S.*)$", re.M)
_REPORT_WORDS = re.compile(
    r"\b(expected|expect|actual(?:ly)?|instead|reproduc\w*|steps to|what happened|"
    r"traceback|bug|wrong|incorrect(?:ly)?|fails?|failed|failing|error|broken|"
    r"doesn'?t work|does not work|raises?|crash\w*|regression|version|workaround|"
    r"minimal example|mcve|output)\b",
    re.I,
)


def code_spans(text: str) -> list[str]:
    """The parts of a pasted report written as code: fenced blocks, interpreter
    prompts, indented blocks, inline backticks."""
    spans = [m.group(1) for m in _FENCE.finditer(text)]
    rest = _FENCE.sub(" ", text)
    spans.extend(m.group(1) for m in _PROMPT_LINE.finditer(rest))
    spans.extend(m.group(1) for m in _INDENTED.finditer(rest))
    spans.extend(m.group(1) for m in _BACKTICK.finditer(rest))
    return [s for s in spans if s.strip()]


def is_issue_report(text: str) -> bool:
    """A pasted bug report (what I did, what I expected, what happened, maybe a
    traceback or code) rather than a question or a bare error message: a title line
    and a body, prose in it, and some sign of a report or sheer length."""
    lines = [line for line in text.splitlines() if line.strip()]
    if len(text) < 120 or len(lines) < 2:
        return False
    prose = _PROMPT_LINE.sub(" ", _FENCE.sub(" ", text))
    words = re.findall(r"[A-Za-z]{2,}", prose)
    fenced = bool(_FENCE.search(text))
    if len(words) < 8 or (len(words) < 12 and not fenced):
        return False  # a pasted trace or listing, no report around it
    signs = bool(_REPORT_WORDS.search(text)) + bool(fenced or "`" in text)
    signs += bool(_PY_FRAME.search(text) or _PROMPT_LINE.search(text))
    return signs >= 1 or len(text) >= 300


@dataclass(frozen=True)
class QueryAnalysis:
    raw: str
    identifiers: tuple[str, ...]
    words: tuple[str, ...]
    paths: tuple[str, ...]
    errors: tuple[str, ...]
    intent: Intent
    terms: tuple[str, ...]
    phrases: tuple[str, ...]
    mentions_legacy: bool
    mentions_generated: bool
    issue_report: bool = False
    code_identifiers: tuple[str, ...] = ()
    frames: tuple[tuple[str, str], ...] = ()
    # (path, line) a pasted trace points at, the innermost frame first
    locations: tuple[tuple[str, int], ...] = ()
    # "how do I <do something>": a task to get done with the code (see ``_HOW_TO``)
    how_to: bool = False

    def as_dict(self) -> dict[str, object]:
        return {
            "identifiers": list(self.identifiers),
            "paths": list(self.paths),
            "errors": list(self.errors),
            "intent": self.intent.value,
            "terms": list(self.terms),
            "phrases": list(self.phrases),
            **({"queryClass": "issue_report"} if self.issue_report else {}),
        }


#: Acronyms engineers write in prose; alone they name no code.
PROSE_ACRONYMS = frozenset(
    [
        "API",
        "APIS",
        "CLI",
        "URL",
        "URLS",
        "URI",
        "HTTP",
        "HTTPS",
        "JSON",
        "YAML",
        "TOML",
        "XML",
        "HTML",
        "CSS",
        "SQL",
        "CSV",
        "JWT",
        "TLS",
        "SSL",
        "UTF",
        "ASCII",
        "CPU",
        "GPU",
        "UI",
        "UX",
        "OS",
        "IO",
        "ID",
        "IDS",
        "UUID",
        "DNS",
        "TCP",
        "UDP",
        "IP",
        "AWS",
        "GCP",
        "CI",
        "CD",
        "PR",
        "ENV",
        "REST",
        "RPC",
        "GRPC",
        "ORM",
        "DB",
        "SDK",
        "JVM",
        "JDK",
        "JS",
        "TS",
        "EOF",
        "PDF",
        "SSH",
        "GIT",
        "NPM",
        "PIP",
        "RAM",
        "SSD",
        "TTL",
        "LRU",
        "FIFO",
        # HTTP methods: "a POST request" is prose
        "GET",
        "POST",
        "PUT",
        "PATCH",
        "DELETE",
        "HEAD",
    ]
)


def looks_like_code(word: str) -> bool:
    """camelCase, PascalCase with two capitals, snake_case, SCREAMING_CASE, dunder."""
    core = word.strip("_$")
    if not core or core in PROSE_ACRONYMS:
        return False
    if "_" in core or "$" in core:
        return True
    if any(c.isupper() for c in core[1:]) and any(c.islower() for c in core):
        return True
    return core.isupper() and len(core) >= 3


def analyze(query: str) -> QueryAnalysis:
    """Pull out what a retriever should match exactly, and what the asker wants."""
    identifiers: list[str] = []
    paths: list[str] = []
    errors: list[str] = []
    _trace_mentions(query, identifiers, paths, errors)
    _explicit_mentions(query, identifiers, paths)
    lead = _LEAD_NAME.match(query)
    if lead is not None:
        # "Use — why does my group's middleware run …", "gzread - what does it do with
        # …": the word before the dash is the name asked about, even a plain or stop
        # word (Go's exported methods are capitalised words: Use, With, Get)
        identifiers.append(lead.group(1))
    words = _plain_words(query, identifiers)
    for m in _QUOTED.finditer(query):
        errors.append(m.group(1))
    lowered = query.lower()
    issue = is_issue_report(query)
    code_identifiers = _issue_code_identifiers(query) if issue else []
    frames = tuple((m.group(1), m.group(3)) for m in _PY_FRAME.finditer(query))
    return QueryAnalysis(
        raw=query,
        identifiers=tuple(dict.fromkeys(i for i in identifiers if i)),
        words=tuple(dict.fromkeys(words)),
        paths=tuple(dict.fromkeys(p.strip("./") if p.startswith("./") else p for p in paths)),
        errors=tuple(dict.fromkeys(errors)),
        intent=_intent_of(query),
        terms=tuple(tokenize_query(query)),
        phrases=tuple(dict.fromkeys(_phrases(query, errors, issue)))[:6],
        mentions_legacy=bool(
            re.search(r"\b(legacy|deprecated|old|migration|migrat\w+|compat\w*|shim)\b", lowered)
        ),
        mentions_generated=bool(re.search(r"\b(generated|codegen|protobuf|pb2?)\b", lowered)),
        issue_report=issue,
        code_identifiers=tuple(dict.fromkeys(code_identifiers)),
        frames=frames,
        locations=trace_locations(query),
        how_to=_HOW_TO.match(_VALUES.sub(" ", query)) is not None,
    )


def trace_locations(query: str) -> tuple[tuple[str, int], ...]:
    """The (path, line) pairs a pasted trace points at, innermost frame first.

    Most traces list the innermost frame first (Java, JavaScript, Go, Ruby, gdb,
    sanitizers), and a Java trace's root cause is its last ``Caused by:`` (its frames
    come first, then the sections before it, last to first); a Python traceback lists
    it last ("most recent call last"), and PHP names the throwing file last (``thrown
    in … on line N``). A Java frame's file is put under its package's folders
    (``org.acme.Foo.bar(Foo.java:3)``: ``org/acme/Foo.java``), where a source tree
    keeps it.
    """
    java = {m.start(3): m for m in _JAVA_FRAME.finditer(query)}
    causes = [m.start() for m in _CAUSED_BY.finditer(query)]
    first: list[tuple[str, int]] = []
    inner: list[tuple[int, int, str, int]] = []  # section (root cause first), position
    outer: list[tuple[str, int]] = []
    for m in _PY_FRAME.finditer(query):
        outer.append((m.group(1), int(m.group(2))))
    for m in _AT_LINE.finditer(query):
        path = m.group(1).replace("\\", "/")
        line = int(m.group(2) or m.group(3) or m.group(4))
        frame = java.get(m.start(1))
        if frame is not None:
            folders = frame.group(1).split(".")[:-1]
            if folders:
                path = "/".join([*folders, path])
        if m.group(4):
            first.append((path, line))
        else:
            section = sum(1 for at in causes if at < m.start())
            inner.append((-section, m.start(), path, line))
    inner.sort()
    found = [*first, *((p, n) for _, _, p, n in inner), *reversed(outer)]
    return tuple(dict.fromkeys((p, n) for p, n in found if n > 0))


def _trace_mentions(
    query: str, identifiers: list[str], paths: list[str], errors: list[str]
) -> None:
    """Stack frames (Python, Java, JavaScript) and ``Error: message`` lines."""
    for m in _PY_FRAME.finditer(query):
        paths.append(m.group(1))
        identifiers.append(m.group(3))
    for m in _JAVA_FRAME.finditer(query):
        identifiers.append(f"{m.group(1).rsplit('.', 1)[-1]}.{m.group(2)}")
        paths.append(m.group(3))
    for m in _JS_FRAME.finditer(query):
        identifiers.append(m.group(1))
        paths.append(m.group(2))
    for m in _ERROR.finditer(query):
        identifiers.append(m.group(1))
        if m.group(2).strip():
            errors.append(m.group(2).strip())


def _explicit_mentions(query: str, identifiers: list[str], paths: list[str]) -> None:
    """Backticked code, file paths, dotted names and calls."""
    for m in _BACKTICK.finditer(query):
        # a pasted signature (`func (t *Token) Equal(o *Token) bool`) names Token and
        # Equal, not its keywords, builtin types and one-letter parameters
        identifiers.extend(
            w
            for w in _DOTTED.findall(m.group(1)) or _WORD.findall(m.group(1))
            if len(w) > 1 and w not in _CODE_KEYWORDS
        )
    for m in _PATH.finditer(query):
        candidate = m.group(1)
        if "/" in candidate or "." in candidate.rsplit("/", 1)[-1]:
            if _DOTTED.fullmatch(candidate) and "/" not in candidate and not _has_ext(candidate):
                continue
            paths.append(candidate)
    for dotted in _DOTTED.findall(query):
        if not _has_ext(dotted):
            identifiers.append(re.sub(r"::|#|->", ".", dotted))
    identifiers.extend(_CALL.findall(query))
    # a Rust macro: ``vec![``, ``rgtest!(``, or "the rgtest! macro"
    macro = re.search(r"\bmacros?\b", query, re.I) is not None
    for m in _MACRO.finditer(query):
        if macro or m.group(2):
            identifiers.append(m.group(1))


def _plain_words(query: str, identifiers: list[str]) -> list[str]:
    """The query's words: code-like ones join ``identifiers``, the rest (no stopwords) return."""
    words: list[str] = []
    for word in _WORD.findall(query):
        if looks_like_code(word):
            identifiers.append(word)
        elif word.lower() not in STOPWORDS and len(word) > 1:
            words.append(word)
    return words


def _intent_of(query: str) -> Intent:
    asks_why = _WHY.search(query) is not None
    # a pasted message or trace, not a question: its test words name what failed
    # (``AssertionError``, ``TestTimedOutException``, ``tests::handles_retry``), and
    # the answer is the code that raised it; "tests for parse_args" still asks for tests
    pasted = (
        not _QUESTION_START.match(query)
        and not query.rstrip().endswith("?")
        and _PASTED_SHAPE.search(query) is not None
    )
    # what the asker asks is in their own words, not in the values they quote: the
    # "foo://example.com/" of "why does set_scheme fail on …" asks for no example
    asked = _VALUES.sub(" ", query)
    for candidate_intent, pattern in _INTENT_RULES:
        if candidate_intent is Intent.TEST:
            if asks_why or pasted:
                # "our golden test on cmp.Diff flakes - why?": the cause is in the code
                continue
            if pattern.search(_NOT_FOR_TESTS.sub(" ", asked)):
                return candidate_intent
            continue
        if pattern.search(asked):
            return candidate_intent
    return Intent.GENERAL


#: "how do I <do something>": a task the asker wants done with the library (its API,
#: its docs), not a setting changed ("how do I make X …", "stop X from …", "turn off …")
_HOW_TO = re.compile(
    r"^\s*how (?:do|can|should|would) (?:i|we|you) (?!(?:make|stop|turn|let|enable|disable|"
    r"change|set|switch|raise|lower|force|point|keep|allow|prevent|configure|tell|avoid|"
    r"increase|decrease|limit|customi[sz]e|override|skip|ignore|rename|restrict|require|"
    r"silence|suppress)\b|get (?:\S+ ){1,3}to\b)",
    re.I,
)

#: test words that ask for no tests: code the question names (``assert()``,
#: ``User.assert(data)``, "the assert method"), a path or glob it quotes
#: (``test/*.js``), the setting it is asked in ("… in tests?"), "testing whether"
_NOT_FOR_TESTS = re.compile(
    r"`[^`]*`|[\w$.]+\([^)]*\)|\b[\w$]+(?:\.[\w$]+)+|\S*[/*]\S*"
    r"|\b\w+ (?:method|function|macro|keyword)\b"
    r"|\bin (?:a |an |my |our |the |your )?(?:unit )?tests?\b"
    r"|\btest(?:s|ing)? (?:whether|if)\b",
    re.I,
)

#: quoted values and URLs in a question (an apostrophe inside a word quotes nothing)
_VALUES = re.compile(r"\"[^\"\n]*\"|“[^”\n]*”|(?<!\w)'[^'\n]*'(?!\w)|\b\w+://\S+")


def _issue_code_identifiers(query: str) -> list[str]:
    """Identifiers inside an issue report's code spans (three characters or more)."""
    code_identifiers: list[str] = []
    for span in code_spans(query):
        for word in _DOTTED.findall(span) + _WORD.findall(span):
            if len(word) >= 3 and word.lower() not in STOPWORDS:
                code_identifiers.append(word)
    return code_identifiers


def _phrases(query: str, errors: Sequence[str], issue: bool) -> list[str]:
    """Phrases from the error messages, and from the query itself when it is a pasted
    message rather than a question or an issue report; in a question, its hyphenated
    words of three parts or more (``X-Powered-By``, ``Content-Security-Policy``): a
    header or a setting spelt as the code spells it."""
    phrase_sources = list(errors)
    pasted = not issue and not _QUESTION_START.match(query) and not query.rstrip().endswith("?")
    if pasted:
        phrase_sources.append(query)  # a pasted message, not a question
    phrases: list[str] = []
    for source in phrase_sources:
        phrases.extend(phrases_of(source))
    if not issue and not pasted:
        phrases.extend(m.group(0).lower() for m in _HYPHENATED.finditer(query))
    return phrases


def _has_ext(text: str) -> bool:
    return bool(_HAS_EXT.search(text))
