"""What every retriever is: the reference one, the baseline, adapters and plugins."""

from __future__ import annotations

from typing import Protocol

from codegold.attempts import Attempt
from codegold.cases.model import Context


class Retriever(Protocol):
    """Anything that turns a query (and reliable context) into an attempt."""

    name: str

    def retrieve(
        self,
        query: str,
        *,
        case_id: str,
        context: Context | None = None,
        attempt_id: str,
        cutoff: int | None = None,
        retry_of: str | None = None,
    ) -> Attempt: ...
