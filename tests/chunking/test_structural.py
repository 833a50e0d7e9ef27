from __future__ import annotations

import textwrap

import pytest

from codegold.chunking import DEFAULT_CONFIG, Chunk, ChunkerConfig, chunk_file
from codegold.corpus.model import FileRole
from codegold.roles import Role

# Small enough that every class in these snippets is split into its members.
SPLIT = ChunkerConfig(max_chunk_lines=4, min_member_lines=1)


def chunks_of(
    path: str,
    source: str,
    *,
    config: ChunkerConfig = DEFAULT_CONFIG,
    file_role: FileRole = FileRole.SOURCE,
) -> tuple[Chunk, ...]:
    result = chunk_file(path, textwrap.dedent(source), file_role=file_role, config=config)
    assert result.parse_ok
    return result.chunks


def by_symbol(chunks: tuple[Chunk, ...]) -> dict[str | None, Chunk]:
    return {c.symbol: c for c in chunks}


def span(chunk: Chunk) -> tuple[int, int]:
    return (chunk.start_line, chunk.end_line)


# ---- qualified names --------------------------------------------------------

QUALIFIED = [
    pytest.param(
        "a.py",
        """
        class Outer:
            class Inner:
                def method(self):
                    return 1

                def other(self):
                    return 2

        def top():
            pass
        """,
        {"Outer", "Outer.Inner", "Outer.Inner.method", "Outer.Inner.other", "top"},
        id="python-nested",
    ),
    pytest.param(
        "a.js",
        """
        export class Client {
          send(request) {
            return request;
          }
          close = () => {
            this.closed = true;
          };
        }
        export const connect = (url) => new Client(url);
        function helper() {}
        """,
        {"Client", "Client.send", "Client.close", "connect", "helper"},
        id="javascript",
    ),
    pytest.param(
        "a.ts",
        """
        export class Client<T> {
          private queue: T[] = [];
          async send(item: T): Promise<void> {
            this.queue.push(item);
          }
        }
        export interface Transport {
          open(): void;
        }
        """,
        {"Client", "Client.queue", "Client.send", "Transport", "Transport.open"},
        id="typescript",
    ),
    pytest.param(
        "a.go",
        """
        package a

        type Service struct{ n int }

        func (s *Service) Refresh() error {
        \treturn nil
        }

        func (s Service) Count() int {
        \treturn s.n
        }

        func (c *cache[K, V]) Get(key K) V {
        \tvar zero V
        \treturn zero
        }

        func New() *Service { return &Service{} }
        """,
        {"Service", "Service.n", "Service.Refresh", "Service.Count", "cache.Get", "New"},
        id="go-receivers",
    ),
    pytest.param(
        "A.java",
        """
        public class Outer {
            public Outer() {
                super();
            }
            static class Inner {
                void run() {
                    work();
                }
            }
        }
        """,
        {"Outer", "Outer.Outer", "Outer.Inner", "Outer.Inner.run"},
        id="java-nested",
    ),
    pytest.param(
        "a.rs",
        """
        struct Stack<T> { items: Vec<T> }

        impl<T> Stack<T> {
            fn push(&mut self, item: T) {
                self.items.push(item);
            }
        }

        impl fmt::Display for Stack<u8> {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "stack")
            }
        }

        mod util {
            pub fn helper() -> u8 {
                1
            }
        }
        """,
        {"Stack", "Stack.items", "Stack.push", "Stack.fmt", "util", "helper", "util.helper"},
        id="rust-impls",
    ),
]


@pytest.mark.parametrize(("path", "source", "expected"), QUALIFIED)
def test_qualified_names(path: str, source: str, expected: set[str]) -> None:
    chunks = chunks_of(path, source, config=SPLIT)
    defined = {name for chunk in chunks for name in chunk.symbols}
    assert defined == expected


def test_split_members_carry_their_qualified_symbol_and_class_header() -> None:
    source = """
    class Client(Base):
        '''Talks to the server.'''

        retries = 3

        def send(self, request):
            return self.transport.send(request)

        def close(self):
            self.transport.close()
    """
    chunks = by_symbol(chunks_of("client.py", source, config=SPLIT))
    assert chunks["Client.send"].kind == "method"
    assert chunks["Client.send"].header == "class Client(Base):"
    assert chunks["Client"].kind == "class"
    assert chunks["Client"].symbols == ("Client", "Client.retries")
    assert "retries = 3" in chunks["Client"].text


def test_small_class_stays_whole_and_lists_its_members() -> None:
    source = """
    class Client:
        def send(self, request):
            return request

        def close(self):
            pass
    """
    (chunk,) = chunks_of("client.py", source)
    assert (chunk.symbol, chunk.kind, chunk.role) == ("Client", "class", Role.DEFINITION)
    assert chunk.symbols == ("Client", "Client.send", "Client.close")


def test_rust_impl_lists_methods_but_does_not_define_the_type() -> None:
    source = """
    impl Display for Config {
        fn fmt(&self) {}
    }
    """
    (chunk,) = chunks_of("config.rs", source)
    assert (chunk.kind, chunk.symbol, chunk.symbols) == ("impl", "Config", ("Config.fmt",))


def test_local_definitions_are_not_chunks_and_only_functions_are_named_outer_inner() -> None:
    source = """
    def outer():
        def helper():
            return 1

        class Local:
            pass

        return helper()
    """
    (chunk,) = chunks_of("a.py", source, config=SPLIT)
    assert chunk.symbols == ("outer", "outer.helper")
    assert "helper" not in chunk.references


# ---- spans: decorators, comments, docstrings ---------------------------------


def test_python_span_takes_comment_decorators_and_docstring() -> None:
    source = """\
    import functools


    # Caches the result; see ADR 12.
    # Second line of the comment.
    @functools.cache
    @trace
    def lookup(key):
        \"\"\"Find a key.\"\"\"
        return key
    """
    chunks = by_symbol(chunks_of("a.py", source))
    assert span(chunks["lookup"]) == (4, 10)


def test_comment_separated_by_a_blank_line_stays_outside() -> None:
    source = """\
    # A banner about the module.

    def lookup(key):
        return key
    """
    chunks = by_symbol(chunks_of("a.py", source))
    assert span(chunks["lookup"]) == (3, 4)
    assert span(chunks[None]) == (1, 1)


def test_trailing_comment_of_the_previous_line_is_not_a_doc_comment() -> None:
    source = """\
    package a

    var x = 1 // trailing
    func F() {}
    """
    chunks = by_symbol(chunks_of("a.go", source))
    assert span(chunks["F"]) == (4, 4)


@pytest.mark.parametrize(
    ("path", "source", "symbol", "expected"),
    [
        pytest.param(
            "a.go",
            """\
            package a

            // Refresh exchanges a token.
            // It never extends an expired one.
            func (s *Service) Refresh() {}
            """,
            "Service.Refresh",
            (3, 5),
            id="go-doc-comment",
        ),
        pytest.param(
            "a.go",
            """\
            package a

            // Session is one user.
            type Session struct {
            \tID string
            }
            """,
            "Session",
            (3, 6),
            id="go-type-doc-comment",
        ),
        pytest.param(
            "a.rs",
            """\
            use std::fmt;

            /// A session.
            /// Expires.
            #[derive(Debug)]
            #[non_exhaustive]
            pub struct Session {
                id: u64,
            }
            """,
            "Session",
            (3, 9),
            id="rust-doc-and-attributes",
        ),
        pytest.param(
            "A.java",
            """\
            package a;

            /**
             * A service.
             */
            @Service
            @Deprecated
            public class A {
            }
            """,
            "A",
            (3, 9),
            id="java-javadoc-and-annotations",
        ),
        pytest.param(
            "a.js",
            """\
            import x from "x";

            /**
             * Sends.
             */
            export async function send() {
              return x;
            }
            """,
            "send",
            (3, 8),
            id="js-jsdoc-export",
        ),
        pytest.param(
            "a.ts",
            """\
            import { Component } from "@angular/core";

            // The root component.
            @Component({
              selector: "app-root",
            })
            export class AppComponent {}
            """,
            "AppComponent",
            (3, 7),
            id="ts-class-decorator",
        ),
    ],
)
def test_doc_comments_and_attributes_belong_to_the_definition(
    path: str, source: str, symbol: str, expected: tuple[int, int]
) -> None:
    chunks = by_symbol(chunks_of(path, source))
    assert span(chunks[symbol]) == expected


def test_ts_member_decorators_belong_to_the_split_member() -> None:
    source = """\
    export class Form {
      name = "";

      @Input()
      // The label shown.
      label: string = "";

      @HostListener("click")
      onClick(): void {
        this.name = "clicked";
      }
    }
    """
    chunks = chunks_of("form.ts", source, config=SPLIT)
    assert [(c.symbol, span(c), c.symbols) for c in chunks] == [
        ("Form", (1, 2), ("Form", "Form.name")),
        ("Form", (4, 6), ("Form.label",)),
        ("Form.onClick", (8, 11), ("Form.onClick",)),
        (None, (12, 12), ()),
    ]
    assert chunks[1].header == chunks[2].header == "export class Form {"


# ---- module-level code ----------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        pytest.param(
            "a.py",
            "import os\n\nDEFAULT_TIMEOUT = 30\nA, B = 1, 2\nprint(A)\n",
            ("DEFAULT_TIMEOUT", "A", "B"),
            id="python",
        ),
        pytest.param(
            "a.js",
            'export const DEFAULT_TIMEOUT = { ms: 30 };\nlet counter = 0;\nconsole.log("x");\n',
            ("DEFAULT_TIMEOUT", "counter"),
            id="javascript",
        ),
        pytest.param(
            "a.go",
            "package a\n\nconst DefaultTimeout = 30\n\nvar (\n\tA = 1\n\tB = 2\n)\n",
            ("DefaultTimeout", "A", "B"),
            id="go",
        ),
        pytest.param(
            "a.rs",
            'const DEFAULT_TIMEOUT: u32 = 30;\nstatic NAME: &str = "a";\n',
            ("DEFAULT_TIMEOUT", "NAME"),
            id="rust",
        ),
    ],
)
def test_module_constants_are_symbols_of_a_module_chunk(
    path: str, source: str, expected: tuple[str, ...]
) -> None:
    (chunk,) = chunks_of(path, source)
    assert (chunk.kind, chunk.symbol, chunk.symbols) == ("module", None, expected)
    assert chunk.role is Role.DEFINITION


def test_module_code_without_definitions_is_a_call_site() -> None:
    source = """\
    import os

    def main():
        pass

    if __name__ == "__main__":
        main()
    """
    chunks = chunks_of("a.py", source)
    assert [(c.kind, c.role) for c in chunks] == [
        ("module", Role.CALL_SITE),
        ("function", Role.DEFINITION),
        ("module", Role.CALL_SITE),
    ]
    assert chunks[-1].references == ("__name__", "main")


def test_long_module_code_is_cut_at_statement_boundaries() -> None:
    source = "".join(f"CONSTANT_{i} = (\n    {i},\n)\n" for i in range(10))
    chunks = chunks_of("a.py", source, config=ChunkerConfig(max_chunk_lines=7))
    assert [span(c) for c in chunks] == [(1, 6), (7, 12), (13, 18), (19, 24), (25, 30)]
    assert chunks[0].symbols == ("CONSTANT_0", "CONSTANT_1")


# ---- roles --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file_role", "expected"),
    [
        (FileRole.SOURCE, Role.DEFINITION),
        (FileRole.VENDORED, Role.DEFINITION),
        (FileRole.BUILD, Role.DEFINITION),
        (FileRole.TEST, Role.TEST),
        (FileRole.DOCS, Role.DOCS),
        (FileRole.CONFIGURATION, Role.CONFIGURATION),
        (FileRole.GENERATED, Role.GENERATED),
        (FileRole.MIGRATION, Role.MIGRATION),
    ],
    ids=str,
)
def test_file_role_decides_the_chunk_role(file_role: FileRole, expected: Role) -> None:
    source = "import os\n\ndef f():\n    return os.sep\n"
    module, function = chunks_of("a.py", source, file_role=file_role)
    assert function.role is expected
    natural_module = Role.CALL_SITE
    assert module.role is (natural_module if expected is Role.DEFINITION else expected)


@pytest.mark.parametrize(
    ("path", "source", "declared", "defined"),
    [
        pytest.param(
            "a.py",
            """
            from abc import ABC, abstractmethod

            class Repo(ABC):
                @abstractmethod
                def get(self, key):
                    '''Fetch.'''

                def size(self):
                    '''Count the items.'''
                    ...

                def keys(self):
                    return list(self.items)
            """,
            {"Repo.get", "Repo.size"},
            {"Repo", "Repo.keys"},
            id="python-abc",
        ),
        pytest.param(
            "a.py",
            """
            from typing import Protocol

            class Store(Protocol):
                def get(self, key: str) -> bytes: ...

                def put(self, key: str) -> None:
                    pass
            """,
            {"Store", "Store.get", "Store.put"},
            set(),
            id="python-protocol",
        ),
        pytest.param(
            "A.java",
            """
            interface Store {
                String get(String key);
                default boolean has(String key) {
                    return get(key) != null;
                }
            }
            abstract class Base {
                abstract void close();
                void open() {
                    connect();
                }
            }
            """,
            {"Store", "Store.get", "Base.close"},
            {"Store.has", "Base", "Base.open"},
            id="java",
        ),
        pytest.param(
            "a.ts",
            """
            abstract class Base {
              abstract close(): void;
              open(): void {
                this.connect();
              }
            }
            type Id = string;
            interface Shape {
              area(): number;
            }
            declare function f(x: number): void;
            """,
            {"Base.close", "Id", "Shape", "f"},
            {"Base", "Base.open"},
            id="typescript",
        ),
        pytest.param(
            "a.rs",
            """
            trait Shape {
                fn area(&self) -> f64;
                fn describe(&self) -> String {
                    format!("{}", self.area())
                }
            }
            """,
            {"Shape", "Shape.area"},
            {"Shape.describe"},
            id="rust-trait",
        ),
        pytest.param(
            "a.go",
            """
            package a

            type Shape interface {
            \tArea() float64
            \tPerimeter() float64
            }

            type Alias = Shape

            type Square struct {
            \tSide float64
            }
            """,
            {"Shape", "Alias"},  # a Go interface has no body node: never split
            {"Square"},
            id="go",
        ),
    ],
)
def test_declarations_and_definitions(
    path: str, source: str, declared: set[str], defined: set[str]
) -> None:
    chunks = chunks_of(path, source, config=SPLIT)
    roles = {c.symbol: c.role for c in chunks if c.symbol and c.kind != "module"}
    assert {s for s, r in roles.items() if r is Role.DECLARATION} == declared
    assert {s for s, r in roles.items() if r is Role.DEFINITION} >= defined


@pytest.mark.parametrize(
    ("path", "declaration_path", "source"),
    [
        ("api.py", "api.pyi", "import os\n\nclass Client:\n    def send(self) -> int: ...\n"),
        (
            "api.ts",
            "api.d.ts",
            "export const VERSION = '1';\n\nexport class Client {\n  send(): number;\n}\n",
        ),
    ],
    ids=["pyi", "d.ts"],
)
def test_declaration_files_declare_everything(
    path: str, declaration_path: str, source: str
) -> None:
    normal = chunks_of(path, source)
    declared = chunks_of(declaration_path, source)
    assert [span(c) for c in normal] == [span(c) for c in declared]
    assert all(c.role is Role.DECLARATION for c in declared)
    assert any(c.role is not Role.DECLARATION for c in normal)


# ---- long definitions ------------------------------------------------------------


def test_long_function_is_cut_into_pieces_that_share_its_symbol() -> None:
    body = "".join(f"    step_{i}(value)\n" for i in range(40))
    source = f"def process(value):\n{body}    return value\n"
    config = ChunkerConfig(max_chunk_lines=10, long_definition_factor=3)
    chunks = chunks_of("a.py", source, config=config)
    assert [c.kind for c in chunks] == ["function", "window", "window", "window", "window"]
    assert {c.symbol for c in chunks} == {"process"}
    assert chunks[0].header == ""
    assert all(c.header == "def process(value):" for c in chunks[1:])
    assert chunks[0].symbols == ("process",)
    assert all(c.symbols == () for c in chunks[1:])
    assert all(c.end_line - c.start_line + 1 <= 10 for c in chunks)
    assert "step_39" in chunks[-1].references


def test_function_under_the_long_limit_stays_whole() -> None:
    body = "".join(f"    step_{i}()\n" for i in range(25))
    chunks = chunks_of("a.py", f"def process():\n{body}", config=ChunkerConfig(max_chunk_lines=10))
    assert [(c.kind, span(c)) for c in chunks] == [("function", (1, 26))]


def test_large_class_split_keeps_leading_short_members_in_its_header() -> None:
    methods = "".join(
        f"    def method_{i}(self):\n        a = {i}\n        return a\n\n" for i in range(6)
    )
    source = (
        "class Big:\n"
        "    '''Docs.'''\n"
        "    limit = 3\n\n"
        "    def __repr__(self): return 'Big'\n\n" + methods + "    def tail(self): pass\n"
    )
    chunks = chunks_of("big.py", source, config=ChunkerConfig(max_chunk_lines=12))
    assert chunks[0].symbols == ("Big", "Big.limit", "Big.__repr__")
    assert [c.symbol for c in chunks[1:]] == [f"Big.method_{i}" for i in range(6)] + ["Big.tail"]


def test_java_class_split_leaves_its_closing_brace_out_of_the_last_member() -> None:
    source = """\
    public class A {
        private int x;

        void first() {
            x = 1;
        }

        void second() {
            x = 2;
        }
    }
    """
    chunks = chunks_of("A.java", source, config=ChunkerConfig(max_chunk_lines=5))
    assert [(c.symbol, span(c)) for c in chunks] == [
        ("A", (1, 2)),
        ("A.first", (4, 6)),
        ("A.second", (8, 10)),
        (None, (11, 11)),
    ]
    assert chunks[1].header == "public class A {"


# ---- references ---------------------------------------------------------------


def test_references_are_used_names_minus_defined_ones() -> None:
    source = """
    def create_session(store, user):
        token = make_token(user)
        store.save(token)
        return Session(user, token)
    """
    (chunk,) = chunks_of("a.py", source)
    assert chunk.references == ("Session", "make_token", "save", "store", "token", "user")
    assert "create_session" not in chunk.references


def test_references_cap_keeps_calls_first() -> None:
    names = " + ".join(f"v{i:02d}" for i in range(30))
    source = f"def f():\n    return zz_call() + {names}\n"
    config = ChunkerConfig(max_references=5)
    (chunk,) = chunks_of("a.py", source, config=config)
    assert chunk.references == ("v00", "v01", "v02", "v03", "zz_call")


# ---- invariants -----------------------------------------------------------------


def test_definitions_sharing_a_line_stay_in_one_chunk() -> None:
    source = "function a() { return 1; } function b() {\n  return 2;\n}\nconst c = 3;\n"
    chunks = chunks_of("a.js", source)
    assert [(span(c), c.symbols) for c in chunks] == [((1, 3), ("a", "b")), ((4, 4), ("c",))]


def test_empty_and_blank_files_have_no_chunks() -> None:
    assert chunk_file("a.py", "", file_role=FileRole.SOURCE).chunks == ()
    assert chunk_file("a.go", "\n\n  \n", file_role=FileRole.SOURCE).chunks == ()


def test_mostly_broken_file_falls_back_to_windows() -> None:
    source = "".join(f"def ((( {i} ]]] !!\n" for i in range(50))
    result = chunk_file("broken.py", source, file_role=FileRole.SOURCE)
    assert not result.parse_ok
    assert result.language == "python"
    assert {c.kind for c in result.chunks} == {"window"}
    assert {c.role for c in result.chunks} == {Role.CALL_SITE}


def test_a_few_errors_keep_structure() -> None:
    source = "def good():\n    return 1\n\ndef bad(:\n    pass\n\ndef also_good():\n    return 2\n"
    result = chunk_file("a.py", source, file_role=FileRole.SOURCE)
    assert result.parse_ok
    assert {"good", "also_good"} <= {s for c in result.chunks for s in c.symbols}


def test_crlf_and_non_ascii_text_keep_line_numbers() -> None:
    source = "# café ünïcode\r\nNAME = 'ß'\r\n\r\ndef f():\r\n    return 'ü'\r\n"
    chunks = chunks_of("a.py", source)
    assert [(span(c), c.symbol) for c in chunks] == [((1, 2), None), ((4, 5), "f")]
    assert chunks[1].text == "def f():\r\n    return 'ü'\r"
