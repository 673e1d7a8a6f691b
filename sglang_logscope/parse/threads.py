"""Read and cut a big plain file's pieces on a thread pool, so one ``summary`` uses several
cores.

The C fast lane (``_rowscan.rows_summary`` / ``series_columns``) and ``os.pread`` release the
GIL, so for a lean or series read of a plain file (what ``summary``, ``runs`` and the report's
series read) threads read the pieces ahead by offset and cut them
(:meth:`.bulk.BulkShape.cut`) while this thread folds the ones before, in file order: the
result is the same, piece for piece, as cutting them in turn (``tests/test_threads.py``).

:data:`THREADS` says how many (``LOGSCOPE_THREADS``; default the cores this process may use,
at most :data:`MAX_THREADS`); files under :data:`MIN_BYTES` are read in this thread alone.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Executor, Future
from typing import Final

from .bulk import BulkShape, Cut, Fields

#: Threads at most by default (the fold in this thread is the limit past about this many).
MAX_THREADS: Final = 8
#: Files smaller than this are read in this thread alone (a pool costs more than it gives).
MIN_BYTES: Final = 16 << 20
#: Pieces read or cut ahead per thread (bounded memory: this many pieces of 256 KB each).
AHEAD: Final = 4


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # platform: not on Linux
        return os.cpu_count() or 1


class _Threads:
    """How many threads read a big file (1: this thread alone). ``LOGSCOPE_THREADS=N`` sets
    it; so does ``THREADS.count = N``."""

    def __init__(self) -> None:
        given = os.environ.get("LOGSCOPE_THREADS", "")
        self.count = int(given) if given.isdigit() and int(given) > 0 else None

    def for_size(self, size: int | None) -> int:
        """Threads for a plain file of ``size`` bytes (left to read)."""
        if size is None or size < MIN_BYTES:
            return 1
        return self.count if self.count is not None else min(MAX_THREADS, _cores())


THREADS: Final = _Threads()


def cut_ahead(
    items: Iterable[tuple[bytes, bool, bool]],
    shape: BulkShape,
    fields: Fields,
    pool: Executor,
    ahead: int,
) -> Iterator[tuple[tuple[bytes, bool, bool], Cut | None]]:
    """Each piece with its cut (:meth:`.bulk.BulkShape.cut`, run on ``pool``), in order."""
    window: deque[tuple[tuple[bytes, bool, bool], Future[Cut | None] | None]] = deque()
    source = iter(items)
    try:
        for item in source:
            window.append((item, pool.submit(shape.cut, item[0], fields) if item[2] else None))
            if len(window) > ahead:
                done, job = window.popleft()
                yield done, job.result() if job is not None else None
        for done, job in window:
            yield done, job.result() if job is not None else None
    finally:
        stop = getattr(source, "close", None)
        if stop is not None:  # the reads ahead end here, before the pool shuts down
            stop()
