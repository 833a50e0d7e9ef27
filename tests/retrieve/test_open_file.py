"""openFile context lifts the open file itself above its directory siblings, and the
directory above the rest of the repository (real repository, real index)."""

from __future__ import annotations

import pytest

from codegold.cases.model import Context
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index.build import build_index
from codegold.index.store import open_index
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from tests.corpus.gitfixture import make_repo

BODY = "def parse_event(payload):\n    '''Parse one webhook event payload.'''\n    return payload\n"
FILES = {
    "src/hooks/stripe.py": BODY,
    "src/hooks/github.py": BODY.replace("webhook", "webhook hook"),
    "src/hooks/slack.py": BODY.replace("one", "one slack"),
    "lib/events.py": BODY.replace("one", "one lib"),
}


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> HybridRetriever:
    tmp = tmp_path_factory.mktemp("openfile")
    repo, shas = make_repo(tmp / "repo", [FILES])
    with GitRepo(repo) as git:
        build_index(git, shas[0], tmp / "index", policy=PathPolicy())
    return HybridRetriever(open_index(tmp / "index", shas[0]), RetrieverConfig())


def _files(retriever: HybridRetriever, context: Context | None) -> list[str]:
    result = retriever.search("how is a webhook event payload parsed?", context)
    return [retriever.index.chunks[row].file for row, _ in result.ranked]


@pytest.mark.parametrize("open_file", ["src/hooks/slack.py", "src/hooks/github.py"])
def test_the_open_file_outranks_its_siblings(retriever: HybridRetriever, open_file: str) -> None:
    files = _files(retriever, Context(open_file=open_file))
    assert files[0] == open_file
    assert set(files[1:3]) == {f for f in FILES if f.startswith("src/hooks/")} - {open_file}
    assert files.index("lib/events.py") == 3


def test_before_the_lift_the_directory_was_boosted_alike(retriever: HybridRetriever) -> None:
    flat = HybridRetriever(retriever.index, RetrieverConfig(open_file_self_boost=1.0))
    files = _files(flat, Context(open_file="src/hooks/slack.py"))
    assert files[0] != "src/hooks/slack.py"
    assert set(files[:3]) == {f for f in FILES if f.startswith("src/hooks/")}


def _members(name: str) -> str:
    """Enough other members that the class is split into one chunk per member."""
    return "".join(
        f"\n    public int get{name}{n}() {{\n        int value = {n};\n"
        f"        value += {n};\n        return value;\n    }}\n"
        for n in range(20)
    )


def _delegate(name: str) -> str:
    return (
        f"package com.acme.base;\n\npublic class {name} extends JsonParser {{\n"
        f"    protected JsonParser delegate{name};\n\n"
        "    @Override\n    public JsonToken nextToken() throws IOException {\n"
        f"        JsonToken t = delegate{name}.nextToken();\n"
        f"        return t == null ? delegate{name}.nextToken() : t;\n    }}\n"
        + _members(name)
        + "}\n"
    )


# shaped like jackson-core 2.x: every parser and delegate defines nextToken, the
# delegates in a line; UTF8StreamJsonParser.nextToken is the byte parser's token loop
PARSERS = {
    **{
        f"src/main/java/com/acme/base/{name}.java": _delegate(name)
        for name in (
            "JsonParserDelegate",
            "FilteringParserDelegate",
            "JsonParserSequence",
            "TokenBufferParser",
            "ReadOnlyParser",
            "TreeTraversingParser",
            "BufferingParser",
            "CountingParser",
        )
    },
    **{
        f"src/main/java/com/acme/base/{name}Reader.java": (
            f"package com.acme.base;\n\npublic class {name}Reader {{\n"
            f"    public void skip{name}(JsonParser p) throws IOException {{\n"
            "        p.nextToken();\n        p.nextToken();\n        p.nextToken();\n    }\n}\n"
        )
        for name in ("Array", "Object", "Value", "Field", "Tree", "Map", "List", "Set")
    },
    "src/main/java/com/acme/json/UTF8StreamJsonParser.java": (
        "package com.acme.json;\n\npublic class UTF8StreamJsonParser extends ParserBase {\n"
        "    @Override\n    public JsonToken nextToken() throws IOException {\n"
        + "".join(
            f"        if (_inputPtr >= _inputEnd && !_loadMore()) {{\n"
            f"            return _handleEOF({n});\n        }}\n"
            for n in range(40)
        )
        + "        int i = _inputBuffer[_inputPtr++] & 0xFF;\n"
        "        return _nextTokenNotInObject(i);\n    }\n" + _members("Stream") + "}\n"
    ),
}


def test_a_bare_name_with_a_file_open_means_the_open_files_definition(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    tmp = tmp_path_factory.mktemp("bare")
    repo, shas = make_repo(tmp / "repo", [PARSERS])
    with GitRepo(repo) as git:
        build_index(git, shas[0], tmp / "index", policy=PathPolicy())
    index = open_index(tmp / "index", shas[0])
    opened = Context(open_file="src/main/java/com/acme/json/UTF8StreamJsonParser.java")

    def first(config: RetrieverConfig, query: str) -> str:
        result = HybridRetriever(index, config).search(query, opened)
        return index.chunks[result.ranked[0][0]].file

    assert first(RetrieverConfig(open_file_named_boost=1.0), "nextToken") != opened.open_file
    assert first(RetrieverConfig(), "nextToken") == opened.open_file
    prose = HybridRetriever(index, RetrieverConfig()).search(
        "which class does nextToken hand the token to when a delegate wraps a parser", opened
    )
    assert all("opened" not in e.factors for e in prose.explanations.values())
