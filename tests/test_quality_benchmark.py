"""benchmarks/quality.py end to end: a fetched-style bare mirror, a corpus, dev/heldout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.corpus.gitfixture import make_repo

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "quality.py"

FILES = {
    "lib/response.js": (
        "var res = module.exports = {};\n\n"
        "res.send = function send(body) {\n"
        "  this.end(body);\n"
        "  return this;\n"
        "};\n\n"
        "res.redirect = function redirect(url) {\n"
        "  this.location(url);\n"
        "  this.statusCode = 302;\n"
        "};\n"
    ),
    "lib/router.js": (
        "function Router() {}\n\n"
        "Router.prototype.handle = function handle(req, res, out) {\n"
        "  throw new Error('Router.use() requires a middleware function');\n"
        "};\n\n"
        "module.exports = Router;\n"
    ),
    "README.md": "# demo\n\nA tiny web framework.\n",
}


def _suite(sha: str) -> str:
    return f"""suite: demo-gold
repository: {{name: acme/demo, revision: {sha}}}
defaults: {{cutoff: 5}}
cases:
  - id: send-body
    query: res.send
    queryClass: exact_identifier
    accepted:
      - {{file: lib/response.js, symbol: res.send, lines: [3, 6]}}
    tags: [dev]
  - id: redirect-status
    query: where does redirect set the status code 302
    queryClass: behavior
    accepted:
      - {{file: lib/response.js, lines: [8, 11]}}
    tags: [heldout]
  - id: middleware-error
    query: |
      I called app.use with a string and got
      Error: Router.use() requires a middleware function
      I expected a clearer message.
    queryClass: issue_report
    accepted:
      - {{file: lib/router.js}}
    tags: [dev]
"""


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env_mirror = tmp_path / "mirror"
    return subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--suites-dir",
            str(tmp_path / "suites"),
            "--corpora",
            str(tmp_path / "corpora"),
            "--work",
            str(tmp_path / "work"),
            "--embedder",
            "none",
            "--no-nice",
            *args,
        ],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "CODEGOLD_MIRROR": str(env_mirror)},
        cwd=ROOT,
        check=False,
    )


def _setup(tmp_path: Path) -> None:
    mirror = tmp_path / "mirror" / "acme+demo"
    mirror.mkdir(parents=True)
    bare, shas = make_repo(mirror, [FILES], bare=True, name="src")
    bare.rename(mirror / "repo")
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "demo.yaml").write_text(_suite(shas[0]))
    (suites / "gone.yaml").write_text(_suite(shas[0]))
    (suites / "oldcorpus.yaml").write_text(_suite(shas[0]))
    (suites / "repos.toml").write_text(
        f'[suites.demo]\ngithub = "acme/demo"\ncommit = "{shas[0]}"\nlanguage = "javascript"\n\n'
        f'[suites.gone]\ngithub = "acme/gone"\ncommit = "{shas[0]}"\nlanguage = "ruby"\n'
    )
    corpora = tmp_path / "corpora"
    corpora.mkdir()
    make_repo(corpora, [FILES], name="oldcorpus")


def test_dev_figures_skips_and_no_heldout_without_the_flag(tmp_path: Path) -> None:
    _setup(tmp_path)
    out = tmp_path / "q.json"
    done = _run(tmp_path, "--json", str(out))
    assert done.returncode == 0, done.stderr
    assert "skipped gone: repository acme/gone absent under" in done.stdout
    assert "== dev: pass@5 strict" in done.stdout
    assert "heldout:" not in done.stdout
    assert "held-out cases were not run" in done.stdout
    figures = json.loads(out.read_text())
    assert set(figures["partitions"]) == {"dev"}
    assert figures["skipped"] == {"gone": figures["skipped"]["gone"]}
    assert figures["suites"]["demo"]["byPartition"] == {"dev": 2, "heldout": 0, "untagged": 0}
    dev = figures["partitions"]["dev"]
    assert dev["suite"]["demo"]["cases"] == 2
    assert dev["suite"]["oldcorpus"]["cases"] == 2
    assert dev["language"]["javascript"]["cases"] == 4
    assert dev["issueReport"]["cases"] == 2
    assert dev["issueReport"]["hybrid"]["acc5"] == 2
    # The figures are the results' strict `passed`, counted over the dev cases only.
    for retriever in ("hybrid", "bm25-window"):
        results = json.loads((tmp_path / "work" / "demo" / retriever / "results.json").read_text())
        passed = sum(1 for r in results if "dev" in r["tags"] and r["passed"])
        assert dev["suite"]["demo"][retriever] == passed
        # Held-out cases did not run at all: no ranked list of theirs to read.
        assert all("heldout" not in r["tags"] for r in results)
        assert len(results) == 2


def test_heldout_flag_and_suite_selection(tmp_path: Path) -> None:
    _setup(tmp_path)
    out = tmp_path / "q.json"
    done = _run(tmp_path, "demo", "--heldout", "--json", str(out), "--retriever", "bm25-window")
    assert done.returncode == 0, done.stderr
    figures = json.loads(out.read_text())
    assert set(figures["partitions"]) == {"dev", "heldout"}
    assert figures["retrievers"] == ["bm25-window"]
    assert set(figures["suites"]) == {"demo"}
    assert figures["partitions"]["heldout"]["queryClass"]["behavior"]["cases"] == 1
    assert _run(tmp_path, "nosuch").returncode == 2
