"""Evaluate every case of a suite against a set of attempts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from codegold.attempts import Attempt
from codegold.cases.suite import Suite
from codegold.evaluate.evaluator import evaluate_case
from codegold.evaluate.records import CaseResult


def evaluate_attempts(suite: Suite, attempts: Sequence[Attempt]) -> list[CaseResult]:
    """One record per attempt, in suite order then attempt order; a case with no
    attempt yields one failed record (cause ``no_attempt``), never silence."""
    by_case: dict[str, list[Attempt]] = defaultdict(list)
    for attempt in attempts:
        by_case[attempt.case_id].append(attempt)
    records: list[CaseResult] = []
    for case in suite.cases:
        mine = by_case.get(case.id)
        if not mine:
            records.append(evaluate_case(case, None))
            continue
        records.extend(evaluate_case(case, a) for a in mine)
    return records
