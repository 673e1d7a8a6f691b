"""SGLang's memory arithmetic: budgets per release era, hybrid state, spec draft, OOM verdicts."""

from __future__ import annotations

from .budget import (
    Budget,
    MeasuredFigures,
    PerGpu,
    Suggestion,
    budget,
    budget_for_run,
    estimate_weights_gib,
    kv_cell_bytes,
    mamba_slot_bytes,
    measured_from_run,
    reported_from_run,
)
from .eras import Era, era_of, parse_version
from .gpus import PRESETS, GpuSpec, gpu_from_text, gpu_list, parse_size_mib
from .models import ModelFacts, facts_from_config, profile_facts, resolve_model
from .verdict import OomVerdict, OomVerdictKind, oom_verdict

__all__ = [
    "PRESETS",
    "Budget",
    "Era",
    "GpuSpec",
    "MeasuredFigures",
    "ModelFacts",
    "OomVerdict",
    "OomVerdictKind",
    "PerGpu",
    "Suggestion",
    "budget",
    "budget_for_run",
    "era_of",
    "estimate_weights_gib",
    "facts_from_config",
    "gpu_from_text",
    "gpu_list",
    "kv_cell_bytes",
    "mamba_slot_bytes",
    "measured_from_run",
    "oom_verdict",
    "parse_size_mib",
    "parse_version",
    "profile_facts",
    "reported_from_run",
    "resolve_model",
]
