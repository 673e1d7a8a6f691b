"""Open any log source and yield its physical lines, decoded and cleaned, in constant memory."""

from __future__ import annotations

import io
import os
import shlex
import stat
import sys
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import IO, Union, cast

from .._text import lazy_regex
from ..errors import InputError
from ..limits import COMPRESSED, MAGIC_BYTES, compression_of
from ..meter import advance
from .adapters import SNIFF_BYTES, adapt
from .urls import is_url, local_path

#: Lines longer than this are cut (and flagged): a log line is never allowed to eat the memory.
MAX_LINE_BYTES = 1 << 20
#: A compressed source (gzip, xz, bzip2: :data:`..limits.COMPRESSED`) may expand to at most
#: max(UNPACKED_MIN_CAP, UNPACKED_MAX_RATIO x its size): beyond that it is treated as a
#: decompression bomb, not a log.
UNPACKED_MIN_CAP = 4 << 30
UNPACKED_MAX_RATIO = 1000
#: ... and to at most max(UNPACKED_MIN_LINES, UNPACKED_LINES_PER_BYTE x its size) lines: a few
#: KB of compressed empty lines are millions of events (issue 20). A real log has ~0.1 line
#: per compressed byte.
UNPACKED_MIN_LINES = 200_000
UNPACKED_LINES_PER_BYTE = 4
_READ_BLOCK = 1 << 16

#: CSI / OSC / single-char escape sequences. Bounded, no nested quantifiers: linear time.
_ANSI = lazy_regex(r"\x1b(?:\[[0-?]*+[ -/]*+[@-~]|\][^\x07\x1b]*+(?:\x07|\x1b\\)?|[@-Z\\-_])")

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]


def strip_ansi(text: str) -> str:
    """Remove terminal escape sequences (colours, OSC links) from ``text``."""
    if "\x1b" not in text:
        return text
    return _ANSI.sub("", text)


def describe(source: Source) -> str:
    """A human name for a source, for messages and JSON ``log`` fields (a URL's credentials
    masked: :func:`..netpolicy.redact`)."""
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    if name is None:
        name = str(getattr(source, "name", "<stream>"))
    if "://" not in name:  # redact returns such a name as it is
        return name
    # start-up: the network policy (and its sockets) only for a name that holds a URL
    from ..netpolicy import redact

    return redact(name)


def _open_binary(source: Source) -> tuple[IO[bytes], bool]:
    """Return a binary stream of ``source``'s SGLang lines (out of a kubectl, Docker, journald
    or compose wrapping: :mod:`.adapters`) and whether we own (must close) it."""
    stream, owned = _open_raw(source)
    try:
        return adapt(stream, source, describe(source)), owned
    except BaseException:
        if owned:
            stream.close()
        raise


def _open_raw(source: Source) -> tuple[IO[bytes], bool]:
    """Return a binary stream for ``source`` and whether we own (must close) it."""
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        if name == "-":
            return _stdin(), False
        if is_url(name):
            local = local_path(name)
            if local is None:
                # start-up: fsspec's reader and the network policy only for a URL
                from .remote import open_url

                return open_url(name), True
            name = local
        path = Path(name)
        try:
            st = path.stat()
        except FileNotFoundError:
            raise InputError(f"{name}: no such file") from None
        except PermissionError:
            raise InputError(f"{name}: permission denied") from None
        except OSError as exc:
            raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{name}: is a directory, not a log file")
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):  # /dev/zero never ends
            raise InputError(f"{name}: is a device, not a log file")
        try:
            # a 64 KiB buffer: the first lines can be peeked at to detect a wrapping
            raw: IO[bytes] = open(path, "rb", buffering=SNIFF_BYTES)  # noqa: SIM115 - closed by the caller's finally
        except PermissionError:
            raise InputError(f"{name}: permission denied") from None
        except OSError as exc:
            raise InputError(f"{name}: cannot open ({exc.strerror or exc})") from None
        head = raw.peek(MAGIC_BYTES)[:MAGIC_BYTES] if isinstance(raw, io.BufferedReader) else b""
        packed = compression_of(head)
        if packed is not None:
            return _unpacked(raw, packed, name, st.st_size), True
        return raw, True
    if isinstance(source, io.TextIOBase):
        buffer = getattr(source, "buffer", None)
        if buffer is not None:
            return buffer, False
        return cast(IO[bytes], io.BufferedReader(_TextAsBytes(source))), False
    return source, False  # type: ignore[return-value]


def _gzip(raw: IO[bytes]) -> IO[bytes]:
    # start-up: gzip only for a gzip log
    import gzip

    return cast(IO[bytes], gzip.GzipFile(fileobj=raw, mode="rb"))


def _xz(raw: IO[bytes]) -> IO[bytes]:
    # start-up: lzma only for an xz log
    import lzma

    return lzma.LZMAFile(raw)


def _bzip2(raw: IO[bytes]) -> IO[bytes]:
    # start-up: bz2 only for a bzip2 log
    import bz2

    return bz2.BZ2File(raw)


#: How each format of :data:`..limits.COMPRESSED` that logscope reads is opened (one a row
#: without a command: ``tests/test_compressed.py``).
_UNPACKERS: dict[str, Callable[[IO[bytes]], IO[bytes]]] = {
    "gzip": _gzip,
    "xz": _xz,
    "bzip2": _bzip2,
}


def _stdin() -> IO[bytes]:
    """Standard input, decompressed where it is gzip, xz or bzip2 (``cat x.log.gz | logscope
    summary -``); left open for the caller."""
    stdin = sys.stdin.buffer
    head = stdin.peek(MAGIC_BYTES)[:MAGIC_BYTES] if isinstance(stdin, io.BufferedReader) else b""
    packed = compression_of(head)
    return stdin if packed is None else _unpacked(stdin, packed, "-", 0, owned=False)


def _unpacked(raw: IO[bytes], packed: str, name: str, size: int, owned: bool = True) -> IO[bytes]:
    """``raw`` (a file of ``size`` bytes, 0 where not known, in format ``packed``; closed with
    the result where ``owned``) decompressed under the bomb caps, or one line saying what
    writes it out where logscope does not read that format."""
    opener = _UNPACKERS.get(packed)
    if opener is None:
        if owned:
            raw.close()
        command = next(c for n, _, c in COMPRESSED if n == packed)
        how = (
            f"pipe it through {command} first"
            if name == "-"
            else f"pipe it in ({command} {shlex.quote(name)} | logscope COMMAND -)"
        )
        raise InputError(f"{name}: {packed}-compressed, which logscope does not read: {how}")
    counted = _Counted(raw, owned)
    return cast(IO[bytes], _Capped(opener(cast(IO[bytes], counted)), counted, packed, size, name))


class _Counted:
    """A compressed stream, the bytes read from it counted (a stream of unknown size, stdin,
    is held to the bomb caps by what has been read of it so far), closed only if ``owned``."""

    def __init__(self, raw: IO[bytes], owned: bool) -> None:
        self.raw = raw
        self.owned = owned
        self.taken = 0

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.taken += len(data)
        return data

    def close(self) -> None:
        if self.owned:
            self.raw.close()


class _Capped:
    """A decompressed stream that refuses to expand past the bomb caps (a decompression bomb
    stops here: ``UNPACKED_*`` times the compressed size, or the bytes read so far where the
    size is not known); the decompressor's own errors as one line."""

    def __init__(self, inner: IO[bytes], raw: _Counted, packed: str, size: int, name: str) -> None:
        self._inner = inner
        self._raw = raw  # (a decompressor given a file object does not close it)
        self._packed = packed
        self._size = size
        self._name = name
        self._seen = 0
        self._lines = 0

    def read(self, size: int = -1) -> bytes:
        try:
            data = self._inner.read(size)
        except InputError:
            raise
        # any decompressor's error (zlib's, LZMAError, bz2's OSError) is the file's
        except Exception as exc:
            raise InputError(f"{self._name}: read failed ({exc})") from None
        self._seen += len(data)
        self._lines += data.count(b"\n")
        packed = max(self._size, self._raw.taken)  # (a file's size; a stream's bytes so far)
        cap = max(UNPACKED_MIN_CAP, UNPACKED_MAX_RATIO * packed)
        lines = max(UNPACKED_MIN_LINES, UNPACKED_LINES_PER_BYTE * packed)
        what = f"{self._name}: {self._packed} data expands past"
        if self._seen > cap:
            raise InputError(f"{what} {cap >> 20} MiB: refusing it as a decompression bomb")
        if self._lines > lines:
            raise InputError(f"{what} {lines:,} lines: refusing it as a decompression bomb")
        return data

    def close(self) -> None:
        try:
            self._inner.close()
        finally:
            self._raw.close()


class _TextAsBytes(io.RawIOBase):
    """Adapt a text stream without a ``.buffer`` (e.g. ``io.StringIO``) to bytes."""

    def __init__(self, text: io.TextIOBase) -> None:
        self._text = text
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            chunk = self._text.read(_READ_BLOCK)
            if not chunk:
                return 0
            self._pending = chunk.encode("utf-8", "surrogateescape")
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def iter_raw_lines(source: Source | RawPieces) -> Iterator[tuple[bytes, bool]]:
    """Yield ``(line_bytes_without_newline, truncated)`` for every physical line.

    Splits on ``\\n`` only (``\\r`` is kept so tqdm redraws stay one line); a trailing ``\\r``
    (CRLF) is removed. Lines over :data:`MAX_LINE_BYTES` are cut and flagged, and the rest of
    such a line is skipped without being held in memory.
    """
    for data, truncated, piece in iter_raw_pieces(source):
        if piece:
            for line in data.split(b"\n"):
                yield finish_line(line), False
        else:
            yield data, truncated


#: Read size of :func:`iter_raw_pieces` (a piece is at most about this long).
PIECE_BYTES = 1 << 18


def iter_raw_pieces(
    source: Source | RawPieces, start: int = 0, stop: int | None = None
) -> RawPieces:
    """The physical lines of ``source`` in pieces, as ``(data, truncated, piece)``.

    A piece (``piece`` true) is one or more whole lines joined by ``\\n``, without the last
    newline and with any CRLF ``\\r`` kept, each line shorter than :data:`MAX_LINE_BYTES`:
    what bulk parsing splits at once. Otherwise ``data`` is one line as
    :func:`iter_raw_lines` gives it (CRLF removed, cut and flagged if over the limit).
    ``start``: read a plain file from this offset (a line start) on; ``stop``: up to this
    offset (a line start, or the end), not beyond.
    """
    return source if isinstance(source, RawPieces) else RawPieces(source, start, stop)


class RawPieces:
    """:func:`iter_raw_pieces`; while iterating, ``offset`` is where the last piece starts in
    ``file`` (a plain file's path, else ``None``): another process can read it there."""

    def __init__(self, source: Source, start: int = 0, stop: int | None = None) -> None:
        self.source = source
        self.file: str | None = None
        self.offset = start
        self.start = start
        self.stop = stop
        #: for a wrapped log (:mod:`.adapters`), each line's outer time, by line number - 1
        self.received: list[datetime | None] | None = None

    def __iter__(self) -> Iterator[tuple[bytes, bool, bool]]:
        source = self.source
        stream, owned = _open_binary(source)
        raw = getattr(stream, "raw", None)
        if owned and isinstance(raw, io.FileIO):  # the file itself, not its unwrapped lines
            self.file = os.fspath(source)  # type: ignore[arg-type]
        self.received = getattr(raw, "received", None)
        try:
            at = 0  # where ``block`` starts in the stream
            if self.start:
                stream.seek(self.start)
                at = self.start
            pending = b""
            skipping = False  # inside a line already cut: drop the rest of it
            stop = self.stop
            while True:
                try:
                    block = stream.read(
                        PIECE_BYTES if stop is None else min(PIECE_BYTES, stop - at)
                    )
                except (EOFError, OSError) as exc:  # gzip.BadGzipFile is an OSError
                    raise InputError(f"{describe(source)}: read failed ({exc})") from None
                if not block:
                    break
                advance(len(block))  # the progress line's count: once per block
                last = block.rfind(b"\n")
                if last < 0:
                    if not skipping:
                        pending += block
                        if len(pending) > MAX_LINE_BYTES:
                            yield finish_line(pending[:MAX_LINE_BYTES]), True, False
                            pending = b""
                            skipping = True
                    at += len(block)
                    continue
                first = block.find(b"\n")
                if skipping or len(pending) + first > MAX_LINE_BYTES:
                    if not skipping:
                        yield finish_line((pending + block[:first])[:MAX_LINE_BYTES]), True, False
                    skipping = False
                    if last > first:
                        self.offset = at + first + 1
                        yield block[first + 1 : last], False, True
                else:
                    self.offset = at - len(pending)
                    # one copy (a slice of ``block`` then the concatenation would be two)
                    yield b"".join((pending, memoryview(block)[:last])), False, True
                pending = block[last + 1 :]
                at += len(block)
            if pending and not skipping:
                yield finish_line(pending), False, False
        finally:
            if owned:
                stream.close()


def finish_line(line: bytes) -> bytes:
    """A physical line without its CRLF ``\\r``."""
    return line[:-1] if line.endswith(b"\r") else line


def decode_line(raw: bytes) -> str:
    """Decode one line: invalid UTF-8 replaced, NULs dropped, ANSI escapes removed."""
    text = raw.decode("utf-8", "replace")
    if "\x00" in text:
        text = text.replace("\x00", "")
    return strip_ansi(text)
