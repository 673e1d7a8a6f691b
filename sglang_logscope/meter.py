"""How far a long read has come, for the progress line on stderr (issue 33).

The readers call :func:`advance` once per block they read from a log file (a 64 KiB-2 MiB
buffer fill, never per line: a global lookup and, while a meter is on, one locked addition),
so the CLI's progress helper (``render/progress.py``) can show ``37 %`` of the inputs' size.
Nothing is counted unless a :func:`metered` block is open: the library alone pays one global
read per block. The inputs' size is known only for local plain files (:func:`input_size`);
the count is of the lines' bytes as the parser reads them (for kubectl or journald: the SGLang
lines inside, fewer bytes than the file, so the share ends short of the whole). A command that reads a part twice (the tail,
then the whole file) counts it twice: the share shown is capped below 100 until the end.

Of several files, the library also says how many it has gone through: :func:`files_begin`
when a pass over them starts (``grouping``, ``checking``; the count restarts), :func:`file_done`
as each one ends — where worker processes read them, in this process as each result arrives,
with the file's size (their bytes are read in the workers, so counted here only then).
"""

from __future__ import annotations

import os
import stat
from _thread import allocate_lock
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager

from .limits import MAGIC_BYTES, compression_of

__all__ = ["Meter", "advance", "file_done", "files_begin", "input_size", "metered"]


class Meter:
    """Bytes read so far of ``total`` (``None``: not known) and, of several files, how many
    of ``files`` the current pass (``step``) has finished (``files`` ``None``: not counted)."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.done = 0
        self.files: int | None = None
        self.files_done = 0
        self.step = ""
        #: called at the first count (then dropped): the progress line's timer starts with
        #: the reading, so a reader that forks first (``parse/split.py``) forks a process that
        #: runs one thread
        self.on_start: Callable[[], None] | None = None
        # the check's byte pass reads on two threads; a pool's results arrive on another.
        # threading.Lock itself, without threading's import (issue 33, 2: a check runs one)
        self._lock = allocate_lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.done += n
            if self.on_start is not None:
                self._started()

    def begin(self, files: int, step: str = "") -> None:
        """A pass over ``files`` files starts (``step``: what it does, ``""`` to say nothing)."""
        with self._lock:
            self.files, self.files_done, self.step = files, 0, step
            self._started()

    def file_done(self, size: int | None = None) -> None:
        """One more file finished; ``size``: its bytes, read where this meter cannot see."""
        with self._lock:
            self.files_done += 1
            if size:
                self.done += size
            self._started()

    def _started(self) -> None:
        hook, self.on_start = self.on_start, None
        if hook is not None:
            hook()

    def share(self) -> float | None:
        """The part read, 0 to 0.99 (the rest is said by the end), or ``None`` without a size."""
        if not self.total:
            return None
        return min(0.99, self.done / self.total)


_active: Meter | None = None


def advance(n: int) -> None:
    """``n`` more bytes of a log were read (once per block)."""
    meter = _active
    if meter is not None:
        meter.add(n)


def files_begin(files: int, step: str = "") -> None:
    """A pass over ``files`` files starts (see :meth:`Meter.begin`)."""
    meter = _active
    if meter is not None:
        meter.begin(files, step)


def file_done(size: int | None = None) -> None:
    """One more file of the pass finished (see :meth:`Meter.file_done`)."""
    meter = _active
    if meter is not None:
        meter.file_done(size)


@contextmanager
def metered(total: int | None) -> Iterator[Meter]:
    """Count what the readers read while the block runs (one meter per process at a time)."""
    global _active
    before, _active = _active, Meter(total)
    try:
        yield _active
    finally:
        _active = before


def input_size(names: Iterable[str]) -> int | None:
    """The bytes of the named logs, when every one is a local regular file that is not compressed
    (not ``-``, a URL, a directory, a device, a link or a ``.gz``/``.xz``/``.bz2``, whose lines
    are more bytes than the file); else ``None``: no percentage, the bytes read alone."""
    total = 0
    for name in names:
        if name == "-" or "://" in name:
            return None
        try:
            st = os.lstat(name)  # a link is not followed (its size is not the file's)
            if not stat.S_ISREG(st.st_mode) or _compressed(name):
                return None
        except OSError:
            return None
        total += st.st_size
    return total


def _compressed(name: str) -> bool:
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        return compression_of(os.read(fd, MAGIC_BYTES)) is not None
    finally:
        os.close(fd)
