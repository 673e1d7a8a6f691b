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

The end's reading is :mod:`.tail_end`'s, loaded only for a big file (issue 33, 2: a check of a
small log does not import the byte-level pass, the scan index or their types). Falls back to
:func:`~sglang_logscope.log.reader.read_log` for gz input, streams, stdin, small files
(under :data:`FAST_MIN_BYTES`) and files without any run starter.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from importlib.util import find_spec
from typing import TypedDict

from ..errors import InputError
from ..events import EventKind
from ..limits import MAGIC_BYTES, compression_of
from ..parse.adapters import InputFormat, format_of
from ..parse.lines import iter_records
from ..parse.source import Source, describe
from .reader import Log, iter_runs, read_log
from .runs import KeptEvents, Run, stream_runs
from .tail_log import CHECK_KINDS as CHECK_KINDS
from .tail_log import TailLog as TailLog

#: Files smaller than this are simply parsed whole.
FAST_MIN_BYTES = 4 << 20
#: First window (bytes before the last run starter) parsed; quadrupled until it suffices.
WINDOW = 32 << 10
#: A meaningful run before the first starter is looked for in this many leading bytes.
HEAD_BYTES = 1 << 20


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
            magic = f.read(MAGIC_BYTES)
    except OSError:
        return read_log(source)  # let the reader raise its one-line error
    if (
        size < (FAST_MIN_BYTES if min_bytes is None else min_bytes)
        or compression_of(magic) is not None
    ):
        return _whole(source, keep, first_row)
    if format_of(source) is not InputFormat.plain:  # kubectl, Docker, journald: read whole
        return _whole(source, keep, first_row)
    if find_spec("numpy") is None:  # pragma: no cover  (the byte-level scan needs it)
        return _whole(source, keep, first_row)
    # start-up: the byte-level pass, the window's parse and the scan index only for big files
    from .tail_end import read_tail

    try:
        first_window = WINDOW if window is None else window
        found = read_tail(
            source, path, size, window, first_window, HEAD_BYTES, keep, back, first_row
        )
        return found if found is not None else _whole(source, keep, first_row)
    except OSError as exc:  # removed, rotated or unreadable between two reads
        raise InputError(
            f"{path}: cannot read ({exc.strerror or exc}): removed or replaced while it was read?"
        ) from None


def _whole(source: Source, keep: frozenset[EventKind] | None, first_row: bool = False) -> Log:
    """The full scan, streamed through the bulk path when only ``keep`` kinds are wanted."""
    if keep is None:
        return read_log(source)
    runs = tuple(_runs_of(source, keep) if first_row else iter_runs(source, keep))
    events = KeptEvents.chained(r.events for r in runs)
    return TailLog(name=describe(source), events=events, runs=runs, folded=True)


def _runs_of(source: Source, keep: frozenset[EventKind]) -> Iterator[Run]:
    """:func:`~.reader.iter_runs`, each run keeping its first event of every other kind too."""
    return stream_runs(iter_records(source, fields=False), keep, first_row=True)
