"""Is an out-of-memory failure real, a ghost from a stale run, or contention for the GPU?"""

from __future__ import annotations

import enum
from dataclasses import replace
from typing import Any, TypedDict

from .._record import record
from .._text import lazy_regex
from ..errors import LogscopeError
from ..events import EventKind
from ..log.runs import FailureKind, Run
from .budget_types import Budget, DeclinedBudget
from .estimates import arg_value, estimate_weights_gib
from .from_run import budget_for_run, measured_from_run
from .models import ModelFacts, resolve_model
from .oom_phase import (
    OomPhase,
    after_startup_fixes,
    contention_gap,
    oom_figures,
    oom_phase,
    weight_load_words,
)

#: Ranks whose free memory differs by more than this fraction point to another process
#: (SGLang's own "memory capacity is unbalanced" check uses 0.9).
UNBALANCED_RATIO = 0.9
#: F0 this far (GiB, beyond the usual context/NCCL overhead) below capacity means contention.
CONTENTION_GAP_GIB = 2.0

_SIZE = lazy_regex(r"([\d.]+)\s*([KMGT])i?B")


class OomVerdictKind(str, enum.Enum):
    REAL = "real"
    GHOST = "ghost"
    CONTENTION = "contention"
    UNEXPLAINED = "unexplained"


@record
class OomVerdict:
    """Whether an out-of-memory failure is real, a ghost, or contention, and why."""

    verdict: OomVerdictKind
    explanation: str
    run_budget: Budget | None = None
    #: When in start-up it struck (:class:`~.oom_phase.OomPhase`), None for a ghost.
    phase: OomPhase | None = None

    def to_dict(self) -> OomReading:
        out: OomReading = {"verdict": self.verdict.value, "explanation": self.explanation}
        if self.phase is not None:
            out["phase"] = self.phase.value
        return out


class _OomWords(TypedDict):
    verdict: str
    explanation: str


class OomReading(_OomWords, total=False):
    """An out-of-memory verdict, JSON-ready (``oom`` of ``check``): ghost, real, contention;
    ``phase`` where it is known when in start-up it struck."""

    phase: str


def _gib(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    m = _SIZE.search(text)
    if m is None:
        return None
    scale = {"K": 1 / 1024**2, "M": 1 / 1024, "G": 1.0, "T": 1024.0}[m.group(2)]
    return float(m.group(1)) * scale


def _intended_text(b: Budget | DeclinedBudget | None) -> str:
    if b is None:
        return ""
    if isinstance(b, DeclinedBudget):
        return f" Your intended command has no memory figure ({b.basis})."
    if b.fits:
        mrr = f", max_running_requests {b.max_running_requests}" if b.max_running_requests else ""
        tokens = (
            f"{b.kv_tokens:,} KV tokens" if b.kv_tokens is not None else "KV tokens not modelled"
        )
        return f" Your intended command would fit ({b.basis}): {tokens}{mrr}."
    kind = b.failure_kind.value if b.failure_kind else "no request slots"
    fix = f" Try {b.suggestions[0].change}." if b.suggestions else ""
    return (
        f" Your intended command would not fit either ({kind}, short by "
        f"{b.shortfall_gib:.2f} GiB; {b.basis}).{fix}"
    )


def _capacity(run: Run, intended: Budget | None) -> float | None:
    for e in run.of_kind(EventKind.CUDA_OOM):
        cap = _gib(e.fields.get("capacity"))
        if cap is not None:
            return cap
    if (
        intended is not None
        and intended.per_gpu.total_gib is not None
        and intended.sources.get("gpu") != "assumed"
    ):
        return intended.per_gpu.total_gib
    return None


def _contention(run: Run, intended: Budget | None) -> str | None:
    m = measured_from_run(run)
    ranks = m.f0_by_rank
    if run.first(EventKind.MEMORY_UNBALANCED) is not None:
        return "SGLang warned that the memory capacity is unbalanced: another process holds GPU memory."
    if len(ranks) > 1 and min(ranks.values()) < UNBALANCED_RATIO * max(ranks.values()):
        lo = min(ranks, key=lambda r: ranks[r])
        return (
            f"free memory before weights differs between ranks ({lo} {ranks[lo]:.2f} GiB vs "
            f"{max(ranks.values()):.2f} GiB): another process holds memory on that GPU."
        )
    cap = _capacity(run, intended)
    if cap is not None and m.f0_gib is not None:
        return contention_gap(cap, m.f0_gib, oom_figures(run))
    return None


def _run_budget(run: Run, model: ModelFacts | None, sglang_version: str | None) -> Budget | None:
    if run.server_args is None:
        return None
    try:
        return budget_for_run(run, model=model, sglang_version=sglang_version)
    except LogscopeError:
        return None


def oom_verdict(
    run: Run,
    *,
    stale: bool,
    intended_budget: Budget | DeclinedBudget | None,
    model: ModelFacts | None = None,
    sglang_version: str | None = None,
) -> OomVerdict | None:
    """The verdict for a run that failed with an OOM kind (None for any other run).

    * ghost: the failing run is not the launch you made (``stale``); says whether yours fits;
    * contention: the log shows memory held by someone else (ranks differ, unbalanced warning,
      F0 well below the GPU's capacity);
    * real: the arithmetic (SGLang's own, recomputed from the run) says it cannot fit;
    * unexplained: none of the above can be shown.
    """
    failure = run.failure
    if failure is None or not failure.kind.is_oom:
        return None
    what = f"{failure.kind.value} at line {failure.line}"
    if stale:
        return OomVerdict(
            OomVerdictKind.GHOST,
            f"The {what} belongs to a run that is not the launch you made (a stale log or different arguments)."
            + _intended_text(intended_budget),
        )
    contention = _contention(
        run, intended_budget if isinstance(intended_budget, Budget) else None
    )  # a declined budget knows no GPU
    if contention is not None:
        return OomVerdict(OomVerdictKind.CONTENTION, f"The {what} is contention: {contention}")
    if failure.kind is FailureKind.CUDA_OOM:
        phase = oom_phase(run)
        if phase is OomPhase.WEIGHT_LOAD:
            return _weight_load_verdict(what, run, model)
        rb = _run_budget(run, model, sglang_version)
        return replace(_cuda_oom_verdict(what, run, rb, phase), phase=phase)
    rb = _run_budget(run, model, sglang_version)
    return replace(_pool_sizing_verdict(what, run, rb), phase=OomPhase.POOL_SIZING)


def _weight_load_verdict(what: str, run: Run, model: ModelFacts | None) -> OomVerdict:
    """Out of memory before ``Load weight end``: the weights per GPU against the free memory,
    from the model's config when there is one, else from the OOM message's own figures."""
    args = run.server_args or {}
    weights: float | None = None
    how = ""
    try:
        facts = model if model is not None else resolve_model(args)
        quant = str(args.get("quantization") or "").lower() or None
        tp, pp = int(arg_value(args, "tp_size", 1)), int(arg_value(args, "pp_size", 1))
        weights = estimate_weights_gib(facts, tp=tp, pp=pp, quant=quant)[0]
        how = f"estimated from {facts.source}"
    except LogscopeError:
        pass
    words = weight_load_words(oom_figures(run), measured_from_run(run).f0_gib, args, weights, how)
    return OomVerdict(
        OomVerdictKind.REAL, f"The {what} is real: {words}", None, OomPhase.WEIGHT_LOAD
    )


_WHEN = {
    OomPhase.POOL_SIZING: "it struck after the weights loaded, while the pools were sized",
    OomPhase.GRAPH_CAPTURE: "it struck while CUDA graphs were captured",
    OomPhase.SERVING: "it struck while serving (activations, requests)",
    OomPhase.UNKNOWN: "the log does not show when in start-up it struck",
}


def _cuda_oom_verdict(what: str, run: Run, rb: Budget | None, phase: OomPhase) -> OomVerdict:
    """A CUDA OOM after the weights loaded (graph capture, first requests): real when the
    run's own budget warns or does not fit, else unexplained; either way the flags that size
    the graphs and activations, with their figures."""
    args = run.server_args or {}
    fixes = after_startup_fixes(args, measured_from_run(run).f0_gib)
    tail = (" Flags that size what it ran out of: " + "; ".join(fixes) + ".") if fixes else ""
    if rb is not None and rb.warnings:
        return OomVerdict(OomVerdictKind.REAL, f"The {what} is real: {rb.warnings[0]}{tail}", rb)
    if rb is not None and not rb.fits:
        return OomVerdict(OomVerdictKind.REAL, f"The {what} is real: {_short(rb)}{tail}", rb)
    figures = oom_figures(run)
    held = ""
    if figures is not None and figures.allocated is not None and figures.capacity:
        held = (
            f" PyTorch held {figures.allocated:.2f} GiB of the GPU's {figures.capacity:.2f} GiB "
            f"when it asked for {figures.tried or 0.0:.2f} GiB more."
        )
    return OomVerdict(
        OomVerdictKind.UNEXPLAINED,
        f"The {what} is not explained by the startup arithmetic"
        + (
            " (its pools and slack fit)"
            if rb is not None
            else " (the run's figures are not all in the log)"
        )
        + f"; {_WHEN.get(phase, _WHEN[OomPhase.UNKNOWN])}."
        + held
        + (tail or " Look at the request load, context lengths and CUDA-graph sizes."),
        rb,
    )


def _pool_sizing_verdict(what: str, run: Run, rb: Budget | None) -> OomVerdict:
    """Pool-sizing errors are raised by SGLang's own arithmetic: real when it is recomputed
    and does not fit (or cannot be recomputed), unexplained when it fits."""
    if rb is None:
        return OomVerdict(
            OomVerdictKind.REAL,
            f"The {what} is SGLang's own startup arithmetic (free memory {_f0(run)}was not enough for "
            "weights plus pools at this --mem-fraction-static); the model or figures needed to "
            "recompute it are not available.",
        )
    if not rb.fits:
        return OomVerdict(OomVerdictKind.REAL, f"The {what} is real: {_short(rb)}", rb)
    return OomVerdict(
        OomVerdictKind.UNEXPLAINED,
        f"The {what} is not reproduced: recomputed from the run's own figures it fits "
        f"({rb.per_gpu.kv_tokens:,} KV tokens). The version ({rb.sglang_version}) or the model facts may differ.",
        rb,
    )


def _f0(run: Run) -> str:
    f0 = measured_from_run(run).f0_gib
    return f"{f0:.2f} GiB " if f0 is not None else ""


def _short(b: Budget) -> str:
    g = b.per_gpu
    need = g.mamba_state_gib + g.spec_scratch_gib
    detail = (
        f"after {g.weights_gib:.2f} GiB of weights and {g.slack_gib:.2f} GiB of slack only "
        f"{g.rest_gib:.2f} GiB remain"
    )
    if need > 0:
        detail += f", but the hybrid state ({g.mamba_state_gib:.2f}) plus spec scratch ({g.spec_scratch_gib:.2f}) need {need:.2f} GiB"
    fix = f"; e.g. {b.suggestions[0].change} ({b.suggestions[0].effect})" if b.suggestions else ""
    return f"{detail} - short by {b.shortfall_gib:.2f} GiB{fix}."
