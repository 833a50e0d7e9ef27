"""The regex definition heuristic for languages without a grammar, and its windows."""

from __future__ import annotations

import textwrap

import pytest

from codegold.chunking import ChunkerConfig, chunk_file
from codegold.chunking.heuristic import (
    family_for_language,
    family_for_path,
    find_definitions,
    heuristic_families,
)
from codegold.corpus.model import FileRole
from codegold.roles import Role


def names(path: str, source: str) -> list[str]:
    text = textwrap.dedent(source)
    family = family_for_path(path, text)
    assert family is not None
    return [d.name for d in find_definitions(family, text.split("\n")) if d.name]


DETECTED = [
    pytest.param(
        "lib/Shop/Cart.pm",
        """
        package Shop::Cart;
        use strict;

        sub new { bless {}, shift }
        sub add {
            my ($self, $item) = @_;
        }
        package Shop::Item;
        sub price { 0 }
        1;
        __END__
        =head1 NAME
        sub not_code
        """,
        ["Shop.Cart.new", "Shop.Cart.add", "Shop.Item.price"],
        id="perl",
    ),
    pytest.param(
        "R/stats.R",
        """
        summarise_orders <- function(df) {
          helper <- function(x) x + 1
          df
        }
        scale01 = function(x) (x - min(x)) / diff(range(x))
        Account <- R6::R6Class("Account")
        setClass("Person", representation(name = "character"))
        x <- 3
        """,
        ["summarise_orders", "scale01", "Account", "Person"],
        id="r",
    ),
    pytest.param(
        "lib/billing.ex",
        """
        defmodule Shop.Billing do
          def charge(customer, amount) do
            :ok
          end

          defp fetch_card?(customer), do: nil

          defmodule Charge do
            def new(attrs), do: attrs
          end
        end
        """,
        [
            "Shop.Billing", "Shop.Billing.charge", "Shop.Billing.fetch_card?",
            "Shop.Billing.Charge", "Shop.Billing.Charge.new",
        ],
        id="elixir",
    ),
    pytest.param(
        "lib/cart.dart",
        """
        abstract class Store {
          Future<void> save(Cart cart);
        }

        class Cart extends ChangeNotifier {
          final List<Item> items = [];

          int get count => items.length;

          void add(Item item) {
            if (item.valid) {
              items.add(item);
            } else if (item.price > 0) {
              notifyListeners();
            }
          }

          Future<int> total() async {
            return 0;
          }
        }

        String formatPrice(double price) => price.toStringAsFixed(2);
        """,
        ["Store", "Cart", "Cart.add", "Cart.total", "formatPrice"],
        id="dart",
    ),
    pytest.param(
        "src/list.zig",
        """
        const std = @import("std");
        pub const List = struct {
            items: []u8,
            pub fn append(self: *List, x: u8) !void {
                _ = x;
            }
        };
        fn helper() void {}
        test "append" {}
        """,
        ["List", "List.append", "helper"],
        id="zig",
    ),
    pytest.param(
        "db/schema.sql",
        """
        CREATE TABLE IF NOT EXISTS public.users (id serial PRIMARY KEY);
        create or replace function "public"."touch"() returns trigger as $$
        begin return new; end; $$ language plpgsql;
        CREATE UNIQUE INDEX users_email ON users (email);
        CREATE OR REPLACE VIEW active_users AS SELECT 1;
        CREATE MATERIALIZED VIEW stats AS SELECT 1;
        CREATE PROCEDURE archive() AS $$ $$;
        SELECT * FROM users;
        """,
        ["public.users", "public.touch", "users_email", "active_users", "stats", "archive"],
        id="sql",
    ),
    pytest.param(
        "main.tf",
        """
        variable "region" {}
        resource "aws_s3_bucket" "logs" {
          bucket = "logs"
        }
        data "aws_ami" "ubuntu" {}
        module "vpc" {}
        output "bucket_arn" {}
        """,
        ["var.region", "aws_s3_bucket.logs", "data.aws_ami.ubuntu", "module.vpc", "bucket_arn"],
        id="terraform",
    ),
    pytest.param(
        "Src/Geometry.hs",
        """
        module Geometry where
        data Shape = Circle Double | Square Double
        class Show a => Pretty a where
          pretty :: a -> String
        area :: Shape -> Double
        area (Circle r) = pi * r * r
        """,
        ["Shape", "Pretty", "area"],
        id="haskell",
    ),
    pytest.param(
        "src/Cart.m",
        """
        #import "Cart.h"
        @implementation Cart
        - (void)addItem:(Item *)item {
        }
        + (instancetype)emptyCart {
        }
        @end
        """,
        ["Cart", "addItem", "emptyCart"],
        id="objective-c",
    ),
    pytest.param(
        "analysis/fit_model.m",
        """
        function [a, b] = fit_model(x, y)
          a = 1;
        end
        function r = residual(a, x)
          r = a * x;
        end
        """,
        ["fit_model", "residual"],
        id="matlab",
    ),
    pytest.param(
        "src/parser.y",
        """
        %{
        #include "compile.h"
        #define YYMALLOC jv_mem_alloc
        %}
        %code {
        static jv check_object_key(block k) {
          return jv_invalid();
        }

        static block gen_index(block obj, block key) {
          return BLOCK(gen_subexp(key), obj, gen_op_simple(INDEX));
        }
        }
        %%
        Term:
        Term '.' IDENT {
          $$ = gen_index(obj, gen_const($3));
        }
        """,
        ["YYMALLOC", "check_object_key", "gen_index"],
        id="yacc",
    ),
    pytest.param(
        "src/lexer.l",
        """
        %{
        #define YY_USER_ACTION do { yylloc->start = yyget_extra(yyscanner); } while (0);
        static int enter(int opening, int state, yyscan_t yyscanner);
        %}
        %%
        "!=" { return NEQ; }
        %%
        static int try_exit(int c, int state, yyscan_t yyscanner) {
          return c;
        }
        """,
        ["YY_USER_ACTION", "enter", "try_exit"],
        id="lex",
    ),
    pytest.param(
        "api/shop.proto",
        """
        syntax = "proto3";
        message Order {
          string id = 1;
          enum Status { PENDING = 0; }
        }
        service Orders {
          rpc Place(Order) returns (Order);
        }
        """,
        ["Order", "Order.Status", "Orders", "Orders.Place"],
        id="protobuf",
    ),
    pytest.param(
        "src/core.clj",
        """
        (ns shop.core)
        (defn- parse [s] s)
        (defn ^:export total [cart] 0)
        (defrecord Item [sku price])
        """,
        ["parse", "total", "Item"],
        id="clojure",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("path", "source", "expected"), DETECTED)
def test_definitions_are_found_and_qualified(path: str, source: str, expected: list[str]) -> None:
    assert names(path, source) == expected


def test_families_by_extension_and_language() -> None:
    assert family_for_path("a.txt", "") is None
    assert family_for_path("Makefile", "") is None
    assert family_for_path("x.PL", "") is not None  # extensions ignore case
    assert family_for_language("kotlin") is not None
    assert family_for_language("python") is not None  # a failed parse keeps its names
    assert family_for_language("markdown") is None
    assert {"perl", "sql", "elixir", "ruby", "kotlin"} <= set(heuristic_families())


def test_windows_start_at_definitions_and_carry_their_names() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(38))
    source = (
        "defmodule Shop do\n"
        "  # Adds two numbers.\n"
        "  def add(a, b) do\n"
        f"{body}\n"
        "  end\n"
        "\n"
        "  def sub(a, b), do: a - b\n"
        "  def mul(a, b), do: a * b\n"
        "end\n"
    )
    result = chunk_file("lib/shop.ex", source, file_role=FileRole.SOURCE)
    assert result.language == "elixir"
    assert result.parse_ok
    spans = [(c.start_line, c.end_line, c.symbol, c.symbols, c.role) for c in result.chunks]
    assert spans == [
        (1, 1, "Shop", ("Shop",), Role.DEFINITION),
        (2, 41, "Shop.add", ("Shop.add",), Role.DEFINITION),  # with its comment
        (32, 42, None, (), Role.CALL_SITE),  # the rest of add, overlapping
        (44, 46, "Shop.sub", ("Shop.sub", "Shop.mul"), Role.DEFINITION),  # packed
    ]
    assert result.chunks[2].header == "def add(a, b) do"
    assert {c.kind for c in result.chunks} == {"window"}


def test_long_definitions_are_windowed_and_continuations_carry_a_header() -> None:
    config = ChunkerConfig(window_lines=10, window_overlap=2)
    source = "sub long_one {\n" + "  my $x = 1;\n" * 20 + "}\nsub short { 1 }\n"
    chunks = chunk_file("a.pl", source, file_role=FileRole.SOURCE, config=config).chunks
    assert [(c.start_line, c.end_line, c.symbol) for c in chunks] == [
        (1, 10, "long_one"),
        (9, 18, None),
        (17, 22, None),
        (23, 23, "short"),
    ]
    assert [c.header for c in chunks] == ["", "sub long_one {", "sub long_one {", ""]
    assert [c.role for c in chunks] == [
        Role.DEFINITION, Role.CALL_SITE, Role.CALL_SITE, Role.DEFINITION,
    ]  # fmt: skip


def test_small_definitions_are_packed_and_every_line_is_covered() -> None:
    source = "\n".join(f"sub f{i} {{ {i} }}\n" for i in range(30))
    lines = source.split("\n")
    chunks = chunk_file("a.pm", source, file_role=FileRole.SOURCE).chunks
    assert all(c.end_line - c.start_line + 1 <= 40 for c in chunks)
    assert all(c.symbol == c.symbols[0] for c in chunks)
    assert [n for c in chunks for n in c.symbols] == [f"f{i}" for i in range(30)]
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    assert all(n in covered for n, text in enumerate(lines, 1) if text.strip())


def test_a_file_without_definitions_is_plain_windows_in_its_language() -> None:
    source = "\n".join(f"print {i};" for i in range(100))
    result = chunk_file("run.pl", source, file_role=FileRole.SOURCE)
    plain = chunk_file("run.txt", source, file_role=FileRole.SOURCE)
    assert result.language == "perl"
    assert [(c.start_line, c.end_line) for c in result.chunks] == [
        (c.start_line, c.end_line) for c in plain.chunks
    ]
    assert all(c.symbols == () and c.role == Role.CALL_SITE for c in result.chunks)


def test_file_role_still_wins() -> None:
    chunks = chunk_file("t/cart.t.pl", "sub test_add { 1 }\n", file_role=FileRole.TEST).chunks
    assert [(c.symbol, c.role) for c in chunks] == [("test_add", Role.TEST)]


def test_definitions_inside_functions_are_local() -> None:
    source = """
        def outer
          def inner
          end
        end
        """
    text = textwrap.dedent(source)
    family = family_for_language("ruby")
    assert family is not None
    assert [d.name for d in find_definitions(family, text.split("\n"))] == ["outer"]


def test_a_broken_parse_of_a_heuristic_language_keeps_definition_names() -> None:
    garbage = "\n".join(")))) ;;; ]]] {{{ === @@@" for _ in range(20))
    source = f"fun start() {{\n{garbage}\n}}\n\nfun stop() {{\n{garbage}\n}}\n"
    result = chunk_file("src/Broken.kt", source, file_role=FileRole.SOURCE)
    assert not result.parse_ok
    assert result.language == "kotlin"
    assert [c.symbol for c in result.chunks if c.symbol] == ["start", "stop"]


def test_a_broken_parse_of_a_first_grammar_language_keeps_definition_names() -> None:
    # Python, JavaScript, TypeScript, Go, Java and Rust fall back to named windows too
    # (hono's src/types.ts and src/helper/factory/index.ts were windows named nothing).
    garbage = "\n".join(")))) ;;; ]]] {{{ === @@@" for _ in range(20))
    result = chunk_file("src/broken.py", f"def f():\n{garbage}\n", file_role=FileRole.SOURCE)
    assert not result.parse_ok
    assert [c.symbol for c in result.chunks if c.symbol] == ["f"]


FALLBACK = [
    pytest.param(
        # hono src/helper/factory/index.ts: generic call signatures the grammar cannot
        # read send the file to windows; its definitions still name them.
        "typescript",
        """
        type InitApp<E extends Env = Env> = (app: Hono<E>) => void

        export interface CreateHandlersInterface<E extends Env, P extends string> {
          <I extends Input = {}>(handler1: H<E2, P, I, R>): [H<E2, P, I, R>]
        }

        export class Factory<E extends Env = Env> {
          private initApp?: InitApp<E>

          constructor(init?: { initApp?: InitApp<E> }) {
            this.initApp = init?.initApp
          }
        }

        export const createFactory = <E extends Env = Env>(init?: {}) => new Factory<E>(init)

        export function createMiddleware(middleware) {
          return middleware
        }
        res.send = function send(body) {
          return this
        }
        """,
        [
            "InitApp",
            "CreateHandlersInterface",
            "Factory",
            "Factory.constructor",
            "createFactory",
            "createMiddleware",
            "res.send",
        ],
    ),
    pytest.param(
        "python",
        """
        class Client:
            async def send(self, request):
                def inner():
                    pass
                return request

        def main():
            pass
        """,
        ["Client", "Client.send", "main"],
    ),
    pytest.param(
        "go",
        """
        type Router struct {
        \troutes []*Route
        }

        func (r *Router) Handle(path string, h Handler) *Route {
        \treturn nil
        }

        func (s Set[T]) Len() int { return 0 }

        func NewRouter() *Router {
        \treturn &Router{}
        }
        """,
        ["Router", "Router.Handle", "Set.Len", "NewRouter"],
    ),
    pytest.param(
        "java",
        """
        public final class TypeSpec {
          public static Builder classBuilder(String name) {
            return new Builder(name);
          }

          public @interface Generated {
          }
        }
        """,
        ["TypeSpec", "TypeSpec.classBuilder", "TypeSpec.Generated"],
    ),
    pytest.param(
        "rust",
        """
        pub struct StatusCode(u16);

        impl StatusCode {
            pub const fn as_u16(&self) -> u16 {
                self.0
            }
        }

        impl<T> From<T> for Value<T> {
            fn from(t: T) -> Self {
                Value(t)
            }
        }

        macro_rules! status_codes {
            () => {};
        }
        """,
        ["StatusCode", "StatusCode", "StatusCode.as_u16", "Value", "Value.from", "status_codes"],
    ),
    pytest.param(
        "c",
        """
        #ifndef LIB_H
        #define LIB_H
        #define LIB_MAX 64
        #define LIB_MIN(a, b) ((a) < (b) ? (a) : (b))
        __BEGIN_DECLS
        extern int lib_open (const char *__path) __THROW __nonnull ((1));
        LIB_API struct lib *lib_new(void);
        typedef struct lib_stat {
          int size;
        } lib_stat_t;
        static int
        helper(int x)
        {
          return lib_open(x);
        }
        __END_DECLS
        #endif
        """,
        ["LIB_MAX", "LIB_MIN", "lib_open", "lib_new", "lib_stat"],
    ),
    pytest.param(
        "cpp",
        """
        namespace app {
        class Widget : public Base {
         public:
          Widget();
          int Size() const;
        };
        Widget::Widget() : size_(0) {
          if (ready()) {
            Paint(x);
          }
        }
        }  // namespace app
        """,
        ["Widget", "Widget.Size", "Widget.Widget"],  # an in-class constructor is missed
    ),
    pytest.param(
        "csharp",
        """
        namespace Shop
        {
            public sealed class Cart
            {
        #if DEBUG
                private void Trace() { }
        #endif
                public async Task<int> TotalAsync(int x)
                {
                    return await Compute(x);
                }
            }
        }
        """,
        ["Cart", "Cart.Trace", "Cart.TotalAsync"],
    ),
]


@pytest.mark.parametrize(("language", "source", "expected"), FALLBACK)
def test_fallback_families_for_c_like_languages(
    language: str, source: str, expected: list[str]
) -> None:
    family = family_for_language(language)
    assert family is not None
    lines = textwrap.dedent(source).split("\n")
    assert [d.name for d in find_definitions(family, lines)] == expected


def test_a_broken_parse_keeps_the_definitions_that_parsed_cleanly() -> None:
    """Most of the file is one unparsable function (jq's jv_dtoa.c, a macro maze): the
    functions around it parsed cleanly and are chunks as usual; only the broken part is
    windowed (named, in C, by the regex heuristic)."""
    garbage = "\n".join("  )))) ;;; ]]] === @@@ <<<" for _ in range(30))
    source = (
        "static int\nhelper(int x)\n{\n  return x + 1;\n}\n\n"
        f"int big(int n)\n{{\n{garbage}\n}}\n\n"
        "int later(int y)\n{\n  return y;\n}\n"
    )
    result = chunk_file("src/dtoa.c", source, file_role=FileRole.SOURCE)
    assert not result.parse_ok
    spans = [(c.start_line, c.end_line, c.kind, c.symbol) for c in result.chunks]
    assert spans == [
        (1, 5, "function", "helper"),
        (7, 39, "window", "big"),
        (41, 44, "function", "later"),
    ]
    assert result.chunks[0].role is Role.DEFINITION


def test_c_prototypes_through_an_argument_list_macro_are_named_by_the_function() -> None:
    """zlib 1.2.11's deflate.c declares its helpers ``local block_state deflate_stored
    OF((deflate_state *s, int flush));`` (the K&R-compatible idiom): when such a file
    falls back to the heuristic, the names are the functions', not ``OF``."""
    family = family_for_language("c")
    assert family is not None
    text = textwrap.dedent(
        """\
        local block_state deflate_stored OF((deflate_state *s, int flush));
        local void fill_window    OF((deflate_state *s));
        ZEXTERN int ZEXPORT deflate OF((z_streamp strm, int flush));
        int deflateEnd (z_streamp strm) {
        """
    )
    found = [d.name for d in find_definitions(family, text.split("\n")) if d.name]
    assert found == ["deflate_stored", "fill_window", "deflate", "deflateEnd"]
