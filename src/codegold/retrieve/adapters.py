"""Measure your own retrieval pipeline live: as a program or as an HTTP service.

For every case codegold sends one JSON request::

    {"caseId": "…", "attemptId": "…", "query": "…", "context": {"openFile": …} | null,
     "cutoff": 5, "repositoryRevision": "<40-hex>", "depth": 50}

and expects one JSON object back, in the attempt format of SPEC §2, of which only
``ranked`` is required, and of each chunk only ``file`` with an ``excerpt`` or with
``startLine``/``endLine`` (codegold resolves the rest from its own parse of the file
at the revision, SPEC §2): ``{"ranked": [RetrievedChunk, …], "candidates": [...],
"rewrittenQuery": "…", "filters": {…}, "contextIds": […], "index": {manifest},
"retriever": {"name": …}}``. Fields codegold owns (``attemptId``, ``caseId``,
``query``, timing) are filled in by codegold. A response without an ``index``
manifest is recorded as such: its case is reported invalid, never scored, because
the run cannot prove which revision it searched (``--assume-revision`` states it; the
results then say it was asserted).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime
from typing import Any

import msgspec

from codegold.attempts import Attempt, RetrieverInfo, asserted_manifest
from codegold.cases.model import Context
from codegold.errors import EnvironmentProblem, InputError

DEPTH = 50
TIMEOUT_S = 120.0


class _External:
    """One request per case to something outside codegold; subclasses say how."""

    name: str
    source: str
    revision: str
    timeout: float
    resolver: Any = None  # a SpanResolver: minimal chunks are resolved against the repository
    assume_revision: str | None = None

    def _exchange(self, request: dict[str, Any], case_id: str) -> Any:
        raise NotImplementedError

    def retrieve(
        self,
        query: str,
        *,
        case_id: str,
        context: Context | None = None,
        attempt_id: str,
        cutoff: int | None = None,
        retry_of: str | None = None,
    ) -> Attempt:
        started, t0 = datetime.now(UTC), time.perf_counter()
        request = {
            "caseId": case_id,
            "attemptId": attempt_id,
            "query": query,
            "context": msgspec.to_builtins(context) if context is not None else None,
            "cutoff": cutoff,
            "repositoryRevision": self.revision,
            "depth": DEPTH,
        }
        raw = self._exchange(request, case_id)
        if not isinstance(raw, dict) or "ranked" not in raw:
            raise InputError(
                "the response must be a JSON object with 'ranked'",
                file=self.source,
                case_id=case_id,
            )
        owned = ("attemptId", "caseId", "startedAt")
        body = {
            **{k: v for k, v in raw.items() if k not in owned},
            "attemptId": attempt_id,
            "caseId": case_id,
            "query": query,
            "retryOf": retry_of,
            "startedAt": started.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "durationMs": round((time.perf_counter() - t0) * 1000, 3),
        }
        body.setdefault("retriever", msgspec.to_builtins(RetrieverInfo(name=self.name)))
        try:
            attempt = msgspec.convert(body, Attempt)
        except msgspec.ValidationError as exc:
            from codegold.resolve import attempt_from_raw

            rebuilt = attempt_from_raw(body, self.resolver, self.assume_revision)
            if rebuilt is None:
                raise InputError(
                    f"invalid attempt: {exc}", file=self.source, case_id=case_id
                ) from None
            return rebuilt
        if attempt.index is None and self.assume_revision is not None:
            manifest = asserted_manifest(self.assume_revision, source="--assume-revision")
            attempt = msgspec.structs.replace(attempt, index=manifest)
        return attempt


class CommandRetriever(_External):
    """Runs ``command`` once per case: the request on stdin, the attempt on stdout."""

    def __init__(self, command: str, *, revision: str, timeout: float = TIMEOUT_S) -> None:
        self.argv = shlex.split(command)
        if not self.argv:
            raise InputError("command: needs a program to run", field="--retriever")
        self.name = f"command:{self.argv[0]}"
        self.source = self.argv[0]
        self.revision = revision
        self.timeout = timeout

    def _exchange(self, request: dict[str, Any], case_id: str) -> Any:
        try:
            proc = subprocess.run(
                self.argv,
                input=json.dumps(request),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                check=False,
            )
        except FileNotFoundError:
            raise EnvironmentProblem(f"retriever command not found: {self.argv[0]}") from None
        except subprocess.TimeoutExpired:
            raise EnvironmentProblem(
                f"retriever command timed out after {self.timeout:.0f} s on case {case_id!r}"
            ) from None
        if proc.returncode != 0:
            tail = proc.stderr.strip().splitlines()[-1:] or ["(no stderr)"]
            raise EnvironmentProblem(
                f"retriever command exited {proc.returncode} on case {case_id!r}: {tail[0]}"
            )
        try:
            return json.loads(proc.stdout)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"stdout is not JSON: {exc}", file=self.argv[0], case_id=case_id
            ) from None


class HttpRetriever(_External):
    """POSTs the request to ``url`` per case and reads the attempt from the answer."""

    def __init__(self, url: str, *, revision: str, timeout: float = TIMEOUT_S) -> None:
        if not url.startswith(("http://", "https://")):
            raise InputError(f"http: expects a URL, got {url!r}", field="--retriever")
        self.url = url
        self.name = "http"
        self.source = url
        self.revision = revision
        self.timeout = timeout

    def _exchange(self, request: dict[str, Any], case_id: str) -> Any:
        req = urllib.request.Request(
            self.url,
            data=json.dumps(request).encode("utf-8"),
            headers={"Content-Type": "application/json", "Accept": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            raise EnvironmentProblem(
                f"retriever service answered {exc.code} on case {case_id!r}"
            ) from None
        except (urllib.error.URLError, TimeoutError) as exc:
            raise EnvironmentProblem(f"retriever service unreachable: {exc}") from None
        except json.JSONDecodeError as exc:
            raise InputError(
                f"response is not JSON: {exc}", file=self.url, case_id=case_id
            ) from None
