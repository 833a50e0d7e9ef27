"""The repository at a pinned revision: git objects, path policy, file roles, inventory.

::

    GitRepo(path)                         read a normal or bare repository's objects
    load_policy(repo=, revision=, ...)    the effective PathPolicy (codegold.toml, ...)
    build_inventory(repo, rev, policy)    every path's status/role/rule + indexed bytes
"""

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
    generated_marker,
    is_binary,
    load_policy,
    policy_from_table,
)

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
    "generated_marker",
    "is_binary",
    "load_policy",
    "parse_gitattributes",
    "policy_from_table",
]
