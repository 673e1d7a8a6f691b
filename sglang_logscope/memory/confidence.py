"""How far a budget can be trusted: the terms of its arithmetic that no real log has validated
(``docs/memory-accuracy.md`` lists the logs that do validate terms) and the inputs it assumed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .eras import Era

if TYPE_CHECKING:
    from .solver import Inputs


def unvalidated_terms(x: Inputs) -> list[str]:
    """Terms this launch's arithmetic uses that no corpus log printing pool sizes covers."""
    m = x.model
    out: list[str] = []
    if x.spec and m.is_hybrid:
        out.append("hybrid speculative scratch (no log prints it)")
    if x.spec and x.draft_layers:
        out.append("draft layers priced into the KV cell (era D)")
    elif x.spec:
        out.append("draft weights and draft KV taken from the slack")
    if x.spec and x.free_after_weights is not None and x.rules.era is Era.D and m.mtp_layers:
        out.append("draft embed/lm_head transient read from the draft's Load weight end (no log)")
    if x.dp > 1:
        out.append("DP attention pools (log 027 checks the KV cell only)")
    if x.pp > 1:
        out.append("pipeline-parallel stage split (no log)")
    if m.is_mla and x.kv_bytes != 2:  # bf16 MLA: fixtures/real/091 (+0.01 %)
        out.append("MLA pool with a non-bf16 KV cache (no log prints it with free memory)")
    if x.swa is not None:
        out.append("sliding-window pool split (no log prints it with free memory)")
    if m.is_multimodal and x.rules.mm_reserve_mib:
        out.append("multimodal reserve (0.5.18+)")
    if x.rules.era in (Era.P4, Era.P5) and m.is_hybrid:
        out.append(f"hybrid state before 0.5.9 (era {x.rules.era.value})")
    return out


def assumed_inputs(sources: Mapping[str, str]) -> list[str]:
    """Inputs that were assumed or estimated rather than given or measured."""
    return [
        k
        for k, v in sources.items()
        if k != "gpu_basis" and (v == "assumed" or v.startswith(("estimated", "unknown")))
    ]


def confidence(x: Inputs, sources: Mapping[str, str]) -> dict[str, Any]:
    """``level`` high / medium / low, the unvalidated terms and the assumed inputs."""
    terms = unvalidated_terms(x)
    assumed = assumed_inputs(sources)
    hardware_assumed = sources.get("f0") == "assumed"
    if not terms and not assumed:
        level = "high"
    elif len(terms) >= 2 or (hardware_assumed and "weights" in assumed):
        level = "low"
    else:
        level = "medium"
    return {"level": level, "unvalidated": terms, "assumed_inputs": assumed}
