"""Model facts for the memory arithmetic, from a Hugging Face ``config.json`` or a bundled profile.

Multimodal configs keep the language model under ``text_config``; its fields win. Parameter
counts are estimated from the shapes (embedding, attention / MLA / gated-delta-net layers, dense
or MoE MLP, vision tower, MTP head) so weights can be priced when no log measured them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from .._record import record
from .._text import lazy_regex
from ..errors import LogscopeError
from ..limits import CONFIG_MAX_BYTES, package_files, read_regular, shape_problem
from .quant import QuantScheme, scheme_for
from .swa import swa_layer_ids

_DTYPE_BYTES = {
    "float32": 4,
    "fp32": 4,
    "float": 4,
    "bfloat16": 2,
    "bf16": 2,
    "float16": 2,
    "fp16": 2,
    "half": 2,
}


@record
class ModelFacts:
    """What the memory arithmetic needs to know about one model."""

    name: str
    source: str
    architecture: str
    hidden_size: int
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    v_head_dim: int
    #: Layer ids holding a KV cache (all layers for plain models).
    full_attention_layers: tuple[int, ...]
    vocab_size: int
    dtype_bytes: int = 2
    max_position_embeddings: int | None = None
    # MLA (DeepSeek-V2/V3): the per-token latent is not split over TP
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    # Gated-delta-net (Qwen3-Next / Qwen3.5 / Qwen3.6) linear-attention state
    linear_num_key_heads: int | None = None
    linear_num_value_heads: int | None = None
    linear_key_head_dim: int | None = None
    linear_value_head_dim: int | None = None
    linear_conv_kernel_dim: int | None = None
    mamba_ssm_dtype: str | None = None
    #: MTP/NEXTN draft layers carried in the checkpoint (0 = none).
    mtp_layers: int = 0
    #: The config names ``num_nextn_predict_layers`` (Qwen3.5/3.6 use ``mtp_num_hidden_layers``);
    #: SGLang 0.5.20+ sizes a path-less draft KV from this field only.
    nextn_field: bool = False
    #: Memory pools SGLang sizes for this family that the arithmetic does not model.
    not_modelled: tuple[str, ...] = ()
    #: Sliding-window layer ids of a hybrid-SWA model (:mod:`.swa`); empty for others.
    swa_attention_layers: tuple[int, ...] = ()
    #: KV heads / head dims of the sliding layers when the config sets its own (MiMo).
    swa_num_kv_heads: int | None = None
    swa_head_dim: int | None = None
    swa_v_head_dim: int | None = None
    #: Vision tower: ``num_hidden_layers`` as the default-mfs heuristic reads it (None if absent).
    vision_num_hidden_layers: int | None = None
    vision_hidden_size: int | None = None
    is_multimodal: bool = False
    quantization: str | None = None
    #: Estimated parameter counts: language model, vision tower, MTP head.
    params_language: float = 0.0
    params_vision: float = 0.0
    params_mtp: float = 0.0
    #: Parameters of the language model held in linear layers (quantisable).
    params_linear: float = 0.0
    #: The part of ``params_mtp`` replicated on every TP rank (the MTP ``fc``).
    params_mtp_replicated: float = 0.0
    #: The quantisable linear layers: (a checkpoint module name, its parameters), summing to
    #: ``params_linear``; a quantisation config may leave any of them unquantised.
    linear_parts: tuple[tuple[str, float], ...] = ()
    #: How the checkpoint stores its linears (from ``quantization_config``); None if unquantised.
    quant_scheme: QuantScheme | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    #: KV bytes per token on one rank as the run's own pool line printed them (K + V over
    #: ``#tokens``), with the (attention tp, pp, KV element bytes) they were printed at; set
    #: only for a model known from its log alone (:mod:`.log_model`), else None.
    logged_cell_bytes: float | None = None
    logged_at: tuple[int, int, float] = (1, 1, 2.0)

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None

    @property
    def is_hybrid(self) -> bool:
        return self.linear_num_value_heads is not None

    @property
    def num_linear_layers(self) -> int:
        return self.num_layers - len(self.full_attention_layers) if self.is_hybrid else 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "source": self.source,
            "architecture": self.architecture,
            "hybrid": self.is_hybrid,
            "mla": self.is_mla,
            "kv_layers": len(self.full_attention_layers),
            "linear_layers": self.num_linear_layers,
            "swa_layers": len(self.swa_attention_layers),
            "params_b": round(self.params_language / 1e9, 3),
        }


def _get(cfg: Mapping[str, Any], key: str, default: Any = None) -> Any:
    value = cfg.get(key, default)
    return default if value is None else value


def facts_from_config(
    config: Mapping[str, Any], *, name: str, source: str, quantization: str | None = None
) -> ModelFacts:
    """ModelFacts from a Hugging Face config dict (top level, ``text_config`` merged over it)."""
    top, cfg = _top_and_text(config)
    archs = top.get("architectures") or cfg.get("architectures") or ["unknown"]
    arch = str(archs[0])
    hidden, layers, heads, vocab = _required_dims(cfg, source)
    kv_heads = int(_get(cfg, "num_key_value_heads", heads))
    head_dim = int(_get(cfg, "head_dim", hidden // heads))
    kv_lora = cfg.get("kv_lora_rank")
    rope_dim = cfg.get("qk_rope_head_dim")
    v_head_dim = int(_get(cfg, "v_head_dim", head_dim)) if kv_lora is None else head_dim
    hybrid = cfg.get("linear_num_value_heads") is not None
    full = _full_attention_layers(cfg, layers) if hybrid else tuple(range(layers))
    dtype = str(_get(cfg, "torch_dtype", _get(cfg, "dtype", "bfloat16")))
    quant = quantization or _quant_of(cfg) or _quant_of(top)
    vision = top.get("vision_config")
    vision = vision if isinstance(vision, Mapping) else None
    mtp = int(_get(cfg, "num_nextn_predict_layers", _get(cfg, "mtp_num_hidden_layers", 0)))
    swa_layers = swa_layer_ids(cfg, arch, layers) or ()
    facts = ModelFacts(
        name=name,
        source=source,
        architecture=arch,
        hidden_size=hidden,
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        v_head_dim=v_head_dim,
        full_attention_layers=full,
        vocab_size=vocab,
        dtype_bytes=_DTYPE_BYTES.get(dtype.replace("torch.", ""), 2),
        max_position_embeddings=cfg.get("max_position_embeddings"),
        kv_lora_rank=int(kv_lora) if kv_lora is not None else None,
        qk_rope_head_dim=int(rope_dim) if rope_dim is not None else None,
        **_linear_attention_fields(cfg),
        mtp_layers=mtp,
        nextn_field=cfg.get("num_nextn_predict_layers") is not None,
        not_modelled=unmodelled_pools(cfg, arch, swa_modelled=bool(swa_layers)),
        swa_attention_layers=swa_layers,
        swa_num_kv_heads=_positive_int(cfg.get("swa_num_key_value_heads")),
        swa_head_dim=_positive_int(cfg.get("swa_head_dim")),
        swa_v_head_dim=_positive_int(cfg.get("swa_v_head_dim")),
        vision_num_hidden_layers=vision.get("num_hidden_layers") if vision else None,
        vision_hidden_size=vision.get("hidden_size") if vision else None,
        is_multimodal=vision is not None,
        quantization=quant,
        quant_scheme=scheme_for(
            _quant_of(cfg) or _quant_of(top) or quant, _quant_config(cfg) or _quant_config(top)
        ),
    )
    return _with_params(facts, cfg, vision)


def _top_and_text(config: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the config's top level, that with its ``text_config`` merged over it): multimodal
    configs keep the language model's shapes under ``text_config``."""
    top = dict(config)
    text = top.get("text_config")
    cfg: dict[str, Any] = {**top, **text} if isinstance(text, Mapping) else top
    return top, cfg


def _required_dims(cfg: Mapping[str, Any], source: str) -> tuple[int, int, int, int]:
    """(hidden size, layers, attention heads, vocab): without any of them nothing can be
    computed, so a missing or unusable one is an error naming the config."""
    try:
        hidden = int(cfg["hidden_size"])
        layers = int(cfg["num_hidden_layers"])
        heads = int(cfg["num_attention_heads"])
        vocab = int(cfg["vocab_size"])
    except (KeyError, TypeError, ValueError) as exc:
        raise LogscopeError(f"model config {source} lacks a usable field: {exc}") from None
    return hidden, layers, heads, vocab


def _linear_attention_fields(cfg: Mapping[str, Any]) -> dict[str, Any]:
    """The hybrid (linear-attention / mamba) fields of :class:`ModelFacts`, as the config gives
    them (absent on ordinary models)."""
    return {
        "linear_num_key_heads": cfg.get("linear_num_key_heads"),
        "linear_num_value_heads": cfg.get("linear_num_value_heads"),
        "linear_key_head_dim": cfg.get("linear_key_head_dim"),
        "linear_value_head_dim": cfg.get("linear_value_head_dim"),
        "linear_conv_kernel_dim": cfg.get("linear_conv_kernel_dim"),
        "mamba_ssm_dtype": cfg.get("mamba_ssm_dtype"),
    }


def _quant_config(cfg: Mapping[str, Any]) -> Mapping[str, Any] | None:
    q = cfg.get("quantization_config")
    return q if isinstance(q, Mapping) else None


def _positive_int(value: Any) -> int | None:
    """A config's optional positive int field (anything else reads as absent)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _quant_of(cfg: Mapping[str, Any]) -> str | None:
    """The quantization method; compressed-tensors reads its weight bits (fp8 vs int4)."""
    q = cfg.get("quantization_config")
    if isinstance(q, Mapping):
        method = q.get("quant_method")
        if isinstance(method, str):
            if method.lower() == "compressed-tensors":
                return _compressed_tensors_kind(q)
            return method.lower()
    return None


def _compressed_tensors_kind(q: Mapping[str, Any]) -> str:
    """``compressed-tensors`` by its weights: 8-bit float is fp8, 8-bit int w8a8_int8, 4-bit
    float nvfp4; integer 4-bit stays ``compressed-tensors`` (priced by its group size)."""
    groups = q.get("config_groups")
    if isinstance(groups, Mapping):
        for group in groups.values():
            w = group.get("weights") if isinstance(group, Mapping) else None
            if not isinstance(w, Mapping):
                continue
            is_float = str(w.get("type", "")).lower() == "float"
            if w.get("num_bits") == 8:
                return "fp8" if is_float else "w8a8_int8"
            if w.get("num_bits") == 4 and is_float:
                return "nvfp4"  # e2m1 with an fp8 scale per 16
    return "compressed-tensors"


#: Config markers of pool kinds SGLang sizes that this arithmetic does not model (label, test).
_UNMODELLED: tuple[tuple[str, str], ...] = (
    ("sliding-window pool (SWAKVPool: swa and full tokens)", "swa"),
    ("LFM2 short-conv state", "lfm2"),
    ("Mamba2 state (Nemotron-H / Falcon-H1)", "mamba2"),
    ("Kimi-Linear KDA state", "kda"),
    ("MLA sparse-attention indexer (DSA/NSA) bytes", "indexer"),
)


#: Architectures SGLang gives the sliding-window pool (``is_hybrid_swa_model``, union of the
#: 0.5.9-0.5.23 lists). Gemma 2/3 are not among them: SGLang prices their KV like a dense
#: model's, every layer full, and so does this arithmetic.
_SWA_ARCHS = frozenset(
    {
        "Llama4ForConditionalGeneration",
        "GptOssForCausalLM",
        "GraniteSWAForCausalLM",
        "GraniteMoeSWAForCausalLM",
        "MiMoV2ForCausalLM",
        "MiMoV2FlashForCausalLM",
        "Step3p5ForCausalLM",
        "Step3p7ForConditionalGeneration",
        "Gemma4ForCausalLM",
        "Gemma4ForConditionalGeneration",
        "Gemma4UnifiedForConditionalGeneration",
        "LagunaForCausalLM",
        "MellumForCausalLM",
        "BeamForCausalLM",
        "DeepseekV4ForCausalLM",
        "InklingForConditionalGeneration",
        "MuseGlimmerForCausalLM",
        "MuseGlimmerForConditionalGeneration",
        "UnlimitedOCRForCausalLM",
    }
)


def _marks(cfg: Mapping[str, Any], arch: str) -> set[str]:
    a = arch.lower()
    types = [str(t) for t in cfg.get("layer_types") or [] if isinstance(t, str)]
    out: set[str] = set()
    if arch in _SWA_ARCHS or cfg.get("is_hybrid_swa"):
        out.add("swa")
    if "lfm2" in a or any(t == "conv" for t in types):
        out.add("lfm2")
    if cfg.get("hybrid_override_pattern") or "falconh1" in a or "nemotronh" in a:
        out.add("mamba2")
    if cfg.get("linear_attn_config") is not None or "kimilinear" in a:
        out.add("kda")
    if cfg.get("index_topk") is not None:
        out.add("indexer")
    return out


def unmodelled_pools(
    cfg: Mapping[str, Any], arch: str, *, swa_modelled: bool = False
) -> tuple[str, ...]:
    """What SGLang would size for this config that the arithmetic leaves out (never priced dense).
    ``swa_modelled``: the sliding-window layers were read (:mod:`.swa` prices that pool)."""
    marks = _marks(cfg, arch) - ({"swa"} if swa_modelled else set())
    return tuple(label for label, key in _UNMODELLED if key in marks)


def _full_attention_layers(cfg: Mapping[str, Any], layers: int) -> tuple[int, ...]:
    types = cfg.get("layer_types")
    if isinstance(types, list) and len(types) == layers:
        return tuple(i for i, t in enumerate(types) if t in ("full_attention", "attention"))
    interval = int(_get(cfg, "full_attention_interval", 4))
    return tuple(i for i in range(layers) if (i + 1) % interval == 0)


def _mlp_params(cfg: Mapping[str, Any], hidden: int, layer: int) -> float:
    return sum(p for _, p in _mlp_parts(cfg, hidden, layer)) + _router_params(cfg, hidden, layer)


def _experts(cfg: Mapping[str, Any], layer: int) -> int:
    experts = cfg.get("num_experts") or cfg.get("n_routed_experts")
    first_dense = int(_get(cfg, "first_k_dense_replace", 0))
    return int(experts) if experts and layer >= first_dense else 0


def _router_params(cfg: Mapping[str, Any], hidden: int, layer: int) -> float:
    """The MoE router (``mlp.gate``) and shared-expert gate: never quantised linears."""
    experts = _experts(cfg, layer)
    if not experts:
        return 0.0
    return float(hidden * experts + (hidden if cfg.get("shared_expert_intermediate_size") else 0))


def _mlp_parts(cfg: Mapping[str, Any], hidden: int, layer: int) -> list[tuple[str, float]]:
    """gate/up/down projections of layer ``layer`` (routed experts, shared expert, dense)."""
    pre = f"model.layers.{layer}.mlp."
    proj = ("gate_proj", "up_proj", "down_proj")
    experts = _experts(cfg, layer)
    if experts:
        inter = int(_get(cfg, "moe_intermediate_size", cfg.get("intermediate_size", 0)))
        shared = int(_get(cfg, "shared_expert_intermediate_size", 0))
        shared += int(_get(cfg, "n_shared_experts", 0)) * inter
        out = [(f"{pre}experts.0.{p}", float(experts * hidden * inter)) for p in proj]
        if shared:
            out += [(f"{pre}shared_expert.{p}", float(hidden * shared)) for p in proj]
        return out
    inter = int(_get(cfg, "intermediate_size", 4 * hidden))
    return [(f"{pre}{p}", float(hidden * inter)) for p in proj]


def _attention_params(cfg: Mapping[str, Any], f: ModelFacts) -> float:
    return sum(p for _, p in _attention_parts(cfg, f, 0))


def _attention_parts(cfg: Mapping[str, Any], f: ModelFacts, layer: int) -> list[tuple[str, float]]:
    """The attention projections of one full-attention layer (MLA or GQA)."""
    h = f.hidden_size
    pre = f"model.layers.{layer}.self_attn."
    if f.is_mla:
        nope = int(_get(cfg, "qk_nope_head_dim", 128))
        rope = f.qk_rope_head_dim or 64
        v = int(_get(cfg, "v_head_dim", 128))
        q_lora = cfg.get("q_lora_rank")
        q_out = f.num_attention_heads * (nope + rope)
        lora = int(f.kv_lora_rank or 0)
        q = (
            [
                (f"{pre}q_a_proj", float(h * int(q_lora))),
                (f"{pre}q_b_proj", float(int(q_lora) * q_out)),
            ]
            if q_lora
            else [(f"{pre}q_proj", float(h * q_out))]
        )
        return [
            *q,
            (f"{pre}kv_a_proj_with_mqa", float(h * (lora + rope))),
            (f"{pre}kv_b_proj", float(lora * f.num_attention_heads * (nope + v))),
            (f"{pre}o_proj", float(f.num_attention_heads * v * h)),
        ]
    gate = 2 if cfg.get("attn_output_gate") else 1
    kv = float(h * f.num_kv_heads * f.head_dim)
    return [
        (f"{pre}q_proj", float(h * f.num_attention_heads * f.head_dim * gate)),
        (f"{pre}k_proj", kv),
        (f"{pre}v_proj", kv),
        (f"{pre}o_proj", float(f.num_attention_heads * f.head_dim * h)),
    ]


def _linear_params(f: ModelFacts) -> float:
    """One gated-delta-net layer: the quantisable projections plus ``in_proj_ba`` and ``conv1d``."""
    hv = int(f.linear_num_value_heads or 0)
    k = int(f.linear_conv_kernel_dim or 4)
    conv_dim = _conv_dim(f)
    unquantised = 2 * f.hidden_size * hv + conv_dim * k
    return sum(p for _, p in _linear_parts(f, 0)) + float(unquantised)


def _conv_dim(f: ModelFacts) -> int:
    hk, hv = int(f.linear_num_key_heads or 0), int(f.linear_num_value_heads or 0)
    dk, dv = int(f.linear_key_head_dim or 0), int(f.linear_value_head_dim or 0)
    return hv * dv + 2 * hk * dk


def _linear_parts(f: ModelFacts, layer: int) -> list[tuple[str, float]]:
    """Quantisable gated-delta-net projections (``in_proj_qkv``, ``in_proj_z``, ``out_proj``)."""
    h = f.hidden_size
    hv, dv = int(f.linear_num_value_heads or 0), int(f.linear_value_head_dim or 0)
    pre = f"model.layers.{layer}.linear_attn."
    return [
        (f"{pre}in_proj_qkv", float(h * _conv_dim(f))),
        (f"{pre}in_proj_z", float(h * hv * dv)),
        (f"{pre}out_proj", float(hv * dv * h)),
    ]


def _vision_params(vision: Mapping[str, Any] | None) -> float:
    if not vision:
        return 0.0
    depth = int(_get(vision, "depth", _get(vision, "num_hidden_layers", 0)))
    h = int(_get(vision, "hidden_size", 0))
    inter = int(_get(vision, "intermediate_size", 4 * h))
    out = int(_get(vision, "out_hidden_size", h))
    merge = int(_get(vision, "spatial_merge_size", 2)) ** 2
    return float(depth * (4 * h * h + 2 * h * inter) + (h * merge) ** 2 + h * merge * out)


def _with_params(
    f: ModelFacts, cfg: Mapping[str, Any], vision: Mapping[str, Any] | None
) -> ModelFacts:
    h = f.hidden_size
    attn = _attention_params(cfg, f)
    full = set(f.full_attention_layers)
    layers_total = 0.0
    parts: list[tuple[str, float]] = []
    for i in range(f.num_layers):
        attention_layer = i in full or not f.is_hybrid
        mixer = _attention_parts(cfg, f, i) if attention_layer else _linear_parts(f, i)
        parts += mixer + _mlp_parts(cfg, h, i)
        layers_total += (attn if attention_layer else _linear_params(f)) + _mlp_params(cfg, h, i)
    embed = float(f.vocab_size * h)
    tied = bool(cfg.get("tie_word_embeddings", False))
    language = layers_total + embed * (1 if tied else 2)
    mtp = 0.0
    mtp_fc = 0.0
    if f.mtp_layers:
        mtp_fc = float(2 * h * h)
        # the MTP layer is a full-attention decoder layer with the model's (last-layer) MLP
        mtp = f.mtp_layers * (mtp_fc + attn + _mlp_params(cfg, h, f.num_layers - 1))
    return replace(
        f,
        params_language=language,
        params_vision=_vision_params(vision),
        params_mtp=mtp,
        params_linear=sum(p for _, p in parts),
        params_mtp_replicated=mtp_fc * f.mtp_layers,
        linear_parts=tuple(parts),
    )


# --------------------------------------------------------------------------- bundled profiles


@record
class Profile:
    """A bundled model profile: its config and the names it answers to."""

    name: str
    aliases: tuple[str, ...]
    exclude: tuple[str, ...]
    source: str
    config: Mapping[str, Any]


def bundled_profiles() -> list[Profile]:
    out: list[Profile] = []
    folder = package_files().joinpath("data/models")
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        out.append(
            Profile(
                name=data["name"],
                aliases=tuple(a.lower() for a in data.get("aliases", [])),
                exclude=tuple(a.lower() for a in data.get("exclude", [])),
                source=data["source"],
                config=data["config"],
            )
        )
    return out


def profile_facts(name: str, *, quantization: str | None = None) -> ModelFacts:
    for p in bundled_profiles():
        if p.name.lower() == name.lower():
            return facts_from_config(
                p.config,
                name=p.name,
                source=f"bundled profile ({p.source})",
                quantization=quantization,
            )
    raise LogscopeError(f"no bundled model profile named {name!r}")


#: Name endings that leave a checkpoint's shapes as the base model's (a chat/instruct tune, a
#: dated re-release, a quantised copy whose scheme is then read from the name): stripped, one at
#: a time from the end, before a name is compared with a profile's.
_SAME_SHAPE_SUFFIXES = lazy_regex(
    r"-(?:instruct|chat|base|it|hf|thinking|think|\d{4}|fp8|awq|gptq|int4|int8|w4a16|w8a8|"
    r"dynamic|bf16|fp16)$"
)


def model_name_of(model_path: str) -> str:
    """The model's own name in a path or id: the ``NAME`` of an HF cache folder
    (``models--ORG--NAME``), else the last path component; lower case, ``_`` as ``-``."""
    parts = [p for p in model_path.replace("\\", "/").split("/") if p not in ("", ".", "..")]
    for part in parts:
        if part.startswith("models--"):
            return part.split("--")[-1].lower().replace("_", "-")
    return (parts[-1] if parts else "").lower().replace("_", "-")


def match_profile(model_path: str) -> Profile | None:
    """The bundled profile whose name (or alias) *is* the model's name (:func:`model_name_of`),
    after stripping same-shape endings (``-Instruct``, ``-2507``, ``-AWQ``). Never the nearest
    profile: a Qwen3-14B is not a Qwen3-32B, a pruned Qwen3-Coder-Next-REAM not an 80B."""
    name = model_name_of(model_path)
    profiles = [p for p in bundled_profiles() if not any(x in name for x in p.exclude)]
    while name:
        for p in profiles:
            if name in (p.name.lower(), *p.aliases):
                return p
        stripped = _SAME_SHAPE_SUFFIXES.sub("", name)
        if stripped == name:
            return None
        name = stripped
    return None


def quantization_from_name(model_path: str) -> str | None:
    low = model_path.lower()
    for key, quant in (("awq", "awq"), ("gptq", "gptq"), ("fp8", "fp8"), ("int4", "gptq")):
        if key in low:
            return quant
    return None


def load_config(path: Path) -> dict[str, Any]:
    file = path / "config.json" if path.is_dir() else path
    raw = read_regular(file, CONFIG_MAX_BYTES, "a model config")  # no FIFO, no /dev/zero
    try:
        data = json.loads(raw.decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise LogscopeError(f"model config {file} is not valid JSON: {exc.msg}") from None
    except (ValueError, RecursionError) as exc:  # not UTF-8, a 5000-digit int, 10k levels
        raise LogscopeError(f"model config {file} is not valid JSON: {str(exc)[:80]}") from None
    why = shape_problem(data)
    if why is not None:  # Infinity, NaN, an unbounded int
        raise LogscopeError(f"model config {file} refused: it {why}")
    if not isinstance(data, dict):
        raise LogscopeError(f"model config {file} is not a JSON object")
    return data


class ModelUnknown(LogscopeError):
    """No evidence of the model's shapes: no config given, none on this machine, no bundled
    profile of exactly this model. Budgets built on it are declined (``"fits": null``), never
    priced with another model's shapes."""

    def __init__(self, model_path: str | None) -> None:
        self.model_path = model_path
        self.advice = "--model-config DIR (the model's config.json or its folder)"
        what = f"unknown model {model_path!r}" if model_path else "no model (no --model-path)"
        super().__init__(
            f"no figure: {what}: its shapes are not known here (no --model-config, no "
            f"config.json at the path or in the Hugging Face / ModelScope cache, no bundled "
            f"profile of exactly this model); pass {self.advice}, or --assume-model NAME to "
            f"price it as a bundled profile (bundled: {', '.join(profile_names())})"
        )


def profile_names() -> list[str]:
    return [p.name for p in bundled_profiles()]


def _org_name(model_id: str) -> tuple[str, str] | None:
    parts = model_id.strip("/").split("/")
    if len(parts) != 2 or not all(parts) or any(p in (".", "..") for p in parts):
        return None
    return parts[0], parts[1]


def _newest(configs: list[Path]) -> Path | None:
    """The most recently written of ``configs`` that is a file; an unreadable entry is skipped."""
    out: list[tuple[float, Path]] = []
    for c in configs:
        try:
            if c.is_file():
                out.append((c.stat().st_mtime, c))
        except OSError:
            continue
    return max(out)[1] if out else None


def hf_cache_config(model_id: str) -> Path | None:
    """``config.json`` of ``ORG/NAME`` in the local Hugging Face cache (``HF_HUB_CACHE``, else
    ``HF_HOME/hub``, else ``~/.cache/huggingface/hub``), the newest snapshot; never the network.
    An unreadable cache reads as no config."""
    org_name = _org_name(model_id)
    if org_name is None:
        return None
    env = os.environ
    hub = env.get("HF_HUB_CACHE") or (
        str(Path(env["HF_HOME"]) / "hub") if env.get("HF_HOME") else None
    )
    root = Path(hub) if hub else Path.home() / ".cache" / "huggingface" / "hub"
    snapshots = root / f"models--{org_name[0]}--{org_name[1]}" / "snapshots"
    try:
        return _newest(list(snapshots.glob("*/config.json")))
    except OSError:
        return None


def modelscope_cache_config(model_id: str) -> Path | None:
    """``config.json`` of ``ORG/NAME`` in ModelScope's local cache (``MODELSCOPE_CACHE``, else
    ``~/.cache/modelscope/hub``; both its ``models/ORG/NAME`` and older ``ORG/NAME`` layouts)."""
    org_name = _org_name(model_id)
    if org_name is None:
        return None
    env = os.environ.get("MODELSCOPE_CACHE")
    root = Path(env) if env else Path.home() / ".cache" / "modelscope" / "hub"
    org, name = org_name
    candidates = [root / "models" / org / name / "config.json", root / org / name / "config.json"]
    # ModelScope writes a '.' in a name as '___' in its folder names
    candidates += [c.parent.with_name(name.replace(".", "___")) / "config.json" for c in candidates]
    return _newest(candidates)


def local_config(model_path: str) -> tuple[Path, str] | None:
    """(config.json, where it was found) for a model path on this machine: the path itself
    when it is a folder holding one, else the Hugging Face cache, else ModelScope's."""
    local = Path(model_path)
    try:
        if local.is_dir() and (local / "config.json").is_file():
            return local / "config.json", "the model path's config.json"
    except OSError:
        pass
    hf = hf_cache_config(model_path)
    if hf is not None:
        return hf, "the Hugging Face cache"
    ms = modelscope_cache_config(model_path)
    if ms is not None:
        return ms, "the ModelScope cache"
    return None


def resolve_model(
    args: Mapping[str, Any], model_config: Path | None = None, *, assume_model: str | None = None
) -> ModelFacts:
    """Model facts for a launch, by evidence in this order: ``model_config``; the config.json
    at ``--model-path`` on this machine; the Hugging Face then ModelScope cache; a bundled
    profile of exactly this model; the bundled profile ``assume_model`` when the caller asked
    for that substitution. No network. Raises :class:`ModelUnknown` when none applies."""
    quant = args.get("quantization")
    quant = str(quant).lower() if quant else None
    model_path = str(args.get("model_path") or "") or None
    if model_config is not None:
        cfg = load_config(model_config)
        name = model_path or model_config.name
        return facts_from_config(
            cfg,
            name=Path(name).name or name,
            source=str(model_config),
            quantization=quant,
        )
    found = local_config(model_path) if model_path else None
    if found is not None:
        return facts_from_config(
            load_config(found[0]),
            name=Path(str(model_path)).name,
            source=str(found[0]),
            quantization=quant,
        )
    profile = match_profile(model_path) if model_path else None
    how = "bundled profile {name} (exact model match; {src})"
    if profile is None and assume_model:
        profile = _profile_named(assume_model)
        how = "assumed: bundled profile {name} (--assume-model; {src})"
    if profile is None:
        raise ModelUnknown(model_path)
    return _profile_model(profile, how, quant, model_path)


def _profile_named(name: str) -> Profile:
    for p in bundled_profiles():
        if name.lower() in (p.name.lower(), *p.aliases):
            return p
    raise LogscopeError(
        f"--assume-model {name!r}: no bundled profile of that name ({', '.join(profile_names())})"
    )


def _profile_model(
    profile: Profile, how: str, quant: str | None, model_path: str | None
) -> ModelFacts:
    guessed = quant or (quantization_from_name(model_path) if model_path else None)
    facts = facts_from_config(
        profile.config,
        name=profile.name,
        source=how.format(name=profile.name, src=profile.source),
        quantization=guessed,
    )
    if guessed and not quant:
        facts = replace(
            facts, notes=(*facts.notes, f"quantization {guessed} guessed from the model name")
        )
    if how.startswith("assumed"):
        facts = replace(
            facts,
            notes=(
                *facts.notes,
                f"model assumed on request: {model_path!r} priced with the shapes of "
                f"{profile.name} (--assume-model)",
            ),
        )
    return facts
