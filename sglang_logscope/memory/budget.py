"""SGLang's startup memory arithmetic, per release era: weights, slack, hybrid state, spec scratch
and the KV pool, and whether the launch fits. See ``docs/memory.md`` for the model."""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import regex

from ..errors import LogscopeError
from ..events import EventKind
from ..runs import FailureKind, Run
from .eras import (
    NEWEST_READ,
    Era,
    EraRules,
    default_mfs,
    mamba_ratio,
    parse_version,
    rules_for,
    vlm_factor,
)
from .gpus import DEFAULT_COUNT, DEFAULT_GPU, F0_OVERHEAD_GIB, GpuSpec, as_gpu_list
from .models import ModelFacts

GIB = float(1 << 30)
SCHEMA_VERSION = 1
#: Rope caches and buffers resident with the weights beyond the parameters [assumed, reference note].
WEIGHTS_OVERHEAD_GIB = 0.07
#: Speculative algorithms that reset ``max_running_requests`` to 48 when it is unset.
_SPEC_RESET = {"EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH"}
#: Algorithms whose draft is priced into the KV cell in era D.
_EAGLE_FAMILY = {"EAGLE", "EAGLE3", "NEXTN", "MTP", "STANDALONE"}
_QUANT_BYTES = {
    "fp8": 1.0,
    "w8a8_fp8": 1.0,
    "modelopt_fp8": 1.0,
    "fbgemm_fp8": 1.0,
    "w8a8_int8": 1.0,
    "awq": 0.52,
    "awq_marlin": 0.52,
    "gptq": 0.52,
    "gptq_marlin": 0.52,
    "moe_wna16": 0.52,
    "compressed-tensors": 0.52,
    "mxfp4": 0.5625,
    "modelopt_fp4": 0.5625,
    "nvfp4": 0.5625,
}


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
        from .._repr import budget_html

        return budget_html(self)


def _r(value: float | None, nd: int = 3) -> float | None:
    return None if value is None else round(value, nd)


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class _Inputs:
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


@dataclass(frozen=True)
class _Solution:
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

    @property
    def fits(self) -> bool:
        return self.failure is None and (self.mrr is None or self.mrr > 0) and self.tokens > 0


def kv_cell_bytes(
    model: ModelFacts, *, tp: int, pp: int, kv_bytes: float, draft_layers: int = 0
) -> int:
    """Bytes of KV cache per token on one rank (only full-attention layers of hybrid models)."""
    n_layers = math.ceil(len(model.full_attention_layers) / pp)
    if model.is_mla:
        cell = int(
            (int(model.kv_lora_rank or 0) + int(model.qk_rope_head_dim or 0)) * n_layers * kv_bytes
        )
    else:
        heads = max(1, model.num_kv_heads // tp)
        cell = int(heads * (model.head_dim + model.v_head_dim) * n_layers * kv_bytes)
    if draft_layers and n_layers:
        cell += int(cell * draft_layers / n_layers)
    return cell


def mamba_slot_bytes(
    model: ModelFacts, *, tp: int, pp: int, ssm_bytes: int, conv_bytes: int = 2
) -> int:
    """Bytes of conv + ssm state one request slot holds on one rank (gated-delta-net layers)."""
    if not model.is_hybrid:
        return 0
    hk = int(model.linear_num_key_heads or 0)
    hv = int(model.linear_num_value_heads or 0)
    dk = int(model.linear_key_head_dim or 0)
    dv = int(model.linear_value_head_dim or 0)
    k = int(model.linear_conv_kernel_dim or 4)
    groups = hk if hk % tp == 0 else math.ceil(hk / tp) * tp
    conv_dim = hv * dv + 2 * groups * dk
    conv = conv_dim // tp * (k - 1) * conv_bytes
    ssm = hv // tp * dv * dk * ssm_bytes
    layers = math.ceil(model.num_linear_layers / pp)
    return (conv + ssm) * layers


def _solve(x: _Inputs, extra_gib: float = 0.0) -> _Solution:
    rules, model = x.rules, x.model
    era = rules.era
    slack = x.f0 * (1 - x.mfs)
    mm_reserve = rules.mm_reserve_mib / 1024 if model.is_multimodal else 0.0
    if x.free_after_weights is not None:
        free_after = x.free_after_weights
    else:
        free_after = x.f0 - x.weights - (x.draft_weights if era is Era.D else 0.0)
    rest = free_after - slack - mm_reserve + extra_gib
    draft_layers = 0
    if era is Era.D and x.spec in _EAGLE_FAMILY:
        draft_layers = max(1, min(model.mtp_layers, 1)) if model.mtp_layers else 1
    cell = kv_cell_bytes(model, tp=x.tp, pp=x.pp, kv_bytes=x.kv_bytes, draft_layers=draft_layers)
    slot = mamba_slot_bytes(model, tp=x.tp, pp=x.pp, ssm_bytes=x.ssm_bytes)
    failure: FailureKind | None = None
    state = scratch = 0.0
    slots: int | None = None
    d = x.draft_tokens if x.spec else 0
    if model.is_hybrid:
        pg = slot / GIB
        mrr = x.mrr
        r = x.mamba_full_memory_ratio
        if era in (Era.A, Era.B):
            if x.spec:
                scratch = pg * (mrr or 0) * d
                rest -= scratch
            if x.max_mamba_cache_size is not None:
                slots = x.max_mamba_cache_size // x.dp
            elif x.radix_disabled and mrr is not None:
                slots = mrr
            else:
                slots = int((rest * r / (1 + r) * GIB) // slot)
            state = slots * pg
        else:
            pad = 1 if rules.padding_slot else 0
            if x.max_mamba_cache_size is not None:
                slots = x.max_mamba_cache_size // x.dp
                if x.spec:
                    cap = min(max(1, mrr or 1), slots // x.ratio)
                    scratch = pg * (cap + pad) * d
            elif x.radix_disabled and mrr is not None:
                slots = max(1, mrr) if pad else mrr
                if x.spec:
                    scratch = pg * (slots + pad) * d
            else:
                budget_b = rest * r / (1 + r) * GIB
                if x.spec:
                    slots = int((budget_b - pad * slot * (1 + d)) // (slot * (1 + d / x.ratio)))
                    cap = min(max(1, mrr or 1), slots // x.ratio)
                    scratch = pg * (cap + pad) * d
                else:
                    slots = int((budget_b - pad * slot) // slot)
            if slots <= 0:
                failure = FailureKind.MAMBA_STATE_TOO_SMALL
            state = (slots + pad) * pg
            rest -= scratch
        rest -= state
    if failure is None and era is Era.D and rest <= 0:
        failure = FailureKind.WEIGHTS_LEAVE_NO_MEMORY
    tokens = int(rest * GIB) // cell if cell else 0
    if x.max_total_tokens is not None:
        tokens = min(tokens, x.max_total_tokens)
    tokens = tokens // x.page_size * x.page_size
    if failure is None and tokens <= 0:
        failure = FailureKind.NOT_ENOUGH_MEMORY
    kv_gib = max(tokens, 0) * cell / GIB
    mrr_out = _final_mrr(x, tokens, slots)
    if (
        failure is None
        and model.is_hybrid
        and era in (Era.C, Era.D)
        and mrr_out is not None
        and mrr_out <= 0
    ):
        failure = FailureKind.MAMBA_STATE_TOO_SMALL
    return _Solution(
        slack, rest, state, scratch, kv_gib, tokens, cell, slot, slots, mrr_out, failure, mm_reserve
    )


def _final_mrr(x: _Inputs, tokens: int, slots: int | None) -> int | None:
    if tokens <= 0:
        return None
    era = x.rules.era
    estimated = max(min(int(tokens / max(x.context_len, 1) * 512), 4096), 2048)
    user = x.mrr
    if era in (Era.A, Era.B):
        mrr = user if user is not None else estimated
    elif era is Era.C:
        mrr = min(user, estimated) if user is not None else min(estimated, tokens // 2)
    else:
        mrr = min(max(1, user), tokens // 2) if user is not None else min(estimated, tokens // 2)
    if slots is not None:
        mrr = min(mrr, slots // x.ratio)
    return mrr


# --------------------------------------------------------------------------- public API


def _arg(args: Mapping[str, Any], key: str, default: Any = None) -> Any:
    value = args.get(key)
    return default if value is None else value


def _spec_defaults(model: ModelFacts) -> tuple[int, int, int]:
    if "llama" in model.architecture.lower() or "grok" in model.architecture.lower():
        return 5, 4, 8
    return 3, 1, 4


def _weight_bytes_per_param(quant: str | None, model: ModelFacts) -> tuple[float, str | None]:
    if quant is None or quant in ("bf16", "bfloat16", "fp16", "float16", "none"):
        return float(model.dtype_bytes), None
    q = quant.lower()
    if q in _QUANT_BYTES:
        return _QUANT_BYTES[q], None
    return float(
        model.dtype_bytes
    ), f"quantization {quant!r} not priced; weights estimated at {model.dtype_bytes} B/param"


def estimate_weights_gib(
    model: ModelFacts, *, tp: int, pp: int, quant: str | None
) -> tuple[float, str | None]:
    """Target weights resident per rank (params by shape, quantised linears, bf16 embeddings)."""
    qb, note = _weight_bytes_per_param(quant, model)
    plain = model.params_language - model.params_linear
    total = plain * model.dtype_bytes + model.params_linear * qb + model.params_vision * 2
    return total / (tp * pp) / GIB + WEIGHTS_OVERHEAD_GIB, note


def estimate_draft_gib(model: ModelFacts, *, tp: int, quant: str | None) -> float:
    """MTP/NEXTN draft weights per rank: the ``fc`` replicated, the decoder layer sharded."""
    if not model.mtp_layers:
        return 0.0
    qb, _ = _weight_bytes_per_param(quant, model)
    sharded = model.params_mtp - model.params_mtp_replicated
    return (model.params_mtp_replicated * model.dtype_bytes + sharded * qb / tp) / GIB


def _kv_bytes(dtype: str | None, model: ModelFacts) -> tuple[float, str | None]:
    d = (dtype or "auto").lower()
    if d == "auto":
        return float(model.dtype_bytes), None
    if d.startswith("fp8") or d.startswith("float8") or d in ("mxfp8",):
        return 1.0, None
    if d in ("bf16", "bfloat16", "fp16", "float16", "half"):
        return 2.0, None
    if "fp4" in d:
        return 0.5625, "fp4 KV priced at 0.5 B + block scales per element"
    raise LogscopeError(f"unknown --kv-cache-dtype {dtype!r}")


def _ssm_bytes(args: Mapping[str, Any], model: ModelFacts) -> int:
    d = str(_arg(args, "mamba_ssm_dtype", model.mamba_ssm_dtype or "float32")).lower()
    return 4 if d in ("float32", "fp32") else 2


def budget(
    args: Mapping[str, Any],
    *,
    gpus: GpuSpec | Sequence[GpuSpec] | None = None,
    model: ModelFacts | None = None,
    sglang_version: str | None = None,
    measured: MeasuredFigures | None = None,
    explicit: Collection[str] | None = None,
    model_config: Any = None,
) -> Budget:
    """Recompute SGLang's startup memory budget for ``args`` (ServerArgs field → value).

    ``gpus`` gives capacities (else the ``measured`` log figures, else 2 x 48 GB is assumed);
    ``model`` the model facts (else resolved from ``model_path``); ``sglang_version`` picks the
    era (else the newest release read). ``explicit`` names the args the user really passed;
    ``mem_fraction_static`` not among them is recomputed the way that release does.
    """
    b = _budget(
        args,
        gpus=gpus,
        model=model,
        sglang_version=sglang_version,
        measured=measured,
        explicit=explicit,
        model_config=model_config,
    )
    if b.fits:
        return b
    from .suggest import suggestions

    def rerun(changed: Mapping[str, Any], gpus_override: Sequence[GpuSpec] | None = None) -> Budget:
        new_explicit = None if explicit is None else {*explicit, *changed}
        return _budget(
            {**args, **changed},
            gpus=gpus_override if gpus_override is not None else gpus,
            model=b_model,
            sglang_version=sglang_version,
            measured=_scale_measured(measured, args, changed),
            explicit=new_explicit,
            model_config=None,
        )

    b_model = model if model is not None else _resolve(args, model_config)
    return replace(b, suggestions=tuple(suggestions(b, args, rerun)))


def _scale_measured(
    measured: MeasuredFigures | None, args: Mapping[str, Any], changed: Mapping[str, Any]
) -> MeasuredFigures | None:
    """Measured weights scale with 1/tp when a suggestion changes tp (F0 stays)."""
    if measured is None or "tp_size" not in changed:
        return measured
    old = int(_arg(args, "tp_size", 1))
    new = int(changed["tp_size"])
    f = old / new
    return replace(
        measured,
        weights_gib=None if measured.weights_gib is None else measured.weights_gib * f,
        draft_weights_gib=None
        if measured.draft_weights_gib is None
        else measured.draft_weights_gib * f,
        free_after_weights_gib=None,
        origin="log, weights scaled by tp",
    )


def _resolve(args: Mapping[str, Any], model_config: Any) -> ModelFacts:
    from pathlib import Path

    from .models import resolve_model

    return resolve_model(args, Path(model_config) if model_config is not None else None)


def _budget(
    args: Mapping[str, Any],
    *,
    gpus: GpuSpec | Sequence[GpuSpec] | None,
    model: ModelFacts | None,
    sglang_version: str | None,
    measured: MeasuredFigures | None,
    explicit: Collection[str] | None,
    model_config: Any,
) -> Budget:
    assumptions: list[str] = []
    warnings: list[str] = []
    sources: dict[str, str] = {}
    if model is None:
        model = _resolve(args, model_config)
    sources["model"] = model.source
    assumptions.extend(model.notes)
    if sglang_version is None:
        sglang_version = NEWEST_READ
        assumptions.append(
            f"SGLang version unknown: the arithmetic of {NEWEST_READ} (era D) is used"
        )
        sources["sglang_version"] = "assumed"
    else:
        sources.setdefault("sglang_version", "given")
    version = parse_version(sglang_version)
    rules = rules_for(version)
    if version[:3] < (0, 5, 9):
        assumptions.append(f"{sglang_version} predates the releases read; era A arithmetic is used")
    if rules.era is Era.D and (0, 5, 16) <= version[:3] < (0, 5, 23):
        assumptions.append("0.5.16-0.5.22 not read: the padding state slot of 0.5.23 is assumed")

    tp = int(_arg(args, "tp_size", 1))
    pp = int(_arg(args, "pp_size", 1))
    dp = int(_arg(args, "dp_size", 1)) if args.get("enable_dp_attention") else 1
    gpu_list = as_gpu_list(gpus)
    total_gib: float | None
    capacity_mib: float | None
    if gpu_list is not None:
        smallest = min(gpu_list, key=lambda g: g.total_mib)
        total_gib, capacity_mib = smallest.total_gib, smallest.total_mib
        n_gpus = len(gpu_list)
        sources["gpu"] = (
            f"{n_gpus} x {smallest.name} ({smallest.total_mib:.0f} MiB, {smallest.source})"
        )
    elif measured is not None and measured.f0_gib is not None:
        total_gib = capacity_mib = None
        n_gpus = tp * pp
        sources["gpu"] = "capacity unknown; the log's free-memory figures are used"
    else:
        smallest = DEFAULT_GPU
        total_gib, capacity_mib = smallest.total_gib, smallest.total_mib
        n_gpus = DEFAULT_COUNT
        assumptions.append(
            f"no GPU given: assumed {DEFAULT_COUNT} x 48 GB ({smallest.name}, {smallest.total_mib:.0f} MiB)"
        )
        sources["gpu"] = "assumed"
    if n_gpus < tp * pp:
        warnings.append(f"tp x pp = {tp * pp} needs {tp * pp} GPUs but only {n_gpus} are given")

    # F0 and weights
    quant = args.get("quantization") or model.quantization
    quant = str(quant).lower() if quant else None
    if measured is not None and measured.f0_gib is not None:
        f0 = measured.f0_gib
        sources["f0"] = f"measured ({measured.origin})"
    else:
        assert total_gib is not None
        f0 = total_gib - F0_OVERHEAD_GIB
        assumptions.append(
            f"F0 (free before weights) assumed = capacity - {F0_OVERHEAD_GIB} GiB = {f0:.2f} GiB"
        )
        sources["f0"] = "assumed"
    if measured is not None and measured.weights_gib is not None:
        weights = measured.weights_gib
        sources["weights"] = f"measured ({measured.origin})"
    else:
        weights, note = estimate_weights_gib(model, tp=tp, pp=pp, quant=quant)
        if note:
            assumptions.append(note)
        sources["weights"] = (
            f"estimated ({model.params_language / 1e9:.2f}B language"
            + (f" + {model.params_vision / 1e9:.2f}B vision" if model.params_vision else "")
            + f" params, {quant or 'bf16'}, / tp {tp}, + {WEIGHTS_OVERHEAD_GIB} GiB buffers)"
        )
    free_after = measured.free_after_weights_gib if measured is not None else None

    # speculative decoding
    spec_raw = args.get("speculative_algorithm")
    spec = str(spec_raw).upper() if spec_raw else None
    if spec == "NEXTN":
        spec_norm: str | None = "EAGLE"
    else:
        spec_norm = spec
    steps = args.get("speculative_num_steps")
    topk = args.get("speculative_eagle_topk")
    draft_tokens = args.get("speculative_num_draft_tokens")
    if spec and spec != "NGRAM":
        ds, dk, dd = _spec_defaults(model)
        if steps is None:
            steps, topk, draft_tokens = (
                ds,
                (topk if topk is not None else dk),
                (draft_tokens if draft_tokens is not None else dd),
            )
            assumptions.append(
                f"speculative steps/topk/draft tokens defaulted to {steps}/{topk}/{draft_tokens}"
            )
        if topk is None:
            topk = 1
        if draft_tokens is None:
            draft_tokens = int(steps) + 1 if int(topk) == 1 else dd
    elif spec == "NGRAM":
        draft_tokens = draft_tokens if draft_tokens is not None else 8
    draft_weights = 0.0
    if spec_norm in _EAGLE_FAMILY:
        if measured is not None and measured.draft_weights_gib is not None:
            draft_weights = measured.draft_weights_gib
            sources["draft_weights"] = f"measured ({measured.origin})"
        elif args.get("speculative_draft_model_path") and not model.mtp_layers:
            assumptions.append("separate draft model not priced (its config is not known)")
            sources["draft_weights"] = "unknown"
        else:
            draft_weights = estimate_draft_gib(model, tp=tp, quant=quant)
            sources["draft_weights"] = f"estimated ({model.params_mtp / 1e9:.3f}B MTP params)"
    mrr = args.get("max_running_requests")
    if mrr is None and spec in _SPEC_RESET:
        mrr = 48
        assumptions.append(
            "max_running_requests reset to 48 for speculative decoding (SGLang's default)"
        )
    mrr_per_dp = int(mrr) // dp if mrr is not None else None

    # mem_fraction_static
    mfs_given = args.get("mem_fraction_static")
    if mfs_given is not None and (explicit is None or "mem_fraction_static" in explicit):
        mfs = float(mfs_given)
        sources["mem_fraction_static"] = "args"
    else:
        vlm = (
            vlm_factor(model.vision_num_hidden_layers, model.vision_hidden_size)
            if model.is_multimodal
            else None
        )
        dm = default_mfs(
            rules,
            capacity_mib=capacity_mib,
            tp=tp,
            pp=pp,
            chunked_prefill_size=_int_or_none(
                args.get("chunked_prefill_size")
                if explicit is None or "chunked_prefill_size" in explicit
                else None
            ),
            cuda_graph_max_bs=_int_or_none(
                args.get("cuda_graph_max_bs")
                if explicit is None or "cuda_graph_max_bs" in explicit
                else None
            ),
            spec_algorithm=spec,
            max_running_requests=mrr_per_dp,
            is_mla=model.is_mla,
            vlm_factor=vlm,
            dp_attention_size=dp,
        )
        mfs = dm.value
        sources["mem_fraction_static"] = f"default of {sglang_version}: {dm.explanation}"

    # hybrid radix mode
    radix_disabled = bool(args.get("disable_radix_cache"))
    overlap = not bool(args.get("disable_overlap_schedule"))
    page_size = int(_arg(args, "page_size", 1))
    strategy = str(
        _arg(args, "mamba_scheduler_strategy", _arg(args, "mamba_radix_cache_strategy", "auto"))
    )
    if model.is_hybrid:
        if strategy == "auto":
            strategy = (
                "extra_buffer" if rules.era is Era.D and (overlap or page_size > 1) else "no_buffer"
            )
        if strategy == "no_buffer" and rules.era is not Era.D:
            overlap = False
        if spec and not radix_disabled and strategy == "no_buffer":
            if rules.spec_disables_radix:
                radix_disabled = True
                assumptions.append(
                    f"{sglang_version} turns the radix cache off for a hybrid model with speculative decoding"
                )
            elif rules.spec_radix_no_buffer_error:
                radix_disabled = True
                warnings.append(
                    f"SGLang {sglang_version} refuses speculative decoding with the radix cache in no_buffer mode; "
                    "computed as with --disable-radix-cache"
                )
    ratio = mamba_ratio(
        rules, radix_disabled=radix_disabled, strategy=strategy, spec=bool(spec), overlap=overlap
    )
    kv_bytes, kv_note = _kv_bytes(args.get("kv_cache_dtype"), model)
    if kv_note:
        assumptions.append(kv_note)
    context_len = int(_arg(args, "context_length", model.max_position_embeddings or 32768))
    mmcs = args.get("max_mamba_cache_size")
    inputs = _Inputs(
        rules=rules,
        model=model,
        tp=tp,
        pp=pp,
        dp=dp,
        mfs=mfs,
        total_gib=total_gib,
        f0=f0,
        free_after_weights=free_after,
        weights=weights,
        draft_weights=draft_weights,
        spec=spec_norm,
        draft_tokens=int(draft_tokens or 0),
        mrr=mrr_per_dp,
        radix_disabled=radix_disabled,
        ratio=ratio,
        mamba_full_memory_ratio=float(_arg(args, "mamba_full_memory_ratio", 0.9)),
        max_mamba_cache_size=int(mmcs) if mmcs is not None else None,
        ssm_bytes=_ssm_bytes(args, model),
        kv_bytes=kv_bytes,
        page_size=page_size,
        max_total_tokens=_int_or_none(args.get("max_total_tokens")),
        context_len=context_len,
    )
    sol = _solve(inputs)
    shortfall = 0.0 if sol.fits else _shortfall(inputs)
    if rules.era is not Era.D and spec_norm in _EAGLE_FAMILY:
        draft_kv = (
            max(sol.tokens, 0)
            * kv_cell_bytes(model, tp=tp, pp=pp, kv_bytes=kv_bytes)
            / max(len(model.full_attention_layers), 1)
            / GIB
        )
    else:
        draft_kv = 0.0
    per_gpu = PerGpu(
        total_gib=total_gib,
        f0_gib=f0,
        weights_gib=weights,
        draft_weights_gib=draft_weights,
        slack_gib=sol.slack,
        rest_gib=sol.rest + sol.state + sol.scratch,
        mamba_state_gib=sol.state,
        spec_scratch_gib=sol.scratch,
        kv_gib=sol.kv_gib,
        kv_tokens=max(sol.tokens, 0),
        kv_cell_bytes=sol.cell,
        mamba_slot_bytes=sol.slot_bytes,
        mamba_slots=sol.slots,
        mm_reserve_gib=sol.mm_reserve,
        draft_kv_gib=draft_kv,
    )
    if sol.fits:
        warnings.extend(_slack_warnings(inputs, per_gpu, args))
    elif sol.failure is None and sol.mrr is not None and sol.mrr <= 0:
        warnings.append(
            f"the mamba pool ({sol.slots} slots, {ratio} per request) leaves no request slots: "
            "SGLang starts but cannot serve"
        )
    return Budget(
        sglang_version=sglang_version,
        era=rules.era,
        era_label=rules.label,
        model=model.name,
        per_gpu=per_gpu,
        gpus=n_gpus,
        max_running_requests=sol.mrr,
        fits=sol.fits,
        failure_kind=sol.failure,
        shortfall_gib=shortfall,
        suggestions=(),
        assumptions=tuple(assumptions),
        sources=sources,
        warnings=tuple(warnings),
        inputs={
            "tp_size": tp,
            "pp_size": pp,
            "mem_fraction_static": round(mfs, 4),
            "speculative_algorithm": spec,
            "speculative_num_steps": steps,
            "speculative_eagle_topk": topk,
            "speculative_num_draft_tokens": draft_tokens,
            "max_running_requests": mrr,
            "radix_cache": "off" if radix_disabled else strategy,
            "mamba_ratio": ratio if model.is_hybrid else None,
            "kv_cache_dtype": args.get("kv_cache_dtype") or "auto",
            "mamba_ssm_dtype": ("float32" if inputs.ssm_bytes == 4 else "bfloat16")
            if model.is_hybrid
            else None,
            "quantization": quant,
            "context_len": context_len,
        },
    )


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)


def _shortfall(x: _Inputs) -> float:
    """GiB more free memory per GPU (after weights) that would make the launch fit."""
    lo, hi = 0.0, 1.0
    while not _solve(x, hi).fits:
        hi *= 2
        if hi > 4096:
            return math.inf
    for _ in range(40):
        mid = (lo + hi) / 2
        if _solve(x, mid).fits:
            hi = mid
        else:
            lo = mid
    return hi


def _slack_warnings(x: _Inputs, g: PerGpu, args: Mapping[str, Any]) -> list[str]:
    """Pools fit, but is the slack enough for CUDA graphs, activations (and eras A-C the draft)?"""
    cpf = int(_arg(args, "chunked_prefill_size", 4096) or 4096)
    bs = int(_arg(args, "cuda_graph_max_bs", 0) or 0) or (min(x.mrr, 256) if x.mrr else 160)
    need_mib = 512 + max(cpf, 2048) * 1.5 + bs * 2
    parts = [f"~{need_mib / 1024:.1f} GiB graphs + activations"]
    need = need_mib / 1024
    if x.rules.era is not Era.D and x.spec in _EAGLE_FAMILY:
        transient = (
            2 * x.model.vocab_size / x.tp * x.model.hidden_size * 2 / GIB
            if x.model.mtp_layers
            else 0.0
        )
        need += g.draft_weights_gib + g.draft_kv_gib + transient
        parts.append(
            f"{g.draft_weights_gib + g.draft_kv_gib + transient:.1f} GiB draft weights/KV/load transient"
        )
    if g.slack_gib < need:
        return [
            f"pools fit, but the slack ({g.slack_gib:.2f} GiB) is below SGLang's own reserve estimate "
            f"for {' + '.join(parts)}: a CUDA out-of-memory during graph capture or serving is possible"
        ]
    return []


# --------------------------------------------------------------------------- from a log


_TOKENS = regex.compile(r"max_total_num_tokens=(\d+)")


def measured_from_run(run: Run, *, era: Era | None = None, spec: bool = False) -> MeasuredFigures:
    """F0 (``Load weight begin``), free memory after weights and weights (``Load weight end``).

    Never reads the pool lines. In era D with speculative decoding the draft's own
    ``Load weight end`` (the second per rank) gives the free memory SGLang profiled.
    """
    begins: dict[str, list[float]] = {}
    ends: dict[str, list[tuple[float | None, float | None]]] = {}
    for e in run.of_kind(EventKind.LOAD_WEIGHT_BEGIN, EventKind.LOAD_WEIGHT_END):
        rank = e.rank.label if e.rank else "-"
        if e.kind is EventKind.LOAD_WEIGHT_BEGIN:
            v = e.fields.get("avail_gib")
            if isinstance(v, (int, float)):
                begins.setdefault(rank, []).append(float(v))
        else:
            a, u = e.fields.get("avail_gib"), e.fields.get("mem_usage_gib")
            ends.setdefault(rank, []).append(
                (
                    float(a) if isinstance(a, (int, float)) else None,
                    float(u) if isinstance(u, (int, float)) else None,
                )
            )
    f0_by_rank = {r: v[0] for r, v in begins.items()}
    f0 = min(f0_by_rank.values()) if f0_by_rank else None
    first = [v[0] for v in ends.values() if v]
    after = [a for a, _ in first if a is not None]
    usage = [u for _, u in first if u is not None]
    free_after = min(after) if after else None
    draft: float | None = None
    if era is Era.D and spec:
        second = [v[1] for v in ends.values() if len(v) > 1]
        if second:
            after2 = [a for a, _ in second if a is not None]
            draft_u = [u for _, u in second if u is not None]
            free_after = min(after2) if after2 else free_after
            draft = max(draft_u) if draft_u else None
    origin = "log: Load weight begin/end"
    if f0 is None and free_after is not None and usage:
        f0 = free_after + max(usage)
        origin = "log: Load weight end (F0 = avail + mem usage)"
    if f0 is not None and free_after is not None:
        weights: float | None = f0 - free_after - (draft or 0.0)
    else:
        weights = max(usage) if usage else None
    return MeasuredFigures(
        f0_gib=f0,
        free_after_weights_gib=free_after,
        weights_gib=weights,
        draft_weights_gib=draft,
        f0_by_rank=f0_by_rank,
        origin=origin,
    )


def reported_from_run(run: Run) -> dict[str, Any]:
    """What SGLang printed about its pools (for side-by-side comparison only)."""
    kv = run.first(EventKind.KV_CACHE_ALLOCATED)
    mamba = run.first(EventKind.MAMBA_CACHE_ALLOCATED)
    summary = run.first(EventKind.TOKEN_SUMMARY)
    tokens = kv.fields.get("tokens") if kv else None
    if tokens is None and summary is not None:
        tokens = summary.fields.get("max_total_num_tokens")
        if tokens is None:
            m = _TOKENS.search(summary.message)
            tokens = int(m.group(1)) if m else None
    out: dict[str, Any] = {
        "kv_tokens": tokens,
        "mamba_slots": mamba.fields.get("max_mamba_cache_size") if mamba else None,
        "max_running_requests": summary.fields.get("max_running_requests") if summary else None,
    }
    if kv is not None:
        parts = [kv.fields.get(k) for k in ("k_gib", "v_gib", "kv_gib")]
        nums = [float(p) for p in parts if isinstance(p, (int, float))]
        out["kv_gib"] = round(sum(nums), 2) if nums else None
    return out


def _error_pct(pred: float | None, rep: Any) -> float | None:
    if pred is None or not isinstance(rep, (int, float)) or rep == 0:
        return None
    return round((pred - rep) / rep * 100, 2)


def version_for_run(run: Run, sglang_version: str | None) -> tuple[str | None, str | None]:
    """(version, note): the given version, else the run's release hint when it names one."""
    if sglang_version is not None:
        return sglang_version, None
    fingerprint = _failure_fingerprint(run)
    if fingerprint is not None:
        return fingerprint
    hint = run.release_hint
    if hint and regex.fullmatch(r"\d+\.\d+\.\d+(?:\.post\d+)?", hint):
        return hint, f"SGLang version {hint} inferred from the log's messages"
    if hint and "-" in hint and not hint.startswith(">="):
        low = hint.split("-")[0]
        return low, f"SGLang version: log messages point to {hint}; {low} used"
    return None, None


def _failure_fingerprint(run: Run) -> tuple[str, str] | None:
    """The release an OOM message's wording points to (see docs/memory.md, fingerprints)."""
    f = run.failure
    if f is None:
        return None
    if f.kind is FailureKind.NOT_ENOUGH_MEMORY:
        if "self.server_args.mem_fraction_static" in f.message:
            return (
                "0.5.9",
                "SGLang 0.5.9 inferred from the error text ('Current value: self.server_args...')",
            )
        if "Current value: mem_fraction_static" in f.message:
            return (
                "0.5.10",
                "SGLang 0.5.10 inferred from the error text ('Current value: mem_fraction_static=')",
            )
        if "Current value" not in f.message:
            return "0.5.11", "bare 'Not enough memory' text points to 0.5.11-0.5.13; 0.5.11 used"
    if f.kind is FailureKind.WEIGHTS_LEAVE_NO_MEMORY:
        return (
            "0.5.15",
            "'Loaded weights leave no GPU memory' exists from 0.5.14/0.5.15; 0.5.15 used",
        )
    return None


def budget_for_run(
    run: Run,
    *,
    args: Mapping[str, Any] | None = None,
    gpus: GpuSpec | Sequence[GpuSpec] | None = None,
    model: ModelFacts | None = None,
    sglang_version: str | None = None,
    model_config: Any = None,
) -> Budget:
    """The budget of a run from its own numbers (banner args, F0, weights), with what SGLang
    printed about its pools returned alongside as ``reported`` (never used for the prediction).

    ``args`` fills what the banner lacks (a log without a ``server_args`` line).
    """
    merged: dict[str, Any] = dict(args or {})
    for k, v in (run.server_args or {}).items():
        if v is not None:
            merged[k] = v
    if not merged and run.server_args is None:
        raise LogscopeError(f"run {run.index} has no server_args banner; pass the launch arguments")
    version, note = version_for_run(run, sglang_version)
    rules = rules_for(parse_version(version or NEWEST_READ))
    spec = bool(merged.get("speculative_algorithm"))
    measured = measured_from_run(run, era=rules.era, spec=spec)
    if measured.f0_gib is None:
        measured = replace(measured, f0_gib=None)
    b = budget(
        merged,
        gpus=gpus,
        model=model,
        sglang_version=version,
        measured=measured if measured.f0_gib is not None else None,
        explicit=None,
        model_config=model_config,
    )
    if note:
        b = replace(b, assumptions=(note, *b.assumptions))
    reported = reported_from_run(run)
    reported["kv_tokens_error_pct"] = _error_pct(b.per_gpu.kv_tokens, reported.get("kv_tokens"))
    reported["mamba_slots_error_pct"] = _error_pct(
        float(b.per_gpu.mamba_slots) if b.per_gpu.mamba_slots is not None else None,
        reported.get("mamba_slots"),
    )
    return replace(b, reported=reported)


#: Signature of the re-run callback handed to the suggestion engine.
Rerun = Callable[[Mapping[str, Any]], Budget]
