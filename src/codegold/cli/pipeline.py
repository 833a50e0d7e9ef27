"""The `run` pipeline as one function, so tests and benchmarks call what the CLI calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegold._io import write_jsonl_atomic
from codegold._lines import split_lines
from codegold.cases import load_suite
from codegold.cli._progress import echo_err, progress_bar
from codegold.corpus.git import GitRepo
from codegold.corpus.policy import load_policy
from codegold.diagnose import DiagnosisContext, diagnose_records
from codegold.errors import InputError
from codegold.evaluate import evaluate_attempts
from codegold.evaluate.records import CaseResult
from codegold.evaluate.repeat import check_repeats
from codegold.index.build import BuildOptions, build_index, describe_manifest
from codegold.index.store import LoadedIndex, open_index
from codegold.report.artifacts import ATTEMPTS, run_identity, write_results
from codegold.retrieve.config import RetrieverConfig
from codegold.retrieve.registry import RetrieverContext, make_retriever
from codegold.retrieve.runner import RetrievalSession


def text_from_index(index: LoadedIndex, path: str) -> str | None:
    """A file's text rebuilt from its chunks (enough for spans and excerpts) when no
    repository is at hand."""
    rows = index.rows_by_file.get(path, [])
    if not rows:
        return None
    end = max(index.chunks[r].end_line for r in rows)
    lines = [""] * end
    for r in rows:
        chunk = index.chunks[r]
        for i, line in enumerate(split_lines(chunk.text)):
            if chunk.start_line - 1 + i < end:
                lines[chunk.start_line - 1 + i] = line
    return "\n".join(lines)


def diagnosis_context(git: GitRepo | None, index_root: Path) -> DiagnosisContext:
    """Diagnosis reads codegold's own index of each revision (a revision without a
    complete build gives None), and file text from git, or from the index's chunks
    when no repository is at hand."""
    indexes: dict[str, LoadedIndex | None] = {}

    def index_for(revision: str) -> LoadedIndex | None:
        if revision not in indexes:
            try:
                indexes[revision] = open_index(index_root, revision)
            except InputError:
                indexes[revision] = None
        return indexes[revision]

    def read_text(revision: str, path: str) -> str | None:
        if git is not None:
            data = git.read_path(revision, path)
            return data.decode("utf-8", errors="replace") if data is not None else None
        index = index_for(revision)
        return text_from_index(index, path) if index is not None else None

    return DiagnosisContext(index_for=index_for, read_text=read_text)


def ensure_indexes(
    git: GitRepo,
    revisions: list[str] | tuple[str, ...],
    root: Path,
    *,
    policy_path: Path | None,
    embedder: Any,
    repository_name: str | None,
    report: Any,
    quiet: bool,
) -> None:
    for revision in revisions:
        sha = git.resolve(revision)
        policy = load_policy(repo=git, revision=sha, config_path=policy_path)
        options = BuildOptions(embedder=embedder, repository_name=repository_name)
        manifest = build_index(git, sha, root, policy=policy, options=options, progress=report)
        if not quiet:
            echo_err(f"index: {describe_manifest(manifest)}")


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
    settings = config or (RetrieverConfig.load(config_path) if config_path else RetrieverConfig())
    with GitRepo(repo_path) as git, progress_bar() as report:
        ensure_indexes(
            git,
            suite.revisions,
            root,
            policy_path=policy_path,
            embedder=embedder,
            repository_name=suite.repository_name,
            report=report,
            quiet=quiet,
        )

        def make(loaded: LoadedIndex) -> Any:
            ctx = RetrieverContext(index=loaded, repo=git, config=settings, embedder=embedder)
            return make_retriever(retriever_name, ctx)

        session = RetrievalSession(root, settings, embedder=embedder, make_retriever=make)
        attempts = session.retrieve_suite(suite, repeat=repeat, progress=report)
        records = evaluate_attempts(suite, attempts)
        ctx = diagnosis_context(git, root)
        records = diagnose_records(suite.by_id(), records, {a.attempt_id: a for a in attempts}, ctx)
    records, repeats = check_repeats(records, attempts)
    write_jsonl_atomic(out_dir / ATTEMPTS, attempts)
    identity = run_identity(suite, attempts)
    summary = write_results(out_dir, records, {**identity, **repeats})
    return summary, records
