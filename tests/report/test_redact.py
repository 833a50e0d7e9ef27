"""The secret detector: planted secrets of every kind go, look-alikes stay."""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from codegold.evaluate.records import Diagnosis
from codegold.redact import (
    Finding,
    SecretKind,
    find_secrets,
    redact,
    redact_json,
    redact_record,
    shannon_entropy,
)
from tests.report.helpers import j, record

K = SecretKind
AWS_ID = j("AKIA", "IOSFODNN7EXAMPLE")
AWS_SECRET = j("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY")
GHP = j("gh", "p_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")
GHO = j("gh", "o_", "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2")
GH_PAT = j(
    "github_", "pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
)
GLPAT = j("glp", "at-", "xY3kP9qL2mN7vB4cR8tW")
XOXB = j("xo", "xb-", "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx")
XOXP = j("xo", "xp-", "123456789012-1234567890123-1234567890123-0a1b2c3d4e5f")
SK_LIVE = j("sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc")
RK_LIVE = j("rk_", "live_", "51HbQ2dKz8ZxYwVuT7sR6qP5oN")
GOOGLE = j("AI", "za", "SyD-1234567890abcdefghijklmnopqrstu")
JWT = j(
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
    ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0",
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
)
PEM_BODY = "MIIEowIBAAKCAQEA7bq0ZxV3\nc2VjcmV0IGtleSBtYXRlcmlhbA==\n"
RSA_BLOCK = j("-----BEGIN RSA ", "PRIVATE KEY-----\n", PEM_BODY, "-----END RSA PRIVATE KEY-----")
OPENSSH_BLOCK = j(
    "-----BEGIN OPENSSH ",
    "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
    "-----END OPENSSH PRIVATE KEY-----",
)
ENTROPIC = "Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTA="

# (id, text, kind, the secret that must be gone, text that must stay)
PLANTED: list[tuple[str, str, SecretKind, str, str]] = [
    (
        "aws-key-id",
        f"aws_access_key_id = {AWS_ID}",
        K.AWS_ACCESS_KEY_ID,
        AWS_ID,
        "aws_access_key_id",
    ),
    ("aws-key-id-prose", f"leaked {AWS_ID} in a log", K.AWS_ACCESS_KEY_ID, AWS_ID, "in a log"),
    (
        "aws-secret-ini",
        f"aws_secret_access_key = {AWS_SECRET}",
        K.AWS_SECRET_ACCESS_KEY,
        AWS_SECRET,
        "",
    ),
    (
        "aws-secret-env",
        f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}",
        K.AWS_SECRET_ACCESS_KEY,
        AWS_SECRET,
        "",
    ),
    (
        "aws-secret-json",
        f'{{"SecretAccessKey": "{AWS_SECRET}"}}',
        K.AWS_SECRET_ACCESS_KEY,
        AWS_SECRET,
        "",
    ),
    ("github-ghp", f'token = "{GHP}"', K.GITHUB_TOKEN, GHP, "token = "),
    ("github-gho", f"oauth: {GHO}", K.GITHUB_TOKEN, GHO, "oauth"),
    ("github-pat", f"GITHUB_TOKEN={GH_PAT}", K.GITHUB_TOKEN, GH_PAT, "GITHUB_TOKEN="),
    (
        "gitlab-glpat",
        f"curl --header 'PRIVATE-TOKEN: {GLPAT}' gitlab",
        K.GITLAB_TOKEN,
        GLPAT,
        "gitlab",
    ),
    ("slack-xoxb", f"client = WebClient(token='{XOXB}')", K.SLACK_TOKEN, XOXB, "WebClient"),
    ("slack-xoxp", f"SLACK={XOXP}", K.SLACK_TOKEN, XOXP, ""),
    (
        "slack-webhook",
        j(
            "url = 'https://hooks.slack.com/services/",
            "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX'",
        ),
        K.SLACK_WEBHOOK,
        "T00000000/B00000000",
        "hooks.slack.com",
    ),
    ("stripe-sk-live", f"stripe.api_key = '{SK_LIVE}'", K.STRIPE_KEY, SK_LIVE, "stripe.api_key"),
    ("stripe-rk-live", f"key: {RK_LIVE}", K.STRIPE_KEY, RK_LIVE, ""),
    ("google-api-key", f"maps?key={GOOGLE}&q=x", K.GOOGLE_API_KEY, GOOGLE, "&q=x"),
    ("jwt", f"cookie session={JWT}; Path=/", K.JWT, JWT, "Path=/"),
    ("jwt-in-bearer", f"Authorization: Bearer {JWT}", K.JWT, JWT, "Authorization: Bearer"),
    (
        "pem-rsa",
        f"key file:\n{RSA_BLOCK}\nend of file",
        K.PRIVATE_KEY,
        PEM_BODY.split()[1],
        "end of file",
    ),
    ("pem-openssh", OPENSSH_BLOCK, K.PRIVATE_KEY, "b3BlbnNzaC1rZXktdjEAAAAA", ""),
    ("pem-truncated-excerpt", RSA_BLOCK[:60], K.PRIVATE_KEY, "MIIEowIB", ""),
    ("pem-header-gone", RSA_BLOCK, K.PRIVATE_KEY, "BEGIN RSA PRIVATE KEY", ""),
    ("password-python", 'password = "hunter2"', K.PASSWORD, "hunter2", "password = "),
    (
        "password-kwarg",
        'connect(host="db", password="s3cr3t!")',
        K.PASSWORD,
        "s3cr3t!",
        'host="db"',
    ),
    ("password-annotated", 'password: str = "hunter22"', K.PASSWORD, "hunter22", "password: str"),
    ("password-env", "DB_PASSWORD=correcthorse", K.PASSWORD, "correcthorse", "DB_PASSWORD="),
    ("password-export", "export PGPASSWORD=Pa55word", K.PASSWORD, "Pa55word", "export"),
    (
        "password-yaml",
        "database:\n  password: Tr0ub4dor\n  user: app",
        K.PASSWORD,
        "Tr0ub4dor",
        "user: app",
    ),
    ("password-yaml-quoted", "  passwd: 'plainpass'", K.PASSWORD, "plainpass", "passwd"),
    (
        "password-json",
        '{"user": "app", "password": "j$0nPass"}',
        K.PASSWORD,
        "j$0nPass",
        '"user": "app"',
    ),
    (
        "password-properties",
        "spring.datasource.password=Pr0pS3cret",
        K.PASSWORD,
        "Pr0pS3cret",
        "spring",
    ),
    ("password-cli-flag", "mysql --password=cl1Secret db", K.PASSWORD, "cl1Secret", "db"),
    ("password-go", 'dbPassword := "g0lang!"', K.PASSWORD, "g0lang!", "dbPassword"),
    (
        "password-dotnet",
        "Server=db;User Id=sa;Password=MyS3cret!;",
        K.PASSWORD,
        "MyS3cret!",
        "User Id=sa",
    ),
    (
        "password-jdbc-param",
        "jdbc:postgresql://db/app?user=app&password=jdbcS3cret",
        K.PASSWORD,
        "jdbcS3cret",
        "user=app",
    ),
    ("password-ini-mixed", "password = hunter2", K.PASSWORD, "hunter2", "password"),
    ("secret-django", f'SECRET_KEY = "{ENTROPIC}"', K.SECRET_ASSIGNMENT, ENTROPIC, "SECRET_KEY"),
    ("secret-client", f'client_secret: "{ENTROPIC}"', K.SECRET_ASSIGNMENT, ENTROPIC, ""),
    (
        "secret-api-key-json",
        '{"api_key": "a8f5f167f44f4964e6c998dee827110c"}',
        K.SECRET_ASSIGNMENT,
        "a8f5f167f44f4964e6c998dee827110c",
        "api_key",
    ),
    (
        "secret-apikey-camel",
        "const apiKey = 'k3y-0123456789abcdef';",
        K.SECRET_ASSIGNMENT,
        "k3y-0123456789abcdef",
        "const apiKey",
    ),
    (
        "secret-token-env",
        "SLACK_SIGNING_SECRET=8f742231b10e8888abcd99yyyzzz85a5",
        K.SECRET_ASSIGNMENT,
        "8f742231b10e8888abcd99yyyzzz85a5",
        "",
    ),
    (
        "secret-auth-token-yaml",
        "auth_token: 9c1a77e0d2b34f56",
        K.SECRET_ASSIGNMENT,
        "9c1a77e0d2b34f56",
        "auth_token",
    ),
    (
        "secret-php-array",
        "'api_key' => 'phpK3yValue123',",
        K.SECRET_ASSIGNMENT,
        "phpK3yValue123",
        "'api_key'",
    ),
    (
        "url-postgres",
        "postgres://admin:Sup3rS3cret@db.internal:5432/app",
        K.URL_CREDENTIALS,
        "Sup3rS3cret",
        "postgres://admin:",
    ),
    (
        "url-mongodb-srv",
        "MONGO_URL=mongodb+srv://user:pa55w0rd@cluster0.example.net/test",
        K.URL_CREDENTIALS,
        "pa55w0rd",
        "cluster0.example.net",
    ),
    (
        "url-redis-no-user",
        "redis://:r3dispass@cache:6379/0",
        K.URL_CREDENTIALS,
        "r3dispass",
        "cache:6379",
    ),
    (
        "url-jdbc-mysql",
        "jdbc:mysql://root:m7sqlpass@localhost/db",
        K.URL_CREDENTIALS,
        "m7sqlpass",
        "localhost",
    ),
    (
        "url-jdbc-oracle",
        "jdbc:oracle:thin:scott/tiger42@dbhost:1521:ORCL",
        K.URL_CREDENTIALS,
        "tiger42",
        "dbhost",
    ),
    ("url-amqp", "amqp://guest:gu3st@rabbit:5672/", K.URL_CREDENTIALS, "gu3st", "rabbit"),
    (
        "url-https-basic",
        "git clone https://deploy:d3ployPw@git.example.com/repo.git",
        K.URL_CREDENTIALS,
        "d3ployPw",
        "git.example.com",
    ),
    (
        "bearer-header",
        "Authorization: Bearer abcdef0123456789abcdef",
        K.BEARER_TOKEN,
        "abcdef0123456789abcdef",
        "Authorization",
    ),
    (
        "bearer-curl",
        "curl -H 'authorization: bearer 0a1b2c3d4e5f6a7b'",
        K.BEARER_TOKEN,
        "0a1b2c3d4e5f6a7b",
        "curl",
    ),
    (
        "bearer-js",
        "headers: {Authorization: `Bearer ${token}`}, fetch: 'Bearer Zx81kLm0Qp27sT5uVw'",
        K.BEARER_TOKEN,
        "Zx81kLm0Qp27sT5uVw",
        "${token}",
    ),
    (
        "basic-auth-header",
        "Authorization: Basic dXNlcjpwYXNzd29yZA==",
        K.BASIC_AUTH,
        "dXNlcjpwYXNzd29yZA==",
        "",
    ),
    (
        "high-entropy-rails",
        f'secret_key_base: "{ENTROPIC}"',
        K.HIGH_ENTROPY_SECRET,
        ENTROPIC,
        "secret_key_base",
    ),
    (
        "high-entropy-salt",
        'SESSION_SECRET_SALT = "q8Zr2LwX0vT5mN3kB7yH"',
        K.HIGH_ENTROPY_SECRET,
        "q8Zr2LwX0vT5mN3kB7yH",
        "SESSION_SECRET_SALT",
    ),
    (
        "high-entropy-hex",
        "private_signing_material = 9f86d081884c7d659a2feaa0c55ad015",
        K.HIGH_ENTROPY_SECRET,
        "9f86d081884c7d659a2feaa0c55ad015",
        "",
    ),
]

SHA = "3f2a9c1e5b7d4a6c8e0f1a2b3c4d5e6f7a8b9c0d"
SHA256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
LOOK_ALIKES: list[tuple[str, str]] = [
    ("git-sha-in-sentence", f"The index was built from {SHA}, not the pinned revision."),
    ("git-sha-field", f'"repositoryRevision": "{SHA}",'),
    ("git-sha-yaml", f"revision: {SHA}"),
    ("token-count", "token_count = 3"),
    ("max-tokens", "max_tokens = 4096"),
    ("password-field", "password_field = forms.CharField()"),
    ("password-widget", "password = forms.CharField(widget=forms.PasswordInput)"),
    ("uuid", "request id 123e4567-e89b-12d3-a456-426614174000 failed"),
    ("uuid-assigned", 'session_id = "123e4567-e89b-12d3-a456-426614174000"'),
    ("sha256-digest-results", f'"digest": "sha256:{SHA256}"'),
    ("suite-digest", f'"attemptsDigest": "{SHA256}",'),
    ("path-policy-digest", '"pathPolicy": "sha256:7d1e",'),
    (
        "npm-integrity",
        '"integrity": "sha512-xGSbzN+BSNJUMidCJmt+cgWyW7RWJAMLGOIO6H/uk7x4EsNxSDd10NTrvrGwakYVOuq2ehHsuvu8rsixHhSOow=="',
    ),
    ("poetry-hash", f'{{file = "x-1.0.tar.gz", hash = "sha256:{SHA256}"}},'),
    ("cargo-checksum", f'checksum = "{SHA256}"'),
    ("yarn-resolved", f'resolved "https://registry.yarnpkg.com/x/-/x-1.0.0.tgz#{SHA}"'),
    ("password-annotation", "password: str"),
    ("password-optional", "password: Optional[str] = None"),
    ("password-param", "def login(self, username: str, password: str) -> None:"),
    ("password-ts-interface", "  password: string;"),
    ("password-from-request", "password = request.form['password']"),
    ("password-this", "  password: this.password,"),
    ("password-variable", "password = user_supplied_password"),
    ("password-env-ref", "export PASSWORD=$DB_PASSWORD"),
    ("password-template", 'password = "${DB_PASSWORD}"'),
    ("password-jinja", "password: {{ vault_db_password }}"),
    ("password-placeholder", 'password = "<your-password>"'),
    ("password-stars", 'password: "********"'),
    ("password-label", 'password: "Password"'),
    ("password-prompt", 'placeholder="Enter your password"'),
    ("password-hash-name", 'password_hash = "pbkdf2_sha256$260000$abc$def"'),
    ("api-key-environ", 'api_key = os.environ["API_KEY"]'),
    ("api-key-getenv", "const apiKey = process.env.API_KEY;"),
    ("token-call", "const token = getToken();"),
    ("token-lexer", 'token = "function"'),
    ("token-type", '"tokenType": "Bearer"'),
    ("token-url", 'TOKEN_URL = "https://auth.example.com/oauth/token"'),
    ("secret-name", 'secret_name = "prod/db/password"'),
    ("secret-path", "client_secret_file: /etc/app/client_secret.json"),
    ("bearer-prose", "Bearer authentication sends a token in a header."),
    ("url-with-port", "see https://example.com:8080/docs#auth"),
    ("git-ssh", "git@github.com:acme/payments.git and ssh://git@host/repo"),
    (
        "public-key",
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----",
    ),
    ("identifiers", "createSession calls validateRefreshToken then refreshTokenStore.get(userId)"),
    ("chunk-id", '"chunkId": "src/auth/session-service.ts:12-48:createSession"'),
    ("i18n-key", 'key = "settings.profile.password_title"'),
    (
        "data-uri",
        "img = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='",
    ),
    ("stripe-docs-prefix", "Secret keys start with sk_live_ and test keys with sk_test_."),
    ("redacted-already", "password = [REDACTED:password] and token: [REDACTED:github_token]"),
]


@pytest.mark.parametrize(
    ("text", "kind", "secret", "keep"),
    [p[1:] for p in PLANTED],
    ids=[p[0] for p in PLANTED],
)
def test_planted_secret_is_redacted(text: str, kind: SecretKind, secret: str, keep: str) -> None:
    out, findings = redact(text)
    assert secret not in out
    assert kind in {f.kind for f in findings}, findings
    assert f"[REDACTED:{kind.value}]" in out
    assert keep in out


@pytest.mark.parametrize("text", [p[1] for p in LOOK_ALIKES], ids=[p[0] for p in LOOK_ALIKES])
def test_look_alike_is_left_alone(text: str) -> None:
    out, findings = redact(text)
    assert findings == []
    assert out == text


@pytest.mark.parametrize("text", [p[1] for p in PLANTED], ids=[p[0] for p in PLANTED])
def test_redacting_twice_finds_nothing_more(text: str) -> None:
    once, _ = redact(text)
    twice, findings = redact(once)
    assert findings == []
    assert twice == once


def test_findings_locate_the_secret_without_carrying_it() -> None:
    text = f"line one\npassword = 'hunter2'\nkey = {GHP}\n"
    findings = find_secrets(text)
    assert [(f.kind, f.line) for f in findings] == [(K.PASSWORD, 2), (K.GITHUB_TOKEN, 3)]
    assert [text[f.start : f.end] for f in findings] == ["hunter2", GHP]
    assert "hunter2" not in repr(findings) and GHP not in repr(findings)
    assert redact(text)[0] == (
        "line one\npassword = '[REDACTED:password]'\nkey = [REDACTED:github_token]\n"
    )


def test_overlapping_detections_become_one_specific_finding() -> None:
    out, findings = redact(f'GITHUB_TOKEN="{GHP}"')
    assert [f.kind for f in findings] == [K.GITHUB_TOKEN]
    assert out == 'GITHUB_TOKEN="[REDACTED:github_token]"'


def test_every_kind_is_exercised() -> None:
    assert {p[2] for p in PLANTED} == set(SecretKind)


@pytest.mark.parametrize(
    ("value", "bits"),
    [("", 0.0), ("aaaa", 0.0), ("ab", 1.0), ("abcd", 2.0), ("0123456789abcdef", 4.0)],
    ids=["empty", "constant", "two", "four", "hex-alphabet"],
)
def test_shannon_entropy(value: str, bits: float) -> None:
    assert shannon_entropy(value) == pytest.approx(bits)


def test_redact_json_copies_and_redacts_nested_strings() -> None:
    value = {
        "excerpts": [{"file": "a.py", "text": f"token = '{GHP}'"}],
        "n": 3,
        "ok": True,
        f"key {SK_LIVE}": None,
    }
    before = copy.deepcopy(value)
    out, findings = redact_json(value)
    assert value == before
    assert out["excerpts"][0] == {"file": "a.py", "text": "token = '[REDACTED:github_token]'"}
    assert out["n"] == 3 and out["ok"] is True
    assert "key [REDACTED:stripe_key]" in out
    assert sorted(f.kind for f in findings) == sorted([K.GITHUB_TOKEN, K.STRIPE_KEY])


def test_redact_record_touches_free_text_only() -> None:
    rec = record(
        query=f"why does login fail with {GHP}?",
        passed=False,
        diagnosis=Diagnosis(
            "retrieval_miss",
            "retrieval",
            "saw password='hunter2' in the excerpt",
            {"excerpt": f"key = '{SK_LIVE}'", "file": "src/password.ts"},
        ),
    )
    out, findings = redact_record(rec)
    assert GHP not in out.query and "[REDACTED:github_token]" in out.query
    assert out.diagnosis is not None and "hunter2" not in out.diagnosis.detail
    assert out.diagnosis.evidence == {
        "excerpt": "key = '[REDACTED:stripe_key]'",
        "file": "src/password.ts",
    }
    assert out.ranked == rec.ranked and out.case_id == rec.case_id
    assert rec.diagnosis is not None and "hunter2" in rec.diagnosis.detail  # input untouched
    assert len(findings) == 3 and all(isinstance(f, Finding) for f in findings)


@pytest.mark.skipif(
    importlib.util.find_spec("detect_secrets") is None, reason="detect-secrets is not installed"
)
def test_every_line_detect_secrets_flags_is_redacted_too(tmp_path: Path) -> None:
    """Cross-check coverage against detect-secrets (a test-only reference): on the
    planted corpus, each line it flags must fall inside one of our findings."""
    from detect_secrets.core.secrets_collection import SecretsCollection
    from detect_secrets.settings import default_settings

    corpus = "\n".join(p[1] for p in PLANTED) + "\n"
    path = tmp_path / "planted.txt"
    path.write_text(corpus)
    collection = SecretsCollection()
    with default_settings():
        collection.scan_file(str(path))
    flagged = {secret.line_number for _, secret in collection}
    assert flagged, "detect-secrets found nothing: the cross-check is not checking"
    covered: set[int] = set()
    for f in find_secrets(corpus):
        covered.update(range(f.line, f.line + corpus.count("\n", f.start, f.end) + 1))
    lines = corpus.splitlines()
    missed = {n: lines[n - 1] for n in sorted(flagged - covered)}
    assert not missed, missed


_PIECES = st.sampled_from(
    [
        *"aZ09 =:\"'\n-_./@+$",
        "password",
        "token",
        "api_key",
        "postgres://u:",
        "@h",
        "Bearer ",
        "AKIA",
        "hunter2",
        "s3cr3tValue99",
        "[REDACTED:password]",
        "eyJabcdefg.",
        "Authorization: Basic ",
        RSA_BLOCK[:31],
        "-----END RSA PRIVATE KEY-----",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
# A marker that joins its neighbours into URL credentials (found by this property).
@example("postgres://u:a-----BEGIN RSA PRIVATE KEY----------END RSA PRIVATE KEY-----@h")
def test_redaction_is_idempotent_and_findings_lie_in_the_text(text: str) -> None:
    out, findings = redact(text)
    assert redact(out) == (out, [])
    assert all(0 <= f.start < f.end <= len(text) for f in findings)
    assert [f.start for f in findings] == sorted(f.start for f in findings)


_PIECES = [
    "AKIA", "ASIA", "AIza", "eyJ", "ghp_", "github_pat_", "glpat-", "xoxb-", "sk_live_",
    "rk_test_", "hooks.slack.com/services/", "Bearer ", "bearer ", "authorization", "://",
    "user:", "@host", "jdbc:oracle:thin:", "-----BEGIN RSA PRIVATE KEY-----", "-----END",
    "password", "=", ":", "'", '"', " ", "\n", "_", "-", ".", "/", "A", "J",
    "ABCDEFGHIJKLMNOP0123", "abcdefghijklmnopqrstuvwxyz0123456789ABCD", "hunter2", "x",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join))
def test_text_without_a_clue_holds_no_secret(text: str) -> None:
    """The quick pre-check that spares most queries the patterns never hides a secret
    the patterns would find."""
    from codegold.redact import _CLUE, _clueless, _scan

    if list(_scan(text)):  # a secret: both steps of the pre-check see its clue
        assert _CLUE.search(text) is not None
        assert not _clueless(text)
