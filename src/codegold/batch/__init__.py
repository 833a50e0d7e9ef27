"""`codegold batch`: many suites over many repositories and revisions, as tasks.

::

    load_plan       PLAN.toml -> the suites, each with its repository and options
    index tasks     one per (repository, revision, policy, embedder), shared by suites
    shard tasks     retrieve, evaluate and diagnose a slice of one suite's cases
    assemble        per suite: records in suite order, repeats, identity, artifacts;
                    DIR/summary.json over every record, by repository and by size

Tasks take and return plain values (paths, case ids, msgspec records), so the same
functions run in this process's pool (``local``) or on a Ray cluster (``ray``).
"""

from codegold.batch.plan import BatchPlan, PlanSuite, load_plan
from codegold.batch.run import BatchOutput, run_batch

__all__ = ["BatchOutput", "BatchPlan", "PlanSuite", "load_plan", "run_batch"]
