"""The machine's own ceiling for the fleet target of issue 30 (>= 10x one core): the same
fleet split by hand, no Dask.

    python -m benchmarks.fleet_ceiling --files 10000 [--workers 16] [--rounds 3]

Writes (or reuses) :mod:`benchmarks.fleet`'s small logs, reads them all in this process (one
core: the figure ``benchmarks.fleet`` divides by), then forks ``--workers`` processes that each
read a fixed share of them (every ``workers``-th file; forked after the one-process read, so
each starts with the library imported and warm, as Dask's preloaded workers do not quite),
started together, and prints the wall time until the last one is done and its ratio. No
scheduler, no transfer, no table: what a perfect engine could reach on this machine.

Beside it, the same for a plain CPU loop (no I/O, no allocation): one loop alone vs one loop
in each of ``--workers`` processes at once. Where ``workers`` busy cores run slower than one
(turbo clocks, two threads on one physical core), that ratio is under ``workers``, and so is
every fleet engine's.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing as mp
import os
import statistics
import time
from collections.abc import Callable, Sequence

from benchmarks.fleet import write_fleet
from sglang_logscope.log.fleet import fleet_item

#: The plain loop's length: about a second alone on a current x86 core.
LOOP = 20_000_000


def read_all(paths: Sequence[str]) -> float:
    start = time.perf_counter()
    for p in paths:
        fleet_item(p)
    return time.perf_counter() - start


def spin(n: int = LOOP) -> float:
    start = time.perf_counter()
    total = 0
    for i in range(n):
        total += i
    return time.perf_counter() - start


def _child(go: mp.synchronize.Event, work: Callable[[], float], out: mp.Queue) -> None:  # type: ignore[type-arg]
    go.wait()
    work()
    out.put(time.perf_counter())


def together(works: Sequence[Callable[[], float]]) -> float:
    """Wall seconds from a common start until the last of ``works`` (each in a forked
    process) is done."""
    ctx = mp.get_context("fork")
    go, out = ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_child, args=(go, w, out)) for w in works]
    for p in procs:
        p.start()
    time.sleep(0.5)  # every child forked and waiting
    start = time.perf_counter()
    go.set()
    ends: list[float] = [out.get() for _ in procs]
    for p in procs:
        p.join()
    return max(ends) - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    paths = write_fleet(args.files)
    w = args.workers
    read_all(paths[:200])  # warm: the lazy patterns compiled, the files in the page cache
    for _ in range(args.rounds):
        one = read_all(paths)
        split = together([functools.partial(read_all, paths[i::w]) for i in range(w)])
        alone = statistics.median(spin() for _ in range(3))
        spun = together([spin] * w)
        print(
            f"{len(paths)} files: one process {one:.2f} s; {w} forked processes, a share each "
            f"{split:.2f} s: ratio {one / split:.2f}x | a plain loop: alone {alone:.2f} s, "
            f"{w} at once {spun:.2f} s: {w} x {alone / spun:.2f} = {w * alone / spun:.2f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
