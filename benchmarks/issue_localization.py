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
from codegold.chunking import CHUNKER_VERSION
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
    ap.add_argument(
        "--cv",
        action="store_true",
        help="with --grid: leave one repository out (choose the setting on the other "
        "repositories, score the one left out), per repository and pooled",
    )
    ap.add_argument(
        "--evidence",
        type=Path,
        default=None,
        help="with --grid: a file keeping the gathered evidence (written on the first "
        "run, read on the next ones while the query variants are the same)",
    )
    args = ap.parse_args()
    if args.grid is not None and args.split != "dev":
        print("--grid tunes on the dev split only", file=sys.stderr)
        return 2
    grid = json.loads(args.grid.read_text()) if args.grid else None
    grid_cases: list[dict[str, Any]] = []
    config = RetrieverConfig.load(args.config) if args.config else RetrieverConfig()
    if grid is not None and args.evidence is not None and args.evidence.exists():
        import pickle

        with args.evidence.open("rb") as fh:
            kept = pickle.load(fh)
        if kept.get("key") == _evidence_key(args, grid):
            _grid_report(kept["cases"], grid, config, args.out, cv=args.cv)
            return 0
        print(f"{args.evidence}: gathered for other data or query variants, gathering again",
              file=sys.stderr)  # fmt: skip
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
        stale: set[str] = set()
        t0 = time.perf_counter()
        with GitRepo(mirror) as git:
            for rev in sorted(by_rev):
                sha = git.resolve(rev)
                served = IndexRoot(root).current_build(sha) if args.no_build else None
                if served is not None:
                    stale.add(_chunker_of(root, served))
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
                    bm25 = retrievers.get("bm25-file")
                    for case in by_rev[rev]:
                        grid_cases.append(_grid_case(loaded, case, repo_key, config, grid, bm25))
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
        other = sorted(v for v in stale if v != CHUNKER_VERSION)
        if other:
            print(
                f"{repo_key}: --no-build served builds of chunker {', '.join(other)} "
                f"(this chunker is {CHUNKER_VERSION}); their chunks may differ",
                file=sys.stderr,
            )
    if args.index_only:
        return 0
    if grid is not None:
        if args.evidence is not None:
            import pickle

            keep = {"key": _evidence_key(args, grid), "cases": grid_cases}
            args.evidence.write_bytes(pickle.dumps(keep))
        _grid_report(grid_cases, grid, config, args.out, cv=args.cv)
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


def _evidence_key(args: argparse.Namespace, grid: dict[str, Any]) -> dict[str, Any]:
    """What the kept evidence depends on: the data, the indexes, the repositories, the
    retriever config and the query variants (not the fusion settings scored on it)."""
    return {
        "data": str(args.data.resolve()),
        "indexRoot": str(args.index_root.resolve()),
        "repos": args.repos,
        "config": str(args.config) if args.config else None,
        "query": grid.get("query", [{}]),
    }


def _chunker_of(root: Path, build_id: str) -> str:
    manifest = json.loads((IndexRoot(root).build_dir(build_id) / "manifest.json").read_text())
    return str(manifest.get("chunkerVersion", "?"))


_SIGNALS = ("whole", "frame", "path", "module", "definition", "name", "plain")
_ROLES = ("source", "test", "docs", "other", "foreign", "declaration")


def _grid_case(
    loaded: Any,
    case: Any,
    repo_key: str,
    config: RetrieverConfig,
    grid: dict[str, Any],
    bm25: Any = None,
) -> dict[str, Any]:
    """One case's evidence per query variant, as arrays the fusion grid scores; with
    ``bm25`` (the whole-file BM25 baseline) its Acc@1 / Acc@5 too."""
    from codegold.retrieve import issue
    from codegold.retrieve.query import analyze

    analysis = analyze(case.query)
    variants = []
    for overrides in grid.get("query", [{}]):
        cfg = dataclasses.replace(config, **{"issue_plain_weight": 1.0, **overrides})
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
    out: dict[str, Any] = {"id": case.id, "repo": repo_key, "variants": variants}
    out["frames"] = len(analysis.frames)
    if bm25 is not None:
        files = ranked_files(bm25.retrieve(case.query, case_id=case.id, attempt_id=case.id))
        out["bm25"] = (file_acc(case, files, 1), file_acc(case, files, 5))
    return out


def _grid_scores(v: dict[str, Any], cfg: RetrieverConfig) -> np.ndarray:
    top, sig = v["top"], v["signals"]
    if len(top) == 0:
        return np.zeros(0)
    decay = cfg.issue_chunk_decay ** np.arange(top.shape[1])
    decay[cfg.issue_chunk_top :] = 0.0
    chunk = top @ decay
    weights = (
        cfg.issue_file_weight,
        cfg.issue_frame_weight,
        cfg.issue_path_weight,
        cfg.issue_module_weight,
        cfg.issue_definition_weight,
        cfg.issue_name_weight,
        cfg.issue_plain_weight,
    )
    normalised = (0, 4, 6)  # divided by the case's best (the others are 0..1 already)
    total = cfg.issue_chunk_weight * chunk / (chunk.max() or 1.0)
    for k, w in enumerate(weights):
        if w:
            col = sig[:, k]
            total = total + w * (col / (col.max() or 1.0) if k in normalised else col)
    factor = np.array(
        [
            1.0,
            cfg.issue_test_factor,
            cfg.issue_docs_factor,
            cfg.issue_other_factor,
            cfg.issue_other_factor,
            cfg.issue_declaration_factor,
        ]
    )[v["roles"]]
    return total * factor


def _grid_acc(v: dict[str, Any], scores: np.ndarray) -> tuple[int, int]:
    if not v["groups"] or any(not g for g in v["groups"]):
        return 0, 0
    # a group's rank: files scoring strictly higher than its best file (ties by path,
    # as rank_files breaks them: paths are sorted, so a lower index wins a tie)
    ranks = [
        min(int(np.sum(scores > scores[i]) + np.sum(scores[:i] == scores[i])) for i in g)
        for g in v["groups"]
    ]
    worst = max(ranks)
    return int(worst < 1), int(worst < 5)


def _grid_hits(
    cases: list[dict[str, Any]], grid: dict[str, Any], config: RetrieverConfig
) -> tuple[list[dict[str, Any]], np.ndarray]:
    """Every setting of the grid, and per setting and case its (Acc@1, Acc@5)."""
    import itertools

    fusion = grid.get("fusion", {})
    keys = sorted(fusion)
    settings: list[dict[str, Any]] = []
    hits: list[list[tuple[int, int]]] = []
    for qi, overrides in enumerate(grid.get("query", [{}])):
        for values in itertools.product(*(fusion[k] for k in keys)):
            fused = dict(zip(keys, values, strict=True))
            cfg = dataclasses.replace(config, **overrides, **fused)
            settings.append({"query": overrides, "fusion": fused})
            hits.append(
                [_grid_acc(c["variants"][qi], _grid_scores(c["variants"][qi], cfg)) for c in cases]
            )
    return settings, np.array(hits, dtype=np.int64).reshape(len(settings), len(cases), 2)


def _best(hits: np.ndarray, mask: np.ndarray) -> int:
    """The setting with the most Acc@1 + Acc@5 hits over the masked cases (then the
    most Acc@5 hits, then the first in grid order)."""
    a1 = hits[:, mask, 0].sum(axis=1)
    a5 = hits[:, mask, 1].sum(axis=1)
    return int(np.lexsort((np.arange(len(a1)), -a5, -(a1 + a5)))[0])


def _grid_report(
    cases: list[dict[str, Any]],
    grid: dict[str, Any],
    config: RetrieverConfig,
    out: Path | None,
    *,
    cv: bool = False,
) -> None:
    settings, hits = _grid_hits(cases, grid, config)
    n = len(cases)
    order = np.lexsort(
        (np.arange(len(settings)), -hits[:, :, 1].sum(axis=1), -hits.sum(axis=(1, 2)))
    )
    print(f"grid: {len(settings)} settings over {n} dev cases (best by Acc@1 + Acc@5)")
    for i in order[:15].tolist():
        a1, a5 = hits[i, :, 0].sum(), hits[i, :, 1].sum()
        print(
            f"{100 * a1 / n:5.1f}/{100 * a5 / n:5.1f} "
            f"{json.dumps(settings[i]['query'])} {json.dumps(settings[i]['fusion'])}"
        )
    results: dict[str, Any] = {
        "settings": [
            {**s, "acc1": int(hits[i, :, 0].sum()), "acc5": int(hits[i, :, 1].sum())}
            for i, s in enumerate(settings)
        ]
    }
    if cv:
        results["cv"] = _cross_validate(cases, settings, hits)
    if out is not None:
        out.write_text(json.dumps(results, indent=1))


def _cross_validate(
    cases: list[dict[str, Any]], settings: list[dict[str, Any]], hits: np.ndarray
) -> dict[str, Any]:
    """Leave one repository out: the setting chosen on the other repositories scores
    the one left out. Printed per repository beside the setting chosen on all of them
    (the dev figure) and whole-file BM25; pooled over cases and as the mean over
    repositories."""
    repos = np.array([c["repo"] for c in cases])
    everything = np.ones(len(cases), dtype=bool)
    fitted = _best(hits, everything)
    bm25 = np.array([c.get("bm25", (0, 0)) for c in cases], dtype=np.int64).reshape(-1, 2)
    rows: list[dict[str, Any]] = []
    held = np.zeros((len(cases), 2), dtype=np.int64)
    print("leave one repository out (setting chosen on the others):")
    print(f"{'repository':28} {'n':>4} {'dev-fit @1/@5':>14} {'loro @1/@5':>14} "
          f"{'bm25-file @1/@5':>16}  chosen")  # fmt: skip
    for repo in sorted(set(repos.tolist())):
        mine = repos == repo
        chosen = _best(hits, ~mine)
        held[mine] = hits[chosen, mine]
        k = int(mine.sum())

        def pct(a: np.ndarray, k: int = k) -> str:
            return f"{100 * a[0] / k:5.1f}/{100 * a[1] / k:5.1f}"

        fit = hits[fitted, mine].sum(axis=0)
        loro = hits[chosen, mine].sum(axis=0)
        base = bm25[mine].sum(axis=0)
        pick = settings[chosen]
        print(f"{repo:28} {k:>4} {pct(fit):>14} {pct(loro):>14} {pct(base):>16}  "
              f"{json.dumps(pick['fusion'])} {json.dumps(pick['query'])}")  # fmt: skip
        rows.append(
            {
                "repo": repo,
                "n": k,
                "fit": fit.tolist(),
                "loro": loro.tolist(),
                "bm25": base.tolist(),
                "chosen": settings[chosen],
            }
        )
    n = len(cases)
    fit_all = hits[fitted].sum(axis=0)
    loro_all = held.sum(axis=0)
    base_all = bm25.sum(axis=0)
    print(f"{'pooled':28} {n:>4} {100 * fit_all[0] / n:5.1f}/{100 * fit_all[1] / n:5.1f}  "
          f"{100 * loro_all[0] / n:5.1f}/{100 * loro_all[1] / n:5.1f}  "
          f"{100 * base_all[0] / n:5.1f}/{100 * base_all[1] / n:5.1f}")  # fmt: skip
    means = [
        np.mean([100 * r[key][j] / r["n"] for r in rows]) for key in ("fit", "loro", "bm25")
        for j in (0, 1)
    ]  # fmt: skip
    print(f"{'mean over repositories':28} {'':>4} {means[0]:5.1f}/{means[1]:5.1f}  "
          f"{means[2]:5.1f}/{means[3]:5.1f}  {means[4]:5.1f}/{means[5]:5.1f}")  # fmt: skip
    print(f"dev-fit setting: {json.dumps(settings[fitted])}")
    return {"perRepo": rows, "fitted": settings[fitted], "pooledLoro": loro_all.tolist()}


if __name__ == "__main__":
    sys.exit(main())
