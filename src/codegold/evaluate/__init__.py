"""Target matching, metrics, per-case records and slice aggregates."""

from codegold.evaluate.evaluator import chunk_matches, evaluate_case, invalid_reason
from codegold.evaluate.records import CaseResult, Diagnosis, RankedEntry
from codegold.evaluate.run import evaluate_attempts
from codegold.evaluate.summary import aggregate, slice_names, summarize

__all__ = [
    "CaseResult",
    "Diagnosis",
    "RankedEntry",
    "aggregate",
    "chunk_matches",
    "evaluate_attempts",
    "evaluate_case",
    "invalid_reason",
    "slice_names",
    "summarize",
]
