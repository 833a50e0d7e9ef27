"""SPEC §1 naming audit (issue 11): constructs not covered by test_symbol_naming.

Rows that pass lock today's naming of each construct the audit checked. Rows marked
``xfail(strict=True)`` are the gaps the audit confirmed and has not fixed yet: each
asserts the SPEC §1 name, so the fix that lands it turns the mark into a failure that
must be removed (and bumps ALGORITHM_VERSION with the output change).
"""

from __future__ import annotations

import pytest

from codegold.corpus.model import FileRole
from tests.chunking._naming import check_naming, chunks_of

SOURCE, TEST = FileRole.SOURCE, FileRole.TEST


def gap(reason: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=reason)


ROWS = [
    pytest.param(
        "set.go",
        """
        package set

        type Set[T comparable] struct{ m map[T]struct{} }

        func (s *Set[T]) Add(v T) { s.m[v] = struct{}{} }

        func (s Set[K]) Len() int { return len(s.m) }
        """,
        SOURCE,
        {"Set", "Set.Add", "Set.Len"},
        {"Set[T].Add", "Set[K].Len"},
        ["Set.Add", "Add", "Set.Len"],
        id="go-generic-receivers",
    ),
    pytest.param(
        "src/main/java/p/Point.java",
        """
        package p;

        public record Point(int x, int y) {
            public Point {
                if (x < 0) throw new IllegalArgumentException();
            }
            public int sum() { return x + y; }
        }

        enum Color { RED, GREEN; Color next() { return GREEN; } }

        @interface Marker { String value() default ""; }
        """,
        SOURCE,
        {"Point", "Point.Point", "Point.sum", "Color.RED", "Color.next", "Marker.value"},
        set(),
        ["Point.sum", "Point.Point", "Color.RED", "Marker.value"],
        id="java-record-enum-annotation",
    ),
    pytest.param(
        "src/app.ts",
        """
        declare module 'express' {
          interface Request { user?: string }
        }
        export function parse(x: string): number;
        export function parse(x: number): number;
        export function parse(x: any): number { return 1 }
        export default function createApp(opts: object) { return 1 }
        export class Store {
          handle = (e: Event) => { this.x(e) };
          private x(e: Event) {}
        }
        """,
        SOURCE,
        {"Request", "parse", "createApp", "Store.handle", "Store.x"},
        set(),
        ["Request", "parse", "createApp", "Store.handle"],
        id="ts-declare-module-overloads-default-arrow-field",
    ),
    pytest.param(
        "src/Shapes.php",
        """
        <?php
        namespace App;
        trait Greets { public function hello() { return 1; } }
        enum Suit: string {
            case Hearts = 'H';
            public function color(): string { return 'Red'; }
        }
        interface HasArea { const UNIT = 'm'; public function area(): float; }
        """,
        SOURCE,
        {"Greets.hello", "Suit.Hearts", "Suit.color", "HasArea.UNIT", "HasArea.area"},
        {"App.Greets.hello"},
        ["Greets.hello", "Suit.color", "HasArea.UNIT"],
        id="php-trait-enum-interface-constant",
    ),
    pytest.param(
        "lib/rack/request.rb",
        """
        module Rack
          class Request
            attr_accessor :env, :params
            alias_method :query, :params
            define_method(:host) { @env['HTTP_HOST'] }
            class << self
              def build(env) new(env) end
            end
          end
        end
        """,
        SOURCE,
        {"Request.env", "Request.params", "Request.query", "Request.host", "Request.build"},
        set(),
        ["Request.query", "Request#host", "Request.build"],
        id="ruby-attr-alias-define-method-singleton",
    ),
    pytest.param(
        "pkg/shapes.py",
        """
        class Outer:
            class Inner:
                def __init__(self, a):
                    self.a = a

                @property
                def size(self):
                    return 1

                @staticmethod
                def make():
                    return Outer.Inner(1)
        """,
        SOURCE,
        {"Outer.Inner.__init__", "Outer.Inner.size", "Outer.Inner.make"},
        set(),
        ["Inner.__init__", "Inner.size", "Outer.Inner.make"],
        id="python-nested-init-property-staticmethod",
    ),
    pytest.param(
        # SPEC §1 is silent on #private: the written form is kept (`#onData`).
        "lib/parser.js",
        """
        class Parser {
          #buf = '';
          #onData(chunk) {
            this.#buf += chunk;
          }
          feed(x) { this.#onData(x) }
        }
        module.exports = Parser;
        """,
        SOURCE,
        {"Parser.#onData", "Parser.#buf", "Parser.feed"},
        set(),
        ["Parser.#onData", "#onData"],
        id="js-private-members-written-form",
    ),
    pytest.param(
        # ljharb/qs test/parse.js
        "test/parse.js",
        """
        var test = require('tape');
        test('parse()', function (t) {
            t.test('parses a simple string', function (st) {
                st.deepEqual(qs.parse('0=foo'), { 0: 'foo' });
                st.end();
            });
            t.end();
        });
        """,
        TEST,
        {"parse()", "parses a simple string"},
        set(),
        ["parses a simple string"],
        id="js-tape-subtest-titles",
    ),
    pytest.param(
        "test/vector.test.cpp",
        """
        #include <catch2/catch.hpp>
        TEST_CASE("vectors can be sized and resized", "[vector]") {
            std::vector<int> v(5);
            SECTION("resizing bigger changes size and capacity") {
                v.resize(10);
                REQUIRE(v.size() == 10);
            }
        }
        """,
        TEST,
        {"vectors can be sized and resized", "resizing bigger changes size and capacity"},
        set(),
        ["vectors can be sized and resized"],
        id="cpp-catch2-titles",
    ),
    pytest.param(
        # madler/zlib zlib.h and deflate.c
        "zlib.h",
        """
        #ifndef ZLIB_H
        #define ZLIB_H
        ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));
        ZEXTERN int ZEXPORT inflate(z_streamp strm, int flush);
        ZEXTERN const char * ZEXPORT zlibVersion OF((void));
        local block_state deflate_stored OF((deflate_state *s, int flush));
        #endif
        """,
        SOURCE,
        {"deflate", "inflate", "zlibVersion", "deflate_stored"},
        {"OF"},
        ["deflate", "zlibVersion"],
        id="c-of-wrapped-prototypes",
    ),
    pytest.param(
        # unjs/h3 src/router.ts (createRouter), trimmed
        "src/router.ts",
        """
        export function createRouter(opts: CreateRouterOptions = {}): Router {
          const router: Router = {} as Router;
          const addRoute = (path: string, handler: EventHandler, method: RouterMethod) => {
            return router;
          };
          router.use = router.add = (path, handler, method) =>
            addRoute(path, handler as EventHandler, method || "all");
          return router;
        }
        """,
        SOURCE,
        {"createRouter", "router.use", "router.add", "createRouter.addRoute"},
        {"createRouter.router.use"},
        ["router.use", "router.add", "createRouter"],
        id="ts-factory-chained-property-assignment",
    ),
    pytest.param(
        # winstonjs/winston test/helpers/mocks/legacy-transport.js; the others in the
        # style of expressjs/express's lib/ (a variable and an export in one statement)
        "lib/legacy.js",
        """
        const Legacy = module.exports = function Legacy(options) {
          this.silent = options.silent;
        };
        var serve = exports.serve = function serve(root) {
          return root;
        };
        const send = res.send = res.json = function send(body) {
          return body;
        };
        function Stream(opts) {
          this.pipe = function pipe(dest) { return dest; };
        }
        """,
        SOURCE,
        {"Legacy", "serve", "send", "res.send", "res.json", "Stream.pipe"},
        {"module.exports", "exports.serve", "this.pipe", "Stream.this.pipe"},
        ["Legacy", "serve", "res.json", "Stream.pipe"],
        id="js-variable-and-property-chains",
    ),
    pytest.param(
        # iamkun/dayjs src/plugin/isBetween/index.js and timezone/index.js (v1.11.23), trimmed
        "src/plugin/timezone/index.js",
        """
        export default (o, c, d) => {
          const proto = c.prototype
          c.prototype.isBetween = function (a, b, u, i) {
            return this.isAfter(d(a), u) && this.isBefore(d(b), u)
          }
          proto.tz = function (timezone = defaultTimezone, keepLocalTime) {
            return this.utcOffset(0, keepLocalTime)
          }
          d.tz.setDefault = function (timezone) {
            defaultTimezone = timezone
          }
        }
        """,
        SOURCE,
        {"index", "c.isBetween", "proto.tz", "d.tz.setDefault"},
        {"c.prototype.isBetween", "index.proto.tz"},
        ["isBetween", "proto.tz", "tz.setDefault"],
        id="js-default-export-plugin-assignments",
    ),
    pytest.param(
        # a CommonJS plugin (the shape of mongoose's and chai's plugins) beside a route
        # callback: the callback's assignment is no definition of the module
        "lib/plugin.js",
        """
        module.exports = function (schema, options) {
          schema.methods.softDelete = function softDelete() {
            this.deletedAt = new Date()
          }
        }
        const register = (api) => {
          api.ping = () => 'pong'
        }
        app.get('/', function (req, res) {
          res.send = function () {}
        })
        """,
        SOURCE,
        {"plugin", "schema.methods.softDelete", "register", "api.ping"},
        {"res.send", "app.res.send"},
        ["softDelete", "api.ping", "register"],
        id="js-cjs-plugin-and-callback",
    ),
    pytest.param(
        # jq's src/util.c (jq-1.8.1): `*const` arrays inside `#ifndef HAVE_STRPTIME`.
        "src/util.c",
        """
        #ifndef HAVE_STRPTIME
        static const char *const nast[] = {
               "EST",    "CST",    "MST",    "PST",    "\\0\\0\\0"
        };
        static const char *const weekday_name[] =
        {
            "Sunday", "Monday", "Tuesday", "Wednesday",
            "Thursday", "Friday", "Saturday"
        };
        #endif
        """,
        SOURCE,
        {"nast", "weekday_name"},
        set(),
        ["weekday_name", "nast"],
        id="c-const-pointer-arrays-in-ifndef",
    ),
    pytest.param(
        # expressjs/session session/session.js (v1.19.0), trimmed: methods installed by a
        # helper taking (target, 'name', function), and chai's utils.addMethod
        "session/session.js",
        """
        function Session(req, data) {
          Object.defineProperty(this, 'req', { value: req });
        }

        defineMethod(Session.prototype, 'touch', function touch() {
          return this.resetMaxAge();
        });

        defineMethod(Session.prototype, 'destroy', function destroy(fn) {
          delete this.req.session;
          this.req.sessionStore.destroy(this.id, fn);
          return this;
        });

        utils.addMethod(Assertion.prototype, 'within', function (start, finish) {
          return this.assert(start < finish);
        });

        function defineMethod(obj, name, fn) {
          Object.defineProperty(obj, name, { value: fn, writable: true });
        }
        """,
        SOURCE,
        {"Session", "Session.touch", "Session.destroy", "Assertion.within", "defineMethod"},
        {"Session.prototype.touch", "obj.name"},
        ["Session.touch", "Session.destroy", "Assertion.within"],
        id="js-method-defined-by-helper-call",
    ),
    pytest.param(
        # jashkenas/underscore modules/bind.js, defaults.js, isArray.js and
        # templateSettings.js (1.13.8): default exports computed by a call or expression,
        # named by the file
        "modules/bind.js",
        """
        import restArguments from './restArguments.js';

        export default restArguments(function(func, context, args) {
          if (!isFunction(func)) throw new TypeError('Bind must be called on a function');
          return executeBound(func, context, args);
        });
        """,
        SOURCE,
        {"bind"},
        set(),
        ["bind"],
        id="js-default-export-wrapped-function",
    ),
    pytest.param(
        "modules/defaults.js",
        """
        import createAssigner from './_createAssigner.js';
        import allKeys from './allKeys.js';

        // Fill in a given object with default properties.
        export default createAssigner(allKeys, true);
        """,
        SOURCE,
        {"defaults"},
        set(),
        ["defaults"],
        id="js-default-export-call-value",
    ),
    pytest.param(
        "modules/isArray.js",
        """
        import { nativeIsArray } from './_setup.js';
        import tagTester from './_tagTester.js';

        export default nativeIsArray || tagTester('Array');
        """,
        SOURCE,
        {"isArray"},
        set(),
        ["isArray"],
        id="js-default-export-fallback-value",
    ),
    pytest.param(
        "modules/templateSettings.js",
        """
        import _ from './underscore.js';

        export default _.templateSettings = {
          evaluate: /<%([\\s\\S]+?)%>/g,
          interpolate: /<%=([\\s\\S]+?)%>/g
        };
        """,
        SOURCE,
        {"templateSettings", "_.templateSettings"},
        set(),
        ["templateSettings", "_.templateSettings"],
        id="js-default-export-assigned-object",
    ),
    pytest.param(
        # an anonymous default export that only names another definition adds nothing
        "src/index.ts",
        """
        const app = createApp();
        export default app;
        """,
        SOURCE,
        {"app"},
        {"index"},
        ["app"],
        id="ts-default-export-of-a-name",
    ),
    pytest.param(
        # tmux's cmd-find.c (3.7c) and htop's CRT.c (3.5.3): two-dimensional tables, and
        # the pointer declared above one.
        "cmd-find.c",
        """
        static const char *cmd_find_window_table[][2] = {
        \t{ "{start}", "^" },
        \t{ "{last}", "!" },
        \t{ NULL, NULL }
        };

        const int* CRT_colors;

        static int CRT_colorSchemes[LAST_COLORSCHEME][LAST_COLORELEMENT] = {
           [COLORSCHEME_DEFAULT] = {
              [RESET_COLOR] = ColorPair(White, Black),
           },
        };
        """,
        SOURCE,
        {"cmd_find_window_table", "CRT_colors", "CRT_colorSchemes"},
        set(),
        ["cmd_find_window_table", "CRT_colorSchemes"],
        id="c-two-dimensional-tables",
    ),
    pytest.param(
        # http-parser's http_parser.c (v2.9.4), in http_parser_execute: a macro defined
        # inside a function is the file's, named bare
        "http_parser.c",
        """
        size_t http_parser_execute (http_parser *parser, const char *data, size_t len)
        {
          char ch = *data;
          switch (parser->method << 16 | parser->index << 8 | ch) {
        #define XX(meth, pos, ch, new_meth) \\
                    case (HTTP_##meth << 16 | pos << 8 | ch): \\
                      parser->method = HTTP_##new_meth; break;

            XX(POST,      1, 'U', PUT)
            XX(POST,      1, 'A', PATCH)
        #undef XX
            default:
              parser->state = s_dead;
          }
        #define PARSING(p) ((p)->state <= s_headers_done)
          return PARSING(parser) ? len : 0;
        }
        """,
        SOURCE,
        {"http_parser_execute", "XX", "PARSING"},
        {"http_parser_execute.XX", "http_parser_execute.PARSING"},
        ["XX", "PARSING", "http_parser_execute"],
        id="c-macro-defined-in-a-function",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("path", "source", "role", "present", "absent", "labels"), ROWS)
def test_naming_audit(
    path: str,
    source: str,
    role: FileRole,
    present: set[str],
    absent: set[str],
    labels: list[str],
) -> None:
    check_naming(path, source, role, present, absent, labels)


def _method(name: str, body_lines: int) -> str:
    body = "".join(f"            x{i} = self.step({i})\n" for i in range(body_lines))
    return f"        def {name}(self, instance):\n{body}            return instance\n\n"


def test_class_local_to_a_cut_function_names_its_methods() -> None:
    # the shape of python-jsonschema's jsonschema/validators.py (v4.26.0): create()
    # builds `class Validator` in a body of 380 lines, cut into pieces; labels write
    # `Validator.iter_errors`. A short function's local class (a test's fake) names
    # nothing.
    source = (
        "def create(meta_schema, validators=()):\n"
        "    @attr.s\n"
        "    class Validator:\n"
        + _method("iter_errors", 130)
        + _method("descend", 130)
        + _method("is_valid", 130)
        + "    return Validator\n\n\n"
        "def test_fake():\n"
        "    class Fake:\n"
        "        def iter_errors(self, instance):\n"
        "            return []\n"
        "    assert Fake().iter_errors(1) == []\n"
    )
    check_naming(
        "jsonschema/validators.py",
        source,
        SOURCE,
        {"create", "Validator", "Validator.iter_errors", "Validator.descend", "Validator.is_valid"},
        {"Fake", "Fake.iter_errors", "create.Validator.iter_errors"},
        ["Validator.iter_errors", "Validator.is_valid", "create"],
    )
    chunks = chunks_of("jsonschema/validators.py", source, SOURCE)
    holding = [c for c in chunks if "Validator.descend" in c.symbols]
    assert len(holding) == 1
    assert holding[0].start_line <= 3 + 133 + 1 <= holding[0].end_line


#: The shape of matklad/once_cell's src/lib.rs (v1.21.4): crate docs in `//!`, then two
#: inline modules, each with its own `OnceCell` and `impl OnceCell { fn get }`.
_ONCE_CELL = """\
//! # Overview
//!
//! `once_cell` provides two new cell-like types, `unsync::OnceCell` and
//! `sync::OnceCell`.
//!
//! Enable the `parking_lot` feature to use it for `sync::OnceCell`.

#![cfg_attr(not(feature = "std"), no_std)]

#[cfg(all(feature = "std", not(feature = "parking_lot")))]
#[path = "imp_std.rs"]
mod imp;

/// Single-threaded version of `OnceCell`.
pub mod unsync {
    use core::cell::UnsafeCell;

    pub struct OnceCell<T> {
        inner: UnsafeCell<Option<T>>,
    }

    impl<T> OnceCell<T> {
        pub fn get(&self) -> Option<&T> {
            unsafe { &*self.inner.get() }.as_ref()
        }
    }
}

/// Thread-safe, blocking version of `OnceCell`.
pub mod sync {
    use super::imp::OnceCell as Imp;

    pub struct OnceCell<T>(Imp<T>);

    impl<T> OnceCell<T> {
        pub fn get(&self) -> Option<&T> {
            if self.0.is_initialized() { Some(unsafe { self.get_unchecked() }) } else { None }
        }
    }
}
"""


def test_rust_members_of_a_type_in_an_inline_module_have_its_namespaced_name() -> None:
    from codegold.cases.match import symbol_matches

    chunks = chunks_of("src/lib.rs", _ONCE_CELL, SOURCE)

    def matching(label: str) -> list[int]:
        return [c.start_line for c in chunks if symbol_matches(label, c.symbol, c.symbols)]

    unsync_get, sync_get = (c.start_line for c in chunks if "OnceCell.get" in c.symbols)
    assert matching("unsync.OnceCell.get") == [unsync_get]
    assert matching("sync.OnceCell.get") == [sync_get]
    assert matching("OnceCell.get") == [unsync_get, sync_get]


def test_rust_module_docs_are_a_docs_chunk_of_their_own() -> None:
    from codegold.roles import Role

    chunks = chunks_of("src/lib.rs", _ONCE_CELL, SOURCE)
    first, second = chunks[0], chunks[1]
    assert (first.start_line, first.end_line, first.role) == (1, 6, Role.DOCS)
    assert first.text.startswith("//! # Overview")
    assert (second.start_line, second.role) == (8, Role.CALL_SITE)
    assert "mod imp;" in second.text
    # `//!` right above an item documents the module, never leads the item; two lines
    # of it stay with the code
    source = "//! Spin-wait helper: backs off with\n//! exponentially longer spins.\n//! See `SpinWait::spin`.\npub struct SpinWait {\n    counter: u32,\n}\n"
    chunks = chunks_of("core/src/spinwait.rs", source, SOURCE)
    assert [(c.start_line, c.end_line, c.role) for c in chunks] == [
        (1, 3, Role.DOCS),
        (4, 6, Role.DEFINITION),
    ]
    short = chunks_of("src/x.rs", "//! Errors.\nuse core::fmt;\n\npub fn f() {}\n", SOURCE)
    assert [(c.start_line, c.role) for c in short] == [(1, Role.CALL_SITE), (4, Role.DEFINITION)]


def test_c_macro_in_a_function_cut_into_pieces_is_named_bare() -> None:
    # http-parser's http_parser_execute (1,500 lines) is cut at the XX macro it defines
    # in its method switch: that piece defines XX, not http_parser_execute.XX
    filler = "".join(f"  total += step(p, {i});\n" for i in range(400))
    source = (
        "size_t http_parser_execute(http_parser *p, const char *data, size_t len)\n{\n"
        "  size_t total = 0;\n" + filler + "  switch (p->method) {\n"
        "#define XX(meth, pos, ch, new_meth) \\\n"
        "    case (HTTP_##meth << 16 | pos << 8 | ch): \\\n"
        "      p->method = HTTP_##new_meth; break;\n"
        "    XX(POST, 1, 'U', PUT)\n"
        "#undef XX\n"
        "  }\n" + filler + "  return total;\n}\n"
    )
    chunks = chunks_of("http_parser.c", source, SOURCE)
    assert len(chunks) > 2
    defined = {name for chunk in chunks for name in chunk.symbols}
    assert "XX" in defined
    assert "http_parser_execute.XX" not in defined
    assert all(chunk.symbol == "http_parser_execute" for chunk in chunks)
