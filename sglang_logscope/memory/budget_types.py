"""What a memory budget is made of: the figures a log measured, one GPU's budget, a suggestion,
and the :class:`Budget` itself (its ``to_dict`` is the ``logscope budget --format json`` shape)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any

from .._html import notebook_html
from .._record import record
from .._text import SCHEMA_VERSION
from ..log.runs import FailureKind
from .eras import Era


@record
class MeasuredFigures:
    """Per-GPU figures a log printed (GiB; minimum over ranks for free memory)."""

    f0_gib: float | None = None
    free_after_weights_gib: float | None = None
    weights_gib: float | None = None
    draft_weights_gib: float | None = None
    #: Free memory and draft weights come from the draft's own ``Load weight end`` (era D).
    from_draft_line: bool = False
    f0_by_rank: Mapping[str, float] = field(default_factory=dict)
    origin: str = "log"


@record
class PerGpu:
    """One GPU's budget (every rank computes the same numbers from min-over-ranks figures)."""

    total_gib: float | None
    f0_gib: float
    weights_gib: float
    draft_weights_gib: float
    slack_gib: float
    rest_gib: float
    mamba_state_gib: float
    spec_scratch_gib: float
    kv_gib: float
    kv_tokens: int
    kv_cell_bytes: int
    mamba_slot_bytes: int
    mamba_slots: int | None
    mm_reserve_gib: float = 0.0
    #: Draft KV pool allocated later out of the slack (eras before D, and era D when SGLang
    #: does not price the draft into the cell).
    draft_kv_gib: float = 0.0
    #: Before era D the draft weights load after profiling: they come out of the slack.
    draft_in_slack: bool = False
    #: Sliding-window layer tokens of a hybrid-SWA pool (``kv_tokens`` counts the full layers).
    swa_tokens: int | None = None

    def bar_segments(self) -> list[tuple[str, float]]:
        """(segment, GiB) stacked up to F0 as SGLang carves it: the draft KV (and before era D
        the draft weights) is drawn inside the slack it is later taken from, never on top."""
        taken = self.draft_kv_gib + (self.draft_weights_gib if self.draft_in_slack else 0.0)
        return [
            ("weights", self.weights_gib),
            ("draft", self.draft_weights_gib),
            ("state", self.mamba_state_gib),
            ("scratch", self.spec_scratch_gib),
            ("KV", self.kv_gib),
            ("reserve", self.mm_reserve_gib + self.draft_kv_gib),
            ("slack", max(self.slack_gib - taken, 0.0)),
        ]

    def to_dict(self) -> dict[str, Any]:
        return {
            "total_gib": _r(self.total_gib),
            "f0_gib": _r(self.f0_gib),
            "weights_gib": _r(self.weights_gib),
            "draft_weights_gib": _r(self.draft_weights_gib),
            "slack_gib": _r(self.slack_gib),
            "rest_gib": _r(self.rest_gib),
            "mamba_state_gib": _r(self.mamba_state_gib),
            "spec_scratch_gib": _r(self.spec_scratch_gib),
            "kv_gib": _r(self.kv_gib),
            "kv_tokens": self.kv_tokens,
            "kv_cell_bytes": self.kv_cell_bytes,
            "mamba_slot_bytes": self.mamba_slot_bytes,
            "mamba_slots": self.mamba_slots,
            "mm_reserve_gib": _r(self.mm_reserve_gib),
            "draft_kv_gib": _r(self.draft_kv_gib),
            "swa_tokens": self.swa_tokens,
        }


@record
class Suggestion:
    """One change, re-run through the budget, and what the user would have with it.

    ``fits`` means SGLang starts *and* its KV pool holds at least one request of the context
    length (``concurrency_at_context >= 1``); ``needs_more_gpus`` marks a change beyond the GPUs
    given (or assumed)."""

    change: str
    effect: str
    args: Mapping[str, Any] = field(default_factory=dict, compare=False)
    fits: bool = True
    kv_tokens: int | None = None
    max_running_requests: int | None = None
    concurrency_at_context: float | None = None
    needs_more_gpus: bool = False
    #: The changed command's own budget: its warnings and confidence level.
    warnings: tuple[str, ...] = ()
    confidence: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "change": self.change,
            "effect": self.effect,
            "fits": self.fits,
            "kv_tokens": self.kv_tokens,
            "max_running_requests": self.max_running_requests,
            "concurrency_at_context": self.concurrency_at_context,
            "needs_more_gpus": self.needs_more_gpus,
            "warnings": list(self.warnings),
            "confidence": self.confidence,
        }


@record
class Budget:
    """The result of :func:`budget`. ``to_dict`` is the ``logscope budget --format json`` shape."""

    sglang_version: str
    era: Era
    era_label: str
    model: str
    per_gpu: PerGpu
    gpus: int
    max_running_requests: int | None
    fits: bool
    failure_kind: FailureKind | None
    shortfall_gib: float
    suggestions: tuple[Suggestion, ...]
    assumptions: tuple[str, ...]
    sources: Mapping[str, str]
    warnings: tuple[str, ...] = ()
    inputs: Mapping[str, Any] = field(default_factory=dict)
    reported: Mapping[str, Any] | None = None
    #: Terms of the arithmetic no real log has validated, and the overall level.
    confidence: Mapping[str, Any] = field(default_factory=dict)
    #: Families SGLang prices differently that this model does not cover (figures left out).
    not_modelled: tuple[str, ...] = ()

    @property
    def kv_tokens(self) -> int | None:
        """KV tokens per rank, or None when a pool kind is not modelled."""
        return None if self.not_modelled else self.per_gpu.kv_tokens

    @property
    def context_len(self) -> int:
        return int(self.inputs.get("context_len") or 0)

    @property
    def concurrency_at_context(self) -> float | None:
        """KV tokens / context length: how many full-length requests the pool holds at once."""
        return concurrency(self.kv_tokens, self.context_len)

    @property
    def basis(self) -> str:
        """The GPUs and release the verdict rests on, with where each came from."""
        gpu = self.sources.get("gpu_basis") or self.sources.get("gpu", "")
        ver = self.sources.get("sglang_version", "given")
        how = {"log": "read from the log"}.get(ver, ver)
        return f"{gpu}, SGLang {self.sglang_version} {how}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "sglang_version": self.sglang_version,
            "era": self.era.value,
            "model": self.model,
            "per_gpu": self._per_gpu_dict(),
            "max_running_requests": self.max_running_requests,
            "fits": self.fits,
            "failure_kind": self.failure_kind.value if self.failure_kind else None,
            "shortfall_gib": _r(self.shortfall_gib),
            "suggestions": [s.to_dict() for s in self.suggestions],
            "assumptions": list(self.assumptions),
            "sources": dict(self.sources),
            "era_releases": self.era_label,
            "gpus": self.gpus,
            "warnings": list(self.warnings),
            "inputs": dict(self.inputs),
            "kv_tokens": self.kv_tokens,
            "concurrency_at_context": self.concurrency_at_context,
            "confidence": dict(self.confidence),
            "not_modelled": list(self.not_modelled),
            "basis": self.basis,
        }
        if self.reported is not None:
            out["reported"] = dict(self.reported)
        return out

    def _per_gpu_dict(self) -> dict[str, Any]:
        out = self.per_gpu.to_dict()
        if self.not_modelled:  # never a silent dense guess: the pool figures are left out
            out["kv_tokens"] = out["kv_gib"] = None
        return out

    def _repr_html_(self) -> str:
        """Jupyter: the per-GPU stacked bar and figures, as in ``logscope report``."""
        return notebook_html(self)


def concurrency(kv_tokens: int | None, context_len: int) -> float | None:
    """``kv_tokens / context_len`` to two decimals (vLLM's "maximum concurrency")."""
    if kv_tokens is None or context_len <= 0:
        return None
    return round(max(kv_tokens, 0) / context_len, 2)


def _r(value: float | None, nd: int = 3) -> float | None:
    return None if value is None else round(value, nd)


@record
class DeclinedBudget:
    """No budget, and why: an input the arithmetic needs has no evidence (the model's shapes).
    ``fits`` is ``None`` (never a guess); ``advice`` says exactly what to pass."""

    model: str | None
    reason: str
    advice: str
    sources: Mapping[str, str] = field(default_factory=dict)

    fits = None
    suggestions: tuple[Suggestion, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def basis(self) -> str:
        return f"no figure: pass {self.advice}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "fits": None,
            "declined": self.reason,
            "advice": self.advice,
            "model": self.model,
            "sources": dict(self.sources),
            "basis": self.basis,
            "suggestions": [],
            "warnings": [],
        }


def declined_budget(exc: Exception) -> DeclinedBudget:
    """The declined budget for an error saying which evidence is missing (``ModelUnknown``)."""
    return DeclinedBudget(
        model=getattr(exc, "model_path", None),
        reason=str(exc),
        advice=str(getattr(exc, "advice", "--model-config DIR")),
        sources={"model": "unknown: no config, cache entry or exact bundled profile"},
    )
