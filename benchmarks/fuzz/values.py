"""Seeded fuzzing of hostile values (issue 20): the demo log's real ``server_args`` banner and
the demo's real launch command, with random fields set to random Python literals (ints of any
size, floats incl. inf/nan, complex, strings, bytes, nested lists/dicts/tuples, calls), run
through every subcommand. A finding is any exception other than ``SystemExit`` 0/1/2, a
traceback or more than one line on stderr, or output JSON that is invalid or holds
NaN/Infinity.

    python -m benchmarks.fuzz.values --runs 40 --seed 20     # what `make test` runs
    python -m benchmarks.fuzz.values --runs 5000 --seed 1    # a longer hunt

Fixed runs and a fixed seed: the same inputs every time, no wall clock.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sglang_logscope import cli
from sglang_logscope.limits import rules

ROOT = Path(__file__).resolve().parents[2]
DEMO = (ROOT / "fixtures" / "demo" / "sglang-serve.log").read_text(encoding="utf-8")
COMMAND = (ROOT / "fixtures" / "demo" / "command.txt").read_text(encoding="utf-8")
FIELDS = sorted({*rules(), "enable_mixed_chunk", "cuda_graph_bs", "not_a_field"})
#: ``LOG``, ``CMD`` and ``HTML`` are replaced by the run's files.
COMMANDS = [
    ["summary", "-f", "json", "LOG"],
    ["events", "-f", "jsonl", "LOG"],
    ["events", "-f", "csv", "LOG"],
    ["runs", "LOG"],
    ["check", "--expect-args", "CMD", "-f", "json", "LOG"],
    ["budget", "-f", "json", "--log", "LOG"],
    ["budget", "-f", "json", "-e", "CMD"],
    ["args", "-f", "json", "CMD"],
    ["report", "LOG", "--html", "HTML"],
]


def literal(rng: random.Random, depth: int = 0) -> str:
    """Python literal source text (or a call, or an expression: never evaluated)."""
    leaves: list[Callable[[], str]] = [
        lambda: str(rng.choice([0, 1, -1, 2, 4096, 4097, 2**40, 2**63, -(2**63)])),
        lambda: str(rng.randint(-(10**6), 10**6)),
        lambda: "0x" + "f" * rng.choice([1, 16, 100, 5000]),
        lambda: "9" * rng.choice([19, 400, 4301]),
        lambda: rng.choice(["inf", "-inf", "nan", "1e308", "1e309", "-0.0", "0.5", "5.0", "1j"]),
        lambda: repr(rng.random() * 10 ** rng.randint(-5, 30)),
        lambda: repr(rng.choice(["", "auto", "fp8_e4m3", "\x1b[31m", "\u202e", "x" * 70_000])),
        lambda: rng.choice(["True", "False", "None", "b'\\x00'", "...", "10**30", "-x"]),
    ]
    if depth < 3 and rng.random() < 0.3:
        inner = [literal(rng, depth + 1) for _ in range(rng.randint(0, 4))]
        shape = rng.choice(["[{}]", "({},)", "{{{}}}", "Cfg({})", "__import__({})"])
        if shape == "{{{}}}":
            return "{" + ", ".join(f"'k{i}': {v}" for i, v in enumerate(inner)) + "}"
        return shape.format(", ".join(inner))
    if rng.random() < 0.02:
        return "[" * 500 + "]" * 500
    return rng.choice(leaves)()


def banner_log(rng: random.Random) -> str:
    text = DEMO
    for _ in range(rng.randint(1, 3)):
        field, value = rng.choice(FIELDS), literal(rng)
        pattern = rf"(?<=[(, ]){field}=[^,]*(?=, )"
        text, n = re.subn(pattern, f"{field}={value}".replace("\\", "\\\\"), text, count=1)
        if n == 0:
            text = text.replace("ServerArgs(", f"ServerArgs({field}={value}, ", 1)
    return text


def command(rng: random.Random) -> str:
    """The demo command with one flag set to a number-like word (argparse sees text)."""
    flag = "--" + rng.choice(FIELDS).replace("_", "-")
    word = rng.choice(["0", "-1", "inf", "nan", "1e400", "9" * 30, "0.999999", "4097", "x"])
    return COMMAND.rstrip().replace(" > /root", f" {flag} {word} > /root", 1) + "\n"


def _strict_json(text: str) -> None:
    def refuse(name: str) -> Any:
        raise ValueError(f"{name} in JSON output")

    json.loads(text, parse_constant=refuse)


def one(argv: list[str]) -> str | None:
    """What is wrong with running ``argv`` (``None``: nothing)."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    except Exception as exc:  # the finding this target looks for
        return f"{type(exc).__name__}: {str(exc)[:200]}"
    if code not in (0, 1, 2) or "Traceback" in err.getvalue():
        return f"exit {code}: {err.getvalue()[:200]}"
    if len(err.getvalue().strip().splitlines()) > 1:
        return f"stderr of several lines: {err.getvalue()[:200]}"
    fmt = argv[argv.index("-f") + 1] if "-f" in argv else None
    try:
        if code != 2 and fmt == "json":
            _strict_json(out.getvalue())
        elif code != 2 and fmt == "jsonl":
            for line in out.getvalue().splitlines():
                _strict_json(line)
    except ValueError as exc:
        return f"bad JSON: {exc}"
    return None


def run(runs: int, seed: int) -> list[str]:
    """``runs`` crafted log/command pairs through every subcommand; the problems found."""
    rng = random.Random(seed)
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        log, cmd, html = Path(tmp, "server.log"), Path(tmp, "cmd.txt"), Path(tmp, "r.html")
        for i in range(runs):
            log.write_text(banner_log(rng), encoding="utf-8")
            cmd.write_text(command(rng), encoding="utf-8")
            subs = {"LOG": str(log), "CMD": str(cmd), "HTML": str(html)}
            for template in COMMANDS:
                argv = [subs.get(a, a) for a in template]
                why = one(argv)
                if why is not None:
                    problems.append(f"run {i} ({' '.join(template)}): {why}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args(argv)
    problems = run(args.runs, args.seed)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"values fuzz: {args.runs} runs x {len(COMMANDS)} commands, seed {args.seed}: "
          f"{len(problems)} problems")  # fmt: skip
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
