"""Run a suite against the reference retriever: index per revision, retrieve per case."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegold.attempts import Attempt
from codegold.cases.suite import ResolvedCase, Suite
from codegold.index.store import IndexCache, LoadedIndex
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever


def attempt_id(case_id: str, n: int) -> str:
    return f"{case_id}#{n}"


@dataclass
class RetrievalSession:
    """A retriever per revision over loaded indexes (an :class:`IndexCache`, shared with
    the stages after retrieval when given; else one of its own under ``index_root``)."""

    index_root: Path
    config: RetrieverConfig = field(default_factory=RetrieverConfig)
    embedder: Any = None
    make_retriever: Callable[[LoadedIndex], Any] | None = None
    indexes: IndexCache | None = None
    _retrievers: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.indexes is None:
            self.indexes = IndexCache(self.index_root)

    @property
    def cache(self) -> IndexCache:
        assert self.indexes is not None  # set in __post_init__
        return self.indexes

    def retriever_for(self, revision: str) -> Any:
        if revision not in self._retrievers:
            loaded = self.cache.get(revision)
            if self.make_retriever is not None:
                self._retrievers[revision] = self.make_retriever(loaded)
            else:
                self._retrievers[revision] = HybridRetriever(
                    loaded, self.config, embedder=self.embedder
                )
        return self._retrievers[revision]

    def index_for(self, revision: str) -> LoadedIndex:
        return self.cache.get(revision)

    def retrieve_case(self, case: ResolvedCase, n: int = 1) -> Attempt:
        retriever = self.retriever_for(case.revision)
        attempt: Attempt = retriever.retrieve(
            case.query,
            case_id=case.id,
            context=case.context,
            attempt_id=attempt_id(case.id, n),
            cutoff=case.cutoff,
        )
        return attempt

    def retrieve_suite(
        self,
        suite: Suite,
        *,
        repeat: int = 1,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> list[Attempt]:
        attempts: list[Attempt] = []
        total = len(suite.cases)
        for i, case in enumerate(suite.cases, start=1):
            for n in range(1, repeat + 1):
                attempts.append(self.retrieve_case(case, n))
            if progress:
                progress("retrieving", i, total)
        return attempts
