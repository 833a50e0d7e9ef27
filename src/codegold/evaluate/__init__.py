"""Evaluation at the cutoff: per-case records, metrics and slice aggregates (target
matching itself lives beside the case contract, in :mod:`codegold.cases.match`)."""

from codegold.cases.match import chunk_matches
from codegold.evaluate.evaluator import evaluate_case, invalid_reason
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
