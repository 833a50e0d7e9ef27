"""`codegold tune`: a stable split, a search on train only, held-out figures only for
configurations that never saw those cases, and a file `codegold run --config` reads.

A real git repository where the default role preference hurts: questions answered by
tests but phrased without "test", so only a weaker role preference passes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from codegold.cases import load_suite
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import PathPolicy
from codegold.index.build import build_index
from codegold.index.store import open_index
from codegold.retrieve.config import RetrieverConfig
from codegold.tune import (
    SPLIT_RULE,
    TuneRefused,
    evaluate_tuned,
    holdout_fraction,
    search_space,
    split_cases,
    tune,
)
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

TOPICS = (
    "record",
    "invoice",
    "session",
    "ticket",
    "order",
    "payment",
    "profile",
    "report",
    "upload",
    "message",
    "comment",
    "account",
)


def _files() -> dict[str, str]:
    files: dict[str, str] = {}
    for t in TOPICS:
        files[f"src/{t}_store.py"] = (
            f'def save_{t}(item, db):\n    """Persist one {t} to the database."""\n'
            f"    db.put(item)\n    return item\n\n\n"
            f'def load_{t}(key, db):\n    """Fetch one {t} by key."""\n    return db.get(key)\n'
        )
        files[f"tests/test_{t}_store.py"] = (
            f"from src.{t}_store import save_{t}\n\n\n"
            f"def test_save_{t}_persists_{t}_to_database(db):\n"
            f"    item = object()\n    save_{t}(item, db)\n    assert db.get(item) is item\n"
        )
    return files


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for t in TOPICS:
        cases.append(
            {
                "id": f"{t}-test",
                "query": f"saving a {t} persists the {t} to the database",
                # with the test open: test code waits for the code only when no test
                # file is open (max_tooling), so the role preference is what decides
                "context": {"openFile": f"tests/test_{t}_store.py"},
                "cutoff": 1,
                "accepted": [{"file": f"tests/test_{t}_store.py", "roles": ["test"]}],
            }
        )
        cases.append(
            {
                "id": f"{t}-load",
                "query": f"how is a {t} fetched by key",
                "cutoff": 1,
                "accepted": [
                    {"file": f"src/{t}_store.py", "symbol": f"load_{t}", "roles": ["definition"]}
                ],
            }
        )
    return cases


def _write_suite(path: Path, revision: str, cases: list[dict[str, Any]]) -> Path:
    suite = {"suite": "tune-fixture", "repository": {"name": "fx", "revision": revision}}
    path.write_text(json.dumps({**suite, "cases": cases}, indent=1))
    return path


@pytest.fixture(scope="module")
def fixture(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tune")
    repo, (sha,) = make_repo(root, [_files()])
    suite = _write_suite(root / "suite.json", sha, _cases())
    index = root / "index"
    with GitRepo(repo) as git:
        build_index(git, sha, index, policy=PathPolicy())
    return {"root": root, "repo": repo, "suite": suite, "index": index}


def _tune_cli(fx: dict[str, Path], *args: str, suite: Path | None = None) -> Any:
    return run_cli(
        "tune",
        "--cases",
        str(suite or fx["suite"]),
        "--repo",
        str(fx["repo"]),
        "--index",
        str(fx["index"]),
        "--embedder",
        "none",
        *args,
    )


# -- the split -----------------------------------------------------------------------


def test_split_is_a_function_of_the_case_id_alone() -> None:
    ids = [f"case-{i}" for i in range(400)]
    split = split_cases(ids, 0.3)
    reordered = split_cases(list(reversed(ids)), 0.3)
    grown = split_cases([*ids[::2], "new-a", *ids[1::2], "new-b"], 0.3)
    assert reordered == split
    assert set(split.held_out) <= set(grown.held_out)
    assert set(split.train) <= set(grown.train)
    assert set(grown.held_out) - set(split.held_out) <= {"new-a", "new-b"}
    # roughly the asked share, and a larger holdout only adds cases to the held-out side
    assert 0.22 < len(split.held_out) / len(ids) < 0.38
    assert set(split.held_out) <= set(split_cases(ids, 0.5).held_out)
    assert all(0.0 <= holdout_fraction(i) < 1.0 for i in ids)


@pytest.mark.parametrize("holdout", [-0.1, 1.0, 1.5], ids=["negative", "one", "above-one"])
def test_split_rejects_a_holdout_outside_zero_to_one(holdout: float) -> None:
    from codegold.errors import InputError

    with pytest.raises(InputError, match="holdout"):
        split_cases(["a"], holdout)


def test_the_precision_and_prose_knobs_are_searched() -> None:
    names = {p.name for p in search_space()}
    for knob in (
        "coverage_strength",
        "lexical_precision",
        "hub_power",
        "rerank_depth",
        "name_match",
        "type_factor",
        "phrase_fragments",
        "w_callee",
        "w_raise",
        "abbreviation_weight",
    ):
        assert knob in names, knob
        assert knob in RetrieverConfig().to_dict(), knob


def test_the_default_is_inside_every_searched_range() -> None:
    default = RetrieverConfig()
    for param in search_space(dense=True):
        assert getattr(default, param.name) in param.values, param.name


def test_split_through_the_cli_survives_reordering_and_new_cases(
    fixture: dict[str, Path], tmp_path: Path
) -> None:
    suite = load_suite(fixture["suite"])
    cases = _cases()
    extra = {
        "id": "brand-new-case",
        "query": "how is a ticket fetched by key",
        "cutoff": 1,
        "accepted": [{"file": "src/ticket_store.py", "symbol": "load_ticket"}],
    }
    moved = _write_suite(
        tmp_path / "moved.json", suite.cases[0].revision, [extra, *reversed(cases)]
    )
    docs = []
    for path, out in ((fixture["suite"], "a.json"), (moved, "b.json")):
        proc = _tune_cli(fixture, "--trials", "2", "--out", str(tmp_path / out), suite=path)
        assert proc.returncode == 0, proc.stderr
        docs.append(json.loads((tmp_path / out).read_text())["tune"]["split"])
    first, second = docs
    assert first["rule"] == SPLIT_RULE
    assert set(second["heldOutCaseIds"]) - {"brand-new-case"} == set(first["heldOutCaseIds"])
    assert set(second["trainCaseIds"]) - {"brand-new-case"} == set(first["trainCaseIds"])


# -- the search ------------------------------------------------------------------------


def test_search_never_retrieves_a_held_out_case_before_choosing(
    fixture: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    import codegold.tune as tune_module
    from codegold.retrieve.hybrid import HybridRetriever

    asked: list[str] = []

    class Spy(HybridRetriever):
        def retrieve(self, query: str, **kw: Any) -> Any:
            asked.append(kw["case_id"])
            return super().retrieve(query, **kw)

    monkeypatch.setattr(tune_module, "HybridRetriever", Spy)
    suite = load_suite(fixture["suite"])
    indexes = {r: open_index(fixture["index"], r) for r in suite.revisions}
    result = tune(suite, indexes, holdout=0.3, trials=12, seed=3)
    held = set(result.split.held_out)
    assert held and result.split.train
    tail = 2 * len(held)  # default and chosen, evaluated once each, after the search
    assert not held & set(asked[:-tail])
    assert set(asked[-tail:]) == held


def test_search_finds_the_knob_that_helps_and_reports_both_splits(
    fixture: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "best.json"
    # (the space holds the precision and prose knobs too: 80 trials reach role_strength)
    proc = _tune_cli(fixture, "--seed", "0", "--trials", "80", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    meta = doc["tune"]
    assert meta["search"]["trials"][0] == {
        "trial": 0,
        "origin": "default",
        "changes": {},
        "passRate": meta["train"]["default"]["passRate"],
        "mrr": meta["train"]["default"]["mrr"],
    }
    # pruning leaves only changes that earn their place: here, the role preference
    assert set(meta["changes"]) == {"role_strength"}
    assert meta["changes"]["role_strength"]["chosen"] < 1.0
    assert meta["train"]["chosen"]["passRate"] > meta["train"]["default"]["passRate"]
    held = meta["heldOut"]
    assert (
        held["chosen"]["cases"] == held["default"]["cases"] == len(meta["split"]["heldOutCaseIds"])
    )
    for key in ("passRate", "hitRate", "meanGroupRecall", "mrr", "passed", "valid"):
        assert key in held["chosen"] and key in held["default"]
    assert held["chosen"]["passRate"] >= held["default"]["passRate"]
    assert not set(meta["tunedOnCaseIds"]) & set(meta["split"]["heldOutCaseIds"])
    assert "held-out default" in proc.stdout and "held-out chosen" in proc.stdout
    assert any("held-out case(s)" in n for n in meta["notes"])  # 7 cases: said to be small


def test_search_is_reproducible_from_its_seed(fixture: dict[str, Path], tmp_path: Path) -> None:
    outs = []
    for name in ("one.json", "two.json"):
        proc = _tune_cli(
            fixture, "--trials", "8", "--seed", "7", "--quiet", "--out", str(tmp_path / name)
        )
        assert proc.returncode == 0, proc.stderr
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1]


# -- refusing held-out figures for a configuration tuned on them ---------------------------


def test_holdout_zero_reports_train_figures_only_and_says_so(
    fixture: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "all.json"
    proc = _tune_cli(fixture, "--holdout", "0", "--trials", "6", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    meta = json.loads(out.read_text())["tune"]
    assert meta["heldOut"] is None
    assert meta["split"]["heldOutCaseIds"] == []
    assert len(meta["tunedOnCaseIds"]) == len(_cases())
    assert any("train figures only" in n and "optimistic" in n for n in meta["notes"])
    assert "held-out: none reported" in proc.stdout
    assert "held-out default" not in proc.stdout


def test_refuses_held_out_figures_for_a_config_tuned_on_those_cases(
    fixture: dict[str, Path], tmp_path: Path
) -> None:
    tuned_on_all = tmp_path / "all.json"
    _tune_cli(fixture, "--holdout", "0", "--trials", "4", "--quiet", "--out", str(tuned_on_all))
    before = tuned_on_all.read_bytes()
    proc = _tune_cli(fixture, "--config", str(tuned_on_all), "--holdout", "0.3")
    assert proc.returncode == 2
    assert "refusing to report held-out figures" in proc.stderr
    assert "tuned on" in proc.stderr and str(tuned_on_all) in proc.stderr
    assert proc.stdout == ""
    assert tuned_on_all.read_bytes() == before
    # with no held-out split there is nothing to refuse: train figures, marked in-sample
    proc = _tune_cli(
        fixture, "--config", str(tuned_on_all), "--holdout", "0", "--out", str(tmp_path / "e.json")
    )
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((tmp_path / "e.json").read_text())["tune"]
    assert meta["mode"] == "evaluate" and meta["heldOut"] is None
    assert any("in-sample" in n for n in meta["notes"])
    # the taint travels with the file
    assert meta["tunedOnCaseIds"] == sorted(c["id"] for c in _cases())


def test_a_config_tuned_on_the_same_split_is_evaluated_on_its_held_out_cases(
    fixture: dict[str, Path], tmp_path: Path
) -> None:
    best = tmp_path / "best.json"
    _tune_cli(fixture, "--trials", "6", "--quiet", "--out", str(best))
    proc = _tune_cli(fixture, "--config", str(best), "--out", str(tmp_path / "again.json"))
    assert proc.returncode == 0, proc.stderr
    first = json.loads(best.read_text())["tune"]
    again = json.loads((tmp_path / "again.json").read_text())["tune"]
    assert again["heldOut"] == first["heldOut"]
    assert again["train"] == first["train"]
    # a larger holdout takes in training cases: refused
    proc = _tune_cli(fixture, "--config", str(best), "--holdout", "0.6")
    assert proc.returncode == 2 and "refusing" in proc.stderr


def test_evaluate_tuned_refuses_through_the_api(fixture: dict[str, Path]) -> None:
    suite = load_suite(fixture["suite"])
    indexes = {r: open_index(fixture["index"], r) for r in suite.revisions}
    meta = {"tunedOnCaseIds": [c.id for c in suite.cases]}
    with pytest.raises(TuneRefused) as info:
        evaluate_tuned(suite, indexes, RetrieverConfig(), meta, holdout=0.3, source="x.json")
    assert info.value.exit_code == 2
    plain = evaluate_tuned(suite, indexes, RetrieverConfig(role_strength=0.0), None, holdout=0.3)
    assert plain.held_out is not None
    assert any("no tuning metadata" in n for n in plain.notes)


def test_the_written_config_is_what_run_uses(fixture: dict[str, Path], tmp_path: Path) -> None:
    best = tmp_path / "best.json"
    proc = _tune_cli(fixture, "--out", str(best))
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(best.read_text())
    assert RetrieverConfig.load(best) == RetrieverConfig.from_dict(doc["retriever"])
    out = tmp_path / "run"
    proc = run_cli(
        "run",
        "--cases",
        str(fixture["suite"]),
        "--repo",
        str(fixture["repo"]),
        "--index",
        str(fixture["index"]),
        "--config",
        str(best),
        "--embedder",
        "none",
        "--quiet",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    attempt = json.loads((out / "attempts.jsonl").read_text().splitlines()[0])
    assert attempt["retriever"]["config"] == doc["retriever"]
    # the run reproduces the figures tune reported for the chosen config on each split
    records = {r["caseId"]: r for r in json.loads((out / "results.json").read_text())}
    meta = doc["tune"]
    for ids, figures in (
        (meta["split"]["trainCaseIds"], meta["train"]["chosen"]),
        (meta["split"]["heldOutCaseIds"], meta["heldOut"]["chosen"]),
    ):
        assert sum(records[i]["passed"] for i in ids) == figures["passed"]


def test_tune_without_out_is_a_usage_error(fixture: dict[str, Path]) -> None:
    proc = _tune_cli(fixture)
    assert proc.returncode == 2
    assert "--out is required" in proc.stderr
