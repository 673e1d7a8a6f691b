"""The solver: from one launch's resolved inputs, SGLang's startup arithmetic of its release era
(slack, mamba state, spec scratch, KV pool, max running requests) and whether it fits."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .._record import record
from ..log.runs import FailureKind
from .budget_types import PerGpu
from .eras import Era, EraRules
from .estimates import GIB, arg_value, draft_head_copies_gib, kv_cell_bytes, mamba_slot_bytes
from .models import ModelFacts
from .swa import SwaPool

#: Algorithms whose draft is priced into the KV cell in era D.
EAGLE_FAMILY = {"EAGLE", "EAGLE3", "NEXTN", "MTP", "STANDALONE"}
#: Architectures whose draft path SGLang fills in with the target's own path (0.5.14+,
#: ``arg_groups/speculative_hook.py``), which sets ``eagle_draft_num_layers``.
DRAFT_PATH_AUTO = frozenset(
    {
        "DeepseekV32ForCausalLM",
        "DeepseekV3ForCausalLM",
        "DeepseekV4ForCausalLM",
        "Glm4MoeForCausalLM",
        "Glm4MoeLiteForCausalLM",
        "GlmMoeDsaForCausalLM",
        "BailingMoeForCausalLM",
        "BailingMoeV2ForCausalLM",
        "BailingMoeV2_5ForCausalLM",
        "MistralLarge3ForCausalLM",
        "PixtralForConditionalGeneration",
        "HYV3ForCausalLM",
    }
)


@record
class Inputs:
    """Everything the arithmetic needs, resolved: per-rank figures, parallelism, era rules."""

    rules: EraRules
    model: ModelFacts
    tp: int
    pp: int
    dp: int
    mfs: float
    total_gib: float | None
    f0: float
    free_after_weights: float | None
    weights: float
    draft_weights: float
    spec: str | None
    draft_tokens: int
    mrr: int | None
    radix_disabled: bool
    ratio: int
    mamba_full_memory_ratio: float
    max_mamba_cache_size: int | None
    ssm_bytes: int
    kv_bytes: float
    page_size: int
    max_total_tokens: int | None
    context_len: int
    #: Era D: draft layers priced into the KV cell (0 when SGLang leaves them out).
    draft_layers: int = 0
    #: speculative steps x top-k (the draft tokens per request of the pre-0.5.7 padding).
    spec_steps_topk: int = 0
    #: The hybrid sliding-window pool of this release (:mod:`.swa`), None for the ordinary pool.
    swa: SwaPool | None = None
    #: SWA sizing this launch needs that the arithmetic does not cover.
    swa_not_modelled: tuple[str, ...] = ()

    @property
    def attn_tp(self) -> int:
        """SGLang's attention TP size: ``tp // dp`` with DP attention (dp_attention.py)."""
        return max(self.tp // max(self.dp, 1), 1)


@record
class Solution:
    """The arithmetic's answer per rank (GiB, tokens, slots) and the failure it predicts."""

    slack: float
    rest: float
    state: float
    scratch: float
    kv_gib: float
    tokens: int
    cell: int
    slot_bytes: int
    slots: int | None
    mrr: int | None
    failure: FailureKind | None
    mm_reserve: float
    #: Sliding-window layer tokens of an SWA pool (``tokens`` is then the full-layer count).
    swa_tokens: int | None = None

    @property
    def fits(self) -> bool:
        return self.failure is None and (self.mrr is None or self.mrr > 0) and self.tokens > 0


def solve(x: Inputs, extra_gib: float = 0.0) -> Solution:
    """Run the era's arithmetic; ``extra_gib`` adds free memory (to search the shortfall)."""
    rules, model = x.rules, x.model
    era = rules.era
    slack = x.f0 * (1 - x.mfs)
    mm_reserve = rules.mm_reserve_mib / 1024 if model.is_multimodal else 0.0
    rest = _free_after_weights(x) - slack - mm_reserve + extra_gib
    cell = kv_cell_bytes(
        model, tp=x.attn_tp, pp=x.pp, kv_bytes=x.kv_bytes, draft_layers=x.draft_layers
    )
    slot = mamba_slot_bytes(model, tp=x.attn_tp, pp=x.pp, ssm_bytes=x.ssm_bytes)
    failure: FailureKind | None = None
    state = scratch = 0.0
    slots: int | None = None
    if model.is_hybrid:
        state, scratch, slots = _hybrid_pools(x, rest, slot)
        if era not in (Era.P5, Era.A, Era.B) and slots <= 0:
            failure = FailureKind.MAMBA_STATE_TOO_SMALL
        rest -= state + scratch
    if failure is None and era is Era.D and rest <= 0:
        failure = FailureKind.WEIGHTS_LEAVE_NO_MEMORY
    tokens, swa_tokens, cell = _kv_tokens(x, rest, cell)
    if failure is None and tokens <= 0:
        failure = FailureKind.NOT_ENOUGH_MEMORY
    kv_gib = max(tokens, 0) * cell / GIB
    if x.swa is not None:
        kv_gib = x.swa.gib(max(tokens, 0), swa_tokens or 0)
    mrr_out = _final_mrr(x, tokens, slots)
    if (
        failure is None
        and model.is_hybrid
        and era in (Era.C, Era.D)
        and mrr_out is not None
        and mrr_out <= 0
    ):
        failure = FailureKind.MAMBA_STATE_TOO_SMALL
    return Solution(
        slack,
        rest,
        state,
        scratch,
        kv_gib,
        tokens,
        cell,
        slot,
        slots,
        mrr_out,
        failure,
        mm_reserve,
        swa_tokens,
    )


def _free_after_weights(x: Inputs) -> float:
    """Free GiB once weights are loaded: as the run measured it, else F0 less the weights (and,
    in era D, the draft's weights, loaded before profiling)."""
    if x.free_after_weights is not None:
        return x.free_after_weights
    return x.f0 - x.weights - (x.draft_weights if x.rules.era is Era.D else 0.0)


def _kv_tokens(x: Inputs, rest: float, cell: int) -> tuple[int, int | None, int]:
    """(KV tokens, sliding-window tokens, cell bytes) of the ``rest`` GiB left for the pool,
    after the release's spec padding, ``--max-total-tokens`` cap and page rounding."""
    tokens = int(rest * GIB) // cell if cell else 0
    swa_tokens: int | None = None
    if x.swa is not None:  # full / sliding split of the release (swa.py); no padding, no cap
        tokens, swa_tokens = x.swa.tokens(int(rest * GIB))
        cell = x.swa.cell_bytes
    elif x.rules.spec_token_padding and x.spec and tokens > 0:
        tokens += _spec_padding(x, tokens)
    if x.max_total_tokens is not None and x.swa is None:
        tokens = min(tokens, x.max_total_tokens)
    tokens = tokens // x.page_size * x.page_size
    return tokens, swa_tokens, cell


def _hybrid_pools(x: Inputs, rest: float, slot: int) -> tuple[float, float, int]:
    """(state GiB, spec scratch GiB, state slots): eras before C reserve the scratch for every
    running request first; from C the pool and the scratch are solved jointly."""
    pg = slot / GIB
    mrr = x.mrr
    r = x.mamba_full_memory_ratio
    d = x.draft_tokens if x.spec else 0
    if x.rules.hybrid_rule != "upfront":
        return _early_hybrid_pools(x, rest, slot, d)
    if x.rules.era in (Era.P5, Era.A, Era.B):
        scratch = pg * (mrr or 0) * d if x.spec else 0.0
        if x.max_mamba_cache_size is not None:
            slots = x.max_mamba_cache_size // x.dp
        elif x.radix_disabled and (mrr is not None or x.rules.era is Era.P5):
            slots = mrr if mrr is not None else 512  # 0.5.8: radix off, no MRR -> 512
        else:
            slots = int(((rest - scratch) * r / (1 + r) * GIB) // slot)
        return slots * pg, scratch, slots
    pad = 1 if x.rules.padding_slot else 0
    scratch = 0.0
    if x.max_mamba_cache_size is not None:
        slots = x.max_mamba_cache_size // x.dp
        if x.spec:
            scratch = pg * (min(max(1, mrr or 1), slots // x.ratio) + pad) * d
    elif x.radix_disabled and mrr is not None:
        slots = max(1, mrr) if pad else mrr
        if x.spec:
            scratch = pg * (slots + pad) * d
    else:
        budget_b = rest * r / (1 + r) * GIB
        if x.spec:
            slots = int((budget_b - pad * slot * (1 + d)) // (slot * (1 + d / x.ratio)))
            scratch = pg * (min(max(1, mrr or 1), slots // x.ratio) + pad) * d
        else:
            slots = int((budget_b - pad * slot) // slot)
    return (slots + pad) * pg, scratch, slots


def _early_hybrid_pools(x: Inputs, rest: float, slot: int, d: int) -> tuple[float, float, int]:
    """0.5.2-0.5.7 (``eras.HYBRID_RULES``): (state GiB, reserved scratch GiB, slots)."""
    pg = slot / GIB
    r = x.mamba_full_memory_ratio
    mrr_total = x.mrr * x.dp if x.mrr is not None else None
    explicit = x.max_mamba_cache_size
    fallback = explicit if explicit is not None else (mrr_total if mrr_total is not None else 512)
    rule = x.rules.hybrid_rule
    if rule == "radix_off" or (x.radix_disabled and rule == "split_per_draft"):
        slots = fallback // x.dp
        per_slot = 1 + d if rule == "split_per_draft" else 1
        return slots * pg, slots * pg * (per_slot - 1), slots
    if rule == "split_per_draft":
        slots = int(rest * r / (1 + r) * GIB) // slot // (1 + d) // x.dp
        return slots * pg, slots * pg * d, slots
    if x.radix_disabled or explicit is not None:  # 0.5.7
        return fallback // x.dp * pg, 0.0, fallback // x.dp
    scratch = pg * (mrr_total or 0) * d
    slots = int((rest - scratch) * r / (1 + r) * GIB) // slot
    return slots * pg, scratch, slots


def _spec_padding(x: Inputs, tokens: int) -> int:
    """Pre-0.5.7 headroom for draft and verify tokens (``draft_runner_cache_size``)."""
    reqs = x.mrr if x.mrr is not None else _estimated_mrr(tokens, x.context_len)
    return reqs * (x.spec_steps_topk + x.draft_tokens) + 100


def _estimated_mrr(tokens: int, context_len: int) -> int:
    return max(min(int(tokens / max(context_len, 1) * 512), 4096), 2048)


def _final_mrr(x: Inputs, tokens: int, slots: int | None) -> int | None:
    if tokens <= 0:
        return None
    era = x.rules.era
    estimated = _estimated_mrr(tokens, x.context_len)
    user = x.mrr
    if era in (Era.P4, Era.P5, Era.A, Era.B):
        mrr = user if user is not None else estimated
    elif era is Era.C:
        mrr = min(user, estimated) if user is not None else min(estimated, tokens // 2)
    else:
        mrr = min(max(1, user), tokens // 2) if user is not None else min(estimated, tokens // 2)
    if slots is not None:
        mrr = min(mrr, slots // x.ratio)
    return mrr


def shortfall_gib(x: Inputs) -> float:
    """GiB more free memory per GPU (after weights) that would make the launch fit."""
    lo, hi = 0.0, 1.0
    while not solve(x, hi).fits:
        hi *= 2
        if hi > 4096:
            return math.inf
    for _ in range(40):
        mid = (lo + hi) / 2
        if solve(x, mid).fits:
            hi = mid
        else:
            lo = mid
    return hi


def slack_warnings(
    x: Inputs, g: PerGpu, args: Mapping[str, Any], *, default_mfs: float | None = None
) -> list[str]:
    """Pools fit, but is the slack enough for CUDA graphs, activations (and eras A-C the draft)?
    Not when the launch leaves at least the slack SGLang's own default ``default_mfs`` would:
    SGLang sizes that slack for its graphs itself, and real runs serve on it (037, 069)."""
    if default_mfs is not None and x.mfs <= default_mfs + 1e-3:
        return []
    cpf = int(arg_value(args, "chunked_prefill_size", 4096) or 4096)
    bs = int(arg_value(args, "cuda_graph_max_bs", 0) or 0) or (min(x.mrr, 256) if x.mrr else 160)
    need_mib = 512 + max(cpf, 2048) * 1.5 + bs * 2
    parts = [f"~{need_mib / 1024:.1f} GiB graphs + activations"]
    need = need_mib / 1024
    if x.spec in EAGLE_FAMILY and (x.rules.era is not Era.D or not x.draft_layers):
        # before era D the draft (and its embed/lm_head copies) load after profiling, from
        # the slack; from era D they are held at profiling, priced with the draft weights
        transient = draft_head_copies_gib(x.model, x.tp) if x.rules.era is not Era.D else 0.0
        draft = g.draft_weights_gib if x.rules.era is not Era.D else 0.0
        need += draft + g.draft_kv_gib + transient
        parts.append(
            f"{draft + g.draft_kv_gib + transient:.1f} GiB draft weights/KV/load transient"
        )
    if x.rules.hybrid_rule == "radix_off" and x.spec and g.mamba_slots:
        # 0.5.2-0.5.3: MambaPool allocates (M + 1) x D scratch rows the budget never reserved
        late = (g.mamba_slots + 1) * x.draft_tokens * g.mamba_slot_bytes / GIB
        need += late
        parts.append(f"{late:.1f} GiB spec scratch allocated after the budget")
    if g.slack_gib < need:
        return [
            f"pools fit, but the slack ({g.slack_gib:.2f} GiB) is below SGLang's own reserve estimate "
            f"for {' + '.join(parts)}: a CUDA out-of-memory during graph capture or serving is possible"
        ]
    return []
