"""The pipeline a run goes through, as plain library functions the CLI only wires.

::

    index_revisions   build (or reuse) each pinned revision's index     (per revision)
    retrieve_suite    live attempts from the reference or a plugged retriever
    score             evaluate -> diagnose failures -> flag repeats -> run identity
    write_run         attempts.jsonl, results.json, summary.json (atomic)

``run_pipeline`` (live) and ``eval_pipeline`` (recorded attempts) compose those steps
and share one scoring path; ``lint_pipeline`` checks labels over the same index step.
One :class:`~codegold.index.store.IndexCache` serves retrieval and diagnosis, so a run
loads each revision's index once. An executor of its
own (a batch cluster, say) calls :func:`index_revision` per revision and
:func:`score_shard` per shard: both take plain, serializable inputs.

Each name is imported on first use: `codegold eval` then loads neither the index
builder (numpy, tree-sitter) nor the retrievers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegold._lazy import lazy_getattr

if TYPE_CHECKING:
    from codegold.pipeline.indexing import index_revision, index_revisions
    from codegold.pipeline.lint import LintRun, lint_pipeline, open_indexes
    from codegold.pipeline.run import RunOutput, eval_pipeline, retrieve_suite, run_pipeline
    from codegold.pipeline.scoring import (
        AttemptSource,
        Scored,
        diagnosis_context,
        score,
        score_shard,
        write_run,
    )

_WHERE: dict[str, str] = {
    "index_revision": "codegold.pipeline.indexing",
    "index_revisions": "codegold.pipeline.indexing",
    "LintRun": "codegold.pipeline.lint",
    "lint_pipeline": "codegold.pipeline.lint",
    "open_indexes": "codegold.pipeline.lint",
    "RunOutput": "codegold.pipeline.run",
    "eval_pipeline": "codegold.pipeline.run",
    "retrieve_suite": "codegold.pipeline.run",
    "run_pipeline": "codegold.pipeline.run",
    "AttemptSource": "codegold.pipeline.scoring",
    "Scored": "codegold.pipeline.scoring",
    "diagnosis_context": "codegold.pipeline.scoring",
    "score": "codegold.pipeline.scoring",
    "score_shard": "codegold.pipeline.scoring",
    "write_run": "codegold.pipeline.scoring",
}


__getattr__ = lazy_getattr(__name__, _WHERE, globals())


__all__ = [
    "AttemptSource",
    "LintRun",
    "RunOutput",
    "Scored",
    "diagnosis_context",
    "eval_pipeline",
    "index_revision",
    "index_revisions",
    "lint_pipeline",
    "open_indexes",
    "retrieve_suite",
    "run_pipeline",
    "score",
    "score_shard",
    "write_run",
]
