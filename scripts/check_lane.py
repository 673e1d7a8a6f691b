"""Check that the C fast lane is built and reads right on the Python running this script.

``make pythons`` / ``make lowest`` run it in each environment before its suite: the in-tree
``sglang_logscope/parse/_rowscan.abi3.so`` is one module for every CPython >= 3.10 (the stable
ABI), so whichever environment built it last, each Python must load it and get the lane's
answers (issue 29: a module built with 3.13's headers once failed on 3.10 with
``SystemError: PY_SSIZE_T_CLEAN macro must be defined for '#' formats``). The block read is
the decode lines of ``fixtures/real/069/server.log`` (source in its ``meta.json``); the lane's
row count, first and last time must be those of the lines. Exit 1, with one line, otherwise.

    .venv-3.10/bin/python scripts/check_lane.py
"""

from __future__ import annotations

import sys
from pathlib import Path

from sglang_logscope.parse.bulk import LaneSummary, bulk_shape
from sglang_logscope.parse.fastscan import available, describe, rows_summary

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "real" / "069" / "server.log"


def main() -> int:
    version = f"Python {sys.version_info.major}.{sys.version_info.minor}"
    lane = bulk_shape().lane
    if not available() or lane is None:
        print(f"check_lane: {version}: {describe()}", file=sys.stderr)
        return 1
    lines = [x for x in LOG.read_bytes().split(b"\n") if b"] Decode batch," in x]
    try:
        got = rows_summary(b"\n".join(lines), lane)
    except SystemError as exc:  # a module built against headers this Python cannot take
        print(f"check_lane: {version}: the C fast lane fails here: {exc}", file=sys.stderr)
        return 1
    want = (len(lines), lines[0][1:20], lines[-1][1:20])
    if got is None or LaneSummary(*got)[:3] != want:
        print(f"check_lane: {version}: the lane read {got!r}, not {want!r}", file=sys.stderr)
        return 1
    print(f"check_lane: {version}: {describe()}, {len(lines)} decode lines read")
    return 0


if __name__ == "__main__":
    sys.exit(main())
