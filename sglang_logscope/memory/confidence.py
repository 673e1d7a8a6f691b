"""How far a budget can be trusted: the terms of its arithmetic that no real log has validated
(``docs/memory-accuracy.md`` lists the logs that do validate terms) and the inputs it assumed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .budget_types import PerGpu
    from .solver import Inputs

_GIB = float(1 << 30)


def unvalidated_terms(x: Inputs) -> list[str]:
    """Terms this launch's arithmetic uses that no corpus log printing pool sizes covers."""
    # a check's memory line (verdict_words, below) never needs the era tables
    # start-up: they load only where a budget is priced
    from .eras import Era

    m = x.model
    out: list[str] = []
    if x.spec and m.is_hybrid:
        out.append("hybrid speculative scratch (no log prints it)")
    if x.spec and x.draft_layers:
        out.append("draft layers priced into the KV cell (era D)")
    elif x.spec:
        out.append("draft weights and draft KV taken from the slack")
    if x.spec and x.rules.era is Era.D and m.mtp_layers:
        # the start-up order is read from SGLang's source (fixtures/memory/startup-order.json)
        out.append(
            "draft embed/lm_head copies held at profiling (SGLang's order; no log prints it)"
        )
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


def _candidates(
    x: Inputs, g: PerGpu, sources: Mapping[str, str], *, fits: bool
) -> list[tuple[str, float]]:
    """(an assumption the figures rest on, the GiB it moves): the terms no log has settled
    (the draft's embed/lm_head copies are not among them: SGLang's start-up order settles
    them, see :func:`~.estimates.draft_head_copies_gib`)."""
    m = x.model
    out: list[tuple[str, float]] = []
    if x.spec and m.is_hybrid and g.spec_scratch_gib:
        out.append(
            (
                "the hybrid speculative scratch (sized by the speculative settings; no log "
                "prints it)",
                g.spec_scratch_gib,
            )
        )
    if sources.get("f0") == "assumed":
        out.append(("the assumed free memory per GPU (no GPU measured or given)", g.f0_gib * 0.03))
    if str(sources.get("weights", "")).startswith("estimated"):
        out.append(("the weights estimated from the config", g.weights_gib * 0.05))
    if str(sources.get("model", "")).startswith("assumed"):
        out.append(("the substituted model's shapes (--assume-model)", float("inf")))
    return out


def deciding_assumption(
    x: Inputs, g: PerGpu, *, fits: bool, shortfall: float, sources: Mapping[str, str]
) -> str | None:
    """The unsettled assumption that can flip the verdict: the largest one that moves more GiB
    than the margin (the shortfall when it does not fit, the KV pool when it does)."""
    margin = shortfall if not fits else max(g.kv_gib, 0.0)
    flips = [(what, gib) for what, gib in _candidates(x, g, sources, fits=fits) if gib >= margin]
    if not flips:
        return None
    what, gib = max(flips, key=lambda c: c[1])
    verdict = "fits" if fits else "does not fit"
    size = "" if gib == float("inf") else f"{gib:.2f} GiB, "
    return f"'{verdict}' rests on {what} ({size}more than the {margin:.2f} GiB margin)"


def verdict_words(budget: Mapping[str, Any]) -> str:
    """A budget's (JSON form) one-line verdict: fits / does NOT fit / no figure, its basis, its
    confidence and the assumption that decides it, as ``check`` prints its memory line."""
    fits = budget.get("fits")
    if fits is None:
        return f"no figure ({budget.get('declined') or budget.get('basis')})"
    out = f"{'fits' if fits else 'does NOT fit'} ({budget.get('basis')})"
    conf = budget.get("confidence") or {}
    if conf.get("level"):
        out += f"; confidence {conf['level']}"
    if conf.get("deciding"):
        out += f"; {conf['deciding']}"
    return out
