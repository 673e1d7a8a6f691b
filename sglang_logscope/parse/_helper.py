"""Split every other piece of a big log in a helper process, so parsing uses two cores.

The regex split of a piece (:meth:`.bulk.BulkShape.cut`) is most of what a serving log costs;
it depends on the piece alone, so a helper process can do it while this one splits the piece
before and folds the results. Pieces still come out in file order and everything after the
split runs here, so the result is the same event for event (``tests/test_helper.py``).

The helper is a fresh isolated interpreter (``python -I`` started in ``/``: :func:`helper_argv`)
that reads the pieces it is asked for from the file by offset and answers on its stdout
(length-prefixed: the cut of a piece, plain bytes, ``None``s and tuples in ``marshal`` form — data, never code — with
a fingerprint of the bytes it read). So it neither forks a process with threads nor re-runs
anyone's ``__main__``. It gets a piece only once it said it is ready and while it holds fewer
than :data:`DEPTH`, so a slow start or a busy machine costs nothing but the parallelism; a
helper that dies, or read other bytes (a file rewritten meanwhile), has its piece cut here.
"""

from __future__ import annotations

import contextlib
import itertools
import marshal
import os
import struct
import sys
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from .bulk import SERIES, BulkShape, Cut, Fields, LaneSummary, bulk_shape
from .source import RawPieces

if TYPE_CHECKING:
    import subprocess

#: Pieces the helper holds at once (asked for, not yet answered) while it keeps up; one
#: after this process had to wait for it (so it gets about half the pieces, not two thirds).
DEPTH = 2
#: Logs smaller than this are parsed in this process alone (a helper starts in ~0.2 s).
MIN_BYTES = 64 << 20

Piece = tuple[bytes, bool, bool]  # iter_raw_pieces' (data, truncated, piece)


def helper_worth_it(size: int | None) -> bool:
    """A helper pays for its start on a log of ``size`` bytes with a second core free: on a
    busy machine (1-minute load average above the cores less one) it competes for the same
    cores — on the 600 MB long log at load 7 on 2 cores check's streamed end took 6.8-7.6 s of
    wall time with it and 2.8-4.5 s without (CPU 2.3 s and 1.9 s; ``docs/performance.md``)."""
    if size is None or size < MIN_BYTES or os.name != "posix" or getattr(sys, "frozen", False):
        return False  # (a frozen app's executable is not a Python to run ``-m`` with)
    cores, load = cores_and_load()
    return cores >= 2 and load <= cores - 1


def cores_and_load() -> tuple[int, float]:
    """The cores this process may use and the 1-minute load average (0 where none is kept):
    how many other processes can help it (this helper, the ranges of :mod:`.split`)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - no load average here
        load = 0.0
    return cores, load


def cut_pieces(
    pieces: RawPieces, shape: BulkShape, fields: Fields, helper: bool
) -> Iterator[tuple[Piece, Cut | None]]:
    """Each piece with its cut (``None`` for a single line or nothing to take in bulk), in
    order; with ``helper`` and a plain file, every other piece is cut in a helper process."""
    source = iter(pieces)
    first = next(source, None)
    if first is None:
        return
    if not helper or pieces.file is None:
        for item in itertools.chain((first,), source):
            yield item, shape.cut(item[0], fields) if item[2] else None
        return
    worker = _Worker(pieces.file)
    placed = itertools.chain(((first, pieces.offset),), ((i, pieces.offset) for i in source))
    try:
        yield from _interleave(placed, shape, fields, worker)
    finally:
        worker.stop()


def _interleave(
    pieces: Iterator[tuple[Piece, int]], shape: BulkShape, fields: Fields, worker: _Worker
) -> Iterator[tuple[Piece, Cut | None]]:
    backlog: deque[tuple[Piece, bool]] = deque()  # read, not yielded; True: with the helper
    done = False

    def feed() -> None:
        """Keep the helper's hands full (``worker.depth`` pieces) and one piece here to cut
        meanwhile, reading ahead as far as that takes."""
        nonlocal done
        while not done and len(backlog) < 8:
            if worker.inflight >= worker.depth and any(p[2] and not s for p, s in backlog):
                return
            placed = next(pieces, None)
            if placed is None:
                done = True
                return
            item, offset = placed
            sent = item[2] and worker.send(offset, len(item[0]), fields)
            backlog.append((item, sent))

    feed()
    while backlog:
        item, sent = backlog.popleft()
        if sent:
            try:
                cut = worker.receive(item[0])
            except _Lost:
                cut = shape.cut(item[0], fields)
            feed()  # before this piece is folded, so the helper cuts meanwhile
        else:
            cut = shape.cut(item[0], fields) if item[2] else None
        yield item, cut
        feed()


#: What the helper runs: the package is imported from the directory this one came from, and
#: from nowhere else that a user's folder could plant it in (see :func:`helper_argv`).
_BOOT = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from sglang_logscope.parse._helper import _serve; _serve(sys.argv[2])"
)


def helper_argv(path: str) -> list[str]:
    """The helper's command line. ``-I`` (isolated: no current directory or script folder on
    ``sys.path``, no ``PYTHONPATH``, no user site) so that a ``sglang_logscope/`` folder beside
    the log or in the current directory (an unpacked log bundle) is never imported; the
    package's own parent directory is put first instead, which an editable install needs."""
    root = str(Path(__file__).resolve().parent.parent.parent)
    return [sys.executable, "-I", "-c", _BOOT, root, os.path.abspath(path)]


class _Worker:
    """The helper process and this side of its pipes."""

    def __init__(self, path: str) -> None:
        # start-up: process machinery loads only for a big file (3 ms of every summary)
        import select
        import subprocess

        self._select = select.select
        self._timeout = subprocess.TimeoutExpired
        self.inflight = 0  # pieces asked for and not yet received
        self.depth = DEPTH
        self.ready = False
        self.dead = False
        try:
            self.process: subprocess.Popen[bytes] | None = subprocess.Popen(
                helper_argv(path),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,  # unbuffered: select() sees what is there to read
                stderr=subprocess.DEVNULL,
                cwd=os.sep,  # not the user's folder, nor the log's
                bufsize=0,
            )
        except OSError:
            self.process = None
            self.dead = True
            return
        _widen(self.process.stdout)

    def send(self, offset: int, size: int, fields: Fields) -> bool:
        """Have the helper cut the piece at ``offset`` if it is up and idle; ``False`` if not
        (cut it here)."""
        process = self.process
        if self.dead or self.inflight >= self.depth or process is None:
            return False
        assert process.stdin is not None and process.stdout is not None
        try:
            if not self.ready:
                if not self._select([process.stdout], [], [], 0)[0]:
                    return False
                if process.stdout.read(1) != _READY:
                    raise EOFError
                self.ready = True
            process.stdin.write(_ASK.pack(_MODE[fields], offset, size))
            process.stdin.flush()
        except (EOFError, OSError, ValueError):
            self.dead = True
            return False
        self.inflight += 1
        return True

    def receive(self, data: bytes) -> Cut | None:
        """The cut of the piece in hand, which must be ``data`` (:class:`_Lost` if the helper
        died with it or read other bytes there: a file rewritten meanwhile)."""
        self.inflight -= 1
        assert self.process is not None and self.process.stdout is not None
        behind = not self._select([self.process.stdout], [], [], 0)[0]
        self.depth = 1 if behind else DEPTH
        try:
            check, result = marshal.loads(_read_message(self.process.stdout))
        except (EOFError, OSError, ValueError, TypeError):
            self.dead = True
            raise _Lost from None
        if check != _fingerprint(data):
            raise _Lost
        if result is None:
            return None
        fields, guarded, parts, summary, columns = result
        lane = None if summary is None else LaneSummary(*summary)
        return Cut(fields, guarded, parts, lane, columns)

    def stop(self) -> None:
        process = self.process
        if process is None:
            return
        with contextlib.suppress(OSError, ValueError):
            assert process.stdin is not None
            process.stdin.close()  # the helper reads the end of its input and exits
        try:
            process.wait(timeout=2)
        except self._timeout:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


def _widen(pipe: IO[bytes] | None) -> None:
    """Let a pipe hold a whole piece (Linux; elsewhere a write waits for the reader)."""
    if pipe is None:
        return
    with contextlib.suppress(OSError, ImportError, AttributeError):
        # platform: fcntl exists only on POSIX
        import fcntl

        fcntl.fcntl(pipe.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)


def _fingerprint(data: bytes) -> tuple[int, bytes]:
    """Enough of a piece to see that the helper read the same bytes (not a file rewritten in
    place meanwhile): its length, and its first, middle and last 64 bytes."""
    middle = len(data) // 2
    return len(data), data[:64] + data[middle : middle + 64] + data[-64:]


_READY = b"R"
_HEAD = struct.Struct("<I")
_ASK = struct.Struct("<cQI")  # layout (F: full, L: lean, S: series), offset, size
_MODE: dict[Fields, bytes] = {True: b"F", False: b"L", SERIES: b"S"}
_FIELDS = {mode: fields for fields, mode in _MODE.items()}


class _Lost(Exception):
    """The helper process went away with a piece."""


def _read_message(stream: IO[bytes]) -> bytes:
    (size,) = _HEAD.unpack(_read_exactly(stream, _HEAD.size))
    return _read_exactly(stream, size)


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    """``size`` bytes from an unbuffered pipe (which may hand them over in parts)."""
    parts = []
    while size:
        part = stream.read(size)
        if not part:
            raise EOFError
        parts.append(part)
        size -= len(part)
    return b"".join(parts)


def _plain(cut: Cut | None) -> tuple[Any, ...] | None:
    """A cut as tuples and lists only (what ``marshal`` writes)."""
    if cut is None:
        return None
    summary = None if cut.summary is None else tuple(cut.summary)
    return (cut.fields, cut.guarded, cut.parts, summary, cut.columns)


def _serve(path: str) -> None:
    """The helper: cut the pieces of ``path`` it is asked for until its input ends. Its
    answers go to the real stdout; any stray print goes to stderr instead of into the pipe."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    source = sys.stdin.buffer
    shape = bulk_shape()
    fd = os.open(path, os.O_RDONLY)
    out.write(_READY)
    out.flush()
    while True:
        ask = source.read(_ASK.size)
        if len(ask) < _ASK.size:
            return
        mode, offset, size = _ASK.unpack(ask)
        data = os.pread(fd, size, offset)
        cut = shape.cut(data, _FIELDS[mode])
        answer: Any = (_fingerprint(data), _plain(cut))
        payload = marshal.dumps(answer)
        out.write(_HEAD.pack(len(payload)))
        out.write(payload)
        out.flush()


if __name__ == "__main__":
    _serve(sys.argv[1])
