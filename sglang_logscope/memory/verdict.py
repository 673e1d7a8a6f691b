"""Is an out-of-memory failure real, a ghost from a stale run, or contention for the GPU?"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, TypedDict

import regex

from ..errors import LogscopeError
from ..events import EventKind
from ..log.runs import FailureKind, Run
from .budget_types import Budget
from .from_run import budget_for_run, measured_from_run
from .gpus import F0_OVERHEAD_GIB
from .models import ModelFacts

#: Ranks whose free memory differs by more than this fraction point to another process
#: (SGLang's own "memory capacity is unbalanced" check uses 0.9).
UNBALANCED_RATIO = 0.9
#: F0 this far (GiB, beyond the usual context/NCCL overhead) below capacity means contention.
CONTENTION_GAP_GIB = 2.0

_SIZE = regex.compile(r"([\d.]+)\s*([KMGT])i?B")


class OomVerdictKind(str, enum.Enum):
    REAL = "real"
    GHOST = "ghost"
    CONTENTION = "contention"
    UNEXPLAINED = "unexplained"


@dataclass(frozen=True)
class OomVerdict:
    verdict: OomVerdictKind
    explanation: str
    run_budget: Budget | None = None

    def to_dict(self) -> OomReading:
        return {"verdict": self.verdict.value, "explanation": self.explanation}


class OomReading(TypedDict):
    """An out-of-memory verdict, JSON-ready (``oom`` of ``check``): ghost, real, contention."""

    verdict: str
    explanation: str


def _gib(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    m = _SIZE.search(text)
    if m is None:
        return None
    scale = {"K": 1 / 1024**2, "M": 1 / 1024, "G": 1.0, "T": 1024.0}[m.group(2)]
    return float(m.group(1)) * scale


def _intended_text(b: Budget | None) -> str:
    if b is None:
        return ""
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
    if (
        cap is not None
        and m.f0_gib is not None
        and cap - m.f0_gib > F0_OVERHEAD_GIB + CONTENTION_GAP_GIB
    ):
        return (
            f"only {m.f0_gib:.2f} GiB was free before the weights loaded on a {cap:.2f} GiB GPU: "
            f"{cap - m.f0_gib:.2f} GiB were held by something else (another server, a stale process)."
        )
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
    intended_budget: Budget | None,
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
    contention = _contention(run, intended_budget)
    if contention is not None:
        return OomVerdict(OomVerdictKind.CONTENTION, f"The {what} is contention: {contention}")
    rb = _run_budget(run, model, sglang_version)
    if failure.kind is FailureKind.CUDA_OOM:
        return _cuda_oom_verdict(what, rb)
    return _pool_sizing_verdict(what, run, rb)


def _cuda_oom_verdict(what: str, rb: Budget | None) -> OomVerdict:
    """A CUDA OOM can strike after startup, so the arithmetic showing it fits does not clear
    it: real when the run's own budget warns or does not fit, else unexplained."""
    if rb is not None and rb.warnings:
        return OomVerdict(OomVerdictKind.REAL, f"The {what} is real: {rb.warnings[0]}", rb)
    if rb is not None and not rb.fits:
        return OomVerdict(OomVerdictKind.REAL, f"The {what} is real: {_short(rb)}", rb)
    return OomVerdict(
        OomVerdictKind.UNEXPLAINED,
        f"The {what} is not explained by the startup arithmetic"
        + (
            " (its pools and slack fit)"
            if rb is not None
            else " (the run's figures are not all in the log)"
        )
        + "; look at the request load, context lengths and CUDA-graph sizes.",
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
