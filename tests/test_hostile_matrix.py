"""The hostile matrix: bad inputs, hostile repositories and environment faults, each
run through the real `codegold` command line, all under one rule.

A row is *refused* (exit 2 for bad input, 3 for the environment) or *handled* (exit 0:
the hostile part is recorded, never returned). Either way:

- no traceback, and a refusal is exactly one line naming the file, case or field;
- nothing is written outside the row's output folder (every other file under the
  row's folder and the shared repository is byte-for-byte unchanged);
- nothing is half-written (no ``*.tmp`` or ``.tmp-*`` left anywhere);
- no secret verbatim in any output: every suite's query carries a token, and neither
  what the command prints nor any file it writes may hold it.

``ROWS`` is the matrix; ``test_matrix_size`` keeps it at 40 rows or more.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.corpus.gitfixture import git, make_repo
from tests.hostile.faults import leftovers, popen_cli, run_cli_unprivileged
from tests.hostile.repos import LFS_POINTER, drop_blob, hostile_repo

TOKEN = "ghp_" + "R7kQ2mX9vL4pN8sT1wY6zB3cD5fH0jK2aE4u"  # a fake, real-shaped token
PEM = "\n".join(
    [
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "QyNTUxOQAAACBqYXZhc2NyaXB0LWlzLW5vdC1hLXNlY3JldC1idXQtdGhpcy1pcwAAAJg",
        "-----END OPENSSH PRIVATE KEY-----",
    ]
)
SECRETS = (TOKEN, *PEM.split("\n")[1:])

APP = "def handle(request):\n    return authorize(request)\n"
AUTH = "def authorize(request):\n    return request.user is not None\n"


@dataclass
class Shared:
    root: Path
    repo: Path
    sha: str
    index: Path  # a complete index of ``sha``
    run: Path  # a finished run folder (results.json, attempts.jsonl, index/)


@dataclass
class Scenario:
    argv: list[str]
    code: int
    names: tuple[str, ...] = ()  # what the one line must name (file, case, field)
    out: Path | None = None  # the folder the command may write
    unprivileged: bool = False
    check: Callable[[subprocess.CompletedProcess[str]], None] | None = None
    sigterm_when: Callable[[], bool] | None = None  # send SIGTERM once this holds


@dataclass
class Ctx:
    tmp: Path
    shared: Shared
    notes: dict[str, object] = field(default_factory=dict)

    def suite(self, name: str = "suite.yaml", *, sha: str | None = None, body: str = "") -> Path:
        """A valid one-case suite (the query carries the token) unless ``body`` says more."""
        path = self.tmp / name
        path.write_text(
            f"suite: matrix\nrepository: {{name: r, revision: {sha or self.shared.sha}}}\n"
            + (
                body
                or "cases:\n  - id: c1\n"
                f"    query: 'why does authorize reject {TOKEN}?'\n"
                "    accepted: [{file: src/auth.py, symbol: authorize}]\n"
            )
        )
        return path

    def run_args(self, suite: Path, repo: Path | None = None, out: Path | None = None) -> list[str]:
        return [
            "run", "--cases", str(suite), "--repo", str(repo or self.shared.repo),
            "--out", str(out or self.tmp / "out"), "--embedder", "none",
        ]  # fmt: skip

    def copy_index(self) -> Path:
        target = self.tmp / "idx"
        shutil.copytree(self.shared.index, target)
        return target

    def build(self) -> Path:
        (build,) = (self.copy_index() / "builds").iterdir()
        return build


# -- rows: bad input (exit 2) ------------------------------------------------------------


def _suite_missing(c: Ctx) -> Scenario:
    path = c.tmp / "nope.yaml"
    return Scenario(c.run_args(path), 2, (str(path), "no such file"), c.tmp / "out")


def _suite_directory(c: Ctx) -> Scenario:
    (c.tmp / "dir.yaml").mkdir()
    return Scenario(c.run_args(c.tmp / "dir.yaml"), 2, ("dir.yaml", "directory"), c.tmp / "out")


def _suite_empty(c: Ctx) -> Scenario:
    (c.tmp / "empty.yaml").write_text("\n\n")
    return Scenario(c.run_args(c.tmp / "empty.yaml"), 2, ("empty.yaml", "empty"), c.tmp / "out")


def _suite_not_utf8(c: Ctx) -> Scenario:
    (c.tmp / "latin.yaml").write_bytes(b"suite: caf\xe9\n")
    return Scenario(c.run_args(c.tmp / "latin.yaml"), 2, ("latin.yaml:1", "UTF-8"), c.tmp / "out")


def _suite_bad_yaml(c: Ctx) -> Scenario:
    (c.tmp / "bad.yaml").write_text(f"suite: [unclosed\ncases: {TOKEN}\n")
    return Scenario(c.run_args(c.tmp / "bad.yaml"), 2, ("bad.yaml", "invalid YAML"), c.tmp / "out")


def _alias_bomb(path: Path) -> None:
    lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 9):
        lines.append(f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 10) + "]")
    path.write_text("\n".join(lines) + "\ncases: *l8\n")


def _suite_alias_bomb(c: Ctx) -> Scenario:
    _alias_bomb(c.tmp / "bomb.yaml")
    return Scenario(
        c.run_args(c.tmp / "bomb.yaml"), 2, ("bomb.yaml", "aliases are expanded"), c.tmp / "out"
    )


def _lint_alias_bomb(c: Ctx) -> Scenario:
    _alias_bomb(c.tmp / "bomb.yaml")
    argv = ["lint", str(c.tmp / "bomb.yaml"), "--repo", str(c.shared.repo), "--index",
            str(c.tmp / "out" / "index")]  # fmt: skip
    return Scenario(argv, 2, ("bomb.yaml", "aliases are expanded"), c.tmp / "out")


def _suite_yaml_deep(c: Ctx) -> Scenario:
    (c.tmp / "deep.yaml").write_text("cases:\n  " + "- " * 100_000 + "x\n")
    return Scenario(c.run_args(c.tmp / "deep.yaml"), 2, ("deep.yaml", "nested"), c.tmp / "out")


def _suite_yaml_flow_deep(c: Ctx) -> Scenario:
    (c.tmp / "flow.yaml").write_text("cases: " + "[" * 5000 + "]" * 5000 + "\n")
    return Scenario(c.run_args(c.tmp / "flow.yaml"), 2, ("flow.yaml",), c.tmp / "out")


def _suite_json_deep(c: Ctx) -> Scenario:
    (c.tmp / "deep.json").write_text("[" * 200_000 + "]" * 200_000)
    return Scenario(c.run_args(c.tmp / "deep.json"), 2, ("deep.json", "nested"), c.tmp / "out")


def _suite_jsonl_deep(c: Ctx) -> Scenario:
    (c.tmp / "deep.jsonl").write_text('{"id": "a", "x": ' + "[" * 100_000 + "]" * 100_000 + "}\n")
    return Scenario(c.run_args(c.tmp / "deep.jsonl"), 2, ("deep.jsonl", "nested"), c.tmp / "out")


def _suite_bad_json(c: Ctx) -> Scenario:
    (c.tmp / "bad.json").write_text('{"suite": "x", "cases": [')
    return Scenario(c.run_args(c.tmp / "bad.json"), 2, ("bad.json", "invalid JSON"), c.tmp / "out")


def _suite_duplicate_id(c: Ctx) -> Scenario:
    case = (
        "  - id: twin\n    query: 'where is authorize {n} " + TOKEN + "'\n"
        "    accepted: [{file: src/auth.py}]\n"
    )
    path = c.suite(body="cases:\n" + case.replace("{n}", "1") + case.replace("{n}", "2"))
    return Scenario(c.run_args(path), 2, ("suite.yaml", "'twin'", "'id'"), c.tmp / "out")


def _suite_short_revision(c: Ctx) -> Scenario:
    path = c.suite(sha=c.shared.sha[:12])
    return Scenario(c.run_args(path), 2, ("suite.yaml", "revision", "40-hex"), c.tmp / "out")


def _suite_unknown_field(c: Ctx) -> Scenario:
    path = c.suite(body="cases:\n  - id: c1\n    query: q\n    acepted: [{file: src/auth.py}]\n")
    return Scenario(c.run_args(path), 2, ("suite.yaml", "'c1'", "acepted"), c.tmp / "out")


def _suite_no_cases(c: Ctx) -> Scenario:
    path = c.suite(body="cases: []\n")
    return Scenario(c.run_args(path), 2, ("suite.yaml", "no cases"), c.tmp / "out")


def _suite_bad_cutoff(c: Ctx) -> Scenario:
    path = c.suite(
        body="cases:\n  - id: c1\n    query: q\n    cutoff: five\n"
        "    accepted: [{file: src/auth.py}]\n"
    )
    return Scenario(c.run_args(path), 2, ("suite.yaml", "'c1'", "cutoff"), c.tmp / "out")


def _suite_missing_query(c: Ctx) -> Scenario:
    path = c.suite(body="cases:\n  - id: c1\n    accepted: [{file: src/auth.py}]\n")
    return Scenario(c.run_args(path), 2, ("suite.yaml", "'c1'", "query"), c.tmp / "out")


def _suite_scalar(c: Ctx) -> Scenario:
    (c.tmp / "scalar.yaml").write_text(f"{TOKEN}\n")
    return Scenario(c.run_args(c.tmp / "scalar.yaml"), 2, ("scalar.yaml",), c.tmp / "out")


def _suite_unknown_revision(c: Ctx) -> Scenario:
    path = c.suite(sha="0123456789abcdef0123456789abcdef01234567")
    return Scenario(c.run_args(path), 2, ("0123456789abcdef", "unknown revision"), c.tmp / "out")


def _repo_not_a_repository(c: Ctx) -> Scenario:
    (c.tmp / "plain").mkdir()
    argv = c.run_args(c.suite(), repo=c.tmp / "plain")
    return Scenario(argv, 2, ("plain", "not a readable git repository"), c.tmp / "out")


def _repo_missing(c: Ctx) -> Scenario:
    argv = c.run_args(c.suite(), repo=c.tmp / "gone")
    return Scenario(argv, 2, ("gone", "not a directory"), c.tmp / "out")


def _attempts(c: Ctx, text: str) -> list[str]:
    (c.tmp / "attempts.jsonl").write_text(text)
    return ["eval", "--cases", str(c.suite()), "--attempts", str(c.tmp / "attempts.jsonl"),
            "--out", str(c.tmp / "out")]  # fmt: skip


def _attempts_bad_json(c: Ctx) -> Scenario:
    argv = _attempts(c, '{"attemptId": "a", \n')
    return Scenario(argv, 2, ("attempts.jsonl:1", "invalid JSON"), c.tmp / "out")


def _attempts_unknown_case(c: Ctx) -> Scenario:
    line = {"attemptId": "x#1", "caseId": "ghost", "ranked": [], "query": TOKEN}
    argv = _attempts(c, json.dumps(line) + "\n")
    return Scenario(argv, 2, ("attempts.jsonl:1", "'ghost'", "caseId"), c.tmp / "out")


def _attempts_deep(c: Ctx) -> Scenario:
    deep = "[" * 100_000 + "]" * 100_000
    argv = _attempts(c, '{"attemptId": "a", "caseId": "c1", "debug": {"x": ' + deep + "}}\n")
    return Scenario(argv, 2, ("attempts.jsonl:1", "nested"), c.tmp / "out")


def _attempts_duplicate(c: Ctx) -> Scenario:
    line = json.dumps({"attemptId": "c1#1", "caseId": "c1", "ranked": []})
    argv = _attempts(c, line + "\n" + line + "\n")
    return Scenario(argv, 2, ("attempts.jsonl:2", "duplicate attemptId"), c.tmp / "out")


def _results_not_json(c: Ctx) -> Scenario:
    (c.tmp / "results.json").write_text(f"not json {TOKEN}")
    argv = ["compare", str(c.tmp / "results.json"), str(c.shared.run),
            "--json", str(c.tmp / "out" / "cmp.json")]  # fmt: skip
    return Scenario(argv, 2, ("results.json",), c.tmp / "out")


def _results_deep(c: Ctx) -> Scenario:
    (c.tmp / "results.json").write_text("[" * 200_000 + "]" * 200_000)
    (c.tmp / "gate.toml").write_text("[gate]\nminPassRate = 0.5\n")
    argv = ["gate", str(c.tmp / "results.json"), "--policy", str(c.tmp / "gate.toml")]
    return Scenario(argv, 2, ("results.json",), c.tmp / "out")


def _gate_policy_bad_toml(c: Ctx) -> Scenario:
    (c.tmp / "gate.toml").write_text("[gate\nminPassRate = 0.5\n")
    argv = ["gate", str(c.shared.run), "--policy", str(c.tmp / "gate.toml")]
    return Scenario(argv, 2, ("gate.toml",), c.tmp / "out")


def _config_bad_toml(c: Ctx) -> Scenario:
    (c.tmp / "cfg.toml").write_text("[retriever\n")
    argv = [*c.run_args(c.suite()), "--config", str(c.tmp / "cfg.toml")]
    return Scenario(argv, 2, ("cfg.toml", "TOML"), c.tmp / "out")


def _diagnose_unknown_case(c: Ctx) -> Scenario:
    argv = ["diagnose", str(c.shared.run), "--case", "no-such-case"]
    return Scenario(argv, 2, ("no-such-case",), c.tmp / "out")


# -- rows: hostile repositories ------------------------------------------------------------


def _hostile(c: Ctx, files: dict[bytes, bytes]) -> tuple[Path, str]:
    base = {b"src/auth.py": AUTH.encode(), b"src/app.py": APP.encode()}
    return hostile_repo(c.tmp, {**base, **files})


def _never_returned(
    *bad: str,
) -> Callable[[Path], Callable[[subprocess.CompletedProcess[str]], None]]:
    def make(out: Path) -> Callable[[subprocess.CompletedProcess[str]], None]:
        def check(done: subprocess.CompletedProcess[str]) -> None:
            attempts = (out / "attempts.jsonl").read_text()
            files = {
                ch["file"] for line in attempts.splitlines() for ch in json.loads(line)["ranked"]
            }
            for path in files:
                assert not any(path.startswith(b) or f"/{b}" in path for b in bad), path
            assert "src/auth.py" in files

        return check

    return make


def _run_hostile(c: Ctx, files: dict[bytes, bytes], *bad: str) -> Scenario:
    repo, sha = _hostile(c, files)
    out = c.tmp / "out"
    return Scenario(
        c.run_args(c.suite(sha=sha), repo=repo, out=out), 0, out=out,
        check=_never_returned(*bad)(out),
    )  # fmt: skip


def _tree_dotdot(c: Ctx) -> Scenario:
    return _run_hostile(c, {b"../authorize.py": AUTH.encode()}, "../")


def _tree_nested_dotdot(c: Ctx) -> Scenario:
    return _run_hostile(c, {b"src/../../authorize.py": AUTH.encode()}, "../", "src/../")


def _tree_dotgit(c: Ctx) -> Scenario:
    return _run_hostile(c, {b".git/hooks/authorize.py": AUTH.encode()}, ".git/")


def _tree_dotgit_case(c: Ctx) -> Scenario:
    return _run_hostile(c, {b"lib/.GiT/authorize.py": AUTH.encode()}, ".GiT/")


def _tree_dot(c: Ctx) -> Scenario:
    return _run_hostile(c, {b"./authorize.py": AUTH.encode()}, "./")


def _inventory_check(
    out: Path, path: str, status: str
) -> Callable[[subprocess.CompletedProcess[str]], None]:
    def check(done: subprocess.CompletedProcess[str]) -> None:
        (build,) = (out / "index" / "builds").iterdir()
        inventory = {e["path"]: e for e in json.loads((build / "inventory.json").read_text())}
        assert inventory[path]["status"] == status, inventory[path]

    return check


def _non_utf8_name(c: Ctx) -> Scenario:
    repo, sha = _hostile(c, {b"src/caf\xe9.py": b"def cafe():\n    return 1\n"})
    out = c.tmp / "out"
    return Scenario(
        c.run_args(c.suite(sha=sha), repo=repo, out=out), 0, out=out,
        check=_inventory_check(out, "src/caf\\xe9.py", "indexed"),
    )  # fmt: skip


def _missing_blob(c: Ctx) -> Scenario:
    repo, sha = _hostile(c, {b"src/gone.py": b"def gone():\n    return 2\n"})
    drop_blob(repo, b"def gone():\n    return 2\n")
    out = c.tmp / "out"
    inventory = _inventory_check(out, "src/gone.py", "unreadable")

    def check(done: subprocess.CompletedProcess[str]) -> None:
        inventory(done)
        assert "1 files unreadable" in done.stderr

    return Scenario(c.run_args(c.suite(sha=sha), repo=repo, out=out), 0, out=out, check=check)


def _lfs_pointer(c: Ctx) -> Scenario:
    repo, sha = _hostile(c, {b"src/model.py": LFS_POINTER})
    out = c.tmp / "out"
    return Scenario(
        c.run_args(c.suite(sha=sha), repo=repo, out=out), 0, out=out,
        check=_inventory_check(out, "src/model.py", "lfs-pointer"),
    )  # fmt: skip


def _newline_name(c: Ctx) -> Scenario:
    repo, sha = _hostile(c, {b"src/odd\nname.py": b"def odd():\n    return 3\n"})
    out = c.tmp / "out"
    return Scenario(
        c.run_args(c.suite(sha=sha), repo=repo, out=out), 0, out=out,
        check=_inventory_check(out, "src/odd\nname.py", "indexed"),
    )  # fmt: skip


def _symlink_outside(c: Ctx) -> Scenario:
    from tests.corpus.gitfixture import Symlink

    repo, shas = make_repo(
        c.tmp,
        [{"src/auth.py": AUTH, "src/app.py": APP, "src/passwd.py": Symlink("../../../etc/passwd")}],
    )
    out = c.tmp / "out"
    return Scenario(
        c.run_args(c.suite(sha=shas[0]), repo=repo, out=out), 0, out=out,
        check=_inventory_check(out, "src/passwd.py", "excluded"),
    )  # fmt: skip


def _private_key_above_window(c: Ctx) -> Scenario:
    filler = "".join(f"# {i}\n" for i in range(10))
    text = filler + PEM + "\ndef authorize(request):\n    return True\n"
    repo, sha = _hostile(c, {b"src/keyed.py": text.encode()})
    line = text.split("\n").index("def authorize(request):") + 1
    suite = c.suite(
        sha=sha,
        body="cases:\n  - id: keyed\n"
        f"    query: 'why does authorize reject {TOKEN}?'\n"
        "    groups:\n"
        # roles nothing has: the group misses, and its evidence carries the excerpt
        f"      - {{id: k, anyOf: [{{file: src/keyed.py, lines: [{line}, {line + 1}], "
        "roles: [test]}]}\n",
    )
    out = c.tmp / "out"
    first = run_cli(*c.run_args(suite, repo=repo, out=out))
    assert first.returncode == 0, first.stderr
    argv = ["diagnose", str(out), "--bundle", str(out / "bundles"), "--repo", str(repo)]

    def check(done: subprocess.CompletedProcess[str]) -> None:
        bundle = (out / "bundles" / "keyed.md").read_text()
        assert "[REDACTED:private_key]" in bundle

    return Scenario(argv, 0, out=out, check=check)


def _form_feed_lines(c: Ctx) -> Scenario:
    text = "a = 1\f# still line one\nb = '\u2028'\nc = '\r'\ndef authorize(request):\n    pass\n"
    repo, sha = _hostile(c, {b"src/odd.py": text.encode()})
    suite = c.suite(
        sha=sha,
        body="cases:\n  - id: lines\n    query: 'authorize'\n"
        "    groups:\n      - {id: k, anyOf: [{file: src/odd.py, lines: [4, 5], roles: [test]}]}\n",
    )
    out = c.tmp / "out"
    assert run_cli(*c.run_args(suite, repo=repo, out=out)).returncode == 0
    argv = ["diagnose", str(out), "--bundle", str(out / "b"), "--repo", str(repo)]

    def check(done: subprocess.CompletedProcess[str]) -> None:
        bundle = json.loads((out / "b" / "lines.json").read_text())
        (target,) = [t for t in bundle["targets"] if t.get("excerpt")]
        shown = target["excerpt"]["text"].split("\n")
        start = target["excerpt"]["lines"][0]
        assert shown[4 - start] == "def authorize(request):"

    return Scenario(argv, 0, out=out, check=check)


def _corrupt_object(c: Ctx) -> Scenario:
    repo, sha = _hostile(c, {b"src/rot.py": b"def rot():\n    return 4\n"})
    oid = drop_blob(repo, b"def rot():\n    return 4\n")
    loose = repo / ".git" / "objects" / oid[:2] / oid[2:]
    loose.write_bytes(b"\x78\x01garbage-not-zlib")
    out = c.tmp / "out"
    # git cannot read the object's header either (ls-tree -l prints BAD): unreadable.
    return Scenario(
        c.run_args(c.suite(sha=sha), repo=repo, out=out), 0, out=out,
        check=_inventory_check(out, "src/rot.py", "unreadable"),
    )  # fmt: skip


def _submodule(c: Ctx) -> Scenario:
    from tests.corpus.gitfixture import Gitlink

    repo, shas = make_repo(c.tmp, [{"src/auth.py": AUTH, "vendor/lib": Gitlink("1" * 40)}])
    out = c.tmp / "out"
    return Scenario(
        c.run_args(c.suite(sha=shas[0]), repo=repo, out=out), 0, out=out,
        check=_inventory_check(out, "vendor/lib", "excluded"),
    )  # fmt: skip


# -- rows: environment faults (exit 3) --------------------------------------------------


def _out_read_only(c: Ctx) -> Scenario:
    out = c.tmp / "ro"
    out.mkdir()
    out.chmod(0o555)
    return Scenario(c.run_args(c.suite(), out=out), 3, (str(out), "read-only"), out, True)


def _out_parent_read_only(c: Ctx) -> Scenario:
    parent = c.tmp / "ro"
    parent.mkdir()
    parent.chmod(0o555)
    out = parent / "sub"
    return Scenario(c.run_args(c.suite(), out=out), 3, (str(out), "read-only"), out, True)


def _out_under_file(c: Ctx) -> Scenario:
    (c.tmp / "f").write_text("x\n")
    out = c.tmp / "f" / "out"
    return Scenario(c.run_args(c.suite(), out=out), 3, (str(c.tmp / "f"), "regular file"), out)


def _index_out_is_file(c: Ctx) -> Scenario:
    (c.tmp / "f").write_text("x\n")
    argv = ["index", str(c.shared.repo), "--out", str(c.tmp / "f"), "--embedder", "none"]
    return Scenario(argv, 3, (str(c.tmp / "f"), "is a file"), c.tmp / "f")


def _eval_out_under_file(c: Ctx) -> Scenario:
    (c.tmp / "f").write_text("x\n")
    out = c.tmp / "f" / "o"
    argv = ["eval", "--cases", str(c.suite()), "--attempts",
            str(c.shared.run / "attempts.jsonl"), "--out", str(out)]  # fmt: skip
    return Scenario(argv, 3, (str(c.tmp / "f"), "regular file"), out)


def _bundle_under_file(c: Ctx) -> Scenario:
    (c.tmp / "f").write_text("x\n")
    out = c.tmp / "f" / "bundles"
    argv = ["diagnose", str(c.shared.run), "--bundle", str(out)]
    return Scenario(argv, 3, ("--bundle", str(c.tmp / "f")), out)


def _html_under_file(c: Ctx) -> Scenario:
    (c.tmp / "f").write_text("x\n")
    out = c.tmp / "f" / "r.html"
    argv = ["report", str(c.shared.run), "--html", str(out)]
    return Scenario(argv, 3, (str(c.tmp / "f"),), out)


def _compare_json_read_only(c: Ctx) -> Scenario:
    out = c.tmp / "ro"
    out.mkdir()
    out.chmod(0o555)
    argv = ["compare", str(c.shared.run), str(c.shared.run), "--json", str(out / "c.json")]
    return Scenario(argv, 3, (str(out),), out, True)


def _index_read_only(c: Ctx) -> Scenario:
    out = c.tmp / "ro"
    out.mkdir()
    out.chmod(0o555)
    argv = ["index", str(c.shared.repo), "--out", str(out), "--embedder", "none"]
    return Scenario(argv, 3, (str(out), "read-only"), out, True)


def _damaged(c: Ctx, name: str, damage: Callable[[Path], None]) -> Scenario:
    build = c.build()
    damage(build / name)
    argv = ["search", "authorize", "--index", str(build.parent.parent)]
    return Scenario(argv, 3, (build.name, name, "rebuild"), c.tmp / "out")


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:7])


def _flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x20
    path.write_bytes(bytes(data))


def _index_truncated_chunks(c: Ctx) -> Scenario:
    return _damaged(c, "chunks.msgpack", _truncate)


def _index_flipped_lexical(c: Ctx) -> Scenario:
    return _damaged(c, "lexical/rows.npy", _flip)


def _index_garbage_manifest(c: Ctx) -> Scenario:
    return _damaged(c, "manifest.json", lambda p: p.write_text("{"))


def _index_missing_symbols(c: Ctx) -> Scenario:
    return _damaged(c, "symbols.msgpack", lambda p: p.unlink())


def _index_damaged_pointer(c: Ctx) -> Scenario:
    root = c.copy_index()
    (pointer,) = (root / "revisions").iterdir()
    pointer.write_text("[1, 2")
    argv = ["search", "authorize", "--index", str(root)]
    return Scenario(argv, 3, (pointer.name, "damaged", "rebuild"), c.tmp / "out")


def _diagnose_damaged_index(c: Ctx) -> Scenario:
    run = c.tmp / "run"
    shutil.copytree(c.shared.run, run)
    (build,) = (run / "index" / "builds").iterdir()
    _flip(build / "chunks.msgpack")
    argv = ["diagnose", str(run), "--bundle", str(run / "bundles")]
    return Scenario(argv, 3, (build.name, "chunks.msgpack"), run)


def _sigterm_index(c: Ctx) -> Scenario:
    files = {
        f"p{i // 50}/m{i}.py": "".join(
            f"def f{i}_{j}(x):\n    return x + {j}\n\n" for j in range(40)
        )
        for i in range(1200)
    }
    repo, _ = make_repo(c.tmp, [files], name="big")
    out = c.tmp / "out"

    def building() -> bool:
        return (out / "builds").is_dir() and any((out / "builds").glob(".tmp-*"))

    argv = ["index", str(repo), "--out", str(out), "--embedder", "none"]
    return Scenario(argv, 143, ("terminated",), out, sigterm_when=building)


ROWS: dict[str, tuple[str, Callable[[Ctx], Scenario]]] = {
    # bad input
    "suite-missing": ("input", _suite_missing),
    "suite-is-directory": ("input", _suite_directory),
    "suite-empty": ("input", _suite_empty),
    "suite-not-utf8": ("input", _suite_not_utf8),
    "suite-invalid-yaml": ("input", _suite_bad_yaml),
    "suite-yaml-alias-bomb": ("input", _suite_alias_bomb),
    "lint-yaml-alias-bomb": ("input", _lint_alias_bomb),
    "suite-yaml-block-nesting-100000": ("input", _suite_yaml_deep),
    "suite-yaml-flow-nesting-5000": ("input", _suite_yaml_flow_deep),
    "suite-json-nesting-200000": ("input", _suite_json_deep),
    "suite-jsonl-nesting-100000": ("input", _suite_jsonl_deep),
    "suite-invalid-json": ("input", _suite_bad_json),
    "suite-duplicate-case-id": ("input", _suite_duplicate_id),
    "suite-short-revision": ("input", _suite_short_revision),
    "suite-unknown-field": ("input", _suite_unknown_field),
    "suite-no-cases": ("input", _suite_no_cases),
    "suite-cutoff-not-a-number": ("input", _suite_bad_cutoff),
    "suite-case-without-query": ("input", _suite_missing_query),
    "suite-top-level-scalar": ("input", _suite_scalar),
    "suite-revision-not-in-repository": ("input", _suite_unknown_revision),
    "repo-not-a-repository": ("input", _repo_not_a_repository),
    "repo-missing": ("input", _repo_missing),
    "attempts-invalid-json": ("input", _attempts_bad_json),
    "attempts-unknown-case": ("input", _attempts_unknown_case),
    "attempts-nesting-100000": ("input", _attempts_deep),
    "attempts-duplicate-id": ("input", _attempts_duplicate),
    "results-not-json": ("input", _results_not_json),
    "results-nesting-200000": ("input", _results_deep),
    "gate-policy-invalid-toml": ("input", _gate_policy_bad_toml),
    "retriever-config-invalid-toml": ("input", _config_bad_toml),
    "diagnose-unknown-case": ("input", _diagnose_unknown_case),
    # hostile repositories
    "tree-entry-dotdot": ("repository", _tree_dotdot),
    "tree-entry-nested-dotdot": ("repository", _tree_nested_dotdot),
    "tree-entry-dotgit": ("repository", _tree_dotgit),
    "tree-entry-dotgit-mixed-case": ("repository", _tree_dotgit_case),
    "tree-entry-dot": ("repository", _tree_dot),
    "name-not-utf8": ("repository", _non_utf8_name),
    "name-with-newline": ("repository", _newline_name),
    "blob-missing-ls-tree-BAD": ("repository", _missing_blob),
    "blob-corrupt-object": ("repository", _corrupt_object),
    "git-lfs-pointer": ("repository", _lfs_pointer),
    "symlink-out-of-tree": ("repository", _symlink_outside),
    "submodule-gitlink": ("repository", _submodule),
    "private-key-above-excerpt-window": ("repository", _private_key_above_window),
    "form-feed-u2028-lone-cr-lines": ("repository", _form_feed_lines),
    # environment faults
    "out-read-only": ("fault", _out_read_only),
    "out-parent-read-only": ("fault", _out_parent_read_only),
    "out-under-regular-file": ("fault", _out_under_file),
    "index-out-is-a-file": ("fault", _index_out_is_file),
    "index-out-read-only": ("fault", _index_read_only),
    "eval-out-under-regular-file": ("fault", _eval_out_under_file),
    "bundle-dir-under-regular-file": ("fault", _bundle_under_file),
    "html-under-regular-file": ("fault", _html_under_file),
    "compare-json-read-only": ("fault", _compare_json_read_only),
    "index-truncated-chunks": ("fault", _index_truncated_chunks),
    "index-flipped-lexical-array": ("fault", _index_flipped_lexical),
    "index-garbage-manifest": ("fault", _index_garbage_manifest),
    "index-missing-symbols": ("fault", _index_missing_symbols),
    "index-damaged-revision-pointer": ("fault", _index_damaged_pointer),
    "diagnose-damaged-index": ("fault", _diagnose_damaged_index),
    "sigterm-during-index": ("fault", _sigterm_index),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Shared:
    root = tmp_path_factory.mktemp("matrix-shared")
    repo, shas = make_repo(root, [{"src/auth.py": AUTH, "src/app.py": APP}])
    index = root / "index"
    done = run_cli("index", str(repo), "--out", str(index), "--embedder", "none")
    assert done.returncode == 0, done.stderr
    suite = root / "suite.yaml"
    suite.write_text(
        f"suite: matrix\nrepository: {{name: r, revision: {shas[0]}}}\ncases:\n"
        f"  - id: c1\n    query: 'why does authorize reject {TOKEN}?'\n"
        "    accepted: [{file: src/missing.py, symbol: authorize}]\n"
    )
    run = root / "run"
    done = run_cli(
        "run", "--cases", str(suite), "--repo", str(repo), "--out", str(run),
        "--embedder", "none",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return Shared(root, repo, shas[0], index, run)


def _snapshot(folders: list[Path], skip: Path | None) -> dict[str, tuple[int, int, bytes]]:
    seen: dict[str, tuple[int, int, bytes]] = {}
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if skip is not None and (path == skip or path.is_relative_to(skip)):
                continue
            if path.is_file() and not path.is_symlink():
                stat = path.stat()
                head = path.read_bytes()[:64] if stat.st_size < 1 << 20 else b""
                seen[str(path)] = (stat.st_size, stat.st_mtime_ns, head)
    return seen


def _run(scenario: Scenario) -> subprocess.CompletedProcess[str]:
    if scenario.sigterm_when is not None:
        proc = popen_cli(*scenario.argv)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and not scenario.sigterm_when():
            time.sleep(0.02)
        assert proc.poll() is None, "finished before it could be interrupted"
        time.sleep(0.2)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=120)
        return subprocess.CompletedProcess(scenario.argv, proc.returncode, stdout, stderr)
    if scenario.unprivileged:
        return run_cli_unprivileged(*scenario.argv)
    return run_cli(*scenario.argv)


def _written(folder: Path | None) -> list[Path]:
    if folder is None or not folder.exists():
        return []
    if folder.is_file():
        return [folder]
    return [p for p in folder.rglob("*") if p.is_file()]


def test_matrix_size() -> None:
    kinds = [kind for kind, _ in ROWS.values()]
    assert len(ROWS) >= 40
    assert {k: kinds.count(k) for k in set(kinds)} == {
        "input": 31,
        "repository": 14,
        "fault": 16,
    }


@pytest.mark.parametrize("row", sorted(ROWS))
def test_hostile_row(row: str, shared: Shared, tmp_path: Path) -> None:
    _, build = ROWS[row]
    ctx = Ctx(tmp_path, shared)
    scenario = build(ctx)
    watched = [tmp_path, shared.root]
    before = _snapshot(watched, scenario.out)
    try:
        done = _run(scenario)
    finally:
        for path in [tmp_path, *tmp_path.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr
    assert done.returncode == scenario.code, (done.returncode, done.stderr)
    if scenario.code != 0:
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1, done.stderr
        for name in scenario.names:
            assert name in lines[0], (name, lines[0])
    else:
        assert scenario.check is not None
        scenario.check(done)
    # nothing written outside the output folder
    after = _snapshot(watched, scenario.out)
    assert after == before
    # nothing half-written, anywhere
    assert leftovers(tmp_path) == [] and leftovers(shared.root) == []
    # no secret verbatim in anything printed or written
    for text in (done.stdout, done.stderr):
        for secret in SECRETS:
            assert secret not in text
    for path in _written(scenario.out):
        data = path.read_bytes()
        if path.suffix in (".msgpack", ".npy", ".sqlite") or "index" in path.parts:
            continue  # the index stores the repository's own code, by design
        for secret in SECRETS:
            assert secret.encode() not in data, (secret[:10], path)


def test_alias_bomb_is_refused_fast(tmp_path: Path) -> None:
    _alias_bomb(tmp_path / "bomb.yaml")
    started = time.monotonic()
    done = run_cli("lint", str(tmp_path / "bomb.yaml"), "--repo", str(tmp_path))
    assert done.returncode == 2
    assert time.monotonic() - started < 20


def test_git_is_called_on_the_fixture(shared: Shared) -> None:
    assert git(shared.repo, "rev-parse", "HEAD") == shared.sha
