"""Issue reports: detected from the query, files ranked by aggregated evidence,
tests and docs demoted, traceback frames mapped to files; the whole-file baseline."""

from __future__ import annotations

from pathlib import Path

from codegold.cases import load_suite
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.evaluate.localization import file_acc, heldout, ranked_files
from codegold.index.build import build_index
from codegold.index.store import open_index
from codegold.retrieve import issue
from codegold.retrieve.baseline import FileBM25Retriever
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.query import analyze
from tests.corpus.gitfixture import make_repo

PARSER = '''"""Duration strings such as 1h30m."""

UNITS = {"h": 3600, "m": 60, "s": 1}


def split_units(text):
    """Split '1h30m' into [(1, 'h'), (30, 'm')]."""
    out, number = [], ""
    for char in text:
        if char.isdigit():
            number += char
        else:
            out.append((int(number), char))
            number = ""
    return out


def parse_duration(text):
    """Seconds in a duration string."""
    total = 0
    for value, unit in split_units(text):
        total += value * UNITS[unit]
    return total
'''

FORMAT = '''def format_duration(seconds):
    """The shortest duration string for a number of seconds."""
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes}m{secs}s"
'''

TESTS = """from durations.parser import parse_duration


def test_parse_duration_hours_minutes():
    assert parse_duration("1h30m") == 5400


def test_parse_duration_days():
    # days are not supported yet: parse_duration("2d") raises KeyError
    assert parse_duration("2h") == 7200


def test_parse_duration_trailing_number():
    # a trailing number without unit, parse_duration("90")
    assert parse_duration("90s") == 90
"""

DOCS = """# Durations

`parse_duration("1h30m")` returns seconds. Units: h, m, s. A trailing number
without a unit, such as `parse_duration("90")`, is not a duration.
"""

ISSUE = """parse_duration silently drops a trailing number without unit

When I call parse_duration with a string that ends in a number without a unit,
the number is lost instead of being counted as seconds or raising an error.

```python
from durations.parser import parse_duration
parse_duration("1h30")   # expected 3630 or an error
```

What happened: it returns 3600. With "2d" it fails:

```
Traceback (most recent call last):
  File "/home/me/repro.py", line 2, in <module>
    parse_duration("2d")
  File "/usr/lib/python3/site-packages/durations/parser.py", line 21, in parse_duration
    total += value * UNITS[unit]
KeyError: 'd'
```
"""

PLAIN = """parse_duration drops a trailing number

parse_duration("1h30") returns 3600, expected 3630: the trailing number has no unit
and is lost. Same for parse_duration("90"), which returns 0 instead of 90.
Days are not supported either: parse_duration("2d") fails.
"""


def _repo(tmp_path: Path) -> tuple[Path, str]:
    repo, (sha,) = make_repo(
        tmp_path / "r",
        [
            {
                "durations/__init__.py": "",
                "durations/parser.py": PARSER,
                "durations/format.py": FORMAT,
                "tests/test_parser.py": TESTS,
                "docs/durations.md": DOCS,
            }
        ],
    )
    return repo, sha


def test_issue_reports_are_told_from_questions_and_pasted_errors() -> None:
    assert analyze(ISSUE).issue_report
    assert not analyze("how does parse_duration handle a trailing number?").issue_report
    assert not analyze("KeyError: 'd'").issue_report
    frames = analyze(ISSUE).frames
    assert ("/usr/lib/python3/site-packages/durations/parser.py", "parse_duration") in frames
    assert "parse_duration" in analyze(ISSUE).code_identifiers


def test_the_fixed_file_comes_first_and_tests_and_docs_are_demoted(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
        attempt = HybridRetriever(index).retrieve(ISSUE, case_id="c", attempt_id="c#1", cutoff=5)
        baseline = FileBM25Retriever.from_index(index, git).retrieve(
            ISSUE, case_id="c", attempt_id="c#1", cutoff=5
        )
    files = ranked_files(attempt)
    assert files[0] == "durations/parser.py"
    # a report without traceback or import: the reproducer's words match the test
    # file and the docs best; demoted, they fall below the file to fix
    demoted = ranked_files(HybridRetriever(index).retrieve(PLAIN, case_id="c", attempt_id="a"))
    plain = RetrieverConfig(issue_test_factor=1.0, issue_docs_factor=1.0, max_tooling=-1)
    undemoted = ranked_files(
        HybridRetriever(index, plain).retrieve(PLAIN, case_id="c", attempt_id="a")
    )
    assert undemoted[0] == "tests/test_parser.py"
    assert set(undemoted[:3]) == {
        "tests/test_parser.py",
        "docs/durations.md",
        "durations/parser.py",
    }
    assert demoted[0] == "durations/parser.py"
    # a file's best chunk comes before any chunk of the files ranked below it
    assert list(dict.fromkeys(c.file for c in attempt.ranked)) == files
    scores = [c.score for c in attempt.ranked]
    assert scores == sorted(scores, reverse=True)
    assert attempt.debug["analysis"]["queryClass"] == "issue_report"
    # the plain whole-file baseline: one whole-file chunk per file; the reproducer's
    # words put the test file above the fix
    assert len({c.file for c in baseline.ranked}) == len(baseline.ranked)
    first = baseline.ranked[0]
    assert first.file == "tests/test_parser.py" and first.start_line == 1
    assert first.end_line == len(TESTS.splitlines())


def test_file_level_accuracy_and_the_fixed_hold_out(tmp_path: Path) -> None:
    suite_path = tmp_path / "s.yaml"
    suite_path.write_text(
        "suite: s\nrepository: {name: r, revision: " + "a" * 40 + "}\ncases:\n"
        "  - id: one\n    query: q\n    accepted: [{file: a.py}]\n"
        "  - id: two\n    query: q\n    groups:\n"
        "      - {id: g1, anyOf: [{file: a.py}]}\n"
        "      - {id: g2, anyOf: [{file: b.py}]}\n"
    )
    one, two = load_suite(suite_path).cases
    assert file_acc(one, ["a.py", "b.py"], 1)
    assert not file_acc(one, ["b.py", "a.py"], 1)
    assert not file_acc(two, ["a.py", "c.py", "b.py"], 2)
    assert file_acc(two, ["a.py", "c.py", "b.py"], 3)
    # the split is a pure function of the id (sha256 of it, first 8 hex digits % 10 < 4)
    assert [heldout(f"sympy__sympy-{n}") for n in (11618, 12096, 13031)] == [
        int(__import__("hashlib").sha256(f"sympy__sympy-{n}".encode()).hexdigest()[:8], 16) % 10 < 4
        for n in (11618, 12096, 13031)
    ]


TEMPLATED = """rolling mean ignores min_periods
### What happened?

`Window.mean()` returns NaN for the first rows even with `min_periods=1`.

### Minimal Complete Verifiable Example

```python
w = Window(values, size=3, min_periods=1)
total = 0
w.mean()
```

See https://github.com/o/r/blob/main/pkg/window.py#L12 and https://example.org/faq .

### MVCE confirmation

- [X] Minimal example — the example is as focused as reasonably possible.
- [X] New issue — a search of GitHub Issues suggests this is not a duplicate.

### Relevant log output

_No response_

### Environment

<details>

```
INSTALLED VERSIONS
------------------
commit: None
python: 3.10.4 (main, Mar 31 2022, 08:41:55) [GCC 7.5.0]
OS: Linux
machine: x86_64
processor: x86_64
byteorder: little
numpy: 1.22.4
pandas: 1.4.2
setuptools: 61.2.0
```

numpy==1.22.4
pandas==1.4.2
scipy==1.8.1

</details>
"""

WINDOW = '''class Window:
    """A rolling window over values."""

    def __init__(self, values, size, min_periods=None):
        self.values = values
        self.size = size
        self.min_periods = size if min_periods is None else min_periods

    def mean(self):
        """The rolling mean: NaN until min_periods values are seen."""
        out = []
        for i in range(len(self.values)):
            seen = self.values[max(0, i - self.size + 1) : i + 1]
            out.append(sum(seen) / len(seen) if len(seen) >= self.size else float("nan"))
        return out
'''

VERSIONS = '''"""Print the versions of the environment: python, OS, machine, processor, byteorder."""

import platform


def show_versions():
    """INSTALLED VERSIONS: commit, python, OS, machine, processor, byteorder, numpy,
    pandas, scipy, setuptools, None when a dependency is not installed."""
    for name in ("numpy", "pandas", "scipy", "setuptools"):
        print(name, None)
    print("machine", platform.machine(), "processor", platform.processor())
'''


def test_report_boilerplate_is_dropped_and_the_title_kept() -> None:
    title, body = issue.clean_report(TEMPLATED)
    assert title == "rolling mean ignores min_periods"
    # the reproducer, code spans and prose stay (short assignments are not a listing)
    assert "w = Window(values, size=3, min_periods=1)" in body
    assert "total = 0" in body and "`Window.mean()` returns NaN" in body
    # template headings, checklists, "No response", details tags, version listings go
    for gone in ("###", "[X]", "No response", "<details>", "numpy", "setuptools", "3.10.4"):
        assert gone not in body, gone
    assert "x86_64" not in body  # a long listing that is mostly versions goes whole
    # a URL's repository path stays, other URLs go
    assert "pkg/window.py" in body and "example.org" not in body
    # a short listing of settings without versions is kept
    _, kept = issue.clean_report("title\n\nname: alpha\nmode: fast\nlevel: high\n")
    assert "mode: fast" in kept
    # a short listing with some versions loses only the version lines
    _, mixed = issue.clean_report("t\n\n- OS: Linux\n- Python version: 3.8\n- Ext: autodoc\n")
    assert "OS: Linux" in mixed and "3.8" not in mixed and "autodoc" in mixed


def test_title_words_weigh_more_and_listings_add_no_terms() -> None:
    analysis = analyze(TEMPLATED)
    assert analysis.issue_report
    cfg = RetrieverConfig(issue_title_weight=2.0)
    terms = issue.report_terms(analysis, cfg)
    flat = issue.report_terms(analysis, RetrieverConfig(issue_title_weight=0.0))
    assert terms.weights["period"] == flat.weights["period"] + 2.0
    assert "setuptool" not in terms.weights and "processor" not in terms.weights
    assert "setuptools" not in terms.code_identifiers
    assert "Window" in terms.code_identifiers
    raw = issue.report_terms(analysis, RetrieverConfig(issue_clean=False))
    assert "processor" in raw.weights


def test_a_version_listing_no_longer_points_at_the_versions_module(tmp_path: Path) -> None:
    repo, (sha,) = make_repo(
        tmp_path / "r",
        [
            {
                "pkg/__init__.py": "",
                "pkg/window.py": WINDOW,
                "pkg/print_versions.py": VERSIONS,
                "tests/test_window.py": "from pkg.window import Window\n\n\n"
                "def test_mean():\n    assert Window([1, 2], size=2).mean()[1] == 1.5\n",
            }
        ],
    )
    body = TEMPLATED.replace("https://github.com/o/r/blob/main/pkg/window.py#L12", "the code")
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
    old = RetrieverConfig(issue_clean=False, issue_title_weight=0.0, issue_name_weight=0.0)
    raw, _ = issue.gather(index, analyze(body), old)
    evidence, _ = issue.gather(index, analyze(body), RetrieverConfig())
    # the listing's words made the versions module match about as well as the fix ...
    assert raw["pkg/print_versions.py"].chunk > 0.9 * raw["pkg/window.py"].chunk
    # ... cleaned, they are gone
    assert evidence["pkg/print_versions.py"].chunk < 0.25 * evidence["pkg/window.py"].chunk
    after = ranked_files(HybridRetriever(index).retrieve(body, case_id="c", attempt_id="a"))
    assert after[0] == "pkg/window.py"
    # the file's name is covered by the report's words (window, in the code spans)
    assert evidence["pkg/window.py"].name == 1.0
    assert evidence["pkg/print_versions.py"].name < 1.0
    # a repository URL's file path is path evidence
    linked, _ = issue.gather(index, analyze(TEMPLATED), RetrieverConfig())
    assert linked["pkg/window.py"].path == 1.0


def test_the_code_a_title_names_counts_as_definitions(tmp_path: Path) -> None:
    assert issue.title_identifiers(
        "DataArray.integrate has a 'dim' arg, but `Dataset.integrate()` has 'coord'"
    ) == ["DataArray.integrate", "Dataset.integrate", "DataArray"]
    assert issue.title_identifiers("Naming a dimension throws an error") == []
    repo, sha = _repo(tmp_path)
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
    report = (
        "format_duration prints zero units\n\nIt prints 1h0m0s for an hour; "
        "the zero parts should be left out, as in 1h. Expected 1h, got 1h0m0s."
    )
    on = RetrieverConfig(issue_definition_weight=0.5)
    plain, _ = issue.gather(index, analyze(report), on)
    boosted, _ = issue.gather(
        index,
        analyze(report),
        RetrieverConfig(issue_definition_weight=0.5, issue_title_definition_factor=2.0),
    )
    assert plain["durations/format.py"].definition == 1.0  # one definition of the name
    assert boosted["durations/format.py"].definition == 2.0
    # off by default (its weight was unstable under leave-one-repository-out) and then
    # not gathered at all
    assert RetrieverConfig().issue_definition_weight == 0.0
    off, _ = issue.gather(index, analyze(report), RetrieverConfig())
    assert all(e.definition == 0.0 for e in off.values())


def test_whole_file_bm25_of_the_report_as_written_is_a_signal(tmp_path: Path) -> None:
    repo, sha = _repo(tmp_path)
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
    analysis = analyze(PLAIN)
    # off by default (cross-validation over the dev repositories gave it no weight)
    assert RetrieverConfig().issue_plain_weight == 0.0
    off, _ = issue.gather(index, analysis, RetrieverConfig())
    assert all(e.plain == 0.0 for e in off.values())
    # the query is the report's words each counted as written: no title weight, no
    # cleaning, no code weight
    weights = issue.plain_weights(PLAIN)
    assert weights["duration"] == 4.0 and weights["trail"] == 2.0 and weights["lost"] == 1.0
    alone = RetrieverConfig(
        issue_plain_weight=1.0,
        **{
            f"issue_{k}_weight": 0.0
            for k in ("chunk", "file", "frame", "path", "definition", "name")
        },
        issue_test_factor=1.0,
        issue_docs_factor=1.0,
    )
    on, _ = issue.gather(index, analysis, alone)
    files_index, names = index.file_lexical
    scores = files_index.weighted_scores(weights)
    expected = sorted(
        (n for n, s in zip(names, scores.tolist(), strict=True) if s > 0),
        key=lambda n: (-float(scores[names.index(n)]), n),
    )
    assert [p for p, _ in issue.rank_files(on, alone)] == expected
    assert on[expected[0]].plain == max(e.plain for e in on.values()) > 0


HANDLER = """import time


def next_rotation(timezone):
    # midnight of the next day, in the handler's timezone
    return time.mktime(time.localtime()) + 86400


ROTATION_ERROR = "the rotating handler could not rotate the file at midnight in the timezone"


def rotate(path):
    # rotate the file at midnight: rename it with the date of the rotation
    return path + time.strftime("%Y-%m-%d")
"""

UTILS = """def midnight_of(day):
    return day


def rename_file(path, name):
    return name
"""

ROTATION_REPORT = """The rotating handler rotates at the wrong midnight

I pass a timezone to the rotating handler but the file rotation happens at midnight UTC:
the next rotation of the file ignores the timezone, and the rotate step renames the
file with the wrong date.
"""


def test_a_file_far_ahead_shows_its_next_chunks_before_the_next_files_best(
    tmp_path: Path,
) -> None:
    repo, (sha,) = make_repo(tmp_path / "r", [{"logs/handler.py": HANDLER, "logs/utils.py": UTILS}])
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
    default = HybridRetriever(index).retrieve(ROTATION_REPORT, case_id="c", attempt_id="a")
    one_each = HybridRetriever(index, RetrieverConfig(issue_chunk_share=0.0)).retrieve(
        ROTATION_REPORT, case_id="c", attempt_id="a"
    )
    # the same files in the same order either way
    files = ["logs/handler.py", "logs/utils.py"]
    assert list(dict.fromkeys(c.file for c in default.ranked)) == files
    assert list(dict.fromkeys(c.file for c in one_each.ranked)) == files
    # one each: the second file's best chunk right after the first file's
    assert [c.file for c in one_each.ranked[:2]] == files
    # by default the first file, far ahead, shows its functions before the second file
    head = [(c.file, c.symbol) for c in default.ranked[:2]]
    assert head == [("logs/handler.py", "rotate"), ("logs/handler.py", "next_rotation")]
    scores = [c.score for c in default.ranked]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    # the one-line constant holding the report's words scores second by its words
    # alone, but a line of glue is shown after the code that acts
    constant = ("logs/handler.py", 9)
    glue = HybridRetriever(index, RetrieverConfig(thin_factor=1.0)).retrieve(
        ROTATION_REPORT, case_id="c", attempt_id="a"
    )
    assert (glue.ranked[1].file, glue.ranked[1].start_line) == constant
    shown = [(c.file, c.start_line) for c in default.ranked]
    assert shown.index(constant) > shown.index(("logs/utils.py", 5))


PARSE_H = """#ifndef PARSE_H
#define PARSE_H
/* parse_number: parse a number from text; trailing garbage after the number is an
 * error, and the parse returns NULL on any trailing garbage. */
struct number *parse_number(const char *text);
#endif
"""

PARSE_C = """#include "parse.h"

struct number *parse_number(const char *text) {
    struct number *n = read_digits(text);
    /* the trailing garbage after the number is not checked: no error, no NULL */
    return n;
}
"""

GARBAGE_REPORT = """parse_number accepts trailing garbage

`parse_number("12abc")` returns a number instead of NULL: the trailing garbage after
the number is not an error. Expected NULL for any trailing garbage.
"""


def test_a_header_that_declares_ranks_below_the_file_that_implements(tmp_path: Path) -> None:
    repo, (sha,) = make_repo(tmp_path / "r", [{"src/parse.h": PARSE_H, "src/parse.c": PARSE_C}])
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
    evidence, _ = issue.gather(index, analyze(GARBAGE_REPORT), RetrieverConfig())
    assert evidence["src/parse.h"].role == "declaration"
    assert evidence["src/parse.c"].role == "source"
    # the header's comment repeats the report's words: by words alone it comes first
    level = RetrieverConfig(issue_declaration_factor=1.0)
    assert [p for p, _ in issue.rank_files(evidence, level)] == ["src/parse.h", "src/parse.c"]
    ranked = [p for p, _ in issue.rank_files(evidence, RetrieverConfig())]
    assert ranked == ["src/parse.c", "src/parse.h"]
    for path in ("types/index.d.ts", "lib/api.d.mts", "pkg/_core.pyi", "include/x.hpp"):
        assert issue._role_of(path, "source", "c", None) == "declaration"
    assert issue._role_of("lib/index.ts", "source", "typescript", None) == "source"


ENV = '''def automatic_env(config):
    """Read every key from the environment."""
    return config.enable_env()


def lookup_env(config, key):
    """The environment value of a key: nested keys join their parts with the
    separator, then the prefix is put in front."""
    name = key
    if config.prefix:
        name = config.prefix + "_" + name
    for part in key.split("."):
        name = name.replace(part, part.upper())
    value = config.environ.get(name)
    if value is None:
        return None
    return value.strip()
'''

ENV_REPORT = """automatic_env does not find nested keys in the environment

With `automatic_env(config)` the nested key db.host is never found in the environment:
I expected the parts of a nested key to be joined with the separator and the prefix
put in front, and the value of that name to be returned.
"""


def test_a_short_wrapper_is_shown_after_the_longer_code_that_does_the_work(
    tmp_path: Path,
) -> None:
    repo, (sha,) = make_repo(tmp_path / "r", [{"conf/env.py": ENV}])
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
    report = ENV_REPORT
    # by its words alone the three-line wrapper the report names comes first
    plain = HybridRetriever(index, RetrieverConfig(issue_wrapper_factor=1.0)).retrieve(
        report, case_id="c", attempt_id="a"
    )
    assert [c.symbol for c in plain.ranked[:2]] == ["automatic_env", "lookup_env"]
    # a wrapper of ten lines or fewer counts 0.6 of its score: the lookup shows first
    default = HybridRetriever(index).retrieve(report, case_id="c", attempt_id="a")
    assert [c.symbol for c in default.ranked[:2]] == ["lookup_env", "automatic_env"]
    assert RetrieverConfig().issue_wrapper_lines == 10


LOG_LIB = """//! A lightweight logging facade.
//!
//! If no logging implementation is selected, the facade falls back to a "noop"
//! implementation that ignores all log records. Call `set_logger` early in main,
//! before any record is emitted.

pub fn logger() -> &'static dyn Log {
    if STATE.load(Ordering::Acquire) != INITIALIZED {
        // no logger set yet: the record goes to the no-op logger and is lost
        static NOP: NopLogger = NopLogger;
        &NOP
    } else {
        unsafe { LOGGER }
    }
}
"""

EARLY_REPORT = """Log records emitted before set_logger are lost

Our config loader logs before main calls set_logger; every record emitted
before that is lost and nothing reports the lost records. Expected them to be
buffered until the logger is set.
"""


def test_module_docs_are_shown_after_the_code_of_their_file(tmp_path: Path) -> None:
    """rust-lang/log's src/lib.rs: the crate docs (a ``docs`` chunk) hold a report's
    words wholesale; the function that drops the records is what it is about."""
    repo, (sha,) = make_repo(tmp_path / "r", [{"src/lib.rs": LOG_LIB}])
    root = tmp_path / "idx"
    with GitRepo(repo) as git:
        build_index(git, sha, root, policy=PathPolicy())
        index = open_index(root, sha)
    assert [c.role for c in index.chunks] == ["docs", "definition"]
    ranked = HybridRetriever(index).retrieve(EARLY_REPORT, case_id="c", attempt_id="a").ranked
    assert [c.symbol for c in ranked[:1]] == ["logger"]


def test_rust_attribute_lines_do_not_make_glue_longer() -> None:
    from types import SimpleNamespace

    from codegold.retrieve.hybrid import _thin

    def chunk(text: str) -> SimpleNamespace:
        return SimpleNamespace(start_line=36, end_line=35 + text.count("\n") + 1, text=text)

    # parking_lot's src/deadlock.rs, below its `//!` docs
    reexports = (
        '#[cfg(feature = "deadlock_detection")]\n'
        "pub use parking_lot_core::deadlock::check_deadlock;\n"
        "pub(crate) use parking_lot_core::deadlock::{acquire_resource, release_resource};"
    )
    assert _thin(chunk(reexports))
    assert not _thin(chunk("mod a;\nmod b;\nmod c;"))
    assert _thin(chunk("pub use a::b;"))
