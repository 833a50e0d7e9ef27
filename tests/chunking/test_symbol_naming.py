"""SPEC §1 symbol naming, per language: the chunker names each idiom the way an engineer
writes it, so that a hand-written label matches (through the evaluator's suffix rule).

Each row: a snippet shaped like real code, the names its chunks must define, names they
must not, and hand-written labels (as a suite would spell them) that must match a chunk.
"""

from __future__ import annotations

import pytest

from codegold.cases.match import symbol_matches
from codegold.corpus.model import FileRole
from codegold.roles import Role
from tests.chunking._naming import check_naming, chunks_of

SOURCE, TEST = FileRole.SOURCE, FileRole.TEST

ROWS = [
    pytest.param(
        "lib/response.js",
        """
        res.send = function send(body) {
          return this;
        };

        res.contentType =
        res.type = function contentType(type) {
          return this.set('Content-Type', type);
        };

        Router.prototype.handle = function handle(req, res, out) {
          return out();
        };
        """,
        SOURCE,
        {"res.send", "res.contentType", "res.type", "Router.handle"},
        {"send", "Router.prototype.handle"},
        ["res.send", "send", "res.type", "contentType", "Router.prototype.handle", "handle"],
        id="js-property-assignments",
    ),
    pytest.param(
        "lib/utils.js",
        """
        exports.parse = function parse(str) {
          return str;
        };
        module.exports.format = (value) => {
          return String(value);
        };
        exports.etag = createETagGenerator({ weak: false });
        """,
        SOURCE,
        {"parse", "format", "etag"},
        {"exports.parse", "module.exports.format"},
        ["parse", "format", "etag"],
        id="js-exports",
    ),
    pytest.param(
        "lib/request.js",
        """
        module.exports = {
          get host() {
            return this.get('Host');
          },

          set url(val) {
            this.req.url = val;
          },

          is(type, ...types) {
            return typeis(this, type, types);
          },

          accepts: function () {
            return this.accept.types();
          },
        };
        """,
        SOURCE,
        {"request", "request.host", "request.url", "request.is", "request.accepts"},
        {"host", "module.exports"},
        ["request.host", "host", "request.is", "request.accepts"],
        id="js-module-exports-object",
    ),
    pytest.param(
        "lib/context.js",
        """
        const proto = module.exports = {
          throw(...args) {
            throw createError(...args);
          },
        };
        """,
        SOURCE,
        {"context", "context.throw"},
        {"proto.throw"},
        ["context.throw"],
        id="js-const-module-exports-object",
    ),
    pytest.param(
        "src/config.js",
        """
        export default {
          name: 'app',
          setup() {
            return {};
          },
        };
        """,
        SOURCE,
        {"config.setup", "config.name"},
        set(),
        ["config.setup"],
        id="js-export-default-object",
    ),
    pytest.param(
        "lib/application.js",
        """
        module.exports = class Application extends Emitter {
          use (fn) {
            return this
          }
        }
        module.exports.HttpError = HttpError
        """,
        SOURCE,
        {"Application", "Application.use", "HttpError"},
        {"use", "module.exports"},
        ["Application.use", "use"],
        id="js-module-exports-class",
    ),
    pytest.param(
        "lib/defaults/index.js",
        """
        const CONTENT_TYPE = { 'Content-Type': undefined };

        const defaults = {
          adapter: ['xhr', 'http', 'fetch'],

          validateStatus: function validateStatus(status) {
            return status >= 200 && status < 300;
          },
        };

        export default defaults;
        """,
        SOURCE,
        {"defaults", "defaults.validateStatus", "CONTENT_TYPE"},
        {"defaults.adapter", "CONTENT_TYPE.Content-Type", "index.validateStatus"},
        ["validateStatus", "defaults.validateStatus"],
        id="js-module-level-object-with-functions",
    ),
    pytest.param(
        "lib/core/AxiosError.js",
        """
        function AxiosError(message, code) {
          Error.call(this);
        }

        utils.inherits(AxiosError, Error, {
          toJSON: function toJSON() {
            return { message: this.message };
          }
        });

        Object.assign(Router.prototype, {
          handle(req, res) {
            return 1;
          },
        });

        const merged = Object.assign({}, base, extra);
        """,
        SOURCE,
        {"AxiosError", "AxiosError.toJSON", "Router.handle", "merged"},
        {"toJSON", "Router.prototype.handle"},
        ["toJSON", "AxiosError.toJSON", "Router.prototype.handle", "handle"],
        id="js-mixins-assign-inherits",
    ),
    pytest.param(
        "lib/application.js",
        """
        var app = exports = module.exports = {};

        methods.forEach(function (method) {
          app[method] = function (path) {
            var route = this.route(path);
            route[method].apply(route, slice.call(arguments, 1));
            return this;
          };
        });

        utils.forEach(['delete', 'get', 'head'], function forEachMethodNoData(method) {
          Axios.prototype[method] = function (url, config) {
            return this.request(mergeConfig(config || {}, { method, url }));
          };
        });

        ['post', 'put'].forEach((method) => {
          Client.prototype[method] = function (url, body) {
            return this.send(method, url, body);
          };
        });

        STATUS_CODES.forEach(function (code) {
          console.log(code);
        });
        """,
        SOURCE,
        {"app[method]", "Axios.delete", "Axios.get", "Axios.head", "Client.post", "Client.put"},
        {"Axios.prototype[method]", "code", "STATUS_CODES"},
        ["app[method]", "Axios.get", "Axios.prototype.head", "Client.put", "post"],
        id="js-members-made-in-a-loop",
    ),
    pytest.param(
        "lib/context.js",
        """
        const delegate = require('delegates')

        const proto = module.exports = {
          inspect () {
            return this.toJSON()
          }
        }

        delegate(proto, 'response')
          .method('attachment')
          .method('redirect')
          .access('status')
          .getter('headerSent')

        delegate(proto, 'request')
          .method('accepts')
          .access('querystring')
        """,
        SOURCE,
        {
            "context.inspect", "context.attachment", "context.redirect", "context.status",
            "context.headerSent", "context.accepts", "context.querystring",
        },
        {"context.response", "context.request", "context.proto"},
        ["redirect", "context.redirect", "context.querystring", "headerSent"],
        id="js-node-delegates-chains",
    ),
    pytest.param(
        "lib/adapters/http.js",
        """
        export default isHttpAdapterSupported && function httpAdapter(config) {
          return new Promise(config);
        }
        """,
        SOURCE,
        {"httpAdapter"},
        set(),
        ["httpAdapter"],
        id="js-export-default-guarded-function",
    ),
    pytest.param(
        "lib/request.js",
        """
        defineGetter(req, 'protocol', function protocol() {
          return this.connection.encrypted ? 'https' : 'http';
        });

        Object.defineProperty(req, 'query', {
          configurable: true,
          get: function () { return parse(this); },
        });
        """,
        SOURCE,
        {"req.protocol", "req.query"},
        set(),
        ["req.protocol", "protocol", "req.query"],
        id="js-define-property-getters",
    ),
    pytest.param(
        "lib/client.js",
        """
        class Client {
          get timeout() {
            return this._timeout;
          }
          set timeout(value) {
            this._timeout = value;
          }
        }
        """,
        SOURCE,
        {"Client", "Client.timeout"},
        set(),
        ["Client.timeout", "timeout"],
        id="js-class-getter-setter",
    ),
    pytest.param(
        "test/app.use.js",
        """
        describe('app', function () {
          describe('.use(app)', function () {
            it('should mount the app', function (done) {
              done();
            });

            it.skip("should handle \\"quotes\\"", () => {});
          });
        });
        """,
        TEST,
        {"app", ".use(app)", "should mount the app", 'should handle "quotes"'},
        {"app.should mount the app", ".use(app).should mount the app"},
        ["should mount the app", ".use(app)"],
        id="js-mocha-titles",
    ),
    pytest.param(
        "tests/basic.test.ts",
        """
        import { expect, it, test, describe } from 'vitest'

        it('creates a store hook and api object', () => {
          const result = create(() => ({ value: null }))
          expect(result).toBeDefined()
        })

        describe('subscribe()', () => {
          test.each([1, 2])('keeps %s listeners', (n) => {
            function helper() {
              return n
            }
            expect(helper()).toBe(n)
          })
        })
        """,
        TEST,
        {"creates a store hook and api object", "subscribe()", "keeps %s listeners"},
        {"helper"},
        ["creates a store hook and api object", "keeps %s listeners"],
        id="ts-vitest-titles",
    ),
    pytest.param(
        "src/store.ts",
        """
        export const api = {}
        api.setState = (partial: unknown): void => {
          void partial
        }
        export default {
          get size(): number {
            return 0
          },
        }
        """,
        SOURCE,
        {"api", "api.setState", "store.size"},
        set(),
        ["api.setState", "store.size", "size"],
        id="ts-assignment-and-default-object",
    ),
    pytest.param(
        "lib/sinatra/base.rb",
        """
        module Sinatra
          class Base
            def call(env)
              dup.call!(env)
            end

            class << self
              def compile!(verb, path, block, **options)
                [verb, path]
              end
            end

            define_method(:default_options) { super().merge(options) }
            alias url uri
          end

          class Request < Rack::Request
            class AcceptEntry
              def priority
                1
              end
            end
          end
        end
        """,
        SOURCE,
        {
            "Sinatra.Base", "Base.call", "Base.compile!", "Base.default_options", "Base.url",
            "AcceptEntry.priority", "Sinatra.Request.AcceptEntry",
        },
        {"Base.:default_options"},
        [
            "Base.compile!", "Base#call", "Base::compile!", "Sinatra::Base.compile!",
            "compile!", "Base.default_options", "AcceptEntry#priority", "Base", "Sinatra::Base",
        ],
        id="ruby-innermost-singleton-define-method",
    ),
    pytest.param(
        "lib/geometry.rb",
        """
        module Geometry
          Point = Struct.new(:x, :y) do
            def distance_to(other)
              Math.hypot(x - other.x, y - other.y)
            end
          end
          ORIGIN = Point.new(0, 0)
        end
        """,
        SOURCE,
        {"Geometry.Point", "Point.distance_to", "Geometry.ORIGIN"},
        {"Geometry.distance_to"},
        ["Point.distance_to", "Point#distance_to", "Geometry::Point"],
        id="ruby-struct-new-block",
    ),
    pytest.param(
        "lib/sinatra/base.rb",
        """
        require "forwardable"

        module Sinatra
          class Request < Rack::Request
            extend Forwardable
            attr_accessor :host, :port
            attr_reader "scheme"
            attr_writer :body
            def_delegators :@env, :fetch, :key?
            delegate :name, :email, to: :user

            class << self
              attr_reader :settings
            end

            def secure?
              scheme == "https"
            end
          end
        end
        """,
        SOURCE,
        {
            "Request.host", "Request.port", "Request.scheme", "Request.body", "Request.fetch",
            "Request.key?", "Request.name", "Request.email", "Request.settings",
            "Request.secure?",
        },
        {"Request.:host", "Request.@env", "Request.:@env", "Request.to", "Request.user"},
        ["Request.host", "Request#port", "Sinatra::Request.scheme", "Request.settings", "body"],
        id="ruby-attr-accessors-and-delegators",
    ),
    pytest.param(
        "spec/lib/rack/protection/base_spec.rb",
        """
        RSpec.describe Rack::Protection::Base do
          describe '#random_string' do
            it 'outputs a string of 32 characters' do
              expect(subject.random_string.length).to eq(32)
            end
          end
        end
        """,
        TEST,
        {"#random_string", "outputs a string of 32 characters"},
        set(),
        ["outputs a string of 32 characters", "#random_string"],
        id="ruby-rspec-titles",
    ),
    pytest.param(
        "test/routing_test.rb",
        """
        class RoutingTest < Minitest::Test
          it "matches empty PATH_INFO to /" do
            assert ok?
          end

          def test_helper
            1
          end
        end
        """,
        TEST,
        {"matches empty PATH_INFO to /", "RoutingTest.test_helper"},
        {"RoutingTest.matches empty PATH_INFO to /"},
        ["matches empty PATH_INFO to /", "test_helper"],
        id="ruby-minitest-spec-titles",
    ),
    pytest.param(
        "spec/limiter_spec.lua",
        """
        describe("rate limiter", function()
          it("allows a burst", function()
            assert.is_true(limiter.allow(3))
          end)
        end)
        """,
        TEST,
        {"rate limiter", "allows a burst"},
        set(),
        ["allows a burst", "rate limiter"],
        id="lua-busted-titles",
    ),
    pytest.param(
        "tests/Feature/HomeTest.php",
        """
        <?php
        it('has a home page', function () {
            $this->get('/')->assertStatus(200);
        });

        describe('math', function () {
            test("adds", fn () => expect(1 + 1)->toBe(2));
        });
        """,
        TEST,
        {"has a home page", "math", "adds"},
        set(),
        ["has a home page", "adds"],
        id="php-pest-titles",
    ),
    pytest.param(
        "src/test/scala/SetSpec.scala",
        """
        class SetSpec extends AnyFunSpec {
          describe("A Set") {
            it("should have size 0 when empty") {
              assert(Set.empty.size == 0)
            }
          }
        }
        """,
        TEST,
        {"SetSpec", "A Set", "should have size 0 when empty"},
        {"SetSpec.A Set"},
        ["should have size 0 when empty"],
        id="scala-scalatest-titles",
    ),
    pytest.param(
        "src/test/kotlin/MoneyTest.kt",
        """
        class MoneyTest : FunSpec({
            context("parsing") {
                test("reads a string") {
                    Money.parse("1.00") shouldBe Money(100)
                }
            }
        })
        """,
        TEST,
        {"MoneyTest", "parsing", "reads a string"},
        set(),
        ["reads a string"],
        id="kotlin-kotest-titles",
    ),
    pytest.param(
        "Tests/CartSpec.swift",
        """
        class CartSpec: QuickSpec {
            override class func spec() {
                describe("a cart") {
                    it("starts empty") {
                        expect(Cart().items).to(beEmpty())
                    }
                }
            }
        }
        """,
        TEST,
        {"CartSpec.spec", "a cart", "starts empty"},
        {"CartSpec.a cart"},
        ["starts empty", "a cart"],
        id="swift-quick-titles-inside-spec",
    ),
    pytest.param(
        "tests/regression.rs",
        """
        // See: https://github.com/BurntSushi/ripgrep/issues/16
        rgtest!(r16, |dir: Dir, mut cmd: TestCommand| {
            dir.create_dir(".git");
            cmd.arg("xyz").assert_err();
        });

        lazy_static! {
            static ref RE: Regex = Regex::new("a").unwrap();
        }
        """,
        TEST,
        {"r16"},
        {"ref", "RE"},
        ["r16"],
        id="rust-macro-generated-test",
    ),
    pytest.param(
        "src/searcher.rs",
        """
        pub struct Searcher { line_term: u8 }

        impl Searcher {
            pub fn new() -> Searcher {
                Searcher { line_term: b'\\n' }
            }
        }

        impl Default for Searcher {
            fn default() -> Searcher {
                Searcher::new()
            }
        }
        """,
        SOURCE,
        {"Searcher", "Searcher.new", "Searcher.default"},
        set(),
        ["Searcher::new", "Searcher.default", "new"],
        id="rust-impl-and-trait-impl",
    ),
    pytest.param(
        "src/stack.rs",
        """
        pub struct Stack<T> { items: Vec<T> }

        impl<T> Stack<T> {
            pub fn push(&mut self, item: T) {
                self.items.push(item);
            }
        }

        impl<T: Clone> Clone for Stack<T> {
            fn clone(&self) -> Stack<T> {
                Stack { items: self.items.clone() }
            }
        }

        impl<'a, W: io::Write> printer::Sink for printer::Standard<'a, W> {
            type Error = io::Error;

            fn matched(&mut self) -> bool {
                true
            }
        }
        """,
        SOURCE,
        {"Stack.push", "Stack.clone", "Standard.Error", "Standard.matched"},
        {"Clone.clone", "Sink.matched", "printer.Standard.matched", "T.push", "push", "clone"},
        ["Stack.push", "Stack::clone", "Standard.matched", "matched"],
        id="rust-impl-generic-and-scoped-self-types",
    ),
    pytest.param(
        "src/span.rs",
        """
        impl std::ops::Index<Span> for [u8] {
            type Output = [u8];

            fn index(&self, span: Span) -> &[u8] {
                &self[span.start..span.end]
            }
        }

        impl Index<Span> for str {
            type Output = str;

            fn index(&self, span: Span) -> &str {
                &self[span.start..span.end]
            }
        }

        impl<'a> From<&'a str> for Value {
            fn from(text: &'a str) -> Value {
                Value::Text(text.to_string())
            }
        }

        impl<'p, 's, M: Matcher, W: WriteColor> Sink for &'p mut Printer<'s, M, W> {
            fn context(&mut self) -> bool {
                false
            }
        }

        impl<'a> Searchable for &'a crate::regex::Regex {
            fn find_at(&self, at: usize) -> bool {
                at == 0
            }
        }

        impl Encode for *const Header {
            fn encode(&self) -> u32 {
                0
            }
        }

        impl dyn Visitor {
            fn visit_all(&mut self) {}
        }

        impl Checksum for [u8; 16] {
            fn digest(&self) -> u32 {
                0
            }
        }

        impl Pairwise for (usize, usize) {
            fn swap(&self) -> (usize, usize) {
                (self.1, self.0)
            }
        }
        """,
        SOURCE,
        {
            "slice.Output", "slice.index", "str.Output", "str.index", "Value.from",
            "Printer.context", "Regex.find_at", "Header.encode", "Visitor.visit_all",
            "array.digest", "tuple.swap",
        },
        {"index", "Output", "from", "From.from", "Index.index", "Sink.context", "[u8].index"},
        ["str.index", "str::index", "slice.index", "Value::from", "Printer.context", "index"],
        id="rust-impl-primitive-reference-pointer-dyn-slice-array-tuple",
    ),
    pytest.param(
        "crates/matcher/src/lib.rs",
        """
        impl<'a, M: Matcher> Matcher for &'a M {
            type Error = M::Error;

            fn find_at(&self, haystack: &[u8], at: usize) -> bool {
                (*self).find_at(haystack, at)
            }
        }

        impl<S: Sink + ?Sized> Sink for Box<S> {
            fn matched(&mut self) -> bool {
                (**self).matched()
            }
        }

        impl<'s, P: grep::VisitorBuilder<'s>> grep::VisitorBuilder<'s> for &mut P {
            fn build(&mut self) {}
        }
        """,
        SOURCE,
        {"Matcher.Error", "Matcher.find_at", "Box.matched", "VisitorBuilder.build"},
        {"M.find_at", "M.Error", "S.matched", "Sink.matched", "P.build", "find_at"},
        ["Matcher.find_at", "find_at", "Box.matched", "VisitorBuilder::build"],
        id="rust-blanket-impl-named-by-its-trait",
    ),
    pytest.param(
        "src/lib.rs",
        """
        pub trait Sink {
            type Error;
            const LIMIT: usize = 8;

            fn matched(&mut self) -> bool;

            fn begin(&mut self) -> bool {
                true
            }
        }

        mod outer {
            pub mod inner {
                pub struct Walker;

                impl Walker {
                    pub fn step(&self) {}
                }

                pub fn free_standing() {}
            }
        }

        macro_rules! message {
            ($($tt:tt)*) => { eprintln!($($tt)*) }
        }

        pub const DEFAULT_DEPTH: usize = 5;
        static BINARY_NAME: &str = "rg";
        pub type Result<T> = std::result::Result<T, Error>;
        """,
        SOURCE,
        {
            "Sink", "Sink.Error", "Sink.LIMIT", "Sink.matched", "Sink.begin", "Walker",
            "Walker.step", "free_standing", "message", "DEFAULT_DEPTH", "BINARY_NAME", "Result",
            # the module path is a second name, a method's through its type's
            "outer.inner.Walker", "outer.inner.Walker.step", "outer.inner.free_standing",
        },
        {"inner.Walker.step", "inner.free_standing", "Sink.Sink"},
        ["Sink.begin", "Sink::matched", "Walker.step", "free_standing", "message", "Result"],
        id="rust-trait-defaults-modules-macros-items",
    ),
    pytest.param(
        "gson/src/main/java/com/google/gson/stream/JsonReader.java",
        """
        package com.google.gson.stream;

        public class JsonReader implements Closeable {
          private boolean lenient = false;

          public JsonReader(Reader in) {
            this.in = in;
          }

          public final void setLenient(boolean lenient) {
            this.lenient = lenient;
          }

          private static final class Token {
            void peek() {
              return;
            }
          }
        }

        enum FieldNamingPolicy {
          IDENTITY,
          UPPER_CAMEL_CASE;
        }
        """,
        SOURCE,
        {
            "JsonReader.JsonReader", "JsonReader.setLenient", "JsonReader.Token.peek",
            "FieldNamingPolicy.IDENTITY", "FieldNamingPolicy.UPPER_CAMEL_CASE",
        },
        set(),
        ["JsonReader.setLenient", "JsonReader#setLenient", "Token.peek", "JsonReader.JsonReader"],
        id="java-members-constructors-enums",
    ),
    pytest.param(
        "src/Money.kt",
        """
        class Money(val amount: Long) {
            constructor(text: String) : this(text.toLong())

            fun plus(other: Money): Money {
                return Money(amount + other.amount)
            }

            class Cents {
                fun round() = 1
            }
        }

        enum class Currency { EUR, USD }
        """,
        SOURCE,
        {"Money", "Money.Money", "Money.plus", "Money.Cents.round", "Currency.EUR"},
        {"Money.constructor"},
        ["Money.Money", "Money.plus", "Cents.round", "Currency.USD"],
        id="kotlin-members-constructors-enums",
    ),
    pytest.param(
        "src/OrderService.cs",
        """
        namespace Shop
        {
            public class OrderService
            {
                public OrderService(IRepo repo) { _repo = repo; }
                public void Place(Order order) { }
                public class Nested { public void Run() { } }
            }
            public enum Status { Open, Closed }
        }
        """,
        SOURCE,
        {"OrderService.OrderService", "OrderService.Place", "OrderService.Nested.Run", "Status.Open"},
        {"Shop.OrderService"},
        ["OrderService.Place", "Nested.Run", "Status.Closed"],
        id="csharp-members-constructors-enums",
    ),
    pytest.param(
        "src/Retry.scala",
        """
        class Retry(n: Int) {
          def this() = this(3)
          def run(): Unit = ()
          object Inner { def go(): Int = 1 }
        }
        enum Color { case Red, Green }
        """,
        SOURCE,
        {"Retry", "Retry.Retry", "Retry.run", "Retry.Inner.go", "Color.Red"},
        {"Retry.this"},
        ["Retry.Retry", "Retry.run", "Inner.go", "Color.Green"],
        id="scala-members-constructors-enums",
    ),
    pytest.param(
        "context.go",
        """
        package gin

        type Context struct {
            Request *http.Request
        }

        func (c *Context) JSON(code int, obj any) {
            c.Render(code, obj)
        }

        func (c Context) Value(key any) any {
            return nil
        }

        func New() *Engine {
            return nil
        }
        """,
        SOURCE,
        {"Context", "Context.JSON", "Context.Value", "New"},
        {"c.JSON"},
        ["(*Context).JSON", "Context.Value", "(Context).Value", "New", "JSON"],
        id="go-pointer-and-value-receivers",
    ),
    pytest.param(
        "binding/form_mapping_test.go",
        """
        package binding

        func TestMappingDefault(t *testing.T) {
            t.Run("slice with default", func(t *testing.T) {
                require.NoError(t, mapForm(&s, nil))
            })
        }
        """,
        TEST,
        {"TestMappingDefault", "slice with default"},
        set(),
        ["TestMappingDefault", "slice with default"],
        id="go-subtest-titles",
    ),
    pytest.param(
        "Slim/Routing/RouteCollector.php",
        """
        <?php
        namespace Slim\\Routing;

        class RouteCollector implements RouteCollectorInterface
        {
            public function map(array $methods, string $pattern, $handler): RouteInterface
            {
                return $this->createRoute($methods, $pattern, $handler);
            }
        }

        function helper() { return 1; }
        """,
        SOURCE,
        {"RouteCollector", "RouteCollector.map", "helper"},
        {"Slim.Routing.RouteCollector"},
        ["RouteCollector.map", "RouteCollector::map", "map", "helper"],
        id="php-short-class-name",
    ),
    pytest.param(
        "hiredis.h",
        """
        #define HIREDIS_MAJOR 1
        typedef struct redisReply {
            int type;
        } redisReply;
        redisContext *redisConnect(const char *ip, int port);
        void freeReplyObject(void *reply);
        """,
        SOURCE,
        {"HIREDIS_MAJOR", "redisReply", "redisConnect", "freeReplyObject"},
        set(),
        ["redisConnect", "redisReply", "HIREDIS_MAJOR"],
        id="c-header",
    ),
    pytest.param(
        "src/limiter.cpp",
        """
        namespace rl {
        class Limiter {
         public:
          bool allow(int n);
        };

        bool Limiter::allow(int n) {
          return n > 0;
        }
        }  // namespace rl
        """,
        SOURCE,
        {"Limiter", "Limiter.allow"},
        {"rl.Limiter.allow"},
        ["Limiter::allow", "Limiter.allow", "allow"],
        id="cpp-members",
    ),
    pytest.param(
        "httpx/_client.py",
        """
        class Client:
            class Inner:
                def method(self):
                    pass

            def send(self, request):
                return request

        def top():
            pass
        """,
        SOURCE,
        {"Client.send", "Client.Inner.method", "top"},
        set(),
        ["Client.send", "Inner.method", "Client.Inner.method", "top", "send"],
        id="python-members",
    ),
    pytest.param(
        "src/util.ts",
        """
        export namespace Util {
          export function trim(s: string): string {
            return s.trim();
          }
          export const VERSION = "1";
          export class Parser {
            parse(text: string): number {
              return Number(text);
            }
          }
        }
        """,
        SOURCE,
        {"trim", "Util.trim", "VERSION", "Util.VERSION", "Parser", "Util.Parser", "Parser.parse"},
        {"Util.Util"},
        ["Util.trim", "trim", "Util.Parser", "Parser.parse"],
        id="ts-namespace-members",
    ),
    pytest.param(
        "src/flags/mod.rs",
        """
        mod parse {
            pub fn parse_low() -> u8 {
                1
            }
        }
        """,
        SOURCE,
        {"parse", "parse_low", "parse.parse_low"},
        set(),
        ["parse::parse_low", "parse_low"],
        id="rust-module-members",
    ),
    pytest.param(
        "src/counter.h",
        """
        #include <QObject>

        class Counter : public QObject
        {
            Q_OBJECT
            Q_PROPERTY(int value READ value WRITE setValue NOTIFY valueChanged)
        public:
            explicit Counter(QObject *parent = nullptr);
            int value() const;
        signals:
            void valueChanged(int value);
        public slots:
            void setValue(int value);
        };

        class Derived : public Counter
        {
            Q_OBJECT
        public:
            Derived();
        };
        """,
        SOURCE,
        {"Counter", "Counter.Counter", "Counter.value", "Counter.valueChanged",
         "Counter.setValue", "Derived", "Derived.Derived"},
        {"Counter.Q_PROPERTY", "Derived.public", "Q_OBJECT"},
        ["Counter::setValue", "Derived::Derived"],
        id="cpp-qt-object-macros",
    ),
    pytest.param(
        "src/flags.rs",
        """
        bitflags! {
            /// What a matcher may report.
            #[derive(Debug, Clone, Copy)]
            pub struct MatchKind: u32 {
                const LINE = 1;
            }
        }

        rgtest!(
            // The name follows a comment.
            r1234_gitignore_nested,
            |dir: Dir, mut cmd: TestCommand| {
                eqnice!("x", cmd.stdout());
            }
        );
        """,
        SOURCE,
        {"MatchKind", "r1234_gitignore_nested"},
        {"ref", "derive"},
        ["MatchKind", "r1234_gitignore_nested"],
        id="rust-bitflags-and-commented-macro-names",
    ),
    pytest.param(
        "src/router.ts",
        """
        export default class extends Base {
          run(): number {
            return 1;
          }
        }
        """,
        SOURCE,
        {"router", "router.run"},
        {"run"},
        ["router.run", "run"],
        id="ts-anonymous-default-class",
    ),
    pytest.param(
        "source/types/options.ts",
        """
        export type KyOptions = {
          /**
          Timeout in milliseconds for getting a response.
          */
          timeout?: number | false;

          parseJson?: (text: string) => unknown;

          hooks?: {
            beforeRequest?: BeforeRequestHook[];
          };
        };

        export type Input = string | URL | Request;
        """,
        SOURCE,
        {"KyOptions", "KyOptions.timeout", "KyOptions.parseJson", "KyOptions.hooks", "Input"},
        {"KyOptions.beforeRequest", "beforeRequest"},
        ["KyOptions.timeout", "timeout", "KyOptions"],
        id="ts-object-type-alias-members",
    ),
    pytest.param(
        "lib/middleware.js",
        """
        export default async function (ctx, next) {
          await next();
        }
        """,
        SOURCE,
        {"middleware"},
        set(),
        ["middleware"],
        id="js-anonymous-default-function",
    ),
    pytest.param(
        "ext/standard/string.c",
        """
        PHP_FUNCTION(strlen)
        {
            RETURN_LONG(0);
        }

        static int
        old_style(a, b)
            int a;
            char *b;
        {
            return a;
        }

        JNIEXPORT jint JNICALL Java_org_Foo_bar(JNIEnv *env, jobject obj)
        {
            return 0;
        }
        """,
        SOURCE,
        {"strlen", "old_style", "Java_org_Foo_bar"},
        {"PHP_FUNCTION", "jint", "JNIEXPORT"},
        ["strlen", "old_style", "Java_org_Foo_bar"],
        id="c-macro-headed-and-k-and-r-functions",
    ),
    pytest.param(
        # joi lib/template.js: an anonymous class assigned through a chain of targets.
        "lib/template.js",
        """
        module.exports = exports = internals.Template = class {

            constructor(source, options) {
                this.source = source;
            }

            render(value, state, prefs, local, options = {}) {
                return this.rendered;
            }
        };
        """,
        SOURCE,
        {"internals.Template", "internals.Template.render", "internals.Template.constructor"},
        {"render", "exports", "module.exports"},
        ["Template.render", "internals.Template.render", "Template"],
        id="js-class-assigned-through-a-chain",
    ),
    pytest.param(
        # joi lib/index.js: the root's methods, mixed in later with Object.assign.
        "lib/index.js",
        """
        internals.methods = {

            ValidationError: Errors.ValidationError,

            assert(value, schema, ...args /* [message], [options] */) {
                internals.assert(value, schema, true, args);
            },

            attempt: function (value, schema, ...args) {
                return internals.assert(value, schema, false, args);
            }
        };

        app.locals = { title: 'x' };
        """,
        SOURCE,
        {"internals.methods", "internals.methods.assert", "internals.methods.attempt"},
        {"attempt", "ValidationError", "internals.methods.ValidationError", "app.locals.title"},
        ["methods.attempt", "internals.methods.assert"],
        id="js-object-literal-assigned-to-a-property",
    ),
    pytest.param(
        "lib/errors.js",
        """
        module.exports = class {
            toString() {
                return this.message;
            }
        };
        const Parser = class {
            parse(text) {
                return text;
            }
        };
        """,
        SOURCE,
        {"errors", "errors.toString", "Parser", "Parser.parse"},
        {"toString", "parse"},
        ["errors.toString", "Parser.parse"],
        id="js-anonymous-class-values",
    ),
    pytest.param(
        # execa index.js, zustand's create(), p-memoize style wrappers.
        "index.js",
        """
        export const execa = createExeca(() => ({}));
        export const execaSync = createExeca(() => ({isSync: true}));
        const useBearStore = create((set) => ({
          bears: 0,
          increase: (by) => set((state) => ({ bears: state.bears + by })),
        }));
        const target = process.argv.find((arg) => arg.startsWith('--target='));
        """,
        SOURCE,
        {"execa", "execaSync", "useBearStore", "target"},
        set(),
        ["execa", "execaSync", "useBearStore"],
        id="js-functions-made-by-a-wrapping-call",
    ),
    pytest.param(
        "test/parser_test.cc",
        """
        #include <gtest/gtest.h>

        namespace {

        TEST(ParserTest, ParsesEmptyInput) {
          Parser p;
          EXPECT_TRUE(p.Parse(""));
        }

        TEST_F(ParserFixture, HandlesComments) {
          EXPECT_EQ(1, count_);
        }

        BOOST_AUTO_TEST_CASE(parses_empty) {
          BOOST_CHECK(true);
        }

        }  // namespace
        """,
        TEST,
        {"ParserTest.ParsesEmptyInput", "ParserFixture.HandlesComments", "parses_empty"},
        {"TEST", "TEST_F", "BOOST_AUTO_TEST_CASE"},
        ["ParsesEmptyInput", "ParserTest.ParsesEmptyInput", "HandlesComments"],
        id="cpp-googletest-macros",
    ),
    pytest.param(
        # serde_json src/value/from.rs and src/number.rs: impls written by macro_rules!.
        "src/value/from.rs",
        """
        macro_rules! from_integer {
            ($($ty:ident)*) => {
                $(
                    impl From<$ty> for Value {
                        fn from(n: $ty) -> Self {
                            Value::Number(n.into())
                        }
                    }
                )*
            };
        }

        macro_rules! impl_getter {
            ($name:ident, $ty:ty) => {
                fn $name(&mut self) -> $ty {
                    self.get()
                }

                fn canonical_reason(num: u16) -> Option<&'static str> {
                    None
                }
            };
        }

        // bytes src/buf/buf_impl.rs: methods for whichever impl invokes it.
        macro_rules! deref_forward_buf {
            () => {
                fn remaining(&self) -> usize {
                    (**self).remaining()
                }
            };
        }
        """,
        SOURCE,
        {"from_integer", "Value.from", "impl_getter", "canonical_reason"},
        {"from", "name", "self.get", "remaining"},
        ["Value.from", "Value::from", "canonical_reason"],
        id="rust-items-written-by-macro-rules",
    ),
    pytest.param(
        "lib/thor/shell/basic.rb",
        """
        Thor::Shell::Basic.class_eval do
          def say_status(status, message)
            puts message
          end
        end

        Config.instance_eval do
          def load
            new
          end
        end
        """,
        SOURCE,
        {"Basic.say_status", "Thor.Shell.Basic.say_status", "Config.load"},
        {"say_status", "load", "Thor.Shell.Basic"},
        ["Basic.say_status", "Basic#say_status", "Config.load"],
        id="ruby-class-eval-reopens-a-class",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("path", "source", "role", "present", "absent", "labels"), ROWS)
def test_symbol_naming(
    path: str,
    source: str,
    role: FileRole,
    present: set[str],
    absent: set[str],
    labels: list[str],
) -> None:
    check_naming(path, source, role, present, absent, labels)


def test_c_prototype_in_header_is_a_declaration_and_body_a_definition() -> None:
    header = chunks_of(
        "hiredis.h", "redisContext *redisConnect(const char *ip, int port);\n", SOURCE
    )
    body = chunks_of(
        "hiredis.c",
        """
        redisContext *redisConnect(const char *ip, int port) {
            return redisConnectWithOptions(ip, port);
        }
        """,
        SOURCE,
    )
    (declared,) = [c for c in header if "redisConnect" in c.symbols]
    (defined,) = [c for c in body if "redisConnect" in c.symbols]
    assert declared.role is Role.DECLARATION
    assert defined.role is Role.DEFINITION


def test_test_titles_are_tests_and_split_out_of_a_long_suite() -> None:
    its = "\n".join(
        f"  it('case {n}', () => {{\n    expect({n}).toBe({n})\n  }})\n" for n in range(40)
    )
    chunks = chunks_of("test/long.test.js", f"describe('long suite', () => {{\n{its}}})\n", TEST)
    by_name = {c.symbol: c for c in chunks}
    assert {f"case {n}" for n in range(40)} <= set(by_name)
    assert all(c.role is Role.TEST for c in chunks)
    assert by_name["case 7"].header == "describe('long suite', () => {"


def test_exported_object_members_become_chunks_when_long() -> None:
    members = "\n".join(f"  get p{n}() {{\n    return this.req.p{n}\n  }},\n" for n in range(50))
    chunks = chunks_of("lib/request.js", f"module.exports = {{\n{members}}}\n", SOURCE)
    by_name = {c.symbol: c for c in chunks}
    assert {f"request.p{n}" for n in range(50)} <= set(by_name)
    assert by_name["request.p3"].kind == "method"
    assert by_name["request.p3"].header == "module.exports = {"


@pytest.mark.parametrize(
    ("gap", "attached"),
    [("\n", True), ("\n\n", False)],
    ids=["one-blank-line-attaches", "two-blank-lines-do-not"],
)
def test_jsdoc_block_attaches_across_one_blank_line(gap: str, attached: bool) -> None:
    source = f"/**\n * Send a response.\n */\n{gap}res.send = function send(body) {{\n  return body;\n}};\n"
    (chunk,) = [c for c in chunks_of("lib/response.js", source, SOURCE) if c.symbol == "res.send"]
    assert (chunk.start_line == 1) is attached
    assert chunk.text.strip() == chunk.text.strip("\n").strip() and chunk.text[0] != "\n"


def test_rust_impl_headers_stay_with_their_impl() -> None:
    """An impl for a slice or a blanket impl is one container chunk: no glue chunk
    without a name is left at its header (``impl Index<Span> for [u8] {``)."""
    source = """
    impl Index<Span> for [u8] {
        type Output = [u8];

        fn index(&self, span: Span) -> &[u8] {
            &self[span.start..span.end]
        }
    }

    impl<'a, M: Matcher> Matcher for &'a M {
        fn find_at(&self, at: usize) -> bool {
            (*self).find_at(at)
        }
    }
    """
    chunks = chunks_of("src/span.rs", source, SOURCE)
    assert [(c.kind, c.symbol, c.start_line) for c in chunks] == [
        ("impl", "slice", 2),
        ("impl", "Matcher", 10),
    ]


def test_split_interface_members_name_their_interface() -> None:
    """A long interface of documented prototypes is split; each member's chunk is part
    of the interface's declaration and names it too (a label ``TypeFactory`` finds the
    member that mentions what the question asks)."""
    members = "\n".join(
        f"  /**\n   * Define thing {n}.\n   *\n   * @param id the id\n   */\n"
        f"  long defineThing{n}(\n      long context,\n      String name,\n      int id);\n"
        for n in range(20)
    )
    source = f"package org.x;\n\npublic interface TypeFactory {{\n\n{members}}}\n"
    chunks = chunks_of("src/TypeFactory.java", source, SOURCE)
    members_of = [c for c in chunks if c.symbol and c.symbol.startswith("TypeFactory.")]
    assert len(members_of) == 20
    for chunk in members_of:
        assert chunk.role is Role.DECLARATION
        assert chunk.symbols == (chunk.symbol, "TypeFactory")
        assert symbol_matches("TypeFactory", chunk.symbol, chunk.symbols)


def test_split_class_members_do_not_name_their_class() -> None:
    """Only a declaration container lends its name: a class's methods are definitions
    of their own, and a label for the class stays with the class's header chunk."""
    methods = "\n".join(
        f"  long run{n}(long x) {{\n    long y = x + {n};\n    return y * 2;\n  }}\n"
        for n in range(30)
    )
    chunks = chunks_of("src/Runner.java", f"class Runner {{\n{methods}}}\n", SOURCE)
    run3 = next(c for c in chunks if c.symbol == "Runner.run3")
    assert run3.symbols == ("Runner.run3",)


def test_cpp_function_emitting_a_signal_stays_a_definition() -> None:
    """``emit changed();`` in a body parses as a prototype; a function is no container
    of prototypes, so its chunk stays a definition."""
    source = """
    void Counter::setValue(int value)
    {
        if (m_value == value)
            return;
        m_value = value;
        emit valueChanged(value);
    }
    """
    (chunk,) = [c for c in chunks_of("src/counter.cpp", source, SOURCE) if c.symbol]
    assert (chunk.symbol, chunk.role) == ("Counter.setValue", Role.DEFINITION)


def test_documented_one_line_overloads_are_chunks_of_their_own() -> None:
    """In a split class, a one-line member under its javadoc is a member of six lines,
    not a short one left in the header chunk: adjacent overloads get a chunk each, all
    named alike (their lines tell them apart)."""
    doc = "  /**\n   * {0}\n   *\n   * @return this writer\n   */\n"
    overloads = "\n".join(
        doc.format(f"Writes a {kind}.") + f"  public abstract Writer value({kind} v);\n"
        for kind in ("String", "long", "double", "boolean")
    )
    filler = "\n".join(
        f"  void step{n}() {{\n    int x = {n};\n    use(x);\n  }}\n" for n in range(30)
    )
    source = f"public abstract class Writer {{\n{overloads}\n{filler}}}\n"
    chunks = chunks_of("src/Writer.java", source, SOURCE)
    values = [c for c in chunks if c.symbol == "Writer.value"]
    assert [(c.start_line, c.end_line) for c in values] == [(2, 7), (9, 14), (16, 21), (23, 28)]
    assert all(c.role is Role.DECLARATION and c.symbols == ("Writer.value",) for c in values)
    header = next(c for c in chunks if c.symbol == "Writer")
    assert "Writer.value" not in header.symbols


def test_a_long_exported_class_value_is_split_into_its_members() -> None:
    # koa lib/application.js: `module.exports = class Application extends Emitter {`
    # of 212 lines was one chunk; like any container over max_chunk_lines it is split.
    methods = "\n".join(
        f"  m{n} () {{\n" + "".join(f"    this.v{k} = {k}\n" for k in range(8)) + "  }\n"
        for n in range(20)
    )
    source = f"module.exports = class Application extends Emitter {{\n{methods}}}\n"
    chunks = chunks_of("lib/application.js", source, SOURCE)
    by_name = {c.symbol: c for c in chunks}
    assert {f"Application.m{n}" for n in range(20)} <= set(by_name)
    assert by_name["Application.m3"].kind == "method"
    assert by_name["Application.m3"].header.startswith("module.exports = class Application")
