"""sglang-logscope: forensics for SGLang server logs.

Parse a log into events and runs, check whether its last run is the launch you intended,
and recompute SGLang's memory arithmetic to tell a real OOM from a ghost.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .argdiff import ArgDiff, DiffStatus
    from .argtable import ArgOption, ArgTable, available_versions, load_arg_table
    from .catalog import MessageSpec, Sample
    from .check import CheckReport, Verdict, check
    from .command import LaunchCommand, parse_launch_command
    from .errors import CommandError, InputError, LogscopeError
    from .events import Event, EventKind, Rank
    from .findings import Finding, Severity
    from .gpus import GpuReport, read_gpus
    from .log import Log, events_frame, read_log, summarize
    from .memory import (
        Budget,
        GpuSpec,
        ModelFacts,
        OomVerdict,
        budget_for_run,
        oom_verdict,
        resolve_model,
    )
    from .memory.budget import budget
    from .messages import CATALOG
    from .parse import iter_events
    from .preflight import Preflight, preflight
    from .runs import Failure, FailureKind, Outcome, Run, split_runs

#: Each public name and the module that defines it. Imported on first use (PEP 562), so that
#: ``logscope check`` does not pay for pandas, the memory arithmetic, GPU readers, ...
_WHERE: dict[str, str] = {
    **dict.fromkeys(("ArgDiff", "DiffStatus"), "argdiff"),
    **dict.fromkeys(("ArgOption", "ArgTable", "available_versions", "load_arg_table"), "argtable"),
    **dict.fromkeys(("MessageSpec", "Sample"), "catalog"),
    **dict.fromkeys(("CheckReport", "Verdict", "check"), "check"),
    **dict.fromkeys(("LaunchCommand", "parse_launch_command"), "command"),
    **dict.fromkeys(("CommandError", "InputError", "LogscopeError"), "errors"),
    **dict.fromkeys(("Event", "EventKind", "Rank"), "events"),
    **dict.fromkeys(("Finding", "Severity"), "findings"),
    **dict.fromkeys(("GpuReport", "read_gpus"), "gpus"),
    **dict.fromkeys(("Log", "events_frame", "read_log", "summarize"), "log"),
    **dict.fromkeys(
        (
            "Budget",
            "GpuSpec",
            "ModelFacts",
            "OomVerdict",
            "budget",
            "budget_for_run",
            "oom_verdict",
            "resolve_model",
        ),
        "memory",
    ),
    "CATALOG": "messages",
    "iter_events": "parse",
    **dict.fromkeys(("Preflight", "preflight"), "preflight"),
    **dict.fromkeys(("Failure", "FailureKind", "Outcome", "Run", "split_runs"), "runs"),
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{where}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Package(types.ModuleType):
    """``check`` and ``preflight`` name both a submodule and the function it defines: importing
    the submodule must not replace the package's public function (as with the eager imports)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and _WHERE.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__version__ = "0.1.0"

__all__ = [
    "CATALOG",
    "ArgDiff",
    "ArgOption",
    "ArgTable",
    "Budget",
    "CheckReport",
    "CommandError",
    "DiffStatus",
    "Event",
    "EventKind",
    "Failure",
    "FailureKind",
    "Finding",
    "GpuReport",
    "GpuSpec",
    "InputError",
    "LaunchCommand",
    "Log",
    "LogscopeError",
    "MessageSpec",
    "ModelFacts",
    "OomVerdict",
    "Outcome",
    "Preflight",
    "Rank",
    "Run",
    "Sample",
    "Severity",
    "Verdict",
    "__version__",
    "available_versions",
    "budget",
    "budget_for_run",
    "check",
    "events_frame",
    "iter_events",
    "load_arg_table",
    "oom_verdict",
    "parse_launch_command",
    "preflight",
    "read_gpus",
    "read_log",
    "resolve_model",
    "split_runs",
    "summarize",
]
