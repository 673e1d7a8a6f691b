"""``summary`` of one big file on several cores (issue 33, item 5): the file cut into ranges,
each parsed by a forked process (:mod:`sglang_logscope.parse.split`), against one process.

    python -m benchmarks.summary_split LOG [LOG ...] [--workers 1 2 4 8] [--repeat 5]
    python -m benchmarks.summary_split LOG --parts 8


Each log is read once to warm (patterns compiled, the file in the page cache); then
``--repeat`` rounds, each timing ``summarize_source(LOG, workers=N)`` for every ``N`` in turn
(interleaved: a busy spell hits every setting alike; ``1`` is one process, the library with no
split). Every summary is checked equal to the one-process one. Printed per log and ``N``: the
best and median wall seconds, the ratio of one process's median to it, and the ranges cut.
Run it under ``taskset -c 0-7`` for "8 cores" (the library cuts no more ranges than the cores
this process may use, less the load).

``--parts N``: where the time of ``N`` processes goes instead: each range read alone (its
seconds, its batches' pickled bytes, the seconds to unpickle them), then three timed reads
with the forks, the waits for the children's batches and their renumbering summed.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Any

from sglang_logscope.log.reader import summarize_source
from sglang_logscope.parse import split
from sglang_logscope.parse.split import plan


def timed(path: str, workers: int) -> tuple[float, dict[str, Any]]:
    start = time.perf_counter()
    doc = (
        summarize_source(path, helper=False)
        if workers == 1
        else summarize_source(path, workers=workers)
    )
    return time.perf_counter() - start, doc


def parts(path: str, workers: int) -> None:
    """Each range alone, then the split's own costs summed over three reads."""
    cut = plan(path, workers)
    assert cut is not None, "not cut (one thread? the fast lane?)"
    for i, (lo, hi) in enumerate(pairwise(cut)):
        start = time.perf_counter()
        batches = list(split._batches(path, lo, hi, frozenset()))
        alone = time.perf_counter() - start
        data = [pickle.dumps(b) for b in batches]
        start = time.perf_counter()
        for one in data:
            pickle.loads(one)
        print(
            f"  range {i}: {alone:.3f} s alone, {sum(len(b[0]) for b in batches)} items in "
            f"{len(batches)} batches, {sum(map(len, data))} bytes pickled, unpickled in "
            f"{time.perf_counter() - start:.4f} s"
        )
    spent: dict[str, float] = {}

    def timed_as(key: str, own: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any) -> Any:
            start = time.perf_counter()
            out = own(*args)
            if key != "fork":  # (generators: their items taken here, timed)
                out = list(out)
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - start
            return out

        return wrapper

    owns = split._Child.start, split._Child.batches, split._moved
    split._Child.start = timed_as("fork", owns[0])  # type: ignore[method-assign]
    split._Child.batches = timed_as("wait and unpickle", owns[1])  # type: ignore[method-assign]
    split._moved = timed_as("renumber", owns[2])
    try:
        for _ in range(3):
            spent.clear()
            seconds, _doc = timed(path, workers)
            shown = ", ".join(f"{k} {v:.4f} s" for k, v in spent.items())
            print(f"  {workers} processes: {seconds:.3f} s; {shown}", flush=True)
    finally:
        split._Child.start, split._Child.batches, split._moved = owns  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4, 8])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--parts", type=int, metavar="N")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"cores usable: {cores}; load: {os.getloadavg()[0]:.2f}", flush=True)
    for path in args.logs:
        if args.parts:
            summarize_source(path, helper=False)  # warm
            print(path)
            parts(path, args.parts)
            continue
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
