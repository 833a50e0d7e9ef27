"""The repository at a pinned revision: git objects, path policy, file roles, inventory.

::

    GitRepo(path)                         read a normal or bare repository's objects
    load_policy(repo=, revision=, ...)    the effective PathPolicy (codegold.toml, ...)
    build_inventory(repo, rev, policy)    every path's status/role/rule + indexed bytes

Names are imported on first use: chunking needs only ``codegold.corpus.model``, and
loading git, the path policy (pathspec) and the attributes with it cost every command
that chunks or evaluates a tenth of a second of start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegold._lazy import lazy_getattr

if TYPE_CHECKING:
    from codegold.corpus.attributes import AttributeValue, GitAttributes, parse_gitattributes
    from codegold.corpus.git import MODE_GITLINK, MODE_SYMLINK, GitRepo
    from codegold.corpus.inventory import Inventory, build_inventory
    from codegold.corpus.model import FileEntry, FileRole, FileStatus, InventoryEntry
    from codegold.corpus.policy import (
        DEFAULT_PATTERNS,
        POLICY_FORMAT,
        ROLE_PRECEDENCE,
        Classification,
        PathPolicy,
        build_marker,
        generated_marker,
        is_binary,
        load_policy,
        policy_from_table,
    )

_WHERE: dict[str, str] = {
    "AttributeValue": "codegold.corpus.attributes",
    "GitAttributes": "codegold.corpus.attributes",
    "parse_gitattributes": "codegold.corpus.attributes",
    "MODE_GITLINK": "codegold.corpus.git",
    "MODE_SYMLINK": "codegold.corpus.git",
    "GitRepo": "codegold.corpus.git",
    "Inventory": "codegold.corpus.inventory",
    "build_inventory": "codegold.corpus.inventory",
    "FileEntry": "codegold.corpus.model",
    "FileRole": "codegold.corpus.model",
    "FileStatus": "codegold.corpus.model",
    "InventoryEntry": "codegold.corpus.model",
    "DEFAULT_PATTERNS": "codegold.corpus.policy",
    "POLICY_FORMAT": "codegold.corpus.policy",
    "ROLE_PRECEDENCE": "codegold.corpus.policy",
    "Classification": "codegold.corpus.policy",
    "PathPolicy": "codegold.corpus.policy",
    "build_marker": "codegold.corpus.policy",
    "generated_marker": "codegold.corpus.policy",
    "is_binary": "codegold.corpus.policy",
    "load_policy": "codegold.corpus.policy",
    "policy_from_table": "codegold.corpus.policy",
}


__getattr__ = lazy_getattr(__name__, _WHERE, globals())


__all__ = [
    "DEFAULT_PATTERNS",
    "MODE_GITLINK",
    "MODE_SYMLINK",
    "POLICY_FORMAT",
    "ROLE_PRECEDENCE",
    "AttributeValue",
    "Classification",
    "FileEntry",
    "FileRole",
    "FileStatus",
    "GitAttributes",
    "GitRepo",
    "Inventory",
    "InventoryEntry",
    "PathPolicy",
    "build_inventory",
    "build_marker",
    "generated_marker",
    "is_binary",
    "load_policy",
    "parse_gitattributes",
    "policy_from_table",
]
