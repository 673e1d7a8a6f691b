"""The fleet target of issue 30: a fleet of small logs read on Dask vs in one process.

    python -m benchmarks.fleet --files 10000 [--workers 16] [--batch N]

Writes ``--files`` small logs (the two-node OOM fixture's two nodes, each copy a launch of its
own: its ``dist_init_addr`` port differs) under benchmarks/out/fleet/, then times the whole
fleet — every file's summary read and the fleet table grouped from them, what
``logscope summary --dask`` does (``read_fleet``: the table's members made as items
arrive) — in this process (one core) and on a ``LocalCluster`` of
``--workers`` single-threaded worker processes (``--batch`` files a task; default
``log.fleet.batch_size``), and prints both, their ratio, and the CPU time this process (the
client, with the local cluster's scheduler in it) spent on the Dask side (and its main
thread, the rest being Dask's event loop: the scheduler and the transfers). The workers import
the library as they start (``preload``), as this process did before its clock started.
``--profile N``: then the Dask side once more under cProfile, its N costliest functions (the
client's; the workers are not profiled). A benchmark, not a test: the issue's target is
>= 10x one core on a 16-core machine.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import time
from pathlib import Path

from sglang_logscope.log.fleet import local_cluster, read_fleet

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out" / "fleet"
NODES = ROOT / "fixtures" / "launches" / "two-node-oom"


def write_fleet(count: int) -> list[str]:
    OUT.mkdir(parents=True, exist_ok=True)
    texts = [(NODES / f"node{n}.log").read_text(encoding="utf-8") for n in (0, 1)]
    paths = []
    for i in range(count):
        text = texts[i % 2].replace("10.0.0.1:5000", f"10.0.0.1:{5000 + i // 2}")
        path = OUT / f"launch{i // 2:05d}-node{i % 2}.log"
        if not path.exists():
            path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--batch", type=int, default=None, help="files a task (default: auto)")
    parser.add_argument("--profile", type=int, default=0, help="then profile the client's side")
    parser.add_argument("--warm", action="store_true", help="read a first small fleet untimed")
    parser.add_argument("--stream", action="store_true", help="then where the workers' time went")
    args = parser.parse_args()
    paths = write_fleet(args.files)
    start = time.perf_counter()
    one = read_fleet(paths)
    for _ in one:  # read every file
        pass
    rows_one = one.table()
    serial = time.perf_counter() - start
    del one  # (its items: not live during the Dask side)

    with local_cluster(args.workers) as cluster:  # what --dask local starts
        if args.warm:
            list(read_fleet(paths[: 4 * args.workers], cluster.scheduler_address, 1))
        start, cpu, own = time.perf_counter(), time.process_time(), time.thread_time()
        fleet = read_fleet(paths, cluster.scheduler_address, args.batch)
        items = list(fleet)  # (the table's members made as the items arrive)
        read = time.perf_counter() - start
        rows = fleet.table()
        parallel, cpu = time.perf_counter() - start, time.process_time() - cpu
        own = time.thread_time() - own
        assert len(items) == len(paths) and all(i.error is None for i in items)
        assert rows == rows_one, "the fleet table on Dask differs from the one-process table"
        del items, fleet
        print(
            f"{len(paths)} files, {len(rows)} launches (table included on both sides): "
            f"one process {serial:.2f} s; {args.workers} Dask workers {parallel:.2f} s "
            f"(cluster start not counted; the table {parallel - read:.2f} s of it; "
            f"this process's CPU {cpu:.2f} s, {own:.2f} s of it its main thread's); "
            f"ratio {serial / parallel:.2f}x",
            flush=True,
        )
        if args.stream:
            stream(paths, cluster.scheduler_address, args.batch)
        if args.profile:
            profile(paths, cluster.scheduler_address, args.batch, args.profile)


def stream(paths: list[str], scheduler: str, batch: int | None) -> None:
    """The Dask side once more, with the scheduler's task stream: the workers' compute time
    in all, the first and last task's start and end from the submission, and the busiest and
    idlest worker."""
    from distributed import Client, get_task_stream

    with Client(scheduler) as client, get_task_stream(client) as ts:  # type: ignore[no-untyped-call]
        start = time.time()
        fleet = read_fleet(paths, scheduler, batch)
        last = start
        for _ in fleet:
            last = time.time()
        end = time.time()
    busy: dict[str, float] = {}
    spans = []
    for task in ts.data:
        for s in task["startstops"]:
            if s["action"] == "compute":
                busy[task["worker"]] = busy.get(task["worker"], 0.0) + s["stop"] - s["start"]
                spans.append((s["start"] - start, s["stop"] - start))
    first = sorted(spans)[:3]
    print(
        f"stream: {len(spans)} tasks, compute {sum(busy.values()):.2f} s in all on {len(busy)} "
        f"workers (each {min(busy.values()):.2f}-{max(busy.values()):.2f} s); first starts "
        f"{[round(a, 2) for a, _ in first]}; last compute ends {max(b for _, b in spans):.2f} s; "
        f"the last item here {last - start:.2f} s, the client closed {end - start:.2f} s",
        flush=True,
    )


def profile(paths: list[str], scheduler: str, batch: int | None, top: int) -> None:
    """The Dask side once more, this process under cProfile: its ``top`` costliest
    functions by their own time."""
    with cProfile.Profile() as prof:
        fleet = read_fleet(paths, scheduler, batch)
        for _ in fleet:
            pass
        fleet.table()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


if __name__ == "__main__":
    main()
