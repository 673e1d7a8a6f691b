"""The typed records the parser produces: ranks, event kinds and events, and what each kind
means (:data:`KIND_ROLES`, one row per kind: every kind set of ``parse/``, ``log/`` and
``watch/`` is derived from it)."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any

from ._record import record
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


class FailureKind(str, enum.Enum):
    """Why a run died, most specific first (the order a run's failures are ranked in)."""

    NOT_ENOUGH_MEMORY = "not_enough_memory"
    WEIGHTS_LEAVE_NO_MEMORY = "weights_leave_no_memory"
    MAMBA_STATE_TOO_SMALL = "mamba_state_too_small"
    CUDA_OOM = "cuda_oom"
    ARGPARSE_ERROR = "argparse_error"
    PORT_IN_USE = "port_in_use"
    NCCL_ERROR = "nccl_error"
    ENVIRONMENT = "environment"
    EXCEPTION = "exception"
    #: a signal or native abort says least (a traceback before it names the cause)
    ABORTED = "aborted"

    @property
    def is_oom(self) -> bool:
        return self in OOM_FAILURES

    @property
    def words(self) -> str:
        """What the failure means, in the words of ``check``'s first line."""
        return FAILURE_WORDS[self]


_FK = FailureKind
#: What each failure means, in the words of ``check``'s first line (a test holds every kind to
#: a row). Beside the enum, not a column of :data:`KIND_ROLES`: several event kinds mean one
#: failure (five mean ``exception``), and a column would say each of its words several times.
FAILURE_WORDS: Mapping[FailureKind, str] = {
    _FK.NOT_ENOUGH_MEMORY: "not enough memory for the KV pool",
    _FK.WEIGHTS_LEAVE_NO_MEMORY: "the weights leave no memory for the KV pool",
    _FK.MAMBA_STATE_TOO_SMALL: "the memory left is too small for the mamba state pool",
    _FK.CUDA_OOM: "CUDA out of memory",
    _FK.ARGPARSE_ERROR: "SGLang's argparse rejected the command",
    _FK.PORT_IN_USE: "the port is already in use",
    _FK.NCCL_ERROR: "an NCCL error",
    _FK.ENVIRONMENT: "the environment cannot run SGLang (a module, library, driver or path)",
    _FK.EXCEPTION: "an exception",
    _FK.ABORTED: "the process was killed or aborted (a signal, no Python traceback)",
}


class Phase(str, enum.Enum):
    """A phase of a starting server, in the order it goes through them."""

    ARGS = "args"
    DIST_INIT = "dist_init"
    WEIGHTS = "weights"
    POOLS = "pools"
    CUDA_GRAPH = "cuda_graph"
    READY = "ready"

    @property
    def label(self) -> str:
        return _PHASE_LABEL[self]


_PHASE_LABEL = {
    Phase.ARGS: "args",
    Phase.DIST_INIT: "distributed init",
    Phase.WEIGHTS: "weights",
    Phase.POOLS: "KV / mamba pools",
    Phase.CUDA_GRAPH: "CUDA graphs",
    Phase.READY: "ready",
}


@record
class KindRole:
    """What an :class:`EventKind` means beyond its name. Every field defaults to "no role"."""

    #: the level a line of this kind implies when its header names none
    level_hint: str | None = None
    #: the run failure this kind means (a run that logs it failed)
    failure: FailureKind | None = None
    #: ``failure`` is an out-of-memory failure
    oom: bool = False
    #: names a traceback's failure: the lowest rank among a block's exceptions wins
    traceback_rank: int | None = None
    #: an exception line (a traceback's last line may be one)
    exception: bool = False
    #: a record of its own even right after a traceback (never its exception text)
    own_record: bool = False
    #: ends a run (beyond the failures, which all do)
    terminal: bool = False
    #: after SGLang's own SIGTERM handler spoke, part of the stop itself, not a failure
    stop_chain: bool = False
    #: printed before the ``server_args`` banner; belongs to the run that follows
    preamble: bool = False
    #: says nothing about how far a run got
    no_progress: bool = False
    #: the server is ready
    ready: bool = False
    #: a batch line: the server is serving
    batch: bool = False
    #: a serving row (batch or access line): folded into counts and times by the check
    serving_row: bool = False
    #: the start-up phase this kind belongs to
    phase: Phase | None = None
    #: a progress line (repeats on one line number as the phase advances)
    progress: bool = False
    #: only a starting server prints it (beyond the phase kinds, which all count but batches)
    startup: bool = False
    #: holds no SGLang text: never evidence of the release that wrote the log
    no_release_text: bool = False
    #: what a Python ``warnings`` line (a release's call site) is read as
    warning_line: bool = False
    #: only an HTTP server prints it (``launch_server``; an offline ``Engine`` never does)
    http_server: bool = False
    #: the engine finished starting (its CUDA graphs captured; batch rows and a capture bar at
    #: 100 % say so too, see ``log/runs.py``): what an
    #: offline ``Engine`` script's own output follows when it ran to its end
    engine_up: bool = False


_R = KindRole
_K = EventKind
_FAIL = FailureKind

#: One row per kind: a new kind without a row fails ``tests/test_kind_roles.py``.
KIND_ROLES: Mapping[EventKind, KindRole] = {
    _K.SERVER_ARGS: _R(phase=Phase.ARGS),
    _K.ARGS_ADJUSTED: _R(level_hint="WARNING", preamble=True, phase=Phase.ARGS),
    _K.ATTENTION_BACKEND: _R(preamble=True, phase=Phase.ARGS),
    _K.LAUNCH_WARNING: _R(preamble=True, phase=Phase.ARGS),
    _K.DIST_INIT_BEGIN: _R(phase=Phase.DIST_INIT),
    _K.DIST_INIT_END: _R(phase=Phase.DIST_INIT),
    _K.MEMORY_BASELINE: _R(phase=Phase.DIST_INIT),
    _K.MEMORY_UNBALANCED: _R(phase=Phase.DIST_INIT),
    _K.LOAD_WEIGHT_BEGIN: _R(phase=Phase.WEIGHTS),
    _K.LOAD_WEIGHT_END: _R(phase=Phase.WEIGHTS),
    _K.WEIGHT_PROGRESS: _R(phase=Phase.WEIGHTS, progress=True),
    _K.KV_CACHE_ALLOCATED: _R(phase=Phase.POOLS),
    _K.MAMBA_CACHE_ALLOCATED: _R(phase=Phase.POOLS),
    _K.SWA_POOL: _R(phase=Phase.POOLS),
    _K.MEMORY_POOL_END: _R(phase=Phase.POOLS),
    _K.TOKEN_SUMMARY: _R(phase=Phase.POOLS),
    _K.CUDA_GRAPH_BEGIN: _R(phase=Phase.CUDA_GRAPH),
    _K.CUDA_GRAPH_END: _R(phase=Phase.CUDA_GRAPH, engine_up=True),
    _K.CUDA_GRAPH_PROGRESS: _R(phase=Phase.CUDA_GRAPH, progress=True),
    _K.CUDA_GRAPH_FAILED: _R(
        failure=_FAIL.EXCEPTION, traceback_rank=9, exception=True, own_record=True
    ),
    _K.STARTUP_TIMINGS: _R(),
    _K.UVICORN_STARTED: _R(startup=True, http_server=True),
    _K.UVICORN_RUNNING: _R(startup=True, http_server=True),
    _K.SERVER_READY: _R(ready=True, phase=Phase.READY, http_server=True),
    _K.PREFILL_BATCH: _R(batch=True, serving_row=True, phase=Phase.READY),
    _K.DECODE_BATCH: _R(batch=True, serving_row=True, phase=Phase.READY),
    _K.HTTP_ACCESS: _R(serving_row=True, http_server=True),
    _K.KV_RETRACT: _R(),
    _K.BENCH_RESULT: _R(terminal=True),
    _K.NOT_ENOUGH_MEMORY: _R(
        level_hint="ERROR", failure=_FAIL.NOT_ENOUGH_MEMORY, oom=True, traceback_rank=1,
        exception=True,
    ),
    _K.WEIGHTS_LEAVE_NO_MEMORY: _R(
        failure=_FAIL.WEIGHTS_LEAVE_NO_MEMORY, oom=True, traceback_rank=2, exception=True
    ),
    _K.MAMBA_STATE_TOO_SMALL: _R(
        failure=_FAIL.MAMBA_STATE_TOO_SMALL, oom=True, traceback_rank=3, exception=True
    ),
    _K.CUDA_OOM: _R(
        level_hint="ERROR", failure=_FAIL.CUDA_OOM, oom=True, traceback_rank=4, exception=True
    ),
    _K.SCHEDULER_EXCEPTION: _R(level_hint="ERROR", failure=_FAIL.EXCEPTION, exception=True),
    _K.EXCEPTION: _R(failure=_FAIL.EXCEPTION, exception=True),
    _K.SIGQUIT: _R(terminal=True, stop_chain=True),
    _K.SCHEDULER_DEAD: _R(
        failure=_FAIL.EXCEPTION, traceback_rank=8, exception=True, own_record=True,
        stop_chain=True,
    ),
    _K.ARGPARSE_USAGE: _R(terminal=True, startup=True),
    _K.ARGPARSE_ERROR: _R(failure=_FAIL.ARGPARSE_ERROR, exception=True, startup=True),
    _K.PORT_IN_USE: _R(failure=_FAIL.PORT_IN_USE, traceback_rank=5, exception=True),
    _K.PORT_WAIT: _R(),
    _K.NCCL_ERROR: _R(failure=_FAIL.NCCL_ERROR, traceback_rank=6, exception=True),
    _K.WATCHDOG_TIMEOUT: _R(),
    _K.WARMUP_FAILED: _R(failure=_FAIL.EXCEPTION),
    _K.SHUTDOWN: _R(terminal=True),
    _K.FOREIGN_TRACEBACK: _R(no_progress=True),
    _K.ENVIRONMENT_ERROR: _R(
        level_hint="ERROR", failure=_FAIL.ENVIRONMENT, traceback_rank=7, exception=True
    ),
    _K.ABORTED: _R(level_hint="ERROR", failure=_FAIL.ABORTED, stop_chain=True),
    _K.SGLANG_MESSAGE: _R(preamble=True, no_progress=True, warning_line=True),
    _K.UNKNOWN: _R(preamble=True, no_progress=True, no_release_text=True),
    _K.TEXT: _R(preamble=True, no_progress=True, no_release_text=True, warning_line=True),
}  # fmt: skip


def kinds_where(test: Callable[[KindRole], object]) -> frozenset[EventKind]:
    """The kinds whose role passes ``test`` (each kind set of the package is one of these)."""
    return frozenset(k for k, r in KIND_ROLES.items() if test(r))


#: The failure kinds that are out-of-memory failures.
OOM_FAILURES = frozenset(r.failure for r in KIND_ROLES.values() if r.oom and r.failure)


@record
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


def move_down(events: Iterable[Event], lines: int) -> None:
    """Number ``events`` ``lines`` further down, in place: only for events this process has
    just made and no one holds yet (those another process parsed a later part of the file
    for, numbered from that part's start: :mod:`.parse.split`)."""
    set_line, set_end = _SLOT_SETTERS[0], _SLOT_SETTERS[3]
    for e in events:
        set_line(e, e.line + lines)
        if e.end_line:
            set_end(e, e.end_line + lines)
