"""`codegold lint`: labels checked against a real repository and codegold's real index,
and suites moved to a new revision (git renames, a function moved to another module)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from codegold.cases import load_suite
from codegold.corpus.git import GitRepo
from codegold.index.store import LoadedIndex, open_index
from codegold.lint import (
    Check,
    LintReport,
    Severity,
    Verdict,
    lint_suites,
    plan_migration,
    proposal_path,
    read_suite_file,
    render_proposal,
)
from codegold.pipeline import index_revisions
from tests.conftest import run_cli
from tests.corpus.gitfixture import make_repo

PAYMENTS = '''"""Payments."""


def charge(amount):
    return amount


def cap_refund(requested, captured):
    return min(requested, captured)


class Client:
    """A client."""

    def send(self, body):
        return body
'''
SESSION = '''def create_session(token):
    """Create a session."""
    if not token:
        raise ValueError("no token")
    return {"token": token}
'''
V1 = {
    "app/payments.py": PAYMENTS,
    "app/session.py": SESSION,
    "app/audit.py": "def audit_log(event):\n    return event\n",
    "app/parsers/csv.py": "def parse(text):\n    return text.split(',')\n",
    "app/parsers/json.py": "def parse(text):\n    return {'raw': text}\n",
    "app/parsers/xml.py": "def parse(text):\n    return ['<', text, '>']\n",
    "tests/helpers.py": "def make_client():\n    return 1\n",
    "legacy/old.py": "def charge(amount):\n    return 0\n",
    "docs/guide.md": "# Guide\n\nCall charge.\n",
}
# v2 renames app/session.py (three lines added on top: the function moves down)
V2 = {"app/session.py": None, "app/sessions/service.py": "import os\n\n\n" + SESSION}
# v3 moves cap_refund into its own module and deletes the audit and xml modules
V3 = {
    "app/payments.py": PAYMENTS.replace(
        "def cap_refund(requested, captured):\n    return min(requested, captured)\n\n\n", ""
    ),
    "app/refunds.py": "def cap_refund(requested, captured):\n    return min(requested, captured)\n",
    "app/audit.py": None,
    "app/parsers/xml.py": None,
}


@dataclass(frozen=True)
class World:
    repo: Path
    index: Path
    shas: list[str]
    indexes: dict[str, LoadedIndex]

    def read_text(self, revision: str, path: str) -> str | None:
        with GitRepo(self.repo) as git:
            data = git.read_path(revision, path)
        return data.decode() if data is not None else None

    def lint(self, *paths: Path) -> LintReport:
        return lint_suites([load_suite(p) for p in paths], self.indexes, self.read_text)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("lint")
    repo, shas = make_repo(root, [V1, V2, V3])
    index = root / "index"
    with GitRepo(repo) as git:
        index_revisions(git, shas, index, repository_name="demo")
    yield World(repo, index, shas, {sha: open_index(index, sha) for sha in shas})


def write_suite(path: Path, revision: str, cases: str) -> Path:
    path.write_text(
        f"suite: demo-gold\nrepository: {{name: demo, revision: {revision}}}\n"
        f"defaults: {{cutoff: 5}}\ncases:\n{cases}",
        encoding="utf-8",
    )
    return path


CLEAN = """\
  - id: charge
    query: How is a card charged?
    accepted:
      - {file: app/payments.py, symbol: charge, roles: [definition], lines: [4, 5]}
    supporting:
      - {file: tests/helpers.py, roles: [test]}
    forbiddenPathPrefixes: [legacy/]
    rationale: charge is the only entry point; legacy/ is the dead copy.
  - id: session
    query: How is a session created?
    groups:
      - id: service
        anyOf: [{file: app/session.py, symbol: create_session, roles: [definition], lines: [1, 5]}]
    rationale: The service creates sessions.
  - id: send
    query: How does the client send a body?
    accepted: [{file: app/payments.py, symbol: Client.send, roles: [definition], lines: [15, 16]}]
    rationale: Client.send is the transport.
  - id: csv-parse
    query: Where are CSV rows parsed?
    accepted: [{filePattern: "app/parsers/c*.py", symbol: parse, roles: [definition]}]
    rationale: Only the CSV parser splits on commas.
"""

# Each case has exactly one problem; everything else about it is clean.
DIRTY = """\
  - id: missing-file
    query: Where is the ledger?
    accepted: [{file: app/ledger.py, symbol: post, roles: [definition]}]
    rationale: r
  - id: missing-symbol
    query: How are refunds sent in bulk?
    groups:
      - {id: charge, anyOf: [{file: app/payments.py, symbol: charge, roles: [definition]}]}
      - {id: bulk, anyOf: [{file: app/payments.py, symbol: refund_all, roles: [definition]}]}
    rationale: r
  - id: role
    query: How do I make a client?
    accepted: [{file: tests/helpers.py, symbol: make_client, roles: [definition]}]
    rationale: r
  - id: lines
    query: Where are refunds capped?
    accepted: [{file: app/payments.py, symbol: cap_refund, roles: [definition], lines: [4, 5]}]
    rationale: r
  - id: prefix
    query: What does charge return?
    accepted: [{file: app/payments.py, symbol: charge, roles: [definition]}]
    forbiddenPathPrefixes: [legacy/, legasy/]
    rationale: r
  - id: duplicate
    query: "  what does CHARGE return? "
    accepted: [{file: app/payments.py, symbol: charge, roles: [definition]}]
    rationale: r
  - id: glob-forbidden
    query: Which charge is the old one?
    accepted: [{filePattern: "legacy/**/*.py", symbol: charge}]
    forbiddenPathPrefixes: [legacy/]
    rationale: r
  - id: hygiene
    query: How is a session created from a token?
    cutoff: 50
    accepted: [{file: app/session.py}]
"""


def test_a_clean_suite_passes(world: World, tmp_path: Path) -> None:
    report = world.lint(write_suite(tmp_path / "clean.yaml", world.shas[0], CLEAN))
    assert report.findings == ()
    assert report.exit_code == 0


@pytest.mark.parametrize(
    ("case_id", "severity", "check", "field", "says"),
    [
        ("missing-file", Severity.ERROR, Check.MISSING_FILE, "accepted[0].file", "app/ledger.py"),
        (
            "missing-symbol",
            Severity.ERROR,
            Check.MISSING_SYMBOL,
            "groups[1].anyOf[0].symbol",
            "refund_all",
        ),
        ("role", Severity.WARNING, Check.ROLE_MISMATCH, "accepted[0].roles", "as test"),
        ("lines", Severity.WARNING, Check.LINES_MISMATCH, "accepted[0].lines", "at 8-9"),
        (
            "prefix",
            Severity.WARNING,
            Check.FORBIDDEN_PREFIX_UNUSED,
            "forbiddenPathPrefixes[1]",
            "'legasy/'",
        ),
        ("duplicate", Severity.WARNING, Check.DUPLICATE_QUERY, "query", "'prefix'"),
        (
            "glob-forbidden",
            Severity.ERROR,
            Check.TARGET_UNDER_FORBIDDEN,
            "accepted[0].filePattern",
            "'legacy/'",
        ),
    ],
    ids=["missing-file", "missing-symbol", "role", "lines", "prefix", "duplicate", "glob"],
)
def test_each_problem_is_reported_on_its_case_and_field(
    world: World,
    tmp_path: Path,
    case_id: str,
    severity: Severity,
    check: Check,
    field: str,
    says: str,
) -> None:
    report = world.lint(write_suite(tmp_path / "dirty.yaml", world.shas[0], DIRTY))
    mine = [f for f in report.findings if f.case_id == case_id]
    assert [(f.severity, f.check, f.field) for f in mine] == [(severity, check, field)]
    assert says in mine[0].message
    assert mine[0].line is not None
    assert report.exit_code == 1


def test_messages_say_what_the_index_sees(world: World, tmp_path: Path) -> None:
    path = write_suite(tmp_path / "dirty.yaml", world.shas[0], DIRTY)
    by_case = {f.case_id: f for f in world.lint(path).findings}
    role = by_case["role"].message
    assert "only test" in role and "tests/helpers.py" in role and "rule" in role
    assert "labelled lines 4-5" in by_case["lines"].message
    assert "'duplicate'" in by_case["duplicate"].message
    # the line points at the field in the file
    line = by_case["prefix"].line
    assert line is not None and "legasy/" in path.read_text().splitlines()[line - 1]


def test_hygiene_rules(world: World, tmp_path: Path) -> None:
    report = world.lint(write_suite(tmp_path / "dirty.yaml", world.shas[0], DIRTY))
    hygiene = {(f.check, f.severity) for f in report.findings if f.case_id == "hygiene"}
    assert hygiene == {
        (Check.LARGE_CUTOFF, Severity.WARNING),
        (Check.NO_RATIONALE, Severity.WARNING),
        (Check.FILE_LEVEL_TARGET, Severity.INFO),
    }


def test_suite_defaults_are_reported_once_without_a_case(world: World, tmp_path: Path) -> None:
    path = tmp_path / "defaults.yaml"
    path.write_text(
        f"repository: {{revision: {world.shas[0]}}}\n"
        "defaults: {cutoff: 30, forbiddenPathPrefixes: [legacy/, vendor/]}\n"
        "cases:\n" + CLEAN.replace("    forbiddenPathPrefixes: [legacy/]\n", "")
    )
    report = world.lint(path)
    assert [(f.case_id, f.field, f.check, f.line) for f in report.findings] == [
        (None, "defaults.cutoff", Check.LARGE_CUTOFF, 2),
        (None, "defaults.forbiddenPathPrefixes[1]", Check.FORBIDDEN_PREFIX_UNUSED, 2),
    ]
    assert report.exit_code == 0


def test_duplicate_ids_across_merged_suites(world: World, tmp_path: Path) -> None:
    one = write_suite(tmp_path / "one.yaml", world.shas[0], CLEAN)
    two = tmp_path / "two.jsonl"
    two.write_text(
        json.dumps(
            {
                "id": "charge",
                "query": "Who charges cards?",
                "repositoryRevision": world.shas[0],
                "accepted": [{"file": "app/payments.py", "symbol": "charge"}],
                "rationale": "r",
            }
        )
        + "\n"
    )
    report = world.lint(one, two)
    dup = [f for f in report.findings if f.check is Check.DUPLICATE_ID]
    assert [(f.suite, f.case_id, f.field, f.line) for f in dup] == [(str(two), "charge", "id", 1)]
    assert str(one) in dup[0].message


def test_a_stale_label_at_a_later_revision(world: World, tmp_path: Path) -> None:
    """The clean suite, pinned to v3 instead: the session file is gone, lines moved."""
    report = world.lint(write_suite(tmp_path / "late.yaml", world.shas[2], CLEAN))
    got = {(f.case_id, f.check, f.field) for f in report.findings}
    assert ("session", Check.MISSING_FILE, "groups[0].anyOf[0].file") in got
    assert ("send", Check.LINES_MISMATCH, "accepted[0].lines") in got
    missing = next(f for f in report.findings if f.check is Check.MISSING_FILE)
    assert "app/sessions/service.py" not in missing.message  # different name: no hint
    assert report.exit_code == 1


# -- --to-revision ---------------------------------------------------------------------

MOVING = """\
  - id: session
    query: "How is a session created: from a token?"
    groups:
      - id: service
        anyOf: [{file: app/session.py, symbol: create_session, roles: [definition], lines: [1, 5]}]
    rationale: |-
      The service creates sessions.
      It moved in v2; "quotes" and ünïcode survive.
  - id: refund
    query: Where are refunds capped?
    accepted: [{file: app/payments.py, symbol: cap_refund, roles: [definition], lines: [8, 9]}]
    supporting: [{file: app/payments.py, symbol: charge, lines: [4, 5]}]
    rationale: The cap.
  - id: send
    query: How does the client send a body?
    accepted: [{file: app/payments.py, symbol: Client.send, roles: [definition]}]
    rationale: "Client.send\\u2028is the\\x7f transport: \\U0001F600"
  - id: xml
    query: How is XML parsed?
    accepted: [{file: app/parsers/xml.py, symbol: parse, roles: [definition]}]
    rationale: The XML parser.
  - id: audit
    query: Where are audit events logged?
    accepted: [{file: app/audit.py, symbol: audit_log}]
    rationale: The audit module.
"""


def test_renames_reports_git_rename_detection(world: World) -> None:
    with GitRepo(world.repo) as git:
        assert git.renames(world.shas[0], world.shas[2]) == {
            "app/session.py": "app/sessions/service.py"
        }
        assert git.renames(world.shas[1], world.shas[1]) == {}


def test_plan_finds_renamed_files_and_moved_functions(world: World, tmp_path: Path) -> None:
    v1, _, v3 = world.shas
    suite = load_suite(write_suite(tmp_path / "gold.yaml", v1, MOVING))
    with GitRepo(world.repo) as git:
        plan = plan_migration(suite, v3, world.indexes, world.read_text, git.renames)
    moves = {(t.case_id, t.field): t for t in plan.targets}
    session = moves[("session", "groups[0].anyOf[0]")]
    assert session.verdict is Verdict.RENAMED
    assert session.new is not None and session.new.file == "app/sessions/service.py"
    assert session.new.lines is not None
    assert (session.new.lines.start, session.new.lines.end) == (4, 8)
    refund = moves[("refund", "accepted[0]")]
    assert (refund.verdict, refund.confidence) == (Verdict.MOVED, "moved symbol")
    assert refund.new is not None and refund.new.file == "app/refunds.py"
    assert refund.new.lines is not None and refund.new.lines.start == 1
    assert moves[("refund", "supporting[0]")].verdict is Verdict.HOLDS
    assert moves[("send", "accepted[0]")].verdict is Verdict.HOLDS
    xml = moves[("xml", "accepted[0]")]
    assert (xml.verdict, xml.confidence, xml.new) == (
        Verdict.AMBIGUOUS,
        "ambiguous: 2 candidates",
        None,
    )
    assert [c.split(" ")[0] for c in xml.candidates] == [
        "app/parsers/csv.py#parse",
        "app/parsers/json.py#parse",
    ]
    assert moves[("audit", "accepted[0]")].verdict is Verdict.GONE
    assert [c.case_id for c in plan.cases if not c.moves] == ["xml", "audit"]


def test_proposed_suite_loads_keeps_old_labels_and_the_original(
    world: World, tmp_path: Path
) -> None:
    v1, _, v3 = world.shas
    path = write_suite(tmp_path / "gold.yaml", v1, MOVING)
    before = path.read_bytes()
    proc = run_cli(
        "lint", str(path), "--repo", str(world.repo), "--index", str(world.index),
        "--to-revision", v3[:10], "--json", str(tmp_path / "lint.json"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert path.read_bytes() == before
    proposed = proposal_path(path, v3)
    assert proposed.name == f"gold.{v3[:12]}.proposed.yaml"
    assert f"wrote {proposed}" in proc.stdout
    assert "app/session.py#create_session [definition] → app/sessions/service.py" in proc.stdout

    text = proposed.read_text(encoding="utf-8")
    assert "# was: {file: app/session.py, symbol: create_session" in text
    assert "# was: {file: app/payments.py, symbol: cap_refund" in text
    assert "# lint: kept at" in text
    new = load_suite(proposed)
    assert new.revision == v3
    cases = new.by_id()
    session = cases["session"].groups[0].any_of[0]
    assert session.file == "app/sessions/service.py"
    assert session.lines is not None and (session.lines.start, session.lines.end) == (4, 8)
    assert cases["session"].rationale == read_suite_file(path).cases[0].rationale
    assert cases["session"].query == "How is a session created: from a token?"
    assert cases["refund"].groups[0].any_of[0].file == "app/refunds.py"
    assert cases["refund"].revision == v3
    # unresolved cases stay exactly as they were, pinned to their old revision
    assert cases["xml"].revision == v1 and cases["audit"].revision == v1
    assert cases["xml"].source.accepted == load_suite(path).by_id()["xml"].source.accepted

    # the proposal is clean where it moved, and still clean where it was kept
    report = world.lint(proposed)
    assert report.exit_code == 0, report.findings

    doc = json.loads((tmp_path / "lint.json").read_text())
    assert doc["counts"]["error"] == 0
    (migration,) = doc["migrations"]
    assert migration["toRevision"] == v3
    assert migration["keptCases"] == ["xml", "audit"]
    assert migration["proposed"] == str(proposed)

    # never overwrite a proposal without --force, never the original
    again = ["lint", str(path), "--repo", str(world.repo), "--index", str(world.index)]
    proc = run_cli(*again, "--to-revision", v3)
    assert proc.returncode == 2 and "--force" in proc.stderr
    assert run_cli(*again, "--to-revision", v3, "--force").returncode == 0
    proc = run_cli(*again, "--to-revision", v3, "--out", str(path), "--force")
    assert proc.returncode == 2 and "original" in proc.stderr
    assert path.read_bytes() == before


def test_render_proposal_round_trips_awkward_text(world: World, tmp_path: Path) -> None:
    v1, _, v3 = world.shas
    path = write_suite(tmp_path / "gold.yaml", v1, MOVING)
    suite = load_suite(path)
    with GitRepo(world.repo) as git:
        plan = plan_migration(suite, v3, world.indexes, world.read_text, git.renames)
    text = render_proposal(suite, read_suite_file(path), plan)
    doc = yaml.safe_load(text)
    assert doc["cases"][0]["rationale"] == (
        'The service creates sessions.\nIt moved in v2; "quotes" and ünïcode survive.'
    )
    assert doc["cases"][2]["rationale"] == "Client.send\u2028is the\x7f transport: \U0001f600"


# -- the command line ------------------------------------------------------------------


def test_cli_exit_codes(world: World, tmp_path: Path) -> None:
    common = ["--repo", str(world.repo), "--index", str(world.index)]
    clean = write_suite(tmp_path / "clean.yaml", world.shas[0], CLEAN)
    dirty = write_suite(tmp_path / "dirty.yaml", world.shas[0], DIRTY)

    proc = run_cli("lint", str(clean), *common)
    assert proc.returncode == 0, proc.stderr
    assert "lint passed: 4 cases, 0 errors" in proc.stdout

    out = tmp_path / "findings.json"
    proc = run_cli("lint", str(dirty), *common, "--json", str(out))
    assert proc.returncode == 1, proc.stderr
    assert f"{dirty}:" in proc.stdout and "missing-file accepted[0].file" in proc.stdout
    findings = json.loads(out.read_text())["findings"]
    assert {"severity", "check", "caseId", "field", "message", "line", "suite"} <= set(findings[0])

    unknown = write_suite(tmp_path / "unknown.yaml", "f" * 40, CLEAN)
    proc = run_cli("lint", str(unknown), *common)
    assert proc.returncode == 2 and "unknown revision" in proc.stderr
    proc = run_cli("lint", str(tmp_path / "nope.yaml"), *common)
    assert proc.returncode == 2 and "no such file" in proc.stderr
    proc = run_cli("lint", str(clean), "--repo", str(tmp_path), "--index", str(world.index))
    assert proc.returncode == 2 and "not a readable git repository" in proc.stderr
    proc = run_cli("lint", str(clean), *common, "--out", str(tmp_path / "p.yaml"))
    assert proc.returncode == 2 and "--to-revision" in proc.stderr


LINKS = '''def parse_header_links(value):
    """Links from a Link header."""
    links = []
    for part in value.split(","):
        url, _, params = part.partition(";")
        links.append({"url": url.strip("<> "), "params": params.strip()})
    return links
'''


def test_plan_proposes_a_renamed_definition_by_its_body(tmp_path: Path) -> None:
    before = {"app/utils.py": LINKS, "app/models.py": "def other():\n    return 2\n"}
    after = {
        "app/utils.py": "def other_helper():\n    return 3\n",
        "app/models.py": None,
        "app/_links.py": "import re\n\n\n" + LINKS.replace("parse_header_links", "_parse_links"),
    }
    repo, (v1, v2) = make_repo(tmp_path / "repo", [before, after])
    index = tmp_path / "index"
    with GitRepo(repo) as git:
        index_revisions(git, [v1, v2], index, repository_name="demo")
        indexes = {sha: open_index(index, sha) for sha in (v1, v2)}

        def read_text(revision: str, path: str) -> str | None:
            data = git.read_path(revision, path)
            return data.decode() if data is not None else None

        cases = """\
  - id: links
    query: How are Link headers parsed?
    accepted: [{file: app/utils.py, symbol: parse_header_links, roles: [definition], lines: [1, 7]}]
  - id: gone
    query: What does other do?
    accepted: [{file: app/models.py, symbol: other}]
"""
        suite = load_suite(write_suite(tmp_path / "gold.yaml", v1, cases))
        plan = plan_migration(suite, v2, indexes, read_text, git.renames)
    moves = {t.case_id: t for t in plan.targets}
    links = moves["links"]
    assert links.verdict is Verdict.SIMILAR
    assert links.new is not None
    assert (links.new.file, links.new.symbol) == ("app/_links.py", "_parse_links")
    assert links.new.lines is not None and links.new.lines.start == 4
    assert "100% the same" in links.detail
    assert moves["gone"].verdict is Verdict.GONE  # other_helper is not the same body


def test_lint_rebuilds_an_index_made_by_another_chunker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build from an older chunker names symbols differently; lint must not trust it."""
    import codegold.index.build as build_module
    import codegold.pipeline.lint as lint_pipeline
    from codegold.chunking import chunker_version

    repo, (sha,) = make_repo(tmp_path, [{"pay.py": "def charge(amount):\n    return amount\n"}])
    root = tmp_path / "index"
    git_repo = GitRepo(repo)
    older = "older-chunker"
    monkeypatch.setattr(build_module, "chunker_version", lambda config=None: older)
    index_revisions(git_repo, [sha], root, repository_name=None)
    assert open_index(root, sha).manifest.chunker_version == older
    monkeypatch.undo()

    opened = lint_pipeline.open_indexes(git_repo, [sha], root, repository_name=None)
    assert opened[sha].manifest.chunker_version == chunker_version()
    assert open_index(root, sha).manifest.chunker_version == chunker_version()


HONO_BASE = """\
const notFoundHandler = (c) => {
  return c.text('404 Not Found', 404)
}

class Hono {
  get
  post
  #notFoundHandler = notFoundHandler
  errorHandler = notFoundHandler

  route(path) {
    return path
  }
}
"""


def test_a_name_matched_only_after_folding_hash_does_not_crash(tmp_path: Path) -> None:
    """`notFoundHandler` also matches the member `Hono.#notFoundHandler` once `#` is
    folded to `.`; picking that member's name must use the same rule (was a traceback)."""
    repo, (sha,) = make_repo(tmp_path / "repo", [{"src/hono-base.js": HONO_BASE}])
    cases = """\
  - id: not-found
    query: where does the plain-text 404 come from?
    accepted:
      - {file: src/hono-base.js, symbol: notFoundHandler, roles: [definition], lines: [1, 3]}
    rationale: The module-level handler answers 404; the class only stores it.
"""
    suite = write_suite(tmp_path / "gold.yaml", sha, cases)
    proc = run_cli("lint", str(suite), "--repo", str(repo), "--index", str(tmp_path / "index"))
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "lint passed: 1 case, 0 errors, 0 warnings" in proc.stdout
