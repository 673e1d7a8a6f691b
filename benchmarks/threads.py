"""Issue 33 item 5: ``summary`` of one big file on 1 thread and on N (``parse/threads.py``).

    python -m benchmarks.threads benchmarks/out/big.log --threads 1 8 --rounds 3

Per round and thread count, interleaved: ``summarize_file`` in this process (wall and CPU
seconds, after one warm-up read) and ``logscope summary FILE`` as a fresh process with
``LOGSCOPE_THREADS`` set (wall seconds, start-up included). Checks every summary equals the
one-thread one, and prints the best of the rounds and the speed-up over the first count.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

from sglang_logscope.log.reader import summarize_file
from sglang_logscope.parse.threads import THREADS


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    want = json.dumps(summarize_file(args.file), sort_keys=True)  # warm-up (page cache too)
    best: dict[tuple[str, int], float] = {}
    for r in range(args.rounds):
        for n in args.threads:
            THREADS.count = n
            start, cpu = time.perf_counter(), time.process_time()
            got = json.dumps(summarize_file(args.file), sort_keys=True)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            assert got == want, f"{n} threads: the summary differs"
            env = {**os.environ, "LOGSCOPE_THREADS": str(n)}
            start = time.perf_counter()
            cli = subprocess.run(
                [sys.executable, "-m", "sglang_logscope", "summary", "-f", "json", args.file],
                env=env,
                capture_output=True,
                check=True,
            )
            cli_wall = time.perf_counter() - start
            assert json.dumps(json.loads(cli.stdout), sort_keys=True) == want
            print(
                f"round {r} threads {n}: summarize_file {wall:.3f} s (CPU {cpu:.3f} s); "
                f"logscope summary {cli_wall:.3f} s",
                flush=True,
            )
            for key, value in (("library", wall), ("cli", cli_wall)):
                best[key, n] = min(best.get((key, n), value), value)
    base = args.threads[0]
    for key in ("library", "cli"):
        for n in args.threads:
            print(
                f"best {key} threads {n}: {best[key, n]:.3f} s "
                f"({best[key, base] / best[key, n]:.2f}x {base} thread)"
            )


if __name__ == "__main__":
    main()
