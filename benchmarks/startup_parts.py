"""Parts of a check's start-up, measured one at a time (issue 33, 2; docs/performance.md,
"Session 14"). Each part runs in this process; run it as its own process each time:

    python -m benchmarks.startup_parts dataclasses [--off eq repr frozen]
    python -m benchmarks.startup_parts gather
    python -m benchmarks.startup_parts exec-window [--runs 500]

``dataclasses``: the demo check (``make demo``'s command line, its log named as it is in the
tree) run here, with a timing hook on ``dataclasses._process_class``: the classes made, the
time it took, and the process's whole CPU; ``--off`` turns generated methods off for every
class, an experiment that breaks the classes' meaning (how much they cost at most, not a
change). ``gather``: the process scan of a check (``staleness.process.gather``), with and
without an intended command line. ``exec-window``: how often ``/proc/PID/cmdline`` lacks a
new process's command line right after ``Popen`` returns (why tests wait for a line the
child prints).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import resource
import subprocess
import sys
import time
from typing import Any

from .startup import DEMO, LAUNCHED_AT


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def dataclass_cost(off: list[str]) -> str:
    """The demo check in this process, its dataclasses timed (and options ``off``)."""
    made = [0, 0.0]
    process = dataclasses._process_class  # type: ignore[attr-defined]

    def timed(cls: type, *args: Any) -> Any:
        init, repr_, eq, order, unsafe_hash, frozen, *rest = args
        if "repr" in off:
            repr_ = False
        if "eq" in off:
            eq = False
        if "frozen" in off:
            frozen = False
        start = time.perf_counter()
        out = process(cls, init, repr_, eq, order, unsafe_hash, frozen, *rest)
        made[0] += 1
        made[1] += time.perf_counter() - start
        return out

    dataclasses._process_class = timed  # type: ignore[attr-defined]
    argv = ["-e", str(DEMO / "command.txt"), *LAUNCHED_AT, str(DEMO / "sglang-serve.log")]
    from sglang_logscope.__main__ import main  # start-up: after the hook, as it is measured

    with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):
        main(["check", *argv])
    return (
        f"off: {' '.join(off) or '-'}; {made[0]} dataclasses made in {made[1] * 1000:.1f} ms; "
        f"process CPU {_cpu():.3f} s"
    )


def gather_cost(rounds: int = 3) -> str:
    """``gather`` of the demo log, with and without an intended command, ``rounds`` times."""
    from sglang_logscope.staleness.process import ProcTable, gather

    log = str(DEMO / "sglang-serve.log")
    gather(log, intended_argv=("--model-path", "/m"))  # warm: its imports and caches
    out = []
    for _ in range(rounds):
        start = time.process_time()
        gather(log, intended_argv=("--model-path", "/m"))
        middle = time.process_time()
        gather(log)
        end = time.process_time()
        out.append(f"{(middle - start) * 1000:.1f} / {(end - middle) * 1000:.1f} ms")
    return f"{len(ProcTable().pids())} processes; gather with / without a command: " + ", ".join(
        out
    )


def exec_window(runs: int) -> str:
    """How many of ``runs`` reads of a new child's command line, right after ``Popen``
    returns, lack it."""
    lacking = 0
    for _ in range(runs):
        child = subprocess.Popen(
            [sys.executable, "-c", "import sys; sys.stdin.read()", "--zz-window"],
            stdin=subprocess.PIPE,
        )
        try:
            with open(f"/proc/{child.pid}/cmdline", "rb") as f:
                lacking += b"--zz-window" not in f.read()
        finally:
            child.kill()
            child.wait()
    version = sys.version.split()[0]
    return f"Python {version}: {lacking} of {runs} reads lacked the new command line"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["dataclasses", "gather", "exec-window"])
    parser.add_argument("--off", nargs="*", default=[], choices=["eq", "repr", "frozen"])
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    if args.part == "dataclasses":
        print(dataclass_cost(args.off))
    elif args.part == "gather":
        print(gather_cost())
    else:
        print(exec_window(args.runs))


if __name__ == "__main__":
    main()
