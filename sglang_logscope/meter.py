"""How far a long read has come, for the progress line on stderr (issue 33).

The readers call :func:`advance` once per block they read from a log file (a 64 KiB-2 MiB
buffer fill, never per line: a global lookup and, while a meter is on, one locked addition),
so the CLI's progress helper (``render/progress.py``) can show ``37 %`` of the inputs' size.
Nothing is counted unless a :func:`metered` block is open: the library alone pays one global
read per block. The inputs' size is known only for local plain files (:func:`input_size`);
the count is of the lines' bytes as the parser reads them (for kubectl or journald: the SGLang
lines inside, fewer bytes than the file, so the share ends short of the whole). A command that reads a part twice (the tail,
then the whole file) counts it twice: the share shown is capped below 100 until the end.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

__all__ = ["Meter", "advance", "input_size", "metered"]


class Meter:
    """Bytes read so far of ``total`` (``None``: not known)."""

    def __init__(self, total: int | None) -> None:
        self.total = total
        self.done = 0
        self._lock = threading.Lock()  # the check's byte pass reads on two threads

    def add(self, n: int) -> None:
        with self._lock:
            self.done += n

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
    """The bytes of the named logs, when every one is a local regular file that is not gzip
    (not ``-``, a URL, a directory, a device, a link or ``.gz``, whose lines are more bytes
    than the file); else ``None``: no percentage, the bytes read alone."""
    total = 0
    for name in names:
        if name == "-" or "://" in name:
            return None
        try:
            st = os.lstat(name)  # a link is not followed (its size is not the file's)
            if not stat.S_ISREG(st.st_mode) or _gzip(name):
                return None
        except OSError:
            return None
        total += st.st_size
    return total


def _gzip(name: str) -> bool:
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        return os.read(fd, 2) == b"\x1f\x8b"
    finally:
        os.close(fd)
