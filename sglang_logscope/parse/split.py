"""Parse one big log on several cores: the file cut at serving rows into ranges, each range
parsed by a process forked for it, and the records handed back in file order, numbered as one
parse numbers them, so what is folded of them is what one process folds (``tests/test_split.py``).

Why a range can start at a serving row: that row is a headed line, which ends any record open
before it (a traceback, a warning's indented lines), so a range's parse, stopped just before
it, closes what the whole file's parse closes there. The one state a range cannot know is
whether the run before it said it was ready (how a traceback is read: ``lines._closed``): a
range is read as after ready (it starts among serving rows), and where that guess could have
named a record (a traceback before the range's first ready or banner line) and the ranges
before it end otherwise, the range is parsed again in this process, knowing.

A child sends its records through a pipe (the standard library's ``multiprocessing``
connection: data this program's own forked process made, never another's) in batches of
:data:`BATCH_ITEMS`, so memory follows a batch, not a range (a range of text lines is as many
events); rows travel as the fast lane's reading of them (:meth:`.bulk.Rows.folded`), events
and blank runs as themselves. A child that fails, or whose batch read the guess wrongly, has
the rest of its range parsed here (the records before are those this process would make: no
guess was read in them). Only a plain local file is split, where the fast lane is built and
this process runs one thread (a fork beside another thread can deadlock).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Collection, Iterator
from dataclasses import replace
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from ..events import Event, EventKind, move_down
from ..limits import compression_of
from ..meter import advance
from ._helper import cores_and_load
from .adapters import SNIFF_BYTES, InputFormat, detect
from .blanks import Blanks
from .bulk import LaneSummary, Rows, bulk_shape, fast_lane_ready
from .lines import iter_records
from .source import Source
from .urls import is_url

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

#: The least bytes a range is given: below, the pipe's module and the forks cost what the
#: second core saves (``summary -j 2`` of 32 MB and 60 MB logs: 0.21-0.25 s as with ``-j 1``).
MIN_RANGE_BYTES = 32 << 20
#: The most ranges (processes, this one included) one file is cut into.
MAX_RANGES = 16
#: How far past its even share a range's start is looked for (the first serving row there).
WINDOW = 1 << 20
#: What a range starts as: read after the server said it is ready (it starts among rows).
GUESS_READY = True
#: The lines that set the parser's ready state: ready, or a new run's banner.
_SETS_READY = {EventKind.SERVER_READY: True, EventKind.SERVER_ARGS: False}
#: The kinds a traceback gets differently after ready (``lines._Block.close``).
_READ_AS_READY = frozenset({EventKind.EXCEPTION, EventKind.FOREIGN_TRACEBACK})

Record = Event | Rows | Blanks
#: Records a child sends at once (whole records: a block of rows it sends as events counts
#: each); the pipe holds :data:`PIPE_BYTES`, so a child reads on while this process reads the
#: ranges before its own.
BATCH_ITEMS = 2048
PIPE_BYTES = 1 << 20
#: What a child sends, batch by batch: records (rows as (first line, the lane's reading)),
#: the last line so far, the ready state so far (``None``: no line set it), whether the guess
#: was read so far, and whether the range is done.
Batch = tuple[list[Event | Blanks | tuple[int, LaneSummary]], int, bool | None, bool, bool]


class _Reading:
    """What a range's parse showed beyond its records: its last line, the ready state it
    ends with and whether a record before its first ready or banner line read the guess."""

    __slots__ = ("guessed", "lines", "ready")

    def __init__(self, lines: int = 0) -> None:
        self.lines = lines
        self.ready: bool | None = None
        self.guessed = False

    def saw(self, record: Record) -> None:
        if record.__class__ is Event:
            event: Event = record
            self.lines = max(event.line, event.end_line)
            kind = event.kind
            if kind in _SETS_READY:
                self.ready = _SETS_READY[kind]
            elif self.ready is None and kind in _READ_AS_READY:
                self.guessed = True
        else:
            self.lines = record.last_line  # type: ignore[union-attr]


def split_records(
    source: Source, keep: Collection[EventKind], workers: int | None = None, *, fork: bool = True
) -> Iterator[Record] | None:
    """The records of ``source`` as ``iter_records(source, fields=False)`` folds them
    (``stream_runs(..., keep)`` gives the same runs), parsed by ``workers`` processes (``None``:
    the cores free, one range per :data:`MIN_RANGE_BYTES`); ``None`` where the file is not
    cut (see the module). ``fork=False``: every range read in this process, through the same
    hand-over (what the tests compare without processes)."""
    cuts = plan(source, workers, fork)
    if cuts is None:
        return None
    return _joined(os.fspath(source), cuts, frozenset(keep), fork)  # type: ignore[arg-type]


def plan(source: Source, workers: int | None, fork: bool = True) -> list[int] | None:
    """The offsets ``source`` is cut at (its start, each range's, its size), or ``None``.
    Cheap where the answer is no: the size and the process first, the file's head last."""
    if not isinstance(source, (str, os.PathLike)) or not fast_lane_ready():
        return None
    name = os.fspath(source)
    if name == "-" or is_url(name) or not sys.platform.startswith("linux"):
        return None  # (elsewhere no kernel count of threads, and fork is not the default)
    forced = getattr(source, "input_format", InputFormat.auto)
    if forced not in (InputFormat.auto, InputFormat.plain) or getattr(source, "container", None):
        return None  # a wrapped log is read as one stream
    try:
        size = os.stat(name).st_size
    except OSError:
        return None  # (the reader says why in its own words)
    most = size // MIN_RANGE_BYTES if workers is None else size  # (asked: any size, for tests)
    count = min(workers or _free_cores(), MAX_RANGES, most)
    if count < 2 or (fork and (_threads() != 1 or _daemonic())):
        return None
    try:
        with open(name, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return None
    if compression_of(head) is not None or detect(head) is not InputFormat.plain:
        return None  # a compressed or wrapped log (as the reader finds it) is read as one stream
    cuts = _cuts(name, size, count)
    return cuts if len(cuts) > 2 else None


def process_threads(seen: int = 1) -> int:
    """This process's threads as the kernel counts them, as Python's own fork warning does
    (``threading`` does not see a thread started through ``_thread`` or by a C extension:
    pytest-xdist's, a server's); ``seen`` where it cannot say."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return seen


def _threads() -> int:
    """:func:`process_threads`, where ``threading`` counts its own threads."""
    # start-up: threading only for a file big enough to split (issue 33, 2)
    import threading

    return process_threads(threading.active_count())


def _daemonic() -> bool:
    """A pool's worker (a Dask or multiprocessing one): its files already share the cores."""
    mp = sys.modules.get("multiprocessing")
    return mp is not None and bool(mp.current_process().daemon)


def _free_cores() -> int:
    """The cores this process may use less the busy ones (the 1-minute load average)."""
    cores, load = cores_and_load()
    return max(1, cores - int(load))


def _cuts(name: str, size: int, count: int) -> list[int]:
    """The start of each range: at or after each even share, the first serving row."""
    shape = bulk_shape()
    cuts = [0]
    with open(name, "rb", buffering=0) as f:
        for i in range(1, count):
            at = _row_at_or_after(f.fileno(), size * i // count, shape)
            if at is not None and cuts[-1] < at < size:
                cuts.append(at)
    cuts.append(size)
    return cuts


def _row_at_or_after(fd: int, target: int, shape: Any) -> int | None:
    """The offset of the first serving row that starts after ``target`` within
    :data:`WINDOW` bytes, or ``None``."""
    data = os.pread(fd, WINDOW, target)
    first, last = data.find(b"\n"), data.rfind(b"\n")
    if first < 0 or last <= first:
        return None
    chunk = data[first + 1 : last]
    at = target + first + 1
    for part in shape.assemble(chunk, shape.cut(chunk, False), 1):
        if part.__class__ is not bytes:
            return at
        at += len(part) + 1
    return None


def _joined(name: str, cuts: list[int], keep: frozenset[EventKind], fork: bool) -> Iterator[Record]:
    """Every range's records in order: the first read here while the children read theirs."""
    size = cuts[-1]
    # the last range reads on to the end (``-1``), as one parse would
    later = [(lo, -1 if hi == size else hi) for lo, hi in pairwise(cuts[1:])]
    children = [(_Child.start if fork else _Inline)(name, lo, hi, keep) for lo, hi in later]
    try:
        reading = _Reading()
        yield from _read(name, 0, cuts[1], 1, False, reading)
        ready = bool(reading.ready)
        for (lo, hi), child in zip(later, children, strict=True):
            reading = _Reading(reading.lines)
            yield from _from_child(name, (lo, hi, size), child, ready, reading)
            ready = ready if reading.ready is None else reading.ready
    finally:
        for child in children:
            if child is not None:
                child.end()


def _from_child(
    name: str,
    where: tuple[int, int, int],
    child: _Child | _Inline | None,
    ready: bool,
    reading: _Reading,
) -> Iterator[Record]:
    """Bytes ``lo``..``hi`` of ``where = (lo, hi, size)`` from their child's batches, numbered
    after ``reading.lines``; where the child failed, or a batch read the guess and ``ready``
    says otherwise, the rest read here. ``reading`` ends as a read of the range here ends."""
    lo, hi, size = where
    base = reading.lines
    for items, upto, ended, guessed, done in child.batches() if child is not None else ():
        if guessed and ready is not GUESS_READY:
            break
        yield from _moved(items, base)
        reading.lines, reading.ready = base + upto, ended
        if done:
            advance((size if hi < 0 else hi) - lo)  # the progress line's count: the child read it
            return
    if child is not None:
        child.end()
    joined, reading.lines, reading.ready = reading.lines, base, None
    for record in _read(name, lo, hi, base + 1, ready, reading):
        if reading.lines > joined:  # (the records up to there were joined)
            yield record


def _read(
    name: str, lo: int, hi: int, first_line: int, ready: bool, reading: _Reading
) -> Iterator[Record]:
    """The records of bytes ``lo``..``hi`` (``-1``: the end), ``reading`` following them."""
    stop = None if hi < 0 else hi
    for record in iter_records(
        name, first_line=first_line, fields=False, helper=False, start=lo, stop=stop, ready=ready
    ):
        reading.saw(record)
        yield record


def _batches(name: str, lo: int, hi: int, keep: frozenset[EventKind]) -> Iterator[Batch]:
    """A range's records as a child sends them, numbered from 1, read as after ready."""
    reading = _Reading()
    out: list[Event | Blanks | tuple[int, LaneSummary]] = []
    for record in _read(name, lo, hi, 1, GUESS_READY, reading):
        if record.__class__ is not Rows:
            out.append(record)  # type: ignore[arg-type]
        else:
            rows: Rows = record
            lane = rows.lane_reading()
            kept = any(s.kind in keep for s in rows.specs())
            if lane is not None and lane.in_order and not kept:
                out.append((rows.first_line, lane))
            else:  # rows out of time order, or kept: the events the fold takes one by one
                out.extend(rows.events())
        if len(out) >= BATCH_ITEMS:
            yield out, reading.lines, reading.ready, reading.guessed, False
            out = []
    yield out, reading.lines, reading.ready, reading.guessed, True


def _moved(items: list[Event | Blanks | tuple[int, LaneSummary]], lines: int) -> Iterator[Record]:
    """A child's records numbered ``lines`` further down (after the ranges before it)."""
    shape = bulk_shape()
    move_down([item for item in items if item.__class__ is Event], lines)
    for item in items:
        if item.__class__ is tuple:
            first, lane = item
            yield Rows.folded(shape, first + lines, lane)
        elif item.__class__ is Blanks:
            yield replace(item, first_line=item.first_line + lines)
        else:
            yield item  # type: ignore[misc]


class _Inline:
    """A range read in this process as a child reads it (``fork=False``)."""

    def __init__(self, name: str, lo: int, hi: int, keep: frozenset[EventKind]) -> None:
        self.args = (name, lo, hi, keep)

    def batches(self) -> Iterator[Batch]:
        with contextlib.suppress(Exception):  # as a child's failure: the rest is read here
            yield from _batches(*self.args)

    def end(self) -> None:
        pass


class _Child:
    """A forked process reading one range, its batches on a pipe."""

    __slots__ = ("conn", "pid")

    def __init__(self, pid: int, conn: Connection) -> None:
        self.pid = pid
        self.conn: Connection | None = conn

    @classmethod
    def start(cls, name: str, lo: int, hi: int, keep: frozenset[EventKind]) -> _Child | None:
        # start-up: the pipe's module loads only when a big file is split (fcntl: POSIX only)
        import fcntl
        from multiprocessing import Pipe

        reader, writer = Pipe(duplex=False)
        with contextlib.suppress(OSError, AttributeError):  # (a smaller pipe: it waits more)
            fcntl.fcntl(writer.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
        try:
            pid = os.fork()
        except OSError:
            reader.close()
            writer.close()
            return None  # (its range is read here)
        if pid == 0:  # pragma: no cover - the child (its records are compared by the tests)
            code = 1
            try:
                reader.close()
                for batch in _batches(name, lo, hi, keep):
                    writer.send(batch)
                code = 0
            finally:
                os._exit(code)
        writer.close()
        return cls(pid, reader)

    def batches(self) -> Iterator[Batch]:
        """The child's batches as they come, up to its last (none more where it failed)."""
        while self.conn is not None:
            try:
                got = self.conn.recv()
            except (EOFError, OSError):
                return
            if not (isinstance(got, tuple) and len(got) == 5):
                return
            yield got
            if got[4]:
                self.end()

    def end(self) -> None:
        """Close the pipe and reap the child (stopped first: it may not have ended)."""
        if self.conn is not None:
            # start-up: signal loads only where a child was started (a check never does)
            import signal

            self.conn.close()
            self.conn = None
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
