"""Evaluate every case of a suite against a set of attempts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from codegold.attempts import Attempt
from codegold.cases.suite import Suite
from codegold.evaluate.evaluator import evaluate_case
from codegold.evaluate.records import CaseResult


def evaluate_attempts(
    suite: Suite, attempts: Iterable[Attempt], *, mode: str = "recorded"
) -> list[CaseResult]:
    """One record per attempt, in suite order then attempt order; a case with no
    attempt yields one failed record (cause ``no_attempt``), never silence. ``mode``
    (``live``, ``recorded``) goes on every record; an attempt that declares itself
    ``imported`` makes its record ``imported``.

    Attempts are evaluated as they stream in, so only the records stay in memory.
    """
    cases = suite.by_id()
    by_case: dict[str, list[CaseResult]] = defaultdict(list)
    imported = seen = 0
    for attempt in attempts:
        seen += 1
        imported += attempt.mode == "imported"
        case = cases.get(attempt.case_id)
        if case is not None:
            by_case[attempt.case_id].append(evaluate_case(case, attempt, mode=mode))
    # a case the import left without an attempt is part of the imported run
    missing_mode = "imported" if seen and imported == seen else mode
    records: list[CaseResult] = []
    for case in suite.cases:
        mine = by_case.get(case.id)
        records.extend(mine if mine else [evaluate_case(case, None, mode=missing_mode)])
    return records
