"""What the progress line's count costs a read (issue 33): how many times the readers call
``meter.advance`` for a log (once per block, not per line) and the time of one call.

Usage: ``python benchmarks/progress_cost.py LOG`` (docs/performance.md quotes its output).
"""

from __future__ import annotations

import sys
import timeit

from sglang_logscope import meter
from sglang_logscope.log.reader import read_log


def main(path: str) -> str:
    calls: list[int] = []
    real = meter.Meter.add

    def counting(self: meter.Meter, n: int) -> None:
        calls.append(n)
        real(self, n)

    meter.Meter.add = counting  # type: ignore[method-assign]
    try:
        with meter.metered(None):
            read_log(path, helper=False)
    finally:
        meter.Meter.add = real  # type: ignore[method-assign]
    with open(path, "rb") as f:
        lines = f.read().count(b"\n")
    one = {"advance": meter.advance}
    with meter.metered(1):
        on = min(timeit.repeat("advance(262144)", globals=one, number=100_000, repeat=5)) / 1e5
    off = min(timeit.repeat("advance(262144)", globals=one, number=100_000, repeat=5)) / 1e5
    return (
        f"{lines:,} lines, {len(calls)} advance() calls; one call {on * 1e9:.0f} ns (a meter on), "
        f"{off * 1e9:.0f} ns (none); {len(calls) * on * 1e6:.0f} us in all"
    )


if __name__ == "__main__":
    print(main(sys.argv[1]))
