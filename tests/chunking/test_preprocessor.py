"""C and C++ preprocessor conditionals that split braces: one chunk per definition.

A function whose header is chosen by ``#ifdef`` (two signatures, one body) used to
leave most of its file under ERROR nodes, and the file fell back to unnamed windows.
"""

from __future__ import annotations

import textwrap

from codegold.chunking import Chunk, ChunkerConfig, chunk_file
from codegold.chunking.preprocessor import blank_macro_comments, resolve_conditionals
from codegold.corpus.model import FileRole
from codegold.roles import Role

TWO_SIGNATURES = """\
#include <stdio.h>

#ifdef WIN32
int umain(int argc, char* argv[]);

int wmain(int argc, wchar_t* wargv[]) {
  char **argv = to_utf8(argc, wargv);
  return umain(argc, argv);
}

int umain(int argc, char* argv[]) {
#else /*}*/
int main(int argc, char* argv[]) {
#endif
  int ret = 0;
  for (int i = 1; i < argc; i++) {
    if (isoption(argv[i], 'h', "help")) {
      usage(0);
    }
  }
  return ret;
}

static void usage(int code) {
  exit(code);
}
"""


def chunks_of(path: str, source: str, config: ChunkerConfig | None = None) -> tuple[Chunk, ...]:
    kwargs = {"config": config} if config is not None else {}
    result = chunk_file(path, textwrap.dedent(source), file_role=FileRole.SOURCE, **kwargs)
    assert result.parse_ok
    return result.chunks


def test_two_signatures_one_body_is_one_definition_with_both_names() -> None:
    chunks = chunks_of("src/main.c", TWO_SIGNATURES)
    (main,) = [c for c in chunks if "main" in c.symbols]
    assert (main.start_line, main.end_line) == (11, 22)
    assert main.symbol == "main"
    assert main.symbols == ("main", "umain")
    assert main.role is Role.DEFINITION and main.kind == "function"
    assert "isoption" in main.references
    by_symbol = {c.symbol: c for c in chunks}
    assert (by_symbol["wmain"].start_line, by_symbol["wmain"].end_line) == (6, 9)
    assert by_symbol["usage"].role is Role.DEFINITION
    # Nothing is left out of the chunks.
    covered = {n for c in chunks for n in range(c.start_line, c.end_line + 1)}
    lines = TWO_SIGNATURES.split("\n")
    assert all(n in covered for n, text in enumerate(lines, 1) if text.strip())


def test_a_long_function_split_keeps_its_signature_piece_named() -> None:
    body = "".join(f"  step({n});\n" for n in range(30))
    source = TWO_SIGNATURES.replace("  int ret = 0;\n", "  int ret = 0;\n" + body)
    chunks = chunks_of("src/main.c", source, ChunkerConfig(max_chunk_lines=10))
    pieces = [c for c in chunks if c.symbol == "main"]
    assert len(pieces) > 2
    first = pieces[0]
    assert first.start_line == 11 and first.kind == "function"
    assert set(first.symbols) == {"main", "umain"}
    assert all(p.role is Role.DEFINITION for p in pieces)
    assert all(p.kind == "window" and "int main" in p.header for p in pieces[1:])


def test_resolution_keeps_bytes_and_offsets() -> None:
    source = TWO_SIGNATURES.encode()
    resolution = resolve_conditionals(source)
    assert resolution is not None
    assert len(resolution.source) == len(source)
    assert resolution.source.count(b"\n") == source.count(b"\n")
    # Directives and the first branch's open header are blanked; wmain stays.
    assert b"#ifdef" not in resolution.source and b"umain(int argc, char* argv[]) {" not in (
        resolution.source
    )
    assert b"int wmain(" in resolution.source
    (alternative,) = resolution.alternatives
    assert alternative.text == "int umain(int argc, char* argv[]) {"


def test_balanced_conditionals_are_left_alone() -> None:
    source = b"#ifdef X\nint f(void) { return 1; }\n#else\nint f(void) { return 0; }\n#endif\n"
    assert resolve_conditionals(source) is None
    names = [c.symbol for c in chunks_of("src/f.c", source.decode())]
    assert names.count("f") == 2


def test_extern_c_guards_in_a_header_are_blanked_together() -> None:
    source = """\
    #ifdef __cplusplus
    extern "C" {
    #endif

    int ring_push(ring *r, int value);

    #ifdef __cplusplus
    }
    #endif
    """
    chunks = chunks_of("include/ring.h", source)
    (push,) = [c for c in chunks if "ring_push" in c.symbols]
    assert push.role is Role.DECLARATION and push.start_line == 5


def test_braces_in_comments_strings_and_directives_do_not_count() -> None:
    source = b"#if A\nconst char *s = \"{\";\n/* { */\n#define OPEN {\nchar c = '}';\n#endif\n"
    assert resolve_conditionals(source) is None


def test_a_multi_line_function_macro_is_a_definition_of_its_own() -> None:
    source = """\
    #define ONE 1
    #define jv_array_foreach(a, i, x) \\
      for (int i = 0, jv_len__ = jv_array_length(jv_copy(a)); \\
           i < jv_len__ && (x = jv_array_get(jv_copy(a), i), 1); i++)
    #define jq_exit(r) exit(r > 0 ? r : 0)
    """
    chunks = chunks_of("src/jv.h", source)
    by_symbol = {c.symbol: c for c in chunks}
    macro = by_symbol["jv_array_foreach"]
    assert (macro.start_line, macro.end_line, macro.kind) == (2, 4, "function")
    assert macro.role is Role.DEFINITION
    # One-line macros stay names of the module chunk they sit in.
    assert "jq_exit" in {name for c in chunks for name in c.symbols}
    assert "jq_exit" not in by_symbol


def test_cpp_class_with_member_prototypes_is_a_declaration() -> None:
    header = chunks_of(
        "include/bucket.hpp",
        """\
        class TokenBucket {
         public:
          explicit TokenBucket(double rate);
          bool TryAcquire(double tokens);
         private:
          double tokens_;
        };

        struct Stats {
          long granted = 0;
        };
        """,
    )
    body = chunks_of(
        "src/bucket.cpp",
        """\
        bool TokenBucket::TryAcquire(double tokens) {
          return tokens_ >= tokens;
        }
        """,
    )
    (declared,) = [c for c in header if c.symbol == "TokenBucket"]
    assert declared.role is Role.DECLARATION
    assert {"TokenBucket.TryAcquire", "TokenBucket.TokenBucket"} <= set(declared.symbols)
    (stats,) = [c for c in header if c.symbol == "Stats"]
    assert stats.role is Role.DEFINITION
    (defined,) = [c for c in body if c.symbol == "TokenBucket.TryAcquire"]
    assert defined.role is Role.DEFINITION


def test_a_constant_longer_than_a_chunk_is_cut_with_its_name_on_every_piece() -> None:
    rows = "".join(f'    (&["lang{n}"], &["*.l{n}"]),\n' for n in range(30))
    source = (
        "/// Types ripgrep knows.\n"
        f"pub(crate) const DEFAULT_TYPES: &[(&[&str], &[&str])] = &[\n{rows}];\n\n"
        "fn short() {}\n"
    )
    config = ChunkerConfig(max_chunk_lines=10)
    chunks = chunk_file("src/types.rs", source, file_role=FileRole.SOURCE, config=config).chunks
    pieces = [c for c in chunks if c.symbol == "DEFAULT_TYPES"]
    assert len(pieces) >= 3
    assert pieces[0].start_line == 1 and pieces[0].symbols == ("DEFAULT_TYPES",)
    assert pieces[-1].end_line == 33
    assert all(p.role is Role.DEFINITION for p in pieces)
    assert all("const DEFAULT_TYPES" in p.header for p in pieces[1:])
    # A constant that fits stays a name of the module chunk it sits in.
    small = chunk_file("src/types.rs", source, file_role=FileRole.SOURCE).chunks
    assert [c.symbol for c in small if "DEFAULT_TYPES" in c.symbols] == [None]


def test_alternative_statement_heads_keep_the_function_parsed() -> None:
    # Two `if (…)` heads for one body (jq's strptime), and the autoconf alloca idiom.
    source = """\
    #ifdef __cplusplus
    extern "C"
    #endif
    void *alloca (size_t);

    static int to_local(time_t sse, struct tm *tm) {
      int bad = 0;
    #ifdef _WIN32
      if (localtime_s(tm, &sse))
    #else
      if (localtime_r(&sse, tm) == NULL)
    #endif
        bad = 1;
      return bad;
    }

    static int
    #ifdef _WIN32
    platform_open(const wchar_t *path)
    #else
    platform_open(const char *path)
    #endif
    {
      return 0;
    }
    """
    resolution = resolve_conditionals(textwrap.dedent(source).encode())
    assert resolution is not None
    assert b"localtime_s" not in resolution.source and b"localtime_r" in resolution.source
    assert b'extern "C"' not in resolution.source
    chunks = chunks_of("src/util.c", source)
    by_symbol = {c.symbol: c for c in chunks}
    assert by_symbol["alloca"].role is Role.DECLARATION
    assert (by_symbol["to_local"].start_line, by_symbol["to_local"].end_line) == (6, 15)
    assert "localtime_s" in by_symbol["to_local"].text
    assert (by_symbol["platform_open"].start_line, by_symbol["platform_open"].end_line) == (17, 25)
    assert by_symbol["platform_open"].role is Role.DEFINITION


ALTERNATIVE_INITIALISERS = """\
#define DECPMAX 16

// The size varies with the format.
static uByte allnines[DECPMAX]=
#if SINGLE
  {9, 9, 9, 9, 9, 9, 9};
#elif DOUBLE
  {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};
#endif

static decFloat * decFinalize(decFloat *df, bcdnum *num,
                              decContext *set) {
  uByte *ub;
  return df;
}

static void
Bfree(struct ctx* C, Bigint *v)
{
  if (v) {
    if (v->k > Kmax)
#ifdef FREE
      FREE((void*)v);
#else
      free((void*)v);
#endif
    else {
      v->next = C->freelist[v->k];
    }
  }
}

decFloat * decFloatZero(decFloat *df) {
  return df;
}
"""


def test_alternative_statement_ends_keep_the_file_structural() -> None:
    """``x =`` then ``#if A {…}; #elif B {…}; #endif`` (and an ``if (…)`` whose body is
    chosen by ``#ifdef``): each branch finishes the open statement; the parser reads the
    first one, and every function after it is a chunk."""
    chunks = chunks_of("src/decCommon.c", ALTERNATIVE_INITIALISERS)
    names = {c.symbol: c for c in chunks if c.symbol}
    assert {"decFinalize", "Bfree", "decFloatZero"} <= set(names)
    assert (names["decFinalize"].start_line, names["decFinalize"].end_line) == (11, 15)
    assert (names["Bfree"].start_line, names["Bfree"].end_line) == (17, 31)
    assert any("allnines" in c.symbols for c in chunks)
    resolution = resolve_conditionals(ALTERNATIVE_INITIALISERS.encode())
    assert resolution is not None
    parsed = resolution.source.decode().split("\n")
    assert parsed[5].strip() == "{9, 9, 9, 9, 9, 9, 9};"  # the first branch is read
    assert not parsed[7].strip() and not parsed[24].strip()  # the others are blanked
    assert resolution.alternatives == ()


def test_bare_macro_lines_are_blanked_and_lead_their_definition() -> None:
    source = """\
#include "parser.h"

YY_ATTRIBUTE_UNUSED
static int
yy_location_print_ (FILE *yyo, YYLTYPE const * const yylocp)
{
  return 0;
}

enum kind {
  KIND_FIRST,
  KIND_LAST
};
"""
    resolution = resolve_conditionals(source.encode())
    assert resolution is not None
    assert resolution.macro_rows == frozenset({2})  # not KIND_LAST, an enumerator
    chunks = chunks_of("src/parser.c", source)
    (function,) = [c for c in chunks if c.symbol == "yy_location_print_"]
    assert (function.start_line, function.end_line) == (3, 8)
    assert any({"kind.KIND_FIRST", "kind.KIND_LAST"} <= set(c.symbols) for c in chunks)


def test_a_macro_line_that_is_the_type_of_the_declarator_below_it_is_kept() -> None:
    # libyaml's style: the exported return type is a macro on its own line
    source = """\
#include "yaml_private.h"

YAML_DECLARE(int)
yaml_emitter_open(yaml_emitter_t *emitter);

YAML_DECLARE(int)
yaml_emitter_open(yaml_emitter_t *emitter)
{
    assert(emitter);
    return 1;
}

EXPORT_API
*make_buffer(size_t size)
{
    return malloc(size);
}
"""
    resolution = resolve_conditionals(source.encode())
    assert resolution is None or resolution.macro_rows == frozenset()
    chunks = chunks_of("src/dumper.c", source)
    (definition,) = [c for c in chunks if c.symbol == "yaml_emitter_open" and c.end_line == 11]
    assert definition.start_line == 6
    assert any(c.symbol == "make_buffer" for c in chunks)


def test_a_statement_macro_inside_a_body_is_blanked_before_a_keyword_or_a_call() -> None:
    # bison's parser.c: the macro opens a pragma region inside a function body
    source = """\
static void
yydestruct (const char *yymsg, int yykind)
{
  YY_USE (yymsg);
  YY_IGNORE_MAYBE_UNINITIALIZED_BEGIN
  switch (yykind)
    {
    default:
      break;
    }
  YY_IGNORE_MAYBE_UNINITIALIZED_END
}

void
yyrun (void)
{
  YY_IGNORE_USELESS_CAST_BEGIN
  yystep (0);
  YY_IGNORE_USELESS_CAST_END
}
"""
    resolution = resolve_conditionals(source.encode())
    assert resolution is not None
    assert resolution.macro_rows == frozenset({4, 16})  # an _END before "}" stays
    names = {name for c in chunks_of("src/parser.c", source) for name in c.symbols}
    assert names == {"yydestruct", "yyrun"}


def test_argument_list_macro_prototypes_lose_the_macro_at_the_same_offsets() -> None:
    """``int deflate OF((z_streamp strm, int flush));`` (zlib 1.2.11) parses with the
    macro as the function's name; the parser reads it with ``OF(`` and its ``)`` turned
    to spaces, every other byte where it was. Macro calls in expressions and
    directives are left alone, and so is an attribute macro after a parameter list
    (jansson's ``JANSSON_ATTRS((warn_unused_result))``)."""
    source = (
        b"ZEXTERN int ZEXPORT deflate OF((z_streamp strm,\n"
        b"                                int flush));\n"
        b"typedef voidpf (*alloc_func) OF((voidpf opaque, uInt items));\n"
        b"#define ML_MASK  ((1U<<ML_BITS)-1)\n"
        b"int f(int p) { return MAX((p), 1); }\n"
        b"int g(int p) { x = ADDR_SIZE((p).sa_len, 2); }\n"
        b"json_t *json_pack(const char *fmt, ...) JANSSON_ATTRS((warn_unused_result));\n"
    )
    resolution = resolve_conditionals(source)
    assert resolution is not None
    out = resolution.source
    assert len(out) == len(source)
    lines = out.split(b"\n")
    assert lines[0] == b"ZEXTERN int ZEXPORT deflate    (z_streamp strm,"
    assert lines[1] == b"                                int flush) ;"
    assert lines[2] == b"typedef voidpf (*alloc_func)    (voidpf opaque, uInt items) ;"
    assert lines[3:] == source.split(b"\n")[3:]
    names = [c.symbol for c in chunk_file("z.h", source.decode(), file_role=FileRole.SOURCE).chunks]
    assert "deflate" in names and "json_pack" in names and "OF" not in names


def test_catch2_test_cases_and_sections_are_named_by_their_titles() -> None:
    """Catch2's ``TEST_CASE("…") {…}`` reads as a call statement and then a block; the
    block is the test's body, so the test spans both and its sections are named too."""
    source = textwrap.dedent(
        """\
        #include <catch2/catch.hpp>

        TEST_CASE_METHOD(Fixture, "uses the fixture", "[fixture]") {
            REQUIRE(value == 1);
        }

        TEST_CASE("vectors can be sized and resized", "[vector]") {
            std::vector<int> v(5);
            SECTION("resizing bigger changes size and capacity") {
                v.resize(10);
                REQUIRE(v.size() == 10);
            }
        }
        """
    )
    chunks = chunk_file("test/vector.cpp", source, file_role=FileRole.TEST).chunks
    spans = {c.symbol: (c.start_line, c.end_line, c.symbols) for c in chunks if c.symbol}
    assert spans == {
        "uses the fixture": (3, 5, ("uses the fixture",)),
        "vectors can be sized and resized": (
            7,
            13,
            ("vectors can be sized and resized", "resizing bigger changes size and capacity"),
        ),
    }
    assert all(c.role is Role.TEST for c in chunks)


#: htop's CRT.c (3.5.3): ``CRT_init`` ends with an ``#ifdef`` inside an assignment, and
#: libevent's evutil.c ORs flags under ``#ifndef`` in an initialiser (2.1.12).
CONDITIONAL_EXPRESSION_PARTS = """\
void CRT_init(const Settings* settings, bool allowUnicode) {
   CRT_setColors(settings->colorScheme);

   CRT_treeStr =
#ifdef HAVE_LIBNCURSESW
      CRT_utf8 ? CRT_treeStrUtf8 :
#endif
      CRT_treeStrAscii;

   initDegreeSign();
}

static const unsigned int ALL_NONNATIVE_AI_FLAGS =
#ifndef AI_PASSIVE
    EVUTIL_AI_PASSIVE |
#endif
#ifndef AI_CANONNAME
    EVUTIL_AI_CANONNAME |
#endif
    0;

void CRT_done(void) {
   endwin();
}
"""


def test_a_conditional_part_of_an_expression_is_read_as_written() -> None:
    """An ``#ifdef`` without ``#else`` whose branch continues the expression the line
    above leaves open: its directives are blanked, its code kept, and the function
    around it (and every one after it) is parsed."""
    chunks = chunks_of("CRT.c", CONDITIONAL_EXPRESSION_PARTS)
    names = {c.symbol: c for c in chunks if c.symbol}
    assert (names["CRT_init"].start_line, names["CRT_init"].end_line) == (1, 11)
    assert (names["CRT_done"].start_line, names["CRT_done"].end_line) == (22, 24)
    assert any("ALL_NONNATIVE_AI_FLAGS" in c.symbols for c in chunks)
    resolution = resolve_conditionals(CONDITIONAL_EXPRESSION_PARTS.encode())
    assert resolution is not None
    parsed = resolution.source.decode().split("\n")
    assert not parsed[4].strip() and not parsed[6].strip()  # the directives go
    assert parsed[5].strip() == "CRT_utf8 ? CRT_treeStrUtf8 :"  # the branch stays
    assert parsed[14].strip() == "EVUTIL_AI_PASSIVE |"
    assert resolution.alternatives == ()


def test_a_long_two_dimensional_c_table_is_cut_with_its_name_on_every_piece() -> None:
    # htop's CRT.c (3.5.3): `static int CRT_colorSchemes[LAST_COLORSCHEME][…] = {…}`
    # runs 823 lines; its declarator nests two array declarators around the name.
    rows = "".join(f"      [ELEMENT_{n}] = ColorPair(White, Black),\n" for n in range(30))
    source = (
        "const int* CRT_colors;\n\n"
        "static int CRT_colorSchemes[LAST_COLORSCHEME][LAST_COLORELEMENT] = {\n"
        f"   [COLORSCHEME_DEFAULT] = {{\n{rows}   }},\n}};\n\n"
        "void CRT_done(void) {\n   endwin();\n}\n"
    )
    chunks = chunks_of("CRT.c", source, ChunkerConfig(max_chunk_lines=10))
    pieces = [c for c in chunks if c.symbol == "CRT_colorSchemes"]
    assert len(pieces) >= 3
    assert pieces[0].start_line == 3 and pieces[-1].end_line == 36
    assert any("CRT_colors" in c.symbols for c in chunks)


#: http-parser's http_parser.h (v2.9.4), HTTP_ERRNO_MAP shortened: a comment heads each
#: group of entries inside the continued macro.
ERRNO_MAP = """\
/* Map for errno-related constants
 *
 * The provided argument should be a macro that takes 2 arguments.
 */
#define HTTP_ERRNO_MAP(XX)                                           \\
  /* No error */                                                     \\
  XX(OK, "success")                                                  \\
                                                                     \\
  /* Callback-related errors */                                      \\
  XX(CB_message_begin, "the on_message_begin callback failed")       \\
  XX(CB_url, "the on_url callback failed")                           \\
                                                                     \\
  /* Parsing-related errors */                                       \\
  XX(INVALID_EOF_STATE, "stream ended at an unexpected time")        \\
  XX(HEADER_OVERFLOW,                                                \\
     "too many header bytes seen; overflow detected")                \\
  XX(UNKNOWN, "an unknown error occurred")


/* Define HPE_* values for each errno value above */
#define HTTP_ERRNO_GEN(n, s) HPE_##n,
enum http_errno {
  HTTP_ERRNO_MAP(HTTP_ERRNO_GEN)
};
#undef HTTP_ERRNO_GEN
"""


def test_a_comment_inside_a_continued_macro_does_not_end_it() -> None:
    blanked = blank_macro_comments(ERRNO_MAP.encode())
    assert blanked is not None and len(blanked) == len(ERRNO_MAP.encode())
    assert b"Callback-related" not in blanked and b"Map for errno" in blanked
    chunks = chunks_of("http_parser.h", ERRNO_MAP)
    (errno_map,) = [c for c in chunks if c.symbol == "HTTP_ERRNO_MAP"]
    assert (errno_map.start_line, errno_map.end_line) == (1, 17)
    assert "/* Callback-related errors */" in errno_map.text
    assert not [c for c in chunks if 1 < c.start_line <= 17]
    assert "HTTP_ERRNO_GEN" in {name for c in chunks for name in c.symbols}
