"""Parts of the fleet benchmark (issue 30), in one process, to compare two trees on a
machine where the whole fleet cannot tell them apart (run each tree's library with
``PYTHONPATH=TREE``; this file may come from either):

    python -m benchmarks.fleet_parts table --files 10000   # the table after the last item
    python -m benchmarks.fleet_parts file --files 400      # CPU a file (fleet_item)
    python -m benchmarks.fleet_parts read --files 200      # only read them (for valgrind)

``table``: the fleet's items made once (cached as a pickle under benchmarks/out/), then five
times ``fleet_table(items)``, and where the tree has ``FleetTable`` its ``add`` of each item
and its ``rows()`` apart (what is left after the last item on Dask). ``file``: three passes
of ``fleet_item`` over the first ``--files`` logs, CPU time a file. ``read``: one pass, no
clock (under ``valgrind --tool=cachegrind``: ``--files 200`` minus ``--files 0``, over 200,
is a file's instructions).
"""

from __future__ import annotations

import argparse
import pickle
import time

import sglang_logscope.log.fleet as fleet

from .fleet import OUT, write_fleet


def table(files: int) -> None:
    cache = OUT.parent / f"fleet-items-{files}.pkl"
    if not cache.exists():
        cache.write_bytes(pickle.dumps([fleet.fleet_item(p) for p in write_fleet(files)]))
    blob = cache.read_bytes()
    whole, adds, rows = [], [], []
    for _ in range(5):
        items = pickle.loads(blob)
        start = time.perf_counter()
        fleet.fleet_table(items)
        whole.append(time.perf_counter() - start)
        if hasattr(fleet, "FleetTable"):
            items, made = pickle.loads(blob), fleet.FleetTable()
            start = time.perf_counter()
            for item in items:
                made.add(item)
            mid = time.perf_counter()
            made.rows()
            adds.append(mid - start)
            rows.append(time.perf_counter() - mid)
    print(f"fleet_table {_s(whole)}; add {_s(adds)}; rows after the adds {_s(rows)}")


def file(files: int, rounds: int = 3) -> None:
    paths = write_fleet(max(files, 2))[:files]
    passes = []
    for _ in range(rounds):
        start = time.process_time()
        for path in paths:
            fleet.fleet_item(path)
        passes.append((time.process_time() - start) / max(1, len(paths)) * 1000)
    if rounds > 1:
        print("CPU a file (ms):", ", ".join(f"{p:.2f}" for p in passes))


def _s(times: list[float]) -> str:
    return ", ".join(f"{t:.3f}" for t in times) + " s" if times else "-"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=("table", "file", "read"))
    parser.add_argument("--files", type=int, default=10_000)
    args = parser.parse_args()
    if args.what == "table":
        table(args.files)
    else:
        file(args.files, 3 if args.what == "file" else 1)


if __name__ == "__main__":
    main()
