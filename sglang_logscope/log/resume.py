"""Fold a parse into runs, taking the state near the file's end to go on from next time.

:func:`fold` is :func:`~.runs.stream_runs` with a :class:`Tap`: just before the first block
of serving rows at or after a target line (near the end of the file) it takes the run's
state (:meth:`~.runs._Builder.state`). There the parser holds nothing back: every line
before the block has come out as an event already. :func:`resume_of` turns that state into
a :class:`~.scan_index.Resume` and keeps it only when it reads back equal and going on from it gives the parse's own runs.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Sequence
from typing import Any

from .._record import record
from ..events import Event, EventKind
from ..parse.blanks import Blanks
from ..parse.bulk import Rows
from ..parse.lines import iter_records
from . import scan_index
from .runs import Run, StreamState, run_builder

#: The state is taken this many lines before the end of the file (or later).
RESUME_LINES = 2000
#: Where line numbers are counted from to find an offset: the last this many bytes.
_END_BYTES = 4 << 20
_CHUNK = 1 << 20
#: At most this much is parsed again to verify or use a state (before its run, after it).
_REREAD_LIMIT = 16 << 20


@record(frozen=False)
class Tap:
    """Watches a parse go by: the parser's ready flag, and the state taken at ``target``."""

    target: int  # take the state at the first serving row from this line on
    starter_line: int  # ... after this line (the last run starter's)
    first_index: int  # ... in a run of this index or later (the starter's run or after)
    ready: bool = False
    taken: tuple[int, StreamState, bool] | None = None  # (line, state, ready there)

    def split(self, item: Event | Rows | Blanks) -> tuple[Event | Rows | Blanks, ...]:
        """``item``, or a block of rows cut where the state is to be taken (rows are whole
        lines: the parser holds nothing between two of them; a run folds the two parts as
        it folds the block)."""
        if self.taken is not None or not isinstance(item, Rows):
            return (item,)
        cut = max(self.target, self.starter_line + 1) - item.first_line
        if 0 < cut < len(item):
            return item.slice(0, cut), item.slice(cut, len(item))
        return (item,)

    def see(self, item: Event | Rows | Blanks, builder: Any) -> None:
        """``item`` is about to be folded by ``builder`` (a :func:`~.runs.run_builder`)."""
        if isinstance(item, Rows):
            if self.taken is None and item.first_line >= max(self.target, self.starter_line + 1):
                state = builder.state()
                if state is not None and state.index >= self.first_index:
                    self.taken = (item.first_line, state, self.ready)
            return
        if isinstance(item, Blanks):
            return  # (blank lines: neither ready nor a banner)
        if item.kind is EventKind.SERVER_READY or item.kind is EventKind.SERVER_ARGS:
            self.ready = item.kind is EventKind.SERVER_READY


def fold(
    records: Iterable[Event | Rows | Blanks],
    keep: frozenset[EventKind],
    tap: Tap | None = None,
    state: StreamState | None = None,
) -> list[Run]:
    """The runs of ``records`` (:func:`~.runs.stream_runs`, resumed from ``state``), shown to
    ``tap`` item by item."""
    builder = run_builder(keep, state)
    runs: list[Run] = []
    for item in records:
        if tap is not None:
            for part in tap.split(item):
                tap.see(part, builder)
                runs.extend(builder.feed(part))
        else:
            runs.extend(builder.feed(item))
    runs.extend(builder.finish())
    return runs


def head_runs(path: str, resume: scan_index.Resume, keep: frozenset[EventKind]) -> list[Run]:
    """The runs reported before the resumed one (from the starter's run on; from the file's
    start when the parse began there): the part of the file before the resumed run's first
    line parsed again. Mostly there are none: the state is the starter's own run."""
    state = resume.state
    if state.index == resume.first_index:
        return []
    if resume.run_offset <= resume.parsed_from_offset:
        raise ValueError("nothing before the run")
    records = _records_between(
        path, resume.parsed_from_offset, resume.run_offset, resume.parsed_from_line, False
    )
    builder = run_builder(keep)
    runs: list[Run] = []
    for item in records:
        runs.extend(builder.feed(item))
    runs.extend(builder.close())
    if len(runs) != state.index:
        raise ValueError("not the runs before")
    return runs[resume.first_index :]


def records_from(path: str, line: int, offset: int, ready: bool) -> Iterable[Event | Rows | Blanks]:
    """The file's records from ``offset`` (line ``line``) on, rows folded (no fields)."""
    # (helper=None: a second process when what is left is big and a core is free for it)
    return iter_records(path, first_line=line, fields=False, start=offset, helper=None, ready=ready)


class LineOffsets:
    """Byte offsets of line numbers, counted from the nearest known line before each."""

    def __init__(self, path: str, anchors: Iterable[tuple[int, int]]) -> None:
        self.path = path
        self.anchors = sorted(set(anchors))
        self.known: dict[int, int] = dict(self.anchors)

    def __call__(self, line: int) -> int:
        hit = self.known.get(line)
        if hit is not None:
            return hit
        base = max((a for a in self.anchors if a[0] <= line), default=None)
        if base is None:
            raise ValueError("no line to count from")
        at = _forward(self.path, base[1], line - base[0])
        self.known[line] = at
        return at


def _forward(path: str, offset: int, newlines: int) -> int:
    """The offset just after the ``newlines``-th newline from ``offset`` on."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        at = offset
        while newlines > 0:
            data = os.pread(fd, _CHUNK, at)
            if not data:
                raise ValueError("the file has fewer lines")
            n = data.count(b"\n")
            if n < newlines:
                newlines -= n
                at += len(data)
                continue
            pos = -1
            for _ in range(newlines):
                pos = data.find(b"\n", pos + 1)
            return at + pos + 1
        return at
    finally:
        os.close(fd)


def end_anchor(path: str, size: int, newlines: int) -> tuple[int, int, int] | None:
    """(line, offset) of a line start in the file's last :data:`_END_BYTES` (of ``size``,
    holding ``newlines`` in all), and the offset after its last newline; ``None`` without
    one there."""
    low = max(0, size - _END_BYTES)
    with open(path, "rb") as f:
        f.seek(low)
        data = f.read(size - low)
    last = data.rfind(b"\n")
    if last < 0:
        return None
    first = -1 if low == 0 else data.find(b"\n")
    after = data.count(b"\n", first + 1)
    return newlines - after + 1, low + first + 1, low + last + 1


@record
class Taken:
    """What a parse leaves for the index: where it was, and the runs it gave from there."""

    starter_offset: int
    parsed_from_line: int
    parsed_from_offset: int
    first_index: int
    runs: Sequence[Run]


def resume_of(
    path: str,
    tap: Tap,
    taken: Taken,
    offsets: LineOffsets,
    keep: frozenset[EventKind],
    limit: int,
) -> scan_index.Resume | None:
    """The tap's state as a :class:`~.scan_index.Resume`, when it reads back equal and goes
    on to the parse's own runs (up to the parse's last line: a live server may have written
    more since); ``limit``: the resume point must lie before this offset (the scanned part)."""
    if tap.taken is None:
        return None
    line, state, ready = tap.taken
    if len(state.settled) + len(state.tail) > scan_index.MAX_STATE_EVENTS:
        return None
    mine = [r for r in taken.runs if r.index >= taken.first_index]
    try:
        resume = scan_index.Resume(
            starter_offset=taken.starter_offset,
            parsed_from_line=taken.parsed_from_line,
            parsed_from_offset=taken.parsed_from_offset,
            first_index=taken.first_index,
            run_offset=offsets(state.first_line),
            line=line,
            offset=offsets(line),
            ready=ready,
            state=state,
        )
        if resume.offset > limit:
            return None
        resume, back = scan_index.round_trip(resume)
        stop = _after(offsets, path, max((r.last_line for r in mine), default=line))
        after = _records_between(path, back.offset, stop, back.line, back.ready)
        again = [*head_runs(path, back, keep), *fold(after, keep, state=back.state)]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    if back != resume or not _same_runs(again, mine):
        return None
    return resume


def _after(offsets: LineOffsets, path: str, line: int) -> int:
    """Where the line after ``line`` starts (the file's size when ``line`` is its last)."""
    try:
        return offsets(line + 1)
    except ValueError:
        return os.path.getsize(path)


def _records_between(
    path: str, start: int, stop: int, first_line: int, ready: bool
) -> Iterable[Event | Rows | Blanks]:
    """The records of the file's bytes ``start``..``stop`` (line ``first_line`` on), read
    again: at most :data:`_REREAD_LIMIT`, all of it there."""
    if not 0 <= stop - start <= _REREAD_LIMIT:
        raise ValueError("too much to read again")
    with open(path, "rb") as f:
        f.seek(start)
        data = f.read(stop - start)
    if len(data) != stop - start:
        raise ValueError("the file shrank")
    return iter_records(
        io.BytesIO(data), first_line=first_line, fields=False, helper=False, ready=ready
    )


def _same_runs(a: Sequence[Run], b: Sequence[Run]) -> bool:
    return list(a) == list(b) and [r.release_clues for r in a] == [r.release_clues for r in b]
