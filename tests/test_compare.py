"""compare_runs: case classification, slice ordering and flags, paired statistics, views,
and `codegold compare` through a real subprocess."""

from __future__ import annotations

import copy
import json
from math import comb
from pathlib import Path
from typing import Any

import pytest

from codegold.compare import (
    MIN_CASES,
    ChangeStatus,
    SliceStatus,
    compare_runs,
    select_attempts,
)
from codegold.errors import InputError
from codegold.evaluate.records import CaseResult, load_results
from tests.conftest import run_cli

REV = "a" * 40


def record(
    case_id: str,
    *,
    passed: bool,
    rr: float | None = None,
    recall: float | None = None,
    missing: list[str] | None = None,
    tags: list[str] | None = None,
    query_class: str | None = "behavior",
    language: str | None = "python",
    area: str | None = "src",
    roles: list[str] | None = None,
    attempt: str | None = "a1",
    valid: bool = True,
    forbidden: list[str] | None = None,
    mismatches: list[str] | None = None,
    ranked: list[dict[str, Any]] | None = None,
    cutoff: int = 5,
) -> dict[str, Any]:
    """A results.json record (SPEC §3) with consistent defaults."""
    if rr is None:
        rr = 1.0 if passed else 0.0
    if recall is None:
        recall = 1.0 if passed else 0.0
    if missing is None:
        missing = [] if recall >= 1.0 else ["accepted"]
    first = round(1 / rr) if rr else None
    return {
        "caseId": case_id,
        "query": f"where is {case_id}?",
        "queryClass": query_class,
        "repositoryRevision": REV,
        "cutoff": cutoff,
        "attemptId": attempt,
        "valid": valid,
        "invalidReason": None if valid else "index manifest missing",
        "passed": passed and valid,
        "firstRelevantRank": first,
        "reciprocalRank": rr,
        "groupRecall": recall,
        "missingGroupIds": missing,
        "supportingFound": [],
        "forbiddenChunkIds": forbidden or [],
        "revisionMismatches": mismatches or [],
        "tags": tags or [],
        "language": language,
        "area": area,
        "targetRoles": roles or ["definition"],
        "ranked": ranked or [],
        "diagnosis": None,
    }


def _pair(
    base: dict[str, Any], head_changes: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    head = {**base, **head_changes}
    return base, head


# -- the headline behaviour ------------------------------------------------------------


def _mean_up_slice_down() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """40 ordinary cases go fail -> pass; 6 of 12 high-risk cases go pass -> fail."""
    base: list[dict[str, Any]] = []
    head: list[dict[str, Any]] = []
    for i in range(40):
        base.append(record(f"ord-{i:02d}", passed=False, tags=["ordinary"]))
        head.append(record(f"ord-{i:02d}", passed=True, rr=0.5, tags=["ordinary"]))
    for i in range(12):
        base.append(record(f"risk-{i:02d}", passed=True, tags=["high-risk"]))
        head.append(record(f"risk-{i:02d}", passed=i >= 6, tags=["high-risk"]))
    return base, head


def test_a_better_mean_does_not_hide_a_regressed_slice() -> None:
    base, head = _mean_up_slice_down()
    cmp = compare_runs(base, head, resamples=2000)

    overall = cmp.slice("overall")
    assert overall.metric("passRate").delta == pytest.approx(34 / 52)
    assert overall.status == SliceStatus.MIXED and overall.flagged

    first = cmp.slices[0]
    assert first.name == "tag:high-risk"
    assert first.status == SliceStatus.REGRESSED and first.flagged
    assert first.metric("passRate").base == 1.0
    assert first.metric("passRate").head == 0.5
    assert first.regressed == 6
    # Regressed, then mixed, then the rest: the improving slice comes after both.
    names = [s.name for s in cmp.slices]
    assert names.index("tag:high-risk") < names.index("overall") < names.index("tag:ordinary")
    assert cmp.slice("tag:ordinary").status == SliceStatus.IMPROVED

    assert [c.case_id for c in cmp.regressed_cases] == [f"risk-{i:02d}" for i in range(6)]
    assert all(c.reason.startswith("passed → failed") for c in cmp.regressed_cases)
    assert len(cmp.improved_cases) == 40

    as_dict = cmp.to_dict()
    assert as_dict["flaggedSlices"][0] == "tag:high-risk"
    assert as_dict["slices"][0]["flagged"] is True
    assert as_dict["slices"][0]["passRate"]["delta"] == -0.5
    assert as_dict["cases"][0]["status"] == "regressed"

    html = cmp.to_html()
    rows = [line for line in html.splitlines() if line.startswith("<tr class=")]
    assert rows[0].startswith('<tr class="status-regressed"><td>tag:high-risk</td>')
    assert '<h3 class="cases-regressed">regressed cases (6)</h3>' in html


def test_rich_view_lists_the_regressed_slice_first() -> None:
    from rich.console import Console

    base, head = _mean_up_slice_down()
    console = Console(width=220, record=True, color_system=None)
    console.print(compare_runs(base, head, resamples=500).to_rich())
    text = console.export_text()
    assert text.index("tag:high-risk") < text.index("overall") < text.index("tag:ordinary")
    assert "REGRESSED" in text and "MIXED" in text
    assert "regressed cases (6):" in text and "risk-00: passed → failed" in text


def test_a_rank_swap_with_the_same_evidence_is_not_a_regression() -> None:
    base = [record(f"c{i}", passed=True, rr=1.0) for i in range(12)]
    head = [record(f"c{i}", passed=True, rr=0.5 if i < 4 else 1.0) for i in range(12)]
    cmp = compare_runs(base, head, resamples=1000)
    assert cmp.regressed_cases == ()
    moved = cmp.by_status(ChangeStatus.RANK_MOVED)
    assert [c.case_id for c in moved] == ["c0", "c1", "c2", "c3"]
    assert "first relevant rank 1 → 2" in moved[0].reason
    overall = cmp.slice("overall")
    assert overall.status == SliceStatus.UNCHANGED and not overall.flagged
    assert overall.rank_moved == 4
    assert overall.metric("mrr").delta == pytest.approx(-4 * 0.5 / 12)
    assert overall.metric("passRate").delta == 0.0
    assert cmp.flagged_slices == ()


# -- case classification --------------------------------------------------------------

CLASSIFY: list[tuple[str, dict[str, Any] | None, dict[str, Any] | None, ChangeStatus, str]] = [
    (
        "pass-to-fail",
        {"passed": True},
        {"passed": False},
        ChangeStatus.REGRESSED,
        "passed → failed",
    ),
    ("fail-to-pass", {"passed": False}, {"passed": True}, ChangeStatus.IMPROVED, "failed → passed"),
    (
        "pass-to-fail-forbidden-only",
        {"passed": True},
        {"passed": False, "recall": 1.0, "forbidden": ["legacy"]},
        ChangeStatus.REGRESSED,
        "forbidden chunks 0 → 1",
    ),
    (
        "recall-down-still-failing",
        {"passed": False, "recall": 0.5, "missing": ["cfg"]},
        {"passed": False, "recall": 0.0, "missing": ["cfg", "def"]},
        ChangeStatus.REGRESSED,
        "group recall 0.5 → 0",
    ),
    (
        "recall-up-still-failing",
        {"passed": False, "recall": 0.0, "missing": ["cfg", "def"]},
        {"passed": False, "recall": 0.5, "missing": ["cfg"]},
        ChangeStatus.IMPROVED,
        "gained group def",
    ),
    (
        "groups-swapped",
        {"passed": False, "recall": 0.5, "missing": ["cfg"], "rr": 1.0},
        {"passed": False, "recall": 0.5, "missing": ["def"], "rr": 1.0},
        ChangeStatus.REGRESSED,
        "evidence swapped: lost group def; gained group cfg",
    ),
    (
        "rank-moved-both-pass",
        {"passed": True, "rr": 1.0},
        {"passed": True, "rr": 1 / 3},
        ChangeStatus.RANK_MOVED,
        "first relevant rank 1 → 3",
    ),
    (
        "rank-moved-both-fail",
        {"passed": False, "rr": 0.5, "recall": 0.5, "missing": ["cfg"]},
        {"passed": False, "rr": 0.25, "recall": 0.5, "missing": ["cfg"]},
        ChangeStatus.RANK_MOVED,
        "still fails, same evidence groups",
    ),
    ("unchanged", {"passed": True}, {"passed": True}, ChangeStatus.UNCHANGED, "still passes"),
    ("new", None, {"passed": True}, ChangeStatus.NEW, "only in head"),
    ("removed", {"passed": True}, None, ChangeStatus.REMOVED, "only in base"),
    (
        "invalid-in-head",
        {"passed": True},
        {"passed": False, "valid": False},
        ChangeStatus.INVALID,
        "invalid in head",
    ),
    (
        "invalid-in-base",
        {"passed": False, "valid": False},
        {"passed": True},
        ChangeStatus.INVALID,
        "invalid in base",
    ),
]


@pytest.mark.parametrize(
    ("base_fields", "head_fields", "status", "reason"),
    [c[1:] for c in CLASSIFY],
    ids=[c[0] for c in CLASSIFY],
)
def test_case_classification(
    base_fields: dict[str, Any] | None,
    head_fields: dict[str, Any] | None,
    status: ChangeStatus,
    reason: str,
) -> None:
    base = [record("c", **base_fields)] if base_fields is not None else []
    head = [record("c", **head_fields)] if head_fields is not None else []
    cmp = compare_runs(base, head, resamples=200)
    (change,) = cmp.cases
    assert change.status == status
    assert reason in change.reason
    overall = cmp.slice("overall")
    assert overall.paired == (1 if change.paired else 0)
    if not change.paired:
        # never scored: no rates, a note saying so
        assert overall.metric("passRate").base is None
        assert "nothing to compare" in overall.notes[0]


# -- attempts and input ----------------------------------------------------------------


def test_each_side_uses_its_first_valid_attempt_by_attempt_id() -> None:
    base = [
        record("c", passed=True, attempt="a3"),
        record("c", passed=False, attempt="a1", valid=False),
        record("c", passed=False, attempt="a2"),
    ]
    head = [record("c", passed=True, attempt="z")]
    chosen = select_attempts(load_like(base))
    assert chosen["c"].attempt_id == "a2"
    cmp = compare_runs(base, head, resamples=100)
    (change,) = cmp.cases
    assert change.base is not None and change.base.attempt_id == "a2"
    assert change.base.attempts == 3
    assert change.status == ChangeStatus.IMPROVED
    assert any("repeated attempts" in note for note in cmp.notes)


def load_like(records: list[dict[str, Any]]) -> list[CaseResult]:
    import msgspec

    return [msgspec.convert(r, CaseResult) for r in records]


def test_a_case_whose_attempts_are_all_invalid_is_never_scored() -> None:
    base = [record("c", passed=True)]
    head = [
        record("c", passed=False, attempt="a1", valid=False),
        record("c", passed=False, attempt="a2", valid=False),
    ]
    (change,) = compare_runs(base, head, resamples=100).cases
    assert change.status == ChangeStatus.INVALID
    assert change.head is not None and change.head.attempt_id == "a1"


def test_a_repeated_attempt_id_is_an_input_error() -> None:
    twice = [record("c", passed=True), record("c", passed=False)]
    with pytest.raises(InputError) as info:
        compare_runs(twice, [record("c", passed=True)])
    assert info.value.case_id == "c" and info.value.field == "attemptId"


def test_a_malformed_record_names_the_case_and_field() -> None:
    bad = record("broken", passed=True)
    bad["passed"] = "yes"
    with pytest.raises(InputError) as info:
        compare_runs([record("ok", passed=True)], [record("ok", passed=True), bad])
    assert info.value.case_id == "broken"
    assert info.value.field == "passed"
    assert info.value.file == "head"


def test_inputs_are_not_modified() -> None:
    base, head = _mean_up_slice_down()
    before = copy.deepcopy((base, head))
    compare_runs(base, head, resamples=100)
    assert (base, head) == before


@pytest.mark.parametrize(
    ("kwargs", "field"), [({"resamples": 0}, "resamples"), ({"seed": -1}, "seed")]
)
def test_bad_parameters(kwargs: dict[str, int], field: str) -> None:
    with pytest.raises(InputError) as info:
        compare_runs([], [], **kwargs)
    assert info.value.field == field


# -- statistics ------------------------------------------------------------------------


def test_no_difference_gives_p_one_and_a_zero_interval() -> None:
    runs = [record(f"c{i}", passed=i % 2 == 0, tags=["t"]) for i in range(20)]
    overall = compare_runs(runs, runs, resamples=500).slice("overall")
    for name in ("passRate", "mrr"):
        m = overall.metric(name)
        assert m.delta == 0.0 and m.p_value == 1.0
        assert (m.ci_low, m.ci_high) == (0.0, 0.0)
        assert (m.wins, m.losses) == (0, 0)


def test_sign_flip_p_value_matches_the_exact_sign_test() -> None:
    # 8 cases fail -> pass, 2 pass -> fail: the exact two-sided p is 2 * P(B >= 8), B ~ Bin(10, 1/2)
    base = [record(f"c{i}", passed=i >= 8) for i in range(10)]
    head = [record(f"c{i}", passed=i < 8) for i in range(10)]
    m = compare_runs(base, head, resamples=40_000).slice("overall").metric("passRate")
    exact = 2 * sum(comb(10, k) for k in range(8, 11)) / 2**10
    assert exact == pytest.approx(0.109375)
    # 2**10 sign assignments <= 40,000 resamples: the p-value is the exact one.
    assert m.p_value == pytest.approx(exact, abs=1e-12)
    assert (m.wins, m.ties, m.losses) == (8, 0, 2)
    assert m.ci_low is not None and m.ci_high is not None
    assert m.delta == pytest.approx(0.6)
    assert m.ci_low <= 0.6 <= m.ci_high


@pytest.mark.parametrize(
    ("moved", "ties", "resamples", "expected"),
    [
        pytest.param(5, 3, 10_000, 2 / 32, id="n8-five-moved-exact-0.0625"),
        pytest.param(8, 0, 10_000, 2 / 256, id="n8-all-moved-exact"),
        pytest.param(8, 0, 256, 2 / 256, id="exact-at-the-bound"),
    ],
)
def test_small_slices_get_the_exact_sign_flip_p_value(
    moved: int, ties: int, resamples: int, expected: float
) -> None:
    n = moved + ties
    base = [record(f"c{i}", passed=False) for i in range(n)]
    head = [record(f"c{i}", passed=i < moved) for i in range(n)]
    m = compare_runs(base, head, resamples=resamples).slice("overall").metric("passRate")
    assert m.p_value == pytest.approx(expected, abs=1e-12)


def test_past_the_bound_the_p_value_is_a_monte_carlo_estimate() -> None:
    # 2**8 assignments > 255 resamples: (1 + #as extreme) / (1 + resamples), never exact 2/256.
    base = [record(f"c{i}", passed=False) for i in range(8)]
    head = [record(f"c{i}", passed=True) for i in range(8)]
    m = compare_runs(base, head, resamples=255).slice("overall").metric("passRate")
    assert m.p_value is not None
    assert m.p_value != pytest.approx(2 / 256, abs=1e-12)
    assert (m.p_value * 256) == pytest.approx(round(m.p_value * 256))


def test_a_clear_effect_is_significant_and_its_interval_excludes_zero() -> None:
    base = [record(f"c{i}", passed=False) for i in range(60)]
    head = [record(f"c{i}", passed=i < 45, rr=0.5 if i < 45 else 0.0) for i in range(60)]
    cmp = compare_runs(base, head, resamples=2000)
    m = cmp.slice("overall").metric("passRate")
    assert m.p_value == pytest.approx(1 / 2001)
    assert m.ci_low is not None and m.ci_low > 0.5
    mrr = cmp.slice("overall").metric("mrr")
    assert mrr.delta == pytest.approx(45 * 0.5 / 60)
    assert cmp.slice("overall").notes == ()


def test_small_and_noisy_slices_carry_an_honest_note() -> None:
    base = [record(f"few{i}", passed=i == 0, tags=["few"]) for i in range(4)]
    base += [record(f"noisy{i}", passed=i % 2 == 0, tags=["noisy"]) for i in range(30)]
    head = [record(f"few{i}", passed=i == 1, tags=["few"]) for i in range(4)]
    # 16 of 30 pass instead of 15: one more win than loss
    head += [record(f"noisy{i}", passed=i % 2 == 1 or i == 0, tags=["noisy"]) for i in range(30)]
    cmp = compare_runs(base, head, resamples=2000)
    few = cmp.slice("tag:few")
    assert few.paired == 4 < MIN_CASES
    assert any("only 4 paired cases" in n and "too few" in n for n in few.notes)
    noisy = cmp.slice("tag:noisy")
    assert noisy.paired >= MIN_CASES
    assert noisy.metric("passRate").interval_spans_zero
    assert any(
        n.startswith("passRate +0.033: 95% interval") and "spans 0" in n for n in noisy.notes
    )


def test_output_is_deterministic_and_seeded_per_slice() -> None:
    base, head = _mean_up_slice_down()
    one = compare_runs(base, head, seed=3, resamples=500).to_dict()
    two = compare_runs(base, head, seed=3, resamples=500).to_dict()
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)
    # A slice's figures do not depend on which other slices exist.
    extra_base = [*base, record("lonely", passed=True, tags=["elsewhere"], language="go")]
    extra_head = [*head, record("lonely", passed=False, tags=["elsewhere"], language="go")]
    three = compare_runs(extra_base, extra_head, seed=3, resamples=500)
    risk_one = next(s for s in one["slices"] if s["slice"] == "tag:high-risk")
    assert three.slice("tag:high-risk").to_dict() == risk_one
    other_seed = compare_runs(base, head, seed=4, resamples=500).slice("tag:high-risk")
    assert other_seed.metric("passRate").delta == risk_one["passRate"]["delta"]


def test_slices_cover_every_kind_and_are_unions_of_both_runs() -> None:
    base = [record("c", passed=True, tags=["old-tag"], roles=["definition", "test"])]
    head = [
        record(
            "c",
            passed=True,
            tags=["new-tag"],
            query_class="exact_identifier",
            language="go",
            area="pkg",
            roles=["definition", "test"],
        )
    ]
    names = {s.name for s in compare_runs(base, head, resamples=50).slices}
    assert names == {
        "overall",
        "tag:old-tag",
        "tag:new-tag",
        "queryClass:behavior",
        "queryClass:exact_identifier",
        "language:python",
        "language:go",
        "area:src",
        "area:pkg",
        "role:definition",
        "role:test",
    }


# -- files and the command line -------------------------------------------------------


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_load_results_reads_a_run_folder_and_names_bad_records(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    _write(run / "results.json", [record("c", passed=True)])
    assert [o.case_id for o in load_results(run)] == ["c"]
    bad = record("weird", passed=True)
    del bad["groupRecall"]
    path = _write(tmp_path / "bad.json", [record("c", passed=True), bad])
    with pytest.raises(InputError) as info:
        load_results(path)
    assert info.value.file == str(path)
    assert info.value.case_id == "weird"
    assert "groupRecall" in str(info.value)


def test_cli_compare_prints_the_table_and_writes_deterministic_json(tmp_path: Path) -> None:
    base, head = _mean_up_slice_down()
    b = _write(tmp_path / "base.json", base)
    h = _write(tmp_path / "head.json", head)
    outs = []
    for name in ("one.json", "two.json"):
        proc = run_cli(
            "compare", str(b), str(h), "--json", str(tmp_path / name), "--resamples", "500"
        )
        assert proc.returncode == 0, proc.stderr
        outs.append((tmp_path / name).read_bytes())
    assert outs[0] == outs[1]
    doc = json.loads(outs[0])
    assert doc["flaggedSlices"][:2] == ["tag:high-risk", "overall"]
    assert doc["resamples"] == 500
    assert list(doc) == sorted(doc)
    assert not list(tmp_path.glob(".*.tmp"))
    out = proc.stdout
    assert out.index("tag:high-risk") < out.index("tag:ordinary")
    assert "REGRESSED" in out and "risk-00: passed → failed" in out


def test_cli_compare_bad_input_exits_2(tmp_path: Path) -> None:
    b = _write(tmp_path / "base.json", [record("c", passed=True)])
    proc = run_cli("compare", str(b), str(tmp_path / "missing.json"))
    assert proc.returncode == 2
    assert "missing.json" in proc.stderr and "no such file" in proc.stderr
    (tmp_path / "garbage.json").write_text("{not json")
    proc = run_cli("compare", str(b), str(tmp_path / "garbage.json"))
    assert proc.returncode == 2 and "not JSON" in proc.stderr
