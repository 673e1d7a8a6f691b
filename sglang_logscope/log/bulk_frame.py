"""``events_frame``'s chunks straight from the bulk columns: no ``Event`` per batch row.

The rows of each chunk are those the reference (:func:`.frames.events_dataframe` of the
chunk's events) makes, gathered as columns (:mod:`..parse.bulk_columns`; other lines
through their events) and typed by the same code (:func:`.frames.typed_frame`); a dict of
equal-length lists with NaN where a row lacks a column gives pandas the same inference as
the reference's list of dicts (``tests/test_bulk_frame.py`` holds the two equal).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..events import Event, EventKind
from ..parse.blanks import Blanks
from ..parse.bulk import Rows
from ..parse.bulk_columns import BulkColumns, Segment
from .frames import _NULLABLE, event_row, event_zone, typed_frame

#: A row's missing value (what pandas gives a list of dicts' missing key).
_MISSING = np.nan


def chunk_frames(
    records: Iterable[Event | Rows | Blanks],
    run_of: Mapping[int, int],
    runs_of: Callable[[list[int]], list[int | None]],
    kinds: frozenset[EventKind] | None,
    *,
    messages: bool,
    chunk: int,
    stats: BulkColumns | None = None,
) -> Iterator[pd.DataFrame]:
    """The typed frame of each ``chunk`` rows of ``records`` (of ``kinds``), in order; one
    empty frame when there are none. ``run_of`` is the run of a line, ``runs_of`` that of
    each of ascending lines."""
    maker = stats or BulkColumns(
        lambda e: event_row(e, run_of, messages),
        runs_of,
        kinds,
        messages=messages,
        missing=_MISSING,
    )
    pending: list[Segment] = []
    size = 0
    events: list[Event] = []
    made = False
    for segment in _segments(records, maker, kinds, events):
        while segment.n:
            take = min(segment.n, chunk - size)
            head, segment = _split(segment, take) if take < segment.n else (segment, Segment(0))
            pending.append(head)
            size += head.n
            if size >= chunk:
                yield _frame(pending, messages)
                made = True
                pending, size = [], 0
    if pending or not made:
        yield _frame(pending, messages)


def _segments(
    records: Iterable[Event | Rows | Blanks],
    maker: BulkColumns,
    kinds: frozenset[EventKind] | None,
    events: list[Event],
) -> Iterator[Segment]:
    """The records' rows as segments: each block of rows, and the events between blocks."""
    for record in records:
        if isinstance(record, Rows) and record.received is None:
            if events:
                yield _from_events(maker, events)
                events.clear()
            segment = maker.segment(record)
            segment.zones = {None} if segment.n else set()  # printed times, no receive time
            yield segment
        elif isinstance(record, Rows):  # a wrapped log: receive times (the reference)
            events.extend(e for e in record.events() if kinds is None or e.kind in kinds)
            maker.slow += len(record)
        elif isinstance(record, Blanks):
            if events:
                yield _from_events(maker, events)
                events.clear()
            yield from _blank_segments(maker, record, kinds)
        elif kinds is None or record.kind in kinds:
            events.append(record)
        if len(events) >= 4096:
            yield _from_events(maker, events)
            events.clear()
    if events:
        yield _from_events(maker, events)
        events.clear()


def _blank_segments(
    maker: BulkColumns, run: Blanks, kinds: frozenset[EventKind] | None
) -> Iterator[Segment]:
    """A run of blank lines' rows: one distinct line's row made through its event, the rest
    of the run's rows copied from it (their line and run apart), a block at a time."""
    if kinds is not None and not run.kinds() & kinds:
        return
    for lo in range(0, run.count, _BLANK_BLOCK):
        hi = min(run.count, lo + _BLANK_BLOCK)
        segment = maker.from_blanks(run, lo, hi)
        if segment is None:  # (a row with more than the header columns: the reference)
            events = [e for e in run.events(lo, hi) if kinds is None or e.kind in kinds]
            segment = _from_events(maker, events)
        else:
            segment.zones = set()  # no printed time
        yield segment


#: Rows of a run of blank lines made at once.
_BLANK_BLOCK = 1 << 16


def _from_events(maker: BulkColumns, events: list[Event]) -> Segment:
    segment = maker.from_events(events)
    segment.zones = {event_zone(e) for e in events if e.timestamp is not None}
    return segment


def _split(segment: Segment, at: int) -> tuple[Segment, Segment]:
    """A segment's first ``at`` rows and the rest (columns a part lacks left out)."""
    return _part(segment, 0, at), _part(segment, at, segment.n)


def _part(segment: Segment, a: int, b: int) -> Segment:
    out = Segment(b - a, zones=segment.zones)  # (a superset: the zones only widen)
    for name, column in segment.columns.items():
        values = column[a:b]
        if name not in segment.types:
            out.columns[name] = values
            continue
        seen = {type(v) for v in values if v is not _MISSING}
        if seen:
            out.columns[name] = values
            out.types[name] = seen
    return out


def _held(columns: dict[str, list[Any]], types: dict[str, set[type]], n: int) -> dict[str, Any]:
    """What the chunk's frame is built from: ``columns``, except that a field column of ints
    or bools is held by a placeholder (``typed_frame`` rebuilds it from its values as a
    nullable column, so pandas' inference of the list would be thrown away) and the line
    numbers are the int64 array pandas infers from them."""
    out: dict[str, Any] = dict(columns)
    for name, seen in types.items():
        if name in out and frozenset(seen) in _NULLABLE:
            out[name] = np.zeros(n, dtype=np.int8)
    out["line"] = np.array(columns["line"], dtype=np.int64)
    return out


def _frame(segments: list[Segment], messages: bool) -> pd.DataFrame:
    """One chunk's typed frame from its segments (columns in the order first seen)."""
    n = sum(s.n for s in segments)
    columns: dict[str, list[Any]] = {}
    types: dict[str, set[type]] = {}
    at = 0
    for s in segments:
        for name, values in s.columns.items():
            column = columns.get(name)
            if column is None:
                column = columns[name] = [_MISSING] * at
            column.extend(values)
        for name, seen in s.types.items():
            types.setdefault(name, set()).update(seen)
        at += s.n
        for column in columns.values():
            if len(column) < at:
                column.extend([_MISSING] * (at - len(column)))
    assert all(len(c) == n for c in columns.values())
    frame = pd.DataFrame(_held(columns, types, n)) if n else pd.DataFrame()
    received = "received_at" in types or "received_at" in columns
    types.pop("received_at", None) if received else None
    typed = typed_frame(frame, types, received, messages, columns.__getitem__)
    if n:
        typed.attrs["printed_zones"] = set().union(*(s.zones for s in segments))
    return typed
