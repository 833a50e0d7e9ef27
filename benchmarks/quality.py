#!/usr/bin/env python3
"""Retrieval quality on the gold suites: the reference retriever beside plain BM25.

    python benchmarks/quality.py                    # every suite, dev figures
    python benchmarks/quality.py express koa        # some suites
    python benchmarks/quality.py --heldout          # the held-out figures too
    python benchmarks/quality.py --json out.json    # also write the figures

For each suite it runs `codegold run` (through the library: the same pipeline the CLI
calls) twice, with the reference retriever (`hybrid`) and with the plain baseline
(`bm25-window`, BM25 over 40-line windows), and prints pass@5 (strict: the results'
`passed`, every required group within the cutoff and nothing forbidden) per suite,
per language and per query class, plus file-level Acc@1 / Acc@5 for `issue_report`
cases (every required group's file among the first k distinct files ranked).

Figures are split by the cases' `dev` / `heldout` tags (cases with neither are
`untagged`). Held-out cases run, print and go to --json only with --heldout, so that
someone tuning on dev does not see them, or their ranked lists, by accident.

Suites come from two places:
* benchmarks/suites/repos.toml: `[suites.NAME]` with `github = "owner/name"`,
  `commit`, `language` (and optionally `cases`, default `NAME.yaml`). The repository
  is the bare clone the fetch tool brings to `$CODEGOLD_MIRROR/owner+name/repo`
  (default root /work/.mirror); a suite whose repository or commit is absent is
  skipped, and the skip is printed with the reason.
* every other benchmarks/suites/*.yaml: its repository is the corpus that
  `python benchmarks/corpora.py NAME` builds under benchmarks/.work/corpora/NAME.

Indexes and run outputs are kept under benchmarks/.work/quality/NAME/ (an index is
reused when a complete identical build exists). The process lowers its own priority
(`nice`) unless --no-nice.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import subprocess
import sys
import time
import tomllib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SUITES = HERE / "suites"
CORPORA = HERE / ".work" / "corpora"
WORK = HERE / ".work" / "quality"
DEFAULT_MIRROR = Path("/work/.mirror")
RETRIEVERS = ("hybrid", "bm25-window")
PARTITIONS = ("dev", "untagged", "heldout")
NON_CODE = {"markdown", "rst", "yaml", "json", "toml", "text", None}


@dataclass
class SuiteSpec:
    name: str
    cases: Path
    repo: Path | None
    language: str | None
    origin: str  # "github:owner/name@commit" or "corpus:NAME"
    commit: str | None = None
    skip: str | None = None


@dataclass
class CaseFigures:
    case_id: str
    query_class: str
    language: str
    partition: str
    passed: dict[str, bool] = field(default_factory=dict)
    # issue_report only: rank (1-based, over distinct files) where every group's file is in.
    file_rank: dict[str, int | None] = field(default_factory=dict)


def mirror_root() -> Path:
    return Path(os.environ.get("CODEGOLD_MIRROR") or DEFAULT_MIRROR)


def mirror_repo(github: str) -> Path | None:
    """The bare repository the fetch tool brought for owner/name, or None."""
    base = mirror_root() / github.replace("/", "+")
    for candidate in (base / "repo", base, base.with_suffix(".git")):
        if (candidate / "HEAD").is_file() and (candidate / "objects").is_dir():
            return candidate
    return None


def has_commit(repo: Path, commit: str) -> bool:
    where = ["-C", str(repo)] if (repo / ".git").exists() else ["--git-dir", str(repo)]
    done = subprocess.run(
        ["git", *where, "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True
    )
    return done.returncode == 0


def discover(suites_dir: Path, corpora: Path) -> list[SuiteSpec]:
    specs: list[SuiteSpec] = []
    listed: set[str] = set()
    repos_toml = suites_dir / "repos.toml"
    if repos_toml.exists():
        try:
            table = tomllib.loads(repos_toml.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise SystemExit(f"{repos_toml}: {exc}") from None
        for name, entry in sorted(table.get("suites", {}).items()):
            listed.add(name)
            github = entry.get("github")
            commit = entry.get("commit")
            cases = suites_dir / entry.get("cases", f"{name}.yaml")
            if not github or not commit:
                raise SystemExit(f"{repos_toml}: suites.{name}: needs github and commit")
            spec = SuiteSpec(
                name=name,
                cases=cases,
                repo=mirror_repo(github),
                language=entry.get("language"),
                origin=f"github:{github}@{commit[:12]}",
                commit=commit,
            )
            if not cases.exists():
                spec.skip = f"no suite file {cases}"
            elif spec.repo is None:
                spec.skip = (
                    f"repository {github} absent under {mirror_root()} (bring it with the "
                    f"fetch tool, or set CODEGOLD_MIRROR)"
                )
            elif not has_commit(spec.repo, commit):
                spec.skip = f"commit {commit} absent from {spec.repo} (fetch a newer snapshot)"
            specs.append(spec)
    for path in sorted(suites_dir.glob("*.yaml")):
        name = path.stem
        if name in listed or any(s.cases == path for s in specs):
            continue
        corpus = corpora / name
        spec = SuiteSpec(name=name, cases=path, repo=corpus, language=None, origin=f"corpus:{name}")
        if not (corpus / ".git").exists() and not (corpus / "HEAD").exists():
            spec.skip = f"corpus not built (python benchmarks/corpora.py {name})"
        specs.append(spec)
    return specs


def partition_of(tags: list[str] | tuple[str, ...]) -> str:
    if "heldout" in tags:
        return "heldout"
    if "dev" in tags:
        return "dev"
    return "untagged"


def file_rank(case: Any, ranked: list[Any]) -> int | None:
    """1-based rank, over distinct files in ranked order, at which every required
    group has one of its target files; None when never."""
    seen: list[str] = []
    for entry in ranked:
        if entry.file not in seen:
            seen.append(entry.file)
    need = [group.any_of for group in case.groups]

    def hit(target: Any, file: str) -> bool:
        if target.file is not None:
            return bool(target.file == file)
        return fnmatch.fnmatchcase(file, target.file_pattern or "")

    worst = 0
    for targets in need:
        ranks = [i + 1 for i, file in enumerate(seen) if any(hit(t, file) for t in targets)]
        if not ranks:
            return None
        worst = max(worst, ranks[0])
    return worst


def run_suite(spec: SuiteSpec, args: argparse.Namespace) -> list[CaseFigures]:
    from codegold.cases import load_suite
    from codegold.index.embed import resolve_embedder
    from codegold.pipeline import run_pipeline

    assert spec.repo is not None
    suite = load_suite(spec.cases)
    by_id = suite.by_id()
    # Held-out cases are not even run without --heldout: their ranked lists and
    # diagnoses would otherwise sit in the run outputs of someone tuning on dev.
    selected = [c.id for c in suite.cases if args.heldout or "heldout" not in (c.tags or ())]
    if not selected:
        print(f"  {spec.name}: every case is held out; run with --heldout", file=sys.stderr)
        return []
    embedder = resolve_embedder(args.embedder)
    root = args.work / spec.name
    figures: dict[str, CaseFigures] = {}
    for retriever in args.retrievers:
        started = time.monotonic()
        records = run_pipeline(
            cases_path=spec.cases,
            repo_path=spec.repo,
            out_dir=root / retriever,
            index_dir=root / "index",
            config_path=args.config if retriever == "hybrid" else None,
            retriever_name=retriever,
            embedder=embedder,
            case_ids=selected if len(selected) < len(suite.cases) else (),
        ).records
        print(
            f"  {spec.name}: {retriever} {len(records)} cases in {time.monotonic() - started:.1f}s",
            file=sys.stderr,
        )
        for record in records:
            case = by_id[record.case_id]
            entry = figures.get(record.case_id)
            if entry is None:
                language = spec.language or record.language
                if language in NON_CODE:
                    language = spec.language or _code_language(case) or str(record.language)
                entry = figures[record.case_id] = CaseFigures(
                    case_id=record.case_id,
                    query_class=record.query_class or "unclassified",
                    language=str(language),
                    partition=partition_of(record.tags),
                )
            entry.passed[retriever] = bool(record.valid and record.passed)
            if entry.query_class == "issue_report":
                entry.file_rank[retriever] = file_rank(case, record.ranked)
    return [figures[c.id] for c in suite.cases if c.id in figures]


def _code_language(case: Any) -> str | None:
    from codegold.chunking.language_table import language_of_path

    for target in case.required_targets:
        lang = language_of_path(target.file or target.file_pattern or "")
        if lang not in NON_CODE:
            return lang
    return None


def _rate(hits: int, n: int) -> str:
    return f"{100.0 * hits / n:5.1f}%" if n else "    - "


def aggregate(rows: list[tuple[str, CaseFigures]], retrievers: list[str]) -> dict[str, Any]:
    """Figures for one partition: per suite, per language, per query class, issue reports."""
    out: dict[str, Any] = {}
    for slice_name, key in (
        ("suite", lambda s, c: s),
        ("language", lambda s, c: c.language),
        ("queryClass", lambda s, c: c.query_class),
    ):
        table: dict[str, dict[str, Any]] = defaultdict(lambda: {"cases": 0})
        for suite_name, case in rows:
            cell = table[key(suite_name, case)]
            cell["cases"] += 1
            for r in retrievers:
                cell[r] = cell.get(r, 0) + int(case.passed.get(r, False))
        out[slice_name] = {k: table[k] for k in sorted(table)}
    total: dict[str, Any] = {"cases": len(rows)}
    for r in retrievers:
        total[r] = sum(int(c.passed.get(r, False)) for _, c in rows)
    out["all"] = total
    issues = [c for _, c in rows if c.query_class == "issue_report"]
    loc: dict[str, Any] = {"cases": len(issues)}
    for r in retrievers:
        ranks = [c.file_rank.get(r) for c in issues]
        loc[r] = {
            "acc1": sum(1 for x in ranks if x is not None and x <= 1),
            "acc5": sum(1 for x in ranks if x is not None and x <= 5),
        }
    out["issueReport"] = loc
    out["passedCases"] = {
        r: sorted(f"{s}/{c.case_id}" for s, c in rows if c.passed.get(r)) for r in retrievers
    }
    return out


def print_partition(name: str, figures: dict[str, Any], retrievers: list[str]) -> None:
    head = "".join(f"  {r:>13}" for r in retrievers)
    print(f"\n== {name}: pass@5 strict ({figures['all']['cases']} cases) ==")
    for slice_name in ("suite", "language", "queryClass"):
        print(f"{'by ' + slice_name:<22}{'cases':>6}{head}")
        for key, cell in figures[slice_name].items():
            cols = "".join(
                f"  {cell[r]:>3}/{cell['cases']:<3}{_rate(cell[r], cell['cases'])}"
                for r in retrievers
            )
            print(f"  {key:<20}{cell['cases']:>6}{cols}")
    cell = figures["all"]
    cols = "".join(
        f"  {cell[r]:>3}/{cell['cases']:<3}{_rate(cell[r], cell['cases'])}" for r in retrievers
    )
    print(f"  {'ALL':<20}{cell['cases']:>6}{cols}")
    loc = figures["issueReport"]
    if loc["cases"]:
        print(f"issue_report file localization ({loc['cases']} cases): Acc@1 / Acc@5")
        for r in retrievers:
            acc1, acc5 = loc[r]["acc1"], loc[r]["acc5"]
            print(f"  {r:<20}{_rate(acc1, loc['cases'])} / {_rate(acc5, loc['cases'])}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suites", nargs="*", help="suite names (default: all)")
    parser.add_argument("--heldout", action="store_true", help="also print held-out figures")
    parser.add_argument("--json", type=Path, default=None, help="write the figures here")
    parser.add_argument(
        "--retriever",
        dest="retrievers",
        action="append",
        default=None,
        help=f"retriever(s) to run (default: {', '.join(RETRIEVERS)})",
    )
    parser.add_argument(
        "--embedder", default="auto", help="as `codegold run --embedder` (default: auto)"
    )
    parser.add_argument("--config", type=Path, default=None, help="retriever config for hybrid")
    parser.add_argument("--no-nice", action="store_true", help="keep the normal priority")
    parser.add_argument("--list", action="store_true", help="list the suites and exit")
    parser.add_argument("--suites-dir", type=Path, default=SUITES, help=argparse.SUPPRESS)
    parser.add_argument("--corpora", type=Path, default=CORPORA, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, default=WORK, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.retrievers = args.retrievers or list(RETRIEVERS)
    if not args.no_nice:
        os.nice(10)

    specs = discover(args.suites_dir, args.corpora)
    if args.suites:
        known = {s.name for s in specs}
        unknown = [n for n in args.suites if n not in known]
        if unknown:
            print(
                f"unknown suite(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})",
                file=sys.stderr,
            )
            return 2
        specs = [s for s in specs if s.name in args.suites]
    if args.list:
        for s in specs:
            state = f"SKIP: {s.skip}" if s.skip else str(s.repo)
            print(f"{s.name:<16} {s.origin:<40} {state}")
        return 0

    rows: list[tuple[str, CaseFigures]] = []
    ran: list[SuiteSpec] = []
    for spec in specs:
        if spec.skip:
            continue
        print(f"suite {spec.name} ({spec.origin}, {spec.repo})", file=sys.stderr)
        rows.extend((spec.name, c) for c in run_suite(spec, args))
        ran.append(spec)

    shown = [p for p in PARTITIONS if p != "heldout" or args.heldout]
    result: dict[str, Any] = {
        "retrievers": args.retrievers,
        "embedder": args.embedder,
        "suites": {
            s.name: {
                "origin": s.origin,
                "language": s.language,
                "cases": sum(1 for n, _ in rows if n == s.name),
                "byPartition": {
                    p: sum(1 for n, c in rows if n == s.name and c.partition == p)
                    for p in PARTITIONS
                },
            }
            for s in ran
        },
        "skipped": {s.name: s.skip for s in specs if s.skip},
        "partitions": {},
    }
    for p in shown:
        part_rows = [(n, c) for n, c in rows if c.partition == p]
        if not part_rows:
            continue
        figures = aggregate(part_rows, args.retrievers)
        result["partitions"][p] = figures
        print_partition(p, figures, args.retrievers)
    if not args.heldout:
        print("\n(held-out cases were not run; they run and print only with --heldout)")
    for s in specs:
        if s.skip:
            print(f"skipped {s.name}: {s.skip}")
    if args.json is not None:
        tmp = args.json.with_name(args.json.name + ".tmp")
        tmp.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(args.json)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
