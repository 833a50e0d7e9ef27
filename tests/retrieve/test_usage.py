"""Usage questions ("example of X", "show me how to use X"): the code that does it and
its documentation come before tests, and a Go ``ExampleX`` function (documentation
that godoc shows under X, though it lives in a _test.go file) counts as docs."""

from __future__ import annotations

from pathlib import Path

from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.query import Intent, analyze
from tests.retrieve._index import index_files

SECURITY_PY = '''"""Password hashing."""

import hashlib
import hmac
import secrets


def generate_password_hash(password, method="scrypt", salt_length=16):
    """Hash a password with a random salt, as ``method$salt$hash``."""
    salt = secrets.token_hex(salt_length)
    digest = hashlib.scrypt(password.encode(), salt=salt.encode(), n=2**14, r=8, p=1)
    return f"{method}${salt}${digest.hex()}"


def check_password_hash(pwhash, password):
    """Check a password against a hash from generate_password_hash."""
    method, salt, digest = pwhash.split("$", 2)
    again = hashlib.scrypt(password.encode(), salt=salt.encode(), n=2**14, r=8, p=1)
    return hmac.compare_digest(again.hex(), digest)
'''

TEST_SECURITY_PY = """from security import check_password_hash, generate_password_hash


def test_password_hash_roundtrip():
    hashed = generate_password_hash("secret password")
    assert check_password_hash(hashed, "secret password")
    assert not check_password_hash(hashed, "other password")


def test_password_hash_salted():
    assert generate_password_hash("password") != generate_password_hash("password")
"""


def test_an_example_question_ranks_the_code_before_its_tests(tmp_path: Path) -> None:
    index = index_files(
        tmp_path, {"security.py": SECURITY_PY, "tests/test_security.py": TEST_SECURITY_PY}
    )
    query = "example of hashing a password and checking it later"
    assert analyze(query).intent is Intent.USAGE
    ranked = HybridRetriever(index).search(query).ranked
    roles = [index.chunks[row].role for row, _ in ranked]
    assert roles[0] == "definition"
    first_test = roles.index("test")
    assert all(role in ("definition", "call_site") for role in roles[:first_test])
    assert roles[:first_test].count("definition") == 2  # both functions before any test


LEVEL_GO = """package zap

import "sync/atomic"

// AtomicLevel is a level that can be changed safely at runtime.
type AtomicLevel struct {
	l *atomic.Int32
}

// SetLevel alters the logging level while the program runs.
func (lvl AtomicLevel) SetLevel(l int32) {
	lvl.l.Store(l)
}
"""

LEVEL_TEST_GO = """package zap

import "testing"

func TestAtomicLevelSetLevel(t *testing.T) {
	lvl := NewAtomicLevel()
	lvl.SetLevel(2)
	if lvl.Level() != 2 {
		t.Fatal("level was not changed at runtime")
	}
}
"""

EXAMPLE_TEST_GO = """package zap_test

import "go.uber.org/zap"

func ExampleAtomicLevel() {
	atom := zap.NewAtomicLevel()
	logger := zap.New(atom)
	// change the level at runtime
	atom.SetLevel(2)
	logger.Info("info logging disabled")
}
"""


def test_a_go_example_function_is_documentation(tmp_path: Path) -> None:
    files = {
        "level.go": LEVEL_GO,
        "level_test.go": LEVEL_TEST_GO,
        "example_test.go": EXAMPLE_TEST_GO,
    }
    index = index_files(tmp_path, files)
    retriever = HybridRetriever(index)
    query = "show me an example of changing the log level at runtime with AtomicLevel"
    result = retriever.search(query)
    by_symbol = {index.chunks[row].symbol: row for row, _ in result.ranked}
    example, test = by_symbol["ExampleAtomicLevel"], by_symbol["TestAtomicLevelSetLevel"]
    assert index.chunks[example].role == index.chunks[test].role == "test"
    factors = result.explanations
    assert factors[example].factors["role"] > factors[test].factors["role"]
    order = [row for row, _ in result.ranked]
    assert order.index(example) < order.index(test)
    # a question about tests still takes it for the test it is
    asked = retriever.search("show me the test for AtomicLevel SetLevel")
    assert asked.explanations[by_symbol["ExampleAtomicLevel"]].factors["role"] == 1.0
