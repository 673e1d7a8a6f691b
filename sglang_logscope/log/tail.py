"""The last run of a big log without parsing the whole file.

A pre-flight ``check`` only needs the log's last run, its line numbers, and how many runs the
file holds. :func:`read_last_run` gets them at the cost of one byte-level pass (count newlines,
find the run banners ``server_args=`` and argparse ``usage: ... [-h]`` lines with a C-level
search) plus a full parse of the end of the file only: from a window before the last run
starter to the end. The parsed window is widened until it provably starts the last run the way
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
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from importlib.util import find_spec
from typing import Any

from ..errors import InputError
from ..events import Event, EventKind
from ..parse.adapters import InputFormat, format_of
from ..parse.header import split_header
from ..parse.lines import iter_events, iter_records
from ..parse.messages import CATALOG
from ..parse.source import MAX_LINE_BYTES, Source, decode_line, describe
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
from .runs import PREAMBLE_KINDS, Outcome, Run, split_runs, stream_runs
from .scan_index import Index, Resume, Starter

#: Files smaller than this are simply parsed whole.
FAST_MIN_BYTES = 4 << 20
#: First window (bytes before the last run starter) parsed; quadrupled until it suffices.
WINDOW = 32 << 10
#: A meaningful run before the first starter is looked for in this many leading bytes.
HEAD_BYTES = 1 << 20
_BLOCK = 2 << 20  # numpy temporaries of a block stay in cache
_BANNER = b"server_args="
_USAGE = b"usage: "
#: b"\nu" read as a little-endian 16-bit number.
_NL_U = 0x0A | ord("u") << 8
#: More '=' than this in a block: look for the banner itself instead.
_DENSE = 2000
_STARTERS = (EventKind.SERVER_ARGS, EventKind.ARGPARSE_USAGE)


@dataclass(frozen=True)
class TailLog(Log):
    """A :class:`Log` of which only the end was parsed: ``events`` are those of the parsed
    window's last runs; ``runs`` holds every run counted (earlier ones from their starter line
    only). ``scanned_from_line`` is the first line parsed (1 = the whole file was)."""

    scanned_from_line: int = 1
    folded: bool = False  # serving lines folded into their runs (no event kept for them)
    first_parsed_run: int = 0  # runs before this index are known from their starter line only
    resumed_from_line: int = 0  # an earlier check's index let the parse go on from here


def scan_of(log: Log) -> dict[str, Any]:
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


def _is_starter(raw: bytes) -> bool:
    text = decode_line(raw[:MAX_LINE_BYTES].rstrip(b"\r"))
    if "\r" in text:
        return False  # a tqdm redraw line: leave it to the full parse
    hit = CATALOG.match(split_header(text).message)
    return hit is not None and hit[0].kind in _STARTERS


@dataclass(frozen=True)
class StarterScan:
    """What the byte-level pass found from ``start`` on: the run starters, the newlines
    counted, and the file's size when it was read."""

    start: int
    starters: list[Starter]
    newlines: int
    size: int


def scan_starters(path: str) -> list[Starter]:
    """Every run-starter line of ``path``, in file order (:func:`scan_region` from its start)."""
    return scan_region(path).starters


def scan_region(path: str, start: int = 0, first_line: int = 1) -> StarterScan:
    """Every run-starter line of ``path`` from offset ``start`` (a line start, numbered
    ``first_line``) on, verified through the parser, in file order.

    One pass over the file in 2 MiB blocks read by ``pread`` (not a memory map: a log
    truncated meanwhile — a relaunch with ``> LOG`` — would be a bus error; here each block's
    size is checked and a short one is a one-line :class:`InputError`). Newlines are counted
    with numpy (the line numbers, half of the blocks in a second thread: numpy runs without
    the GIL); banners are found through their ``=`` (a ``memchr``: serving lines hardly hold
    one; in a block dense with ``=`` the search moves to ``server_args=`` itself), argparse
    usage blocks by ``\nusage: ``.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        size = os.fstat(fd).st_size
        if size <= start:
            return StarterScan(start, [], 0, size)
        return _scan(_Blocks(fd, size, path), start, first_line)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class _Blocks:
    """The file being scanned, read by offset; every read checked against its size."""

    fd: int
    size: int
    path: str

    def read(self, at: int, n: int) -> bytes:
        want = max(0, min(n, self.size - at))
        try:
            data = os.pread(self.fd, want, at)
        except OSError as exc:
            raise InputError(f"{self.path}: read failed ({exc.strerror or exc})") from None
        if len(data) < want:
            raise InputError(
                f"{self.path}: the file shrank while it was read (truncated or rewritten): read it again"
            )
        return data

    def line_start(self, at: int) -> int:
        """The offset where the line holding ``at`` starts."""
        while at > 0:
            low = max(0, at - (1 << 16))
            nl = self.read(low, at - low).rfind(b"\n")
            if nl >= 0:
                return low + nl + 1
            at = low
        return 0


_LEAD = 16  # bytes of the block before, so a banner or usage cut by a block edge is found


#: Less than this to scan (what grew since an index): plain ``bytes`` searches, no numpy.
_SMALL_SCAN = 4 << 20


def _scan(f: _Blocks, start: int, first_line: int) -> StarterScan:
    np: Any = None
    if f.size - start > _SMALL_SCAN:
        # start-up: numpy loads only for a big part of a file to scan
        import numpy as np

    size = f.size
    blocks = range(start, size, _BLOCK)
    newlines = [0] * len(blocks)
    candidates: set[int] = set()
    failed: list[BaseException] = []

    def scan(indexes: range) -> None:
        """Per block: one read, its newlines (numpy, without the GIL), its starters."""
        try:
            for i in indexes:
                base = max(0, blocks[i] - _LEAD)
                data = f.read(base, blocks[i] + _BLOCK - base)
                if np is None:
                    newlines[i] = data.count(b"\n", blocks[i] - base)
                    _find_usage_small(data, base, start, candidates)
                else:
                    body = np.frombuffer(data, dtype=np.uint8, offset=blocks[i] - base)
                    newlines[i] = int(np.count_nonzero(body == 10))
                    _find_usage(np, data, base, start, candidates)
                _find_banners(data, base, f, candidates)
        except BaseException as exc:  # re-raised below
            failed.append(exc)

    half = len(blocks) // 2
    helper = threading.Thread(target=scan, args=(range(half, len(blocks)),), daemon=True)
    helper.start()
    try:
        scan(range(half))
    finally:
        helper.join()
    if failed:
        raise failed[0]
    before = [0]
    for n in newlines:
        before.append(before[-1] + n)
    starters: list[Starter] = []
    for at in sorted(c for c in candidates if c >= start):
        raw = f.read(at, MAX_LINE_BYTES)
        stop = raw.find(b"\n")
        raw = raw if stop < 0 else raw[:stop]
        if _is_starter(raw):
            i = (at - start) // _BLOCK
            line = before[i] + f.read(blocks[i], at - blocks[i]).count(b"\n") + first_line
            starters.append(Starter(line, at, raw))
    return StarterScan(start, starters, before[-1], size)


def _find_usage(np: Any, data: bytes, base: int, start: int, candidates: set[int]) -> None:
    """Line starts of possible argparse usage lines in ``data`` (the file from ``base``): a
    ``\nu`` byte pair, found as a 16-bit number at even and at odd offsets (numpy, without
    the GIL; ``bytes.find`` of ``\nusage: `` stops at every newline and costs 4x more)."""
    if base == start and data.startswith(_USAGE):
        candidates.add(start)
    for shift in (0, 1):
        pairs = np.frombuffer(data, dtype="<u2", count=(len(data) - shift) // 2, offset=shift)
        for k in np.flatnonzero(pairs == _NL_U).tolist():
            at = 2 * k + shift + 1
            if data[at : at + len(_USAGE)] == _USAGE:
                candidates.add(base + at)


def _find_usage_small(data: bytes, base: int, start: int, candidates: set[int]) -> None:
    """:func:`_find_usage` by ``bytes.find`` (a few MB: cheaper than loading numpy)."""
    if base == start and data.startswith(_USAGE):
        candidates.add(start)
    at = data.find(b"\n" + _USAGE)
    while at >= 0:
        candidates.add(base + at + 1)
        at = data.find(b"\n" + _USAGE, at + 1)


def _find_banners(data: bytes, base: int, f: _Blocks, candidates: set[int]) -> None:
    """Line starts of possible banners in ``data`` (the file from ``base``)."""
    pos = data.find(b"=")
    seen = 0
    while pos >= 0 and seen < _DENSE:
        seen += 1
        if pos >= len(_BANNER) - 1 and data[pos - len(_BANNER) + 1 : pos + 1] == _BANNER:
            candidates.add(_start_of(data, base, pos, f))
        pos = data.find(b"=", pos + 1)
    if pos >= 0:  # dense with '=': the rest of the block by the banner itself
        at = data.find(_BANNER, max(0, pos - len(_BANNER) + 1))
        while at >= 0:
            candidates.add(_start_of(data, base, at, f))
            at = data.find(_BANNER, at + 1)


def _start_of(data: bytes, base: int, pos: int, f: _Blocks) -> int:
    nl = data.rfind(b"\n", 0, pos)
    return base + nl + 1 if nl >= 0 else f.line_start(base + pos)


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
CHECK_KINDS = frozenset(EventKind) - {
    EventKind.PREFILL_BATCH,
    EventKind.DECODE_BATCH,
    EventKind.HTTP_ACCESS,
}


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
        return _read_tail(source, path, window, keep, back, first_row)
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
    window: int | None,
    keep: frozenset[EventKind] | None,
    back: int,
    first_row: bool,
) -> Log:
    indexed = (
        window is None
        and scan_index.cache_dir() is not None
        and os.path.getsize(path) >= scan_index.INDEX_MIN_BYTES
    )
    known = scan_index.load(path) if indexed else None
    starters, newlines, size = _starters(path, known)
    if not starters:
        return _whole(source, keep, first_row)
    first = starters[-min(back, len(starters))]
    end = end_anchor(path, size, newlines) if indexed else None
    resumable = keep == CHECK_KINDS and back == 1 and not first_row and end is not None
    old = known.resume if known is not None and resumable else None
    if old is not None and old.starter_offset == first.offset:
        parsed: _Parsed | None = _go_on(path, old, first, end, newlines)
    else:
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
    events = tuple(e for r in runs for e in r.events)
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
