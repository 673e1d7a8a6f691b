"""The last run of a big log without parsing the whole file.

A pre-flight ``check`` only needs the log's last run, its line numbers, and how many runs the
file holds. :func:`read_last_run` gets them at the cost of one byte-level pass (count newlines,
find the run banners ``server_args=`` and argparse ``usage: ... [-h]`` lines with a C-level
search: :mod:`.starters`) plus a full parse of the end of the file only: from a window before
the last run starter to the end. A file checked before is read from where that check's scan
index (:mod:`.scan_index`, :mod:`.resume`) left it: the byte-level pass from where it stopped,
the parse from a state taken near the end then. The parsed window is widened until it provably starts the last run the way
a full scan does (a dated, non-preamble event precedes the last run's preamble inside the
window); at the file's start it *is* the full scan.

Runs before the parsed window are known only from their starter line: their index, banner time,
first line and banner arguments; their outcome is ``unknown`` (not read). Runs that began
without a banner or argparse line (time going backwards, a new weight load after a crash) are
not counted before the window; the full scan counts them.

Falls back to :func:`~sglang_logscope.log.reader.read_log` for gz input, streams, stdin, small files
(under :data:`FAST_MIN_BYTES`) and files without any run starter.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from importlib.util import find_spec
from typing import Any, TypedDict

from ..errors import InputError
from ..events import Event, EventKind, kinds_where
from ..parse.adapters import InputFormat, format_of
from ..parse.lines import iter_events, iter_records
from ..parse.source import Source, describe
from . import scan_index
from .reader import Log, iter_runs, read_log
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
from .runs import PREAMBLE_KINDS, KeptEvents, Outcome, Run, split_runs, stream_runs
from .scan_index import Index, Resume, Starter
from .starters import scan_region

#: Files smaller than this are simply parsed whole.
FAST_MIN_BYTES = 4 << 20
#: First window (bytes before the last run starter) parsed; quadrupled until it suffices.
WINDOW = 32 << 10
#: A meaningful run before the first starter is looked for in this many leading bytes.
HEAD_BYTES = 1 << 20


@dataclass(frozen=True)
class TailLog(Log):
    """A :class:`Log` of which only the end was parsed: ``events`` are those of the parsed
    window's last runs; ``runs`` holds every run counted (earlier ones from their starter line
    only). ``scanned_from_line`` is the first line parsed (1 = the whole file was)."""

    scanned_from_line: int = 1
    folded: bool = False  # serving lines folded into their runs (no event kept for them)
    first_parsed_run: int = 0  # runs before this index are known from their starter line only
    resumed_from_line: int = 0  # an earlier check's index let the parse go on from here


class ScanIndexNote(TypedDict):
    """A check that went on from its scan index: from which line, and what that means."""

    resumed_from_line: int
    note: str


class Scan(TypedDict):
    """How a log was read (``scan`` of ``check``'s JSON)."""

    index: ScanIndexNote | None
    parsed_from_line: int
    earlier_runs: str
    serving_lines: str
    whole_run_read: str


def scan_of(log: Log) -> Scan:
    """How a log was read, for a report to say (JSON-ready): from which line it was parsed,
    how earlier runs are known, and whether serving lines were folded rather than kept."""
    first = log.scanned_from_line if isinstance(log, TailLog) else 1
    folded = isinstance(log, TailLog) and log.folded
    resumed = log.resumed_from_line if isinstance(log, TailLog) else 0
    return {
        "index": {
            "resumed_from_line": resumed,
            "note": f"lines {first:,}-{resumed - 1:,} were read by an earlier check of this file "
            "and kept in its scan index (the file's head, the bytes before where it stopped and "
            f"16 samples are unchanged); read now: line {resumed:,} on. LOGSCOPE_NO_CACHE=1 "
            "reads the whole file",
        }
        if resumed
        else None,
        "parsed_from_line": first,
        "earlier_runs": "from their starter lines only (outcome unknown)"
        if first > 1
        else "parsed",
        "serving_lines": "folded: counted into their run (lines, times, kinds), no event kept"
        if folded
        else "kept as events",
        "whole_run_read": "every line of the checked run is read (a crash or a clock jump "
        "in its middle is found)",
    }


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


#: The kinds the check keeps of the parsed runs: every kind but the serving lines (batch and
#: access lines, folded in as counts and times). Lines the catalog does not know are kept:
#: a file of nothing but such lines is named by its first ones (LS040).
CHECK_KINDS = kinds_where(lambda r: not r.serving_row)


def read_last_run(
    source: Source,
    *,
    min_bytes: int | None = None,
    window: int | None = None,
    keep: frozenset[EventKind] | None = None,
    back: int = 1,
    first_row: bool = False,
) -> Log:
    """A :class:`Log` whose last run (and run count) equal the full scan's, reading only the
    end of big plain files; any other source is parsed whole with ``read_log``. ``back``: the
    runs from the ``back``-th last run starter on are parsed (``watch`` wants the run before
    the last one too, for its outcome); ``first_row``: see :func:`~.runs.stream_runs`.

    With ``keep`` (e.g. :data:`CHECK_KINDS`) the parsed end streams through the bulk path:
    the runs' ``events`` hold only those kinds, every other figure (lines, times, outcome,
    failure, release range) is the full scan's, and a long last run costs no object per
    serving line."""
    if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
        return _whole(source, keep, first_row)
    path = os.fspath(source)
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            magic = f.read(2)
    except OSError:
        return read_log(source)  # let the reader raise its one-line error
    if size < (FAST_MIN_BYTES if min_bytes is None else min_bytes) or magic == b"\x1f\x8b":
        return _whole(source, keep, first_row)
    if format_of(source) is not InputFormat.plain:  # kubectl, Docker, journald: read whole
        return _whole(source, keep, first_row)
    if find_spec("numpy") is None:  # pragma: no cover  (the byte-level scan needs it)
        return _whole(source, keep, first_row)
    try:
        return _read_tail(source, path, size, window, keep, back, first_row)
    except OSError as exc:  # removed, rotated or unreadable between two reads
        raise InputError(
            f"{path}: cannot read ({exc.strerror or exc}): removed or replaced while it was read?"
        ) from None


@dataclass(frozen=True)
class _Parsed:
    """The parsed end of a file: the runs from the checked one on, their kept events, the
    first line parsed, and the state to go on from next time (if any)."""

    runs: list[Run]
    events: list[Event]
    from_line: int
    resume: Resume | None
    resumed_from: int = 0  # the line an index let the parse go on from (0: parsed it all)


def _read_tail(
    source: Source,
    path: str,
    size: int,
    window: int | None,
    keep: frozenset[EventKind] | None,
    back: int,
    first_row: bool,
) -> Log:
    indexed = (
        window is None and size >= scan_index.INDEX_MIN_BYTES and scan_index.cache_dir() is not None
    )
    known = scan_index.load(path) if indexed else None
    starters, newlines, size = _starters(path, known)  # (the size as the byte pass saw it)
    if not starters:
        return _whole(source, keep, first_row)
    first = starters[-min(back, len(starters))]
    end = end_anchor(path, size, newlines) if indexed else None
    resumable = keep == CHECK_KINDS and back == 1 and not first_row and end is not None
    old = known.resume if known is not None and resumable else None
    parsed: _Parsed | None = None
    if old is not None and old.starter_offset == first.offset:
        parsed = _go_on(path, old, first, end, newlines)
    if parsed is None:  # no state for this run (or its runs before cannot be had again)
        target = newlines - RESUME_LINES if resumable else None
        parsed = _parse_end(path, first, window, keep, first_row, target, end)
    if parsed is None:
        return _whole(source, keep, first_row)
    tail_runs = parsed.runs
    first_tail_line = tail_runs[0].first_line
    stubs = _earlier_runs(path, [s for s in starters if s.line < first_tail_line], first_tail_line)
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
    window: int | None,
    keep: frozenset[EventKind] | None,
    first_row: bool,
    target: int | None,
    end: tuple[int, int, int] | None,
) -> _Parsed | None:
    """The runs from the one ``first`` starts on, parsed from a window before it; with a
    ``target`` line, the state there is taken for the index."""
    settled = _settle(path, first, WINDOW if window is None else window)
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


def _whole(source: Source, keep: frozenset[EventKind] | None, first_row: bool = False) -> Log:
    """The full scan, streamed through the bulk path when only ``keep`` kinds are wanted."""
    if keep is None:
        return read_log(source)
    runs = tuple(_runs_of(source, keep) if first_row else iter_runs(source, keep))
    events = KeptEvents.chained(r.events for r in runs)
    return TailLog(name=describe(source), events=events, runs=runs, folded=True)


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


def _runs_of(source: Source, keep: frozenset[EventKind]) -> Iterator[Run]:
    """:func:`~.reader.iter_runs`, each run keeping its first event of every other kind too."""
    return stream_runs(iter_records(source, fields=False), keep, first_row=True)


def _earlier_runs(path: str, earlier: list[Starter], first_tail_line: int) -> list[Run]:
    """The runs before the parsed window, from their starter lines (and a meaningful run
    before the first starter, from the file's first :data:`HEAD_BYTES`)."""
    stubs: list[Run] = []
    if earlier and earlier[0].offset > 0:
        head = _parse_from(path, 0, 1, limit=min(earlier[0].offset, HEAD_BYTES))
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
