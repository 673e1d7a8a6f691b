"""Whether another tree's package answers as this one does, command line by command line (a
change meant to leave the output alone: issue 33, 2's start-up work, docs/performance.md).

    python -m benchmarks.same_output benchmarks/out/base

Each command line runs in one process per tree, ``python -m sglang_logscope`` from the tree's
own folder, ``LOGSCOPE_NO_CACHE=1``, ``NO_COLOR=1``: every fixture ``check`` line of
``tests/test_startup._fixture_checks``, each real log's ``summary -f json`` and ``runs -f
json``, each heldout log's ``events -f jsonl`` and ``report --markdown -``. Stdout, stderr and
the exit code must be the same; the first differences are printed, and the exit code is 1
when any line differs.
"""

from __future__ import annotations

import argparse
import difflib
import os
import subprocess
import sys
from pathlib import Path

from .run import ROOT

sys.path.insert(0, str(ROOT / "tests"))  # the fixture lines are the start-up test's
from test_startup import _fixture_checks


def command_lines() -> list[list[str]]:
    lines = _fixture_checks()
    for folder in sorted((ROOT / "fixtures" / "real").iterdir()):
        log = folder / "server.log"
        if log.is_file():
            lines += [["summary", "-f", "json", str(log)], ["runs", "-f", "json", str(log)]]
    for folder in sorted((ROOT / "fixtures" / "heldout").iterdir()):
        log = folder / "log"
        if log.is_file():
            lines += [["events", "-f", "jsonl", str(log)], ["report", "--markdown", "-", str(log)]]
    return lines


def answer(tree: Path, argv: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "LOGSCOPE_NO_CACHE": "1", "NO_COLOR": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *argv],
        cwd=tree, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("other", type=Path, help="a checkout whose sglang_logscope to compare")
    other = ap.parse_args().other.resolve()
    lines = command_lines()
    differ = 0
    for argv in lines:
        theirs, ours = answer(other, argv), answer(ROOT, argv)
        if theirs != ours:
            differ += 1
            print(f"differs: {' '.join(argv)} (exit {theirs[0]} / {ours[0]})")
            if differ <= 3:
                for n in (1, 2):
                    diff = difflib.unified_diff(theirs[n].splitlines(), ours[n].splitlines())
                    print("\n".join(list(diff)[:30]))
    print(f"{len(lines)} command lines; {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
