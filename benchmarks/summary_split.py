"""``summary`` of one big file on several cores (issue 33, item 5): the file cut into ranges,
each parsed by a forked process (:mod:`sglang_logscope.parse.split`), against one process.

    python -m benchmarks.summary_split LOG [LOG ...] [--workers 1 2 4 8] [--repeat 5]

Each log is read once to warm (patterns compiled, the file in the page cache); then
``--repeat`` rounds, each timing ``summarize_source(LOG, workers=N)`` for every ``N`` in turn
(interleaved: a busy spell hits every setting alike; ``1`` is one process, the library with no
split). Every summary is checked equal to the one-process one. Printed per log and ``N``: the
best and median wall seconds, the ratio of one process's median to it, and the ranges cut.
Run it under ``taskset -c 0-7`` for "8 cores" (the library cuts no more ranges than the cores
this process may use, less the load).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any

from sglang_logscope.log.reader import summarize_source
from sglang_logscope.parse.split import plan


def timed(path: str, workers: int) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    doc = (
        summarize_source(path, helper=False)
        if workers == 1
        else summarize_source(path, workers=workers)
    )
    return time.perf_counter() - start, doc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"cores usable: {cores}; load: {os.getloadavg()[0]:.2f}", flush=True)
    for path in args.logs:
        reference = summarize_source(path, helper=False)  # warm
        times: dict[int, list[float]] = {w: [] for w in args.workers}
        for _ in range(args.repeat):
            for w in args.workers:
                seconds, doc = timed(path, w)
                assert doc == reference, f"{path}: {w} workers' summary differs from one process's"
                times[w].append(seconds)
        size = os.path.getsize(path) / 1e6
        base = statistics.median(times[1]) if 1 in times else None
        print(f"{path} ({size:.0f} MB, {len(reference['runs'])} runs):")
        for w, got in times.items():
            median = statistics.median(got)
            cuts = plan(path, w) if w > 1 else None
            ranges = len(cuts) - 1 if cuts else 1
            ratio = f"{base / median:.2f}x" if base else "-"
            print(
                f"  workers {w:2d} ({ranges} ranges): best {min(got):.3f} s, "
                f"median {median:.3f} s, {ratio} one process",
                flush=True,
            )


if __name__ == "__main__":
    main()
