"""Follow a log file like ``tail -F`` and parse it as it grows.

:class:`Follower` yields the new complete lines of a path on every :meth:`~Follower.poll`,
surviving truncation, rewriting in place, replacement by a new file (new inode) and rotation; it
never sleeps. :class:`EventStream` turns those lines into events as they become final.
"""

from __future__ import annotations

import dataclasses
import enum
import io
import os
import stat as _stat
from collections.abc import Iterable

from .._record import record
from ..errors import LogscopeError
from ..events import Event, EventKind
from ..parse.lines import iter_events
from ..parse.source import MAX_LINE_BYTES
from .phases import PROGRESS_KINDS

_READ_BLOCK = 1 << 16
#: Bytes read per poll at most; the watcher polls again at once while more is waiting.
MAX_READ_PER_POLL = 8 << 20
#: Bytes before the read offset remembered to notice a file rewritten in place.
_SIGNATURE = 64
#: Bytes at the start of the file remembered for the same purpose.
_HEAD = 1024


class Reset(str, enum.Enum):
    """Why the followed file starts over: everything after a reset is a new generation."""

    REPLACED = "replaced"  # the path now names another file (new inode): rotation, rm + recreate
    TRUNCATED = "truncated"  # the file shrank (``> log`` again)
    REWRITTEN = "rewritten"  # the bytes before our offset changed: truncated and rewritten
    CREATED = "created"  # the path was missing and appeared again after we had followed a file


@record
class Chunk:
    """What one :meth:`Follower.poll` found.

    ``reset`` is set when a new generation of the file begins *before* ``lines``;
    ``more`` says that data is still waiting (poll again at once).
    """

    lines: tuple[bytes, ...] = ()
    reset: Reset | None = None
    more: bool = False


class Follower:
    """Yield the new complete lines of ``path`` on every :meth:`poll`, like ``tail -F``.

    With ``skip_existing``, what the file holds at the first poll is skipped (its lines are
    counted in :attr:`skipped_lines` so line numbers stay those of the file). A line longer
    than :data:`~sglang_logscope.parse.source.MAX_LINE_BYTES` is cut. The unfinished last line
    (a tqdm bar redrawn with ``\\r``) is available as :attr:`partial`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        skip_existing: bool = False,
        max_read: int = MAX_READ_PER_POLL,
    ) -> None:
        self.path = os.fspath(path)
        self._skip_existing = skip_existing
        self._max_read = max_read
        self._fd: int | None = None
        self._ident: tuple[int, int] | None = None
        self._offset = 0
        self._buf = bytearray()
        self._skipping = False
        self._sig = b""
        self._head = b""
        self._switch = False
        self._ever_opened = False
        self._polled = False
        #: Lines skipped at the start (``skip_existing``); line numbers count them.
        self.skipped_lines = 0
        #: Whether the file existed at the first poll.
        self.existed_at_start = False
        #: Bytes read so far in the current generation.
        self.bytes_read = 0

    @property
    def partial(self) -> bytes:
        """The unfinished last line (no newline yet), as far as it has been written."""
        return b"" if self._skipping else bytes(self._buf)

    @property
    def offset(self) -> int:
        """Where the next read starts (after :meth:`poll` skipped the existing content: its
        size then, which :attr:`skipped_lines` counts)."""
        return self._offset

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Follower:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def poll(self) -> Chunk:
        first = not self._polled
        self._polled = True
        if self._fd is None:
            if not self._open():
                return Chunk()
            reset = Reset.CREATED if self._ever_opened else None
            self._ever_opened = True
            if first:
                self.existed_at_start = True
                if self._skip_existing:
                    self._skip_to_end()
            lines, more = self._read()
            return Chunk(tuple(lines), reset, more)
        if self._switch:
            return self._reopen(Reset.REPLACED)
        try:
            st: os.stat_result | None = os.stat(self.path)
        except OSError:
            st = None
        fst = os.fstat(self._fd)
        if st is not None and (st.st_ino, st.st_dev) != self._ident:
            # Rotated or replaced: drain what the old file still holds, then switch.
            lines, more = self._read()
            if more:
                return Chunk(tuple(lines), None, True)
            if self._buf and not self._skipping:
                lines.append(bytes(self._buf))
            self._switch = True
            return Chunk(tuple(lines), None, True)
        if fst.st_size < self._offset:
            return self._restart(Reset.TRUNCATED)
        if self._sig and self._rewritten():
            return self._restart(Reset.REWRITTEN)
        # st is None: the path was removed; keep draining the open file until it reappears.
        lines, more = self._read()
        return Chunk(tuple(lines), None, more)

    # -- internals

    def _open(self) -> bool:
        try:
            # non-blocking: opening a FIFO would wait for a writer, past any --timeout
            flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
            fd = os.open(self.path, flags)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise LogscopeError(f"{self.path}: cannot open ({exc.strerror or exc})") from None
        st = os.fstat(fd)

        if _stat.S_ISDIR(st.st_mode):
            os.close(fd)
            raise LogscopeError(f"{self.path}: is a directory, not a log file")
        if not _stat.S_ISREG(st.st_mode):  # a FIFO, /dev/zero: no offsets to follow
            os.close(fd)
            raise LogscopeError(f"{self.path}: watch follows a regular file, not a FIFO or device")
        self._fd = fd
        self._ident = (st.st_ino, st.st_dev)
        self._new_generation()
        return True

    def _new_generation(self) -> None:
        """Read the file from its start again: nothing buffered, skipped or remembered of it."""
        self._offset = 0
        self._buf.clear()
        self._skipping = False
        self._sig = b""
        self._head = b""
        self.bytes_read = 0

    def _skip_to_end(self) -> None:
        """Skip the existing content, counting its lines (so line numbers match the file)."""
        assert self._fd is not None
        end = os.fstat(self._fd).st_size
        count = 0
        offset = 0
        last = b""
        while offset < end:
            data = os.pread(self._fd, min(1 << 20, end - offset), offset)
            if not data:
                break
            count += data.count(b"\n")
            offset += len(data)
            last = data
        self.skipped_lines = count + (1 if last and not last.endswith(b"\n") else 0)
        self._offset = offset
        self._sig = last[-_SIGNATURE:]
        self._head = os.pread(self._fd, min(_HEAD, end), 0) if end else b""
        # The unfinished line of the old content is not ours: skip up to its end.
        self._skipping = bool(last) and not last.endswith(b"\n")

    def _rewritten(self) -> bool:
        assert self._fd is not None
        n = len(self._sig)
        try:
            now = os.pread(self._fd, n, self._offset - n)
            head = os.pread(self._fd, len(self._head), 0) if self._head else b""
        except OSError:
            return False
        return now != self._sig or head != self._head

    def _restart(self, why: Reset) -> Chunk:
        assert self._fd is not None
        self._new_generation()
        self.skipped_lines = 0
        lines, more = self._read()
        return Chunk(tuple(lines), why, more)

    def _reopen(self, why: Reset) -> Chunk:
        self._switch = False
        self.close()
        self.skipped_lines = 0
        if not self._open():
            return Chunk()
        lines, more = self._read()
        return Chunk(tuple(lines), why, more)

    def _read(self) -> tuple[list[bytes], bool]:
        assert self._fd is not None
        out: list[bytes] = []
        total = 0
        while total < self._max_read:
            data = os.pread(self._fd, _READ_BLOCK, self._offset)
            if not data:
                return out, False
            self._offset += len(data)
            self.bytes_read += len(data)
            total += len(data)
            self._sig = (self._sig + data)[-_SIGNATURE:]
            if len(self._head) < _HEAD:
                self._head = (self._head + data)[:_HEAD]
            self._split(data, out)
        return out, True

    def _split(self, data: bytes, out: list[bytes]) -> None:
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                if not self._skipping:
                    self._buf += data[start:]
                    if len(self._buf) > MAX_LINE_BYTES:
                        out.append(bytes(self._buf[:MAX_LINE_BYTES]))
                        self._buf.clear()
                        self._skipping = True
                return
            if self._skipping:
                self._skipping = False
            else:
                self._buf += data[start:nl]
                out.append(bytes(self._buf[:MAX_LINE_BYTES]))
                self._buf.clear()
            start = nl + 1


class EventStream:
    """Incremental parsing: feed complete lines, get events as they become final.

    Every event but the last is final once a later line exists; the last one may still grow
    (a traceback), so it is returned separately as provisional and re-parsed with what follows.
    """

    def __init__(self, first_line: int = 1) -> None:
        self._pending: list[bytes] = []
        self._first = first_line
        self._last: Event | None = None

    def feed(self, lines: Iterable[bytes]) -> list[Event]:
        """Add lines; return the events that became final."""
        self._pending.extend(lines)
        if not self._pending:
            return []
        data = b"\n".join(self._pending) + b"\n"
        shift = self._first - 1
        events = [_shift(e, shift) for e in iter_events(io.BytesIO(data))]
        # blank lines after a traceback are events of their own, but a chain line after them
        # would still join it: the record before them stays provisional too
        cut = len(events) - 1
        while cut > 0 and events[cut].kind is EventKind.TEXT and not events[cut].message.strip():
            cut -= 1
        last = events[cut]
        consumed = last.line - self._first
        self._pending = self._pending[consumed:]
        self._first = last.line
        self._last = last
        return events[:cut]

    @property
    def provisional(self) -> Event | None:
        """The last event parsed, which further lines may still extend."""
        return self._last


def _shift(event: Event, by: int) -> Event:
    if by == 0:
        return event
    return dataclasses.replace(
        event, line=event.line + by, end_line=max(event.end_line, event.line) + by
    )


def parse_partial(partial: bytes, line: int) -> Event | None:
    """A progress bar still being redrawn (no newline yet) as an event, if it is one."""
    if not partial.strip():
        return None
    events = list(iter_events(io.BytesIO(partial)))
    if len(events) != 1 or events[0].kind not in PROGRESS_KINDS:
        return None
    return _shift(events[0], line - 1)
