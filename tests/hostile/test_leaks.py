"""No secret verbatim in any output: results, attempts, bundles (JSON and Markdown),
diagnose, HTML, JUnit, compare, gate, lint and drafted (proposed) suites. Bundle
files are unique and stable however case ids are spelled."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegold.diagnose.bundle import bundle_stem, excerpt
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

# Fake credentials with the real shapes (split so this file holds none whole).
TOKEN = "ghp_" + "Zq8Xv2Lm4Nb6Vc1Tr9Ys3Ua5Wd7Pe0Kh2JfQa"
PEM_BODY = [
    "MIIEowIBAAKCAQEA7yQv3c9S0Zx",
    "b4E1f2G3h4I5j6K7l8M9n0O1p2Q3",
    "r4S5t6U7v8W9x0Y1z2A3B4C5D6E7",
]
KEY = "\n".join(["-----BEGIN RSA PRIVATE KEY-----", *PEM_BODY, "-----END RSA PRIVATE KEY-----"])
SECRETS = [TOKEN, *PEM_BODY, "-----END RSA PRIVATE KEY-----"]

FILLER = "".join(f"# line {i}\n" for i in range(20))
SOURCE = FILLER + KEY + "\n" + "def load_key():\n    return open('k').read()\n"


def _key_line() -> int:
    return SOURCE.split("\n").index("def load_key():") + 1


def test_pem_block_cut_at_the_top_of_the_window_is_redacted_whole() -> None:
    # The window starts 3 lines above the target: inside the key, below its BEGIN line.
    got = excerpt(SOURCE, (_key_line(), _key_line() + 1))
    assert "BEGIN" not in got["text"]
    for secret in SECRETS:
        assert secret not in got["text"]
    assert got["text"].split("\n")[-2] == "def load_key():"
    assert got["lines"][1] - got["lines"][0] + 1 == len(got["text"].split("\n"))


def test_pem_block_cut_at_the_bottom_of_the_window_is_redacted() -> None:
    text = "def first():\n    pass\n" + KEY + "\n" + FILLER
    got = excerpt(text, (1, 2))
    for secret in [*PEM_BODY]:
        assert secret not in got["text"]


@pytest.mark.parametrize(
    "ids",
    [("a/b", "a_b", "a b"), ("A", "a"), ("x", "x~" + "0" * 12), ("..", "._"), ("é", "e")],
)
def test_bundle_names_are_unique(ids: tuple[str, ...]) -> None:
    stems = [bundle_stem(i) for i in ids]
    assert len({s.casefold() for s in stems}) == len(ids)
    for stem in stems:
        assert "/" not in stem and stem not in ("", ".", "..") and not stem.startswith(".")


def test_bundle_names_are_stable_and_plain_ids_keep_their_name() -> None:
    assert bundle_stem("session-expiry") == "session-expiry"
    assert bundle_stem("session-expiry", "session-expiry#1") == "session-expiry"
    assert bundle_stem("a/b") == bundle_stem("a/b")
    assert bundle_stem("x", "x#2") != bundle_stem("x")


@pytest.fixture(scope="module")
def leaky_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, str]:
    root = tmp_path_factory.mktemp("leaks")
    repo, shas = make_repo(
        root,
        [
            {"src/keys.py": SOURCE, "src/other.py": "def other():\n    return 0\n"},
            {"src/other.py": "def other():\n    return 1\n"},
        ],
    )
    suite = root / "suite.yaml"
    cases = []
    for cid in ("a/b", "a_b", "a b"):
        cases.append(
            f"  - id: {cid!r}\n"
            f"    query: 'with token {TOKEN} where is load_key?'\n"
            "    accepted:\n"
            "      - {file: src/missing.py, symbol: load_key}\n"
            f"    rationale: 'pasted {TOKEN} by mistake'\n"
        )
    cases.append(
        "  - id: keyed\n"
        f"    query: 'why does load_key fail with {TOKEN}'\n"
        "    groups:\n"
        "      - id: key\n"
        "        anyOf:\n"
        f"          - {{file: src/keys.py, symbol: load_key, lines: [{_key_line()}, {_key_line() + 1}]}}\n"
        "      - id: gone\n"
        "        anyOf: [{file: src/missing.py}]\n"
    )
    suite.write_text(
        f"suite: leaks\nrepository: {{name: r, revision: {shas[0]}}}\ncases:\n" + "".join(cases)
    )
    out = root / "run"
    done = run_cli(
        "run",
        "--cases",
        str(suite),
        "--repo",
        str(repo),
        "--out",
        str(out),
        "--embedder",
        "none",
    )
    assert done.returncode == 0, done.stderr
    return root, repo, suite, done.stdout + done.stderr


def _assert_clean(text: str, where: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret[:12]}… leaked into {where}"


def test_no_output_holds_a_secret(leaky_run: tuple[Path, Path, Path, str]) -> None:
    root, repo, suite, printed = leaky_run
    out = root / "run"
    outputs = [printed]
    bundles = root / "bundles"
    diag = run_cli("diagnose", str(out), "--bundle", str(bundles), "--repo", str(repo))
    assert diag.returncode == 0, diag.stderr
    outputs += [diag.stdout, diag.stderr]
    names = sorted(p.name for p in bundles.iterdir())
    assert len([n for n in names if n.endswith(".json")]) == 4, names
    keyed = (bundles / "keyed.json").read_text()
    assert "[REDACTED:private_key]" in keyed or "excerpt" not in keyed
    rep = run_cli(
        "report", str(out), "--html", str(root / "r.html"), "--junit", str(root / "j.xml")
    )
    assert rep.returncode == 0, rep.stderr
    outputs += [rep.stdout, rep.stderr]
    cmp_ = run_cli("compare", str(out), str(out), "--json", str(root / "cmp.json"))
    assert cmp_.returncode == 0, cmp_.stderr
    outputs += [cmp_.stdout, cmp_.stderr]
    policy = root / "gate.toml"
    policy.write_text("[gate]\nminPassRate = 1.0\n")
    gate = run_cli("gate", str(out), "--policy", str(policy), "--json", str(root / "gate.json"))
    assert gate.returncode in (0, 1), gate.stderr
    outputs += [gate.stdout, gate.stderr]
    revision = run_cli("search", "x", "--index", str(out / "index"))
    outputs.append(revision.stdout)
    from tests.corpus.gitfixture import git

    head = git(repo, "rev-parse", "HEAD")
    lint = run_cli(
        "lint",
        str(suite),
        "--repo",
        str(repo),
        "--index",
        str(out / "index"),
        "--to-revision",
        head,
        "--out",
        str(root / "proposed.yaml"),
        "--json",
        str(root / "lint.json"),
    )
    assert lint.returncode in (0, 1), lint.stderr
    assert "Traceback" not in lint.stderr
    outputs += [lint.stdout, lint.stderr]
    for i, text in enumerate(outputs):
        _assert_clean(text, f"printed output #{i}")
    inputs = (repo, out / "index")  # the repository, and the index of its code
    written = [
        p for p in root.rglob("*") if p.is_file() and not any(p.is_relative_to(i) for i in inputs)
    ]
    assert root / "proposed.yaml" in written
    for path in written:
        if path == suite:
            continue
        _assert_clean(path.read_text(errors="replace"), str(path.relative_to(root)))


def test_suites_drafted_from_issue_texts_hold_no_secret(tmp_path: Path) -> None:
    import json

    _repo, shas = make_repo(tmp_path, [{"src/pay.py": "def pay():\n    return 1\n"}])
    row = {
        "instance_id": "acme__pay-1",
        "repo": "acme/pay",
        "base_commit": shas[0],
        "problem_statement": f"pay() fails; my token is {TOKEN}",
        "patch": "--- a/src/pay.py\n+++ b/src/pay.py\n",
    }
    data = tmp_path / "swe.jsonl"
    data.write_text(json.dumps(row) + "\n")
    done = run_cli("import", "swebench", str(data), "--out", str(tmp_path / "suites"))
    assert done.returncode == 0, done.stderr
    drafted = (tmp_path / "suites" / "acme__pay.yaml").read_text()
    _assert_clean(drafted + done.stdout + done.stderr, "the drafted suite")
    assert "[REDACTED:github_token]" in drafted
