"""What a memory budget is made of: the figures a log measured, one GPU's budget, a suggestion,
and the :class:`Budget` itself (its ``to_dict`` is the ``logscope budget --format json`` shape)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._html import budget_html
from .._text import SCHEMA_VERSION
from ..log.runs import FailureKind
from .eras import Era


@dataclass(frozen=True)
class MeasuredFigures:
    """Per-GPU figures a log printed (GiB; minimum over ranks for free memory)."""

    f0_gib: float | None = None
    free_after_weights_gib: float | None = None
    weights_gib: float | None = None
    draft_weights_gib: float | None = None
    f0_by_rank: Mapping[str, float] = field(default_factory=dict)
    origin: str = "log"


@dataclass(frozen=True)
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
    #: Eras A-C: draft KV pool allocated later out of the slack (target's token count).
    draft_kv_gib: float = 0.0

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
        }


@dataclass(frozen=True)
class Suggestion:
    """One change that makes the launch fit, and what it gives."""

    change: str
    effect: str
    args: Mapping[str, Any] = field(default_factory=dict, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"change": self.change, "effect": self.effect}


@dataclass(frozen=True)
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

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "sglang_version": self.sglang_version,
            "era": self.era.value,
            "model": self.model,
            "per_gpu": self.per_gpu.to_dict(),
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
        }
        if self.reported is not None:
            out["reported"] = dict(self.reported)
        return out

    def _repr_html_(self) -> str:
        """Jupyter: the per-GPU stacked bar and figures, as in ``logscope report``."""
        return budget_html(self)


def _r(value: float | None, nd: int = 3) -> float | None:
    return None if value is None else round(value, nd)
