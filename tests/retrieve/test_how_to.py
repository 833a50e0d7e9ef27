"""A "how do I <do something>" question asks for a task done with the code: its docs
show how, as much as the code that does it (nodeca-js-yaml "how do I read every
document of a multi-document YAML file separated by ---?" is answered by the README's
loadAll section). A question about changing a setting ("how do I make …", "stop …
from", "get X to …") stays a question about the code, and a changelog shows no task."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.query import Intent, analyze
from tests.retrieve._index import index_files


@pytest.mark.parametrize(
    ("query", "how_to"),
    [
        ("how do I read every document of a multi-document YAML file separated by ---?", True),
        ("how can I send errors that happen outside my Rack app to our error tracker?", True),
        ("How do I insert many rows at once from a slice of structs?", True),
        # a setting changed: the code that reads it
        ("how do I make cJSON allocate with my own malloc and free?", False),
        ("how do I stop JavaPoet from writing `import java.lang.String;`?", False),
        ("how do I turn off brace handling?", False),
        ("how do I get json_dumps to output object keys sorted?", False),
        ("how do I rename the kysely_migration table the migrator keeps its history in?", False),
        # not a task: how the code behaves
        ("how does the loader handle duplicate keys?", False),
        ("why do I get every error twice?", False),
    ],
)
def test_a_task_question_is_told_from_a_setting(query: str, how_to: bool) -> None:
    assert analyze(query).how_to is how_to


LOADER_JS = """'use strict';

function readDocument(state) {
  var document = state.input.slice(state.position);
  state.position = state.length;
  return document;
}

function loadDocuments(input, options) {
  var state = { input: String(input), position: 0, length: input.length };
  var documents = [];
  while (state.position < state.length) documents.push(readDocument(state));
  return documents;
}

module.exports.loadAll = function loadAll(input, iterator, options) {
  var documents = loadDocuments(input, options);
  for (var index = 0; index < documents.length; index += 1) iterator(documents[index]);
};
"""

README_MD = """# yaml

A YAML parser.

## loadAll (string [, iterator] [, options ])

Same as load, but understands a multi-document YAML file: every document separated by
`---` is read, and the iterator is called with each document in turn.

```js
yaml.loadAll(data, function (document) { console.log(document); });
```

## dump (object [, options ])

Serializes an object as a YAML document.
"""

CHANGELOG_MD = """# Changelog

## 4.0.0

- loadAll now reads every document of a multi-document YAML file, even an empty one
  separated by `---`.
"""


def test_a_task_question_ranks_the_docs_that_show_it(tmp_path: Path) -> None:
    index = index_files(
        tmp_path, {"lib/loader.js": LOADER_JS, "README.md": README_MD, "CHANGELOG.md": CHANGELOG_MD}
    )
    retriever = HybridRetriever(index)
    query = "how do I read every document of a multi-document YAML file separated by ---?"
    assert analyze(query).intent is Intent.DEFINITION
    result = retriever.search(query)
    files = [index.chunks[row].file for row, _ in result.ranked]
    role = {
        index.chunks[row].file: exp.factors["role"]
        for row, exp in result.explanations.items()
        if exp.factors
    }
    assert role["README.md"] == 0.95
    assert role["CHANGELOG.md"] == 0.4  # the project's notes show no task done
    assert files.index("README.md") < files.index("CHANGELOG.md")
    # the README's section before the code, which a definition question ranks first
    assert files.index("README.md") < files.index("lib/loader.js")
    # a setting changed is a question about the code: its docs wait
    setting = retriever.search("how do I make loadAll stop at the first document?")
    for row, exp in setting.explanations.items():
        if index.chunks[row].file == "README.md" and exp.factors:
            assert exp.factors["role"] == 0.4
