"""What a big log already held when ``watch`` began, read the way ``check`` reads it.

``watch --launched-at`` on an existing file has to know the file's runs (which one is the
launch's, what ran before it). Fed line by line through the follower, a 600 MB log took 103 s
and 3.5 GB. Here the runs come from :func:`~sglang_logscope.log.tail.read_last_run` (the byte
scan for run starters, then the last two runs, or up to four when the launch's run or the one before it is
older, streamed with their serving lines folded), and
the watcher gets the events that reading keeps (every kind but batch and access lines, and a
run's first line of each of those: the phase view enters "ready" at the first batch line)
plus the serving events of the file's last :data:`LAST_WINDOW` bytes (the run's last lines). The last event comes as raw lines, since the
writer may still extend it (a traceback being printed).
"""

from __future__ import annotations

import io
import os
import stat

from .._record import record
from ..events import Event
from ..limits import MAGIC_BYTES, compression_of
from ..log import tail
from ..log.runs import Run
from ..parse.adapters import InputFormat, format_of
from ..parse.lines import iter_events

#: The end of the existing content parsed in full (serving lines included).
LAST_WINDOW = 64 << 10


@record
class Existing:
    """The runs and events of a file's first ``size`` bytes (its first ``lines`` lines)."""

    runs: tuple[Run, ...]  # runs before ``exact_from`` are known from their starter line only
    exact_from: int  # the first line of the first run parsed
    events: tuple[Event, ...]  # final events in file order (the last one is in ``last_raw``)
    last_raw: tuple[bytes, ...]  # the raw lines of the last event, which may still grow
    last_line: int  # the line number of ``last_raw[0]``
    lines: int  # complete lines read


def worth_it(path: str) -> bool:
    """Is ``path`` a plain log big enough for :func:`read_existing`?"""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block the open (the follower refuses it)
            return False
        size = st.st_size
        with open(path, "rb") as f:
            magic = f.read(MAGIC_BYTES)
    except OSError:
        return False
    if size < tail.FAST_MIN_BYTES or compression_of(magic) is not None:
        return False
    return format_of(path) is InputFormat.plain


def read_existing(path: str, size: int, skipped: int, back: int = 2) -> Existing | None:
    """The file's content up to byte ``size`` (where the follower skipped to, counting
    ``skipped`` lines, an unfinished last one included), its runs parsed from the ``back``-th
    last run starter on: ``None`` when
    it is not a plain log big enough, or its last event began before the last window (then
    the follower reads the file from its start, as it does for a small one)."""
    if not worth_it(path):
        return None
    log = tail.read_last_run(path, keep=tail.CHECK_KINDS, back=back, min_bytes=0, first_row=True)
    if not isinstance(log, tail.TailLog) or not log.runs:
        return None
    window, partial = _last_window(path, size)
    if partial:  # the follower skips the unfinished line: its numbering would be off by one
        return None
    lines = skipped
    first = lines - window.count(b"\n") + 1
    raw = window.split(b"\n")[:-1]
    serving = [
        e
        for e in iter_events(io.BytesIO(window), first_line=first)
        if e.kind not in tail.CHECK_KINDS
    ]
    kept = [e for e in log.events if e.line <= lines]
    spans = max((e.end_line for e in kept if e.line < first), default=0)
    by_line = {e.line: e for e in (*kept, *(e for e in serving if e.line > spans))}
    events = [by_line[n] for n in sorted(by_line)]
    if not events or events[-1].line < first:
        return None
    last = events[-1]
    parsed = log.runs[log.first_parsed_run] if log.first_parsed_run < len(log.runs) else None
    return Existing(
        runs=tuple(log.runs),
        exact_from=parsed.first_line if parsed is not None else lines + 1,
        events=tuple(events[:-1]),
        last_raw=tuple(raw[last.line - first :]),
        last_line=last.line,
        lines=lines,
    )


def _last_window(path: str, size: int) -> tuple[bytes, int]:
    """The complete lines in the last :data:`LAST_WINDOW` bytes before ``size`` (from a line
    start), and 1 when an unfinished last line was left out (the follower skips it)."""
    with open(path, "rb") as f:
        low = max(0, size - LAST_WINDOW)
        f.seek(low)
        data = f.read(size - low)
    if low:
        nl = data.find(b"\n")
        low, data = (low + nl + 1, data[nl + 1 :]) if nl >= 0 else (size, b"")
    end = data.rfind(b"\n")
    return data[: end + 1], int(end + 1 < len(data))
