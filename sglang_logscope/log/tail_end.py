"""The end of a big log read without parsing the whole file: :func:`.tail.read_last_run`'s
way for plain files of :data:`.tail.FAST_MIN_BYTES` or more (the module docstring of
:mod:`.tail` says how). Its own module so that a check of a small log does not load the
byte-level pass (:mod:`.starters`), the scan index (:mod:`.scan_index`, :mod:`.resume`) and
their types (issue 33, 2: start-up)."""

from __future__ import annotations

import io
from dataclasses import replace
from typing import Any

from .._record import record
from ..events import Event, EventKind
from ..parse.lines import iter_events
from ..parse.source import Source, describe
from . import scan_index
from .resume import (
    RESUME_LINES,
    LineOffsets,
    Taken,
    Tap,
    end_anchor,
    fold,
    head_runs,
    records_from,
    resume_of,
)
from .runs import PREAMBLE_KINDS, Outcome, Run, split_runs, stream_runs
from .scan_index import Index, Resume, Starter
from .starters import scan_region
from .tail_log import CHECK_KINDS, TailLog


def _parse_from(path: str, offset: int, line: int, limit: int | None = None) -> list[Event]:
    with open(path, "rb") as f:
        f.seek(offset)
        source: Any = f if limit is None else io.BytesIO(f.read(limit))
        return list(iter_events(source, first_line=line))


def _line_start(path: str, offset: int) -> int:
    """The offset of the first line starting at or after ``offset``."""
    if offset <= 0:
        return 0
    with open(path, "rb") as f:
        f.seek(offset - 1)
        chunk = f.read(1 << 20)
    nl = chunk.find(b"\n")
    return offset + nl if nl >= 0 else offset - 1 + len(chunk)


def _lines_between(path: str, start: int, stop: int) -> int:
    with open(path, "rb") as f:
        f.seek(start)
        return f.read(stop - start).count(b"\n")


def _settled(events: list[Event], runs: list[Run], line: int) -> int | None:
    """The index of the run holding ``line`` when the window starts it as the full scan would."""
    idx = next((i for i, r in enumerate(runs) if r.first_line <= line <= r.last_line), None)
    if idx is None:
        return None
    first = runs[idx].first_line
    for e in events[1:]:
        if e.line >= first:
            return None
        if e.timestamp is not None and e.has_date and e.kind not in PREAMBLE_KINDS:
            return idx
    return None


def _stub(index: int, starter: Starter, next_first: int | None) -> Run:
    events = list(iter_events(io.BytesIO(starter.raw), first_line=starter.line))
    event = events[0]
    banner = event.kind is EventKind.SERVER_ARGS
    return Run(
        index=index,
        events=(event,),
        started_at=event.timestamp,
        ended_at=event.timestamp,
        first_line=starter.line,
        last_line=(next_first - 1) if next_first else starter.line,
        server_args=dict(event.fields.get("args", {})) if banner else None,
        outcome=Outcome.UNKNOWN,
        failure=None,
        release_hint=None,
        has_banner=banner,
    )


@record
class _Parsed:
    """The parsed end of a file: the runs from the checked one on, their kept events, the
    first line parsed, and the state to go on from next time (if any)."""

    runs: list[Run]
    events: list[Event]
    from_line: int
    resume: Resume | None
    resumed_from: int = 0  # the line an index let the parse go on from (0: parsed it all)


def read_tail(
    source: Source,
    path: str,
    size: int,
    window: int | None,
    first_window: int,
    head_bytes: int,
    keep: frozenset[EventKind] | None,
    back: int,
    first_row: bool,
) -> TailLog | None:
    """The :class:`TailLog` of a big plain file read from its end (see :mod:`.tail`); ``None``
    where only the full scan will do (no run starter, or the window reaches the start)."""
    indexed = (
        window is None and size >= scan_index.INDEX_MIN_BYTES and scan_index.cache_dir() is not None
    )
    known = scan_index.load(path) if indexed else None
    starters, newlines, size = _starters(path, known)  # (the size as the byte pass saw it)
    if not starters:
        return None
    first = starters[-min(back, len(starters))]
    end = end_anchor(path, size, newlines) if indexed else None
    resumable = keep == CHECK_KINDS and back == 1 and not first_row and end is not None
    old = known.resume if known is not None and resumable else None
    parsed: _Parsed | None = None
    if old is not None and old.starter_offset == first.offset:
        parsed = _go_on(path, old, first, end, newlines)
    if parsed is None:  # no state for this run (or its runs before cannot be had again)
        target = newlines - RESUME_LINES if resumable else None
        parsed = _parse_end(path, first, first_window, keep, first_row, target, end)
    if parsed is None:
        return None
    tail_runs = parsed.runs
    first_tail_line = tail_runs[0].first_line
    earlier = [s for s in starters if s.line < first_tail_line]
    stubs = _earlier_runs(path, earlier, first_tail_line, head_bytes)
    shifted = [replace(r, index=len(stubs) + i) for i, r in enumerate(tail_runs)]
    if end is not None:  # a read that takes no state (watch's) leaves check's as it was
        kept = parsed.resume if resumable or known is None else known.resume
        _keep_index(path, known, starters, newlines, end[2], kept)
    return TailLog(
        name=describe(source),
        events=tuple(e for e in parsed.events if e.line >= first_tail_line),
        runs=(*stubs, *shifted),
        scanned_from_line=parsed.from_line,
        folded=keep is not None,
        first_parsed_run=len(stubs),
        resumed_from_line=parsed.resumed_from,
    )


def _starters(path: str, known: Index | None) -> tuple[list[Starter], int, int]:
    """Every run starter, the newline count and the size seen: from the index up to where it
    was scanned, the byte-level pass from there on."""
    if known is None:
        scan = scan_region(path)
        return scan.starters, scan.newlines, scan.size
    more = scan_region(path, known.scanned_to, known.newlines + 1)
    return [*known.starters, *more.starters], known.newlines + more.newlines, more.size


def _parse_end(
    path: str,
    first: Starter,
    first_window: int,
    keep: frozenset[EventKind] | None,
    first_row: bool,
    target: int | None,
    end: tuple[int, int, int] | None,
) -> _Parsed | None:
    """The runs from the one ``first`` starts on, parsed from a window before it; with a
    ``target`` line, the state there is taken for the index."""
    settled = _settle(path, first, first_window)
    if settled is None and target is None:
        return None  # the full scan from the file's start: read_log's own
    start, first_line, idx = settled or (0, 1, 0)  # (from the start: every run is parsed)
    if keep is None:
        events = _parse_from(path, start, first_line)
        return _Parsed(split_runs(events)[idx:], events, first_line, None)
    tap = Tap(target, first.line, idx) if target is not None else None
    records = records_from(path, first_line, start, False)
    runs = fold(records, keep, tap) if not first_row else list(stream_runs(records, keep, True))
    events = sorted((e for r in runs for e in r.events), key=lambda e: e.line)
    resume = None
    if tap is not None and end is not None:
        offsets = LineOffsets(path, [(first_line, start), (first.line, first.offset), end[:2]])
        taken = Taken(first.offset, first_line, start, idx, runs)
        resume = resume_of(path, tap, taken, offsets, keep, end[2])
    return _Parsed(runs[idx:], events, first_line, resume)


def _go_on(
    path: str, old: Resume, first: Starter, end: tuple[int, int, int] | None, newlines: int
) -> _Parsed | None:
    """The checked run from where an earlier check's index left it, and a newer state
    (``None``: the runs before the state's cannot be had again; read the file)."""
    assert end is not None
    state = old.state
    try:
        head = head_runs(path, old, CHECK_KINDS)
    except ValueError:
        return None
    tap = Tap(newlines - RESUME_LINES, first.line, state.index, ready=old.ready)
    records = records_from(path, old.line, old.offset, old.ready)
    runs = [*head, *fold(records, CHECK_KINDS, tap, state)]
    events = sorted((e for r in runs for e in r.events), key=lambda e: e.line)
    resume: Resume | None = old
    if tap.taken is not None and tap.taken[0] != old.line:
        anchors = [(old.line, old.offset), (state.first_line, old.run_offset), end[:2]]
        taken = Taken(
            old.starter_offset, old.parsed_from_line, old.parsed_from_offset, old.first_index, runs
        )
        resume = resume_of(path, tap, taken, LineOffsets(path, anchors), CHECK_KINDS, end[2])
    return _Parsed(runs, events, old.parsed_from_line, resume or old, resumed_from=old.line)


def _keep_index(
    path: str,
    known: Index | None,
    starters: list[Starter],
    newlines: int,
    scanned_to: int,
    resume: Resume | None,
) -> None:
    """Save what this read learnt, unless the index already says it."""
    if known is not None and known.scanned_to == scanned_to and known.resume is resume:
        return
    kept = tuple(s for s in starters if s.offset < scanned_to)
    scan_index.save(path, Index(scanned_to, newlines, kept, resume))


def _settle(path: str, last: Starter, window: int) -> tuple[int, int, int] | None:
    """Where to start parsing so the last run starts exactly as in the full scan: the window's
    offset and first line, and the index (in the window's runs) of the run holding the last
    starter; ``None`` when only the file's start will do. Only the window up to the end of
    the starter line is parsed for this (what precedes a starter decides where its run
    begins)."""
    span = window
    stop = last.offset + len(last.raw) + 1
    while True:
        start = _line_start(path, max(0, last.offset - span))
        if start == 0:
            return None
        first_line = last.line - _lines_between(path, start, last.offset)
        events = _parse_from(path, start, first_line, limit=stop - start)
        idx = _settled(events, split_runs(events), last.line)
        if idx is not None:
            return start, first_line, idx
        span *= 4


def _earlier_runs(
    path: str, earlier: list[Starter], first_tail_line: int, head_bytes: int
) -> list[Run]:
    """The runs before the parsed window, from their starter lines (and a meaningful run
    before the first starter, from the file's first ``head_bytes``)."""
    stubs: list[Run] = []
    if earlier and earlier[0].offset > 0:
        head = _parse_from(path, 0, 1, limit=min(earlier[0].offset, head_bytes))
        if any(e.kind not in PREAMBLE_KINDS for e in head):
            stamped = [e.timestamp for e in head if e.timestamp is not None]
            stubs.append(
                Run(
                    index=0,
                    events=(),
                    started_at=min(stamped) if stamped else None,
                    ended_at=max(stamped) if stamped else None,
                    first_line=1,
                    last_line=earlier[0].line - 1,
                    server_args=None,
                    outcome=Outcome.UNKNOWN,
                    failure=None,
                    release_hint=None,
                    has_banner=False,
                )
            )
    for i, s in enumerate(earlier):
        nxt = earlier[i + 1].line if i + 1 < len(earlier) else first_tail_line
        stubs.append(_stub(len(stubs), s, nxt))
    return stubs
