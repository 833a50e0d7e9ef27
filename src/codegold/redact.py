"""Find and mask secrets in text that a report or evidence bundle is about to show.

Dependency-free: a table of regular expressions for credentials with a recognisable
shape (cloud and SaaS tokens, JWTs, PEM private keys, passwords inside URLs, HTTP
authorization headers), plus assignment rules that read the *name* a value is given
(``password``, ``client_secret``, ``GITHUB_TOKEN`` ...) and judge the value by its
shape and Shannon entropy.

Precision matters as much as recall here: a report that masks every git SHA, UUID
or lockfile digest is unreadable. So a bare hex string, a UUID or a digest is never
redacted on its own; a value is redacted for its name only when the name ends in a
secret word (``token_count`` and ``password_field`` do not), the value is a literal
rather than code (``forms.CharField()``, ``os.environ["X"]``, ``this.password``), and
it is not a placeholder (``${DB_PASSWORD}``, ``<token>``, ``***``).

Every finding is masked as ``[REDACTED:<kind>]``; findings never carry the secret.
Redacting already-redacted text finds nothing more.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codegold.attempts import Attempt, RetrievedChunk
    from codegold.evaluate.records import CaseResult

__all__ = [
    "Finding",
    "PersonalRedaction",
    "SecretKind",
    "find_secrets",
    "redact",
    "redact_attempt",
    "redact_json",
    "redact_lines",
    "redact_personal",
    "redact_record",
    "redact_text",
    "shannon_entropy",
]


class SecretKind(StrEnum):
    """What a redacted span was; the ``<kind>`` in ``[REDACTED:<kind>]``."""

    PRIVATE_KEY = "private_key"
    AWS_ACCESS_KEY_ID = "aws_access_key_id"
    AWS_SECRET_ACCESS_KEY = "aws_secret_access_key"
    GITHUB_TOKEN = "github_token"
    GITLAB_TOKEN = "gitlab_token"
    SLACK_TOKEN = "slack_token"
    SLACK_WEBHOOK = "slack_webhook"
    STRIPE_KEY = "stripe_key"
    GOOGLE_API_KEY = "google_api_key"
    JWT = "jwt"
    URL_CREDENTIALS = "url_credentials"
    BEARER_TOKEN = "bearer_token"
    BASIC_AUTH = "basic_auth"
    PASSWORD = "password"
    SECRET_ASSIGNMENT = "secret_assignment"
    HIGH_ENTROPY_SECRET = "high_entropy_secret"


# When spans of two kinds overlap they are merged and the earlier kind here names
# the union: the specific shape wins over the generic rule that also saw it.
_PRIORITY = {kind: i for i, kind in enumerate(SecretKind)}

MARKER = "[REDACTED:"

HEX_ENTROPY = 3.0
"""Minimum bits per character for a hex value given a secret-looking name."""
TEXT_ENTROPY = 3.5
"""Minimum bits per character for any other value given a secret-looking name."""
MIN_GENERIC_LENGTH = 16
"""Shorter values are judged by the name rules only, never by entropy alone."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One masked secret: its kind and where it was in the *original* text.

    ``start``/``end`` are character offsets, ``line`` is 1-based. The secret itself
    is deliberately not kept.
    """

    kind: SecretKind
    start: int
    end: int
    line: int


def shannon_entropy(value: str) -> float:
    """Bits per character of ``value``'s character distribution (0.0 when empty)."""
    if not value:
        return 0.0
    n = len(value)
    return -math.fsum(c / n * math.log2(c / n) for c in Counter(value).values())


# -- shapes ----------------------------------------------------------------------------

_Span = tuple[int, int, SecretKind]

_PEM = re.compile(
    r"-----BEGIN (?P<label>[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----"
    r"(?:.*?-----END (?P=label)-----|.*\Z)",  # an excerpt may cut the block short
    re.DOTALL,
)
# A block cut at the top edge of a window: from the start of the text (through
# base64 and PEM header lines only) to the first END line of a private key.
_PEM_TAIL = re.compile(
    r"\A(?:[ \t]*(?:[A-Za-z0-9+/=]+|Proc-Type:.*|DEK-Info:.*|Comment:.*)?[ \t]*\r?\n)*?"
    r"[ \t]*[A-Za-z0-9+/=]*-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
)

_SHAPES: tuple[tuple[SecretKind, re.Pattern[str], int], ...] = (
    (
        SecretKind.AWS_ACCESS_KEY_ID,
        re.compile(
            r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA)"
            r"[A-Z0-9]{16}(?![A-Za-z0-9])"
        ),
        0,
    ),
    (
        SecretKind.AWS_SECRET_ACCESS_KEY,
        re.compile(
            r"(?i:aws[\w.\-]{0,20}?(?:secret|private|key|token)[\w.\-]{0,20}|secretaccesskey)"
            r"[\"']?\s*(?:[:=]|=>|:=)\s*[\"']?(?P<v>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        1,
    ),
    (
        SecretKind.GITHUB_TOKEN,
        re.compile(
            r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"
            r"(?![A-Za-z0-9_])"
        ),
        0,
    ),
    (
        SecretKind.GITLAB_TOKEN,
        re.compile(r"(?<![A-Za-z0-9_])(?:glpat|gldt|glrt|glptt|glsoat)-[A-Za-z0-9_\-]{20,}"),
        0,
    ),
    (
        SecretKind.SLACK_TOKEN,
        re.compile(r"(?<![A-Za-z0-9])xox[baprse]-[A-Za-z0-9\-]{10,}"),
        0,
    ),
    (
        SecretKind.SLACK_WEBHOOK,
        re.compile(r"hooks\.slack\.com/(?:services|workflows)/(?P<v>[A-Za-z0-9_/]{20,})"),
        1,
    ),
    (
        SecretKind.STRIPE_KEY,
        re.compile(r"(?<![A-Za-z0-9])(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"),
        0,
    ),
    (
        SecretKind.GOOGLE_API_KEY,
        re.compile(r"(?<![A-Za-z0-9_\-])AIza[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])"),
        0,
    ),
    (
        SecretKind.JWT,
        re.compile(
            r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}"
            r"\.[A-Za-z0-9_\-]*"
        ),
        0,
    ),
    (
        # scheme://user:password@host; the password alone is masked so the host stays
        # readable. Covers postgres, mysql, mongodb+srv, redis://:pass@, amqp, http,
        # and jdbc:mysql://user:pass@.
        SecretKind.URL_CREDENTIALS,
        re.compile(
            r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]*://[^\s:/@\"'<>]*:(?P<v>[^\s@/\"'<>]+)@"
            r"[A-Za-z0-9\[]"
        ),
        1,
    ),
    (
        # Oracle thin: jdbc:oracle:thin:user/password@host:1521:SID
        SecretKind.URL_CREDENTIALS,
        re.compile(r"\bjdbc:oracle:[a-z]+:[^\s/@:\"']+/(?P<v>[^\s@\"']+)@"),
        1,
    ),
    (
        SecretKind.BASIC_AUTH,
        re.compile(
            r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:basic)\s+"
            r"(?P<v>[A-Za-z0-9+/]{8,}=*)"
        ),
        1,
    ),
    (
        SecretKind.BEARER_TOKEN,
        re.compile(
            r"(?i:authorization)[\"']?\s*[:=]\s*[\"']?(?i:bearer|token)\s+"
            r"(?P<v>[A-Za-z0-9\-._~+/]{8,}=*)"
        ),
        1,
    ),
    (
        SecretKind.BEARER_TOKEN,
        re.compile(r"\b[Bb]earer\s+(?P<v>[A-Za-z0-9\-._~+/]{16,}=*)"),
        1,
    ),
)


# -- names and values ------------------------------------------------------------------

_ASSIGNMENT = re.compile(
    r"""
    (?<![\w$.])(?<![\w$.]-)       # a name starts here, not inside one
    (?P<nq>["']?)(?P<name>[A-Za-z_$][\w$.\-]*)(?P=nq)
    [ \t]*
    (?P<op>:=|=>|=(?![=>~])|:[ \t]*[A-Za-z_][\w\[\]., |]*?[ \t]*=(?![=>])|:(?![:=/]))
    [ \t]*
    (?P<value>
        "(?P<dq>(?:[^"\\\n]|\\.)*)"
      | '(?P<sq>(?:[^'\\\n]|\\.)*)'
      | `(?P<bq>[^`\n]*)`
      | (?P<bare>[^\s"'`,;&()\[\]{}#<>]+)
    )
    """,
    re.VERBOSE,
)

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEP = re.compile(r"[\-. $]+")

_PASSWORD_NAME = re.compile(r"(?:password|passwd|passphrase|_pwd|(?:^|_)pass|(?:^|_)passcode)$")
_SECRET_NAME = re.compile(
    r"(?:secret|token|(?:^|_)api_?key|apikey|(?:^|_)(?:access|secret|private|signing|encryption"
    r"|master|auth|client|app|service|account|hmac|jwt|webhook|license|deploy|session|ssh)_key"
    r"|(?:^|_)credentials?|(?:^|_)auth)$"
)
_GENERIC_NAME = re.compile(
    r"(?:^|_)(?:secret|token|password|passwd|credentials?|salt|private|api_?key|apikey|auth"
    r"|bearer|jwt|hmac|signing)(?:_|$)"
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# A name whose last word is one of these describes a secret without being one.
_NOT_SECRET_LAST = _words(
    """count counts len length size limit max min num number id ids type types name names
    field fields label labels prompt hint placeholder header headers url uri urls endpoint path
    file filename dir env var hash hashes digest sha sha1 sha256 sha512 md5 checksum integrity
    fingerprint expiry expires expiration ttl timeout lifetime age format pattern regex re
    prefix suffix kind class enabled required policy strength index idx pos position offset
    start end span version ref refs provider source store manager service client handler
    validator error errors message msg mode location key_id input form widget column"""
)
# Unquoted values that are types or keywords, not secrets (Python annotations, TS
# interface fields, YAML booleans).
_TYPE_WORDS = _words(
    """str string bytes int integer number float bool boolean any none null nil undefined
    true false yes no on off object optional secretstr secretbytes char varchar text
    required self this"""
)
_LABEL_WORDS = _words(
    "password passwd passphrase pass secret token apikey api_key key credentials changeit"
)
_PLACEHOLDER = re.compile(
    r"""^(?:
        \$[A-Za-z_{(].*              # $VAR, ${VAR}, ${VAR:-default}, $(cmd)
      | \{\{.*\}\}                   # {{ templated }}
      | \{[\w.]*\}                   # {name}
      | %\(?[\w.]*\)?s?              # %(name)s, %s
      | <[^<>]*>                     # <your-token>
      | [*xX.•#?_\-]+                # ****, xxxx, ....
      | (?i:(?:your|my|example|sample|dummy|fake)[_\-]\w*)
      | (?i:process\.env|os\.environ|getenv|env\(|secrets\.|vault:|ENV\[).*
    )$""",
    re.VERBOSE,
)
_REFERENCE = re.compile(r"^[A-Za-z_$][\w$]*(?:(?:\.|::|->)[A-Za-z_$][\w$]*)*$")
_WORDS_ONLY = re.compile(r"^[A-Za-z]+(?:[_\-./][A-Za-z]+)*$")
_PATH_OR_URL = re.compile(
    r"^(?:/|\./|\.\./|~/|[A-Za-z]:\\|[a-z][a-z0-9+.\-]*://)|\.(?:json|pem|"
    r"key|txt|ya?ml|p12|pfx|crt|cer|env|ini|toml|cfg)$"
)
_HEX = re.compile(r"^[0-9a-fA-F]+$")


def _normalize_name(name: str) -> str:
    return _SEP.sub("_", _CAMEL.sub("_", name)).strip("_").lower()


def _name_rule(name: str) -> SecretKind | None:
    """Which rule a name asks for; None when the name is not secret-looking."""
    norm = _normalize_name(name)
    if not norm:
        return None
    if _PASSWORD_NAME.search(norm) and norm not in ("pass", "bypass"):
        return SecretKind.PASSWORD
    if _SECRET_NAME.search(norm):
        return SecretKind.SECRET_ASSIGNMENT
    last = norm.rsplit("_", 1)[-1]
    if _GENERIC_NAME.search(norm) and last not in _NOT_SECRET_LAST:
        return SecretKind.HIGH_ENTROPY_SECRET
    return None


def _high_entropy(value: str) -> bool:
    if len(value) < MIN_GENERIC_LENGTH or _WORDS_ONLY.match(value):
        return False
    threshold = HEX_ENTROPY if _HEX.match(value) else TEXT_ENTROPY
    return shannon_entropy(value) >= threshold


def _secret_shaped(value: str) -> bool:
    """A token or key: long enough, not a word or a dotted name, letters with digits
    or a spread of characters."""
    if len(value) < 8 or _WORDS_ONLY.match(value):
        return False
    has_letter = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    return (has_letter and has_digit) or shannon_entropy(value) >= TEXT_ENTROPY


def _password_shaped(value: str) -> bool:
    """People choose passwords: short and plain is still a password, unless it reads
    as a label or a type."""
    return len(value) >= 3 and value.lower() not in _LABEL_WORDS | _TYPE_WORDS


def _is_literal_context(text: str, match: re.Match[str]) -> bool:
    """Where an unquoted value is data rather than code: ``KEY=value`` with no spaces
    at the start of a line (dotenv, shell, properties), ``key: value`` filling a line
    (YAML), and ``?a=b&`` or ``;a=b;`` parameters (URLs, connection strings)."""
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[line_start : match.start()]
    if before.endswith(("?", "&", ";")):
        return True
    if before.strip() not in ("", "export", "set", "-") or match.group("nq"):
        return False
    op = match.group("op")
    between = text[match.end("name") : match.start("value")]
    if op == "=":
        return not any(c.isspace() for c in between)
    if op != ":":
        return False
    line_end = text.find("\n", match.end())
    rest = text[match.end() : len(text) if line_end < 0 else line_end].strip()
    return rest == "" or rest.startswith("#")


def _judge(text: str, match: re.Match[str]) -> SecretKind | None:
    kind = _name_rule(match.group("name"))
    if kind is None:
        return None
    quoted = match.group("bare") is None
    value = next(v for v in (match.group(g) for g in ("dq", "sq", "bq", "bare")) if v is not None)
    if not value or MARKER in value or any(c.isspace() for c in value):
        return None
    if _PLACEHOLDER.match(value) or _PATH_OR_URL.search(value):
        return None
    if not quoted:
        following = text[match.end() : match.end() + 1]
        if following in ("(", "[", "{", "."):
            return None  # a call or an index: code, not a literal
        if value.lower() in _TYPE_WORDS:
            return None
        looks_like_credential = (
            _mixed_plain(value) if kind is SecretKind.PASSWORD else _high_entropy(value)
        )
        if (
            _REFERENCE.match(value)
            and not _is_literal_context(text, match)
            and not looks_like_credential
        ):
            return None  # a variable in code
    if kind is SecretKind.PASSWORD:
        return kind if _password_shaped(value) else None
    if kind is SecretKind.SECRET_ASSIGNMENT:
        if _secret_shaped(value):
            return kind
        return None
    return kind if _high_entropy(value) else None


def _mixed_plain(value: str) -> bool:
    """``hunter2``: letters and digits in one word, which code names rarely are."""
    return (
        any(c.isalpha() for c in value)
        and any(c.isdigit() for c in value)
        and "_" not in value
        and "." not in value
    )


# -- scanning --------------------------------------------------------------------------


def _scan(text: str) -> Iterator[_Span]:
    tail = _PEM_TAIL.match(text)
    if tail is not None:
        yield tail.start(), tail.end(), SecretKind.PRIVATE_KEY
    for m in _PEM.finditer(text):
        yield m.start(), m.end(), SecretKind.PRIVATE_KEY
    for shape, pattern, index in _SHAPES:
        for m in pattern.finditer(text):
            start, end = m.span(index)
            if index and _not_a_value(shape, m.group(index)):
                continue
            yield start, end, shape
    for m in _ASSIGNMENT.finditer(text):
        judged = _judge(text, m)
        if judged is not None:
            group = next(g for g in ("dq", "sq", "bq", "bare") if m.group(g) is not None)
            yield m.start(group), m.end(group), judged


def _not_a_value(kind: SecretKind, value: str) -> bool:
    """A captured password or token that is a placeholder, a marker or a plain word."""
    if value.startswith(MARKER) or _PLACEHOLDER.match(value):
        return True
    return kind is SecretKind.BEARER_TOKEN and bool(_WORDS_ONLY.match(value))


def _merge(spans: list[_Span]) -> list[_Span]:
    """Overlapping spans become one, named by the most specific kind among them."""
    merged: list[_Span] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if merged and start < merged[-1][1]:
            m_start, m_end, m_kind = merged[-1]
            best = min(m_kind, kind, key=_PRIORITY.__getitem__)
            merged[-1] = (m_start, max(m_end, end), best)
        else:
            merged.append((start, end, kind))
    return merged


_CLUE = re.compile(
    r"[:=]|-----|gh[pousr]_|github_pat_|gl(?:pat|dt|rt|ptt|soat)-|xox[baprse]-"
    r"|[sr]k_(?:live|test)_|hooks\.slack\.com/|A(?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|ROA)"
    r"|AIza|eyJ|[Bb]earer"
)
"""What every pattern :func:`_scan` looks for must contain (an operator, a PEM fence, a
token's fixed prefix, a URL's ``:``): text without any of it holds no secret, and most
queries are such text, so one search spares them every pattern."""


def _clueless(text: str) -> bool:
    """True when ``text`` cannot hold a secret :func:`_scan` finds: first a few
    characters every clue of :data:`_CLUE` contains (cheap, and enough for most
    queries), then the clues themselves."""
    if not (
        ":" in text
        or "=" in text
        or "-" in text
        or "_" in text
        or "A" in text
        or "J" in text
        or "earer" in text
        or "slack.com" in text
    ):
        return True
    return _CLUE.search(text) is None


def find_secrets(text: str) -> list[Finding]:
    """Every secret in ``text``, in order, without changing it."""
    if _clueless(text):
        return []
    spans = _merge([s for s in _scan(text) if s[1] > s[0]])
    return [Finding(kind, s, e, text.count("\n", 0, s) + 1) for s, e, kind in spans]


def redact(text: str) -> tuple[str, list[Finding]]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]``, and the findings.

    Offsets in the findings refer to the original ``text``.
    """
    findings = find_secrets(text)
    if not findings:
        return text, []
    out = _replace(text, findings)
    # A replacement can join its neighbours into a new match (``u:a[REDACTED:…]@h``
    # reads as URL credentials); redact again until nothing is found, so that
    # redacting twice changes nothing. Each pass only shortens secrets to markers.
    for _ in range(_MAX_PASSES):
        again = find_secrets(out)
        if not again:
            break
        out = _replace(out, again)
    return out, findings


_MAX_PASSES = 8


def redact_lines(text: str) -> tuple[str, list[Finding]]:
    """:func:`redact`, keeping every line where it was: a secret spanning lines (a
    private-key block) becomes one marker per line. Redact a whole file
    this way, then cut an excerpt from it, and no part of a block the window cuts
    (a BEGIN line just above it, an END line just below) can show."""
    findings = find_secrets(text)
    if not findings:
        return text, []
    out = _replace(text, findings, keep_lines=True)
    for _ in range(_MAX_PASSES):
        again = find_secrets(out)
        if not again:
            break
        out = _replace(out, again, keep_lines=True)
    return out, findings


def redact_text(text: str) -> str:
    """Just the redacted text."""
    return redact(text)[0]


def _replace(text: str, findings: list[Finding], *, keep_lines: bool = False) -> str:
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        marker = f"{MARKER}{f.kind.value}]"
        parts.append(marker)
        if keep_lines:  # one marker per line the secret spanned
            parts.append(f"\n{marker}" * text.count("\n", f.start, f.end))
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts)


def redact_json(
    value: Any, *, redact_text: Callable[[str], tuple[str, list[Finding]]] = redact
) -> tuple[Any, list[Finding]]:
    """A copy of a JSON-like value (dicts, lists, scalars) with every string redacted,
    keys included; the input is not modified."""
    found: list[Finding] = []

    def walk(v: Any) -> Any:
        if isinstance(v, str):
            out, fs = redact_text(v)
            found.extend(fs)
            return out
        if isinstance(v, Mapping):
            return {walk(k) if isinstance(k, str) else k: walk(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [walk(x) for x in v]
        return v

    return walk(value), found


def redact_record(record: CaseResult) -> tuple[CaseResult, list[Finding]]:
    """A copy of a results.json record whose free text is redacted: the query, the
    invalid reason and the diagnosis (detail and every string of the evidence).
    File paths, symbols and ids are left as they are."""
    import msgspec

    found: list[Finding] = []

    def text(value: str) -> str:
        out, fs = redact(value)
        found.extend(fs)
        return out

    changes: dict[str, Any] = {"query": text(record.query)}
    if record.invalid_reason is not None:
        changes["invalid_reason"] = text(record.invalid_reason)
    if record.diagnosis is not None:
        evidence, fs = redact_json(record.diagnosis.evidence)
        found.extend(fs)
        changes["diagnosis"] = msgspec.structs.replace(
            record.diagnosis, detail=text(record.diagnosis.detail), evidence=evidence
        )
    return msgspec.structs.replace(record, **changes), found


def redact_attempt(attempt: Attempt) -> Attempt:
    """A copy of an attempt whose free text is redacted: the query, the rewritten
    query, filters, debug values and every chunk excerpt. Ids, paths, symbols, scores
    and the index manifest are left as they are."""
    import msgspec

    def chunks(values: tuple[RetrievedChunk, ...] | None) -> tuple[RetrievedChunk, ...] | None:
        if values is None:
            return None
        return tuple(
            msgspec.structs.replace(c, excerpt=redact_text(c.excerpt))
            if c.excerpt is not None
            else c
            for c in values
        )

    changes: dict[str, Any] = {}
    for name in ("query", "rewritten_query"):
        value = getattr(attempt, name)
        if value is not None:
            changes[name] = redact_text(value)
    for name in ("filters", "debug"):
        value = getattr(attempt, name)
        if value is not None:
            changes[name] = redact_json(value)[0]
    changes["ranked"] = chunks(attempt.ranked)
    if attempt.candidates is not None:
        changes["candidates"] = chunks(attempt.candidates)
    return msgspec.structs.replace(attempt, **changes)


# -- personal data -----------------------------------------------------------------

_EMAIL = re.compile(
    r"(?<![\w.%+-])[A-Za-z0-9][\w.%+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"
)
# a user's home folder: /home/alice/, /Users/bob/, C:\Users\carol\ (either slash)
_HOME = re.compile(
    r"(?P<lead>(?:(?<![\w.])/home/|(?<![\w.])/Users/|\b[A-Za-z]:[\\/]+Users[\\/]+))"
    r"(?P<user>[^\\/\s\"'`:;,]+)(?=[\\/])"
)
USER_MARKER = "[user]"
EMAIL_MARKER = "[REDACTED:email]"


@dataclass(frozen=True)
class PersonalRedaction:
    """How many of each personal detail :func:`redact_personal` removed."""

    emails: int = 0
    user_paths: int = 0
    secrets: int = 0

    def __add__(self, other: PersonalRedaction) -> PersonalRedaction:
        return PersonalRedaction(
            self.emails + other.emails,
            self.user_paths + other.user_paths,
            self.secrets + other.secrets,
        )


def redact_personal(text: str) -> tuple[str, PersonalRedaction]:
    """``text`` without secrets (:func:`redact`), e-mail addresses (``[REDACTED:email]``)
    or the user names of home folders (``/home/[user]/``, ``C:\\Users\\[user]\\``), for
    text taken from people's traces into files others read. Idempotent."""
    out, found = redact(text)
    out, emails = _EMAIL.subn(EMAIL_MARKER, out)
    users = 0

    def user(m: re.Match[str]) -> str:
        nonlocal users
        if m.group("user") == USER_MARKER:
            return m.group(0)
        users += 1
        return m.group("lead") + USER_MARKER

    out = _HOME.sub(user, out)
    return out, PersonalRedaction(emails=emails, user_paths=users, secrets=len(found))
