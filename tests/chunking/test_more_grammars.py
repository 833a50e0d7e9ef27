"""C, C++, C#, Ruby, Kotlin, Swift, PHP, Scala, Lua and Bash: names, roles, spans."""

from __future__ import annotations

import textwrap

import pytest

from codegold.chunking import DEFAULT_CONFIG, Chunk, ChunkerConfig, chunk_file, language_for_path
from codegold.corpus.model import FileRole
from codegold.roles import Role

SPLIT = ChunkerConfig(max_chunk_lines=4, min_member_lines=1)


def chunks_of(
    path: str, source: str, *, config: ChunkerConfig = DEFAULT_CONFIG
) -> tuple[Chunk, ...]:
    result = chunk_file(path, textwrap.dedent(source), file_role=FileRole.SOURCE, config=config)
    assert result.parse_ok
    return result.chunks


def by_symbol(chunks: tuple[Chunk, ...]) -> dict[str | None, Chunk]:
    return {c.symbol: c for c in chunks}


def defined(chunks: tuple[Chunk, ...]) -> set[str]:
    return {name for chunk in chunks for name in chunk.symbols}


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("src/ring.c", "c"),
        ("include/ring.h", "c"),
        ("src/limiter.cc", "cpp"),
        ("src/limiter.cpp", "cpp"),
        ("src/limiter.cxx", "cpp"),
        ("include/limiter.hpp", "cpp"),
        ("include/limiter.hh", "cpp"),
        ("include/limiter.hxx", "cpp"),
        ("src/Order.cs", "csharp"),
        ("lib/invoice.rb", "ruby"),
        ("Rakefile.rake", "ruby"),
        ("shop.gemspec", "ruby"),
        ("src/Money.kt", "kotlin"),
        ("build.gradle.kts", "kotlin"),
        ("Sources/Cart.swift", "swift"),
        ("src/Invoice.php", "php"),
        ("src/Retry.scala", "scala"),
        ("lua/limit.lua", "lua"),
        ("bin/deploy.sh", "bash"),
        ("bin/deploy.bash", "bash"),
    ],
)
def test_new_extensions(path: str, expected: str) -> None:
    assert language_for_path(path) == expected


def test_a_header_with_cpp_syntax_is_cpp_else_c() -> None:
    c_header = "#include <stdio.h>\nstruct point { int x; };\nint area(struct point p);\n"
    cpp_header = "#pragma once\n#include <vector>\nclass Shape {\n public:\n  int Area();\n};\n"
    assert chunk_file("geo.h", c_header, file_role=FileRole.SOURCE).language == "c"
    result = chunk_file("shape.h", cpp_header, file_role=FileRole.SOURCE)
    assert result.language == "cpp"
    assert "Shape.Area" in defined(result.chunks)
    # Only .h is sniffed: a .c file stays C whatever it holds.
    assert chunk_file("x.c", cpp_header, file_role=FileRole.SOURCE).language == "c"


QUALIFIED = [
    pytest.param(
        "a.c",
        """
        #define MAX_LEN 64
        typedef struct node { int value; struct node *next; } node_t;
        typedef struct { double x, y; } point;
        enum color { RED, GREEN };
        typedef int (*compare_fn)(const void *, const void *);
        static int counter = 0;
        int add(int a, int b);
        char *dup(const char *s) { return 0; }
        """,
        {
            "MAX_LEN", "node", "node_t", "node.value", "node.next", "point", "point.x",
            "point.y", "color", "color.RED", "color.GREEN", "compare_fn", "counter", "add",
            "dup",
        },
        id="c",
    ),
    pytest.param(
        "a.cpp",
        """
        namespace app {
        class Widget : public Base {
         public:
          Widget();
          ~Widget();
          int Size() const { return size_; }
          virtual void Draw() = 0;
          struct Style { int color; };
         private:
          int size_;
        };
        Widget::Widget() : size_(0) {}
        Widget::~Widget() {}
        void app::Widget::Paint() {}
        template <typename T>
        T Box<T>::Get() { return value_; }
        bool operator==(const Widget& a, const Widget& b) { return true; }
        }  // namespace app
        """,
        {
            "Widget", "Widget.Widget", "Widget.~Widget", "Widget.Size", "Widget.Draw",
            "Widget.Style", "Widget.Style.color", "Widget.size_", "Widget.Paint", "Box.Get",
            "operator==",
        },
        id="cpp",
    ),
    pytest.param(
        "a.cs",
        """
        namespace Shop.Orders;
        public interface IStore { void Save(Order o); }
        public class Outer {
            private int count;
            public string Name { get; set; }
            public Outer() { }
            public void Run() { }
            public abstract void Stop();
            public class Inner { public void Go() { } }
        }
        public struct Point { public int X; }
        public enum Kind { A, B }
        """,
        {
            "IStore", "IStore.Save", "Outer", "Outer.count", "Outer.Name", "Outer.Outer",
            "Outer.Run", "Outer.Stop", "Outer.Inner", "Outer.Inner.Go", "Point", "Point.X",
            "Kind", "Kind.A", "Kind.B",
        },
        id="csharp",
    ),
    pytest.param(
        "a.rb",
        """
        module Billing
          RATE = 2
          class Invoice < Base
            def self.build(attrs)
              new(attrs)
            end

            def total
              1
            end

            class << self
              def empty
                new
              end
            end
          end
        end
        class Billing::Admin::Tool
          def run; end
        end
        def Config.load; end
        def helper; end
        """,
        {
            # Members by their innermost class (SPEC §1), the full path as a second name.
            "Billing", "Billing.RATE", "Billing.Invoice", "Invoice.build", "Invoice.total",
            "Invoice.empty", "Billing.Invoice.build", "Billing.Invoice.total",
            "Billing.Invoice.empty", "Billing.Admin.Tool", "Tool.run", "Billing.Admin.Tool.run",
            "Config.load", "helper",
        },
        id="ruby",
    ),
    pytest.param(
        "a.kt",
        """
        const val LIMIT = 3
        data class Money(val cents: Long) {
            val isZero: Boolean get() = cents == 0L
            fun plus(other: Money): Money = Money(cents + other.cents)
            companion object {
                fun of(x: Long): Money = Money(x)
            }
        }
        interface Repo {
            fun find(id: String): Money?
        }
        object Registry {
            fun get(): Int = 1
        }
        enum class Color {
            RED, GREEN
        }
        fun String.toMoney(): Money = Money(toLong())
        fun top() {}
        """,
        {
            "LIMIT", "Money", "Money.Money", "Money.isZero", "Money.plus", "Money.of", "Repo", "Repo.find",
            "Registry", "Registry.get", "Color", "Color.RED", "Color.GREEN",
            "String.toMoney", "top",
        },
        id="kotlin",
    ),
    pytest.param(
        "a.swift",
        """
        protocol Store {
            func save(_ c: Cart) throws
        }
        final class Cart {
            var items: [Item] = []
            init() {}
            func add(_ item: Item) {}
        }
        struct Item { let sku: String }
        enum Kind { case a, b }
        extension Cart: Store {
            func save(_ c: Cart) throws {}
        }
        func top() {}
        """,
        {
            "Store", "Store.save", "Cart", "Cart.items", "Cart.init", "Cart.add", "Item",
            "Item.sku", "Kind", "Kind.a", "Kind.b", "Cart.save", "top",
        },
        id="swift",
    ),
    pytest.param(
        "a.php",
        """
        <?php
        namespace App;
        const TOP = 1;
        interface Exporter { public function export(): string; }
        class Invoice {
            public const MAX = 3;
            private int $total = 0;
            public function pay(): void {}
            abstract protected function run(): void;
        }
        trait Logs { function log($m) {} }
        enum Suit: string { case Hearts = 'H'; }
        function helper() {}
        """,
        {
            "TOP", "Exporter", "Exporter.export", "Invoice", "Invoice.MAX", "Invoice.total",
            "Invoice.pay", "Invoice.run", "Logs", "Logs.log", "Suit", "Suit.Hearts", "helper",
        },
        id="php",
    ),
    pytest.param(
        "a.scala",
        """
        trait Repo { def find(id: String): Option[Int] }
        class Service(repo: Repo) {
          val name = "svc"
          def run(): Unit = ()
        }
        object Service { def apply(): Service = new Service(null) }
        enum Color { case Red, Green }
        type Cents = Long
        val Default = 1
        extension (s: String)
          def shout: String = s.toUpperCase
        """,
        {
            "Repo", "Repo.find", "Service", "Service.Service", "Service.name", "Service.run", "Service.apply",
            "Color", "Color.Red", "Color.Green", "Cents", "Default", "String.shout",
        },
        id="scala",
    ),
    pytest.param(
        "a.lua",
        """
        local M = {}
        function M.new(opts) return setmetatable({}, M) end
        function M:close() end
        local function helper() end
        M.handler = function(req) return req end
        function a.b.c() end
        return M
        """,
        {"M", "M.new", "M.close", "helper", "M.handler", "a.b.c"},
        id="lua",
    ),
    pytest.param(
        "a.sh",
        """
        APP=shop
        export ENV=prod
        build() { echo "$APP"; }
        function deploy {
          build
        }
        """,
        {"APP", "ENV", "build", "deploy"},
        id="bash",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("path", "source", "expected"), QUALIFIED)
def test_qualified_names(path: str, source: str, expected: set[str]) -> None:
    assert defined(chunks_of(path, source, config=SPLIT)) == expected


def test_c_header_prototypes_are_declarations_with_their_doc_comment() -> None:
    chunks = by_symbol(
        chunks_of(
            "ring.h",
            """
            #ifndef RING_H
            #define RING_H
            /**
             * Allocates a ring.
             */
            struct ring *ring_new(size_t capacity);
            /// Frees it.
            void ring_free(struct ring *r);
            static inline int ring_empty(const struct ring *r) { return r->n == 0; }
            #endif
            """,
        )
    )
    new = chunks["ring_new"]
    assert (new.start_line, new.end_line, new.role) == (4, 7, Role.DECLARATION)
    assert new.text.startswith("/**")
    free = chunks["ring_free"]
    assert (free.start_line, free.role) == (8, Role.DECLARATION)
    assert chunks["ring_empty"].role == Role.DEFINITION
    assert "RING_H" not in defined(tuple(chunks.values()))  # include guards are not names


def test_cpp_member_prototypes_are_declarations_and_out_of_line_bodies_definitions() -> None:
    source = """
        /// A widget.
        template <typename T>
        class Widget {
         public:
          void Draw();
          int Size() const;
          T value;
          void Reset() {
            value = T();
          }
        };

        template <typename T>
        void Widget<T>::Draw() {
          Paint(value);
        }
        """
    chunks = chunks_of("w.hpp", source, config=SPLIT)
    assert [(c.start_line, c.end_line, c.kind, c.role, c.symbol) for c in chunks] == [
        (2, 5, "class", Role.DEFINITION, "Widget"),
        (6, 6, "method", Role.DECLARATION, "Widget.Draw"),
        (7, 7, "method", Role.DECLARATION, "Widget.Size"),
        (8, 8, "class", Role.DEFINITION, "Widget"),
        (9, 11, "method", Role.DEFINITION, "Widget.Reset"),
        (12, 12, "module", Role.CALL_SITE, None),
        (14, 17, "method", Role.DEFINITION, "Widget.Draw"),
    ]
    assert chunks[0].text.startswith("/// A widget.\ntemplate <typename T>")
    assert chunks[-1].text.startswith("template <typename T>")
    assert "Paint" in chunks[-1].references
    # Unsplit, the class lists its members' names.
    whole = by_symbol(chunks_of("w.hpp", source))["Widget"]
    assert whole.symbols[:3] == ("Widget", "Widget.Draw", "Widget.Size")


def test_csharp_interface_and_abstract_members_are_declarations() -> None:
    chunks = by_symbol(
        chunks_of(
            "a.cs",
            """
            /// <summary>Stores things.</summary>
            [Obsolete]
            public interface IStore
            {
                void Save(int id);
            }
            public abstract class Base
            {
                public abstract void Run();
                public void Stop() { }
            }
            """,
            config=SPLIT,
        )
    )
    store = chunks["IStore"]
    assert (store.start_line, store.role) == (2, Role.DECLARATION)
    assert chunks["Base.Run"].role == Role.DECLARATION
    assert chunks["Base.Stop"].role == Role.DEFINITION


def test_ruby_doc_comments_attach_and_the_class_end_is_no_part_of_the_last_member() -> None:
    chunks = chunks_of(
        "a.rb",
        """
        # Billing things.
        class Invoice
          # The total, taxes included.
          def total
            1 + tax
          end

          def tax
            0
          end
        end
        """,
        config=SPLIT,
    )
    spans = {c.symbol: (c.start_line, c.end_line) for c in chunks}
    assert spans == {
        "Invoice": (2, 3),
        "Invoice.total": (4, 7),
        "Invoice.tax": (9, 11),
        None: (12, 12),
    }
    assert by_symbol(chunks)["Invoice.total"].header == "class Invoice"
    assert "tax" in by_symbol(chunks)["Invoice.total"].references


def test_kotlin_class_is_split_through_its_class_body() -> None:
    chunks = chunks_of(
        "a.kt",
        """
        class Converter(private val rates: Rates) {
            fun convert(money: Money): Money {
                return money
            }

            fun rate(): Int {
                return 1
            }
        }
        """,
        config=SPLIT,
    )
    assert [(c.symbol, c.kind) for c in chunks] == [
        ("Converter", "class"),
        ("Converter.convert", "method"),
        ("Converter.rate", "method"),
        (None, "module"),
    ]
    assert chunks[1].header == "class Converter(private val rates: Rates) {"


def test_swift_extension_defines_its_methods_not_the_type() -> None:
    chunks = chunks_of(
        "a.swift",
        """
        extension Cart {
            func total() -> Int { 0 }
        }
        """,
    )
    assert [(c.kind, c.symbol, c.symbols) for c in chunks] == [("impl", "Cart", ("Cart.total",))]


def test_bash_and_lua_calls_are_references() -> None:
    (deploy,) = chunks_of("a.sh", "deploy() {\n  build_image\n  kubectl apply -f x\n}\n")
    assert {"build_image", "kubectl"} <= set(deploy.references)
    (new,) = chunks_of("a.lua", "function M.new()\n  return setmetatable({}, self)\nend\n")
    assert "setmetatable" in new.references
    assert "self" not in new.references
