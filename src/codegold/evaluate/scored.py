"""Attempts read straight into the layout of their records' ranked entries.

A recorded attempt is read once, scored once and let go. Reading its chunks as
:class:`~codegold.attempts.RetrievedChunk` and then building a
:class:`~codegold.evaluate.records.RankedEntry` of each one made every chunk twice.
A :class:`ScoredChunk` is both: it is read with the same names and types as a
retrieved chunk (SPEC §2), and it holds the fields of a ranked entry, in the same
order, so the record that holds it encodes byte for byte as it would with ranked
entries. The evaluator sets its rank (and, for the few chunks that have one, its
match, covered span, claim mismatch and duplicate) in place.

Only chunks that carry nothing but what their entry shows are read this way: a chunk
with ``symbols``, an ``excerpt`` or a ``claim`` (which entries do not show), or with a
key of an entry's own (``rank``, ``match``, …, which a retrieved chunk ignores), does
not fit, and neither does any bad line: the attempts reader reads such a line the
usual way, with its errors (and, after a few, every later line: :data:`MISFITS`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from msgspec import UNSET, UnsetType

from codegold.attempts import Attempt
from codegold.roles import RoleName


class ScoredChunk(msgspec.Struct, rename="camel", kw_only=True):
    """A retrieved chunk in its ranked entry's layout: the fields of
    :class:`~codegold.evaluate.records.RankedEntry`, in its order, then the retrieved
    chunk's own (always unset here, so never encoded).

    A field typed ``UnsetType`` with another default is an entry's own: absent from a
    retrieved chunk, it takes the entry's default; present, the line does not fit."""

    rank: UnsetType = 0  # type: ignore[assignment]
    chunk_id: str
    file: str
    symbol: str | None = None
    role: RoleName
    repository_revision: str
    score: float
    match: UnsetType = "none"  # type: ignore[assignment]
    start_line: int
    end_line: int
    covers_target_span: UnsetType = False  # type: ignore[assignment]
    resolved: bool | None = None
    claim_mismatch: UnsetType = None  # type: ignore[assignment]
    duplicate_of: UnsetType = None  # type: ignore[assignment]
    symbols: UnsetType = UNSET
    excerpt: UnsetType = UNSET
    claim: UnsetType = UNSET


class ScoredAttempt(Attempt, frozen=True):
    """An attempt whose ranked chunks are :class:`ScoredChunk`: evaluated once, its
    chunks become its record's entries."""

    if not TYPE_CHECKING:  # (read by the evaluator as retrieved chunks)
        ranked: tuple[ScoredChunk, ...]


MISFITS = 8
"""After this many lines that do not fit, a :class:`ScoringDecoder` stops trying (a
file whose chunks carry excerpts would have every line read twice)."""


class ScoringDecoder:
    """Reads a JSONL line as a :class:`ScoredAttempt`, or gives None for a line that
    does not fit (see the module docstring), and for every line once :data:`MISFITS`
    did not: those are read the usual way, and a bad line fails as it always did."""

    __slots__ = ("_decode", "_misfits")

    def __init__(self) -> None:
        self._decode: msgspec.json.Decoder[ScoredAttempt] | None = msgspec.json.Decoder(
            ScoredAttempt
        )
        self._misfits = 0

    def __call__(self, line: bytes) -> Attempt | None:
        decode = self._decode
        if decode is None:
            return None
        try:
            return decode.decode(line)
        except (msgspec.DecodeError, RecursionError):  # (ValidationError is one)
            self._misfits += 1
            if self._misfits >= MISFITS:
                self._decode = None
            return None
