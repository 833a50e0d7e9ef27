"""The index manifest: the identity of one index build, written last by the build and
carried by every attempt it served (SPEC §2 ``index``)."""

from __future__ import annotations

from typing import Any

import msgspec


class IndexManifest(msgspec.Struct, rename="camel", frozen=True, omit_defaults=True):
    """Identity of the index an attempt was served from; written last by a build."""

    build_id: str
    repository_revision: str
    chunker_version: str
    path_policy: str
    built_at: str
    complete: bool
    format_version: str | None = None
    signals: tuple[str, ...] | None = None
    embedding: dict[str, Any] | None = None
    repository: str | None = None
    files_indexed: int | None = None
    chunks: int | None = None
    # Files listed in the tree whose blob is missing from the object database, and
    # Git LFS pointers (content outside git): recorded, never indexed (None when 0).
    files_unreadable: int | None = None
    lfs_pointers: int | None = None
    # True when nobody built this index in codegold's sight: the revision was stated by
    # whoever ran the retriever (--assume-revision, an adapter's factory), not proven.
    revision_asserted: bool | None = None
