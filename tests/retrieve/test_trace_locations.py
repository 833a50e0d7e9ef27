"""Pasted traces point at lines: ``path:line`` frames in every runtime's format,
resolved to the indexed file (absolute, site-packages and bare file names) and to the
chunk spanning the line, innermost frame first, for questions and issue reports."""

from __future__ import annotations

from pathlib import Path

from codegold._paths import by_file_name
from codegold.index.store import LoadedIndex
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.issue import _suffix_match
from codegold.retrieve.query import trace_locations
from tests.retrieve._index import index_files


def test_each_runtimes_frames_innermost_first() -> None:
    python = (
        "Traceback (most recent call last):\n"
        '  File "/app/main.py", line 22, in <module>\n'
        "    spec = SpecifierSet(line)\n"
        '  File "/usr/lib/python3.12/site-packages/pkg/specifiers.py", line 369, in __init__\n'
        "    raise InvalidSpecifier(spec)\n"
        "pkg.specifiers.InvalidSpecifier: '=>1.4'\n"
    )
    assert trace_locations(python) == (
        ("/usr/lib/python3.12/site-packages/pkg/specifiers.py", 369),
        ("/app/main.py", 22),
    )
    java = (
        "java.lang.IllegalStateException: loop\n"
        "\tat org.acme.text.Substitutor.check(Substitutor.java:671)\n"
        "\tat org.acme.text.Substitutor$Inner.run(Substitutor.java:90)\n"
    )
    assert trace_locations(java) == (
        ("org/acme/text/Substitutor.java", 671),
        ("org/acme/text/Substitutor.java", 90),
    )
    gdb = (
        "#0  accountingDiffTolerated (parser=0x55, tok=6) at xmlparse.c:8706\n"
        "#1  0x00007ffff7f6b2c1 in doContent (parser=0x55) at xmlparse.c:3289\n"
    )
    assert trace_locations(gdb) == (("xmlparse.c", 8706), ("xmlparse.c", 3289))
    asan = (
        "==1==ERROR: AddressSanitizer: attempting double-free on 0x6020 in thread T0:\n"
        "    #0 0x7f3c2b8b4537 in __interceptor_free\n"
        "    #1 0x55d4c1a2f1d9 in json_value_free parson.c:1613\n"
        "    #2 0x55d4c1a26c0b in main src/report.c:58\n"
    )
    assert trace_locations(asan) == (("parson.c", 1613), ("src/report.c", 58))
    go = (
        "panic: unreachable\n\ngoroutine 1 [running]:\n"
        "github.com/acme/log.(*Logger).Panic.func1({0xc000014108, 0x1e})\n"
        "\t/go/pkg/mod/github.com/acme/log@v1.35.0/log.go:411 +0x25\n"
        "main.main()\n\t/src/cmd/payd/main.go:48 +0x1b4\n"
    )
    assert trace_locations(go) == (
        ("/go/pkg/mod/github.com/acme/log@v1.35.0/log.go", 411),
        ("/src/cmd/payd/main.go", 48),
    )
    rust = "thread 'main' panicked at /root/.cargo/registry/src/x/chrono-0.4/src/date.rs:168:9:\n"
    assert trace_locations(rust) == (("/root/.cargo/registry/src/x/chrono-0.4/src/date.rs", 168),)
    php = (
        "PHP Fatal error:  Uncaught Acme\\Exception: Invalid address\n"
        "#0 /var/www/app/src/Mailer.php(27): Acme\\Mailer->setFrom('x@', 'App')\n"
        "#1 {main}\n"
        "  thrown in /var/www/vendor/acme/mailer/src/Mailer.php on line 1458\n"
    )
    assert trace_locations(php) == (
        ("/var/www/vendor/acme/mailer/src/Mailer.php", 1458),
        ("/var/www/app/src/Mailer.php", 27),
    )
    js = (
        "Error: no plugin\n    at die (webpack://app/node_modules/immer/src/utils/errors.ts:45:9)\n"
    )
    assert trace_locations(js) == (("//app/node_modules/immer/src/utils/errors.ts", 45),)
    # a question that writes a version number or a bare file name points nowhere
    assert trace_locations("why does parse.c reject 1.2.3 in version 2.0?") == ()


def test_a_trace_path_resolves_to_the_indexed_file() -> None:
    files = {
        "src/pkg/specifiers.py": 0,
        "lib/xmlparse.c": 1,
        "log.go": 2,
        "log/log.go": 3,
        "a/util.c": 4,
        "b/util.c": 5,
        "cmd/lint/main.go": 6,
    }
    named = by_file_name(files)
    # an installed copy: the longest suffix an indexed file ends with
    assert _suffix_match("/usr/lib/python3.12/site-packages/pkg/specifiers.py", files, named) == (
        "src/pkg/specifiers.py"
    )
    assert _suffix_match("/go/pkg/mod/github.com/acme/log@v1/log.go", files, named) == "log.go"
    # a bare file name (gdb, sanitizers) names the one file of that name
    assert _suffix_match("xmlparse.c", files, named) == "lib/xmlparse.c"
    assert _suffix_match("util.c", files, named) is None  # two of them: no guess
    # the asker's own main.go shares only a file name with the project's
    assert _suffix_match("/src/cmd/payd/main.go", files, named) is None


UNIX_IO = """#include "io.h"

int io_write(struct stream *s, const char *buf, int len) {
    /* unix: write(2) in a loop until every byte of the buffer is out */
    int done = 0;
    while (done < len) {
        int n = write(s->fd, buf + done, len - done);
        if (n < 0) return -1;
        done += n;
    }
    return done;
}
"""

WIN_IO = """#include "io.h"

static int io_check(struct stream *s) {
    return s->handle != 0;
}

int io_write(struct stream *s, const char *buf, int len) {
    if (!io_check(s)) {
        abort();
    }
    return WriteFile(s->handle, buf, len);
}
"""

GDB_TRACE = (
    '#0  io_write (s=0x0, buf=0x5 "unix write loop", len=4) at /home/me/libio-1.2/src/win/io.c:9\n'
    "#1  main () at app.c:12\n"
)


def _first(index: LoadedIndex, ranked: list[tuple[int, float]]) -> tuple[str, str | None]:
    chunk = index.chunks[ranked[0][0]]
    return chunk.file, chunk.symbol


def test_the_frames_line_picks_the_chunk_among_same_named_definitions(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"src/unix/io.c": UNIX_IO, "src/win/io.c": WIN_IO})
    ranked = HybridRetriever(index).search(GDB_TRACE).ranked
    assert _first(index, ranked) == ("src/win/io.c", "io_write")
    # without the frame signal the words of the pasted arguments pick the unix one
    off = HybridRetriever(index, RetrieverConfig(w_frame=0)).search(GDB_TRACE).ranked
    assert _first(index, off) == ("src/unix/io.c", "io_write")


def test_an_issue_report_shows_the_chunk_its_trace_points_into_first(tmp_path: Path) -> None:
    index = index_files(tmp_path, {"src/unix/io.c": UNIX_IO, "src/win/io.c": WIN_IO})
    report = (
        "io_write aborts on a closed stream\n\n"
        "We close a stream and call io_write on it later; I expected -1 as on unix, but "
        "the process aborts. Backtrace:\n\n"
        "#0  io_check (s=0x0) at /home/me/libio-1.2/src/win/io.c:4\n"
        "#1  io_write (s=0x0, len=4) at /home/me/libio-1.2/src/win/io.c:9\n"
        "#2  main () at app.c:12\n\nIs the abort intended?\n"
    )
    result = HybridRetriever(index).search(report)
    assert result.analysis.issue_report
    # the words pick win/io.c's io_write; the innermost frame is in io_check
    assert [index.chunks[r].symbol for r, _ in result.ranked[:2]] == ["io_check", "io_write"]
    assert index.chunks[result.ranked[0][0]].file == "src/win/io.c"


def test_a_java_traces_root_cause_comes_first() -> None:
    trace = (
        "java.lang.RuntimeException: wrap\n"
        "\tat com.acme.App.run(App.java:10)\n"
        "Caused by: java.io.IOException: mid\n"
        "\tat com.acme.io.Reader.read(Reader.java:77)\n"
        "\t... 2 more\n"
        "Caused by: java.lang.IllegalStateException: root\n"
        "\tat com.acme.io.Buffer.fill(Buffer.java:41)\n"
        "\tat com.acme.io.Reader.read(Reader.java:70)\n"
    )
    assert trace_locations(trace) == (
        ("com/acme/io/Buffer.java", 41),
        ("com/acme/io/Reader.java", 70),
        ("com/acme/io/Reader.java", 77),
        ("com/acme/App.java", 10),
    )
