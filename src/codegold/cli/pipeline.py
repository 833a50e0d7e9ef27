"""The `run` pipeline as one function, so tests and benchmarks call what the CLI calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegold._io import write_jsonl_atomic
from codegold.cases import load_suite
from codegold.cli._progress import echo_err, progress_bar
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import load_policy
from codegold.evaluate import evaluate_attempts
from codegold.evaluate.records import CaseResult
from codegold.index.build import BuildOptions, build_index, describe_manifest
from codegold.report.artifacts import ATTEMPTS, run_identity, write_results
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.runner import RetrievalSession


def run_pipeline(
    *,
    cases_path: Path,
    repo_path: Path,
    out_dir: Path,
    index_dir: Path | None = None,
    config_path: Path | None = None,
    policy_path: Path | None = None,
    retriever_name: str = "hybrid",
    repeat: int = 1,
    embedder: Any = None,
    quiet: bool = True,
    config: RetrieverConfig | None = None,
) -> tuple[dict[str, Any], list[CaseResult]]:
    suite = load_suite(cases_path)
    root = index_dir or out_dir / "index"
    if config is None:
        config = RetrieverConfig.load(config_path) if config_path else RetrieverConfig()
    with GitRepo(repo_path) as git, progress_bar() as report:
        for revision in suite.revisions:
            sha = git.resolve(revision)
            policy = load_policy(repo=git, revision=sha, config_path=policy_path)
            options = BuildOptions(embedder=embedder, repository_name=suite.repository_name)
            manifest = build_index(git, sha, root, policy=policy, options=options, progress=report)
            if not quiet:
                echo_err(f"index: {describe_manifest(manifest)}")
        make = None
        if retriever_name == "bm25-window":
            from codegold.retrieve.baseline import WindowBM25Retriever

            def make(loaded: Any) -> Any:
                return WindowBM25Retriever.from_index(loaded, git)

        session = RetrievalSession(root, config, embedder=embedder, make_retriever=make)
        attempts = session.retrieve_suite(suite, repeat=repeat, progress=report)
    write_jsonl_atomic(out_dir / ATTEMPTS, attempts)
    records = evaluate_attempts(suite, attempts)
    identity = run_identity(suite, attempts)
    summary = write_results(out_dir, records, identity)
    return summary, records
