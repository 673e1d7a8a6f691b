"""When in start-up a CUDA/HIP out-of-memory struck, and what the figures say about it.

A PyTorch OOM message carries its own evidence: the GPU's capacity, what was free, what this
process held, and what PyTorch itself had allocated. Read with the run's phase (weights still
loading, pools sized, CUDA graphs capturing, serving), they decide between "the weights do not
fit", "the graphs / activations do not fit in the slack" and "someone else holds the GPU",
each with the figures and the flags that change them.
"""

from __future__ import annotations

import enum
import math
import re
from collections.abc import Mapping
from typing import Any

from .._record import record
from .._text import lazy_regex
from ..events import EventKind
from ..log.runs import Run
from .estimates import arg_value

_SIZE = r"(\d{1,9}(?:\.\d{1,6})?)\s?([KMGT])i?B"
_ALLOCATED = lazy_regex(rf"Of the allocated memory {_SIZE} is allocated by PyTorch")
_IN_USE = lazy_regex(rf"this process has {_SIZE} memory in use")
_ANY_SIZE = lazy_regex(_SIZE)
_SCALE = {"K": 1 / 1024**2, "M": 1 / 1024, "G": 1.0, "T": 1024.0}

#: Below this share of the GPU held by the failing process itself, a large gap between
#: capacity and the free memory before weights can be someone else's; above, it is its own.
OWN_SHARE = 0.9
#: Free memory before weights this far below capacity (a share of it, at least
#: :data:`CONTENTION_MIN_GIB`) points to another process: a fresh process on an idle GPU loses
#: the CUDA context, NCCL buffers and the driver's reserve, a few percent at most.
CONTENTION_SHARE = 0.08
CONTENTION_MIN_GIB = 3.0


class OomPhase(str, enum.Enum):
    WEIGHT_LOAD = "weight_load"
    POOL_SIZING = "pool_sizing"
    GRAPH_CAPTURE = "graph_capture"
    SERVING = "serving"
    #: An excerpt with neither start-up lines before the failure nor telling frames.
    UNKNOWN = "unknown"


#: Traceback frames that place an OOM when no start-up line precedes it (an excerpt), in order.
_FRAMES: tuple[tuple[OomPhase, re.Pattern[str]], ...] = (
    (OomPhase.GRAPH_CAPTURE, lazy_regex(r"cuda_graph_runner|capture", re.I)),
    (OomPhase.POOL_SIZING, lazy_regex(r"init_memory_pool|memory_pool\.py|_create_buffers")),
    (OomPhase.WEIGHT_LOAD, lazy_regex(r"load_model|load_weights|weight_loader|create_weights")),
    (OomPhase.SERVING, lazy_regex(r"\bforward|run_batch|event_loop")),
)


def _gib(match: re.Match[str] | None) -> float | None:
    if match is None:
        return None
    return float(match.group(1)) * _SCALE[match.group(2)]


def size_gib(text: Any) -> float | None:
    """GiB of a size such as ``31.86 GiB`` / ``384.00 MiB`` (None for anything else)."""
    if not isinstance(text, str):
        return None
    return _gib(_ANY_SIZE.search(text))


@record
class OomFigures:
    """What a PyTorch OOM message says, in GiB (None where it says nothing)."""

    capacity: float | None = None
    free: float | None = None
    tried: float | None = None
    in_use: float | None = None
    allocated: float | None = None

    @property
    def held_by_process(self) -> float | None:
        return self.in_use if self.in_use is not None else self.allocated

    def own_share(self) -> float | None:
        """The share of the GPU this process held when it failed."""
        held = self.held_by_process
        if held is None or not self.capacity:
            return None
        return held / self.capacity


def oom_figures(run: Run) -> OomFigures | None:
    """The figures of the run's first PyTorch OOM message, or None when it has none."""
    for e in run.of_kind(EventKind.CUDA_OOM):
        # a traceback record keeps PyTorch's sentence in its exception message or its last lines
        text = " ".join(
            (str(e.fields.get("exc_message", ""))[:4000], e.message[:4000], e.text[-4000:])
        )
        return OomFigures(
            capacity=size_gib(e.fields.get("capacity")),
            free=size_gib(e.fields.get("free")),
            tried=size_gib(e.fields.get("tried")),
            in_use=_gib(_IN_USE.search(text)),
            allocated=_gib(_ALLOCATED.search(text)),
        )
    return None


def oom_phase(run: Run) -> OomPhase:
    """The start-up phase the run's failure struck in, from the events before its line."""
    line = run.failure.line if run.failure is not None else 1 << 62

    def before(kind: EventKind) -> bool:
        return any(e.line < line for e in run.of_kind(kind))

    started = before(EventKind.LOAD_WEIGHT_BEGIN) or before(EventKind.SERVER_ARGS)
    if not started and not before(EventKind.KV_CACHE_ALLOCATED):
        return _phase_from_frames(run)
    if before(EventKind.SERVER_READY):
        return OomPhase.SERVING
    if before(EventKind.CUDA_GRAPH_BEGIN) or before(EventKind.CUDA_GRAPH_PROGRESS):
        return OomPhase.GRAPH_CAPTURE
    if before(EventKind.KV_CACHE_ALLOCATED):
        return OomPhase.GRAPH_CAPTURE if _graph_words(run) else OomPhase.SERVING
    if before(EventKind.LOAD_WEIGHT_END) or not before(EventKind.LOAD_WEIGHT_BEGIN):
        return OomPhase.POOL_SIZING
    return OomPhase.WEIGHT_LOAD


def _phase_from_frames(run: Run) -> OomPhase:
    """The phase a traceback's frames name, for an excerpt without start-up lines."""
    texts = [e.text[-8000:] or e.message[:8000] for e in run.of_kind(EventKind.CUDA_OOM)]
    if run.failure is not None and run.failure.event is not None:
        texts.append(run.failure.event.text[-8000:] or run.failure.message[:8000])
    text = "\n".join(texts)
    for phase, pattern in _FRAMES:
        if pattern.search(text):
            return phase
    return OomPhase.UNKNOWN


def _graph_words(run: Run) -> bool:
    f = run.failure
    return f is not None and "cuda graph" in f.message[:2000].lower()


def contention_gap(capacity: float, f0: float, figures: OomFigures | None) -> str | None:
    """Contention when free memory before weights is well below capacity, relative to the
    GPU's size, unless the OOM message shows this process itself held nearly all of it."""
    gap = capacity - f0
    limit = max(CONTENTION_MIN_GIB, CONTENTION_SHARE * capacity)
    share = figures.own_share() if figures is not None else None
    if gap <= limit or (share is not None and share >= OWN_SHARE):
        return None
    return (
        f"only {f0:.2f} GiB was free before the weights loaded on a {capacity:.2f} GiB GPU: "
        f"{gap:.2f} GiB ({gap / capacity:.0%}, more than the {limit:.2f} GiB a fresh process "
        f"loses) were held by something else (another server, a stale process)."
    )


def weight_load_words(
    figures: OomFigures | None,
    f0: float | None,
    args: Mapping[str, Any],
    weights_gib: float | None,
    weights_how: str,
) -> str:
    """Why weights did not fit and the fixes with their figures: ``weights_gib`` is the
    weights per GPU at the launch's tp x pp (from the model's config), else the OOM message's
    own figures bound them below."""
    tp = int(arg_value(args, "tp_size", 1))
    pp = int(arg_value(args, "pp_size", 1))
    cap = figures.capacity if figures is not None else None
    room = f0 if f0 is not None else cap
    need = weights_gib
    said = []
    if figures is not None and figures.allocated is not None:
        tried = figures.tried or 0.0
        said.append(
            f"PyTorch had allocated {figures.allocated:.2f} GiB"
            + (f" of the GPU's {cap:.2f} GiB" if cap else "")
            + f" and asked for {tried:.2f} GiB more"
        )
        if need is None:
            need = figures.allocated + tried
            weights_how = "at least what was allocated when it failed"
    if need is not None:
        said.append(f"the weights need {need:.2f} GiB per GPU at tp {tp} x pp {pp} ({weights_how})")
    if room is not None:
        said.append(f"{room:.2f} GiB was free before they loaded")
    out = "the weights do not fit on the GPUs: " + "; ".join(said) + "."
    fixes = weight_fixes(need, room, tp, pp, lower_bound=weights_gib is None)
    return out + (" Fixes: " + "; ".join(fixes) + "." if fixes else "")


def weight_fixes(
    need: float | None, room: float | None, tp: int, pp: int, *, lower_bound: bool
) -> list[str]:
    """More GPUs (tp), a quantized checkpoint, CPU offload: each with the figure it gives."""
    if need is None or room is None or room <= 0:
        return []
    usable = room * 0.9  # leave SGLang's pools at least a tenth
    at_least = "at least " if lower_bound else ""
    total = need * tp * pp
    tp_needed = 1 << max(0, math.ceil(math.log2(max(total / pp / usable, 1.0))))
    fixes = [
        f"--tp {tp_needed} ({at_least}{total / pp / tp_needed:.2f} GiB of weights per GPU, "
        f"{tp_needed * pp} GPUs)"
    ]
    fixes.append(
        f"an 8-bit (FP8) checkpoint (about {need / 2:.2f} GiB per GPU from 16-bit weights) or a "
        f"4-bit one (about {need / 4 + 0.1 * need / 2:.2f} GiB)"
    )
    offload = max(need - usable, 0.0)
    fixes.append(
        f"--cpu-offload-gb {math.ceil(offload)} (moves {at_least}{offload:.2f} GiB per GPU to "
        "host memory; slower)"
    )
    return fixes


def after_startup_fixes(args: Mapping[str, Any], f0: float | None) -> list[str]:
    """The flags that size the CUDA graphs and activations, with what SGLang's own reserve
    heuristic prices them at (``1.5 MiB`` per chunked-prefill token, ``2 MiB`` per graph batch
    size) and what a lower ``--mem-fraction-static`` frees; named with the unit figures when
    the run's values are not in the log."""
    bs = arg_value(args, "cuda_graph_max_bs")
    cpf = arg_value(args, "chunked_prefill_size")
    mrr = arg_value(args, "max_running_requests")
    mfs = arg_value(args, "mem_fraction_static")
    out = [
        f"--cuda-graph-max-bs {bs // 2} (SGLang's reserve prices the graphs at 2 MiB per "
        f"batch size: {bs * 2 / 1024:.2f} -> {bs / 1024:.2f} GiB)"
        if isinstance(bs, int) and bs > 1
        else "a lower --cuda-graph-max-bs (SGLang's reserve: 2 MiB per batch size captured)",
        f"--chunked-prefill-size {cpf // 2} (prefill activations at 1.5 MiB per token: "
        f"{cpf * 1.5 / 1024:.2f} -> {cpf * 0.75 / 1024:.2f} GiB)"
        if isinstance(cpf, int) and cpf > 2048
        else "a lower --chunked-prefill-size (SGLang's reserve: 1.5 MiB per prefill token)",
    ]
    if isinstance(mrr, int) and mrr > 1:
        out.append(f"--max-running-requests {max(mrr // 2, 1)} (fewer decode batches at once)")
    else:
        out.append("a lower --max-running-requests (fewer requests decoding at once)")
    if isinstance(mfs, (int, float)) and f0 is not None and mfs > 0.55:
        lower = round(float(mfs) - 0.05, 2)
        out.append(
            f"--mem-fraction-static {lower} (leaves {0.05 * f0:.2f} GiB more outside the pools "
            f"of the {f0:.2f} GiB free)"
        )
    else:
        out.append(
            "a lower --mem-fraction-static (each 0.01 leaves 1 % of the free memory outside the pools)"
        )
    return out
