"""codegold: evaluate code retrieval at the cutoff the answer stage really gets.

The pipeline, one way only::

    cases + corpus -> index -> attempts -> results -> diagnosis -> reports, gate

The evaluator never calls a retriever: it reads attempts, so recorded and live runs
are judged by the same code.
"""

from codegold.errors import CodegoldError, EnvironmentProblem, InputError

__version__ = "0.1.0"
EVALUATOR_VERSION = f"codegold-eval/{__version__}"

__all__ = [
    "EVALUATOR_VERSION",
    "CodegoldError",
    "EnvironmentProblem",
    "InputError",
    "__version__",
]
