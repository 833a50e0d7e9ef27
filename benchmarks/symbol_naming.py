#!/usr/bin/env python3
"""How well the reference chunker names definitions in real repositories (SPEC §1).

    python benchmarks/symbol_naming.py /work/.mirror/expressjs+express/repo \\
        /work/.mirror/koajs+koa/repo ...            # bare or normal git repositories
    python benchmarks/symbol_naming.py --json out.json REPO...

For each repository (read at HEAD from git objects, with the default path policy), every
file a structural language owns is chunked. Per language it prints: files, chunks,
definition chunks (any chunk but module-level code and the tail pieces of a long
function, unless those carry a symbol) and how many carry a symbol, distinct names
defined, the hand-picked definitions of that language named correctly, and a
deterministic sample of names. Of the hand-picked well-known definitions (``KNOWN``
below, each found by reading the repository's code), one is named correctly when a
chunk of that file lists exactly that name among its ``symbols`` with the expected
role; ``label`` counts the looser SPEC §1 suffix match a suite label gets
(``symbol_matches``). A repository is recognised by the ``owner+name`` (or
``owner/name``) in its path; unknown repositories are still counted.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from codegold.chunking import ALGORITHM_VERSION, Chunk, chunk_file, language_for_path
from codegold.corpus.git import GitRepo
from codegold.corpus.model import FileStatus
from codegold.corpus.policy import load_policy

try:
    from codegold.cases.match import symbol_matches
except ImportError:  # codegold before the matching rule moved beside the case contract
    from codegold.evaluate.match import symbol_matches  # type: ignore[no-redef]

#: Kinds of the chunks between definitions (module-level code) and of the later pieces
#: of a long function: not definitions unless they carry a symbol.
GAP_KINDS = frozenset({"module", "window"})


@dataclass(frozen=True)
class Known:
    """A definition as an engineer would label it: file, symbol, role."""

    file: str
    symbol: str
    role: str = "definition"


#: Hand-picked definitions per repository, found by reading the code at the fetched HEAD.
KNOWN: dict[str, list[Known]] = {
    "expressjs/express": [
        Known("lib/response.js", "res.send"),  # res.send = function send(body)
        Known("lib/response.js", "res.json"),
        Known("lib/response.js", "res.sendFile"),
        Known("lib/response.js", "res.type"),  # res.contentType = res.type = function
        Known("lib/response.js", "res.contentType"),
        Known("lib/response.js", "res.header"),  # res.set = res.header = function
        Known("lib/response.js", "res.redirect"),
        Known("lib/request.js", "req.get"),  # req.get = req.header = function header
        Known("lib/request.js", "req.header"),
        Known("lib/request.js", "req.host"),  # defineGetter(req, 'host', function host()
        Known("lib/request.js", "req.protocol"),
        Known("lib/application.js", "app.use"),
        Known("lib/application.js", "app.listen"),
        Known("lib/application.js", "app.handle"),
        Known("lib/application.js", "app.render"),
        Known("lib/view.js", "View.lookup"),  # View.prototype.lookup = function lookup
        Known("lib/utils.js", "compileETag"),  # exports.compileETag = function(val)
        Known("lib/utils.js", "normalizeType"),
        Known("lib/utils.js", "etag"),  # exports.etag = createETagGenerator(...)
        Known("test/app.use.js", "should mount the app", "test"),
        Known("test/app.use.js", ".use(app)", "test"),
    ],
    "koajs/koa": [
        Known("lib/request.js", "request.host"),  # module.exports = { get host () {
        Known("lib/request.js", "request.header"),
        Known("lib/request.js", "request.is"),
        Known("lib/request.js", "request.fresh"),
        Known("lib/response.js", "response.body"),
        Known("lib/response.js", "response.redirect"),
        Known("lib/response.js", "response.attachment"),
        Known("lib/response.js", "response.get"),  # a method named get, not a getter
        Known("lib/context.js", "context.throw"),  # const proto = module.exports = {
        Known("lib/context.js", "context.onerror"),
        Known("lib/application.js", "Application.use"),  # module.exports = class Application
        Known("lib/application.js", "Application.callback"),
        Known("lib/application.js", "Application.handleRequest"),
        Known("__tests__/application/use.test.js", "should compose middleware", "test"),
        Known("__tests__/application/use.test.js", "app.use(fn)", "test"),
    ],
    "sinatra/sinatra": [
        Known("lib/sinatra/base.rb", "Base.compile!"),  # in class << self, in module Sinatra
        Known("lib/sinatra/base.rb", "Base.route"),
        Known("lib/sinatra/base.rb", "Base.get"),
        Known("lib/sinatra/base.rb", "Base.set"),
        Known("lib/sinatra/base.rb", "Base.call"),
        Known("lib/sinatra/base.rb", "Base.halt"),
        Known("lib/sinatra/base.rb", "Helpers.redirect"),
        Known("lib/sinatra/base.rb", "Helpers.status"),
        Known("lib/sinatra/base.rb", "Helpers.url"),  # alias url uri
        Known("lib/sinatra/base.rb", "Request.accept"),
        Known("rack-protection/lib/rack/protection/base.rb", "Base.default_options"),
        Known("test/routing_test.rb", "defines HEAD request handlers with HEAD", "test"),
        Known(
            "rack-protection/spec/lib/rack/protection/base_spec.rb",
            "#random_string",
            "test",
        ),
    ],
    "google/gson": [
        Known("gson/src/main/java/com/google/gson/Gson.java", "Gson.toJson"),
        Known("gson/src/main/java/com/google/gson/Gson.java", "Gson.fromJson"),
        Known("gson/src/main/java/com/google/gson/Gson.java", "Gson.Gson"),  # constructor
        # An interface member split out under its long javadoc: declaration, also names
        # the interface.
        Known(
            "gson/src/main/java/com/google/gson/TypeAdapterFactory.java",
            "TypeAdapterFactory.create",
            "declaration",
        ),
        Known(
            "gson/src/main/java/com/google/gson/TypeAdapterFactory.java",
            "TypeAdapterFactory",
            "declaration",
        ),
        Known("gson/src/main/java/com/google/gson/GsonBuilder.java", "GsonBuilder.create"),
        Known("gson/src/main/java/com/google/gson/stream/JsonReader.java", "JsonReader.setLenient"),
        Known("gson/src/main/java/com/google/gson/stream/JsonReader.java", "JsonReader.peek"),
        Known("gson/src/main/java/com/google/gson/stream/JsonWriter.java", "JsonWriter.setLenient"),
        Known("gson/src/main/java/com/google/gson/stream/JsonWriter.java", "JsonWriter.JsonWriter"),
        Known(
            "gson/src/main/java/com/google/gson/FieldNamingPolicy.java",
            "FieldNamingPolicy.IDENTITY",
        ),
        Known("gson/src/main/java/com/google/gson/stream/JsonToken.java", "JsonToken.BEGIN_ARRAY"),
        Known(
            "gson/src/test/java/com/google/gson/stream/JsonReaderTest.java",
            "JsonReaderTest.testSetLenientTrue",
            "test",
        ),
    ],
    "BurntSushi/ripgrep": [
        Known("crates/searcher/src/searcher/mod.rs", "SearcherBuilder.new"),
        Known("crates/searcher/src/searcher/mod.rs", "SearcherBuilder.build"),
        Known("crates/searcher/src/searcher/mod.rs", "SearcherBuilder.line_terminator"),
        Known("crates/globset/src/glob.rs", "Glob.new"),
        Known("crates/globset/src/glob.rs", "Glob.compile_matcher"),
        Known("crates/ignore/src/gitignore.rs", "Gitignore.matched"),
        Known("crates/core/main.rs", "main"),
        Known("crates/core/main.rs", "run"),
        Known("tests/regression.rs", "r16", "test"),  # rgtest!(r16, |dir, cmd| ...)
        Known("tests/regression.rs", "r25", "test"),
        Known("tests/feature.rs", "f1_sjis", "test"),
    ],
    "serde-rs/json": [
        # impl From<$ty> for Value { fn from … } inside `macro_rules! from_integer`
        Known("src/value/from.rs", "Value.from"),
        Known("src/number.rs", "Number.from"),  # macro_rules! impl_from_unsigned
        Known("src/value/partial_eq.rs", "Value.eq"),  # macro_rules! partialeq_numeric
        Known("src/de.rs", "Deserializer.deserialize_struct"),
        Known("src/ser.rs", "to_string"),
    ],
    "tokio-rs/bytes": [
        # impl Index<…> for UninitSlice { fn index … } inside `macro_rules! impl_index`
        Known("src/buf/uninit_slice.rs", "UninitSlice.index"),
        Known("src/buf/uninit_slice.rs", "UninitSlice.index_mut"),
        Known("tests/test_buf.rs", "empty_state", "test"),  # #[test] fn in a macro_rules!
        Known("src/bytes_mut.rs", "BytesMut.split_off"),
        Known("src/buf/buf_impl.rs", "Buf.get_u16"),
    ],
    "hapijs/joi": [
        # module.exports = exports = internals.Template = class {…}
        Known("lib/template.js", "internals.Template.render"),
        Known("lib/template.js", "internals.Template.resolve"),
        Known("lib/ref.js", "internals.Ref.resolve"),  # internals.Ref = class {
        Known("lib/errors.js", "Report.toString"),  # exports.Report = class {
        Known("lib/state.js", "internals.State.localize"),  # module.exports = internals.State =
    ],
    "pmndrs/zustand": [
        Known("src/vanilla.ts", "createStore"),
        Known("src/react.ts", "useStore"),
        Known("src/react.ts", "create"),
        Known("src/middleware/persist.ts", "persist"),
        Known("src/middleware/persist.ts", "persistImpl"),
        Known("src/middleware/devtools.ts", "devtools"),
        Known("tests/vanilla/basic.test.ts", "create a store", "test"),
        Known("tests/vanilla/basic.test.ts", "can set the store", "test"),
        Known("tests/basic.test.tsx", "creates a store hook and api object", "test"),
    ],
    "slimphp/Slim": [
        Known("Slim/App.php", "App.run"),
        Known("Slim/App.php", "App.handle"),
        Known("Slim/App.php", "App.add"),
        Known("Slim/Routing/RouteCollector.php", "RouteCollector.map"),
        Known("Slim/Routing/RouteCollector.php", "RouteCollector.getNamedRoute"),
        Known("Slim/MiddlewareDispatcher.php", "MiddlewareDispatcher.handle"),
        Known("tests/AppTest.php", "AppTest.testGetContainer", "test"),
    ],
    "redis/hiredis": [
        Known("hiredis.h", "redisConnect", "declaration"),  # prototype in the header
        Known("hiredis.c", "redisConnect"),  # its body
        Known("hiredis.h", "freeReplyObject", "declaration"),
        Known("hiredis.c", "freeReplyObject"),
        Known("hiredis.c", "redisGetReply"),
        Known("hiredis.h", "redisReply"),  # typedef struct redisReply {...} redisReply;
        Known("hiredis.h", "REDIS_OPTIONS_SET_TCP"),  # a multi-line macro
        Known("sds.h", "sdslen"),  # static inline in a header: a body
        Known("sds.c", "sdsnewlen"),
    ],
    "encode/httpx": [
        Known("httpx/_client.py", "Client.send"),
        Known("httpx/_client.py", "AsyncClient.send"),
        Known("httpx/_client.py", "Client.request"),
        Known("httpx/_models.py", "Response.raise_for_status"),
        Known("httpx/_models.py", "Headers"),
        Known("httpx/_urls.py", "URL"),
        Known("httpx/_api.py", "request"),
        Known("tests/client/test_client.py", "test_get", "test"),
    ],
    "gin-gonic/gin": [
        Known("context.go", "Context.JSON"),  # func (c *Context) JSON
        Known("context.go", "Context.Next"),
        Known("context.go", "Context.Value"),
        Known("gin.go", "New"),
        Known("gin.go", "Default"),
        Known("gin.go", "Engine.Run"),
        Known("routergroup.go", "RouterGroup.GET"),
        Known("context_test.go", "TestContextFile", "test"),
    ],
    "jqlang/jq": [
        Known("src/jv.c", "jv_array_append"),
        Known("src/builtin.c", "f_length"),
        Known("src/jv_dtoa.c", "Balloc"),  # K&R-style header; the file parses mostly badly
        Known("src/jv_dtoa.c", "quorem"),
        Known("src/jv_dtoa.c", "jvp_freedtoa"),
        Known("src/jv_dtoa.c", "Bfree"),  # its body's `if` takes an #ifdef-chosen statement
    ],
    "sindresorhus/ky": [
        Known("source/types/options.ts", "KyOptions", "declaration"),  # type KyOptions = {…}
        Known("source/types/options.ts", "KyOptions.timeout", "declaration"),
        Known("source/types/options.ts", "KyOptions.retry", "declaration"),
        Known("source/types/options.ts", "KyOptions.hooks", "declaration"),
    ],
}


@dataclass
class LanguageFigures:
    files: int = 0
    chunks: int = 0
    definition_chunks: int = 0
    named_definition_chunks: int = 0
    names: set[str] = field(default_factory=set)
    picked: int = 0
    picked_exact: int = 0


def repository_name(path: Path) -> str | None:
    """``owner/name`` from a path holding ``owner+name`` (the fetch tool's mirror layout)."""
    for part in reversed(path.resolve().parts):
        if "+" in part:
            owner, _, name = part.partition("+")
            return f"{owner}/{name}"
    for known in KNOWN:
        if known.split("/")[1].lower() in str(path).lower():
            return known
    return None


def chunk_repository(path: Path) -> tuple[str, dict[str, list[Chunk]], float]:
    """Every structural file of HEAD, chunked: (revision, chunks by file, seconds)."""
    started = time.perf_counter()
    out: dict[str, list[Chunk]] = {}
    with GitRepo(path) as repo:
        revision = repo.resolve("HEAD")
        policy = load_policy(repo=repo, revision=revision)
        entries = [
            e
            for e in repo.list_files(revision)
            if getattr(e, "problem", None) is None  # older codegold: no such field
            and e.mode != "120000"
            and language_for_path(e.path)
        ]
        by_blob: dict[str, list[str]] = defaultdict(list)
        for entry in entries:
            by_blob[entry.blob].append(entry.path)
        for blob, data in repo.read_blobs(sorted(by_blob)):
            for file in by_blob[blob]:
                decision = policy.classify(file, data[:8192], size=len(data))
                if decision.status is not FileStatus.INDEXED:
                    continue
                text = data.decode("utf-8", "replace")
                result = chunk_file(file, text, file_role=decision.role)
                out[file] = list(result.chunks)
    return revision, out, time.perf_counter() - started


def sample(names: set[str], count: int = 8) -> list[str]:
    """A deterministic spread of names (by hash, so not all from one file)."""
    ranked = sorted(names, key=lambda n: hashlib.sha256(n.encode("utf-8")).hexdigest())
    return sorted(ranked[:count])


def check_known(known: Known, chunks: list[Chunk] | None) -> tuple[bool, bool, str]:
    """(named exactly with the role, matched as a suite label, what the file holds)."""
    if chunks is None:
        return False, False, "file not chunked"
    exact = any(known.symbol in c.symbols and str(c.role) == known.role for c in chunks)
    label = any(
        symbol_matches(known.symbol, c.symbol, c.symbols) and str(c.role) == known.role
        for c in chunks
    )
    if exact:
        return True, label, ""
    near = sorted({n for c in chunks for n in c.symbols if known.symbol.rsplit(".", 1)[-1] in n})[
        :4
    ]
    return False, label, f"near: {near}" if near else "no similar name"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="+", type=Path, help="git repositories (bare or not)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    figures: dict[str, LanguageFigures] = defaultdict(LanguageFigures)
    report: dict[str, object] = {"algorithmVersion": ALGORITHM_VERSION, "repositories": []}
    known_total = known_exact = known_label = 0
    misses: list[str] = []
    for path in args.repos:
        name = repository_name(path) or str(path)
        revision, files, seconds = chunk_repository(path)
        for chunks in files.values():
            if not chunks:
                continue  # an empty file
            language = chunks[0].language
            fig = figures[language]
            fig.files += 1
            fig.chunks += len(chunks)
            for c in chunks:
                if c.kind not in GAP_KINDS or c.symbol is not None:
                    fig.definition_chunks += 1
                    fig.named_definition_chunks += c.symbol is not None
                fig.names.update(c.symbols)
        exact_here = label_here = 0
        picked = KNOWN.get(name, [])
        rows = []
        for known in picked:
            chunks = files.get(known.file)
            exact, label, note = check_known(known, chunks)
            language = chunks[0].language if chunks else language_for_path(known.file) or "?"
            figures[language].picked += 1
            figures[language].picked_exact += exact
            exact_here += exact
            label_here += label
            rows.append({**known.__dict__, "exact": exact, "label": label, "note": note})
            if not exact:
                misses.append(f"{name}: {known.file} {known.symbol} [{known.role}] {note}")
        known_total += len(picked)
        known_exact += exact_here
        known_label += label_here
        print(
            f"{name} @ {revision[:12]}: {len(files)} files chunked in {seconds:.1f} s; "
            f"hand-picked named {exact_here}/{len(picked)} (as labels {label_here}/{len(picked)})"
        )
        repositories = report["repositories"]
        assert isinstance(repositories, list)
        repositories.append(
            {"repository": name, "revision": revision, "files": len(files), "known": rows}
        )

    print()
    header = (
        f"{'language':<11} {'files':>6} {'chunks':>7} {'defs':>6} {'named':>6} {'names':>7}"
        f" {'picked':>7}"
    )
    print(header)
    languages: dict[str, object] = {}
    for language in sorted(figures):
        fig = figures[language]
        print(
            f"{language:<11} {fig.files:>6} {fig.chunks:>7} {fig.definition_chunks:>6} "
            f"{fig.named_definition_chunks:>6} {len(fig.names):>7} "
            f"{f'{fig.picked_exact}/{fig.picked}' if fig.picked else '-':>7}   e.g. "
            + ", ".join(sample(fig.names, 5))
        )
        languages[language] = {
            "files": fig.files,
            "chunks": fig.chunks,
            "definitionChunks": fig.definition_chunks,
            "namedDefinitionChunks": fig.named_definition_chunks,
            "names": len(fig.names),
            "sample": sample(fig.names),
            "picked": fig.picked,
            "pickedNamed": fig.picked_exact,
        }
    report["languages"] = languages
    report["known"] = {"total": known_total, "exact": known_exact, "label": known_label}
    print()
    print(
        f"hand-picked definitions named correctly: {known_exact}/{known_total}"
        f" (matched as suite labels: {known_label}/{known_total})"
    )
    for miss in misses:
        print(f"  missed  {miss}")
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
