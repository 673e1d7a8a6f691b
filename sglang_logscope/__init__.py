"""sglang-logscope: forensics for SGLang server logs.

Parse a log into events and runs, check whether its last run is the launch you intended,
and recompute SGLang's memory arithmetic to tell a real OOM from a ghost.
"""

from __future__ import annotations

from .argtable import ArgOption, ArgTable, available_versions, load_arg_table
from .catalog import MessageSpec, Sample
from .command import LaunchCommand, parse_launch_command
from .errors import CommandError, InputError, LogscopeError
from .events import Event, EventKind, Rank
from .log import Log, read_log, summarize
from .messages import CATALOG
from .parse import iter_events
from .runs import Failure, FailureKind, Outcome, Run, split_runs

__version__ = "0.1.0"

__all__ = [
    "CATALOG",
    "ArgOption",
    "ArgTable",
    "CommandError",
    "Event",
    "EventKind",
    "Failure",
    "FailureKind",
    "InputError",
    "LaunchCommand",
    "Log",
    "LogscopeError",
    "MessageSpec",
    "Outcome",
    "Rank",
    "Run",
    "Sample",
    "__version__",
    "available_versions",
    "iter_events",
    "load_arg_table",
    "parse_launch_command",
    "read_log",
    "split_runs",
    "summarize",
]
