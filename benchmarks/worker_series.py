"""What the per-worker series (issue 30: prefill/decode throughput and queue depth per rank)
cost ``report`` of several logs: one file of N ``Decode batch`` lines of two DP ranks (the
0.5.x wording of ``fixtures/launches/pd-serving``), read as the report reads each file,
without and with ``workers`` (median of the rounds, wall time)::

    python -m benchmarks.worker_series --lines 200000 --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sglang_logscope.log.series import read_for_report

HEADER = Path(__file__).resolve().parent.parent / "fixtures" / "launches" / "pd-serving"


def write_log(path: Path, lines: int) -> None:
    head = (HEADER / "decode.log").read_text(encoding="utf-8").splitlines()[:2]
    with path.open("w", encoding="utf-8") as out:
        out.write("\n".join(head) + "\n")
        for i in range(lines):
            s = i // 4
            out.write(
                f"[2026-03-02 {10 + s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d} "
                f"DP{i % 2} TP{8 * (i % 2)}] Decode batch, #running-req: 32, "
                f"#token: {9000 + i % 500}, token usage: 0.04, cuda graph: True, "
                f"gen throughput (token/s): {2000 + i % 7}.50, #queue-req: {i % 3}\n"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "decode.log"
        write_log(log, args.lines)
        times: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.rounds):
            for workers in (False, True):
                start = time.perf_counter()
                read_for_report(str(log), tail=1, workers=workers)
                times[workers].append(time.perf_counter() - start)
    for workers, seen in times.items():
        print(f"workers={workers}: {statistics.median(seen):.2f} s ({args.lines} lines)")


if __name__ == "__main__":
    main()
