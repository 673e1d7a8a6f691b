"""Per-rank size estimates from a model's shape: weights (by quantisation), the MTP draft, the
bytes of one KV cell and of one mamba state slot, and the element sizes of KV and SSM state."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..errors import LogscopeError
from .models import ModelFacts
from .quant import QuantScheme, linear_bytes, scheme_for

GIB = float(1 << 30)
#: Rope caches and buffers resident with the weights beyond the parameters [assumed, reference note].
WEIGHTS_OVERHEAD_GIB = 0.07


def arg_value(args: Mapping[str, Any], key: str, default: Any = None) -> Any:
    """``args[key]``, or ``default`` when it is missing or None (an unset ServerArgs field)."""
    value = args.get(key)
    return default if value is None else value


def spec_defaults(model: ModelFacts) -> tuple[int, int, int]:
    """SGLang's speculative steps, top-k and draft tokens when none are given, by architecture."""
    if "llama" in model.architecture.lower() or "grok" in model.architecture.lower():
        return 5, 4, 8
    return 3, 1, 4


def weight_scheme(quant: str | None, model: ModelFacts) -> QuantScheme | None:
    """The storage of the model's linears: its config's scheme when ``quant`` is the same
    method (``awq`` and ``awq_marlin`` alike), else the method's usual one."""
    scheme = scheme_for(quant)
    config = model.quant_scheme
    if config is None or (scheme is None and quant is not None):
        return scheme
    if scheme is None or scheme.method == "compressed-tensors":
        return config  # the checkpoint's own config says which compressed-tensors scheme
    return config if _family(scheme.method) == _family(config.method) else scheme


def _family(method: str) -> str:
    return method.removesuffix("_marlin")


def _unpriced_note(scheme: QuantScheme | None, model: ModelFacts) -> str | None:
    """What the weight price rests on, when it is not the checkpoint's own config."""
    if scheme is None:
        return None
    if not scheme.priced:
        return (
            f"quantization {scheme.method!r} not priced; weights estimated at "
            f"{model.dtype_bytes} B/param"
        )
    if scheme.source == "default" and scheme.flat_bytes is None:
        return (
            f"{scheme.method} weights priced as {scheme.describe()} — the method's usual; "
            "no quantization_config was read (pass --model-config for the checkpoint's own)"
        )
    return None


def _weight_bytes_per_param(quant: str | None, model: ModelFacts) -> tuple[float, str | None]:
    scheme = weight_scheme(quant, model)
    if scheme is None or not scheme.priced:
        return float(model.dtype_bytes), _unpriced_note(scheme, model)
    return scheme.bytes_per_param, None


def weight_bytes(model: ModelFacts, scheme: QuantScheme | None) -> dict[str, float]:
    """Bytes of the whole checkpoint by part (before TP): quantisable linears, everything else
    of the language model (embeddings, LM head, norms, routers), the vision tower (bf16)."""
    linears = dict(model.linear_parts) if model.linear_parts else {"linear": model.params_linear}
    plain = model.params_language - model.params_linear
    return {
        "linear": linear_bytes(linears.items(), scheme, model.dtype_bytes),
        "plain": plain * model.dtype_bytes,
        "vision": model.params_vision * 2,
    }


def estimate_weights_gib(
    model: ModelFacts, *, tp: int, pp: int, quant: str | None
) -> tuple[float, str | None]:
    """Target weights resident per rank (params by shape, quantised linears, bf16 embeddings)."""
    scheme = weight_scheme(quant, model)
    total = sum(weight_bytes(model, scheme).values())
    return total / (tp * pp) / GIB + WEIGHTS_OVERHEAD_GIB, _unpriced_note(scheme, model)


def estimate_draft_gib(model: ModelFacts, *, tp: int, quant: str | None) -> float:
    """MTP/NEXTN draft weights per rank: the ``fc`` replicated, the decoder layer sharded."""
    if not model.mtp_layers:
        return 0.0
    qb, _ = _weight_bytes_per_param(quant, model)
    sharded = model.params_mtp - model.params_mtp_replicated
    return (model.params_mtp_replicated * model.dtype_bytes + sharded * qb / tp) / GIB


def draft_head_copies_gib(model: ModelFacts, tp: int) -> float:
    """The MTP draft's own embedding and lm_head per rank (vocab-parallel over tp, in the
    model's dtype): SGLang builds them with the draft and frees them only when the draft's
    ``init_lm_head`` / ``set_embed_and_head`` shares the target's (0 without an MTP head).
    Where that happens relative to the memory profiling: ``fixtures/memory/startup-order.json``."""
    if not model.mtp_layers:
        return 0.0
    return 2 * model.vocab_size / max(tp, 1) * model.hidden_size * model.dtype_bytes / GIB


def kv_element_bytes(dtype: str | None, model: ModelFacts) -> tuple[float, str | None]:
    """Bytes per KV element for ``--kv-cache-dtype`` (and a note when the price is an estimate)."""
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


def ssm_element_bytes(args: Mapping[str, Any], model: ModelFacts) -> int:
    """Bytes per SSM state element: 4 for float32 (the default), else 2."""
    d = str(arg_value(args, "mamba_ssm_dtype", model.mamba_ssm_dtype or "float32")).lower()
    return 4 if d in ("float32", "fp32") else 2


def kv_cell_bytes(
    model: ModelFacts, *, tp: int, pp: int, kv_bytes: float, draft_layers: int = 0
) -> int:
    """Bytes of KV cache per token on one rank (only full-attention layers of hybrid models).

    A model known from its log alone carries the cell its run printed; another tp, pp or KV
    dtype scales it as KV heads split over tp and layers over pp (its notes say so)."""
    if model.logged_cell_bytes is not None:
        tp0, pp0, kv0 = model.logged_at
        scale = tp0 / max(tp, 1) * pp0 / max(pp, 1) * kv_bytes / kv0
        return round(model.logged_cell_bytes * scale)
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
