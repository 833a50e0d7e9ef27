"""`codegold tune`: wiring only (the search lives in :mod:`codegold.tune`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from codegold.cli._options import cases_option, embedder_option, policy_option, repo_option
from codegold.cli.index_cmd import DEFAULT_INDEX, resolve_embedder

if TYPE_CHECKING:
    from codegold.tune import TuneResult


@click.command("tune")
@cases_option
@repo_option
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_INDEX,
    show_default=True,
    help="Index root. Missing builds are made, once, before the search.",
)
@policy_option
@click.option(
    "--holdout",
    type=click.FloatRange(min=0.0, max=1.0, max_open=True),
    default=0.3,
    show_default=True,
    help="Share of cases held out (by a hash of the case id). 0: train figures only.",
)
@click.option(
    "--trials",
    type=click.IntRange(min=1),
    default=40,
    show_default=True,
    help="Configurations to evaluate, the default (trial 0) included.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the search.")
@click.option(
    "--metric",
    type=click.Choice(["passRate", "mrr"]),
    default="passRate",
    show_default=True,
    help="What the search maximises on the train split.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="Evaluate this configuration (e.g. an earlier `tune` output) instead of searching. "
    "Refused when it was tuned on any of the current held-out cases.",
)
@click.option(
    "--out",
    "out_path",
    type=click.Path(path_type=Path, dir_okay=False),
    default=None,
    help="JSON to write: {retriever, tune}; `codegold run --config` reads it. "
    "Required unless --config.",
)
@embedder_option
@click.option("--quiet", is_flag=True, help="Print nothing but errors.")
def tune(
    cases_path: Path,
    repo_path: Path,
    index_dir: Path,
    policy_path: Path | None,
    holdout: float,
    trials: int,
    seed: int,
    metric: str,
    config_path: Path | None,
    out_path: Path | None,
    embedder: str,
    quiet: bool,
) -> None:
    """Tune the reference retriever's weights on a training split of the cases and
    report the result on the held-out split, next to the default configuration.

    Cases are split by a hash of their id, so the split survives reordering and new
    cases. Exits 2 on bad input, and when asked for held-out figures of a
    configuration tuned on those very cases.
    """
    from codegold._io import write_json_atomic
    from codegold.cases import load_suite
    from codegold.cli._progress import echo_err, progress_bar
    from codegold.corpus.git import GitRepo
    from codegold.errors import InputError
    from codegold.index.store import IndexCache
    from codegold.pipeline import index_revisions
    from codegold.tune import evaluate_tuned, load_tuned
    from codegold.tune import tune as run_tune

    if out_path is None and config_path is None:
        raise InputError("--out is required when searching (it receives the chosen config)")
    suite = load_suite(cases_path)
    provider = resolve_embedder(embedder)
    given = load_tuned(config_path) if config_path is not None else None
    if given is not None and config_path is not None:
        # refuse before any index is built or any case retrieved
        from codegold.tune import check_unseen, split_cases

        check_unseen(
            given[1], split_cases((c.id for c in suite.cases), holdout), source=str(config_path)
        )
    with GitRepo(repo_path) as git, progress_bar() as report:
        index_revisions(
            git,
            suite.revisions,
            index_dir,
            policy_path=policy_path,
            embedder=provider,
            repository_name=suite.repository_name,
            progress=report,
            log=None if quiet else echo_err,
        )
        cache = IndexCache(index_dir)
        indexes = {rev: cache.get(rev) for rev in suite.revisions}
        if given is not None:
            result = evaluate_tuned(
                suite,
                indexes,
                given[0],
                given[1],
                holdout=holdout,
                metric=metric,
                embedder=provider,
                source=str(config_path),
            )
        else:
            result = run_tune(
                suite,
                indexes,
                holdout=holdout,
                trials=trials,
                seed=seed,
                metric=metric,
                embedder=provider,
                progress=report,
            )
    if out_path is not None:
        write_json_atomic(out_path, result.document())
    if not quiet:
        for line in describe(result):
            click.echo(line)
        if out_path is not None:
            click.echo(f"wrote {out_path}")


def describe(result: TuneResult) -> list[str]:
    """The terminal report: split, search, figures side by side, notes."""
    split = result.split
    lines = [
        f"split: {len(split.train)} train / {len(split.held_out)} held-out case(s) "
        f"(sha256 of the case id, holdout {split.holdout:g})"
    ]
    if result.mode == "search":
        changes = result.metadata()["changes"]
        shown = ", ".join(f"{k} {v['default']}→{v['chosen']}" for k, v in changes.items()) or "none"
        pruned = sum(1 for t in result.trials if t.origin == "prune")
        lines.append(
            f"search: {len(result.trials) - pruned} trial(s) + {pruned} pruning, seed "
            f"{result.seed}, maximising "
            f"{result.metric} on the train split; chosen trial {result.chosen_trial} "
            f"({len(changes)} change(s): {shown})"
        )
    else:
        lines.append("evaluating the given configuration (no search)")
    columns: list[tuple[str, dict[str, Any]]] = []
    if result.train:
        columns += [
            ("train default", result.train["default"]),
            ("train chosen", result.train["chosen"]),
        ]
    if result.held_out is not None:
        columns += [
            ("held-out default", result.held_out["default"]),
            ("held-out chosen", result.held_out["chosen"]),
        ]
    from codegold.evaluate.metrics import metric

    def figure(name: str) -> tuple[str, Callable[[dict[str, Any]], str]]:
        m = metric(name)
        return m.label, lambda f: m.render(f[m.name], missing="—")

    rows: tuple[tuple[str, Callable[[dict[str, Any]], str]], ...] = (
        ("cases (valid)", lambda f: f"{f['cases']} ({f['valid']})"),
        figure("passed"),
        figure("passRate"),
        figure("hitRate"),
        figure("meanGroupRecall"),
        figure("mrr"),
    )
    width = max(len(name) for name, _ in columns) if columns else 0
    lines.append(" " * 14 + "".join(f"{name:>{width + 2}}" for name, _ in columns))
    for label, render in rows:
        lines.append(f"{label:<14}" + "".join(f"{render(f):>{width + 2}}" for _, f in columns))
    if result.held_out is not None:
        flips = result.held_out["cases"]
        lines.append(
            f"held-out cases: {len(flips['improved'])} improved, "
            f"{len(flips['regressed'])} regressed"
            + (f" (regressed: {', '.join(flips['regressed'])})" if flips["regressed"] else "")
        )
    else:
        lines.append("held-out: none reported")
    lines.extend(f"note: {n}" for n in result.notes)
    return lines
