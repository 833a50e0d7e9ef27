"""Traps that reach the cutoff of a question about the implementation: test code that
calls the named method many times, a test harness the path policy took as source, and
type stubs or signature files beside the code they describe. For such a question they
wait until every code chunk has had its turn; a question about tests or types, or a
name only they define, still finds them."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.cases.model import Context
from codegold.index.store import LoadedIndex
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.query import analyze
from tests.retrieve._index import index_files

MAILER_PY = '''"""Sending mail over SMTP."""

import smtplib


class Mailer:
    """Sends messages through one SMTP server."""

    def __init__(self, host, port=25):
        self.host = host
        self.port = port
        self.smtp = None

    def smtp_connect(self, options=None):
        """Open the connection to the SMTP server, or reuse an open one."""
        if self.smtp is not None:
            return True
        self.smtp = smtplib.SMTP(self.host, self.port)
        return True

    def smtp_send(self, header, body):
        """Send one message over the connection smtp_connect opened."""
        if not self.smtp_connect():
            raise RuntimeError("could not connect")
        self.smtp.sendmail(header, body)

    def smtp_close(self):
        """Close the connection smtp_connect opened."""
        if self.smtp is not None:
            self.smtp.quit()
            self.smtp = None

    def send(self, message):
        """Send a message: connect, send, close."""
        self.smtp_send(message.header, message.body)
        self.smtp_close()
'''

TEST_MAILER_PY = "import pytest\n\nfrom mailer import Mailer\n" + "".join(
    f"""

def test_smtp_connect_case_{n}():
    mailer = Mailer("smtp{n}.example.com")
    assert mailer.smtp_connect()
    assert mailer.smtp_connect()
    mailer.smtp_close()
    assert mailer.smtp_connect({{"timeout": {n}}})
"""
    for n in range(8)
)


def _files(index: LoadedIndex, ranked: list[tuple[int, float]], k: int = 5) -> list[str]:
    return [index.chunks[row].file for row, _ in ranked[:k]]


def _tests_before_code(index: LoadedIndex, ranked: list[tuple[int, float]]) -> int:
    """How many chunks of test files come before the last chunk of other code."""
    files = _files(index, ranked, len(ranked))
    last = max(i for i, f in enumerate(files) if not f.startswith("tests/"))
    return sum(f.startswith("tests/") for f in files[:last])


def test_tests_calling_the_named_method_wait_for_the_code(tmp_path: Path) -> None:
    index = index_files(
        tmp_path, {"src/mailer.py": MAILER_PY, "tests/test_mailer.py": TEST_MAILER_PY}
    )
    query = "Mailer.smtp_connect"
    before = HybridRetriever(index, RetrieverConfig(max_tooling=-1)).search(query)
    assert _tests_before_code(index, before.ranked) == 1  # the one aside max_asides allows
    result = HybridRetriever(index, RetrieverConfig()).search(query)
    assert _files(index, result.ranked, 1) == ["src/mailer.py"]
    assert _tests_before_code(index, result.ranked) == 0
    assert sorted(result.ranked) == sorted(before.ranked)  # moved, nothing dropped


def test_a_question_about_tests_or_a_test_file_open_keeps_them(tmp_path: Path) -> None:
    index = index_files(
        tmp_path, {"src/mailer.py": MAILER_PY, "tests/test_mailer.py": TEST_MAILER_PY}
    )
    retriever = HybridRetriever(index, RetrieverConfig())
    asked = retriever.search("which tests check that smtp_connect reuses the connection")
    assert _files(index, asked.ranked, 3).count("tests/test_mailer.py") >= 2
    opened = retriever.search(
        "smtp_connect", Context(open_file="tests/test_mailer.py", language="python")
    )
    assert _tests_before_code(index, opened.ranked) >= 1


LOGGER_PY = '''"""The logger."""


class Logger:
    """Logs records to the sinks added to it."""

    def __init__(self, core):
        self._core = core
        self._options = ()

    def opt(self, *, exception=None, record=False, lazy=False, colors=False, depth=0):
        """Parametrize a logging call: the options apply to the next message only."""
        options = (exception, depth, record, lazy, colors)
        return Logger(self._core, *options)

    def bind(self, **kwargs):
        """Bind attributes to the extra dict of each logged message record."""
        return Logger(self._core.bound(kwargs))

    def add(self, sink, *, level="DEBUG", format="{message}"):
        """Add a handler sending log messages to a sink adequately configured."""
        return self._core.add(sink, level, format)
'''

LOGGER_PYI = """from typing import Any, TypedDict

class Record(TypedDict):
    elapsed: Any
    exception: Any
    extra: dict
    level: Any
    message: str

class Logger:
    def opt(
        self,
        *,
        exception: bool | None = ...,
        record: bool = ...,
        lazy: bool = ...,
        colors: bool = ...,
        depth: int = ...,
    ) -> Logger: ...
    def bind(__self, **kwargs: Any) -> Logger: ...
    def add(self, sink: Any, *, level: str | int = ..., format: str = ...) -> int: ...
"""


def test_a_type_stub_beside_its_module_waits_for_the_code(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"pkg/__init__.py": LOGGER_PY, "pkg/__init__.pyi": LOGGER_PYI})
    retriever = HybridRetriever(index, RetrieverConfig())
    before = HybridRetriever(index, RetrieverConfig(max_tooling=-1)).search("Logger.opt")
    assert "pkg/__init__.pyi" in _files(index, before.ranked, 3)  # the stub among the code
    result = retriever.search("Logger.opt")
    files = _files(index, result.ranked, len(result.ranked))
    assert files[0] == "pkg/__init__.py"
    assert files.index("pkg/__init__.pyi") > max(
        i for i, f in enumerate(files) if f == "pkg/__init__.py"
    )
    # a question about types, and a name only the stub defines, find the stub
    typed = retriever.search("what type does Logger.opt return")
    assert "pkg/__init__.pyi" in _files(index, typed.ranked, 2)
    only = retriever.search("where is `Record` defined")
    assert _files(index, only.ranked, 1) == ["pkg/__init__.pyi"]


def test_a_stub_with_no_implementation_beside_it_is_the_code(tmp_path: Path) -> None:
    # the project's types are only declared (``types.pyi`` with no ``types.py``)
    index = index_files(tmp_path, {"pkg/types.pyi": LOGGER_PYI, "pkg/run.py": "x = 1\n"})
    result = HybridRetriever(index, RetrieverConfig()).search("Logger.opt")
    assert _files(index, result.ranked, 1) == ["pkg/types.pyi"]


REDIRECTOR_RB = (
    """module HTTP
  class Redirector
    def initialize(opts = {})
      @strict = opts.fetch(:strict, true)
      @max_hops = opts.fetch(:max_hops, 5).to_i
    end

    # Follows redirects until a non-redirect response is received
    def perform(request, response)
      @request = request
      @response = response
      while REDIRECT_CODES.include?(@response.status.code)
        @request = redirect_to(@response.headers["Location"])
        @response = yield @request
      end
      @response
    end

    # Redirect policy for follow
    def redirect_to(uri)
      raise StateError, "no Location header for redirect" unless uri
      verb = @request.verb
      code = @response.status.code
      if UNSAFE_VERBS.include?(verb) && STRICT_SENSITIVE_CODES.include?(code)
        raise StateError, "can't follow #{@response.status} redirect" if @strict
        verb = :get
      end
      verb = :get if !SEE_OTHER_ALLOWED_VERBS.include?(verb) && 303 == code
      @request.redirect(uri, verb)
    end
"""
    + "".join(
        f"""
    # Redirect policy {n}: the hops left before the redirect fails
    def redirect_hops_{n}(uri)
      @visited << "#{{@request.verb}} #{{uri}}"
      raise TooManyRedirectsError if @visited.size > @max_hops
      raise EndlessRedirectError if @visited.count(uri) > {n}
      uri
    end
"""
        for n in range(16)
    )
    + """  end
end
"""
)

REDIRECTOR_RBS = """module HTTP
  class Redirector
    def initialize: (?Hash[Symbol, untyped] opts) -> void
    def perform: (Request request, Response response) { (Request) -> Response } -> Response
    def redirect_to: (String? uri) -> Request
    # Redirect policy for follow: redirect_to builds the next request
    def redirect_uri: (String uri) -> String
  end
end
"""


def test_a_signature_folder_beside_lib_waits_for_the_code(tmp_path: Path) -> None:
    index = index_files(
        tmp_path,
        {"lib/http/redirector.rb": REDIRECTOR_RB, "sig/http/redirector.rbs": REDIRECTOR_RBS},
    )
    query = "HTTP::Redirector#redirect_to"
    before = HybridRetriever(index, RetrieverConfig(max_tooling=-1)).search(query)
    files = _files(index, before.ranked, len(before.ranked))
    assert files[-1] == "lib/http/redirector.rb"  # the signatures among the code
    result = HybridRetriever(index, RetrieverConfig()).search(query)
    files = _files(index, result.ranked, len(result.ranked))
    assert files[-1] == "sig/http/redirector.rbs"
    assert set(files[:-1]) == {"lib/http/redirector.rb"}


LDO_C = """#include "lua.h"

/*
** Maximum depth for nested C calls, syntactical nested non-terminals,
** and other features implemented through recursion in C.
*/
#if !defined(LUAI_MAXCCALLS)
#define LUAI_MAXCCALLS		200
#endif

/* Default limit on the size of the Lua stack (LUAI_MAXSTACK slots) */
#if !defined(LUAI_MAXSTACK)
#define LUAI_MAXSTACK		1000000
#endif

int luaD_growstack (lua_State *L, int n, int raiseerror) {
  int size = stacksize(L);
  if (size > LUAI_MAXSTACK) {
    return 0;  /* stack is larger than the maximum */
  }
  return 1;
}

static int stackinuse (lua_State *L) {
  int res = cast_int(L->top - L->stack);
  return res;  /* the part of the stack in use */
}

void luaD_shrinkstack (lua_State *L) {
  int inuse = stackinuse(L);
  luaD_reallocstack(L, inuse, 0);  /* shrink the stack to what is in use */
}

void luaD_inctop (lua_State *L) {
  luaD_checkstack(L, 1);
  L->top++;  /* one more slot of the stack */
}

int luaD_reallocstack (lua_State *L, int newsize, int raiseerror) {
  int oldsize = stacksize(L);
  L->stack = luaM_reallocvector(L, L->stack, oldsize, newsize);
  return 1;  /* the stack has its new size */
}
"""

LTESTS_H = """/* Internal Header for Debugging of the Lua Implementation */

/* test Lua with a small stack: override the default limit of the stack size */
#undef LUAI_MAXSTACK
#define LUAI_MAXSTACK		50000

/* test Lua with a small limit of C calls */
#undef LUAI_MAXCCALLS
#define LUAI_MAXCCALLS		180
"""

STACK_LUA = """-- testing the limit of the stack size (LUAI_MAXSTACK)
local function deep (n) if n > 0 then deep(n - 1) end end
-- the default limit of the Lua stack size is LUAI_MAXSTACK slots
local ok, msg = pcall(deep, 1000000)
assert(not ok and string.find(msg, "stack overflow"))
print("stack size limit: LUAI_MAXSTACK")
"""


def test_a_test_harness_the_policy_took_as_source_waits_for_the_code(tmp_path: Path) -> None:
    index = index_files(
        tmp_path, {"ldo.c": LDO_C, "ltests.h": LTESTS_H, "testes/stack.lua": STACK_LUA}
    )
    assert {c.file_role for c in index.chunks} == {"source"}  # the policy saw no tests
    query = "LUAI_MAXSTACK, what is the default limit on the Lua stack size?"
    assert analyze(query).intent.value == "configuration"
    before = HybridRetriever(index, RetrieverConfig(max_tooling=-1)).search(query)
    files = _files(index, before.ranked, len(before.ranked))
    assert files.index("ltests.h") < len(files) - 1 - files[::-1].index("ldo.c")  # among the code
    result = HybridRetriever(index, RetrieverConfig()).search(query)
    files = _files(index, result.ranked, len(result.ranked))
    code = [i for i, f in enumerate(files) if f == "ldo.c"]
    harness = [i for i, f in enumerate(files) if f != "ldo.c"]
    assert code and harness and max(code) < min(harness)


@pytest.mark.parametrize(
    ("path", "test_suite"),
    [
        ("testes/main.lua", True),  # Lua's test suite
        ("ltests.h", True),  # and its harness
        ("unittests/parser.c", True),
        ("e2e-tests/app.js", True),
        ("test_utils/db.go", True),
        ("src/parser_test.c", True),
        ("lib/faraday/adapter/test.rb", False),  # a library's test adapter
        ("src/contests.py", False),
        ("src/latest.c", False),
        ("src/attest.py", False),
        ("lib/protests/x.rb", False),
        ("src/testing.c", False),  # a library's testing helpers are its code
        ("zaptest/logger.go", False),
    ],
)
def test_paths_that_read_as_a_test_suite(path: str, test_suite: bool) -> None:
    from codegold.retrieve.hybrid import _TEST_SUITE

    assert bool(_TEST_SUITE.search(path)) is test_suite


@pytest.mark.parametrize(
    ("query", "intent"),
    [
        # the words the asker quotes are values, not what they ask for
        (
            'why does url.set_scheme("http") return Err(()) when my URL is "foo://example.com/"?',
            "definition",
        ),
        (
            'why does parsing "http://BÜCHER.example/" give me a host of "xn--bcher-kva.example"?',
            "definition",
        ),
        ("see https://example.com/docs: how does the parser split hosts", "definition"),
        ("show me an example of set_scheme", "usage"),
        ("what's the example config for 'retries' here", "usage"),
    ],
)
def test_intent_is_read_from_the_askers_words(query: str, intent: str) -> None:
    assert analyze(query).intent.value == intent


def test_an_issue_reports_reproducer_does_not_put_the_tests_first(tmp_path: Path) -> None:
    index = index_files(
        tmp_path, {"src/mailer.py": MAILER_PY, "tests/test_mailer.py": TEST_MAILER_PY}
    )
    report = (
        "smtp_connect opens a second connection after smtp_close\n\n"
        "Steps to reproduce:\n\n"
        '    mailer = Mailer("smtp.example.com")\n'
        "    assert mailer.smtp_connect()\n"
        "    mailer.smtp_close()\n"
        "    assert mailer.smtp_connect()\n\n"
        "I expected the second smtp_connect to fail, instead it connects again."
    )
    assert analyze(report).issue_report
    before = HybridRetriever(index, RetrieverConfig(max_tooling=-1)).search(report)
    assert _tests_before_code(index, before.ranked) >= 1  # the reproducer matched the tests
    result = HybridRetriever(index, RetrieverConfig()).search(report)
    assert _files(index, result.ranked, 1) == ["src/mailer.py"]
    assert _tests_before_code(index, result.ranked) == 0
    assert sorted(r for r, _ in result.ranked) == sorted(r for r, _ in before.ranked)
    scores = [s for _, s in result.ranked]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
