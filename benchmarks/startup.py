"""The CPU a ``logscope check`` of a small log costs beyond a bare Python start (issue 33, 2).

    python -m benchmarks.startup --rounds 15 [--base benchmarks/out/base]

Each round runs, one after the other, ``python -c pass`` and every command below, in each
tree (this one, and ``--base``: a checkout of the commit to compare against, made by
``git worktree add --detach benchmarks/out/base REV``, with the built ``_rowscan*.so`` copied
into its ``parse/``); the order of the trees is swapped every round, so that load that comes
and goes falls on all alike. The figure is the CPU time of the child (user + system, from
``resource.getrusage(RUSAGE_CHILDREN)`` around it): what the command costs this machine,
which other jobs move less than its wall time. Medians over the rounds. Children run with
their bytecode cached (as an installed package has it) and ``LOGSCOPE_NO_CACHE=1`` (every
check reads its log as a first check does). The logs are this tree's fixtures, named by
absolute path, so both trees read the same files; each tree runs from its own directory
(``python -m`` puts the working directory first on ``sys.path``).

Children run with ``-S``, the interpreter's site-packages on ``PYTHONPATH`` after the tree
(``--site`` runs them with ``site`` as they start on their own): an editable install's
finder (``__editable__*.pth``, what ``make install`` writes) imports ``pathlib``, ``re``,
``enum`` and ``urllib.parse`` at every start, a bare one too, which hid those imports' cost
from the check beside it (8–10 ms on Python 3.11 here); a wheel's install has no such finder.
"""

from __future__ import annotations

import argparse
import os
import resource
import site
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .run import CHILD_ENV, ROOT

#: The logs: the demo (a stale relaunch, with the intended command) and a small healthy log
#: (fixtures/real/037: a complete 0.4-era startup that reached ready, 34 lines; its source is
#: in its meta.json).
DEMO = ROOT / "fixtures" / "demo"
HEALTHY = ROOT / "fixtures" / "real" / "037" / "server.log"

BARE = "python -c pass"
#: The standard library a ``check demo`` imports beyond a bare start (``python -X importtime``,
#: session 18): how fast this machine's Python imports, the floor a check cannot go under.
STDLIB = (
    "typing, enum, re, inspect, dataclasses, pathlib, json, datetime, collections, functools, "
    "contextlib, shlex, bisect, struct, array, glob, operator, reprlib, copy"
)


#: make demo's launch time (read without dateutil since session 14: ``timing.plain_iso``)
LAUNCHED_AT = ["--launched-at", "2026-05-09 09:31:05"]


def commands() -> dict[str, list[str]]:
    """Name → the arguments after ``python``."""
    demo = ["check", "-e", str(DEMO / "command.txt"), str(DEMO / "sglang-serve.log")]
    return {
        BARE: ["-c", "pass"],
        "python -c 'import <its stdlib>'": ["-c", f"import {STDLIB}"],
        "check demo": ["-m", "sglang_logscope", *demo],
        "check demo -f json": ["-m", "sglang_logscope", *demo, "-f", "json"],
        "check demo --launched-at": ["-m", "sglang_logscope", *demo, *LAUNCHED_AT],
        "check healthy": ["-m", "sglang_logscope", "check", str(HEALTHY)],
    }


def once(tree: Path, args: list[str], with_site: bool = False) -> tuple[float, float]:
    """Wall time and CPU time (user + system) of one child run in ``tree``."""
    path = [str(tree)] if with_site else [str(tree), *site.getsitepackages()]
    env = {**CHILD_ENV, "PYTHONPATH": os.pathsep.join(path), "LOGSCOPE_NO_CACHE": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, *([] if with_site else ["-S"]), *args],
        cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(
    trees: dict[str, Path], rounds: int, with_site: bool = False
) -> dict[tuple[str, str], list[float]]:
    """(command, tree) → CPU seconds of each round (after one warm-up round)."""
    cmds = commands()
    cpu: dict[tuple[str, str], list[float]] = {}
    for args in cmds.values():  # warm-up: bytecode caches, page cache
        for tree in trees.values():
            once(tree, args, with_site)
    for r in range(rounds):
        order = list(trees.items()) if r % 2 == 0 else list(trees.items())[::-1]
        for name, args in cmds.items():
            for label, tree in order:
                cpu.setdefault((name, label), []).append(once(tree, args, with_site)[1])
    return cpu


def table(cpu: dict[tuple[str, str], list[float]], labels: list[str]) -> list[str]:
    """The Markdown table: per command and tree the median CPU, and beyond the bare start."""
    med = {key: statistics.median(v) for key, v in cpu.items()}
    head = ["command"]
    for label in labels:
        head += [f"CPU {label} (s)", f"{label} − bare (s)"]
    rows = [f"| {' | '.join(head)} |", f"|{' --- |' * len(head)}"]
    for name in commands():
        cells = [f"`{name}`"]
        for label in labels:
            beyond = med[(name, label)] - med[(BARE, label)]
            cells += [f"{med[(name, label)]:.3f}", "–" if name == BARE else f"{beyond:.3f}"]
        rows.append(f"| {' | '.join(cells)} |")
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--base", type=Path, help="a checkout of the commit to compare against")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--site", action="store_true", help="children start with site (.pth files)")
    a = ap.parse_args()
    trees = {"head": ROOT} if a.base is None else {"base": a.base.resolve(), "head": ROOT}
    load = os.getloadavg()[0]
    cpu = measure(trees, a.rounds, a.site)
    site_said = "with" if a.site else "without"
    end = os.getloadavg()[0]
    print(
        f"rounds: {a.rounds}; {site_said} site; load average {load:.1f} at the start, {end:.1f} at the end"
    )
    print("\n".join(table(cpu, list(trees))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
