"""Entry point. Commands live in their own modules and are imported only when used,
so `codegold --help` stays fast (no numpy, tree-sitter or rich at start-up)."""

from __future__ import annotations

import importlib
import importlib.util
import os
import signal
import sys
import threading
from typing import Any

import click

from codegold.errors import CodegoldError

# name -> (module, attribute, one-line help). Built-ins are registered exactly like
# a third party would be: by import path.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "run": ("codegold.cli.run_cmd", "run", "Index, retrieve, evaluate and summarise a suite."),
    "batch": (
        "codegold.cli.batch_cmd",
        "batch",
        "Run many suites over many repositories and revisions (local or Ray).",
    ),
    "eval": ("codegold.cli.eval_cmd", "eval_", "Evaluate recorded attempts against a suite."),
    "index": ("codegold.cli.index_cmd", "index", "Index a repository at a revision."),
    "search": ("codegold.cli.index_cmd", "search", "Search an index, optionally explaining ranks."),
    "chunks": ("codegold.cli.index_cmd", "chunks", "Show how one file is chunked."),
    "retrieve": ("codegold.cli.run_cmd", "retrieve", "Retrieve for every case of a suite."),
    "schema": ("codegold.cli.eval_cmd", "schema", "Print the JSON Schema of a file format."),
    "compare": ("codegold.cli.compare_cmd", "compare", "Compare two runs case by case."),
    "gate": ("codegold.cli.compare_cmd", "gate", "Decide whether a run blocks CI."),
    "export-trec": ("codegold.cli.compare_cmd", "export_trec", "Write TREC qrels and run files."),
    "diagnose": ("codegold.cli.diagnose_cmd", "diagnose", "Explain failed cases."),
    "lint": ("codegold.cli.lint_cmd", "lint", "Check a suite's labels against a repository."),
    "report": ("codegold.cli.report_cmd", "report", "Write HTML or JUnit reports."),
    "tune": ("codegold.cli.tune_cmd", "tune", "Tune retriever weights on a training split."),
    "answers": ("codegold.cli.answers_cmd", "answers", "Join answer logs to retrieval attempts."),
    "draft": ("codegold.cli.draft_cmd", "draft", "Draft gold cases from engineering traces."),
    "freshness": (
        "codegold.cli.freshness_cmd",
        "freshness",
        "Report how far an index is behind its branch head.",
    ),
    "init": ("codegold.cli.draft_cmd", "init", "Scaffold a suite of draft cases for a repository."),
    "import": (
        "codegold.cli.import_cmd",
        "import_",
        "Import traces, SWE-bench-style datasets and TREC runs.",
    ),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(n for n, (mod, _, _) in COMMANDS.items() if _available(mod))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        spec = COMMANDS.get(cmd_name)
        if spec is None or not _available(spec[0]):
            return None
        module = importlib.import_module(spec[0])
        command: click.Command = getattr(module, spec[1])
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def _available(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


@click.group(cls=LazyGroup)
@click.version_option(package_name="codegold")
def cli() -> None:
    """Evaluate code retrieval at the real cutoff, and say which boundary broke.

    Exit codes: 0 ok, 1 gate blocked, 2 bad input or usage, 3 environment.
    """


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so every ``finally`` and atomic write cleans up
    (temp files, half-built index folders) exactly as for Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise Terminated


def _one_blas_thread() -> None:
    """numpy's OpenBLAS starts a thread per core as numpy is imported, which doubles
    numpy's import (about 40 ms of a search's 220). Every matrix product the commands
    do is a matrix times one vector (an index's vectors times a query, resamples times
    a run's values), where threads buy little, and one thread sums in one order on
    every machine. A value the user set wins; a numpy already imported is left alone."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: list[str] | None = None) -> Any:
    _one_blas_thread()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        result = cli.main(args=argv, standalone_mode=False)
        # click returns ctx.exit(n)'s code instead of raising when not standalone
        if isinstance(result, int) and not isinstance(result, bool):
            sys.exit(result)
        return result
    except CodegoldError as exc:
        click.echo(f"codegold: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except Terminated:
        click.echo("codegold: terminated", err=True)
        sys.exit(143)
    except OSError as exc:
        # Every command checks the folders it writes; this is the net under a write
        # or read that fails anyway (a disk filling up, a folder made read-only mid-run).
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"codegold: error: {where}{exc.strerror or exc}", err=True)
        sys.exit(3)
    except RecursionError:
        # Every reader bounds its own input; this is the net under one that does not.
        click.echo("codegold: error: an input file is nested too deeply to read", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("codegold: aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
