"""What may not crowd the cutoff of a question in prose: test and docs chunks for a
question about the code, several chunks of one name, the chunks of the names the
question writes."""

from __future__ import annotations

from pathlib import Path

from codegold.cases.model import Context
from codegold.index.store import LoadedIndex
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import Explanation, HybridRetriever
from codegold.retrieve.query import analyze
from tests.retrieve._index import index_files

ERRORS_GO = """package cli

import "os"

// OsExiter is the function used when the app exits.
var OsExiter = os.Exit

// HandleExitCoder checks if the error fulfills the ExitCoder interface, and if so
// prints the error to stderr and calls OsExiter with the exit code.
func HandleExitCoder(err error) {
	if exitErr, ok := err.(ExitCoder); ok {
		OsExiter(exitErr.ExitCode())
	}
}

// ExitCoder is an error with an exit code.
type ExitCoder interface {
	error
	ExitCode() int
}

type exitError struct {
	message  string
	exitCode int
}

// Exit wraps a message and an exit code into an error.
func Exit(message string, exitCode int) ExitCoder {
	return &exitError{message: message, exitCode: exitCode}
}

// ExitCode returns the exit code of the error.
func (e *exitError) ExitCode() int {
	return e.exitCode
}

// Error returns the message of an exit error.
func (e *exitError) Error() string {
	return e.message
}
"""

ERRORS_TEST_GO = """package cli

import "testing"
""" + "".join(
    f"""
func TestHandleExitCoder_Case{n}(t *testing.T) {{
	called := 0
	OsExiter = func(code int) {{ called = code }}
	HandleExitCoder(Exit("exit coder exit code {n}", {n}))
	if called != {n} {{
		t.Fatalf("exit status mismatch: OsExiter got %d, want exit status {n}", called)
	}}
}}
"""
    for n in range(1, 7)
)


def _roles(index: LoadedIndex, ranked: list[tuple[int, float]], k: int = 5) -> list[str]:
    return [index.chunks[row].role for row, _ in ranked[:k]]


def _after_code(roles: list[str]) -> int:
    """How many test chunks come before the last code chunk."""
    last = max(i for i, role in enumerate(roles) if role != "test")
    return roles[:last].count("test")


def test_tests_do_not_fill_the_cutoff_of_a_question_about_the_code(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"errors.go": ERRORS_GO, "errors_test.go": ERRORS_TEST_GO})
    query = "why would the exit status mismatch"
    # without role factors the tests, which spell the question's words, come first (in
    # a real repository their number does what the role factor cannot undo here)
    off = RetrieverConfig(max_asides=0, max_tooling=-1, code_candidates=0, role_strength=0.0)
    before = HybridRetriever(index, off).search(query)
    roles = _roles(index, before.ranked, 50)
    assert _after_code(roles) >= 2  # what the rule is for
    # tests counted among max_asides: one test among the code, the rest after it
    asides = RetrieverConfig(max_tooling=-1, code_candidates=0, role_strength=0.0)
    after = HybridRetriever(index, asides).search(query)
    kept = _roles(index, after.ranked, 50)
    assert _after_code(kept) == 1
    assert sorted(kept) == sorted(roles)  # nothing dropped
    # by default (max_tooling 0) every test waits for the code
    default = HybridRetriever(index, RetrieverConfig(role_strength=0.0)).search(query)
    assert _after_code(_roles(index, default.ranked, 50)) == 0


def test_a_question_about_tests_keeps_them(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"errors.go": ERRORS_GO, "errors_test.go": ERRORS_TEST_GO})
    query = "which tests check the exit code an exit coder error gives"
    assert analyze(query).intent.value == "test"
    result = HybridRetriever(index, RetrieverConfig()).search(query)
    assert _roles(index, result.ranked).count("test") >= 3


PARSER_JAVA = (
    """package cli;

public class DefaultParser {
    private final boolean allowPartialMatching;
    private boolean skipParsing;
"""
    + "".join(
        f"""
    /**
     * Creates a parser, variant {n}: partial matching of long options on or off.
     */
    public DefaultParser({", ".join(f"boolean flag{i}" for i in range(n))}) {{
        this.allowPartialMatching = {"flag0" if n else "true"};
        this.skipParsing = false;
        this.level{n} = {n};
        this.prefix{n} = "p{n}";
        this.limit{n} = {n} * 2;
        this.count{n} = 0;
        this.total{n} = 0;
        this.width{n} = 80;
        this.depth{n} = 0;
        this.name{n} = null;
        this.owner{n} = null;
    }}
"""
        for n in range(8)
    )
    + """
    /** One token of the command line. */
    private void handleToken(String token) {
        if ("--".equals(token)) {
            // a bare double dash ends the options: the rest are arguments
            skipParsing = true;
        } else if (token.startsWith("-")) {
            handleOption(token);
        } else {
            handleArgument(token);
        }
        this.tokens.add(token);
        this.count = this.count + 1;
    }
}
"""
)


def _place(index: LoadedIndex, ranked: list[tuple[int, float]], name: str, nth: int = 1) -> int:
    seen = 0
    for n, (row, _) in enumerate(ranked, start=1):
        if index.chunks[row].symbol == name:
            seen += 1
            if seen == nth:
                return n
    return 10**6


def _named(index: LoadedIndex, ranked: list[tuple[int, float]], name: str, k: int = 5) -> int:
    return sum(1 for row, _ in ranked[:k] if (index.chunks[row].symbol or "").endswith(name))


def test_a_prose_question_sees_one_chunk_per_name(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"src/DefaultParser.java": PARSER_JAVA})
    ctors = [c for c in index.chunks if c.symbol == "DefaultParser.DefaultParser"]
    assert len(ctors) == 8
    query = "how does DefaultParser treat a bare double dash token"
    old = RetrieverConfig(max_per_symbol_prose=0, max_named=0)
    before = HybridRetriever(index, old).search(query)
    assert _named(index, before.ranked, "DefaultParser.DefaultParser") >= 2
    assert _place(index, before.ranked, "DefaultParser.handleToken") > _place(
        index, before.ranked, "DefaultParser.DefaultParser", 2
    )
    after = HybridRetriever(index, RetrieverConfig()).search(query)
    # the second constructor waits until every other chunk has had its turn
    assert _place(index, after.ranked, "DefaultParser.handleToken") < _place(
        index, after.ranked, "DefaultParser.DefaultParser", 2
    )
    # a bare name keeps max_per_symbol (2): it asks where the name is defined
    bare = HybridRetriever(index, RetrieverConfig()).search("DefaultParser.DefaultParser")
    assert _named(index, bare.ranked, "DefaultParser.DefaultParser") == 2


def test_the_named_names_fill_at_most_max_named_places(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"src/DefaultParser.java": PARSER_JAVA})
    retriever = HybridRetriever(index, RetrieverConfig(max_named=2))
    analysis = analyze("why does DefaultParser keep partial matching on for a bare prefix")
    rows = list(range(len(index.chunks)))
    explanations = {row: Explanation(row) for row in rows}
    for row in rows[:-1]:
        explanations[row].signals["symbol"] = (row + 1, 1.0)  # every chunk but the last
    ranked = [(row, 1.0 - row / 100) for row in rows]
    out = retriever._diversify(ranked, analysis, explanations)
    assert [row for row, _ in out[:3]][:2] == rows[:2]
    assert out[2][0] == rows[-1]  # the one chunk the question did not name, third
    assert sorted(row for row, _ in out) == rows  # nothing dropped
    # a bare name is not capped
    bare = retriever._diversify(ranked, analyze("DefaultParser"), explanations)
    assert [row for row, _ in bare][:3] == rows[:3]


#: urfave/cli v3.11.0: flag_int.go, flag_float.go, flag_uint.go and flag_bool.go each
#: implement ``Value.Set``; flag_impl.go's FlagBase.PostParse wraps a Set error with the
#: flag's source ("could not parse ... from environment variable ...")
FLAG_VALUES_GO = {
    f"flag_{kind}.go": f"""package cli

import "strconv"

type {kind}Value struct {{
	destination *{kind}
}}

// Set parses the string and stores the {kind} value.
func (v *{kind}Value) Set(s string) error {{
	parsed, err := strconv.Parse{kind.title()}(s)
	if err != nil {{
		return err
	}}
	*v.destination = {kind}(parsed)
	return nil
}}
"""
    for kind in ("int", "float", "uint", "bool")
}
FLAG_IMPL_GO = """package cli

import "fmt"

type FlagBase struct {
	Name  string
	value Value
}

// PostParse sets the value from the flag's sources, after the command line is parsed.
func (f *FlagBase) PostParse() error {
	if val, source, found := f.Sources.LookupWithSource(); found {
		if err := f.value.Set(val); err != nil {
			return fmt.Errorf("could not parse %q as %s value from %s for flag %s: %s",
				val, f.value.Type(), source, f.Name, err)
		}
	}
	return nil
}
"""


def _go_set_ranking(
    index: LoadedIndex,
) -> tuple[list[str], list[tuple[int, float]], dict[int, Explanation]]:
    """Four receivers' ``Set`` and ``FlagBase.PostParse``, ranked in that order."""
    order = ["intValue.Set", "floatValue.Set", "uintValue.Set", "boolValue.Set"]
    order.append("FlagBase.PostParse")
    by_name = {c.symbol: row for row, c in enumerate(index.chunks) if c.symbol in order}
    rows = [by_name[name] for name in order]
    ranked = [(row, 1.0 - n / 100) for n, row in enumerate(rows)]
    explanations = {row: Explanation(row) for row in rows}
    return order, ranked, explanations


def test_one_go_method_name_fills_at_most_two_places(tmp_path: Path) -> None:
    index = index_files(tmp_path, {**FLAG_VALUES_GO, "flag_impl.go": FLAG_IMPL_GO})
    order, ranked, explanations = _go_set_ranking(index)
    analysis = analyze('could not parse "8080x" as int value from environment variable "PORT"')

    def names(config: RetrieverConfig) -> list[str | None]:
        out = HybridRetriever(index, config)._diversify(ranked, analysis, explanations)
        return [index.chunks[row].symbol for row, _ in out]

    assert names(RetrieverConfig(max_per_go_name=0)) == order
    # two receivers' Set, then the code that is not Set, then the other receivers'
    assert names(RetrieverConfig()) == [
        "intValue.Set",
        "floatValue.Set",
        "FlagBase.PostParse",
        "uintValue.Set",
        "boolValue.Set",
    ]


def test_a_go_method_the_open_file_or_query_points_at_is_not_held_back(tmp_path: Path) -> None:
    # golang-jwt request/oauth2.go builds a MultiExtractor; its ExtractToken is the
    # third of request/extractor.go's and the one asked for
    opened = "package cli\n\nvar Port = &uintValue{destination: new(uint)}\n"
    files = {**FLAG_VALUES_GO, "flag_impl.go": FLAG_IMPL_GO, "port.go": opened}
    index = index_files(tmp_path, files)
    _, ranked, explanations = _go_set_ranking(index)
    retriever = HybridRetriever(index, RetrieverConfig())

    def names(query: str, context: Context | None = None) -> list[str | None]:
        out = retriever._diversify(ranked, analyze(query), explanations, context)
        return [index.chunks[row].symbol for row, _ in out]

    query = "Set that parses the value from the environment"
    held = ["intValue.Set", "floatValue.Set", "FlagBase.PostParse", "uintValue.Set"]
    assert names(query) == [*held, "boolValue.Set"]
    # the open file uses uintValue: its Set keeps its place
    assert names(query, Context(open_file="port.go")) == [
        "intValue.Set",
        "floatValue.Set",
        "uintValue.Set",
        "FlagBase.PostParse",
        "boolValue.Set",
    ]
    # the query names boolValue: its Set keeps its place, uintValue's waits
    assert names("boolValue Set from the environment") == [
        "intValue.Set",
        "floatValue.Set",
        "boolValue.Set",
        "FlagBase.PostParse",
        "uintValue.Set",
    ]
