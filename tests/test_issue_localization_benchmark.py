"""benchmarks/issue_localization.py end to end: two small repositories as fetched
mirrors, a fusion grid scored once per setting, leave one repository out."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from codegold.evaluate.localization import heldout
from tests.corpus.gitfixture import make_repo

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "issue_localization.py"

REPOS = {
    "acme/durations": {
        "durations/__init__.py": "",
        "durations/parser.py": (
            "UNITS = {'h': 3600, 'm': 60}\n\n\n"
            "def parse_duration(text):\n"
            "    total, number = 0, ''\n"
            "    for char in text:\n"
            "        if char.isdigit():\n"
            "            number += char\n"
            "        else:\n"
            "            total += int(number) * UNITS[char]\n"
            "            number = ''\n"
            "    return total\n"
        ),
        "durations/format.py": (
            "def format_duration(seconds):\n"
            "    hours, rest = divmod(seconds, 3600)\n"
            "    return f'{hours}h{rest // 60}m'\n"
        ),
        "tests/test_parser.py": (
            "from durations.parser import parse_duration\n\n\n"
            "def test_hours():\n    assert parse_duration('1h30m') == 5400\n"
        ),
    },
    "acme/colors": {
        "colors/__init__.py": "",
        "colors/hexcode.py": (
            "def parse_hex(code):\n"
            "    code = code.lstrip('#')\n"
            "    return tuple(int(code[i : i + 2], 16) for i in (0, 2, 4))\n"
        ),
        "colors/names.py": (
            "NAMES = {'red': (255, 0, 0), 'blue': (0, 0, 255)}\n\n\n"
            "def by_name(name):\n    return NAMES[name.lower()]\n"
        ),
    },
}

QUERIES = {
    "acme/durations": [
        (
            "parse_duration drops a trailing number\n\nparse_duration('1h30') returns "
            "3600, expected 3630: the trailing number has no unit and is lost instead.",
            "durations/parser.py",
        ),
        (
            "format_duration prints zero minutes\n\nformat_duration(3600) prints 1h0m; "
            "expected 1h, the zero minutes should be left out of the output.",
            "durations/format.py",
        ),
    ],
    "acme/colors": [
        (
            "parse_hex fails on short codes\n\n`parse_hex('#fff')` raises ValueError "
            "instead of returning (255, 255, 255); three-digit hex codes are valid.",
            "colors/hexcode.py",
        ),
        (
            "by_name is case sensitive for unknown names\n\n`by_name('Green')` raises "
            "KeyError; expected a clear error naming the unknown color instead.",
            "colors/names.py",
        ),
    ],
}


def _dev_ids(prefix: str, n: int) -> list[str]:
    ids = (f"{prefix}-{k}" for k in range(1000))
    return [i for i in ids if not heldout(i)][:n]


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    mirrors, data = tmp_path / "mirrors", tmp_path / "data"
    data.mkdir()
    for name, files in REPOS.items():
        key = name.replace("/", "+")
        _, (sha,) = make_repo(mirrors / key, [files], name="repo")
        ids = _dev_ids(name.replace("/", "__"), len(QUERIES[name]))
        cases = [
            {
                "id": case_id,
                "query": query,
                "queryClass": "issue_report",
                "repositoryRevision": sha,
                "accepted": [{"file": gold}],
            }
            for case_id, (query, gold) in zip(ids, QUERIES[name], strict=True)
        ]
        suite = {
            "suite": f"dev-{key}",
            "repository": {"name": name, "revision": sha},
            "defaults": {"cutoff": 5},
            "cases": cases,
        }
        (data / f"{name.replace('/', '__')}.json").write_text(json.dumps(suite))
    return mirrors, data


def _run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_leave_one_repository_out_over_a_grid(tmp_path: Path) -> None:
    mirrors, data = _layout(tmp_path)
    grid = tmp_path / "grid.json"
    grid.write_text(json.dumps({"fusion": {"issue_name_weight": [0.0, 0.75]}}))
    evidence, out = tmp_path / "evidence.pkl", tmp_path / "out.json"
    common = ["--data", data, "--mirrors", mirrors, "--index-root", tmp_path / "idx"]
    common += ["--grid", grid, "--cv", "--evidence", evidence]
    first = _run(*common, "--out", out)
    assert first.returncode == 0, first.stderr
    assert "leave one repository out" in first.stdout
    rows = {line.split()[0]: line for line in first.stdout.splitlines() if "acme__" in line}
    assert set(rows) == {"acme__colors", "acme__durations"}
    assert any(line.startswith("pooled") for line in first.stdout.splitlines())
    result = json.loads(out.read_text())
    assert len(result["settings"]) == 2
    per_repo = {r["repo"]: r for r in result["cv"]["perRepo"]}
    assert per_repo["acme__colors"]["n"] == 2
    # each repository is scored by the setting chosen on the other one alone
    assert sum(r["loro"][1] for r in per_repo.values()) == result["cv"]["pooledLoro"][1]
    # the whole-file BM25 baseline is scored beside it
    assert all(len(r["bm25"]) == 2 for r in per_repo.values())
    # the second run reads the kept evidence: no repository is opened again
    again = _run(*common)
    assert again.returncode == 0, again.stderr
    assert "revisions" not in again.stderr
    assert again.stdout == first.stdout
    # other query variants: the kept evidence is not theirs, it is gathered again
    grid.write_text(
        json.dumps({"query": [{"issue_title_weight": 0.0}], "fusion": {"issue_name_weight": [0.0]}})
    )
    other = _run(*common)
    assert other.returncode == 0, other.stderr
    assert "gathering again" in other.stderr and "revisions" in other.stderr
    # tuning never runs on the held-out split
    refused = _run(*common[:-3], "--split", "heldout")
    assert refused.returncode == 2
    assert "dev split only" in refused.stderr
