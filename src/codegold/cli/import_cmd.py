"""`codegold import traces|swebench|trec`: what a team already has, in codegold's formats."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from codegold.cases.suite import Suite

_ASSUME_HELP = (
    "The revision the pipeline searched: a full SHA, or 'pinned' for each case's own pinned "
    "revision. Written as an asserted index manifest; results say it was asserted, not proven."
)


def _revision_for(suite: Suite, assume: str | None) -> Callable[[str], str | None] | None:
    from codegold.resolve import check_revision

    if assume is None:
        return None
    if assume == "pinned":
        pinned = {c.id: c.revision for c in suite.cases}
        return lambda case_id: pinned.get(case_id)
    sha = check_revision(assume, field="--assume-revision")
    return lambda case_id: sha


def _note(message: str) -> None:
    click.echo(message, err=True)


@click.group("import")
def import_() -> None:
    """Turn traces, issue datasets and TREC runs into codegold suites and attempts."""


@import_.command("traces")
@click.argument("trace_file", type=click.Path(path_type=Path))
@click.option(
    "--cases", "cases_path", required=True, type=click.Path(path_type=Path), help="Gold suite."
)
@click.option(
    "--out", "out_path", required=True, type=click.Path(path_type=Path), help="attempts.jsonl"
)
@click.option(
    "--assume-revision", "assume_revision", default=None, metavar="SHA", help=_ASSUME_HELP
)
def traces(trace_file: Path, cases_path: Path, out_path: Path, assume_revision: str | None) -> None:
    """Attempts from OTLP/JSON (collector file exporter) or Phoenix span exports.

    Retriever spans (OpenInference `openinference.span.kind` = RETRIEVER) join a case by
    a `codegold.case_id` attribute (on the span or an ancestor) or by exact query text;
    spans that match no case are listed, never guessed. Evaluate the result with
    `codegold eval --repo`, which resolves each document against the file at the revision.
    """
    from codegold._io import write_jsonl_atomic
    from codegold.cases import load_suite
    from codegold.importers.traces import import_traces, read_spans
    from codegold.redact import redact_json

    suite = load_suite(cases_path)
    revision_for = _revision_for(suite, assume_revision)
    found = import_traces(
        read_spans(trace_file), suite, revision_for=revision_for, source=str(trace_file)
    )
    write_jsonl_atomic(out_path, [redact_json(a)[0] for a in found.attempts])
    chunks = sum(len(a["ranked"]) for a in found.attempts)
    click.echo(
        f"{trace_file}: {found.spans} spans, {found.retriever_spans} retriever spans -> "
        f"{len(found.attempts)} attempts ({chunks} chunks) for "
        f"{len({a['caseId'] for a in found.attempts})} cases; wrote {out_path}"
    )
    for span_id, reason in found.unmatched:
        _note(f"unmatched span {span_id}: {reason}")
    if found.cases_without_spans:
        _note(f"cases without a retriever span: {', '.join(found.cases_without_spans)}")
    if found.attempts and not any("index" in a for a in found.attempts):
        _note(
            "no revision stated (--assume-revision, or a codegold.revision span attribute): "
            "these attempts have no index manifest, so eval will report their cases invalid"
        )


@import_.command("swebench")
@click.argument("dataset", type=click.Path(path_type=Path))
@click.option(
    "--out", "out_dir", required=True, type=click.Path(path_type=Path), help="Folder for suites."
)
@click.option("--cutoff", default=5, show_default=True, help="Each suite's default cutoff (k).")
def swebench(dataset: Path, out_dir: Path, cutoff: int) -> None:
    """SWE-bench / Loc-Bench JSONL as one suite per repository (every modified file required)."""
    import yaml

    from codegold._io import write_text_atomic
    from codegold.cases import load_suite
    from codegold.errors import InputError
    from codegold.importers.swebench import read_swebench, suites_from_rows
    from codegold.redact import redact_json

    if cutoff < 1:
        raise InputError("must be at least 1", field="--cutoff")
    found = suites_from_rows(read_swebench(dataset), cutoff=cutoff, source=str(dataset))
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, document in found.suites.items():
        target = out_dir / name
        # Issue texts are pasted by people: the drafted suite holds no secret verbatim.
        clean = redact_json(document)[0]
        write_text_atomic(target, yaml.safe_dump(clean, sort_keys=False, allow_unicode=True))
        load_suite(target)  # what we wrote must load
        click.echo(f"wrote {target} ({len(document['cases'])} cases)")
    for instance, reason in found.skipped:
        _note(f"skipped {instance}: {reason}")


@import_.command("trec")
@click.argument("run_file", type=click.Path(path_type=Path))
@click.option(
    "--suite", "cases_path", required=True, type=click.Path(path_type=Path), help="Gold suite."
)
@click.option(
    "--out", "out_path", required=True, type=click.Path(path_type=Path), help="attempts.jsonl"
)
@click.option(
    "--assume-revision", "assume_revision", default=None, metavar="SHA", help=_ASSUME_HELP
)
def trec(run_file: Path, cases_path: Path, out_path: Path, assume_revision: str | None) -> None:
    """A TREC run file (qid = case id; docid = path, path:START-END or path#symbol) as attempts."""
    from codegold._io import write_jsonl_atomic
    from codegold.cases import load_suite
    from codegold.importers.trec_run import import_trec_run
    from codegold.redact import redact_json

    suite = load_suite(cases_path)
    found = import_trec_run(run_file, suite, revision_for=_revision_for(suite, assume_revision))
    write_jsonl_atomic(out_path, [redact_json(a)[0] for a in found.attempts])
    click.echo(f"{run_file}: {len(found.attempts)} attempts; wrote {out_path}")
    for qid in found.unknown_qids:
        _note(f"unmatched qid {qid!r}: no such case in the suite")
    if found.cases_without_lines:
        _note(f"cases without run lines: {', '.join(found.cases_without_lines)}")
