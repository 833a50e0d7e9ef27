"""`--case`/`--tag` select cases; the selection is in the run identity, and compare and
gate never take a partial run for a full one (real subprocesses on the shipped example)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegold.cases import load_suite
from codegold.cases.selection import select_cases
from codegold.errors import InputError
from tests.conftest import ROOT, run_cli

EXAMPLE = ROOT / "examples" / "recorded"
POLICY = ROOT / "examples" / "ci" / "gate.toml"


def _eval(out: Path, *selection: str) -> dict[str, object]:
    proc = run_cli(
        "eval",
        "--cases",
        str(EXAMPLE / "suite.yaml"),
        "--attempts",
        str(EXAMPLE / "attempts.jsonl"),
        "--out",
        str(out),
        *selection,
    )
    assert proc.returncode == 0, proc.stderr
    summary: dict[str, object] = json.loads((out / "summary.json").read_text())
    return summary


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("selection")
    out = {"full": root / "full", "one": root / "one"}
    _eval(out["full"])
    _eval(out["one"], "--case", "webhook-parse-open-file", "--tag", "retry")
    return out


@pytest.mark.parametrize(
    ("case_ids", "tags", "selected"),
    [
        ((), (), None),
        (("session-expiry",), (), ["session-expiry"]),
        (
            (),
            ("payments",),
            ["fake-payment-client", "construct-payment-client", "refund-stale-index"],
        ),
        (
            ("session-expiry",),
            ("high-risk",),
            ["session-expiry", "construct-payment-client"],
        ),
    ],
    ids=["nothing-asked-is-full", "one-case", "one-tag", "case-and-tag-union"],
)
def test_select_cases(
    case_ids: tuple[str, ...], tags: tuple[str, ...], selected: list[str] | None
) -> None:
    suite = load_suite(EXAMPLE / "suite.yaml")
    sub, selection = select_cases(suite, case_ids, tags)
    if selected is None:
        assert selection is None and sub is suite
        return
    assert selection is not None and selection.partial
    assert [c.id for c in sub.cases] == selected == list(selection.selected)
    assert sub.digest == suite.digest  # the identity still names the whole file


@pytest.mark.parametrize(
    ("case_ids", "tags", "field"),
    [(("nope",), (), "--case"), ((), ("nope",), "--tag")],
    ids=["unknown-case", "unknown-tag"],
)
def test_a_selection_that_names_nothing_is_bad_input(
    case_ids: tuple[str, ...], tags: tuple[str, ...], field: str
) -> None:
    with pytest.raises(InputError) as err:
        select_cases(load_suite(EXAMPLE / "suite.yaml"), case_ids, tags)
    assert err.value.field == field and "nope" in str(err.value)


def test_unknown_case_exits_2_in_one_line(tmp_path: Path) -> None:
    proc = run_cli(
        "eval",
        "--cases",
        str(EXAMPLE / "suite.yaml"),
        "--attempts",
        str(EXAMPLE / "attempts.jsonl"),
        "--out",
        str(tmp_path / "out"),
        "--case",
        "nope",
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "'--case'" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_selection_is_in_the_run_identity(runs: dict[str, Path]) -> None:
    full = json.loads((runs["full"] / "summary.json").read_text())
    one = json.loads((runs["one"] / "summary.json").read_text())
    assert full["selection"] is None
    assert one["selection"] == {
        "cases": ["webhook-parse-open-file"],
        "tags": ["retry"],
        "selected": [
            "webhook-parse-open-file",
            "retry-policy-definition",
            "retry-policy-configured",
        ],
        "of": 8,
        "partial": True,
    }
    assert one["overall"]["cases"] == 3
    assert one["suite"] == full["suite"]
    results = json.loads((runs["one"] / "results.json").read_text())
    assert [r["caseId"] for r in results] == one["selection"]["selected"]


def test_compare_flags_a_partial_run_and_compares_only_its_cases(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    out = tmp_path / "cmp.json"
    proc = run_cli("compare", str(runs["full"]), str(runs["one"]), "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "head is a partial run: 3 of 8 cases" in proc.stderr
    doc = json.loads(out.read_text())
    assert any("partial run" in n for n in doc["notes"])
    statuses = {c["caseId"]: c["status"] for c in doc["cases"]}
    assert set(statuses) == {
        "webhook-parse-open-file",
        "retry-policy-definition",
        "retry-policy-configured",
    }
    assert "removed" not in statuses.values()


def test_gate_refuses_a_partial_run(runs: dict[str, Path]) -> None:
    proc = run_cli(
        "gate", str(runs["one"]), "--policy", str(POLICY), "--baseline", str(runs["full"])
    )
    assert proc.returncode == 2
    assert "partial run: 3 of 8 cases" in proc.stderr and "--allow-partial" in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_gate_allow_partial_gates_the_cases_it_ran(runs: dict[str, Path]) -> None:
    proc = run_cli(
        "gate",
        str(runs["one"]),
        "--policy",
        str(POLICY),
        "--baseline",
        str(runs["full"]),
        "--allow-partial",
        "--json",
        str(runs["one"] / "gate.json"),
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "partial run" in proc.stdout
    decision = json.loads((runs["one"] / "gate.json").read_text())
    assert decision["slices"]["overall"]["cases"] == 3


def test_gate_of_two_full_runs_is_unchanged(runs: dict[str, Path]) -> None:
    proc = run_cli(
        "gate", str(runs["full"]), "--policy", str(POLICY), "--baseline", str(runs["full"])
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert "partial" not in proc.stdout + proc.stderr
