from __future__ import annotations

import textwrap

import pytest

from codegold.chunking import DEFAULT_CONFIG, ChunkerConfig, chunk_file, text_format_for_path
from codegold.corpus.model import FileRole
from codegold.roles import Role


def spans(path: str, text: str, config: ChunkerConfig = DEFAULT_CONFIG) -> list[tuple[int, int]]:
    result = chunk_file(path, text, file_role=FileRole.SOURCE, config=config)
    return [(c.start_line, c.end_line) for c in result.chunks]


def test_windows_overlap_and_cover_the_file() -> None:
    text = "".join(f"line {i}\n" for i in range(1, 101))
    assert spans("notes.txt", text) == [(1, 40), (31, 70), (61, 100)]


def test_windows_trim_blank_edges_and_skip_redundant_tails() -> None:
    text = "\n\n" + "".join(f"x{i}\n" for i in range(3, 13)) + "\n\n\n"
    config = ChunkerConfig(window_lines=6, window_overlap=2)
    assert spans("a.txt", text, config) == [(3, 8), (7, 12)]


def test_window_chunks_of_plain_text() -> None:
    result = chunk_file("Makefile", "all:\n\tmake it\n", file_role=FileRole.SOURCE)
    (chunk,) = result.chunks
    assert (chunk.kind, chunk.role, chunk.symbol, chunk.language) == (
        "window",
        Role.CALL_SITE,
        None,
        "text",
    )
    assert result.parse_ok


MARKDOWN = """\
Intro before any heading.

# Title

Text with `createSession()` and `auth.validate_token`.

```python
# not a heading
x = 1
```

Setext heading
--------------

More text.

## Deeper
Last words.
"""


def test_markdown_is_split_at_headings() -> None:
    result = chunk_file("docs/guide.md", MARKDOWN, file_role=FileRole.SOURCE)
    chunks = result.chunks
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 1), (3, 10), (12, 15), (17, 18)]
    assert {c.kind for c in chunks} == {"section"}
    assert {c.role for c in chunks} == {Role.DOCS}
    assert all(c.symbol is None and c.symbols == () for c in chunks)
    assert chunks[1].references == ("auth", "createSession", "validate_token")
    assert result.language == "markdown"


def test_long_section_is_windowed_with_its_heading_as_header() -> None:
    text = "# Big\n" + "".join(f"para {i}\n" for i in range(30))
    config = ChunkerConfig(max_chunk_lines=10, window_lines=8, window_overlap=2)
    chunks = chunk_file("a.md", text, file_role=FileRole.SOURCE, config=config).chunks
    assert chunks[0].start_line == 1 and chunks[0].header == ""
    assert all(c.header == "# Big" for c in chunks[1:])
    assert chunks[-1].end_line == 31


def test_rst_titles_with_and_without_overline() -> None:
    text = textwrap.dedent(
        """\
        =======
        Project
        =======

        Intro.

        Usage
        -----

        Run it.
        """
    )
    chunks = chunk_file("README.rst", text, file_role=FileRole.SOURCE).chunks
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 5), (7, 10)]
    assert chunks[1].text.startswith("Usage")


@pytest.mark.parametrize(
    ("path", "file_role", "expected"),
    [
        ("config/app.yaml", FileRole.SOURCE, Role.CONFIGURATION),
        ("pyproject.toml", FileRole.BUILD, Role.CONFIGURATION),
        ("settings.json", FileRole.VENDORED, Role.CONFIGURATION),
        ("README.md", FileRole.SOURCE, Role.DOCS),
        ("README.md", FileRole.TEST, Role.TEST),
        ("notes.txt", FileRole.DOCS, Role.DOCS),
        ("schema.sql", FileRole.MIGRATION, Role.MIGRATION),
        ("bundle.min.css", FileRole.GENERATED, Role.GENERATED),
    ],
)
def test_text_roles(path: str, file_role: FileRole, expected: Role) -> None:
    (chunk,) = chunk_file(path, "a = 1\n", file_role=file_role).chunks
    assert chunk.role is expected


def test_config_windows_list_top_level_keys_and_sections() -> None:
    text = '[tool.codegold]\ntimeout = 30\n  nested = 1\nname = "x"\n'
    (chunk,) = chunk_file("pyproject.toml", text, file_role=FileRole.SOURCE).chunks
    assert chunk.symbols == ("tool.codegold", "timeout", "name")
    (yaml_chunk,) = chunk_file(
        "a.yml", "server:\n  port: 80\nDEBUG: true\n", file_role=FileRole.SOURCE
    ).chunks
    assert yaml_chunk.symbols == ("server", "DEBUG")


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("README.md", "markdown"),
        ("docs/index.RST", "rst"),
        ("a/b.yml", "yaml"),
        ("Cargo.toml", "toml"),
        ("package.json", "json"),
        ("setup.cfg", "ini"),
        ("Makefile", "text"),
        ("notes.txt", "text"),
    ],
)
def test_text_format_for_path(path: str, expected: str) -> None:
    assert text_format_for_path(path) == expected
