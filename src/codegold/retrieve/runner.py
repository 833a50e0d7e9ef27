"""Run a suite against the reference retriever: index per revision, retrieve per case."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegold.attempts import Attempt
from codegold.cases.suite import ResolvedCase, Suite
from codegold.index.store import LoadedIndex, open_index
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever


def attempt_id(case_id: str, n: int) -> str:
    return f"{case_id}#{n}"


@dataclass
class RetrievalSession:
    """Loaded indexes by revision, and a retriever factory over them."""

    index_root: Path
    config: RetrieverConfig = field(default_factory=RetrieverConfig)
    embedder: Any = None
    make_retriever: Callable[[LoadedIndex], Any] | None = None
    _indexes: dict[str, LoadedIndex] = field(default_factory=dict)
    _retrievers: dict[str, Any] = field(default_factory=dict)

    def retriever_for(self, revision: str) -> Any:
        if revision not in self._retrievers:
            loaded = self._indexes.get(revision) or open_index(self.index_root, revision)
            self._indexes[revision] = loaded
            if self.make_retriever is not None:
                self._retrievers[revision] = self.make_retriever(loaded)
            else:
                self._retrievers[revision] = HybridRetriever(
                    loaded, self.config, embedder=self.embedder
                )
        return self._retrievers[revision]

    def index_for(self, revision: str) -> LoadedIndex:
        self.retriever_for(revision)
        return self._indexes[revision]

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
