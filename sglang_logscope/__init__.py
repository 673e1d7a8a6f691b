"""sglang-logscope: forensics for SGLang server logs.

Parse a log into events and runs, check whether its last run is the launch you intended,
and recompute SGLang's memory arithmetic to tell a real OOM from a ghost.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .command.argtable import ArgOption, ArgTable, available_versions, load_arg_table
    from .command.fix import FixedCommand
    from .command.parse import LaunchCommand, parse_launch_command
    from .errors import CommandError, InputError, LogscopeError
    from .events import Event, EventKind, Rank
    from .findings import Finding, Severity
    from .log.launches import Launch, Launches, read_launches
    from .log.reader import (
        Log,
        events_frame,
        read_log,
        summarize,
        summarize_file,
        summarize_files,
    )
    from .log.runs import Failure, FailureKind, Outcome, Run, split_runs
    from .machine.gpus import GpuReport, read_gpus
    from .machine.preflight import Preflight, preflight
    from .memory.budget import budget
    from .memory.budget_types import Budget
    from .memory.from_run import budget_for_run
    from .memory.gpus import GpuSpec
    from .memory.models import ModelFacts, resolve_model
    from .memory.verdict import OomVerdict, oom_verdict
    from .parse.catalog import MessageSpec, Sample
    from .parse.lines import iter_events
    from .parse.messages import CATALOG
    from .staleness.argdiff import ArgDiff, DiffStatus
    from .staleness.fixing import fix_command
    from .staleness.judge import check
    from .staleness.launch_check import LaunchCheck, check_launch
    from .staleness.verdict import CheckReport, Verdict

#: Each public name and the module that defines it. Imported on first use (PEP 562), so that
#: ``logscope check`` does not pay for pandas, the memory arithmetic, GPU readers, ...
_WHERE: dict[str, str] = {
    **dict.fromkeys(("ArgDiff", "DiffStatus"), "staleness.argdiff"),
    **dict.fromkeys(
        ("ArgOption", "ArgTable", "available_versions", "load_arg_table"), "command.argtable"
    ),
    **dict.fromkeys(("MessageSpec", "Sample"), "parse.catalog"),
    "check": "staleness.judge",
    "fix_command": "staleness.fixing",
    "FixedCommand": "command.fix",
    **dict.fromkeys(("CheckReport", "Verdict"), "staleness.verdict"),
    **dict.fromkeys(("LaunchCommand", "parse_launch_command"), "command.parse"),
    **dict.fromkeys(("CommandError", "InputError", "LogscopeError"), "errors"),
    **dict.fromkeys(("Event", "EventKind", "Rank"), "events"),
    **dict.fromkeys(("Finding", "Severity"), "findings"),
    **dict.fromkeys(("GpuReport", "read_gpus"), "machine.gpus"),
    **dict.fromkeys(
        ("Log", "events_frame", "read_log", "summarize", "summarize_file", "summarize_files"),
        "log.reader",
    ),
    **dict.fromkeys(("Launch", "Launches", "read_launches"), "log.launches"),
    **dict.fromkeys(("LaunchCheck", "check_launch"), "staleness.launch_check"),
    "Budget": "memory.budget_types",
    "GpuSpec": "memory.gpus",
    **dict.fromkeys(("ModelFacts", "resolve_model"), "memory.models"),
    **dict.fromkeys(("OomVerdict", "oom_verdict"), "memory.verdict"),
    "budget_for_run": "memory.from_run",
    "budget": "memory.budget",
    "CATALOG": "parse.messages",
    "iter_events": "parse.lines",
    **dict.fromkeys(("Preflight", "preflight"), "machine.preflight"),
    **dict.fromkeys(("Failure", "FailureKind", "Outcome", "Run", "split_runs"), "log.runs"),
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
    "FixedCommand",
    "GpuReport",
    "GpuSpec",
    "InputError",
    "Launch",
    "LaunchCheck",
    "LaunchCommand",
    "Launches",
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
    "check_launch",
    "events_frame",
    "fix_command",
    "iter_events",
    "load_arg_table",
    "oom_verdict",
    "parse_launch_command",
    "preflight",
    "read_gpus",
    "read_launches",
    "read_log",
    "resolve_model",
    "split_runs",
    "summarize",
    "summarize_file",
    "summarize_files",
]
