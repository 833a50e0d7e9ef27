"""Choose the reference retriever's weights on a training split of cases, and report
them on the cases they were not chosen on (SPEC §6 *tune*).

The split
    A case is **held out** when ``int(sha256(caseId)[:16 hex], 16) / 2**64 < holdout``.
    The fraction depends on the case id alone, so reordering a suite moves nothing and
    adding cases never moves an old one from one side to the other.

The search
    Seeded random search over a bounded, discrete space (:func:`search_space`): the
    fusion and rerank weights of :class:`~codegold.retrieve.config.RetrieverConfig`.
    Trial 0 is the default configuration. Every later trial changes one to four knobs,
    starting from the default or from the best configuration so far (a coin flip), and
    never evaluates the same configuration twice. Each trial retrieves the **train**
    cases only and scores them with the evaluator. The best trial has the highest
    ``metric`` (``passRate`` or ``mrr``); ties go to fewer changes from the default,
    then to the other metric, then to the earlier trial. Finally each change of the
    winner is reverted in turn and dropped when the train figures (metric, then the
    other metric) do not get worse, so every change left has earned its place.

Held-out figures
    The chosen and the default configuration are then evaluated on the held-out cases
    and reported side by side, with the train figures of both. Held-out figures are
    **never** reported for a configuration chosen on those cases: ``holdout=0`` reports
    train figures only and says so, and evaluating a tuned file (:func:`evaluate_tuned`)
    whose metadata lists any current held-out case among its training cases raises
    :class:`TuneRefused`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from codegold import __version__
from codegold.attempts import Attempt
from codegold.cases.suite import ResolvedCase, Suite
from codegold.errors import InputError, TuneRefused
from codegold.evaluate.evaluator import evaluate_case
from codegold.evaluate.metrics import METRICS as REGISTRY
from codegold.evaluate.records import CaseResult
from codegold.evaluate.summary import aggregate
from codegold.index.store import LoadedIndex
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever
from codegold.retrieve.runner import attempt_id

__all__ = [
    "METRICS",
    "SPLIT_RULE",
    "Param",
    "Split",
    "Trial",
    "TuneRefused",
    "TuneResult",
    "changes_from_default",
    "check_unseen",
    "evaluate_tuned",
    "holdout_fraction",
    "load_tuned",
    "search_space",
    "split_cases",
    "tune",
]

METRICS = ("passRate", "mrr")
"""The registered metrics a search may maximise."""
SPLIT_RULE = "held out when int(sha256(caseId).hexdigest()[:16], 16) / 2**64 < holdout"
SMALL_HELD_OUT = 20
REPORTED = tuple(m.name for m in REGISTRY.values() if not m.optional and m.name != "records")
"""The figures of each split and trial: every registered metric but the record count and
the optional ones."""


# -- the split -----------------------------------------------------------------------


def holdout_fraction(case_id: str) -> float:
    """Where a case falls in [0, 1): a function of its id alone."""
    digest = hashlib.sha256(case_id.encode("utf-8")).hexdigest()
    return int(digest[:16], 16) / 2**64


@dataclass(frozen=True)
class Split:
    """Case ids on each side, each sorted."""

    holdout: float
    train: tuple[str, ...]
    held_out: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": SPLIT_RULE,
            "holdout": self.holdout,
            "trainCaseIds": list(self.train),
            "heldOutCaseIds": list(self.held_out),
        }


def split_cases(case_ids: Iterable[str], holdout: float) -> Split:
    """Split by :func:`holdout_fraction`; ``holdout`` is in [0, 1)."""
    if not 0.0 <= holdout < 1.0:
        raise InputError("holdout must be in [0, 1)", field="holdout")
    train: list[str] = []
    held: list[str] = []
    for case_id in case_ids:
        (held if holdout_fraction(case_id) < holdout else train).append(case_id)
    return Split(holdout=holdout, train=tuple(sorted(train)), held_out=tuple(sorted(held)))


# -- the space -----------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    """One knob and the values the search may give it (the default among them)."""

    name: str
    values: tuple[Any, ...]


_WEIGHTS = (
    Param("fusion", ("rrf", "weighted")),
    Param("rrf_k", (5.0, 10.0, 20.0, 25.0, 40.0, 60.0)),
    Param("w_lexical", (0.25, 0.5, 1.0, 1.5, 2.0, 3.0)),
    Param("w_symbol", (0.5, 1.0, 1.5, 2.0, 3.0)),
    Param("w_reference", (0.0, 0.15, 0.3, 0.6, 1.0)),
    Param("w_path", (0.5, 1.0, 1.5, 2.0)),
    Param("w_phrase", (0.5, 1.0, 1.5, 2.0, 3.0)),
    Param("w_callee", (0.0, 0.5, 1.0, 2.0)),
    Param("w_raise", (0.0, 1.0, 2.0, 3.0, 4.0)),
    Param("abbreviation_weight", (0.0, 0.25, 0.5, 1.0)),
)
_DENSE = Param("w_dense", (0.0, 0.5, 1.0, 1.5, 2.0))
_RERANK = (
    # 1 - strength * (1 - 0.3) stays positive for every value here
    Param("role_strength", (0.0, 0.5, 0.75, 1.0, 1.25)),
    Param("symbol_boost", (1.0, 1.15, 1.3, 1.6, 2.0)),
    Param("thin_factor", (0.25, 0.5, 0.75, 1.0)),
    Param("max_per_symbol", (0, 1, 2, 3)),
    # the precision stage over the top ``rerank_depth`` (with or without the model)
    Param("coverage_strength", (0.0, 0.1, 0.2, 0.35, 0.5)),
    Param("lexical_precision", (0.0, 0.5, 1.0, 1.5, 2.0)),
    Param("hub_power", (0.0, 0.25, 0.5, 1.0)),
    Param("rerank_depth", (10, 20, 30, 50)),
    # prose questions: a chunk whose name the words spell; types below code that acts
    Param("name_match", (0.0, 0.25, 0.5, 1.0)),
    Param("type_factor", (0.5, 0.7, 0.85, 1.0)),
    # three-word runs of a pasted message
    Param("phrase_fragments", (0.0, 0.5, 1.0, 2.0)),
)
_LEGACY = Param("legacy_factor", (0.1, 0.2, 0.35, 0.6, 1.0))
_GENERATED = Param("generated_factor", (0.1, 0.2, 0.35, 0.6, 1.0))
_BUILD_TAG = Param("build_tag_factor", (0.1, 0.35, 0.6, 1.0))
_CONTEXT = {
    "openFile": Param("open_file_boost", (1.0, 1.1, 1.25, 1.5, 2.0)),
    "pathPrefix": Param("path_prefix_boost", (1.0, 1.25, 1.5, 2.0, 3.0)),
    "language": Param("language_boost", (1.0, 1.15, 1.3, 1.5)),
    "package": Param("package_boost", (1.0, 1.2, 1.5)),
}


def search_space(
    *,
    dense: bool = False,
    legacy: bool = True,
    generated: bool = True,
    context: Iterable[str] = ("openFile", "pathPrefix", "language", "package"),
) -> tuple[Param, ...]:
    """The knobs worth searching: a knob with no effect on this data is left out, so
    trials are not spent on it (no vectors → no ``w_dense``; no legacy chunks → no
    ``legacy_factor``; a boost for an editor-context field (``openFile``,
    ``pathPrefix``, ``language``, ``package``) only when ``context`` names it)."""
    params: list[Param] = [*_WEIGHTS]
    if dense:
        params.append(_DENSE)
    params.extend(_RERANK)
    if legacy:
        params.append(_LEGACY)
    if generated:
        params.append(_GENERATED)
    params.append(_BUILD_TAG)
    wanted = set(context)
    params.extend(param for name, param in _CONTEXT.items() if name in wanted)
    return tuple(params)


def changes_from_default(config: RetrieverConfig) -> dict[str, dict[str, Any]]:
    """``{knob: {"default": d, "chosen": v}}`` for every setting that differs."""
    default = RetrieverConfig().to_dict()
    mine = config.to_dict()
    return {
        name: {"default": default[name], "chosen": mine[name]}
        for name in sorted(mine)
        if mine[name] != default[name]
    }


def _key(config: RetrieverConfig, space: Sequence[Param]) -> tuple[Any, ...]:
    return tuple(getattr(config, p.name) for p in space)


def _propose(rng: random.Random, space: Sequence[Param], base: RetrieverConfig) -> RetrieverConfig:
    k = min(len(space), rng.choice((1, 1, 2, 2, 3, 4)))
    changed: dict[str, Any] = {}
    for param in rng.sample(list(space), k):
        current = getattr(base, param.name)
        choices = [v for v in param.values if v != current]
        if choices:
            changed[param.name] = rng.choice(choices)
    return dataclasses.replace(base, **changed)


# -- scoring -------------------------------------------------------------------------


class _CachedEmbedder:
    """The same query is embedded once, however many trials ask."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._queries: dict[str, Any] = {}

    def embed_query(self, text: str) -> Any:
        if text not in self._queries:
            self._queries[text] = self._inner.embed_query(text)
        return self._queries[text]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


@dataclass
class _Scorer:
    cases: Mapping[str, ResolvedCase]
    indexes: Mapping[str, LoadedIndex]
    embedder: Any = None

    def records(self, config: RetrieverConfig, case_ids: Sequence[str]) -> list[CaseResult]:
        retrievers: dict[str, HybridRetriever] = {}
        out: list[CaseResult] = []
        for case_id in case_ids:
            case = self.cases[case_id]
            if case.revision not in retrievers:
                retrievers[case.revision] = HybridRetriever(
                    self.indexes[case.revision], config, embedder=self.embedder
                )
            attempt: Attempt = retrievers[case.revision].retrieve(
                case.query,
                case_id=case.id,
                context=case.context,
                attempt_id=attempt_id(case.id, 1),
                cutoff=case.cutoff,
            )
            out.append(evaluate_case(case, attempt, mode="live"))
        return out


def _figures(records: Sequence[CaseResult]) -> dict[str, Any]:
    summary = aggregate(records)
    return {k: summary[k] for k in REPORTED}


def _value(figures: Mapping[str, Any], metric: str) -> float:
    value = figures.get(metric)
    return float(value) if value is not None else -1.0


@dataclass(frozen=True)
class Trial:
    """One evaluated configuration and its train figures."""

    number: int
    origin: str
    config: RetrieverConfig
    figures: dict[str, Any]

    @property
    def changes(self) -> dict[str, dict[str, Any]]:
        return changes_from_default(self.config)

    def sort_key(self, metric: str) -> tuple[float, int, float, int]:
        other = _other(metric)
        return (
            _value(self.figures, metric),
            -len(self.changes),
            _value(self.figures, other),
            -self.number,
        )

    def to_dict(self, metric: str) -> dict[str, Any]:
        other = _other(metric)
        return {
            "trial": self.number,
            "origin": self.origin,
            "changes": {k: v["chosen"] for k, v in self.changes.items()},
            metric: self.figures[metric],
            other: self.figures[other],
        }


@dataclass(frozen=True)
class TuneResult:
    """What a tuning (or an evaluation of a tuned file) found."""

    mode: str
    suite: Suite
    split: Split
    metric: str
    seed: int | None
    trials_requested: int
    space: tuple[Param, ...]
    trials: tuple[Trial, ...]
    chosen: RetrieverConfig
    chosen_trial: int | None
    train: dict[str, dict[str, Any]]
    held_out: dict[str, Any] | None
    index_builds: tuple[str, ...]
    notes: tuple[str, ...] = ()
    tuned_on: tuple[str, ...] = field(default_factory=tuple)

    def metadata(self) -> dict[str, Any]:
        """The ``tune`` section of the written file: deterministic, no wall-clock time."""
        return {
            "codegoldVersion": __version__,
            "mode": self.mode,
            "suite": {
                "name": self.suite.name,
                "file": Path(self.suite.path).name,
                "digest": self.suite.digest,
                "cases": len(self.suite.cases),
            },
            "indexBuilds": list(self.index_builds),
            "split": self.split.to_dict(),
            # the cases this configuration was chosen on: what `check_unseen` reads
            "tunedOnCaseIds": list(self.tuned_on),
            "search": {
                "metric": self.metric,
                "seed": self.seed,
                "trialsRequested": self.trials_requested,
                "trialsEvaluated": len(self.trials),
                "chosenTrial": self.chosen_trial,
                "tieBreak": "fewer changes from default, then the other metric, then earlier",
                "space": {p.name: list(p.values) for p in self.space},
                "trials": [t.to_dict(self.metric) for t in self.trials],
            },
            "changes": changes_from_default(self.chosen),
            "train": self.train,
            "heldOut": self.held_out,
            "notes": list(self.notes),
        }

    def document(self) -> dict[str, Any]:
        """``{"retriever": {...}, "tune": {...}}``: what ``codegold run --config`` reads."""
        return {"retriever": self.chosen.to_dict(), "tune": self.metadata()}


# -- the two entry points --------------------------------------------------------------


def _context_fields(cases: Iterable[ResolvedCase]) -> set[str]:
    used: set[str] = set()
    for case in cases:
        ctx = case.context
        if ctx is None:
            continue
        for name, value in (
            ("openFile", ctx.open_file),
            ("pathPrefix", ctx.path_prefix),
            ("language", ctx.language),
            ("package", ctx.package),
        ):
            if value:
                used.add(name)
    return used


def _space_for(suite: Suite, indexes: Mapping[str, LoadedIndex]) -> tuple[Param, ...]:
    loaded = list(indexes.values())
    return search_space(
        dense=any(i.vectors is not None for i in loaded),
        legacy=any(
            c.file_role == "migration" or c.role == "migration" for i in loaded for c in i.chunks
        ),
        generated=any(
            c.file_role == "generated" or c.role == "generated" for i in loaded for c in i.chunks
        ),
        context=_context_fields(suite.cases),
    )


def _held_out_report(
    scorer: _Scorer,
    split: Split,
    default: RetrieverConfig,
    chosen: RetrieverConfig,
    *,
    chosen_here: bool,
) -> tuple[dict[str, Any] | None, list[str]]:
    notes: list[str] = []
    if not split.held_out:
        if split.holdout == 0:
            notes.append(
                "no held-out split (holdout 0): train figures only"
                + (
                    "; they are on the cases the configuration was chosen on, so they are "
                    "optimistic"
                    if chosen_here
                    else ""
                )
            )
        else:
            notes.append(
                f"the held-out split is empty (holdout {split.holdout} over "
                f"{len(split.train)} cases): no held-out figures"
            )
        return None, notes
    base = scorer.records(default, split.held_out)
    mine = scorer.records(chosen, split.held_out)
    improved = [
        b.case_id
        for b, m in zip(base, mine, strict=True)
        if (m.passed, m.reciprocal_rank or 0.0) > (b.passed, b.reciprocal_rank or 0.0)
    ]
    regressed = [
        b.case_id
        for b, m in zip(base, mine, strict=True)
        if (m.passed, m.reciprocal_rank or 0.0) < (b.passed, b.reciprocal_rank or 0.0)
    ]
    n = len(split.held_out)
    if n < SMALL_HELD_OUT:
        notes.append(
            f"only {n} held-out case(s): one case moves the held-out pass rate by "
            f"{100 / n:.1f} points, so a difference this small says little"
        )
    report = {
        "default": _figures(base),
        "chosen": _figures(mine),
        "cases": {
            "improved": sorted(improved),
            "regressed": sorted(regressed),
            "passFlips": {
                "failedToPassed": sorted(
                    b.case_id for b, m in zip(base, mine, strict=True) if m.passed > b.passed
                ),
                "passedToFailed": sorted(
                    b.case_id for b, m in zip(base, mine, strict=True) if m.passed < b.passed
                ),
            },
        },
    }
    return report, notes


def tune(
    suite: Suite,
    indexes: Mapping[str, LoadedIndex],
    *,
    holdout: float = 0.3,
    trials: int = 40,
    seed: int = 0,
    metric: str = "passRate",
    embedder: Any = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> TuneResult:
    """Search weights on the train split; report chosen vs default on both splits.

    ``indexes`` maps each revision the suite pins to its loaded index (built once by
    the caller). The held-out cases are never retrieved until the choice is made.
    """
    if metric not in METRICS:
        raise InputError(f"metric must be one of {', '.join(METRICS)}", field="metric")
    if trials < 1:
        raise InputError("trials must be at least 1", field="trials")
    split = split_cases((c.id for c in suite.cases), holdout)
    if not split.train:
        raise InputError(
            f"no training cases: holdout {holdout} puts all {len(suite.cases)} case(s) "
            "in the held-out split",
            field="holdout",
        )
    scorer = _Scorer(
        suite.by_id(), indexes, _CachedEmbedder(embedder) if embedder is not None else None
    )
    space = _space_for(suite, indexes)
    rng = random.Random(seed)
    default = RetrieverConfig()
    seen = {_key(default, space)}
    done: list[Trial] = [
        Trial(0, "default", default, _figures(scorer.records(default, split.train)))
    ]
    best = done[0]
    if progress:
        progress("tuning", 1, trials)
    for number in range(1, trials):
        origin = "best" if best.number != 0 and rng.random() < 0.5 else "default"
        start = best.config if origin == "best" else default
        candidate = None
        for _ in range(64):
            proposal = _propose(rng, space, start)
            if _key(proposal, space) not in seen:
                candidate = proposal
                break
        if candidate is None:
            break  # the space near here is exhausted
        seen.add(_key(candidate, space))
        trial = Trial(number, origin, candidate, _figures(scorer.records(candidate, split.train)))
        done.append(trial)
        if trial.sort_key(metric) > best.sort_key(metric):
            best = trial
        if progress:
            progress("tuning", number + 1, trials)
    best = _prune(best, done, scorer, split, metric, seen, space)
    held, notes = _held_out_report(scorer, split, default, best.config, chosen_here=True)
    if best.number == 0:
        notes.insert(0, "no trial beat the default configuration on the train split")
    return TuneResult(
        mode="search",
        suite=suite,
        split=split,
        metric=metric,
        seed=seed,
        trials_requested=trials,
        space=space,
        trials=tuple(done),
        chosen=best.config,
        chosen_trial=best.number,
        train={"default": done[0].figures, "chosen": best.figures},
        held_out=held,
        index_builds=_builds(indexes),
        notes=tuple(notes),
        tuned_on=split.train,
    )


def _prune(
    best: Trial,
    done: list[Trial],
    scorer: _Scorer,
    split: Split,
    metric: str,
    seen: set[tuple[Any, ...]],
    space: Sequence[Param],
) -> Trial:
    """Revert the winner's changes one at a time, keeping a revert whenever the train
    figures do not get worse: a knob that rode along with a useful one is dropped."""
    default = RetrieverConfig()
    improved = True
    while improved and best.number != 0:
        improved = False
        for name in sorted(best.changes):
            if name not in {p.name for p in space}:
                continue
            reverted = dataclasses.replace(best.config, **{name: getattr(default, name)})
            key = _key(reverted, space)
            if key in seen:
                known = next((t for t in done if _key(t.config, space) == key), None)
                if known is None:
                    continue
                trial = known
            else:
                seen.add(key)
                trial = Trial(
                    len(done), "prune", reverted, _figures(scorer.records(reverted, split.train))
                )
                done.append(trial)
            if (_value(trial.figures, metric), _value(trial.figures, _other(metric))) >= (
                _value(best.figures, metric),
                _value(best.figures, _other(metric)),
            ):
                best = trial
                improved = True
                break
    return best


def _other(metric: str) -> str:
    return "mrr" if metric == "passRate" else "passRate"


def _builds(indexes: Mapping[str, LoadedIndex]) -> tuple[str, ...]:
    return tuple(indexes[r].manifest.build_id for r in sorted(indexes))


def load_tuned(path: str | Path) -> tuple[RetrieverConfig, dict[str, Any] | None]:
    """A configuration file and, when ``tune`` wrote it, its ``tune`` metadata."""
    p = Path(path)
    config = RetrieverConfig.load(p)
    meta: dict[str, Any] | None = None
    if p.suffix == ".json":
        raw = msgspec.json.decode(p.read_bytes())
        if isinstance(raw, dict) and isinstance(raw.get("tune"), dict):
            meta = raw["tune"]
    return config, meta


def check_unseen(meta: Mapping[str, Any] | None, split: Split, *, source: str) -> None:
    """Raise :class:`TuneRefused` when ``meta`` says the configuration was chosen on any
    case of ``split.held_out``."""
    if meta is None or not split.held_out:
        return
    tuned_on = meta.get("tunedOnCaseIds")
    if tuned_on is None:
        tuned_on = (meta.get("split") or {}).get("trainCaseIds", [])
    overlap = sorted(set(tuned_on) & set(split.held_out))
    if overlap:
        shown = ", ".join(overlap[:5]) + (", …" if len(overlap) > 5 else "")
        raise TuneRefused(
            f"refusing to report held-out figures: this configuration was tuned on "
            f"{len(overlap)} of the {len(split.held_out)} held-out case(s) ({shown}); "
            "evaluate it on the split it was tuned with, or on cases it never saw",
            file=source,
        )


def evaluate_tuned(
    suite: Suite,
    indexes: Mapping[str, LoadedIndex],
    config: RetrieverConfig,
    meta: Mapping[str, Any] | None,
    *,
    holdout: float = 0.3,
    metric: str = "passRate",
    embedder: Any = None,
    source: str = "config",
) -> TuneResult:
    """Report a given configuration next to the default, on both splits, without
    searching. Refuses (:class:`TuneRefused`) when ``meta`` says it was tuned on any
    held-out case."""
    if metric not in METRICS:
        raise InputError(f"metric must be one of {', '.join(METRICS)}", field="metric")
    split = split_cases((c.id for c in suite.cases), holdout)
    check_unseen(meta, split, source=source)
    scorer = _Scorer(
        suite.by_id(), indexes, _CachedEmbedder(embedder) if embedder is not None else None
    )
    default = RetrieverConfig()
    train: dict[str, dict[str, Any]] = {}
    if split.train:
        train = {
            "default": _figures(scorer.records(default, split.train)),
            "chosen": _figures(scorer.records(config, split.train)),
        }
    held, notes = _held_out_report(scorer, split, default, config, chosen_here=False)
    tuned_on: tuple[str, ...] = ()
    if meta is None:
        notes.insert(
            0,
            "the configuration carries no tuning metadata: nothing shows which cases it "
            "was chosen on",
        )
    else:
        listed = meta.get("tunedOnCaseIds", (meta.get("split") or {}).get("trainCaseIds", []))
        tuned_on = tuple(sorted(listed))
        inside = sorted(set(tuned_on) & set(split.train))
        if inside:
            notes.append(
                f"{len(inside)} of the {len(split.train)} train case(s) are cases the "
                "configuration was tuned on: its train figures are in-sample"
            )
    return TuneResult(
        mode="evaluate",
        suite=suite,
        split=split,
        metric=metric,
        seed=None,
        trials_requested=0,
        space=(),
        trials=(),
        chosen=config,
        chosen_trial=None,
        train=train,
        held_out=held,
        index_builds=_builds(indexes),
        notes=tuple(notes),
        tuned_on=tuned_on,
    )
