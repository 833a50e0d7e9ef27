"""Issue-report file localization on the SWE-bench-verified dev data: Acc@1 / Acc@5
per repository for the reference retriever and plain whole-file BM25.

    nice python benchmarks/issue_localization.py --split dev [--repos psf__requests ...]

The split is fixed before any result is seen: a case is held out when
``sha256(id)[:8] % 10 < 4`` (codegold.evaluate.localization.heldout). Tune on
``--split dev`` only; run ``--split heldout`` once, at the end. Indexes are built per
pinned revision under ``--index-root`` (one root per repository, sharing its blob
cache), one repository at a time. Mirrors are read from ``--mirrors``
(``owner+name/repo``, as the fetch tool lays them out).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from codegold.cases import load_suite
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import load_policy
from codegold.evaluate.localization import file_acc, heldout, ranked_files
from codegold.index.build import BuildOptions, build_index
from codegold.index.store import open_index
from codegold.retrieve.baseline import FileBM25Retriever
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.hybrid import HybridRetriever

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "swebench-verified-dev"
if not DATA.is_dir():
    DATA = Path("/work/shared/data/swebench-verified-dev")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--index-root", type=Path, default=Path("/tmp/codegold-swe-index"))
    ap.add_argument("--split", choices=("dev", "heldout", "all"), default="dev")
    ap.add_argument("--repos", nargs="*", default=None)
    ap.add_argument("--retrievers", nargs="*", default=["hybrid", "bm25-file"])
    ap.add_argument("--config", type=Path, default=None)
    ap.add_argument("--embedder", default="none")
    ap.add_argument("--out", type=Path, default=None, help="per-case JSON")
    ap.add_argument("--index-only", action="store_true")
    ap.add_argument("--dump", type=Path, default=None, help="per-case file evidence (JSON)")
    args = ap.parse_args()
    config = RetrieverConfig.load(args.config) if args.config else RetrieverConfig()
    embedder = None
    if args.embedder != "none":
        from codegold.cli.index_cmd import resolve_embedder

        embedder = resolve_embedder(args.embedder)
    per_case: list[dict[str, Any]] = []
    dumps: list[dict[str, Any]] = []
    table: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for path in sorted(args.data.glob("*.json")):
        repo_key = path.stem
        if args.repos and repo_key not in args.repos:
            continue
        suite = load_suite(path)
        cases = [
            c
            for c in suite.cases
            if args.split == "all" or heldout(c.id) == (args.split == "heldout")
        ]
        if not cases:
            continue
        mirror = args.mirrors / repo_key.replace("__", "+", 1) / "repo"
        root = args.index_root / repo_key
        by_rev: dict[str, list[Any]] = defaultdict(list)
        for case in cases:
            by_rev[case.revision].append(case)
        tokens: dict[str, list[str]] = {}
        t0 = time.perf_counter()
        with GitRepo(mirror) as git:
            for rev in sorted(by_rev):
                sha = git.resolve(rev)
                policy = load_policy(repo=git, revision=sha, config_path=None)
                build_index(
                    git,
                    sha,
                    root,
                    policy=policy,
                    options=BuildOptions(
                        workers=1, embedder=embedder, repository_name=suite.repository_name
                    ),
                )
                if args.index_only:
                    continue
                loaded = open_index(root, sha)
                retrievers: dict[str, Any] = {}
                for name in args.retrievers:
                    if name == "hybrid":
                        retrievers[name] = HybridRetriever(loaded, config, embedder=embedder)
                    elif name == "reference-chunks":
                        # the reference retriever without its issue-report path (as before)
                        old = dataclasses.replace(config, issue_reports=False)
                        retrievers[name] = HybridRetriever(loaded, old, embedder=embedder)
                    elif name.startswith("bm25-file"):
                        scope = name.partition(":")[2] or "code"
                        retrievers[name] = FileBM25Retriever.from_index(
                            loaded, git, tokens, scope=scope
                        )
                for case in by_rev[rev]:
                    row: dict[str, Any] = {"id": case.id, "repo": repo_key}
                    row["gold"] = sorted({t.file or "" for g in case.groups for t in g.any_of})
                    for name, retriever in retrievers.items():
                        attempt = retriever.retrieve(
                            case.query, case_id=case.id, attempt_id=case.id, cutoff=5
                        )
                        files = ranked_files(attempt)
                        a1, a5 = file_acc(case, files, 1), file_acc(case, files, 5)
                        cell = table[repo_key][name]
                        cell[0] += a1
                        cell[1] += a5
                        cell[2] += 1
                        row[name] = {"acc1": a1, "acc5": a5, "files": files[:10]}
                    per_case.append(row)
                    if args.dump is not None:
                        from codegold.retrieve import issue
                        from codegold.retrieve.query import analyze

                        evidence, _ = issue.gather(loaded, analyze(case.query), config)
                        keep = sorted(
                            evidence.items(), key=lambda kv: -(kv[1].chunk + kv[1].whole)
                        )[:400]
                        keep += [
                            kv
                            for kv in evidence.items()
                            if kv[1].frame or kv[1].path or kv[1].module or kv[1].definition
                        ]
                        dumps.append(
                            {
                                "id": case.id,
                                "repo": repo_key,
                                "gold": row["gold"],
                                "groups": [[t.file for t in g.any_of] for g in case.groups],
                                "files": {p: e.as_dict() for p, e in keep},
                            }
                        )
        print(
            f"{repo_key}: {len(cases)} cases, {len(by_rev)} revisions, "
            f"{time.perf_counter() - t0:.0f} s",
            file=sys.stderr,
            flush=True,
        )
    if args.index_only:
        return 0
    names = args.retrievers
    print(f"split={args.split}")
    print(f"{'repository':28} {'n':>4} " + " ".join(f"{n + ' @1/@5':>20}" for n in names))
    totals = {n: [0, 0, 0] for n in names}
    for repo_key in sorted(table):
        cells = table[repo_key]
        n = cells[names[0]][2]
        parts = []
        for name in names:
            a1, a5, cnt = cells[name]
            totals[name][0] += a1
            totals[name][1] += a5
            totals[name][2] += cnt
            parts.append(f"{100 * a1 / cnt:9.1f}/{100 * a5 / cnt:5.1f}")
        print(f"{repo_key:28} {n:>4} " + " ".join(f"{p:>20}" for p in parts))
    n = totals[names[0]][2]
    parts = [f"{100 * t[0] / t[2]:9.1f}/{100 * t[1] / t[2]:5.1f}" for t in totals.values()]
    print(f"{'all':28} {n:>4} " + " ".join(f"{p:>20}" for p in parts))
    if args.dump:
        args.dump.write_text(json.dumps(dumps))
    if args.out:
        args.out.write_text(json.dumps(per_case, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
