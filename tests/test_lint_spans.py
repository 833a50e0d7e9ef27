"""`codegold lint` compares labelled lines against the right span: the overload the label
points at, the definition rather than a forward prototype, and the definition's code
rather than the closing lines of its class that the chunker folds into it. Real git
repositories, real tree-sitter parses, a real on-disk index."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from codegold.cases import load_suite
from codegold.corpus.git import GitRepo
from codegold.index.store import LoadedIndex, open_index
from codegold.lint import Check, Finding, Verdict, lint_suites, plan_migration
from codegold.pipeline import index_revisions
from tests.corpus.gitfixture import make_repo


def _java_strings() -> str:
    """A class long enough to be split into member chunks: four overloads of
    ``Strings.split`` (each its own chunk), then ``last``, chunked through the class's
    closing brace."""
    body = ["package demo;", "", "public class Strings {"]
    for i in range(4):
        params = "String s" + ", int n" * i
        body += ["", f"    /** Split {i}. */", f"    public static String[] split({params}) {{"]
        body += [f"        int v{j} = {j};" for j in range(30)]
        body += ["        return null;", "    }"]
    body += ["", "    /** Last. */", "    public static int last(int x) {"]
    body += ["        int y = x;", "        return y;", "    }", "}", ""]
    return "\n".join(body)


STRINGS = _java_strings()
# Strings.split overloads: 5-38, 40-73, 75-108, 110-143 (javadoc to closing brace);
# Strings.last: javadoc 145, signature 146, closing brace 149, the class's brace 150.

PARSER_C = """\
#include <stdio.h>

static int doContent(int parser, int depth);
static int other(int x);

static int other(int x) {
  return x + 1;
}

/* The content processor. */
static int
doContent(int parser, int depth) {
  int a = parser;
  a += depth;
  return a;
}
"""
# doContent: prototype at 3, definition 10-16 (comment 10, body 11-16)


def _ruby_timer() -> str:
    """A Ruby class long enough to be split into member chunks; ``log_time`` is its
    last method (the ``end`` lines of the class and the module are a chunk of their
    own)."""
    lines = ["module Http", "  class Timer", "    def reset"]
    lines += [f"      @v{i} = {i}" for i in range(125)]
    lines += ["    end", "", "    # Logs elapsed time", "    def log_time"]
    lines += ["      @left -= 1", "      reset", "    end", "  end", "end", ""]
    return "\n".join(lines)


TIMER_RB = _ruby_timer()
# Timer.log_time: comment 131, def 132-135, its chunk 131-135 (`end`, `end` 136-137 apart)


def _long_function() -> str:
    """A Python function long enough to be cut into pieces that all carry its name."""
    lines = ["def crunch(x):"] + [f"    x = x + {i}" for i in range(400)] + ["    return x", ""]
    return "\n".join(lines) + "\ndef after():\n    return 1\n"


FILES = {
    "src/demo/Strings.java": STRINGS,
    "src/parser.c": PARSER_C,
    "lib/http/timer.rb": TIMER_RB,
    "app/crunch.py": _long_function(),
}


@dataclass(frozen=True)
class World:
    repo: Path
    sha: str
    indexes: dict[str, LoadedIndex]

    def read_text(self, revision: str, path: str) -> str | None:
        with GitRepo(self.repo) as git:
            data = git.read_path(revision, path)
        return data.decode() if data is not None else None


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("lint-spans")
    repo, (sha,) = make_repo(root, [FILES])
    index = root / "index"
    with GitRepo(repo) as git:
        index_revisions(git, [sha], index, repository_name="demo")
    yield World(repo, sha, {sha: open_index(index, sha)})


def _lines_findings(world: World, tmp_path: Path, target: str) -> list[Finding]:
    path = tmp_path / "gold.yaml"
    path.write_text(
        f"repository: {{name: demo, revision: {world.sha}}}\ncases:\n"
        f"  - id: c\n    query: q\n    accepted: [{target}]\n    rationale: r\n",
        encoding="utf-8",
    )
    report = lint_suites([load_suite(path)], world.indexes, world.read_text)
    return [f for f in report.findings if f.check is Check.LINES_MISMATCH]


def test_the_chunks_are_what_these_tests_assume(world: World) -> None:
    index = world.indexes[world.sha]

    def spans(path: str, symbol: str) -> list[tuple[int, int, str]]:
        chunks = [index.chunks[r] for r in index.rows_by_file[path]]
        return sorted((c.start_line, c.end_line, c.role) for c in chunks if c.symbol == symbol)

    split = [(5, 38), (40, 73), (75, 108), (110, 143)]
    assert [s[:2] for s in spans("src/demo/Strings.java", "Strings.split")] == split
    # (the class's closing brace, 150, is no part of its last method's chunk)
    assert spans("src/demo/Strings.java", "Strings.last") == [(145, 149, "definition")]
    assert spans("src/parser.c", "doContent") == [(3, 3, "declaration"), (10, 16, "definition")]
    assert spans("lib/http/timer.rb", "Timer.log_time") == [(131, 135, "definition")]
    assert len(spans("app/crunch.py", "crunch")) > 1  # pieces of one long function


@pytest.mark.parametrize(
    "target",
    [
        "{file: src/demo/Strings.java, symbol: Strings.split, lines: [5, 38]}",
        "{file: src/demo/Strings.java, symbol: Strings.split, lines: [42, 73]}",
        "{file: src/demo/Strings.java, symbol: Strings.split, lines: [110, 143]}",
        "{file: src/demo/Strings.java, symbol: Strings.split, lines: [80, 108]}",
        "{file: src/demo/Strings.java, symbol: Strings.last, lines: [146, 149]}",
        "{file: src/demo/Strings.java, symbol: Strings.last, lines: [145, 150]}",
        "{file: lib/http/timer.rb, symbol: Timer.log_time, lines: [132, 135]}",
        "{file: src/parser.c, symbol: doContent, lines: [11, 16]}",
        "{file: src/parser.c, symbol: doContent, lines: [3, 3], roles: [declaration]}",
        "{file: app/crunch.py, symbol: crunch, lines: [1, 402]}",
    ],
    ids=[
        "first-overload",
        "second-overload-without-javadoc",
        "last-overload",
        "a-tail-of-an-overload",
        "last-method-without-the-class-brace",
        "last-method-with-the-class-brace",
        "ruby-method-without-the-class-end",
        "c-definition",
        "c-prototype",
        "long-function-in-pieces",
    ],
)
def test_a_correct_label_draws_no_lines_warning(world: World, tmp_path: Path, target: str) -> None:
    assert _lines_findings(world, tmp_path, target) == []


def test_a_wrong_overload_label_names_the_nearest_overload_and_lists_them(
    world: World, tmp_path: Path
) -> None:
    target = "{file: src/demo/Strings.java, symbol: Strings.split, lines: [60, 80]}"
    (finding,) = _lines_findings(world, tmp_path, target)
    message = finding.message
    assert "labelled lines 60-80, but Strings.split is at 40-73 in src/demo/Strings.java" in message
    assert "4 definitions" in message and "5-38, 40-73, 75-108, 110-143" in message


def test_a_label_ending_inside_the_method_still_warns(world: World, tmp_path: Path) -> None:
    """The tolerance covers lines after the definition's code, never its own code."""
    target = "{file: src/demo/Strings.java, symbol: Strings.last, lines: [146, 147]}"
    (finding,) = _lines_findings(world, tmp_path, target)
    assert "Strings.last is at 145-149" in finding.message


def test_a_wrong_c_label_quotes_the_definition_not_the_prototype(
    world: World, tmp_path: Path
) -> None:
    target = "{file: src/parser.c, symbol: doContent, lines: [12, 20]}"
    (finding,) = _lines_findings(world, tmp_path, target)
    assert "doContent is at 10-16 in src/parser.c" in finding.message
    assert "declared at 3-3" in finding.message
    # even when the label is nearer the prototype, a definition label gets the definition
    target = "{file: src/parser.c, symbol: doContent, lines: [1, 4], roles: [definition]}"
    (finding,) = _lines_findings(world, tmp_path, target)
    assert "doContent is at 10-16" in finding.message


def test_migration_proposes_the_nearest_overload(world: World, tmp_path: Path) -> None:
    path = tmp_path / "gold.yaml"
    path.write_text(
        f"repository: {{name: demo, revision: {world.sha}}}\ncases:\n  - id: c\n    query: q\n"
        "    accepted: [{file: src/demo/Strings.java, symbol: Strings.split, lines: [70, 100]}]\n",
        encoding="utf-8",
    )
    with GitRepo(world.repo) as git:
        plan = plan_migration(
            load_suite(path), world.sha, world.indexes, world.read_text, git.renames
        )
    (move,) = plan.targets
    assert move.verdict is Verdict.LINES
    assert move.new is not None and move.new.lines is not None
    assert (move.new.lines.start, move.new.lines.end) == (75, 108)
