"""The one error hierarchy of codegold.

::

    CodegoldError            anything codegold raises on purpose
    ├── InputError           bad user input: a suite, attempts, policy, flag (exit 2)
    │   ├── TuneRefused      held-out figures asked of a config tuned on those cases
    │   └── ChunkProblem     a recorded chunk codegold cannot locate (codegold.resolve)
    └── EnvironmentProblem   the machine lacks something: git, an optional extra (exit 3)
        └── DamagedIndex     an index build whose files fail its manifest (index.store)

Registries (retrievers, embedders, languages) raise these too: a bad or taken name is
an InputError, a plugin that fails to load an EnvironmentProblem. The CLI turns each
into a one-line message and its exit code.
"""

from __future__ import annotations


class CodegoldError(Exception):
    """Base of every error codegold raises on purpose."""

    exit_code = 2


class InputError(CodegoldError):
    """Bad input, named by file, case and field wherever they are known."""

    exit_code = 2

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        case_id: str | None = None,
        field: str | None = None,
        line: int | None = None,
    ) -> None:
        self.file = file
        self.case_id = case_id
        self.field = field
        self.line = line
        self.detail = message
        super().__init__(self._render())

    def _render(self) -> str:
        where: list[str] = []
        if self.file:
            where.append(f"{self.file}:{self.line}" if self.line else self.file)
        if self.case_id:
            where.append(f"case {self.case_id!r}")
        if self.field:
            where.append(f"field {self.field!r}")
        prefix = ", ".join(where)
        return f"{prefix}: {self.detail}" if prefix else self.detail


class EnvironmentProblem(CodegoldError):
    """Something outside the input is missing: git, an optional extra, a model."""

    exit_code = 3


class TuneRefused(InputError):
    """Held-out figures were asked for a configuration chosen on those cases."""


def missing_extra(extra: str, what: str) -> EnvironmentProblem:
    """The error for an optional part whose extra is not installed."""
    return EnvironmentProblem(f"{what} needs the '{extra}' extra: pip install 'codegold[{extra}]'")
