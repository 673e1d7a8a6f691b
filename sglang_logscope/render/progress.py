"""Progress on stderr for work that takes a while, so a long read is not silent (issue 33).

One helper, :func:`working`, used by ``summary``, ``check``, ``runs``, ``events`` and
``report``: a spinner, the label, of several files the pass and how many it has finished
(``checking 2 of 5 files``), the share of the inputs read (``37 %``, where their size is
known: :func:`.meter.input_size`, and the work reads each file once; else the MB read) and
the seconds spent. The readers count
their bytes once per block (:mod:`sglang_logscope.meter`); this line reads the count at most
:data:`REFRESH_PER_S` times a second. Only on a terminal (stderr a TTY, ``TERM`` not
``dumb``, no ``LOGSCOPE_NO_PROGRESS``; of a command that writes as it reads, stdout not the
same terminal) and only once the reading has gone on for :data:`DELAY_S`: quick commands, pipes,
files and CI logs never see it. ``NO_COLOR`` only takes its colours. It is transient (erased
when the work ends) and never on stdout, so the result starts on a clean line.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._text import visible
from ..meter import Meter, metered

#: Seconds of work before the progress line shows.
DELAY_S = 1.0
#: Redraws of the line a second, at most.
REFRESH_PER_S = 4
#: A hidden setting for the tests: the delay in seconds (``0``: at once), so a test sees the
#: line without waiting on a clock.
_DELAY_ENV = "LOGSCOPE_PROGRESS_DELAY"


def _tty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(callable(isatty) and isatty())


def wanted(streaming: bool = False) -> bool:
    """Whether to show progress here: stderr is a terminal that can redraw a line (and, for a
    command that writes its result as it reads, stdout is not that terminal)."""
    if os.environ.get("TERM") == "dumb" or os.environ.get("LOGSCOPE_NO_PROGRESS"):
        return False
    return _tty(sys.stderr) and not (streaming and _tty(sys.stdout))


class _Elapsed:
    """The label, how much is read and the seconds spent, drawn afresh at each refresh."""

    def __init__(self, label: str, started: float, meter: Meter) -> None:
        self.label = label
        self.started = started
        self.meter = meter

    def __rich__(self) -> str:
        return f"{self.label}{self.read()} ({time.monotonic() - self.started:.0f} s)"

    def read(self) -> str:
        """How far the work is: of several files, the pass and ``k of N files``; then the
        share of the bytes (where their size is known), else the MB read (once any are)."""
        meter = self.meter
        parts = []
        if meter.files is not None:
            step = f"{meter.step} " if meter.step else ""
            parts.append(f"{step}{meter.files_done} of {meter.files} files")
        share = meter.share()
        if share is not None:
            parts.append(f"{share:.0%}")
        elif meter.done:
            parts.append(f"{meter.done / 1e6:,.0f} MB read")
        return "".join(f"  {p}" for p in parts)


def _delay(default: float) -> float:
    try:
        return max(0.0, float(os.environ.get(_DELAY_ENV, default)))
    except ValueError:
        return default


@contextmanager
def working(
    label: str, delay: float = DELAY_S, *, total: int | None = None, streaming: bool = False
) -> Iterator[None]:
    """Show ``label`` with a spinner, the share of ``total`` bytes read (when given) and the
    seconds spent, after ``delay``, until the block ends. ``streaming``: the block writes its
    result to stdout as it goes (no line then when stdout is the terminal too)."""
    if not wanted(streaming):
        yield
        return
    with metered(total) as meter:
        yield from _shown(label, _delay(delay), meter)


def _shown(label: str, delay: float, meter: Meter) -> Iterator[None]:
    """The line drawn by a timer after ``delay`` and erased when the work ends."""
    # start-up: threading only where a line may be drawn (stderr a terminal: issue 33, 2)
    import threading

    state: dict[str, Any] = {"status": None, "done": False}
    lock = threading.Lock()
    started = time.monotonic()

    def show() -> None:
        # start-up: rich loads only when the work has already taken a second
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner

        with lock:
            if state["done"]:
                return
            con = Console(file=sys.stderr, highlight=False, markup=False, emoji=False)
            line = Spinner("dots", _Elapsed(visible(label, 120), started, meter))
            # never redirect stdout: a command that writes as it reads (events) writes there
            status = Live(
                line,
                console=con,
                transient=True,
                refresh_per_second=REFRESH_PER_S,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            status.start()
            state["status"] = status

    timer = threading.Timer(delay, show)
    timer.daemon = True
    if delay > 0:
        # its clock starts with the reading: a big file's reader forks its range parsers
        # before (parse/split.py), while this process runs one thread
        meter.on_start = timer.start
    else:  # at once, before the work: what a test sees does not hang on a thread's timing
        show()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["status"] is not None:
                state["status"].stop()
