"""A spinner on stderr for work that takes a while, so a long ``summary`` is not silent.

Only on a terminal (stderr a TTY, ``TERM`` not ``dumb``) and only once the work has run
for :data:`DELAY_S`: quick commands, pipes, files and CI logs never see it. It is transient
(erased when the work ends), so the result on stdout starts on a clean line.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .._text import visible

#: Seconds of work before the spinner shows.
DELAY_S = 1.0


def wanted() -> bool:
    """Whether to show progress here: stderr is a terminal that can redraw a line."""
    if os.environ.get("TERM") == "dumb" or os.environ.get("LOGSCOPE_NO_PROGRESS"):
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(callable(isatty) and isatty())


class _Elapsed:
    """The label and the seconds spent so far, drawn afresh at each refresh of the spinner."""

    def __init__(self, label: str, started: float) -> None:
        self.label = label
        self.started = started

    def __rich__(self) -> str:
        return f"{self.label} ({time.monotonic() - self.started:.0f} s)"


@contextmanager
def working(label: str, delay: float = DELAY_S) -> Iterator[None]:
    """Show ``label`` with a spinner and the seconds spent, after ``delay``, until the block ends."""
    if not wanted():
        yield
        return
    state: dict[str, Any] = {"status": None, "done": False}
    lock = threading.Lock()
    started = time.monotonic()

    def show() -> None:
        # start-up: rich loads only when the work has already taken a second
        from rich.console import Console

        with lock:
            if state["done"]:
                return
            con = Console(file=sys.stderr, highlight=False, markup=False, emoji=False)
            status = con.status(_Elapsed(visible(label, 120), started))
            status.start()
            state["status"] = status

    timer = threading.Timer(delay, show)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        with lock:
            state["done"] = True
            if state["status"] is not None:
                state["status"].stop()
