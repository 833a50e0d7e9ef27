"""codegold: evaluate code retrieval at the cutoff the answer stage really gets.

The pipeline, one way only::

    cases + corpus -> index -> attempts -> results -> diagnosis -> reports, gate

The evaluator never calls a retriever: it reads attempts, so recorded and live runs
are judged by the same code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegold._lazy import lazy_getattr
from codegold.errors import CodegoldError, EnvironmentProblem, InputError

if TYPE_CHECKING:
    from codegold.api import (
        apply_gate,
        evaluate_attempts,
        load_attempts,
        load_suite,
        measure,
        run_reference,
        summarize,
    )
    from codegold.attempts import Attempt, RetrievedChunk
    from codegold.cases.suite import Suite
    from codegold.evaluate.records import CaseResult
    from codegold.gate import GateDecision

__version__ = "0.1.0"
EVALUATOR_VERSION = f"codegold-eval/{__version__}"

# The library API (codegold.api and the types it takes and returns), resolved on first
# use: `import codegold` stays as light as the CLI's start-up needs, and the package
# root, the facade over every stage, does not import them at load time.
_API: dict[str, str] = {
    "load_suite": "codegold.api",
    "load_attempts": "codegold.api",
    "evaluate_attempts": "codegold.api",
    "measure": "codegold.api",
    "run_reference": "codegold.api",
    "summarize": "codegold.api",
    "apply_gate": "codegold.api",
    "Suite": "codegold.cases.suite",
    "Attempt": "codegold.attempts",
    "RetrievedChunk": "codegold.attempts",
    "CaseResult": "codegold.evaluate.records",
    "GateDecision": "codegold.gate",
}


__getattr__ = lazy_getattr(__name__, _API, globals())


__all__ = [
    "EVALUATOR_VERSION",
    "Attempt",
    "CaseResult",
    "CodegoldError",
    "EnvironmentProblem",
    "GateDecision",
    "InputError",
    "RetrievedChunk",
    "Suite",
    "__version__",
    "apply_gate",
    "evaluate_attempts",
    "load_attempts",
    "load_suite",
    "measure",
    "run_reference",
    "summarize",
]
