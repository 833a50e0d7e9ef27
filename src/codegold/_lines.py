"""git's line-splitting rule, used everywhere a line number is computed or shown.

A line ends at ``\\n`` and nowhere else: a form feed, a lone carriage return,
U+2028/U+2029, U+0085 and the other characters :meth:`str.splitlines` treats as
breaks are ordinary characters inside a line, as they are for ``git blame``, ``git
diff`` and editors' line numbers. A final ``\\n`` does not start an empty last line.
"""

from __future__ import annotations

__all__ = ["split_lines"]


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` as git counts them (without their ``\\n``)."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return lines
