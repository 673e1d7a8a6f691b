"""Follow a launch as it happens: ``logscope watch``.

Three layers, each testable on its own:

- :class:`Follower` reads a path like ``tail -F``: new complete lines on every :meth:`poll`,
  surviving truncation, rewriting in place, replacement by a new file (new inode) and rotation.
  It never sleeps.
- :class:`PhaseTracker` consumes :class:`~sglang_logscope.events.Event` records of one run and
  keeps the phase view: args → distributed init → weights → KV / mamba pools → CUDA graphs →
  ready, with the key figures of each phase.
- :class:`Watcher` ties them together and decides, on every :meth:`Watcher.step` (given the
  time, so tests need no sleeping), whether a run that belongs to the launch has started, how
  far it got, and whether it is ready, crashed, timed out, or never came.

:func:`watch` is the loop around a :class:`Watcher`, reporting through a :class:`Sink`
(rich live view, plain lines, or JSON lines).
"""

from __future__ import annotations

import dataclasses
import enum
import io
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import regex
from rich.table import Table
from rich.text import Text

from . import report
from ._source import MAX_LINE_BYTES, decode_line
from .errors import LogscopeError
from .events import Event, EventKind
from .log import Log
from .parse import iter_events
from .runs import Run, split_runs
from .timing import LaunchTime, file_mtime, to_log_time

if TYPE_CHECKING:
    from rich.console import Console, Group

    from .check import CheckReport
    from .command import LaunchCommand

#: A run whose first timestamp is this much before the launch still counts as the launch.
START_TOLERANCE_S = 2.0
_READ_BLOCK = 1 << 16
#: Bytes read per poll at most; the watcher polls again at once while more is waiting.
MAX_READ_PER_POLL = 8 << 20
#: Bytes before the read offset remembered to notice a file rewritten in place.
_SIGNATURE = 64
#: Bytes at the start of the file remembered for the same purpose.
_HEAD = 1024


# ------------------------------------------------------------------------------ durations

_DURATION = regex.compile(
    r"(?:(?P<h>\d+(?:\.\d+)?)h)?(?:(?P<m>\d+(?:\.\d+)?)m)?(?:(?P<s>\d+(?:\.\d+)?)s?)?"
)


def parse_duration(text: str, option: str = "duration") -> float:
    """Seconds from ``20m``, ``90s``, ``1h``, ``1h30m``, ``2.5`` (plain seconds)."""
    raw = text.strip().lower()
    m = _DURATION.fullmatch(raw) if raw else None
    if m is None or not any(m.group(g) for g in ("h", "m", "s")):
        raise LogscopeError(f"{option} {text!r}: not a duration (e.g. 20m, 90s, 1h, 45)")
    seconds = (
        float(m.group("h") or 0) * 3600 + float(m.group("m") or 0) * 60 + float(m.group("s") or 0)
    )
    if seconds <= 0:
        raise LogscopeError(f"{option} {text!r}: must be more than zero")
    return seconds


# ------------------------------------------------------------------------------ following


class Reset(str, enum.Enum):
    """Why the followed file starts over: everything after a reset is a new generation."""

    REPLACED = "replaced"  # the path now names another file (new inode): rotation, rm + recreate
    TRUNCATED = "truncated"  # the file shrank (``> log`` again)
    REWRITTEN = "rewritten"  # the bytes before our offset changed: truncated and rewritten
    CREATED = "created"  # the path was missing and appeared again after we had followed a file


@dataclass(frozen=True)
class Chunk:
    """What one :meth:`Follower.poll` found.

    ``reset`` is set when a new generation of the file begins *before* ``lines``;
    ``more`` says that data is still waiting (poll again at once).
    """

    lines: tuple[bytes, ...] = ()
    reset: Reset | None = None
    more: bool = False


class Follower:
    """Yield the new complete lines of ``path`` on every :meth:`poll`, like ``tail -F``.

    With ``skip_existing``, what the file holds at the first poll is skipped (its lines are
    counted in :attr:`skipped_lines` so line numbers stay those of the file). A line longer
    than :data:`~sglang_logscope._source.MAX_LINE_BYTES` is cut. The unfinished last line
    (a tqdm bar redrawn with ``\\r``) is available as :attr:`partial`.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        skip_existing: bool = False,
        max_read: int = MAX_READ_PER_POLL,
    ) -> None:
        self.path = os.fspath(path)
        self._skip_existing = skip_existing
        self._max_read = max_read
        self._fd: int | None = None
        self._ident: tuple[int, int] | None = None
        self._offset = 0
        self._buf = bytearray()
        self._skipping = False
        self._sig = b""
        self._head = b""
        self._switch = False
        self._ever_opened = False
        self._polled = False
        #: Lines skipped at the start (``skip_existing``); line numbers count them.
        self.skipped_lines = 0
        #: Whether the file existed at the first poll.
        self.existed_at_start = False
        #: Bytes read so far in the current generation.
        self.bytes_read = 0

    @property
    def partial(self) -> bytes:
        """The unfinished last line (no newline yet), as far as it has been written."""
        return b"" if self._skipping else bytes(self._buf)

    @property
    def is_open(self) -> bool:
        return self._fd is not None

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> Follower:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def poll(self) -> Chunk:
        first = not self._polled
        self._polled = True
        if self._fd is None:
            if not self._open():
                return Chunk()
            reset = Reset.CREATED if self._ever_opened else None
            self._ever_opened = True
            if first:
                self.existed_at_start = True
                if self._skip_existing:
                    self._skip_to_end()
            lines, more = self._read()
            return Chunk(tuple(lines), reset, more)
        if self._switch:
            return self._reopen(Reset.REPLACED)
        try:
            st: os.stat_result | None = os.stat(self.path)
        except OSError:
            st = None
        fst = os.fstat(self._fd)
        if st is not None and (st.st_ino, st.st_dev) != self._ident:
            # Rotated or replaced: drain what the old file still holds, then switch.
            lines, more = self._read()
            if more:
                return Chunk(tuple(lines), None, True)
            if self._buf and not self._skipping:
                lines.append(bytes(self._buf))
            self._switch = True
            return Chunk(tuple(lines), None, True)
        if fst.st_size < self._offset:
            return self._restart(Reset.TRUNCATED)
        if self._sig and self._rewritten():
            return self._restart(Reset.REWRITTEN)
        # st is None: the path was removed; keep draining the open file until it reappears.
        lines, more = self._read()
        return Chunk(tuple(lines), None, more)

    # -- internals

    def _open(self) -> bool:
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise LogscopeError(f"{self.path}: cannot open ({exc.strerror or exc})") from None
        st = os.fstat(fd)
        import stat as _stat

        if _stat.S_ISDIR(st.st_mode):
            os.close(fd)
            raise LogscopeError(f"{self.path}: is a directory, not a log file")
        self._fd = fd
        self._ident = (st.st_ino, st.st_dev)
        self._offset = 0
        self._buf.clear()
        self._skipping = False
        self._sig = b""
        self._head = b""
        self.bytes_read = 0
        return True

    def _skip_to_end(self) -> None:
        """Skip the existing content, counting its lines (so line numbers match the file)."""
        assert self._fd is not None
        end = os.fstat(self._fd).st_size
        count = 0
        offset = 0
        last = b""
        while offset < end:
            data = os.pread(self._fd, min(1 << 20, end - offset), offset)
            if not data:
                break
            count += data.count(b"\n")
            offset += len(data)
            last = data
        self.skipped_lines = count + (1 if last and not last.endswith(b"\n") else 0)
        self._offset = offset
        self._sig = last[-_SIGNATURE:]
        self._head = os.pread(self._fd, min(_HEAD, end), 0) if end else b""
        # The unfinished line of the old content is not ours: skip up to its end.
        self._skipping = bool(last) and not last.endswith(b"\n")

    def _rewritten(self) -> bool:
        assert self._fd is not None
        n = len(self._sig)
        try:
            now = os.pread(self._fd, n, self._offset - n)
            head = os.pread(self._fd, len(self._head), 0) if self._head else b""
        except OSError:
            return False
        return now != self._sig or head != self._head

    def _restart(self, why: Reset) -> Chunk:
        assert self._fd is not None
        self._offset = 0
        self._buf.clear()
        self._skipping = False
        self._sig = b""
        self._head = b""
        self.bytes_read = 0
        self.skipped_lines = 0
        lines, more = self._read()
        return Chunk(tuple(lines), why, more)

    def _reopen(self, why: Reset) -> Chunk:
        self._switch = False
        self.close()
        self.skipped_lines = 0
        if not self._open():
            return Chunk()
        lines, more = self._read()
        return Chunk(tuple(lines), why, more)

    def _read(self) -> tuple[list[bytes], bool]:
        assert self._fd is not None
        out: list[bytes] = []
        total = 0
        while total < self._max_read:
            data = os.pread(self._fd, _READ_BLOCK, self._offset)
            if not data:
                return out, False
            self._offset += len(data)
            self.bytes_read += len(data)
            total += len(data)
            self._sig = (self._sig + data)[-_SIGNATURE:]
            if len(self._head) < _HEAD:
                self._head = (self._head + data)[:_HEAD]
            self._split(data, out)
        return out, True

    def _split(self, data: bytes, out: list[bytes]) -> None:
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                if not self._skipping:
                    self._buf += data[start:]
                    if len(self._buf) > MAX_LINE_BYTES:
                        out.append(bytes(self._buf[:MAX_LINE_BYTES]))
                        self._buf.clear()
                        self._skipping = True
                return
            if self._skipping:
                self._skipping = False
            else:
                self._buf += data[start:nl]
                out.append(bytes(self._buf[:MAX_LINE_BYTES]))
                self._buf.clear()
            start = nl + 1


class EventStream:
    """Incremental parsing: feed complete lines, get events as they become final.

    Every event but the last is final once a later line exists; the last one may still grow
    (a traceback), so it is returned separately as provisional and re-parsed with what follows.
    """

    def __init__(self, first_line: int = 1) -> None:
        self._pending: list[bytes] = []
        self._first = first_line
        self._last: Event | None = None

    def feed(self, lines: Iterable[bytes]) -> list[Event]:
        """Add lines; return the events that became final."""
        self._pending.extend(lines)
        if not self._pending:
            return []
        data = b"\n".join(self._pending) + b"\n"
        shift = self._first - 1
        events = [_shift(e, shift) for e in iter_events(io.BytesIO(data))]
        last = events[-1]
        consumed = last.line - self._first
        self._pending = self._pending[consumed:]
        self._first = last.line
        self._last = last
        return events[:-1]

    @property
    def provisional(self) -> Event | None:
        """The last event parsed, which further lines may still extend."""
        return self._last


def _shift(event: Event, by: int) -> Event:
    if by == 0:
        return event
    return dataclasses.replace(
        event, line=event.line + by, end_line=max(event.end_line, event.line) + by
    )


def parse_partial(partial: bytes, line: int) -> Event | None:
    """A progress bar still being redrawn (no newline yet) as an event, if it is one."""
    if not partial.strip():
        return None
    events = list(iter_events(io.BytesIO(partial)))
    if len(events) != 1 or events[0].kind not in _PROGRESS:
        return None
    return _shift(events[0], line - 1)


# ------------------------------------------------------------------------------ phases


class Phase(str, enum.Enum):
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
PHASES: tuple[Phase, ...] = tuple(Phase)

_PHASE_OF: dict[EventKind, Phase] = {
    EventKind.SERVER_ARGS: Phase.ARGS,
    EventKind.ARGS_ADJUSTED: Phase.ARGS,
    EventKind.ATTENTION_BACKEND: Phase.ARGS,
    EventKind.LAUNCH_WARNING: Phase.ARGS,
    EventKind.DIST_INIT_BEGIN: Phase.DIST_INIT,
    EventKind.DIST_INIT_END: Phase.DIST_INIT,
    EventKind.MEMORY_BASELINE: Phase.DIST_INIT,
    EventKind.MEMORY_UNBALANCED: Phase.DIST_INIT,
    EventKind.LOAD_WEIGHT_BEGIN: Phase.WEIGHTS,
    EventKind.WEIGHT_PROGRESS: Phase.WEIGHTS,
    EventKind.LOAD_WEIGHT_END: Phase.WEIGHTS,
    EventKind.KV_CACHE_ALLOCATED: Phase.POOLS,
    EventKind.MAMBA_CACHE_ALLOCATED: Phase.POOLS,
    EventKind.SWA_POOL: Phase.POOLS,
    EventKind.MEMORY_POOL_END: Phase.POOLS,
    EventKind.TOKEN_SUMMARY: Phase.POOLS,
    EventKind.CUDA_GRAPH_BEGIN: Phase.CUDA_GRAPH,
    EventKind.CUDA_GRAPH_PROGRESS: Phase.CUDA_GRAPH,
    EventKind.CUDA_GRAPH_END: Phase.CUDA_GRAPH,
    EventKind.SERVER_READY: Phase.READY,
    EventKind.PREFILL_BATCH: Phase.READY,
    EventKind.DECODE_BATCH: Phase.READY,
}
_PROGRESS = frozenset({EventKind.WEIGHT_PROGRESS, EventKind.CUDA_GRAPH_PROGRESS})
#: Events that only a starting server prints: a run needs one to count as a launch
#: (an older server still writing serving lines to the file is not a launch).
_STARTUP = frozenset(_PHASE_OF) - {EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH} | {
    EventKind.ARGPARSE_USAGE,
    EventKind.ARGPARSE_ERROR,
    EventKind.UVICORN_STARTED,
    EventKind.UVICORN_RUNNING,
}
_ARG_FIGURES = (
    "model_path", "tp_size", "dp_size", "pp_size", "ep_size", "mem_fraction_static",
    "context_length", "max_running_requests", "chunked_prefill_size", "kv_cache_dtype",
    "speculative_algorithm", "attention_backend", "port",
)  # fmt: skip


@dataclass
class PhaseState:
    """One phase of the view: when it began and ended (log time), figures, progress 0..1."""

    phase: Phase
    started_at: datetime | None = None
    ended_at: datetime | None = None
    entered: bool = False
    done: bool = False
    progress: float | None = None
    figures: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase.value,
            "label": self.phase.label,
            "entered": self.entered,
            "done": self.done,
            "started_at": report.when(self.started_at) if self.started_at else None,
            "ended_at": report.when(self.ended_at) if self.ended_at else None,
            "progress": self.progress,
            "figures": dict(self.figures),
        }


@dataclass(frozen=True)
class PhaseChange:
    """Something worth a line: a phase entered or finished, progress, a warning."""

    kind: str  # "enter" | "done" | "progress" | "warning"
    phase: Phase
    message: str
    line: int
    figures: Mapping[str, Any] = field(default_factory=dict)


class PhaseTracker:
    """The phase view of one run, built from its events (in any rank order; never backwards)."""

    def __init__(self) -> None:
        self.states: dict[Phase, PhaseState] = {p: PhaseState(p) for p in PHASES}
        self.current: Phase | None = None
        self.first_time: datetime | None = None
        self.last_time: datetime | None = None
        self._last_line = 0
        self._min: dict[tuple[Phase, str], float] = {}

    @property
    def ready(self) -> bool:
        return self.states[Phase.READY].entered

    def consume_all(self, events: Iterable[Event]) -> list[PhaseChange]:
        out: list[PhaseChange] = []
        for e in events:
            out.extend(self.consume(e))
        return out

    def consume(self, event: Event) -> list[PhaseChange]:
        """Take one event (events already seen are ignored); return what changed."""
        if event.line < self._last_line or (
            event.line == self._last_line and event.kind not in _PROGRESS
        ):
            return []
        self._last_line = event.line
        if event.timestamp is not None and event.has_date:
            self.first_time = self.first_time or event.timestamp
            self.last_time = event.timestamp
        phase = _PHASE_OF.get(event.kind)
        if phase is None:
            return []
        changes = self._advance(phase, event)
        changes.extend(self._figures(phase, event))
        return changes

    def view(self) -> dict[str, Any]:
        return {
            "phase": self.current.value if self.current else None,
            "phases": [s.to_dict() for s in self.states.values()],
        }

    # -- internals

    def _advance(self, phase: Phase, event: Event) -> list[PhaseChange]:
        order = PHASES.index(phase)
        if self.current is not None and order < PHASES.index(self.current):
            return []  # another rank catching up with an earlier phase
        changes: list[PhaseChange] = []
        if self.current is not phase:
            for earlier in PHASES[:order]:
                st = self.states[earlier]
                if st.entered and not st.done:
                    st.done = True
                    st.ended_at = st.ended_at or event.timestamp
                    if st.progress is not None:
                        st.progress = 1.0
                    changes.append(
                        PhaseChange("done", earlier, _summary(st), event.line, dict(st.figures))
                    )
            st = self.states[phase]
            st.entered = True
            st.started_at = event.timestamp if event.has_date else None
            self.current = phase
            changes.append(PhaseChange("enter", phase, phase.label, event.line))
            if phase is Phase.READY:
                st.done = True
                st.ended_at = event.timestamp
        return changes

    def _figures(self, phase: Phase, event: Event) -> list[PhaseChange]:
        st = self.states[phase]
        f = event.fields
        kind = event.kind
        changes: list[PhaseChange] = []
        if kind is EventKind.SERVER_ARGS:
            args = f.get("args")
            if isinstance(args, Mapping):
                for key in _ARG_FIGURES:
                    if args.get(key) is not None:
                        st.figures[key] = args[key]
        elif kind is EventKind.ARGS_ADJUSTED:
            st.figures["adjusted"] = int(st.figures.get("adjusted", 0)) + 1
            changes.append(
                PhaseChange("warning", phase, f"SGLang adjusted: {event.message}", event.line)
            )
        elif kind is EventKind.ATTENTION_BACKEND and f.get("backend"):
            st.figures["attention_backend"] = f["backend"]
        elif kind is EventKind.DIST_INIT_END:
            self._max(st, "elapsed_s", f.get("elapsed_s"))
            self._max(st, "mem_usage_gib", f.get("mem_usage_gib"))
            st.done = True
            st.ended_at = event.timestamp
        elif kind is EventKind.MEMORY_UNBALANCED:
            st.figures["unbalanced"] = True
            changes.append(
                PhaseChange(
                    "warning", phase, f"memory capacity is unbalanced: {event.message}", event.line
                )
            )
        elif kind is EventKind.LOAD_WEIGHT_BEGIN:
            self._low(phase, st, "free_before_gib", f.get("avail_gib"))
        elif kind is EventKind.WEIGHT_PROGRESS:
            done, total, percent = f.get("done"), f.get("total"), f.get("percent")
            if isinstance(done, int) and isinstance(total, int) and total > 0:
                new = done / total
                if st.progress is None or new > st.progress:
                    st.progress = new
                    st.figures["shards"] = f"{done}/{total}"
                    changes.append(
                        PhaseChange(
                            "progress",
                            phase,
                            f"{done}/{total} shards ({percent if percent is not None else round(100 * new)}%)",
                            event.line,
                            {"done": done, "total": total},
                        )
                    )
        elif kind is EventKind.LOAD_WEIGHT_END:
            self._max(st, "weights_gib", f.get("mem_usage_gib"))
            self._low(phase, st, "free_after_gib", f.get("avail_gib"))
            self._max(st, "elapsed_s", f.get("elapsed_s"))
            if f.get("model_class"):
                st.figures["model_class"] = f["model_class"]
            if st.progress is not None:
                st.progress = 1.0
            st.ended_at = event.timestamp
        elif kind is EventKind.KV_CACHE_ALLOCATED:
            if f.get("tokens") is not None:
                st.figures["kv_tokens"] = f["tokens"]
            sizes = [
                float(f[k])
                for k in ("k_gib", "v_gib", "kv_gib")
                if isinstance(f.get(k), (int, float))
            ]
            if sizes:
                st.figures["kv_gib"] = round(sum(sizes), 2)
        elif kind is EventKind.MAMBA_CACHE_ALLOCATED:
            if f.get("max_mamba_cache_size") is not None:
                st.figures["mamba_slots"] = f["max_mamba_cache_size"]
            sizes = [
                float(v) for k, v in f.items() if k.endswith("_gib") and isinstance(v, (int, float))
            ]
            if sizes:
                st.figures["mamba_gib"] = round(sum(sizes), 2)
        elif kind is EventKind.MEMORY_POOL_END:
            self._low(phase, st, "free_after_gib", f.get("avail_gib"))
        elif kind is EventKind.TOKEN_SUMMARY:
            for key in ("max_total_num_tokens", "max_running_requests", "context_len"):
                if f.get(key) is not None:
                    st.figures[key] = f[key]
        elif kind is EventKind.CUDA_GRAPH_BEGIN:
            self._low(phase, st, "free_before_gib", f.get("avail_gib"))
        elif kind is EventKind.CUDA_GRAPH_PROGRESS:
            if f.get("bs") is not None:
                st.figures["bs"] = f["bs"]
            # The bar itself ('4/4') is not a field: read it from the text when present.
            m = _BAR.search(event.message)
            if m is not None and int(m.group(2)) > 0:
                new = int(m.group(1)) / int(m.group(2))
                if st.progress is None or new > st.progress:
                    st.progress = new
                    changes.append(
                        PhaseChange(
                            "progress", phase, f"{m.group(1)}/{m.group(2)} batch sizes", event.line
                        )
                    )
        elif kind is EventKind.CUDA_GRAPH_END:
            self._max(st, "elapsed_s", f.get("elapsed_s"))
            self._low(phase, st, "free_after_gib", f.get("avail_gib"))
            st.ended_at = event.timestamp
        elif (
            kind is EventKind.SERVER_READY
            and self.first_time
            and event.has_date
            and event.timestamp
        ):
            st.figures["startup_s"] = round((event.timestamp - self.first_time).total_seconds(), 1)
        return changes

    def _max(self, st: PhaseState, key: str, value: Any) -> None:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            st.figures[key] = max(float(value), float(st.figures.get(key, value)))

    def _low(self, phase: Phase, st: PhaseState, key: str, value: Any) -> None:
        """Per-rank figures keep the lowest (the rank that limits)."""
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            old = self._min.get((phase, key))
            if old is None or value < old:
                self._min[(phase, key)] = float(value)
                st.figures[key] = float(value)


_BAR = regex.compile(r"\|\s{0,4}+(\d{1,7}+)/(\d{1,7}+) \[")

_FIGURE_FORMAT: dict[str, Callable[[Any], str]] = {
    "free_before_gib": lambda v: f"{v:.2f} GiB free before",
    "free_after_gib": lambda v: f"{v:.2f} GiB free after",
    "weights_gib": lambda v: f"weights {v:.2f} GiB",
    "kv_gib": lambda v: f"KV {v:.2f} GiB",
    "mamba_gib": lambda v: f"mamba {v:.2f} GiB",
    "mem_usage_gib": lambda v: f"{v:.2f} GiB used",
    "elapsed_s": lambda v: f"{v:.1f} s",
    "startup_s": lambda v: f"startup {v:.1f} s",
    "kv_tokens": lambda v: f"{v} tokens",
    "mamba_slots": lambda v: f"{v} mamba slots",
    "unbalanced": lambda v: "UNBALANCED" if v else "",
    "adjusted": lambda v: f"{v} adjusted by SGLang",
}


def figures_text(figures: Mapping[str, Any]) -> str:
    """``tp_size=2, 47.00 GiB free before, ...``: a phase's figures in one line."""
    parts: list[str] = []
    for key, value in figures.items():
        fmt = _FIGURE_FORMAT.get(key)
        if fmt is not None:
            try:
                text = fmt(value)
            except (TypeError, ValueError):
                text = f"{key}={value}"
        else:
            text = f"{key}={value}"
        if text:
            parts.append(text)
    return ", ".join(parts)


def _summary(st: PhaseState) -> str:
    return f"{st.phase.label} done" + (f": {figures_text(st.figures)}" if st.figures else "")


# ------------------------------------------------------------------------------ the watcher


class WatchOutcome(str, enum.Enum):
    READY = "ready"
    CRASHED = "crashed"
    EXITED = "exited"  # the launched process ended without a ready line or a failure
    TIMEOUT = "timeout"  # a run started but was neither ready nor failed in time
    STALE = "stale"  # nothing of the launch came: the file holds only earlier content

    @property
    def exit_code(self) -> int:
        return 0 if self is WatchOutcome.READY else 1


@dataclass(frozen=True)
class Note:
    """One thing the watch says: waiting, a run started, a phase change, the end."""

    kind: str
    message: str
    elapsed: float
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "elapsed_s": round(self.elapsed, 2),
            "message": self.message,
            **self.data,
        }


@dataclass(frozen=True)
class WatchResult:
    outcome: WatchOutcome
    log: str
    message: str
    elapsed: float
    run: Run | None = field(default=None, repr=False)
    phases: Mapping[str, Any] | None = None
    check: CheckReport | None = field(default=None, repr=False)
    tail: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int:
        return self.outcome.exit_code

    def to_dict(self) -> dict[str, Any]:
        run = self.run
        out: dict[str, Any] = {
            "event": "result",
            "schema_version": 1,
            "log": self.log,
            "outcome": self.outcome.value,
            "message": self.message,
            "elapsed_s": round(self.elapsed, 2),
            "run": {
                "first_line": run.first_line,
                "last_line": run.last_line,
                "started_at": report.when(run.started_at) if run.started_at else None,
                "outcome": run.outcome.value,
            }
            if run
            else None,
            "phases": dict(self.phases) if self.phases else None,
            "tail": list(self.tail),
        }
        if self.check is not None:
            data = self.check.to_dict()
            for key in ("failure", "arg_diff", "oom", "budget", "findings", "next_steps"):
                out[key] = data.get(key)
        return out


@dataclass(frozen=True)
class WatchOptions:
    """What to watch for and how long. Times in seconds."""

    launched_at: LaunchTime | None = None
    log_tz: tzinfo | None = None
    expect: LaunchCommand | None = None
    timeout: float = 20 * 60
    quiet_after: float = 60.0
    settle: float = 1.0
    #: The whole current file belongs to the launch (``logscope launch`` created it).
    fresh_file: bool = False
    #: The launched server's pid (for messages) and a check that it is still running.
    pid: int | None = None
    alive: Callable[[], bool] | None = None
    tail_lines: int = 20


class Watcher:
    """Decide, one :meth:`step` at a time, what became of the launch that writes ``path``.

    Content that was in the file before the launch is ignored: with a launch time, runs that
    started before it; without one, everything the file held when the watch began; with
    ``fresh_file``, nothing (the launch created the file). Whatever is written after the watch
    began is new, whatever its timestamps say (a log in another time zone is still followed).
    """

    def __init__(
        self, path: str | os.PathLike[str], options: WatchOptions, *, start: float
    ) -> None:
        self.path = os.fspath(path)
        self.opt = options
        self.start = start
        self._now = start
        self._by_time = options.launched_at is not None and not options.fresh_file
        self._skip = options.launched_at is None and not options.fresh_file
        self.follower = Follower(self.path, skip_existing=self._skip)
        self.result: WatchResult | None = None
        self._stream = EventStream()
        self._opened = False
        self._events: list[Event] = []  # final events after the cut, file order
        self._cut = 0  # lines up to this one are earlier content
        self._initial = self._by_time  # still reading what the file held at start
        self._lines_seen = 0  # lines read in this generation (after any skipped ones)
        self._last_data = start
        self._dirty = False
        self._run: Run | None = None
        self._tracker: PhaseTracker | None = None
        self._told_quiet = False
        self._told_stall = False
        self._written = False  # a line was written after the watch began
        self._tail: list[str] = []
        #: Why the arg diff was left out of the forensic summary, if it was.
        self.forensics_note: str | None = None

    @property
    def done(self) -> bool:
        return self.result is not None

    @property
    def tracker(self) -> PhaseTracker | None:
        return self._tracker

    @property
    def run(self) -> Run | None:
        return self._run

    def close(self) -> None:
        self.follower.close()

    def begin(self) -> list[Note]:
        """The first note: what is being waited for."""
        return [
            self._note(
                "waiting",
                f"waiting for a run that starts after {self._launch_text()} in {self.path}",
            )
        ]

    def step(self, now: float) -> list[Note]:
        """Read what is new, update the phase view, and decide whether the watch is over."""
        if self.result is not None:
            return []
        self._now = now
        # Asked before reading: a process found dead has written all it will write.
        alive = self.opt.alive() if self.opt.alive is not None else True
        notes: list[Note] = []
        for _ in range(64):
            chunk = self.follower.poll()
            if self.follower.is_open and not self._opened:
                notes.extend(self._on_open())
            if chunk.reset is not None:
                notes.extend(self._on_reset(chunk.reset, now))
            if chunk.lines:
                self._accept(chunk.lines, now)
            if self._initial and not chunk.more:
                if self.follower.is_open:
                    notes.extend(self._end_initial())
                elif not self.follower.existed_at_start:
                    self._initial = False  # no file at start: all of it will be new
            if not chunk.more:
                break
        if self._dirty:
            self._dirty = False
            notes.extend(self._update())
        notes.extend(self._partial_progress())
        notes.extend(self._decide(now, alive))
        return notes

    # -- reading

    def _on_open(self) -> list[Note]:
        self._opened = True
        skipped = self.follower.skipped_lines
        self._stream = EventStream(first_line=skipped + 1)
        if self._skip and skipped:
            self._cut = skipped
            return [
                self._note(
                    "ignoring", f"ignoring the {skipped} line(s) already in the file", lines=skipped
                )
            ]
        return []

    def _accept(self, lines: Sequence[bytes], now: float) -> None:
        self._last_data = now
        if not self._initial:
            self._written = True
            self._tail.extend(decode_line(raw) for raw in lines[-self.opt.tail_lines :])
            del self._tail[: -self.opt.tail_lines]
        self._lines_seen += len(lines)
        final = self._stream.feed(lines)
        self._events.extend(e for e in final if e.line > self._cut)
        self._dirty = True

    def _on_reset(self, why: Reset, now: float) -> list[Note]:
        self._stream = EventStream()
        self._lines_seen = 0
        self._events = []
        self._cut = 0
        self._initial = False
        self._run = None
        self._tracker = None
        self._tail = []
        self._last_data = now
        self._dirty = True
        what = {
            Reset.REPLACED: "was replaced by a new file (rotated or recreated)",
            Reset.TRUNCATED: "was truncated",
            Reset.REWRITTEN: "was truncated and rewritten",
            Reset.CREATED: "was created again",
        }[why]
        return [
            self._note(
                "reset",
                f"{self.path} {what}: following the new content from its first line",
                reset=why.value,
            )
        ]

    def _end_initial(self) -> list[Note]:
        """What the file held at start is read: keep only runs that belong to the launch."""
        self._initial = False
        initial_lines = self._lines_seen
        events = list(self._events)
        prov = self._stream.provisional
        if prov is not None:
            events.append(prov)
        runs = [r for r in split_runs(events) if _is_launch(r)] if events else []
        keep = next((r for r in runs if self._started_after_launch(r, last=r is runs[-1])), None)
        earlier = [r for r in runs if keep is None or r.first_line < keep.first_line]
        self._cut = keep.first_line - 1 if keep is not None else initial_lines
        self._events = [e for e in self._events if e.line > self._cut]
        self._dirty = True
        if earlier:
            last = earlier[-1]
            started = (
                f"started {report.when(last.started_at)}"
                if last.started_at
                else "start time not printed"
            )
            failure = f" ({last.failure.kind.value})" if last.failure else ""
            msg = (
                f"ignoring {len(earlier)} earlier run(s) in the file; the last one {started}, "
                f"{last.outcome.value}{failure}, lines {last.first_line}-{last.last_line}"
            )
            return [self._note("ignoring", msg, earlier_runs=len(earlier), lines=self._cut)]
        if keep is None and initial_lines:
            return [
                self._note(
                    "ignoring",
                    f"ignoring the {initial_lines} line(s) already in the file",
                    lines=initial_lines,
                )
            ]
        return []

    # -- judging

    def _launch_moment(self, day: datetime | None) -> datetime | None:
        lt = self.opt.launched_at
        if lt is None:
            return None
        moment = lt.on(day.date() if day is not None else None)
        if moment.year == 1900:
            return None
        return to_log_time(moment, self.opt.log_tz)

    def _started_after_launch(self, run: Run, *, last: bool) -> bool:
        """For content that was there at start: did this run start after the launch?"""
        started = run.started_at if run.started_at and run.started_at.year != 1900 else None
        launch = self._launch_moment(started)
        if launch is None:
            return False
        if started is not None:
            return (launch - started).total_seconds() <= START_TOLERANCE_S
        # No time in the run (argparse died at once): the launch's if it is the last run and
        # the file was written after the launch.
        mtime = file_mtime(self.path, self.opt.log_tz)
        return last and mtime is not None and (launch - mtime).total_seconds() <= START_TOLERANCE_S

    def _update(self) -> list[Note]:
        events = list(self._events)
        prov = self._stream.provisional
        if (
            prov is not None
            and prov.line > self._cut
            and (not events or prov.line > events[-1].line)
        ):
            events.append(prov)
        if self._initial or not events:
            return []
        runs = [r for r in split_runs(events) if _is_launch(r)]
        if not runs:
            return []
        run = runs[-1]
        notes: list[Note] = []
        if self._run is None or run.first_line != self._run.first_line:
            self._tracker = PhaseTracker()
            when = report.when(run.started_at) if run.started_at else "time not printed"
            notes.append(
                self._note(
                    "run_started",
                    f"a new run started at line {run.first_line} ({when})",
                    line=run.first_line,
                )
            )
            self._told_stall = False
        self._run = run
        assert self._tracker is not None
        notes.extend(self._change_note(c) for c in self._tracker.consume_all(run.events))
        return notes

    def _partial_progress(self) -> list[Note]:
        if self._tracker is None or self._run is None:
            return []
        line = self.follower.skipped_lines + self._lines_seen + 1
        event = parse_partial(self.follower.partial, line)
        if event is None:
            return []
        return [self._change_note(c) for c in self._tracker.consume(event)]

    def _decide(self, now: float, alive: bool) -> list[Note]:
        quiet = now - self._last_data
        run = self._run
        tracker = self._tracker
        if run is not None and tracker is not None and tracker.ready:
            return self._finish(WatchOutcome.READY, now, f"ready: {self._ready_text(tracker)}")
        if run is not None and run.failure is not None and (quiet >= self.opt.settle or not alive):
            return self._finish(WatchOutcome.CRASHED, now, self._crash_text(run))
        who = f"the server (pid {self.opt.pid})" if self.opt.pid else "the server"
        if not alive:
            if run is not None:
                return self._finish(
                    WatchOutcome.EXITED,
                    now,
                    f"{who} exited during {self._phase_text()} with no failure in the log",
                )
            return self._finish(
                WatchOutcome.EXITED, now, f"{who} exited without writing a run to {self.path}"
            )
        if now - self.start >= self.opt.timeout:
            took = _secs(now - self.start)
            if run is not None:
                return self._finish(
                    WatchOutcome.TIMEOUT, now, f"timed out after {took} in {self._phase_text()}"
                )
            return self._finish(
                WatchOutcome.STALE, now, f"{self._nothing_text(now)}; gave up after {took}"
            )
        notes: list[Note] = []
        if run is None and not self._told_quiet and now - self.start >= self.opt.quiet_after:
            self._told_quiet = True
            notes.append(self._note("quiet", self._nothing_text(now)))
        if run is not None and not self._told_stall and quiet >= self.opt.quiet_after:
            self._told_stall = True
            notes.append(
                self._note("stall", f"no new line for {_secs(quiet)} (in {self._phase_text()})")
            )
        elif quiet < self.opt.quiet_after:
            self._told_stall = False
        return notes

    def _nothing_text(self, now: float) -> str:
        since = _secs(now - self.start)
        if not self._written:
            if not self.follower.is_open:
                return f"nothing has started writing: {self.path} does not exist ({since} since the watch began)"
            return f"nothing has started writing to {self.path} ({since} since the watch began)"
        last = self._tail[-1] if self._tail else ""
        return f"{self.path} was written, but no SGLang run has started; last line: {report.visible(last, 200)}"

    def _finish(self, outcome: WatchOutcome, now: float, message: str) -> list[Note]:
        run = self._run
        check_report = self._forensics(run) if outcome is WatchOutcome.CRASHED and run else None
        self.result = WatchResult(
            outcome=outcome,
            log=self.path,
            message=message,
            elapsed=now - self.start,
            run=run,
            phases=self._tracker.view() if self._tracker else None,
            check=check_report,
            tail=tuple(self._tail),
        )
        return []

    def _forensics(self, run: Run) -> CheckReport:
        """``check`` of this run against the intended command: failure, arg diff, OOM, budget."""
        from .check import check

        log = Log(name=self.path, events=run.events, runs=(run,))
        return check(
            log, expect=self.opt.expect, launched_at=self.opt.launched_at, log_tz=self.opt.log_tz
        )

    # -- wording

    def _note(self, kind: str, message: str, **data: Any) -> Note:
        return Note(kind, message, self._now - self.start, data)

    def _change_note(self, change: PhaseChange) -> Note:
        data: dict[str, Any] = {"phase": change.phase.value, "line": change.line}
        if change.figures:
            data["figures"] = dict(change.figures)
        kind = {
            "enter": "phase",
            "done": "phase_done",
            "progress": "progress",
            "warning": "warning",
        }[change.kind]
        return self._note(kind, change.message, **data)

    def _phase_text(self) -> str:
        tracker = self._tracker
        if tracker is None or tracker.current is None:
            return "startup (no phase reached yet)"
        return f"phase {tracker.current.label}"

    def _ready_text(self, tracker: PhaseTracker) -> str:
        st = tracker.states[Phase.READY]
        if "startup_s" in st.figures:
            return f"the server is up (startup {st.figures['startup_s']:.1f} s in the log)"
        return "the server is up"

    def _crash_text(self, run: Run) -> str:
        assert run.failure is not None
        return (
            f"crashed in {self._phase_text()}: {run.failure.kind.value} at line {run.failure.line}"
        )

    def _launch_text(self) -> str:
        if self.opt.fresh_file:
            return "the launch (a new log file)"
        if self.opt.launched_at is not None:
            return f"the launch at {self.opt.launched_at.text}"
        return "the watch began (content already in the file is ignored)"


def _is_launch(run: Run) -> bool:
    return run.failure is not None or any(e.kind in _STARTUP for e in run.events)


def _secs(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 120:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


# ------------------------------------------------------------------------------ options


def pid_alive(pid: int) -> bool:
    """Is ``pid`` a running process here (a zombie counts as gone)?"""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return True
    state = stat.rpartition(b")")[2].split()[:1]
    return state != [b"Z"]


@dataclass(frozen=True)
class Prepared:
    """Options for a watch, and what was said while preparing them."""

    options: WatchOptions
    notes: tuple[str, ...] = ()


def prepare(
    log: str | os.PathLike[str],
    *,
    expect_args: str | os.PathLike[str] | None = None,
    launched_at: str | None = None,
    log_tz: str | None = None,
    timeout: float = 20 * 60,
    quiet_after: float = 60.0,
    settle: float = 1.0,
) -> Prepared:
    """Build :class:`WatchOptions` from what the user gave, and the launch record beside the log.

    ``--expect-args`` and ``--launched-at`` win; otherwise the record (``LOG.launch.json``)
    gives the launch time, the intended command and the pid (watched while on this host).
    Bad user input raises :class:`LogscopeError`; a bad record is ignored with a note.
    """
    from .command import parse_launch_command, read_command_file
    from .errors import CommandError
    from .launch import read_record
    from .timing import parse_launched_at, parse_tz

    notes: list[str] = []
    zone = parse_tz(log_tz)
    when = parse_launched_at(launched_at) if launched_at is not None else None
    intended: LaunchCommand | None = None
    if expect_args is not None:
        text, base = read_command_file(os.fspath(expect_args))
        intended = parse_launch_command(text, base_dir=base)
    try:
        record = read_record(log)
    except LogscopeError as exc:
        record = None
        notes.append(f"launch record ignored: {exc}")
    pid: int | None = None
    alive: Callable[[], bool] | None = None
    if record is not None:
        if when is None:
            when = parse_launched_at(record.launched_at)
            import socket

            if record.host == socket.gethostname():
                pid = record.pid
                if pid_alive(record.pid):
                    alive = _alive_check(record.pid)
                else:
                    # Gone already: that launch died, or the log was relaunched by other means.
                    # Do not end the watch on it; time and the log decide.
                    notes.append(
                        f"the recorded server (pid {record.pid}) is not running; "
                        "waiting for a new run in the log all the same"
                    )
            notes.append(
                f"launch record: pid {record.pid} on {record.host}, launched {record.launched_at}"
            )
        if intended is None:
            try:
                intended = parse_launch_command(record.command, base_dir=Path(record.cwd))
            except CommandError as exc:
                notes.append(f"the recorded command is not an SGLang launch, no arg diff: {exc}")
    options = WatchOptions(
        launched_at=when,
        log_tz=zone,
        expect=intended,
        timeout=timeout,
        quiet_after=quiet_after,
        settle=settle,
        pid=pid,
        alive=alive,
    )
    return Prepared(options, tuple(notes))


def _alive_check(pid: int) -> Callable[[], bool]:
    return lambda: pid_alive(pid)


# ------------------------------------------------------------------------------ the loop


class Sink(Protocol):
    """Where a watch reports: notes as they come, the live view, the result."""

    def start(self, watcher: Watcher) -> None: ...

    def note(self, note: Note) -> None: ...

    def refresh(self, watcher: Watcher) -> None: ...

    def stop(self) -> None: ...

    def finish(self, result: WatchResult) -> None: ...


def watch(
    path: str | os.PathLike[str],
    options: WatchOptions,
    sink: Sink,
    *,
    poll_interval: float = 0.5,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    preamble: Iterable[str] = (),
) -> WatchResult:
    """Follow ``path`` until the launch is ready, crashed, gone or timed out; report to ``sink``.

    ``KeyboardInterrupt`` propagates (after the sink's live display is stopped): the caller
    says what it means. The server is never touched.
    """
    watcher = Watcher(path, options, start=clock())
    try:
        sink.start(watcher)
        for text in preamble:
            sink.note(Note("info", text, 0.0))
        for note in watcher.begin():
            sink.note(note)
        while True:
            for note in watcher.step(clock()):
                sink.note(note)
            sink.refresh(watcher)
            if watcher.result is not None:
                break
            sleep(poll_interval)
    finally:
        watcher.close()
        sink.stop()
    result = watcher.result
    sink.finish(result)
    return result


# ------------------------------------------------------------------------------ rendering

_NOTE_LABEL = {
    "waiting": "waiting",
    "ignoring": "ignoring",
    "info": "info",
    "quiet": "QUIET",
    "stall": "stalled",
    "reset": "reset",
    "run_started": "started",
    "phase": "phase",
    "phase_done": "done",
    "progress": "progress",
    "warning": "warning",
}
_NOTE_STYLE = {
    "quiet": "bold yellow",
    "stall": "yellow",
    "warning": "yellow",
    "reset": "cyan",
    "run_started": "bold",
    "phase": "bold cyan",
}
_OUTCOME_STYLE = {
    "ready": "bold green",
    "crashed": "bold red",
    "exited": "bold red",
    "timeout": "bold yellow",
    "stale": "bold red",
}


def note_text(note: Note) -> Text:
    label = _NOTE_LABEL.get(note.kind, note.kind)
    return Text.assemble(
        (f"[+{note.elapsed:6.1f}s] ", "dim"),
        (f"{label:<9} ", _NOTE_STYLE.get(note.kind, "")),
        report.plain(note.message, limit=400),
    )


class PlainSink:
    """One line per note; the result as a short report. For pipes and ``--format text`` off a TTY."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def start(self, watcher: Watcher) -> None:
        pass

    def note(self, note: Note) -> None:
        self.console.print(note_text(note), soft_wrap=True)

    def refresh(self, watcher: Watcher) -> None:
        pass

    def stop(self) -> None:
        pass

    def finish(self, result: WatchResult) -> None:
        render_result(self.console, result)


class JsonlSink:
    """One JSON object per note, then the result object (``"event": "result"``)."""

    def __init__(self, out: Any = None) -> None:
        import sys

        self.out = out if out is not None else sys.stdout

    def _write(self, data: Mapping[str, Any]) -> None:
        self.out.write(report.to_json(data, indent=None) + "\n")
        self.out.flush()

    def start(self, watcher: Watcher) -> None:
        pass

    def note(self, note: Note) -> None:
        self._write(note.to_dict())

    def refresh(self, watcher: Watcher) -> None:
        pass

    def stop(self) -> None:
        pass

    def finish(self, result: WatchResult) -> None:
        self._write(result.to_dict())


class LiveSink:
    """A rich live view of the phases, the last notes below it; the result printed after."""

    def __init__(self, console: Console, keep_notes: int = 6) -> None:
        from rich.live import Live

        self.console = console
        self._notes: list[Note] = []
        self._keep = keep_notes
        self._live = Live(
            console=console, refresh_per_second=4, transient=False, auto_refresh=False
        )
        self._watcher: Watcher | None = None
        self._started = False

    def start(self, watcher: Watcher) -> None:
        self._watcher = watcher
        self._live.start()
        self._started = True

    def note(self, note: Note) -> None:
        if note.kind in ("progress",):
            return
        self._notes.append(note)
        del self._notes[: -self._keep]

    def refresh(self, watcher: Watcher) -> None:
        self._live.update(live_view(watcher, self._notes), refresh=True)

    def stop(self) -> None:
        if self._started:
            if self._watcher is not None:
                self._live.update(live_view(self._watcher, self._notes), refresh=True)
            self._live.stop()
            self._started = False

    def finish(self, result: WatchResult) -> None:
        render_result(self.console, result, phases=False)


def phase_table(phases: Mapping[str, Any] | None, *, failed: bool = False) -> Table:
    """The phases as a table: state, name, progress, figures (numbers from the log, as text)."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(width=2)
    table.add_column(min_width=18)
    table.add_column(width=12)
    table.add_column()
    rows = phases.get("phases", []) if phases else [PhaseState(p).to_dict() for p in PHASES]
    current = phases.get("phase") if phases else None
    for row in rows:
        if row["done"]:
            mark, style = "✓", "green"
        elif row["phase"] == current:
            mark, style = ("✗", "red") if failed else ("▶", "bold cyan")
        else:
            mark, style = "·", "dim"
        progress = row.get("progress")
        bar = _bar(progress) if progress is not None else ""
        table.add_row(
            Text(mark, style=style),
            Text(row["label"], style=style),
            Text(bar),
            report.plain(figures_text(row["figures"]), limit=200),
        )
    return table


def _bar(fraction: float, width: int = 8) -> str:
    fraction = min(1.0, max(0.0, fraction))
    filled = round(fraction * width)
    return "█" * filled + "░" * (width - filled) + f" {fraction * 100:3.0f}%"


def live_view(watcher: Watcher, notes: Sequence[Note]) -> Group:
    from rich.console import Group

    tracker = watcher.tracker
    head = Text.assemble(("logscope watch ", "bold"), report.plain(watcher.path))
    run = watcher.run
    if run is not None:
        head.append(f"  run from line {run.first_line}", style="dim")
    parts: list[Any] = [head, phase_table(tracker.view() if tracker else None)]
    for note in notes:
        parts.append(note_text(note))
    return Group(*parts)


def render_result(console: Console, result: WatchResult, *, phases: bool = True) -> None:
    """The end of a watch: the outcome line, then what explains it."""
    outcome = result.outcome.value
    _line(
        console,
        Text.assemble(
            (outcome.upper(), _OUTCOME_STYLE.get(outcome, "bold")),
            "  ",
            report.plain(result.message, limit=600),
        ),
    )
    failed = result.outcome is not WatchOutcome.READY
    if phases and result.phases:
        console.print(phase_table(result.phases, failed=failed))
    if result.check is not None:
        render_forensics(console, result.check)
    elif failed and result.tail:
        _line(console, Text(f"Last {len(result.tail)} line(s) of the log:", style="bold"))
        for line in result.tail:
            _line(console, Text.assemble("  ", report.plain(line, limit=400)))


def render_forensics(console: Console, data_report: CheckReport) -> None:
    """The crash summary: failure, arg diff, OOM verdict, the budget's suggestions, next steps."""
    data = data_report.to_dict()
    failure = data.get("failure")
    if failure:
        _line(
            console,
            Text.assemble(
                ("Failure ", "bold"), (str(failure["kind"]), "red"), f" at line {failure['line']}"
            ),
        )
        _line(console, Text.assemble("  ", report.plain(str(failure["message"]), limit=600)))
        if failure.get("effective"):
            eff = ", ".join(f"{k}={v!r}" for k, v in failure["effective"].items())
            _line(console, Text.assemble("  effective: ", report.plain(eff, limit=300)))
    diffs = data.get("arg_diff") or []
    if diffs:
        table = Table(
            "argument",
            "you intended",
            "the run had",
            "status",
            "why",
            title="Argument differences",
            title_justify="left",
            box=None,
            header_style="bold",
        )
        for d in diffs:
            why = d.get("explanation") or ""
            if d.get("evidence_line"):
                why += f" (line {d['evidence_line']})"
            table.add_row(
                report.plain(str(d["arg"])),
                report.plain(repr(d["intended"]), limit=60),
                report.plain(repr(d["effective"]), limit=60),
                Text(str(d["status"]), style="green" if d["status"] == "explained" else "red"),
                report.plain(why, limit=160),
            )
        console.print(table)
    elif data_report.intended is not None:
        console.print(
            Text("Arguments: every explicit argument checked matches the run.", style="dim")
        )
    oom = data.get("oom")
    if oom:
        _line(
            console,
            Text.assemble(
                ("Out of memory: ", "bold"),
                (str(oom.get("verdict")), "red"),
                " — ",
                report.plain(str(oom.get("explanation", "")), limit=800),
            ),
        )
    budget = data.get("budget")
    if budget:
        fits = "fits" if budget.get("fits") else "does NOT fit"
        _line(console, Text.assemble(("Your command's memory budget: ", "bold"), fits))
        for s in (budget.get("suggestions") or [])[:5]:
            _line(
                console,
                Text.assemble(
                    "  try ",
                    (report.visible(str(s.get("change"))), "bold"),
                    " — ",
                    report.plain(str(s.get("effect")), limit=200),
                ),
            )
    steps = data.get("next_steps") or []
    if steps:
        _line(console, Text("Next", style="bold"))
        for step in steps:
            _line(console, Text.assemble("  → ", report.plain(str(step), limit=600)))


def make_sink(fmt: str, console: Console) -> Sink:
    """``jsonl`` → JSON lines; ``text`` → a live view on a terminal, plain lines elsewhere."""
    if fmt == "jsonl":
        return JsonlSink()
    if console.is_terminal:
        return LiveSink(console)
    return PlainSink(console)


def _line(console: Console, text: Text) -> None:
    console.print(text, soft_wrap=True)
