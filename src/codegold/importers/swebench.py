"""SWE-bench- and Loc-Bench-style issue datasets as gold suites (file-level localization).

Each JSONL row has ``instance_id``, ``repo`` (``owner/name``), ``base_commit``,
``problem_statement`` and ``patch``. Rows become one suite per repository; each case is
pinned to its base commit, its query is the problem statement, and every file the
patch modifies (it exists at the base commit) is a required group of its own: the case
passes when all of them are within the cutoff, the literature's Acc@k. Files the patch
only adds cannot be retrieved at the base commit and are left out; a row whose patch
only adds files gives no case (it is listed as skipped).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegold.errors import InputError

__all__ = ["SwebenchImport", "modified_files", "read_swebench", "suites_from_rows"]

_FIELDS = ("instance_id", "repo", "base_commit", "problem_statement", "patch")
_SHA = re.compile(r"^[0-9a-f]{40}$")
_OLD = re.compile(r"^--- (?:a/)?(.+?)\s*$")


def modified_files(patch: str) -> list[str]:
    """Files that exist before the patch and that it changes or deletes, in patch order."""
    out: list[str] = []
    for line in patch.splitlines():
        m = _OLD.match(line)
        if m and m.group(1) != "/dev/null" and line.startswith("--- "):
            path = m.group(1).split("\t")[0]
            if path not in out:
                out.append(path)
    return out


def read_swebench(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", file=str(path)) from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(f"invalid JSON: {exc.msg}", file=str(path), line=number) from None
            if not isinstance(row, dict):
                raise InputError("each line must be a JSON object", file=str(path), line=number)
            for name in _FIELDS:
                if not isinstance(row.get(name), str) or not row[name]:
                    raise InputError(
                        f"missing or empty {name!r}",
                        file=str(path),
                        line=number,
                        case_id=row.get("instance_id") if name != "instance_id" else None,
                        field=name,
                    )
            if not _SHA.match(row["base_commit"]):
                raise InputError(
                    "base_commit is not a full 40-hex SHA",
                    file=str(path),
                    line=number,
                    case_id=row["instance_id"],
                    field="base_commit",
                )
            yield number, row


@dataclass
class SwebenchImport:
    suites: dict[str, dict[str, Any]] = field(default_factory=dict)  # file name -> document
    skipped: list[tuple[str, str]] = field(default_factory=list)


def _suite_file(repo: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "__", repo) + ".yaml"


def suites_from_rows(
    rows: Iterator[tuple[int, dict[str, Any]]], *, cutoff: int = 5, source: str = ""
) -> SwebenchImport:
    out = SwebenchImport()
    seen: set[str] = set()
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for number, row in rows:
        instance = row["instance_id"]
        if instance in seen:
            raise InputError(
                "duplicate instance_id",
                file=source,
                line=number,
                case_id=instance,
                field="instance_id",
            )
        seen.add(instance)
        files = modified_files(row["patch"])
        if not files:
            out.skipped.append((instance, "the patch modifies no file that exists at base_commit"))
            continue
        case = {
            "id": instance,
            "query": row["problem_statement"],
            "queryClass": "issue_report",
            "repositoryRevision": row["base_commit"],
            "groups": [
                {"id": f"file-{i}", "anyOf": [{"file": path}]} for i, path in enumerate(files, 1)
            ],
            "tags": ["swebench"],
        }
        by_repo.setdefault(row["repo"], []).append(case)
    for repo in sorted(by_repo):
        cases = sorted(by_repo[repo], key=lambda c: c["id"])
        out.suites[_suite_file(repo)] = {
            "suite": f"swebench-{repo.replace('/', '-')}",
            "repository": {"name": repo},
            "defaults": {"cutoff": cutoff},
            "cases": cases,
        }
    return out
