"""The one answer to "what language is this file in?", for every stage.

Asked in order: the structural registry (:func:`~codegold.chunking.languages.
language_for_path`, built-ins and plugins alike), then the heuristic chunker's
families (languages it reads without a grammar), then the documentation and data
formats neither chunker parses. The evaluator's slices, diagnosis and the chunkers
therefore name a file's language the same way; a language a plugin registers is known
to all of them at once.
"""

from __future__ import annotations

import functools

from codegold.chunking.languages import language_for_path

DOCUMENT_FORMATS: dict[str, str] = {
    ".md": "markdown",
    ".mdx": "markdown",
    ".rst": "rst",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".ini": "ini",
    ".cfg": "ini",
}
"""Formats named for slicing though no chunker parses them (they are windowed)."""


def language_of_path(path: str) -> str | None:
    """The language name of ``path`` (a file or a glob) by its name, or None."""
    structural = language_for_path(path)
    if structural is not None:
        return structural
    name = path.rsplit("/", 1)[-1].lower()
    dot = name.rfind(".")
    if dot <= 0:
        return None
    extension = name[dot:]
    return _families().get(extension) or DOCUMENT_FORMATS.get(extension)


@functools.cache
def _families() -> dict[str, str]:
    # imported here: a file a structural language owns (most) never needs its regexes
    from codegold.chunking.heuristic import extension_families

    return extension_families()
