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

import numpy as np

from codegold.cases import load_suite
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import load_policy
from codegold.evaluate.localization import file_acc, heldout, ranked_files
from codegold.index.build import BuildOptions, build_index
from codegold.index.store import IndexRoot, open_index
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
    ap.add_argument(
        "--no-build",
        action="store_true",
        help="use the build the index root serves for each revision, even one an older "
        "chunker made (quick iteration); build only revisions with none",
    )
    ap.add_argument("--dump", type=Path, default=None, help="per-case file evidence (JSON)")
    ap.add_argument(
        "--grid",
        type=Path,
        default=None,
        help='dev only: JSON {"query": [settings, ...], "fusion": {setting: [values]}}; '
        "evidence is gathered once per case and query variant, every fusion tried",
    )
    args = ap.parse_args()
    if args.grid is not None and args.split != "dev":
        print("--grid tunes on the dev split only", file=sys.stderr)
        return 2
    grid = json.loads(args.grid.read_text()) if args.grid else None
    grid_cases: list[dict[str, Any]] = []
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
                served = IndexRoot(root).current_build(sha) if args.no_build else None
                if served is None:
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
                if grid is not None:
                    for case in by_rev[rev]:
                        grid_cases.append(_grid_case(loaded, case, repo_key, config, grid))
                    continue
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
    if grid is not None:
        _grid_report(grid_cases, grid, config, args.out)
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


_SIGNALS = ("whole", "frame", "path", "module", "definition", "name")
_ROLES = ("source", "test", "docs", "other", "foreign")


def _grid_case(
    loaded: Any, case: Any, repo_key: str, config: RetrieverConfig, grid: dict[str, Any]
) -> dict[str, Any]:
    """One case's evidence per query variant, as arrays the fusion grid scores."""
    from codegold.retrieve import issue
    from codegold.retrieve.query import analyze

    analysis = analyze(case.query)
    variants = []
    for overrides in grid.get("query", [{}]):
        cfg = dataclasses.replace(config, **overrides)
        evidence, _ = issue.gather(loaded, analysis, cfg)
        paths = sorted(evidence)
        where = {p: i for i, p in enumerate(paths)}
        top = np.zeros((len(paths), issue._TOP_KEPT))
        for i, p in enumerate(paths):
            chunks = evidence[p].top_chunks
            top[i, : len(chunks)] = chunks
        signals = np.array([[getattr(evidence[p], s) for s in _SIGNALS] for p in paths])
        roles = np.array([_ROLES.index(evidence[p].role) for p in paths])
        groups = [[where[t.file] for t in g.any_of if t.file in where] for g in case.groups]
        variants.append(
            {
                "top": top,
                "signals": signals.reshape(len(paths), len(_SIGNALS)),
                "roles": roles,
                "groups": groups,
            }
        )
    return {"id": case.id, "repo": repo_key, "variants": variants}


def _grid_scores(v: dict[str, Any], cfg: RetrieverConfig) -> np.ndarray:
    top, sig = v["top"], v["signals"]
    if len(top) == 0:
        return np.zeros(0)
    decay = cfg.issue_chunk_decay ** np.arange(top.shape[1])
    decay[cfg.issue_chunk_top :] = 0.0
    chunk = top @ decay
    parts = [
        cfg.issue_chunk_weight * chunk / (chunk.max() or 1.0),
        cfg.issue_file_weight * sig[:, 0] / (sig[:, 0].max() or 1.0),
        cfg.issue_frame_weight * sig[:, 1],
        cfg.issue_path_weight * sig[:, 2],
        cfg.issue_module_weight * sig[:, 3],
        cfg.issue_definition_weight * sig[:, 4] / (sig[:, 4].max() or 1.0),
        cfg.issue_name_weight * sig[:, 5],
    ]
    factor = np.array(
        [
            1.0,
            cfg.issue_test_factor,
            cfg.issue_docs_factor,
            cfg.issue_other_factor,
            cfg.issue_other_factor,
        ]
    )[v["roles"]]
    return np.sum(parts, axis=0) * factor


def _grid_acc(v: dict[str, Any], scores: np.ndarray) -> tuple[int, int]:
    if not v["groups"] or any(not g for g in v["groups"]):
        return 0, 0
    # a group's rank: files scoring strictly higher than its best file
    ranks = [min(int(np.sum(scores > scores[i])) for i in g) for g in v["groups"]]
    worst = max(ranks)
    return int(worst < 1), int(worst < 5)


def _grid_report(
    cases: list[dict[str, Any]], grid: dict[str, Any], config: RetrieverConfig, out: Path | None
) -> None:
    import itertools

    fusion = grid.get("fusion", {})
    keys = sorted(fusion)
    results = []
    for qi, overrides in enumerate(grid.get("query", [{}])):
        for values in itertools.product(*(fusion[k] for k in keys)):
            cfg = dataclasses.replace(config, **overrides, **dict(zip(keys, values, strict=True)))
            a1 = a5 = 0
            per_repo: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
            for case in cases:
                v = case["variants"][qi]
                h1, h5 = _grid_acc(v, _grid_scores(v, cfg))
                a1, a5 = a1 + h1, a5 + h5
                cell = per_repo[case["repo"]]
                cell[0], cell[1], cell[2] = cell[0] + h1, cell[1] + h5, cell[2] + 1
            results.append(
                {
                    "query": overrides,
                    "fusion": dict(zip(keys, values, strict=True)),
                    "acc1": a1,
                    "acc5": a5,
                    "perRepo": dict(per_repo),
                }
            )
    n = len(cases)
    results.sort(key=lambda r: (-(r["acc1"] + r["acc5"]), -r["acc5"], json.dumps(r["query"])))
    print(f"grid: {len(results)} settings over {n} dev cases (best by Acc@1 + Acc@5)")
    for r in results[:15]:
        print(
            f"{100 * r['acc1'] / n:5.1f}/{100 * r['acc5'] / n:5.1f} "
            f"{json.dumps(r['query'])} {json.dumps(r['fusion'])}"
        )
    if out is not None:
        out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.exit(main())
