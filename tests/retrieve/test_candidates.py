"""Candidate generation and first-stage factors for questions: the callees of a named
function, Rust macro names, names only tests define, HTTP verbs in prose, a Rust
type's impl blocks, and declaration blocks named by their constants."""

from __future__ import annotations

from pathlib import Path

from codegold.index.store import LoadedIndex
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.query import analyze
from tests.retrieve._index import index_files


def _rank(index: LoadedIndex, ranked: list[tuple[int, float]], file: str, symbol: str) -> int:
    for n, (row, _) in enumerate(ranked, start=1):
        chunk = index.chunks[row]
        if chunk.file == file and symbol in (chunk.symbols or (chunk.symbol,)):
            return n
    return 10**6


CONTEXT_GO = """package web

// Context carries one request.
type Context struct {
	Method      string
	contentType string
}

// ShouldBind decodes the request into obj.
func (c *Context) ShouldBind(obj any) error {
	b := binding.Default(c.Method, c.ContentType())
	return c.ShouldBindWith(obj, b)
}

func (c *Context) ContentType() string { return c.contentType }

func (c *Context) ShouldBindWith(obj any, b binding.Binding) error { return b.Bind(obj) }
"""

BINDING_GO = """package binding

// Binding decodes a request body.
type Binding interface{ Bind(obj any) error }

// Default returns the appropriate Binding instance based on the HTTP method
// and the content type.
func Default(method, contentType string) Binding {
	if method == "GET" {
		return Form
	}
	switch contentType {
	case MIMEJSON:
		return JSON
	case MIMEXML, MIMEXML2:
		return XML
	default:
		return Form
	}
}
"""

# many chunks that say JSON, XML and form more often than Default does
NOISE_GO = "package render\n\n" + "\n".join(
    f"// Render{i} picks the JSON binding or the XML binding: JSON binding, XML binding.\n"
    f"func Render{i}(json, xml, form string) string {{ return json + xml + form }}\n"
    for i in range(12)
)


def test_the_callees_of_a_named_function_are_candidates(tmp_path: Path) -> None:
    index = index_files(
        tmp_path,
        {"context.go": CONTEXT_GO, "binding/binding.go": BINDING_GO, "render/render.go": NOISE_GO},
    )
    query = "how does c.ShouldBind pick the JSON or XML binding?"
    on = HybridRetriever(index).search(query)
    off = HybridRetriever(index, RetrieverConfig(w_callee=0.0)).search(query)
    default_row = next(
        r for r, _ in on.ranked if index.chunks[r].symbol == "Default"
    )  # the function ShouldBind calls
    assert "callee" in on.explanations[default_row].signals
    assert all("callee" not in e.signals for e in off.explanations.values())
    with_callees = _rank(index, on.ranked, "binding/binding.go", "Default")
    without = _rank(index, off.ranked, "binding/binding.go", "Default")
    assert with_callees < without
    assert with_callees <= 3
    # a bare identifier asks where it is defined, not what it calls
    bare = HybridRetriever(index).search("Context.ShouldBind")
    assert all("callee" not in e.signals for e in bare.explanations.values())


def test_a_rust_macro_name_is_an_identifier() -> None:
    assert "rgtest" in analyze("where is the rgtest! macro defined").identifiers
    assert "vec" in analyze("why does vec![0; n] allocate twice").identifiers
    # an exclamation in prose is not a macro
    assert "works" not in analyze("it works! but why is it slow").identifiers


def test_http_methods_in_prose_are_not_identifiers() -> None:
    analysis = analyze("why doesn't ky retry my POST request when the server answers 503?")
    assert "POST" not in analysis.identifiers
    assert "post" in analysis.terms  # still a word the lexical signal matches


HELPERS = """def make_fixture_repo(tmp_path):
    \"\"\"A throwaway git repository for tests.\"\"\"
    return tmp_path / "repo"
"""

APP = """def load(path):
    \"\"\"Read the repository at path (tests build one with make_fixture_repo).\"\"\"
    return open(path).read()


def save(path, data):
    with open(path, "w") as f:
        f.write(data)
"""


def test_a_name_only_tests_define_is_answered_by_the_test_code(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"tests/helpers.py": HELPERS, "src/app.py": APP})
    result = HybridRetriever(index).search("where is make_fixture_repo defined?")
    top = result.ranked[0][0]
    assert index.chunks[top].file == "tests/helpers.py"
    assert result.explanations[top].factors["role"] == 1.0


def test_a_name_defined_in_code_keeps_the_test_penalty(tmp_path: Path) -> None:
    both = {
        "tests/helpers.py": HELPERS,
        "src/repo.py": "def make_fixture_repo(path):\n    return path\n",
    }
    index = index_files(tmp_path, both)
    result = HybridRetriever(index).search("where is make_fixture_repo defined?")
    tests_row = next(r for r, _ in result.ranked if index.chunks[r].file == "tests/helpers.py")
    assert result.explanations[tests_row].factors["role"] < 1.0
    assert index.chunks[result.ranked[0][0]].file == "src/repo.py"


UNION_RS = """pub struct Union {
    choices: Vec<u32>,
}

impl Union {
    pub fn build(choices: Vec<u32>) -> Self {
        Union { choices }
    }
}

impl Union {
    pub fn validate_smart(&self, input: u32) -> Option<u32> {
        // smart mode: the first exact match wins, else the first lax match
        self.choices.iter().copied().find(|c| *c == input)
    }
}

impl Union {
    pub fn validate_left_to_right(&self, input: u32) -> Option<u32> {
        // left to right: the first member that validates wins
        self.choices.iter().copied().find(|c| *c >= input)
    }
}
"""

OTHER_RS = """/// A member that validates.
pub fn member_validates(input: u32) -> bool {
    input > 0
}
"""


def test_a_types_impl_blocks_are_diversified_by_the_methods_they_hold(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"src/union.rs": UNION_RS, "src/other.rs": OTHER_RS})
    impls = [c for c in index.chunks if c.kind == "impl" and c.symbol == "Union"]
    assert len(impls) >= 3  # one chunk per impl block, all named by the type
    result = HybridRetriever(index, RetrieverConfig(max_per_symbol=1)).search(
        "how does a smart union pick the first member that validates?"
    )
    assert _rank(index, result.ranked, "src/union.rs", "Union.validate_smart") <= 2


GIN_GO = """package gin

const defaultMultipartMemory = 32 << 20 // 32 MB

var (
	default404Body = []byte("404 page not found")
	default405Body = []byte("405 method not allowed")
)

// Engine is the framework's instance.
type Engine struct {
	// MaxMultipartMemory is given to http.Request's ParseMultipartForm.
	MaxMultipartMemory int64
}
"""

FORM_GO = """package gin

// FormFile returns the first file for the provided form key: it parses the
// multipart form (file uploads) of the request first.
func (c *Context) FormFile(name string) (*multipart.FileHeader, error) {
	if c.Request.MultipartForm == nil {
		if err := c.Request.ParseMultipartForm(c.engine.MaxMultipartMemory); err != nil {
			return nil, err
		}
	}
	return c.Request.MultipartForm.File[name][0], nil
}
"""


def test_a_declarations_block_is_named_by_what_it_declares(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"gin.go": GIN_GO, "context.go": FORM_GO})
    query = "what is the default memory limit for multipart forms?"
    result = HybridRetriever(index, RetrieverConfig(name_match=0.5)).search(query)
    row = next(
        r for r, _ in result.ranked if "defaultMultipartMemory" in (index.chunks[r].symbols or ())
    )
    assert result.explanations[row].factors["name"] == 1.5  # all three parts spelt
    off = HybridRetriever(index, RetrieverConfig(name_match=0.0)).search(query)
    assert "name" not in off.explanations[row].factors


MODELS_PY = '''class Response:
    def __init__(self, content, charset=None):
        self.content = content
        self._charset = charset

    @property
    def text(self):
        """The body decoded to a string."""
        return self.content.decode(self.encoding or "utf-8")

    @property
    def encoding(self):
        """The charset from the headers, else a guess from the body."""
        if self._charset is None:
            return "ascii" if self.content.isascii() else "utf-8"
        return self._charset
''' + "".join(
    f"""
    def header_{i}(self, name):
        \"\"\"Header number {i}, looked up without regard to case.\"\"\"
        for key, value in self.content.splitlines():
            if key.lower() == name.lower():
                return value
        return None
"""
    for i in range(16)  # a class past max_chunk_lines: one chunk per method
)

NOISE_PY = "\n\n".join(
    f'def decode_{i}(data):\n    """Decode text with the server charset from Content-Type."""\n'
    f'    return data.decode("utf-8")'
    for i in range(12)
)


def test_a_named_method_lends_the_members_of_its_object_it_reads(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"pkg/models.py": MODELS_PY, "pkg/codecs.py": NOISE_PY})
    query = "how does response.text choose the encoding when the server sends no charset?"
    result = HybridRetriever(index).search(query)
    row = next(r for r, _ in result.ranked if index.chunks[r].symbol == "Response.encoding")
    assert "callee" in result.explanations[row].signals  # self.encoding: read, not called


def test_a_hyphenated_header_name_in_a_question_is_a_phrase() -> None:
    analysis = analyze("where is the X-Powered-By header added, and how do I switch it off?")
    assert "x-powered-by" in analysis.phrases
    # two-part compounds are English ("single-threaded"), not literals
    assert analyze("why is it single-threaded with --sort path?").phrases == ()


def test_a_why_question_that_mentions_a_test_asks_about_the_code() -> None:
    from codegold.retrieve.query import Intent

    query = "our golden test on cmp.Diff output flakes with non-breaking spaces. Why?"
    assert analyze(query).intent is not Intent.TEST
    assert analyze("how do the tests fake the clock?").intent is Intent.TEST


def test_a_pasted_signature_names_its_types_and_methods_not_its_keywords() -> None:
    analysis = analyze("I defined `func (t *Token) Equal(o *Token) bool` but cmp.Equal ignores it")
    assert {"Token", "Equal", "cmp.Equal"} <= set(analysis.identifiers)
    assert not {"func", "t", "o", "bool"} & set(analysis.identifiers)


SERVER_RB = """class Server
  def port
    Integer(ENV['PORT'] || 4567)
  end

  def bind
    '0.0.0.0'
  end
end
"""

NOTES_RB = "\n".join(
    f"# Note {i}: a variable holding the port of server {i}.\nNOTE_{i} = {i}\n" for i in range(8)
)


def test_a_prose_word_also_finds_the_short_form_code_writes(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"lib/server.rb": SERVER_RB, "lib/notes.rb": NOTES_RB})
    query = "can the server port come from an environment variable?"
    on = HybridRetriever(index).search(query)
    off = HybridRetriever(index, RetrieverConfig(abbreviation_weight=0.0)).search(query)
    assert on.explanations[on.ranked[0][0]].signals["lexical"][1] > 0
    assert _rank(index, on.ranked, "lib/server.rb", "Server.port") == 1
    assert _rank(index, on.ranked, "lib/server.rb", "Server.port") <= _rank(
        index, off.ranked, "lib/server.rb", "Server.port"
    )
    port = next(r for r, _ in on.ranked if "Server.port" in (index.chunks[r].symbols or ()))
    port_off = next(r for r, _ in off.ranked if "Server.port" in (index.chunks[r].symbols or ()))
    # ENV counts, at half the weight of a word the query spells
    assert (
        on.explanations[port].signals["lexical"][1]
        > off.explanations[port_off].signals["lexical"][1]
    )


def test_a_pasted_message_splits_where_its_lines_were_joined() -> None:
    query = (
        "the literal '\"\\n\"' is not allowed in a regex  Consider enabling multiline mode "
        "with the --multiline flag (or -U for short)."
    )
    phrases = analyze(query).phrases
    assert "is not allowed in a regex" in phrases
    assert "consider enabling multiline mode with the --multiline flag" in phrases
    two_lines = analyze("error: cannot open file\nsee the log for details")
    assert "see the log for details" in two_lines.phrases


def test_a_prose_question_prefers_code_that_acts_over_the_type(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"src/union.rs": UNION_RS, "src/other.rs": OTHER_RS})
    result = HybridRetriever(index).search("how does a smart union pick the member that wins?")
    for row, _ in result.ranked:
        chunk = index.chunks[row]
        factors = result.explanations[row].factors
        if chunk.kind == "struct":
            assert factors["shape"] == RetrieverConfig().type_factor < 1.0
        if chunk.kind == "impl":
            assert "shape" not in factors  # impl blocks hold the methods
    named = HybridRetriever(index).search("Union")  # a bare name: the type is the answer
    assert all("shape" not in e.factors for e in named.explanations.values())
    # a question that writes some other name as code still asks what the code does: the
    # struct it does not name is demoted; the struct it names is not
    other = HybridRetriever(index).search(
        "how does validate_smart pick the union member that wins?"
    )
    structs = [row for row, _ in other.ranked if index.chunks[row].kind == "struct"]
    assert structs
    for row in structs:
        assert other.explanations[row].factors.get("shape") == RetrieverConfig().type_factor
    union = HybridRetriever(index).search("how does `Union` pick the member that wins?")
    structs = [row for row, _ in union.ranked if index.chunks[row].kind == "struct"]
    assert structs
    assert all("shape" not in union.explanations[row].factors for row in structs)


def test_a_go_build_constraint_is_read_with_no_custom_tag_set() -> None:
    from codegold.retrieve.hybrid import _constraint_holds

    assert _constraint_holds("!nomsgpack")
    assert not _constraint_holds("nomsgpack")
    assert not _constraint_holds("ignore")
    assert _constraint_holds("linux && amd64") and _constraint_holds("go1.21")
    assert _constraint_holds("!jsoniter && !go_json && !(sonic && (linux || windows))")
    assert not _constraint_holds("go_json")
    assert _constraint_holds("(((")  # unparsable: not judged


DEFAULT_GO = """//go:build !nomsgpack

package binding

// Default picks the binding for a method and content type: JSON, XML or MsgPack.
func Default(method, contentType string) Binding {
	switch contentType {
	case MIMEJSON:
		return JSON
	case MIMEMSGPACK:
		return MsgPack
	}
	return Form
}
"""

NOMSGPACK_GO = """//go:build nomsgpack

package binding

// Default picks the binding for a method and content type: JSON, XML or form.
func Default(method, contentType string) Binding {
	switch contentType {
	case MIMEJSON:
		return JSON
	}
	return Form
}
"""


def test_a_go_file_only_a_custom_tag_builds_ranks_below_the_default_build(
    tmp_path: Path,
) -> None:
    index = index_files(
        tmp_path, {"binding/binding.go": DEFAULT_GO, "binding/binding_nomsgpack.go": NOMSGPACK_GO}
    )
    result = HybridRetriever(index).search("how is the binding picked for a content type?")
    files = [index.chunks[r].file for r, _ in result.ranked]
    assert files.index("binding/binding.go") < files.index("binding/binding_nomsgpack.go")
    tagged = next(r for r, _ in result.ranked if index.chunks[r].file.endswith("nomsgpack.go"))
    assert result.explanations[tagged].factors["build"] == RetrieverConfig().build_tag_factor
    # a question naming the tag asks about that build
    named = HybridRetriever(index).search("how is the binding picked when built with nomsgpack?")
    tagged = next(r for r, _ in named.ranked if index.chunks[r].file.endswith("nomsgpack.go"))
    assert "build" not in named.explanations[tagged].factors


MESSAGES_JS = """'use strict';

exports.messages = {
    'object.base': '{{#label}} must be of type object',
    'object.unknown': '{{#label}} is not allowed',
    'object.missing': '{{#label}} must contain at least one of {{#peers}}'
};
"""

KEYS_JS = """'use strict';

internals.unknown = function (schema, value, errors, prefs) {

    for (const key of Object.keys(value)) {
        if (!schema.$_terms.keys.has(key)) {
            errors.push(schema.$_createError('object.unknown', value[key], { child: key }, prefs));
        }
    }
};
"""

# many chunks that say "validation error" and "allowed" more often than the raise site
NOISE_JS = "'use strict';\n\n" + "\n".join(
    f"// check{i}: a validation error when the value is not one of the allowed values.\n"
    f"exports.check{i} = function check{i}(validation, error, allowed) "
    f"{{ return validation.error(allowed); }};\n"
    for i in range(12)
)


def test_a_pasted_message_from_a_message_table_finds_the_code_raising_its_key(
    tmp_path: Path,
) -> None:
    index = index_files(
        tmp_path,
        {"lib/messages.js": MESSAGES_JS, "lib/keys.js": KEYS_JS, "lib/noise.js": NOISE_JS},
    )
    query = 'ValidationError: "role" is not allowed'
    on = HybridRetriever(index).search(query)
    off = HybridRetriever(index, RetrieverConfig(w_raise=0.0)).search(query)
    raised = _rank(index, on.ranked, "lib/keys.js", "internals.unknown")
    assert raised <= 2
    assert raised < _rank(index, off.ranked, "lib/keys.js", "internals.unknown")
    row = on.ranked[raised - 1][0]
    assert "raise" in on.explanations[row].signals
    assert all("raise" not in e.signals for e in off.explanations.values())


def test_a_message_tables_key_is_read_from_the_entry_or_the_arm_above() -> None:
    from codegold.retrieve.hybrid import _message_key

    def key(line: str, phrase: str, previous: str = "") -> tuple[str, str] | None:
        return _message_key(line[: line.lower().find(phrase)], previous)

    assert key("    'object.unknown': '{{#label}} is not allowed',", "is not allowed") == (
        "quoted",
        "object.unknown",
    )
    assert key('        "unknown": "Unknown field.",', "unknown field") == ("quoted", "unknown")
    assert key(
        '    Self::ExtraForbidden {..} => "Extra inputs are not permitted",', "extra inputs"
    ) == (
        "name",
        "ExtraForbidden",
    )
    assert key('    UNKNOWN_FIELD("Unknown field"),', "unknown field") == ("name", "UNKNOWN_FIELD")
    assert key('    case ERR_DEPTH: return "nesting too deep";', "nesting") == ("name", "ERR_DEPTH")
    assert key('\tErrNotFound = errors.New("not found")', "not found") == ("name", "ErrNotFound")
    # the message on the line below a match arm or case label
    assert key(
        '        f.write_str("key must be a string")',
        "key must be",
        previous="        ErrorCode::KeyMustBeAString => {",
    ) == ("name", "KeyMustBeAString")
    # raising or printing a literal is no table entry
    assert key('    raise ValueError("not found")', "not found") is None
    assert key("    throw new Error('not found')", "not found") is None
    assert key('    f.write_str("not found")', "not found") is None
    assert key('    log.error("not found")', "not found") is None


def _gem_file(i: int) -> str:
    return (
        "module AcmeClient\n"
        f"  # Helper{i}: logging, formatting and encoding helpers for the client\n"
        f"  LEVEL{i} = :info\n\n"
        f"  def self.helper{i}(value)\n"
        f"    value.to_s * {i}\n"
        "  end\n"
        "end\n"
    )


REQUEST_RB = """module AcmeClient
  class Request
    # the parser format for a response, by its mime type
    def format_from_mimetype(mimetype)
      return nil if mimetype.nil?
      SupportedFormats.each { |type, format| return format if mimetype.include?(type) }
      nil
    end
  end
end
"""


def test_a_namespace_every_file_opens_is_no_definition_to_rank(tmp_path: Path) -> None:
    files = {f"lib/acme/helper{i}.rb": _gem_file(i) for i in range(6)}
    files["lib/acme/request.rb"] = REQUEST_RB
    index = index_files(tmp_path, files)
    wrappers = [r for r in index.symbols.definitions("AcmeClient")]
    assert len({index.chunks[r].file for r in wrappers}) > 4
    query = "how does AcmeClient pick the parser format from the response mimetype?"
    result = HybridRetriever(index).search(query)
    assert _rank(index, result.ranked, "lib/acme/request.rb", "Request.format_from_mimetype") == 1
    assert all("symbol" not in result.explanations[r].signals for r in wrappers)
    # a bare name still finds every place that defines it
    bare = HybridRetriever(index).search("AcmeClient")
    assert any("symbol" in bare.explanations[r].signals for r in wrappers)


SESSION_PY = '''def create_session(token):
    """Create a session for an unexpired token."""
    return token


def close_session(session):
    """Close a session."""
    return session
'''
SESSION_TEST = '''def test_create_session_rejects_expired_token():
    """create_session with an expired token: create session fails."""
    assert create_session
'''


def test_candidates_are_the_first_stage_order_the_rerank_stage_receives(tmp_path: Path) -> None:
    """SPEC §2's pre-rerank list: the retrieved rows after the first-stage factors (a
    role preference here), not the fused order, or diagnosis would blame the reranker."""
    index = index_files(
        tmp_path, {"app/session.py": SESSION_PY, "tests/test_session.py": SESSION_TEST}
    )
    query = "what is test_create_session_rejects_expired_token"
    config = RetrieverConfig(
        w_symbol=0.0, role_strength=1.0, role_preferences={"definition": {"test": 0.01}}
    )
    result = HybridRetriever(index, config).search(query)
    files = [index.chunks[r].file for r, _ in result.candidates]
    assert files[-1] == "tests/test_session.py"  # demoted by its role before any rerank
    test_row = next(r for r, _ in result.candidates if index.chunks[r].role == "test")
    assert "role" in result.explanations[test_row].factors
    fused_first = max(result.explanations.values(), key=lambda e: (e.fused, -e.row)).row
    assert index.chunks[fused_first].file == "tests/test_session.py"  # it led the fusion
    scores = [s for _, s in result.candidates]
    assert scores == sorted(scores, reverse=True)
    assert {r for r, _ in result.candidates} == {r for r, _ in result.ranked}
