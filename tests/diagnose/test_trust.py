"""Diagnosis that never sends an owner on a wasted hunt: a label is stale only when the
revision's text lacks it; moved definitions say where they went; spans compare on
code; recorded chunks that skip the target are the chunker's doing."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.chunking import ChunkerConfig
from codegold.diagnose.presence import definition_line, definitions_elsewhere
from codegold.retrieve.config import RetrieverConfig
from tests.diagnose.test_causes import BASE, DEF, LEDGER_CLASS, _recorded, cause, run_case


@pytest.mark.parametrize(
    ("path", "text", "symbol", "line"),
    [
        (
            "a.js",
            "describe('app', () => {\n  it('works with .use()', () => {\n",
            "works with .use()",
            2,
        ),
        ("a.ts", 'test("parses `x`", () => {})\n', "parses `x`", 1),
        ("a.rb", "class Base\n  define_method(:halt) do\n  end\nend\n", "Base.halt", 2),
        ("a.rb", "describe 'x' do\n  it \"returns 404\" do\n", "returns 404", 2),
        ("a.rs", "rgtest!(f1_sjis, |dir: Dir, mut cmd: TestCommand| {\n", "f1_sjis", 1),
        ("a.js", "var req = {}\ndefineGetter(req, 'host', function host(){\n", "request.host", 2),
        ("a.js", "class A {\n  get size() {\n", "A.size", 2),
        ("a.js", "res.send = function send(body) {\n", "res.send", 1),
        ("a.go", "func (c *Context) JSON(code int, obj any) {\n", "Context.JSON", 1),
        ("a.java", "class G {\n  public <T> T fromJson(String j) {\n", "G.fromJson", 2),
        ("a.c", "static int\nredisReaderFeed(redisReader *r)\n{\n", "redisReaderFeed", 2),
        ("lib/context.js", "delegate(proto, 'response')\n  .method('redirect')\n", "redirect", 2),
        ("lib/context.js", "delegate(p, 'request')\n  .access('body')\n", "context.body", 2),
        (
            "a.js",
            "methods.forEach(function (method) {\n  app[method] = function () {\n",
            "app[method]",
            2,
        ),
        ("a.js", "utils.forEach(['delete', 'get'], function (method) {\n", "Axios.get", 1),
        ("a.js", "['post', 'put'].forEach((method) => {\n", "Client.put", 1),
        ("a.rb", "class R\n  attr_accessor :host, :port\n", "R.port", 2),
        # TypeScript methods with a return type, private names, parameters over lines,
        # signatures without a body (kysely, immer, hono)
        (
            "a.ts",
            "class M {\n  async #getState(db: Kysely<any>): Promise<State> {\n",
            "M.#getState",
            2,
        ),
        ("a.ts", "class M {\n  async migrateToLatest(): Promise<Set> {\n", "M.migrateToLatest", 2),
        (
            "a.ts",
            "class C {\n  streamQuery<R>(\n    q: Query,\n    size: number,\n  ): Iter<R> {\n",
            "C.streamQuery",
            2,
        ),
        (
            "a.ts",
            "class I {\n\tconstructor(config?: {\n\t\tfreeze?: boolean\n\t}) {\n",
            "I.constructor",
            2,
        ),
        (
            "a.ts",
            "interface D {\n  savepoint(c: C, name: string): Promise<void>;\n",
            "D.savepoint",
            2,
        ),
        ("a.js", "class A {\n  send(body,\n       cb) {\n", "A.send", 2),
        # C behind an export macro; Java fields and constants
        ("a.c", "CJSON_PUBLIC(cJSON *) cJSON_Parse(const char *value)\n{\n", "cJSON_Parse", 1),
        (
            "a.java",
            "class B {\n  public static final int MIME_CHUNK_SIZE = 76;\n",
            "B.MIME_CHUNK_SIZE",
            2,
        ),
        ("a.java", "class B {\n  private static final Map<String, Integer> CACHE;\n", "B.CACHE", 2),
    ],
)
def test_definitions_in_idioms_the_chunker_may_not_name(
    path: str, text: str, symbol: str, line: int
) -> None:
    assert definition_line(text, symbol, path) == line


@pytest.mark.parametrize(
    ("path", "text", "symbol"),
    [
        (
            "a.py",
            "from ._urls import URL\n\nclass R:\n    def url(self) -> URL:\n        return URL(x)\n",
            "URL",
        ),
        (
            "a.java",
            "class G {\n  void x() {\n    return fromJson(a);\n    Foo f = fromJson(b);\n",
            "fromJson",
        ),
        ("a.c", "int x(void) {\n    redisFoo(r);\n    return redisFoo(r);\n}\n", "redisFoo"),
        ("a.rs", "fn x() {\n    helper(1);\n}\n", "helper"),
        ("a.js", "const x = require('./y')\nx.parse(1)\n", "parse"),
        (
            "a.c",
            "int x(void) {\n    if (ok) redisFoo(r);\n    while (n) redisFoo(r);\n}\n",
            "redisFoo",
        ),
        ("a.ts", "  foo(x)\n  foo(y);\n  await foo(z)\n  foo(a, () => {\n    b()\n  })\n", "foo"),
        ("a.ts", "const r = ok\n  ? foo(x)\n  : bar\n", "foo"),
        ("a.js", "  foo(a, function () {\n  })\n", "foo"),
        (
            "a.java",
            "class A {\n  int f() {\n    return LIMIT;\n    int y = LIMIT;\n    x = LIMIT;\n",
            "LIMIT",
        ),
        ("a.java", "    if (a == LIMIT) {}\n    foo(LIMIT);\n", "LIMIT"),
    ],
)
def test_a_mention_is_not_a_definition(path: str, text: str, symbol: str) -> None:
    assert definition_line(text, symbol, path) is None


def test_definitions_elsewhere_names_the_new_home() -> None:
    files = [("a/_models.py", "from ._urls import URL\n"), ("a/_urls.py", "\n\nclass URL:\n")]
    assert definitions_elsewhere(files, "URL") == [("a/_urls.py", 3)]


MODELS = '''\
class URL:
    """A parsed URL."""

    def __init__(self, raw):
        self.raw = raw
'''
MOVED = """\
from app.urls import URL


class Request:
    def url(self) -> URL:
        return URL(self.raw)
"""


def test_moved_definition_is_stale_and_says_where_it_lives_now(tmp_path: Path) -> None:
    before = {**BASE, "app/models.py": MODELS}
    after = {**BASE, "app/models.py": MOVED, "app/urls.py": MODELS}
    target = {"file": "app/models.py", "symbol": "URL", "roles": ["definition"]}
    record = run_case(
        tmp_path, [before, after], {"id": "c", "query": "what is URL?", "accepted": [target]}
    )
    assert cause(record) == "stale_label"
    assert record.diagnosis is not None
    assert "app/urls.py:1" in record.diagnosis.detail
    assert record.diagnosis.evidence["definedElsewhere"] == [{"file": "app/urls.py", "line": 1}]


def test_valid_label_in_an_idiom_is_never_blamed_on_the_dataset(tmp_path: Path) -> None:
    ruby = (
        "class Router\n  define_singleton_method(:compile_route) do |path|\n    path\n  end\nend\n"
    )
    files = {**BASE, "lib/router.rb": ruby}
    target = {"file": "lib/router.rb", "symbol": "Router.compile_route", "roles": ["definition"]}
    record = run_case(
        tmp_path,
        [files],
        {"id": "c", "query": "create_session expired", "cutoff": 1, "accepted": [target]},
    )
    assert record.diagnosis is not None
    assert record.diagnosis.owner != "dataset", record.diagnosis.detail


def test_a_span_ending_on_a_blank_line_still_splits(tmp_path: Path) -> None:
    ledger = LEDGER_CLASS + "\n\n"
    files = {**BASE, "app/ledger.py": ledger}
    target = {"file": "app/ledger.py", "symbol": "Ledger", "lines": [1, ledger.count("\n")]}
    record = run_case(
        tmp_path,
        [files],
        {"id": "c", "query": "what is create_session?", "accepted": [target]},
        config=RetrieverConfig(depth=3, candidates_per_signal=3),
        chunker=ChunkerConfig(max_chunk_lines=8),
    )
    assert cause(record) == "chunk_boundary"


def _chunk(cid: str, start: int, end: int, symbol: str | None = None) -> dict[str, object]:
    return {
        "chunkId": cid,
        "file": "app/session.py",
        "startLine": start,
        "endLine": end,
        "symbol": symbol,
        "role": "definition",
    }


def test_recorded_chunks_that_skip_the_target_are_not_chunked(tmp_path: Path) -> None:
    # an external retriever's chunks stop at line 1 and resume at 13: create_session
    # (lines 4-10) is in none of them
    ranked = [_chunk("x1", 1, 1), _chunk("x2", 13, 14, "TokenExpired")]
    record = _recorded(
        tmp_path,
        ranked,
        candidates=ranked,
        case={"id": "c", "query": "what is create_session?", "accepted": [DEF]},
    )
    assert cause(record) == "not_chunked"
    assert record.diagnosis is not None and record.diagnosis.owner == "parser/chunker"


def test_recorded_split_with_blank_lines_between_parts_is_a_boundary(tmp_path: Path) -> None:
    ranked = [_chunk("x1", 4, 8, "create_session"), _chunk("x2", 9, 11)]
    record = _recorded(
        tmp_path,
        [_chunk("x0", 13, 15, "TokenExpired")],
        candidates=ranked,
        case={
            "id": "c",
            "query": "what is create_session?",
            "accepted": [{**DEF, "lines": [4, 11]}],
        },
    )
    assert cause(record) == "chunk_boundary"


UTIL = "def helper():\n    return 1\n"


def test_collapse_keeps_the_copy_in_use_and_diagnosis_names_the_collapse(tmp_path: Path) -> None:
    files = {**BASE, "app/legacy/util.py": UTIL, "app/x/y/z/util.py": UTIL}
    target = {"file": "app/legacy/util.py", "symbol": "helper"}
    record = run_case(
        tmp_path,
        [files],
        {"id": "c", "query": "what is `helper`?", "accepted": [target]},
        config=RetrieverConfig(legacy_mode="off"),
    )
    kept = [e.file for e in record.ranked if e.symbol == "helper"]
    assert kept[:1] == ["app/util.py"]  # not legacy, then the shortest path
    assert "app/legacy/util.py" not in kept and "app/x/y/z/util.py" not in kept
    assert cause(record) in ("reranker_demotion", "below_cutoff")
    assert record.diagnosis is not None
    assert "collapsed as a duplicate" in record.diagnosis.detail
    assert record.diagnosis.evidence["collapsedInto"]["file"] == "app/util.py"


MIGRATOR = """\
export class Migrator {
  async migrateToLatest(): Promise<Results> {
    return this.#migrate(() => ({ direction: 'Up', step: Infinity }))
  }

  async #getState(db: Kysely<any>): Promise<MigrationState> {
    const migrations = await this.#resolveMigrations()
    if (!this.#props.allowUnorderedMigrations) {
      this.#ensureMigrationsInOrder(migrations)
    }
    return { migrations }
  }
}
"""


def test_a_typescript_private_method_under_a_policy_role_is_not_stale(tmp_path: Path) -> None:
    # The path policy gives src/migration/ the migration role, so no chunk there fits an
    # unroled label; the text decides, and `async #getState(…): Promise<…> {` defines it.
    files = {**BASE, "src/migration/migrator.ts": MIGRATOR}
    target = {"file": "src/migration/migrator.ts", "symbol": "Migrator.#getState"}
    record = run_case(
        tmp_path,
        [files],
        {"id": "c", "query": "create_session expired", "cutoff": 1, "accepted": [target]},
    )
    assert record.diagnosis is not None
    assert record.diagnosis.cause != "stale_label", record.diagnosis.detail
