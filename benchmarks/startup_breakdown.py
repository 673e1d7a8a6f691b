"""Where a check's start-up CPU goes, and what a record costs (issue 33, 2; docs/performance.md,
"Session 18"). Run each as its own process, bytecode cached:

    python benchmarks/startup_breakdown.py check
    PYTHONPATH=OTHER python benchmarks/startup_breakdown.py check     # another tree's package
    python benchmarks/startup_breakdown.py records

``check``: the demo check (``make demo``'s log and command, without ``--launched-at``) in this
process (the second form: another tree's package, e.g. a worktree of the base commit), with timing hooks on
the parts of its start-up: making its classes (dataclasses' ``_process_class``, or a record's
whole making where the tree has records; of it, generating ``__init__``s:
``dataclasses._init_fn``), compiling patterns (``re``'s compiler, which runs only for a pattern
not in ``re``'s cache), reading the message index (``message_index``) and the argument table
(``load_arg_table``, its file read included); then the same check again (its own work, every cache
warm) and the process's whole CPU. ``records``: what making a class of six fields and building
one of three and of twelve (by position and by keyword) cost, as a record and as a frozen
dataclass.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import re
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEMO = Path(__file__).resolve().parent.parent / "fixtures" / "demo"

#: Per part: seconds spent, times run, and whether it is running (a call inside a call of the
#: same part, as a record's making holds its ``_process_class``, is not counted twice).
_SPENT: dict[str, list[Any]] = {}


def _timed(part: str, func: Callable[..., Any]) -> Callable[..., Any]:
    spent = _SPENT.setdefault(part, [0.0, 0, False])

    def run(*args: Any, **kwargs: Any) -> Any:
        if spent[2]:
            return func(*args, **kwargs)
        spent[2] = True
        start = time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            spent[0] += time.perf_counter() - start
            spent[1] += 1
            spent[2] = False

    return run


def _hook() -> None:
    """The hooks, set before the package is imported, as a check imports it."""
    compiler = getattr(re, "_compiler", None) or re.sre_compile  # type: ignore[attr-defined]
    compiler.compile = _timed("patterns compiled", compiler.compile)
    dc: Any = dataclasses
    dc._process_class = _timed("classes made", dc._process_class)
    if hasattr(dc, "_init_fn"):
        dc._init_fn = _timed("  of it, __init__s generated", dc._init_fn)
    with contextlib.suppress(ImportError):  # (a tree before records has none)
        from sglang_logscope import _record

        _record._make = _timed("classes made", _record._make)  # type: ignore[attr-defined]
    import sglang_logscope.staleness.judge  # noqa: F401  (the modules a check loads first)
    from sglang_logscope.command.argtable import load_arg_table
    from sglang_logscope.parse.message_index import message_index

    _rebind(load_arg_table, _timed("argument table read", load_arg_table))
    _rebind(message_index, _timed("message index read", message_index))


def _rebind(func: Callable[..., Any], timed: Callable[..., Any]) -> None:
    """``timed`` wherever a loaded module holds ``func`` (each caller imported it by name)."""
    for module in list(sys.modules.values()):
        for name, value in list(vars(module).items()):
            if value is func:
                setattr(module, name, timed)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def check_parts() -> str:
    """The demo check's start-up, part by part (see the module's docstring)."""
    _hook()
    from sglang_logscope.__main__ import main  # start-up: after the hooks, as it is measured

    argv = ["check", "-e", str(DEMO / "command.txt"), str(DEMO / "sglang-serve.log")]
    runs = []
    for _ in range(2):
        start = _cpu()
        with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):
            main(argv)
        runs.append(_cpu() - start)
    lines = [f"Python {sys.version.split()[0]}"]
    for part, (spent, count, _) in _SPENT.items():
        lines.append(f"{part}: {spent * 1000:.1f} ms ({count} calls)")
    lines.append(f"the check again (its own work): {runs[1] * 1000:.1f} ms")
    lines.append(f"process CPU after the first check: {_cpu() - runs[1]:.3f} s")
    return "\n".join(lines)


def _best(func: Callable[[], Any], times: int, rounds: int = 5) -> float:
    """The best of ``rounds`` of ``times`` calls, per call (seconds)."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(times):
            func()
        best = min(best, (time.perf_counter() - start) / times)
    return best


def record_costs() -> str:
    """Making a class of six fields and building an instance of twelve, both ways."""
    from sglang_logscope._record import record

    def namespace(fields: int) -> dict[str, Any]:
        names = {f"f{i}": "int" for i in range(fields)}
        return {"__annotations__": names, "__doc__": "d", "__module__": __name__}

    ways: dict[str, Callable[[type], type]] = {
        "@dataclass(frozen=True)": dataclasses.dataclass(frozen=True),
        "@record": record,
    }
    lines = [f"Python {sys.version.split()[0]}"]
    for name, make in ways.items():
        made = _best(lambda make=make: make(type("C", (), namespace(6))), 200)  # type: ignore[misc]
        built = []
        for fields in (3, 12):
            cls = make(type("C", (), namespace(fields)))
            args = tuple(range(fields))
            kwargs = {f"f{i}": i for i in range(fields)}
            each = _best(lambda cls=cls, args=args: cls(*args), 20_000)  # type: ignore[misc]
            named = _best(lambda cls=cls, kw=kwargs: cls(**kw), 20_000)  # type: ignore[misc]
            built.append(f"{each * 1e6:.2f} µs ({named * 1e6:.2f} by keyword) with {fields} fields")
        lines.append(f"{name}: made {made * 1e6:.0f} µs a class; built {', '.join(built)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["check", "records"])
    args = parser.parse_args()
    print(check_parts() if args.part == "check" else record_costs())


if __name__ == "__main__":
    main()
