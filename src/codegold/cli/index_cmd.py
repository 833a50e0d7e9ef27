"""`codegold index`, `codegold search`, `codegold chunks`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from codegold.cli._options import embedder_option

if TYPE_CHECKING:
    from codegold.index.embed import EmbeddingProvider

DEFAULT_INDEX = ".codegold/index"


def resolve_embedder(spec: str) -> EmbeddingProvider | None:
    """:func:`codegold.index.embed.resolve_embedder`, imported only when a command runs."""
    from codegold.index.embed import resolve_embedder as resolve

    return resolve(spec)


@click.command("index")
@click.argument("repo", type=click.Path(path_type=Path))
@click.option("--revision", default="HEAD", show_default=True, help="Commit to index.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_INDEX,
    show_default=True,
    help="Index root folder.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="codegold.toml with [policy] (default: the repository's own, at the revision).",
)
@embedder_option
@click.option("--force", is_flag=True, help="Rebuild even when an identical build exists.")
def index(
    repo: Path, revision: str, out_dir: Path, config_path: Path | None, embedder: str, force: bool
) -> None:
    """Index REPO (normal or bare git repository) at a revision, from git objects."""
    from codegold._io import ensure_output_dir
    from codegold.cli._progress import progress_bar
    from codegold.corpus.git import GitRepo
    from codegold.corpus.policy import load_policy
    from codegold.index.build import BuildOptions, build_index, describe_manifest

    ensure_output_dir(out_dir)
    with GitRepo(repo) as git:
        sha = git.resolve(revision)
        policy = load_policy(repo=git, revision=sha, config_path=config_path)
        options = BuildOptions(embedder=resolve_embedder(embedder), repository_name=repo.name)
        with progress_bar() as report:
            manifest = build_index(
                git, sha, out_dir, policy=policy, options=options, progress=report, force=force
            )
    click.echo(f"indexed {describe_manifest(manifest)} into {out_dir}")


@click.command("search")
@click.argument("query")
@click.option(
    "--index",
    "index_dir",
    type=click.Path(path_type=Path),
    default=DEFAULT_INDEX,
    show_default=True,
)
@click.option("--revision", default=None, help="Which indexed revision (when several).")
@click.option("--open-file", default=None, help="The file the asker has open (reliable context).")
@click.option("--path-prefix", default=None, help="Reliable path context.")
@click.option("--language", default=None, help="Reliable language context.")
@click.option("-k", "k", default=10, show_default=True)
@click.option("--explain", is_flag=True, help="Show why each chunk ranked where it did.")
@click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path),
    default=None,
    help="Retriever settings (TOML [retriever] or tune's JSON).",
)
@embedder_option
def search(
    query: str,
    index_dir: Path,
    revision: str | None,
    open_file: str | None,
    path_prefix: str | None,
    language: str | None,
    k: int,
    explain: bool,
    config_path: Path | None,
    embedder: str,
) -> None:
    """Search an index with the reference retriever."""
    from codegold.index.store import open_index
    from codegold.retrieve.config import RetrieverConfig
    from codegold.retrieve.hybrid import HybridRetriever

    loaded = open_index(index_dir, revision)
    config = RetrieverConfig.load(config_path) if config_path else RetrieverConfig()
    provider = resolve_embedder(embedder) if loaded.vectors is not None else None
    retriever = HybridRetriever(loaded, config, embedder=provider)
    context = None
    if open_file or path_prefix or language:
        from codegold.cases.model import Context

        context = Context(open_file=open_file, path_prefix=path_prefix, language=language)
    result = retriever.search(query, context)
    a = result.analysis
    click.echo(f"intent={a.intent.value} identifiers={list(a.identifiers)} paths={list(a.paths)}")
    for rank, (row, score) in enumerate(result.ranked[:k], start=1):
        c = loaded.chunks[row]
        click.echo(
            f"{rank:>3}. {c.file}:{c.start_line}-{c.end_line}  {c.symbol or '-'}  "
            f"[{c.role}]  score={score:.4f}"
        )
        if explain:
            e = result.explanations[row]
            sig = ", ".join(f"{n}#{r}({s:.3g})" for n, (r, s) in sorted(e.signals.items()))
            fac = ", ".join(f"{n}×{v:.2f}" for n, v in sorted(e.factors.items()))
            click.echo(f"       signals: {sig}; fused={e.fused:.4f}; factors: {fac or 'none'}")


@click.command("chunks")
@click.argument("repo", type=click.Path(path_type=Path))
@click.argument("path")
@click.option("--revision", default="HEAD", show_default=True)
@click.option("--config", "config_path", type=click.Path(path_type=Path), default=None)
@click.option("--json", "as_json", is_flag=True, help="Print the chunks as JSON.")
def chunks(repo: Path, path: str, revision: str, config_path: Path | None, as_json: bool) -> None:
    """Show how one file is chunked at a revision: spans, symbols, roles."""
    from codegold.chunking import ChunkerConfig, chunk_file
    from codegold.corpus.git import GitRepo
    from codegold.corpus.policy import load_policy
    from codegold.errors import InputError

    with GitRepo(repo) as git:
        sha = git.resolve(revision)
        data = git.read_path(sha, path)
        if data is None:
            raise InputError(f"no file {path!r} at {sha}", file=str(repo))
        policy = load_policy(repo=git, revision=sha, config_path=config_path)
        verdict = policy.classify(path, data, git.attributes(sha).lookup(path), size=len(data))
    result = chunk_file(
        path, data.decode("utf-8", errors="replace"), file_role=verdict.role, config=ChunkerConfig()
    )
    if as_json:
        import msgspec

        from codegold._io import encode_json

        rows = [
            {
                "startLine": c.start_line,
                "endLine": c.end_line,
                "kind": c.kind,
                "role": str(c.role),
                "symbol": c.symbol,
                "symbols": list(c.symbols),
                "references": list(c.references),
            }
            for c in result.chunks
        ]
        click.echo(
            encode_json(
                {
                    "file": path,
                    "revision": sha,
                    "status": str(verdict.status),
                    "fileRole": str(verdict.role),
                    "rule": verdict.rule,
                    "parseOk": result.parse_ok,
                    "chunks": rows,
                }
            ).decode(),
            nl=False,
        )
        del msgspec
        return
    click.echo(
        f"{path} at {sha[:12]}: status={verdict.status} role={verdict.role} "
        f"rule={verdict.rule or '-'} parse_ok={result.parse_ok}"
    )
    for c in result.chunks:
        refs = ", ".join(c.references[:8]) + (" …" if len(c.references) > 8 else "")
        click.echo(
            f"  {c.start_line:>5}-{c.end_line:<5} {c.kind:<9} {c.role!s:<12} "
            f"{c.symbol or '-'}  defines={list(c.symbols)}  refs=[{refs}]"
        )
