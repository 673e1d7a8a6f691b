"""The typed records the parser produces: ranks, event kinds and events."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from ._text import printed_zone, rfc3339, zone_name


class EventKind(str, enum.Enum):
    """What a log line (or multi-line record) is. Values are stable strings used in JSON."""

    # Run structure and configuration
    SERVER_ARGS = "server_args"
    ARGS_ADJUSTED = "args_adjusted"
    ATTENTION_BACKEND = "attention_backend"
    LAUNCH_WARNING = "launch_warning"
    # Startup phases
    DIST_INIT_BEGIN = "dist_init_begin"
    DIST_INIT_END = "dist_init_end"
    MEMORY_BASELINE = "memory_baseline"
    MEMORY_UNBALANCED = "memory_unbalanced"
    LOAD_WEIGHT_BEGIN = "load_weight_begin"
    LOAD_WEIGHT_END = "load_weight_end"
    WEIGHT_PROGRESS = "weight_progress"
    KV_CACHE_ALLOCATED = "kv_cache_allocated"
    MAMBA_CACHE_ALLOCATED = "mamba_cache_allocated"
    SWA_POOL = "swa_pool"
    MEMORY_POOL_END = "memory_pool_end"
    TOKEN_SUMMARY = "token_summary"
    CUDA_GRAPH_BEGIN = "cuda_graph_begin"
    CUDA_GRAPH_END = "cuda_graph_end"
    CUDA_GRAPH_PROGRESS = "cuda_graph_progress"
    CUDA_GRAPH_FAILED = "cuda_graph_failed"
    STARTUP_TIMINGS = "startup_timings"
    UVICORN_STARTED = "uvicorn_started"
    UVICORN_RUNNING = "uvicorn_running"
    SERVER_READY = "server_ready"
    # Serving
    PREFILL_BATCH = "prefill_batch"
    DECODE_BATCH = "decode_batch"
    HTTP_ACCESS = "http_access"
    KV_RETRACT = "kv_retract"
    # Offline entry points (bench_one_batch, bench_latency, bench_offline_throughput)
    BENCH_RESULT = "bench_result"
    # Failures and shutdown
    NOT_ENOUGH_MEMORY = "not_enough_memory"
    WEIGHTS_LEAVE_NO_MEMORY = "weights_leave_no_memory"
    MAMBA_STATE_TOO_SMALL = "mamba_state_too_small"
    CUDA_OOM = "cuda_oom"
    SCHEDULER_EXCEPTION = "scheduler_exception"
    EXCEPTION = "exception"
    SIGQUIT = "sigquit"
    SCHEDULER_DEAD = "scheduler_dead"
    ARGPARSE_USAGE = "argparse_usage"
    ARGPARSE_ERROR = "argparse_error"
    PORT_IN_USE = "port_in_use"
    PORT_WAIT = "port_wait"
    NCCL_ERROR = "nccl_error"
    WATCHDOG_TIMEOUT = "watchdog_timeout"
    WARMUP_FAILED = "warmup_failed"
    SHUTDOWN = "shutdown"
    FOREIGN_TRACEBACK = "foreign_traceback"
    #: the environment cannot run SGLang: a missing module or shared library, no usable GPU
    #: driver/runtime, a model path that is not there (issue 28)
    ENVIRONMENT_ERROR = "environment_error"
    #: the process died by a signal or a native abort, no Python traceback: ``Killed``,
    #: ``Aborted (core dumped)``, ``Segmentation fault``, ``terminate called ...`` (issue 28)
    ABORTED = "aborted"
    # Everything else: never dropped
    SGLANG_MESSAGE = "sglang_message"
    UNKNOWN = "unknown"
    TEXT = "text"


@dataclass(frozen=True, slots=True)
class Rank:
    """The parallel rank a scheduler line came from, e.g. ``DP0 PP1 TP3 EP3``.

    ``label`` keeps the prefix exactly as printed; the numeric parts are parsed out of it.
    """

    label: str
    dp: int | None = None
    pp: int | None = None
    tp: int | None = None
    ep: int | None = None
    attn_cp: int | None = None
    moe_dp: int | None = None

    def __str__(self) -> str:
        return self.label


@dataclass(frozen=True, slots=True)
class Event:
    """One log record: a physical line, or a multi-line record such as a traceback.

    ``line``..``end_line`` (1-based, inclusive) are the physical lines the event covers;
    every input line belongs to exactly one event. ``timestamp`` is naive, as SGLang prints it
    (time-only headers get the date 1900-01-01; see :attr:`has_date`); in JSON it carries an
    offset only where the zone is known (:meth:`to_dict`).
    """

    line: int
    kind: EventKind
    message: str
    end_line: int = 0
    timestamp: datetime | None = None
    level: str | None = None
    rank: Rank | None = None
    source: str | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""
    truncated: bool = False
    releases: str | None = None
    #: when a container runtime or journald received the line (its outer time, zone-aware);
    #: ``None`` for a plain log
    received_at: datetime | None = None

    @property
    def has_date(self) -> bool:
        return self.timestamp is not None and self.timestamp.year != 1900

    @property
    def line_count(self) -> int:
        return max(self.end_line, self.line) - self.line + 1

    def to_dict(self, zone: tzinfo | None = None) -> dict[str, Any]:
        """A JSON-ready dict (times RFC 3339, enums as their values). ``timestamp`` carries an
        offset when its zone is known: ``zone`` (the log's), else the one its ``received_at``
        shows; ``time_zone`` names that offset, ``None`` when unknown."""
        received = self.received_at
        if zone is None and received is not None:
            zone = printed_zone(self.timestamp, received)
        return {
            "line": self.line,
            "end_line": max(self.end_line, self.line),
            "kind": self.kind.value,
            "timestamp": rfc3339(self.timestamp, zone) if self.timestamp else None,
            "time_zone": zone_name(zone) if zone is not None and self.timestamp else None,
            "level": self.level,
            "rank": self.rank.label if self.rank else None,
            "source": self.source,
            "message": self.message,
            "fields": dict(self.fields),
            "truncated": self.truncated,
            "received_at": rfc3339(received) if received is not None else None,
        }


_SLOT_SETTERS = tuple(
    getattr(Event, name).__set__
    for name in (
        "line", "kind", "message", "end_line", "timestamp", "level", "rank", "source",
        "fields", "text", "truncated", "releases", "received_at",
    )
)  # fmt: skip


def new_event(
    line: int,
    kind: EventKind,
    message: str,
    end_line: int,
    timestamp: datetime | None,
    level: str | None,
    rank: Rank | None,
    source: str | None,
    fields: Mapping[str, Any],
    text: str,
    truncated: bool,
    releases: str | None,
) -> Event:
    """Build an :class:`Event` from all its fields in order, without the frozen ``__init__``'s
    per-field ``object.__setattr__`` (the parser's hot path; the result is an ordinary Event)."""
    e = _new(Event)
    s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12 = _SLOT_SETTERS
    s0(e, line)
    s1(e, kind)
    s2(e, message)
    s3(e, end_line)
    s4(e, timestamp)
    s5(e, level)
    s6(e, rank)
    s7(e, source)
    s8(e, fields)
    s9(e, text)
    s10(e, truncated)
    s11(e, releases)
    s12(e, None)
    return e


_new = object.__new__
