"""The gate: policy parsing, every rule blocking and passing, empty slices, the
baseline rule, and `codegold gate` exit codes through a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from codegold.errors import InputError
from codegold.evaluate.records import CaseResult
from codegold.evaluate.summary import summarize
from codegold.gate import RULES, GatePolicy, evaluate_gate, load_policy, parse_policy
from tests.conftest import run_cli
from tests.test_compare import record


def _run(
    n: int = 10,
    *,
    failing: int = 0,
    forbidden: int = 0,
    mismatched: int = 0,
    invalid: int = 0,
    rr: float = 1.0,
    tags: list[str] | None = None,
    prefix: str = "c",
) -> list[dict[str, Any]]:
    """``n`` cases; the first ``failing`` fail (nothing found), the next ``forbidden`` fail
    on a forbidden chunk, the next ``mismatched`` on a revision mismatch; ``invalid``
    more cases are invalid."""
    out = []
    for i in range(n):
        cid = f"{prefix}{i:02d}"
        if i < failing:
            out.append(record(cid, passed=False, tags=tags))
        elif i < failing + forbidden:
            out.append(record(cid, passed=False, rr=rr, recall=1.0, forbidden=["f"], tags=tags))
        elif i < failing + forbidden + mismatched:
            out.append(record(cid, passed=False, rr=rr, recall=1.0, mismatches=["m"], tags=tags))
        else:
            out.append(record(cid, passed=True, rr=rr, tags=tags))
    out += [record(f"{prefix}bad{i}", passed=False, valid=False, tags=tags) for i in range(invalid)]
    return out


def _policy(text: str, tmp_path: Path) -> GatePolicy:
    path = tmp_path / "gate.toml"
    path.write_text(text, encoding="utf-8")
    return load_policy(path)


# -- every rule blocks and passes ------------------------------------------------------

RISKY = _run(10, failing=1, tags=["high-risk"], prefix="r")
GATE_CASES: list[tuple[str, str, list[dict[str, Any]], bool, str]] = [
    ("minPassRate-blocks", "minPassRate = 0.9", _run(10, failing=2), True, "observed 0.800"),
    ("minPassRate-passes", "minPassRate = 0.8", _run(10, failing=2), False, "required >= 0.800"),
    (
        "maxForbiddenRate-blocks",
        "maxForbiddenRate = 0.0",
        _run(10, forbidden=1),
        True,
        "observed 0.100, required <= 0",
    ),
    ("maxForbiddenRate-passes", "maxForbiddenRate = 0.1", _run(10, forbidden=1), False, ""),
    (
        "maxRevisionMismatchRate-blocks",
        "maxRevisionMismatchRate = 0.0",
        _run(10, mismatched=1),
        True,
        "observed 0.100",
    ),
    (
        "maxRevisionMismatchRate-passes",
        "maxRevisionMismatchRate = 0.2",
        _run(10, mismatched=1),
        False,
        "",
    ),
    ("maxInvalid-blocks", "maxInvalid = 0", _run(5, invalid=1), True, "1 invalid of 6 records"),
    ("maxInvalid-passes", "maxInvalid = 1", _run(5, invalid=1), False, "1 invalid of 6 records"),
    ("minMRR-blocks", "minMRR = 0.6", _run(10, rr=0.5), True, "observed 0.500"),
    ("minMRR-passes", "minMRR = 0.5", _run(10, rr=0.5), False, ""),
    ("minHitRate-blocks", "minHitRate = 0.95", _run(10, failing=1), True, "observed 0.900"),
    ("minHitRate-passes", "minHitRate = 0.9", _run(10, failing=1), False, ""),
    (
        "minGroupRecall-blocks",
        "minGroupRecall = 0.95",
        _run(10, failing=1),
        True,
        "observed 0.900",
    ),
    ("minGroupRecall-passes", "minGroupRecall = 0.9", _run(10, failing=1), False, ""),
    (
        "slice-minPassRate-blocks",
        '[gate.slices."tag:high-risk"]\nminPassRate = 1.0',
        [*_run(10), *RISKY],
        True,
        "observed 0.900",
    ),
    (
        "slice-minPassRate-passes",
        '[gate.slices."tag:high-risk"]\nminPassRate = 0.9',
        [*_run(10, failing=5), *RISKY],
        False,
        "over 10 valid records",
    ),
    (
        "slice-maxForbiddenRate-blocks",
        '[gate.slices."tag:high-risk"]\nmaxForbiddenRate = 0.0',
        [*_run(10), *_run(4, forbidden=1, tags=["high-risk"], prefix="r")],
        True,
        "observed 0.250",
    ),
    (
        "rank-metric-not-named-is-not-gated",
        "minPassRate = 0.5",
        _run(10, rr=0.1),
        False,
        "",
    ),
]


@pytest.mark.parametrize(
    ("policy_text", "results", "blocked", "detail"),
    [c[1:] for c in GATE_CASES],
    ids=[c[0] for c in GATE_CASES],
)
def test_each_rule_blocks_and_passes(
    policy_text: str, results: list[dict[str, Any]], blocked: bool, detail: str, tmp_path: Path
) -> None:
    text = policy_text if policy_text.startswith("[") else f"[gate]\n{policy_text}"
    decision = evaluate_gate(results, _policy(text, tmp_path))
    assert decision.blocked is blocked
    (check,) = decision.checks
    assert check.passed is not blocked
    assert detail in check.detail
    if blocked:
        (reason,) = decision.reasons
        as_dict = decision.to_dict()["reasons"][0]
        assert as_dict["rule"] == reason.rule and as_dict["slice"] == reason.slice
        assert as_dict["observed"] is not None and "threshold" in as_dict
    else:
        assert decision.reasons == ()


def test_rank_metrics_are_reported_for_trend_when_not_gated(tmp_path: Path) -> None:
    decision = evaluate_gate(_run(10, rr=0.1), _policy("[gate]\nminPassRate = 0.5", tmp_path))
    trend = decision.lines()[-1]
    assert trend.startswith("trend (not gated):")
    assert "mrr 0.100" in trend and "passRate" not in trend


def test_every_reason_is_listed(tmp_path: Path) -> None:
    text = """
[gate]
minPassRate = 0.95
maxForbiddenRate = 0.0
maxInvalid = 0
[gate.slices."tag:high-risk"]
minPassRate = 1.0
"""
    results = [*_run(10, failing=1, forbidden=1, invalid=1), *RISKY]
    decision = evaluate_gate(results, _policy(text, tmp_path))
    assert [(r.rule, r.slice) for r in decision.reasons] == [
        ("minPassRate", "overall"),
        ("maxForbiddenRate", "overall"),
        ("maxInvalid", "overall"),
        ("minPassRate", "tag:high-risk"),
    ]
    lines = decision.lines()
    assert lines[0].startswith("codegold gate: BLOCKED: 4 of 4 checks failed")
    assert sum(line.strip().startswith("FAIL") for line in lines) == 4


# -- noRegression ----------------------------------------------------------------------

NO_REGRESSION = '[gate]\nnoRegression = ["tag:high-risk"]'


def test_no_regression_blocks_a_case_that_passed_in_the_baseline(tmp_path: Path) -> None:
    policy = _policy(NO_REGRESSION, tmp_path)
    baseline = [*_run(10, failing=5), *_run(4, tags=["high-risk"], prefix="r")]
    # The head improves overall (5 ordinary cases fixed) but loses one high-risk case.
    head = [*_run(10), *_run(4, failing=1, tags=["high-risk"], prefix="r")]
    decision = evaluate_gate(head, policy, baseline)
    (reason,) = decision.reasons
    assert (reason.rule, reason.slice, reason.observed, reason.threshold) == (
        "noRegression",
        "tag:high-risk",
        1.0,
        0.0,
    )
    assert "1 of 4 paired cases passed in baseline and fail now" in reason.detail
    assert "pass rate 1 → 0.750 (-0.250)" in reason.detail and reason.detail.endswith("r00")


def test_no_regression_passes_and_reports_the_delta(tmp_path: Path) -> None:
    policy = _policy(NO_REGRESSION, tmp_path)
    baseline = _run(4, failing=2, tags=["high-risk"], prefix="r")
    head = _run(4, failing=1, tags=["high-risk"], prefix="r")
    decision = evaluate_gate(head, policy, baseline)
    assert not decision.blocked
    (check,) = decision.checks
    assert "0 of 4 paired cases" in check.detail and "(+0.250)" in check.detail


def test_no_regression_warns_about_cases_that_vanished(tmp_path: Path) -> None:
    policy = _policy(NO_REGRESSION, tmp_path)
    baseline = _run(4, tags=["high-risk"], prefix="r")
    head = [*_run(3, tags=["high-risk"], prefix="r")]
    head[0] = record("r00", passed=False, valid=False, tags=["high-risk"])
    decision = evaluate_gate(head, policy, baseline)
    assert not decision.blocked
    (warning,) = decision.warnings
    assert "2 case(s) passed in baseline and are missing or invalid now: r00, r03" in warning


def test_no_regression_without_a_baseline_is_an_input_error(tmp_path: Path) -> None:
    policy = _policy(NO_REGRESSION, tmp_path)
    with pytest.raises(InputError) as info:
        evaluate_gate(_run(3), policy)
    assert info.value.field == "gate.noRegression"
    assert info.value.file == str(tmp_path / "gate.toml")
    assert "--baseline" in str(info.value)


# -- empty slices ----------------------------------------------------------------------


def test_an_empty_slice_is_reported_not_blocking(tmp_path: Path) -> None:
    text = '[gate]\nminPassRate = 0.5\n[gate.slices."tag:hihg-risk"]\nminPassRate = 1.0'
    decision = evaluate_gate(_run(10), _policy(text, tmp_path))
    assert not decision.blocked
    skipped = [c for c in decision.checks if c.skipped]
    assert [(c.rule, c.slice, c.observed) for c in skipped] == [
        ("minPassRate", "tag:hihg-risk", None)
    ]
    assert any("tag:hihg-risk has no valid record" in w for w in decision.warnings)
    assert any(
        line.strip().startswith("SKIP minPassRate [tag:hihg-risk]") for line in decision.lines()
    )


def test_a_run_with_no_valid_record_blocks(tmp_path: Path) -> None:
    decision = evaluate_gate(_run(0, invalid=3), _policy("[gate]\nminPassRate = 0.5", tmp_path))
    (reason,) = decision.reasons
    assert reason.slice == "overall" and reason.observed is None
    assert "nothing to gate on" in reason.detail


# -- the figures are summary.json's ----------------------------------------------------


def test_rates_are_the_figures_summary_json_reports(tmp_path: Path) -> None:
    results = [
        *_run(10, failing=2, forbidden=1, mismatched=1, invalid=2, rr=0.5),
        *_run(6, failing=1, tags=["high-risk"], prefix="r"),
        record("r00", passed=True, attempt="a2", tags=["high-risk"]),  # a repeated attempt
    ]
    text = """
[gate]
minPassRate = 0
minMRR = 0
minHitRate = 0
minGroupRecall = 0
maxForbiddenRate = 1
maxRevisionMismatchRate = 1
maxInvalid = 100
minSupportingRecall = 0
minGradedNdcg = 0
maxBudgetDuplicate = 1
[gate.slices."tag:high-risk"]
minPassRate = 0
"""
    decision = evaluate_gate(results, _policy(text, tmp_path))
    summary = summarize([msgspec.convert(r, CaseResult) for r in results], {})
    observed = {(c.slice, c.rule): c.observed for c in decision.checks}
    for key, rule in RULES.items():
        assert observed[("overall", key)] == pytest.approx(summary["overall"][rule.metric])
    assert observed[("tag:high-risk", "minPassRate")] == pytest.approx(
        summary["slices"]["tag:high-risk"]["passRate"]
    )
    # every attempt counts: 5 of 6 first attempts pass, plus the passing repeat
    assert observed[("tag:high-risk", "minPassRate")] == pytest.approx(6 / 7)


# -- policy parsing --------------------------------------------------------------------

BAD_POLICIES = [
    ("unknown-top-level", "[gates]\nminPassRate = 1", "gates"),
    ("unknown-gate-key", "[gate]\nminPasRate = 1", "gate.minPasRate"),
    (
        "unknown-slice-key",
        '[gate.slices."tag:x"]\nmaxFoo = 1',
        'gate.slices."tag:x".maxFoo',
    ),
    ("bad-slice-name", '[gate.slices."team:x"]\nminPassRate = 1', 'gate.slices."team:x"'),
    ("bad-noRegression-name", '[gate]\nnoRegression = ["highrisk"]', "gate.noRegression"),
    ("noRegression-not-a-list", '[gate]\nnoRegression = "tag:x"', "gate.noRegression"),
    ("overall-as-a-slice", '[gate.slices."overall"]\nminPassRate = 1', 'gate.slices."overall"'),
    ("rate-above-one", "[gate]\nminPassRate = 90", "gate.minPassRate"),
    ("rate-is-bool", "[gate]\nmaxForbiddenRate = false", "gate.maxForbiddenRate"),
    ("rate-is-string", '[gate]\nminMRR = "0.5"', "gate.minMRR"),
    ("count-is-float", "[gate]\nmaxInvalid = 0.5", "gate.maxInvalid"),
    ("count-negative", "[gate]\nmaxInvalid = -1", "gate.maxInvalid"),
    ("slice-not-a-table", "[gate]\nslices = 3", "gate.slices"),
    ("no-gate-table", "", "gate"),
]


@pytest.mark.parametrize(
    ("text", "field"), [c[1:] for c in BAD_POLICIES], ids=[c[0] for c in BAD_POLICIES]
)
def test_bad_policies_name_the_file_and_key(text: str, field: str, tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        _policy(text, tmp_path)
    assert info.value.file == str(tmp_path / "gate.toml")
    assert info.value.field == field
    assert str(tmp_path / "gate.toml") in str(info.value)


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not valid TOML"):
        _policy("[gate\nminPassRate = 1", tmp_path)
    with pytest.raises(InputError, match="no such file"):
        load_policy(tmp_path / "nope.toml")


def test_the_spec_example_policy_parses() -> None:
    policy = parse_policy(
        {
            "gate": {
                "minPassRate": 0.9,
                "maxForbiddenRate": 0.0,
                "maxRevisionMismatchRate": 0.0,
                "maxInvalid": 0,
                "noRegression": ["tag:high-risk", "queryClass:exact_identifier"],
                "slices": {"tag:high-risk": {"minPassRate": 1.0}},
            }
        }
    )
    assert policy.no_regression == ("queryClass:exact_identifier", "tag:high-risk")
    assert policy.thresholds == (
        ("overall", "minPassRate", 0.9),
        ("overall", "maxForbiddenRate", 0.0),
        ("overall", "maxRevisionMismatchRate", 0.0),
        ("overall", "maxInvalid", 0.0),
        ("tag:high-risk", "minPassRate", 1.0),
    )


# -- the command line ------------------------------------------------------------------


def _files(tmp_path: Path, **runs: list[dict[str, Any]]) -> dict[str, str]:
    out = {}
    for name, records in runs.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(records), encoding="utf-8")
        out[name] = str(path)
    return out


POLICY = """\
[gate]
minPassRate = 0.8
maxForbiddenRate = 0.0
noRegression = ["tag:high-risk"]
"""


def test_cli_gate_exit_codes(tmp_path: Path) -> None:
    policy = tmp_path / "gate.toml"
    policy.write_text(POLICY)
    files = _files(
        tmp_path,
        base=[*_run(10), *_run(3, tags=["high-risk"], prefix="r")],
        good=[*_run(10, failing=1), *_run(3, tags=["high-risk"], prefix="r")],
        bad=[
            *_run(10, failing=3, forbidden=1),
            *_run(3, failing=1, tags=["high-risk"], prefix="r"),
        ],
    )

    ok = run_cli("gate", files["good"], "--policy", str(policy), "--baseline", files["base"])
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("codegold gate: PASSED: 3 checks")

    out = tmp_path / "decision.json"
    blocked = run_cli(
        "gate",
        files["bad"],
        "--policy",
        str(policy),
        "--baseline",
        files["base"],
        "--json",
        str(out),
    )
    assert blocked.returncode == 1, blocked.stderr
    fails = [line.strip() for line in blocked.stdout.splitlines() if "FAIL" in line]
    assert [f.split("]")[0] + "]" for f in fails] == [
        "FAIL minPassRate [overall]",
        "FAIL maxForbiddenRate [overall]",
        "FAIL noRegression [tag:high-risk]",
    ]
    doc = json.loads(out.read_text())
    assert doc["blocked"] is True and len(doc["reasons"]) == 3
    assert list(doc) == sorted(doc)

    no_baseline = run_cli("gate", files["good"], "--policy", str(policy))
    assert no_baseline.returncode == 2
    assert "noRegression" in no_baseline.stderr and "--baseline" in no_baseline.stderr

    bad_policy = tmp_path / "bad.toml"
    bad_policy.write_text("[gate]\nminPassRat = 0.8\n")
    typo = run_cli("gate", files["good"], "--policy", str(bad_policy))
    assert typo.returncode == 2
    assert "bad.toml" in typo.stderr and "minPassRat" in typo.stderr

    missing = run_cli("gate", str(tmp_path / "none.json"), "--policy", str(policy))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def _eval_run(out: Path, suite: Path) -> Path:
    from tests.conftest import ROOT, run_cli

    recorded = ROOT / "examples" / "recorded"
    run_cli(
        "eval", "--cases", str(suite), "--attempts", str(recorded / "attempts.jsonl"),
        "--out", str(out), "--quiet", check=True,
    )  # fmt: skip
    return out


def test_gate_and_compare_refuse_to_pass_off_another_suite_as_a_ranking_change(
    tmp_path: Path,
) -> None:
    from tests.conftest import ROOT, run_cli

    recorded = ROOT / "examples" / "recorded" / "suite.yaml"
    base = _eval_run(tmp_path / "base", recorded)
    relabelled = tmp_path / "suite.yaml"
    text = recorded.read_text()
    assert "defaults: {cutoff: 5}" in text
    relabelled.write_text(text.replace("defaults: {cutoff: 5}", "defaults: {cutoff: 10}"))
    head = _eval_run(tmp_path / "head", relabelled)
    policy = ROOT / "examples" / "ci" / "gate.toml"

    proc = run_cli("gate", str(head), "--policy", str(policy), "--baseline", str(base))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "not comparable" in proc.stderr and "different suites" in proc.stderr
    assert "different cutoffs" in proc.stderr and "--allow-incomparable" in proc.stderr
    assert proc.stderr.count("\n") == 1  # one clear line, no traceback

    allowed = run_cli(
        "gate", str(head), "--policy", str(policy), "--baseline", str(base),
        "--allow-incomparable",
    )  # fmt: skip
    assert allowed.returncode in (0, 1), allowed.stderr
    assert "not comparable" in allowed.stdout

    same = run_cli("gate", str(base), "--policy", str(policy), "--baseline", str(base))
    assert same.returncode in (0, 1) and "not comparable" not in same.stdout + same.stderr

    out = tmp_path / "cmp.json"
    cmp = run_cli("compare", str(base), str(head), "--json", str(out), "--resamples", "10")
    assert cmp.returncode == 0, cmp.stderr
    assert "not comparable" in cmp.stdout
    document = json.loads(out.read_text())
    assert document["comparable"] is False
    assert any("different suites" in r for r in document["incomparable"])
