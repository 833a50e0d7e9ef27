"""How much diagnosis adds to a run: ~1,000 cases on a real corpus.

    python benchmarks/diagnose_overhead.py [--suite benchmarks/suites/click.yaml] [--copies 24]

The suite's cases are repeated under new ids (same questions, same labels) to reach
about 1,000 cases; the index is built first and not timed. Then, timed separately:
retrieval for every case, evaluation, and diagnosis of every failure. Also prints the
share of failed cases whose cause is determined (not ``undetermined``).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--suite", default=str(HERE / "suites" / "click.yaml"))
    parser.add_argument("--copies", type=int, default=24)
    args = parser.parse_args()

    from codegold.cases import load_suite
    from codegold.corpus.git import GitRepo
    from codegold.diagnose import diagnose_records
    from codegold.evaluate import evaluate_attempts
    from codegold.index.store import IndexCache
    from codegold.pipeline import diagnosis_context, index_revisions
    from codegold.retrieve.runner import RetrievalSession

    doc = yaml.safe_load(Path(args.suite).read_text())
    name = Path(args.suite).stem
    repo = HERE / ".work" / "corpora" / name
    cases = []
    for copy in range(args.copies):
        for case in doc["cases"]:
            cases.append({**case, "id": f"{case['id']}~{copy}"})
    doc["cases"] = cases
    with tempfile.TemporaryDirectory() as tmp:
        suite_path = Path(tmp) / "suite.yaml"
        suite_path.write_text(yaml.safe_dump(doc))
        suite = load_suite(suite_path)
        root = Path(tmp) / "index"
        with GitRepo(repo) as git:
            ti = time.perf_counter()
            index_revisions(git, suite.revisions, root, repository_name=name)
            t0 = time.perf_counter()
            index_time = t0 - ti
            indexes = IndexCache(root)
            session = RetrievalSession(root, indexes=indexes)
            attempts = session.retrieve_suite(suite)
            t1 = time.perf_counter()
            records = evaluate_attempts(suite, attempts)
            t2 = time.perf_counter()
            diagnosed = diagnose_records(
                suite.by_id(),
                records,
                {a.attempt_id: a for a in attempts},
                diagnosis_context(git, indexes),
            )
            t3 = time.perf_counter()
    failed = [r for r in diagnosed if not r.passed]
    causes = Counter(r.diagnosis.cause if r.diagnosis else "none" for r in failed)
    determined = sum(n for c, n in causes.items() if c not in ("undetermined", "none"))
    run = t2 - t0
    print(
        f"{len(suite.cases)} cases on {name}: index {index_time:.2f} s, retrieve {t1 - t0:.2f} s, "
        f"evaluate {t2 - t1:.2f} s, diagnose {t3 - t2:.2f} s"
    )
    print(
        f"diagnosis adds {(t3 - t2) / (run + index_time) * 100:.1f}% to the whole run "
        f"({(t3 - t2) / run * 100:.1f}% to retrieve + evaluate alone)"
    )
    print(
        f"failed {len(failed)}; determined cause for {determined} "
        f"({determined / max(len(failed), 1) * 100:.0f}%): {dict(sorted(causes.items()))}"
    )


if __name__ == "__main__":
    main()
