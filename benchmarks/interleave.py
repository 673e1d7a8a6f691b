"""Time logscope commands of two source trees, interleaved, on a loaded machine.

    python -m benchmarks.interleave --base benchmarks/out/base --rounds 7

``--base`` is a checkout of the commit to compare against (``git worktree add --detach
benchmarks/out/base REV``; copy the built ``_rowscan*.so`` into its ``parse/``); the other tree
is this one. Each round runs every command once per tree, the order of the two trees swapped
every round, so that a load that comes and goes falls on both alike; the table gives each
command's median wall time and CPU time (user + system of the command and its helpers: what
the change costs, less moved by other jobs than the wall time) per tree, and their ratios. Logs come from ``benchmarks.generate`` (both
shapes: many runs, and one long serving run). ``events_frame`` (the batch rows, the
``STREAM_FRAME`` snippet of :mod:`benchmarks.curve`) runs as ``python -c`` in each tree. ``LOGSCOPE_NO_CACHE=1``: every check reads the
file as a first check does (no scan index carried between runs or trees).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .curve import STREAM_FRAME
from .run import CHILD_ENV, OUT, ROOT


def commands(many: Path, long: Path, html: Path) -> dict[str, list[str]]:
    cmd = str(many.parent / "cmd.txt")
    return {
        "check (many runs)": ["check", "-e", cmd, str(many)],
        "check (long run)": ["check", str(long)],
        "summary (many runs)": ["summary", str(many)],
        "runs (long run)": ["runs", str(long)],
        "events -f jsonl (long run)": ["events", "-f", "jsonl", str(long)],
        "events -f jsonl (many runs)": ["events", "-f", "jsonl", str(many)],
        "events_frame, batch rows (many runs)": ["-c", STREAM_FRAME, str(many)],
        "report --html (long run)": ["report", str(long), "--html", str(html)],
        "report --html (many runs)": ["report", str(many), "--html", str(html), "-e", cmd],
        "check (start-up, small log)": ["check", str(many.parent / "small.log")],
    }


def once(tree: Path, args: list[str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, the command and its helper processes)."""
    env = {**CHILD_ENV, "PYTHONPATH": str(tree), "LOGSCOPE_NO_CACHE": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    command = (
        [sys.executable, *args]
        if args[0] == "-c"
        else [sys.executable, "-m", "sglang_logscope", *args]
    )
    subprocess.run(
        command,
        cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--many", type=Path, default=OUT / "many" / "big.log")
    ap.add_argument("--long", type=Path, default=OUT / "long" / "big.log")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", default="", help="only the commands whose name holds this text")
    a = ap.parse_args()
    trees = {"base": a.base.resolve(), "head": ROOT}
    cmds = commands(a.many.resolve(), a.long.resolve(), OUT / "interleave.html")
    cmds = {name: args for name, args in cmds.items() if a.only in name}
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for args in cmds.values():  # warm-up: bytecode caches, page cache
        for tree in trees.values():
            once(tree, args)
    for r in range(a.rounds):
        order = list(trees.items()) if r % 2 == 0 else list(trees.items())[::-1]
        for name, args in cmds.items():
            for label, tree in order:
                times.setdefault((name, label), []).append(once(tree, args))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}; rounds: {a.rounds}")
    print(
        "| command | wall base (s) | wall head (s) | head / base | CPU base (s) | CPU head (s) | head / base |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in cmds:
        wb, cb = (statistics.median(x[i] for x in times[(name, "base")]) for i in (0, 1))
        wh, ch = (statistics.median(x[i] for x in times[(name, "head")]) for i in (0, 1))
        print(
            f"| `{name}` | {wb:.3f} | {wh:.3f} | {wh / wb:.3f} | {cb:.3f} | {ch:.3f} | {ch / cb:.3f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
