#!/usr/bin/env python3
"""`codegold tune` over every development suite at once: one configuration for all.

    python benchmarks/quality.py --embedder none           # builds the indexes once
    python benchmarks/tune_dev.py --trials 60 --out .work/tuned.json
    python benchmarks/quality.py --embedder none --config .work/tuned.json

`codegold tune` takes one suite and one repository; the reference retriever's defaults
must serve every language, so this runs the same search (:func:`codegold.tune.tune`:
seeded random search, each change then pruned unless it earns its place) over the union
of the suites' development cases: those tagged ``dev`` and those with neither tag (the
registry suites). Cases tagged ``heldout`` are never loaded into the search, nor
retrieved. Each suite's index is the one `benchmarks/quality.py` built under
benchmarks/.work/quality/NAME/index (a suite without one is skipped, and said so).
Case ids become ``SUITE/ID``; ``--holdout`` splits those development cases once more
(by the same hash rule) so the printout shows the choice on cases it was not made on.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import quality  # noqa: E402  (the suite discovery of benchmarks/quality.py)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("suites", nargs="*", help="suite names (default: every one indexed)")
    parser.add_argument("--trials", type=int, default=60)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--holdout", type=float, default=0.3)
    parser.add_argument("--metric", default="passRate", choices=("passRate", "mrr"))
    parser.add_argument("--corpora", type=Path, default=quality.CORPORA)
    parser.add_argument("--work", type=Path, default=quality.WORK)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--earlier-heldout",
        action="store_true",
        help="also tune on cases tagged heldout (the held-out suites of earlier waves, "
        "measured already and now development data)",
    )
    parser.add_argument(
        "--classes",
        default="",
        help="comma-separated query classes to tune on (default: every class)",
    )
    parser.add_argument("--no-nice", action="store_true")
    args = parser.parse_args(argv)
    if not args.no_nice:
        os.nice(10)

    from codegold._io import write_json_atomic
    from codegold.cases import load_suite
    from codegold.cases.suite import Suite
    from codegold.cli.tune_cmd import describe
    from codegold.index.store import open_index
    from codegold.tune import tune

    classes = {c for c in args.classes.split(",") if c}
    cases = []
    indexes = {}
    names = []
    for spec in quality.discover(quality.SUITES, args.corpora):
        if args.suites and spec.name not in args.suites:
            continue
        folder = args.work / spec.name / "index"
        if spec.skip or not folder.is_dir():
            print(f"  {spec.name}: skipped ({spec.skip or 'no index: run quality.py'})")
            continue
        suite = load_suite(spec.cases)
        mine = [
            c
            for c in suite.cases
            if (args.earlier_heldout or "heldout" not in (c.tags or ()))
            and (not classes or c.query_class in classes)
        ]
        if not mine:
            continue
        index = open_index(folder)
        if any(c.revision != index.revision for c in mine):
            print(f"  {spec.name}: skipped (cases pin a revision the index lacks)")
            continue
        indexes[index.revision] = index
        cases.extend(dataclasses.replace(c, id=f"{spec.name}/{c.id}") for c in mine)
        names.append(spec.name)
    combined = Suite(
        path=str(HERE / "suites"),
        name="dev:" + ",".join(names),
        repository_name=None,
        revision=None,
        digest="",
        cases=tuple(cases),
    )
    print(f"tuning on {len(cases)} development cases of {len(names)} suites", file=sys.stderr)
    result = tune(
        combined,
        indexes,
        holdout=args.holdout,
        trials=args.trials,
        seed=args.seed,
        metric=args.metric,
        progress=lambda label, done, total: print(f"  {label} {done}/{total}", file=sys.stderr),
    )
    write_json_atomic(args.out, result.document())
    for line in describe(result):
        print(line)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
