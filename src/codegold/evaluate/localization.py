"""File-level localization (the issue-localization literature's Acc@k): read the
distinct files off a ranking in order of first appearance; a case scores at ``k``
when every required group has a target file among the first ``k`` files."""

from __future__ import annotations

import fnmatch
import hashlib
from collections.abc import Iterable, Sequence

from codegold.attempts import Attempt
from codegold.cases.suite import ResolvedCase


def heldout(case_id: str) -> bool:
    """The fixed 40% hold-out of the issue-localization dev data (by id, no seed)."""
    return int(hashlib.sha256(case_id.encode()).hexdigest()[:8], 16) % 10 < 4


def ranked_files(attempt: Attempt) -> list[str]:
    """Distinct files of the ranked chunks, in order of first appearance."""
    return list(dict.fromkeys(c.file for c in attempt.ranked))


def _hits(target_file: str | None, pattern: str | None, files: Iterable[str]) -> bool:
    for f in files:
        if (target_file is not None and f == target_file) or (
            pattern is not None and fnmatch.fnmatchcase(f, pattern)
        ):
            return True
    return False


def file_acc(case: ResolvedCase, files: Sequence[str], k: int) -> bool:
    """Every required group has a target file within the first ``k`` files."""
    head = files[:k]
    return bool(case.groups) and all(
        any(_hits(t.file, t.file_pattern, head) for t in group.any_of) for group in case.groups
    )


def gold_files(case: ResolvedCase) -> list[str]:
    return sorted({t.file or t.file_pattern or "" for g in case.groups for t in g.any_of})


__all__ = ["file_acc", "gold_files", "heldout", "ranked_files"]
