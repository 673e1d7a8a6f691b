"""What `check` on a long last run cannot go below: each byte-level operation a shortcut past
the serving middle would need, timed on the file itself (page cache warm).

    python -m benchmarks.floors [LOG]      # default benchmarks/out/long600/big.log

The full scan's answer about the last run depends, in its middle, on: a run starter
(``server_args=`` banner, argparse ``usage:``), an argparse error, a ``Load weight begin``
after the run was ready, a timestamp more than two minutes behind the one before (a run
without a banner), any failure line (tracebacks, OOM, NCCL, sigquit, shutdown), and any line
that is not a batch or access line (it is kept as an event: a finding or a release clue may
come of it); plus the line numbers (every newline counted) and the release range of the batch
lines' shapes. Only the per-line pattern of the bulk path decides the last three, so a sound
shortcut still costs one pass of it over the middle. Each row: wall and CPU seconds
(median of ``--repeat``), and MB/s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.run import OUT

_BLOCK = 2 << 20
#: Markers a byte search would look for (``rfind`` from the end: each scans what it skips).
MARKERS = (b"server_args=", b"\nusage: ", b"Traceback", b"Load weight begin", b": error: ")


def _blocks(fd: int, size: int, start: int = 0) -> Any:
    for at in range(start, size, _BLOCK):
        yield os.pread(fd, _BLOCK, at)


def one_pass(fd: int, size: int, table: Any) -> int:
    """The single pass a first check would need at least: each 2 MiB block read once, its
    marks (newlines, usage lines, banners) and its whole lines through the lane's clean test
    and reading, half of the blocks in a second thread (the C calls run without the GIL)."""
    # start-up: the package loads only when the floors are measured
    import threading

    from sglang_logscope.parse import fastscan
    from sglang_logscope.parse.bulk import _clean

    starts = range(0, size, _BLOCK)
    plain = [0, 0]

    def scan(part: int) -> None:
        for at in starts[part::2]:
            data = os.pread(fd, _BLOCK, at)
            fastscan.block_marks(data, 0)
            body = data[data.find(b"\n") + 1 : data.rfind(b"\n")]
            plain[part] += _clean(body) and fastscan.rows_summary(body, table) is not None

    helper = threading.Thread(target=scan, args=(1,))
    helper.start()
    scan(0)
    helper.join()
    return sum(plain)


def operations(path: str) -> dict[str, Callable[[], object]]:
    """Each operation, named, as a callable over the whole file."""
    # start-up: numpy and the package load only when the floors are measured
    import mmap

    import numpy as np

    from sglang_logscope.log.starters import scan_starters
    from sglang_logscope.log.tail import CHECK_KINDS, read_last_run
    from sglang_logscope.parse import fastscan
    from sglang_logscope.parse.bulk import bulk_shape

    fd = os.open(path, os.O_RDONLY)
    size = os.fstat(fd).st_size
    mm = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    starters = scan_starters(path)
    last = starters[-1].offset if starters else 0
    lean = bulk_shape().lean.fast

    def lean_split() -> int:
        """The bulk path's per-line pattern (time and spec only) over the last run."""
        n = 0
        carry = b""
        for data in _blocks(fd, size, last):
            data = carry + data
            cut = data.rfind(b"\n")
            carry = data[cut + 1 :]
            n += len(lean.split(b"\n" + data[:cut]))
        return n

    ops: dict[str, Callable[[], object]] = {
        "pread, 2 MiB blocks": lambda: sum(len(b) for b in _blocks(fd, size)),
        "newlines, numpy count": lambda: sum(
            int(np.count_nonzero(np.frombuffer(b, np.uint8) == 10)) for b in _blocks(fd, size)
        ),
        "newlines, bytes.count": lambda: sum(b.count(b"\n") for b in _blocks(fd, size)),
    }
    for marker in MARKERS:
        ops[f"mmap rfind {marker.decode()!r}"] = lambda m=marker: mm.rfind(m, last)
    if fastscan.available():
        table = bulk_shape().lane
        assert table is not None

        def lane_pass() -> int:
            """The C fast lane over the last run's pieces (what check's read of it runs)."""
            n, carry = 0, b""
            for data in _blocks(fd, size, last):
                data = carry + data
                cut = data.rfind(b"\n")
                carry = data[cut + 1 :]
                n += fastscan.rows_summary(data[:cut], table) is not None
            return n

        ops["C marks (fastscan.block_marks)"] = lambda: sum(
            fastscan.block_marks(b, 0)[0]  # type: ignore[index]
            for b in _blocks(fd, size)
        )
        ops["C lane over the last run"] = lane_pass
        ops["one pass: C marks + lane per block, 2 threads"] = lambda: one_pass(fd, size, table)
    ops["scan_starters (check's byte pass)"] = lambda: len(scan_starters(path))
    ops["bulk pattern over the last run"] = lean_split
    ops["read_last_run (check's whole read)"] = lambda: len(
        read_last_run(path, keep=CHECK_KINDS).runs
    )
    return ops


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", nargs="?", type=Path, default=OUT / "long600" / "big.log")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    os.environ["LOGSCOPE_NO_CACHE"] = "1"  # read_last_run as a first check reads (no index)
    path = str(args.log)
    mb = os.path.getsize(path) / 1e6
    ops = operations(path)
    walls: dict[str, list[float]] = {k: [] for k in ops}
    cpus: dict[str, list[float]] = {k: [] for k in ops}
    loads = []
    for _ in range(args.repeat + 1):  # the first round warms the page cache
        for name, op in ops.items():
            w, c = time.perf_counter(), time.process_time()
            op()
            walls[name].append(time.perf_counter() - w)
            cpus[name].append(time.process_time() - c)
        loads.append(os.getloadavg()[0])
    print(f"{path}: {mb:.0f} MB; load {min(loads):.1f}-{max(loads):.1f}; repeat {args.repeat}")
    for name in ops:
        wall = statistics.median(walls[name][1:])
        cpu = statistics.median(cpus[name][1:])
        print(f"  {name:<40} wall {wall:6.3f} s  cpu {cpu:6.3f} s  {mb / wall:7.0f} MB/s")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
