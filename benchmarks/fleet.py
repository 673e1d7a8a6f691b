"""The fleet target of issue 30: a fleet of small logs read on Dask vs in one process.

    python -m benchmarks.fleet --files 10000 [--workers 16]

Writes ``--files`` small logs (the two-node OOM fixture's two nodes, each copy a launch of its
own: its ``dist_init_addr`` port and day differ) under benchmarks/out/fleet/, then times
``read_fleet`` over them in this process (one core) and on a ``LocalCluster`` of ``--workers``
single-threaded worker processes (one task per file), and prints both and their ratio. A
benchmark, not a test: the issue's target is >= 10x one core on a 16-core machine.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from sglang_logscope.log.fleet import map_fleet, read_fleet

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
    args = parser.parse_args()
    paths = write_fleet(args.files)
    start = time.perf_counter()
    one = read_fleet(paths)
    for _ in one:  # read every file
        pass
    rows_one = len(one.table())
    serial = time.perf_counter() - start

    # start-up: Dask only for the cluster run
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=args.workers, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        start = time.perf_counter()
        items = list(map_fleet(paths, cluster.scheduler_address))
        parallel = time.perf_counter() - start
    assert len(items) == len(paths) and all(i.error is None for i in items)
    print(
        f"{len(paths)} files, {rows_one} launches: one process {serial:.2f} s; "
        f"{args.workers} Dask workers {parallel:.2f} s (cluster start not counted); "
        f"ratio {serial / parallel:.2f}x"
    )


if __name__ == "__main__":
    main()
