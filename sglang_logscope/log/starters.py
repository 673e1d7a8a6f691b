"""The byte-level pass over a big log: every run starter and the newline count.

``check`` reads a big log's last run only; to find it, and number its lines, it needs the
file's run starters (``server_args=`` banners, argparse ``usage:`` lines) and its newlines.
:func:`scan_region` finds them at C speed: 2 MiB blocks read by ``pread``, newlines counted
with numpy in two threads (numpy runs without the GIL), banners found through their ``=``
and usage lines through their ``\nu`` byte pair, or all three by the C scan of
:mod:`..parse.fastscan` where it was built (also without the GIL); each candidate is then
verified through the parser. Without the C scan, a region of a few MB (what grew since a scan
index was kept) is searched with plain ``bytes`` methods: loading numpy would cost more.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from .._record import record
from ..errors import InputError
from ..events import EventKind
from ..meter import advance
from ..parse import fastscan
from ..parse.header import split_header
from ..parse.messages import CATALOG
from ..parse.source import MAX_LINE_BYTES, decode_line
from .scan_index import Starter

_BLOCK = 2 << 20  # numpy temporaries of a block stay in cache
_BANNER = b"server_args="
_USAGE = b"usage: "
#: b"\nu" read as a little-endian 16-bit number.
_NL_U = 0x0A | ord("u") << 8
#: More '=' than this in a block: look for the banner itself instead.
_DENSE = 2000
_STARTERS = (EventKind.SERVER_ARGS, EventKind.ARGPARSE_USAGE)


def _is_starter(raw: bytes) -> bool:
    text = decode_line(raw[:MAX_LINE_BYTES].rstrip(b"\r"))
    if "\r" in text:
        return False  # a tqdm redraw line: leave it to the full parse
    hit = CATALOG.match(split_header(text).message)
    return hit is not None and hit[0].kind in _STARTERS


@record
class StarterScan:
    """What the byte-level pass found from ``start`` on: the run starters, the newlines
    counted, and the file's size when it was read."""

    start: int
    starters: list[Starter]
    newlines: int
    size: int


def scan_starters(path: str) -> list[Starter]:
    """Every run-starter line of ``path``, in file order (:func:`scan_region` from its start)."""
    return scan_region(path).starters


def scan_region(path: str, start: int = 0, first_line: int = 1) -> StarterScan:
    """Every run-starter line of ``path`` from offset ``start`` (a line start, numbered
    ``first_line``) on, verified through the parser, in file order.

    One pass over the file in 2 MiB blocks read by ``pread`` (not a memory map: a log
    truncated meanwhile — a relaunch with ``> LOG`` — would be a bus error; here each block's
    size is checked and a short one is a one-line :class:`InputError`). Newlines are counted
    with numpy (the line numbers, half of the blocks in a second thread: numpy runs without
    the GIL); banners are found through their ``=`` (a ``memchr``: serving lines hardly hold
    one; in a block dense with ``=`` the search moves to ``server_args=`` itself), argparse
    usage blocks by ``\nusage: ``.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        size = os.fstat(fd).st_size
        if size <= start:
            return StarterScan(start, [], 0, size)
        return _scan(_Blocks(fd, size, path), start, first_line)
    finally:
        os.close(fd)


@record
class _Blocks:
    """The file being scanned, read by offset; every read checked against its size."""

    fd: int
    size: int
    path: str

    def read(self, at: int, n: int, *, again: bool = False) -> bytes:
        """``n`` bytes at ``at``; ``again``: bytes the pass has read already (a candidate's
        line, the lines before it), left out of the progress line's count."""
        want = max(0, min(n, self.size - at))
        try:
            data = os.pread(self.fd, want, at)
        except OSError as exc:
            raise InputError(f"{self.path}: read failed ({exc.strerror or exc})") from None
        if not again:
            advance(len(data))  # the progress line's count: once per block
        if len(data) < want:
            raise InputError(
                f"{self.path}: the file shrank while it was read (truncated or rewritten): read it again"
            )
        return data

    def line_start(self, at: int) -> int:
        """The offset where the line holding ``at`` starts."""
        while at > 0:
            low = max(0, at - (1 << 16))
            nl = self.read(low, at - low, again=True).rfind(b"\n")
            if nl >= 0:
                return low + nl + 1
            at = low
        return 0


_LEAD = 16  # bytes of the block before, so a banner or usage cut by a block edge is found


#: Less than this to scan (what grew since an index): plain ``bytes`` searches, no numpy.
_SMALL_SCAN = 32 << 20


def _scan(f: _Blocks, start: int, first_line: int) -> StarterScan:
    np: Any = None
    marks = fastscan.available()  # the C scan of a block (else numpy, or bytes methods)
    if not marks and f.size - start > _SMALL_SCAN:
        # start-up: numpy loads only for a big part of a file to scan
        import numpy as np

    size = f.size
    blocks = range(start, size, _BLOCK)
    newlines = [0] * len(blocks)
    candidates: set[int] = set()
    failed: list[BaseException] = []

    def scan(indexes: range) -> None:
        """Per block: one read, its newlines (numpy, without the GIL), its starters."""
        try:
            for i in indexes:
                base = max(0, blocks[i] - _LEAD)
                data = f.read(base, blocks[i] + _BLOCK - base)
                if marks:
                    newlines[i] = _marks(data, base, start, blocks[i] - base, f, candidates)
                    continue
                if np is None:
                    newlines[i] = data.count(b"\n", blocks[i] - base)
                    _find_usage_small(data, base, start, candidates)
                else:
                    body = np.frombuffer(data, dtype=np.uint8, offset=blocks[i] - base)
                    newlines[i] = int(np.count_nonzero(body == 10))
                    _find_usage(np, data, base, start, candidates)
                _find_banners(data, base, f, candidates)
        except BaseException as exc:  # re-raised below
            failed.append(exc)

    half = len(blocks) // 2
    helper = threading.Thread(target=scan, args=(range(half, len(blocks)),), daemon=True)
    helper.start()
    try:
        scan(range(half))
    finally:
        helper.join()
    if failed:
        raise failed[0]
    before = [0]
    for n in newlines:
        before.append(before[-1] + n)
    starters: list[Starter] = []
    for at in sorted(c for c in candidates if c >= start):
        raw = f.read(at, MAX_LINE_BYTES, again=True)
        stop = raw.find(b"\n")
        raw = raw if stop < 0 else raw[:stop]
        if _is_starter(raw):
            i = (at - start) // _BLOCK
            line = before[i] + f.read(blocks[i], at - blocks[i], again=True).count(b"\n")
            line += first_line
            starters.append(Starter(line, at, raw))
    return StarterScan(start, starters, before[-1], size)


def _marks(data: bytes, base: int, start: int, skip: int, f: _Blocks, candidates: set[int]) -> int:
    """:func:`_find_usage` and :func:`_find_banners` by the C scan of ``data`` (the file from
    ``base``; without the GIL, so both threads scan at once); its newlines from ``skip``."""
    found = fastscan.block_marks(data, skip)
    assert found is not None  # only called where the scans are available
    newlines, usage, banners = found
    if base == start and data.startswith(_USAGE):
        candidates.add(start)
    candidates.update(base + at for at in usage)
    for at in banners:
        candidates.add(_start_of(data, base, at, f))
    return newlines


def _find_usage(np: Any, data: bytes, base: int, start: int, candidates: set[int]) -> None:
    """Line starts of possible argparse usage lines in ``data`` (the file from ``base``): a
    ``\nu`` byte pair, found as a 16-bit number at even and at odd offsets (numpy, without
    the GIL; ``bytes.find`` of ``\nusage: `` stops at every newline and costs 4x more)."""
    if base == start and data.startswith(_USAGE):
        candidates.add(start)
    for shift in (0, 1):
        pairs = np.frombuffer(data, dtype="<u2", count=(len(data) - shift) // 2, offset=shift)
        for k in np.flatnonzero(pairs == _NL_U).tolist():
            at = 2 * k + shift + 1
            if data[at : at + len(_USAGE)] == _USAGE:
                candidates.add(base + at)


def _find_usage_small(data: bytes, base: int, start: int, candidates: set[int]) -> None:
    """:func:`_find_usage` by ``bytes.find`` (a few MB: cheaper than loading numpy)."""
    if base == start and data.startswith(_USAGE):
        candidates.add(start)
    at = data.find(b"\n" + _USAGE)
    while at >= 0:
        candidates.add(base + at + 1)
        at = data.find(b"\n" + _USAGE, at + 1)


def _find_banners(data: bytes, base: int, f: _Blocks, candidates: set[int]) -> None:
    """Line starts of possible banners in ``data`` (the file from ``base``)."""
    pos = data.find(b"=")
    seen = 0
    while pos >= 0 and seen < _DENSE:
        seen += 1
        if pos >= len(_BANNER) - 1 and data[pos - len(_BANNER) + 1 : pos + 1] == _BANNER:
            candidates.add(_start_of(data, base, pos, f))
        pos = data.find(b"=", pos + 1)
    if pos >= 0:  # dense with '=': the rest of the block by the banner itself
        at = data.find(_BANNER, max(0, pos - len(_BANNER) + 1))
        while at >= 0:
            candidates.add(_start_of(data, base, at, f))
            at = data.find(_BANNER, at + 1)


def _start_of(data: bytes, base: int, pos: int, f: _Blocks) -> int:
    nl = data.rfind(b"\n", 0, pos)
    return base + nl + 1 if nl >= 0 else f.line_start(base + pos)
