"""sglang-logscope: forensics for SGLang server logs.

Parse a log into events and runs, check whether its last run is the launch you intended,
and recompute SGLang's memory arithmetic to tell a real OOM from a ghost.
"""

from __future__ import annotations

from .argdiff import ArgDiff, DiffStatus
from .argtable import ArgOption, ArgTable, available_versions, load_arg_table
from .catalog import MessageSpec, Sample
from .check import CheckReport, Verdict, check
from .command import LaunchCommand, parse_launch_command
from .errors import CommandError, InputError, LogscopeError
from .events import Event, EventKind, Rank
from .findings import Finding, Severity
from .gpus import GpuReport, read_gpus
from .log import Log, read_log, summarize
from .memory import (
    Budget,
    GpuSpec,
    ModelFacts,
    OomVerdict,
    budget,
    budget_for_run,
    oom_verdict,
    resolve_model,
)
from .messages import CATALOG
from .parse import iter_events
from .preflight import Preflight, preflight
from .runs import Failure, FailureKind, Outcome, Run, split_runs

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
