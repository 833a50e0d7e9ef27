"""Code marked deprecated beside the code that replaced it: a deprecated class repeats the
names and messages of its successor (commons-cli's deprecated ``Parser`` and the
``DefaultParser`` that replaced it both define ``checkRequiredOptions`` and throw
"Missing required option"), so unless the query asks about old code, names it qualified
or a trace frame points into it, the current code answers first."""

from __future__ import annotations

from pathlib import Path

from codegold.index.store import LoadedIndex
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import _DEPRECATED_MARK, HybridRetriever, _prelude
from codegold.retrieve.query import analyze
from tests.retrieve._index import index_files


def _filler(name: str) -> str:
    """Members enough to make the class longer than a chunk, so it is split per member."""
    return "".join(
        f"""
    /**
     * Returns the {name} value number {n}.
     */
    public int get{name}{n}() {{
        int value = {n};
        value += {n};
        return value;
    }}
"""
        for n in range(12)
    )


# shaped like commons-cli 1.11 src/main/java/org/apache/commons/cli/Parser.java
PARSER = (
    """package org.apache.commons.cli;

import java.util.List;

/**
 * Creates {@link CommandLine} instances.
 *
 * @deprecated Since 1.3, the two-pass parsing with the flatten method is not enough flexible.
 */
@Deprecated
public abstract class Parser implements CommandLineParser {

    private Options options;

    /**
     * Throws a {@link MissingOptionException} if all of the required options are not present.
     * Checks the required options and their groups: each missing required option is
     * reported, and the missing required options make the exception message.
     *
     * @throws MissingOptionException if any of the required Options are not present.
     */
    protected void checkRequiredOptions() throws MissingOptionException {
        // if there are required options that have not been processed
        if (!getRequiredOptions().isEmpty()) {
            throw new MissingOptionException(getRequiredOptions());
        }
    }

    protected List getRequiredOptions() {
        return options.getRequiredOptions();
    }
"""
    + _filler("Alpha")
    + "}\n"
)

# shaped like commons-cli 1.11 src/main/java/org/apache/commons/cli/DefaultParser.java
DEFAULT_PARSER = (
    """package org.apache.commons.cli;

import java.util.List;

/**
 * Default parser.
 */
public class DefaultParser implements CommandLineParser {

    private List expectedOpts;

    /**
     * Throws a {@link MissingOptionException} when some expected option was not seen.
     */
    protected void checkRequiredOptions() throws MissingOptionException {
        if (!expectedOpts.isEmpty()) {
            throw new MissingOptionException(expectedOpts);
        }
    }

    /**
     * Handles the following tokens.
     *
     * @deprecated Use {@link #handleToken(String)}.
     */
    @Deprecated
    protected void handleOldToken(String token) {
        handleToken(token);
    }

    protected void handleToken(String token) {
        expectedOpts.remove(token);
    }
"""
    + _filler("Beta")
    + "}\n"
)

FILES = {
    "src/main/java/org/apache/commons/cli/Parser.java": PARSER,
    "src/main/java/org/apache/commons/cli/DefaultParser.java": DEFAULT_PARSER,
}


def _ranked_symbols(index: LoadedIndex, ranked: list[tuple[int, float]]) -> list[str]:
    return [
        f"{index.chunks[row].file.rsplit('/', 1)[-1]}:{index.chunks[row].symbol}"
        for row, _ in ranked
    ]


def _rank(symbols: list[str], wanted: str) -> int:
    return symbols.index(wanted)


OLD = "Parser.java:Parser.checkRequiredOptions"
NEW = "DefaultParser.java:DefaultParser.checkRequiredOptions"


def test_a_deprecated_class_waits_for_the_code_that_replaced_it(tmp_path: Path) -> None:
    index = index_files(tmp_path, FILES)
    query = "where are the missing required options checked and reported?"
    off = HybridRetriever(index, RetrieverConfig(deprecated_factor=1.0)).search(query)
    before = _ranked_symbols(index, off.ranked)
    assert _rank(before, OLD) < _rank(before, NEW)  # the legacy copy says more of it
    after = _ranked_symbols(index, HybridRetriever(index, RetrieverConfig()).search(query).ranked)
    assert _rank(after, NEW) < _rank(after, OLD)


def test_a_trace_through_the_current_class_puts_the_deprecated_twin_below(
    tmp_path: Path,
) -> None:
    index = index_files(tmp_path, FILES)
    query = (
        "org.apache.commons.cli.MissingOptionException: Missing required options: i, o\n"
        "\tat org.apache.commons.cli.DefaultParser.checkRequiredOptions(DefaultParser.java:19)\n"
        "\tat com.example.Tool.main(Tool.java:41)\n"
    )
    off = HybridRetriever(index, RetrieverConfig(deprecated_factor=1.0)).search(query)
    on = HybridRetriever(index, RetrieverConfig()).search(query)
    before = _ranked_symbols(index, off.ranked)
    after = _ranked_symbols(index, on.ranked)
    assert after[0] == NEW
    assert _rank(after, OLD) > _rank(before, OLD)


def test_asking_about_old_code_or_naming_it_keeps_the_deprecated_class(tmp_path: Path) -> None:
    index = index_files(tmp_path, FILES)
    retriever = HybridRetriever(index, RetrieverConfig())
    legacy = _ranked_symbols(
        index, retriever.search("how did the deprecated parser check required options").ranked
    )
    assert _rank(legacy, OLD) < _rank(legacy, NEW)
    named = retriever.search("Parser.checkRequiredOptions")
    row = named.ranked[0][0]
    assert "deprecated" not in named.explanations[row].factors


def test_a_deprecated_member_of_a_current_class_is_not_a_twin(tmp_path: Path) -> None:
    """A deprecated member of a current class is often the code that still runs (JUnit's
    ``BlockJUnit4ClassRunner.validateInstanceMethods``): by default it keeps its place."""
    index = index_files(tmp_path, FILES)
    retriever = HybridRetriever(index, RetrieverConfig())
    rows = {f"{c.file.rsplit('/', 1)[-1]}:{c.symbol}": row for row, c in enumerate(index.chunks)}
    marks = {name: retriever._marked_deprecated(row) for name, row in rows.items()}
    asked = analyze("how is a token handled")
    assert (
        retriever._deprecation(rows["DefaultParser.java:DefaultParser.handleOldToken"], asked)
        == 1.0
    )
    assert retriever._deprecation(rows[OLD], asked) == RetrieverConfig().deprecated_factor
    assert marks[OLD] == "type"  # its class is deprecated
    assert marks["Parser.java:Parser"] == "type"
    assert marks["DefaultParser.java:DefaultParser.handleOldToken"] == "member"
    assert marks[NEW] is None
    assert marks["DefaultParser.java:DefaultParser.handleToken"] is None
    assert marks["DefaultParser.java:DefaultParser"] is None  # a member's mark is not its own


def test_the_lead_in_stops_at_the_declaration() -> None:
    go = (
        "// Options configures a client.\n//\n// Deprecated: use Config.\n"
        "type Options struct {\n\t// Deprecated: unused.\n\tTimeout int\n}\n"
    )
    assert _DEPRECATED_MARK.search(_prelude(go))
    current = (
        "// Config configures a client.\ntype Config struct {\n\t// Deprecated: x.\n\tA int\n}\n"
    )
    assert not _DEPRECATED_MARK.search(_prelude(current))
    rust = '#[deprecated(since = "0.2", note = "use `next`")]\npub fn old() {}\n'
    assert _DEPRECATED_MARK.search(_prelude(rust))
    inline = "@Deprecated public class Old {\n    @Deprecated void x() {}\n}\n"
    assert _DEPRECATED_MARK.search(_prelude(inline))
    assert not _DEPRECATED_MARK.search(
        _prelude("public class New {\n    @Deprecated void x() {}\n}\n")
    )
