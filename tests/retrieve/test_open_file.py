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
