"""The phase view of one starting run: args → distributed init → weights → KV / mamba pools →
CUDA graphs → ready, with the key figures of each phase.

:class:`PhaseTracker` consumes the :class:`~sglang_logscope.events.Event` records of one run (in
any rank order) and never goes backwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from datetime import datetime, tzinfo
from typing import Any

from .. import _text
from .._record import record
from .._text import own_pattern
from ..events import KIND_ROLES, Event, EventKind, kinds_where
from ..events import Phase as Phase  # re-exported: its home before KIND_ROLES
from ..log.figures import kv_pool_gib

PHASES: tuple[Phase, ...] = tuple(Phase)

#: The start-up phase of each kind that has one (see ``KIND_ROLES``).
_PHASE_OF: dict[EventKind, Phase] = {
    k: r.phase for k, r in KIND_ROLES.items() if r.phase is not None
}
PROGRESS_KINDS = kinds_where(lambda r: r.progress)
#: Events that only a starting server prints: a run needs one to count as a launch
#: (an older server still writing serving lines to the file is not a launch).
STARTUP_KINDS = kinds_where(lambda r: (r.phase is not None and not r.batch) or r.startup)
_ARG_FIGURES = (
    "model_path", "tp_size", "dp_size", "pp_size", "ep_size", "mem_fraction_static",
    "context_length", "max_running_requests", "chunked_prefill_size", "kv_cache_dtype",
    "speculative_algorithm", "attention_backend", "port",
)  # fmt: skip


@record(frozen=False)
class PhaseState:
    """One phase of the view: when it began and ended (log time), figures, progress 0..1."""

    phase: Phase
    started_at: datetime | None = None
    ended_at: datetime | None = None
    entered: bool = False
    done: bool = False
    progress: float | None = None
    figures: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, zone: tzinfo | None = None) -> dict[str, Any]:
        """JSON-ready; times RFC 3339, with an offset when ``zone`` (the log's) is known."""
        return {
            "phase": self.phase.value,
            "label": self.phase.label,
            "entered": self.entered,
            "done": self.done,
            "started_at": _text.rfc3339(self.started_at, zone),
            "ended_at": _text.rfc3339(self.ended_at, zone),
            "progress": self.progress,
            "figures": dict(self.figures),
        }


@record
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
            event.line == self._last_line and event.kind not in PROGRESS_KINDS
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

    def view(self, zone: tzinfo | None = None) -> dict[str, Any]:
        return {
            "phase": self.current.value if self.current else None,
            "phases": [s.to_dict(zone) for s in self.states.values()],
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
        """Fold ``event`` into its phase's figures; the changes worth a note."""
        reader = _FIGURE_READERS.get(event.kind)
        if reader is None:
            return []
        changes: list[PhaseChange] = []
        reader(self, phase, self.states[phase], event, changes)
        return changes

    def _args(self, phase: Phase, st: PhaseState, event: Event, out: list[PhaseChange]) -> None:
        f, kind = event.fields, event.kind
        if kind is EventKind.SERVER_ARGS:
            args = f.get("args")
            if isinstance(args, Mapping):
                for key in _ARG_FIGURES:
                    if args.get(key) is not None:
                        st.figures[key] = args[key]
        elif kind is EventKind.ARGS_ADJUSTED:
            st.figures["adjusted"] = int(st.figures.get("adjusted", 0)) + 1
            out.append(
                PhaseChange("warning", phase, f"SGLang adjusted: {event.message}", event.line)
            )
        elif f.get("backend"):  # ATTENTION_BACKEND
            st.figures["attention_backend"] = f["backend"]

    def _dist(self, phase: Phase, st: PhaseState, event: Event, out: list[PhaseChange]) -> None:
        f = event.fields
        if event.kind is EventKind.DIST_INIT_END:
            self._max(st, "elapsed_s", f.get("elapsed_s"))
            self._max(st, "mem_usage_gib", f.get("mem_usage_gib"))
            st.done = True
            st.ended_at = event.timestamp
        else:  # MEMORY_UNBALANCED
            st.figures["unbalanced"] = True
            text = f"memory capacity is unbalanced: {event.message}"
            out.append(PhaseChange("warning", phase, text, event.line))

    def _weights(self, phase: Phase, st: PhaseState, event: Event, out: list[PhaseChange]) -> None:
        f, kind = event.fields, event.kind
        if kind is EventKind.LOAD_WEIGHT_BEGIN:
            self._low(phase, st, "free_before_gib", f.get("avail_gib"))
        elif kind is EventKind.WEIGHT_PROGRESS:
            done, total, percent = f.get("done"), f.get("total"), f.get("percent")
            if isinstance(done, int) and isinstance(total, int) and total > 0:
                new = done / total
                if st.progress is None or new > st.progress:
                    st.progress = new
                    st.figures["shards"] = f"{done}/{total}"
                    shown = percent if percent is not None else round(100 * new)
                    text = f"{done}/{total} shards ({shown}%)"
                    detail = {"done": done, "total": total}
                    out.append(PhaseChange("progress", phase, text, event.line, detail))
        else:  # LOAD_WEIGHT_END
            self._max(st, "weights_gib", f.get("mem_usage_gib"))
            self._low(phase, st, "free_after_gib", f.get("avail_gib"))
            self._max(st, "elapsed_s", f.get("elapsed_s"))
            if f.get("model_class"):
                st.figures["model_class"] = f["model_class"]
            if st.progress is not None:
                st.progress = 1.0
            st.ended_at = event.timestamp

    def _pools(self, phase: Phase, st: PhaseState, event: Event, out: list[PhaseChange]) -> None:
        f, kind = event.fields, event.kind
        if kind is EventKind.KV_CACHE_ALLOCATED:
            if f.get("tokens") is not None:
                st.figures["kv_tokens"] = f["tokens"]
            size = kv_pool_gib(event)
            if size is not None:
                st.figures["kv_gib"] = size
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
        else:  # TOKEN_SUMMARY
            for key in ("max_total_num_tokens", "max_running_requests", "context_len"):
                if f.get(key) is not None:
                    st.figures[key] = f[key]

    def _graphs(self, phase: Phase, st: PhaseState, event: Event, out: list[PhaseChange]) -> None:
        f, kind = event.fields, event.kind
        if kind is EventKind.CUDA_GRAPH_BEGIN:
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
                    text = f"{m.group(1)}/{m.group(2)} batch sizes"
                    out.append(PhaseChange("progress", phase, text, event.line))
        else:  # CUDA_GRAPH_END
            self._max(st, "elapsed_s", f.get("elapsed_s"))
            self._low(phase, st, "free_after_gib", f.get("avail_gib"))
            st.ended_at = event.timestamp

    def _ready(self, phase: Phase, st: PhaseState, event: Event, out: list[PhaseChange]) -> None:
        if self.first_time and event.has_date and event.timestamp:
            st.figures["startup_s"] = round((event.timestamp - self.first_time).total_seconds(), 1)

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


_BAR = own_pattern(r"\|\s{0,4}+(\d{1,7}+)/(\d{1,7}+) \[")

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


_FigureReader = Callable[[PhaseTracker, Phase, PhaseState, Event, list[PhaseChange]], None]
#: Which reader folds each kind of event into its phase's figures.
_FIGURE_READERS: dict[EventKind, _FigureReader] = {
    **dict.fromkeys(
        (EventKind.SERVER_ARGS, EventKind.ARGS_ADJUSTED, EventKind.ATTENTION_BACKEND),
        PhaseTracker._args,
    ),
    **dict.fromkeys((EventKind.DIST_INIT_END, EventKind.MEMORY_UNBALANCED), PhaseTracker._dist),
    **dict.fromkeys(
        (EventKind.LOAD_WEIGHT_BEGIN, EventKind.WEIGHT_PROGRESS, EventKind.LOAD_WEIGHT_END),
        PhaseTracker._weights,
    ),
    **dict.fromkeys(
        (
            EventKind.KV_CACHE_ALLOCATED,
            EventKind.MAMBA_CACHE_ALLOCATED,
            EventKind.MEMORY_POOL_END,
            EventKind.TOKEN_SUMMARY,
        ),
        PhaseTracker._pools,
    ),
    **dict.fromkeys(
        (EventKind.CUDA_GRAPH_BEGIN, EventKind.CUDA_GRAPH_PROGRESS, EventKind.CUDA_GRAPH_END),
        PhaseTracker._graphs,
    ),
    EventKind.SERVER_READY: PhaseTracker._ready,
}
