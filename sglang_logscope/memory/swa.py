"""SGLang's hybrid sliding-window (SWA) KV pool, per release: which models get it and how the
token budget is split between the full-attention and the sliding-window layers.

Read from the released wheels (``pip download --no-deps sglang==X``; read: 0.4.9, 0.4.10, 0.5.1 -
0.5.12, 0.5.14, 0.5.17 - 0.5.23; 0.5.0 is not on PyPI):

* **Which models.** ``is_hybrid_swa_model`` (``configs/model_config.py``) first exists in
  0.5.8. Before it (0.4.10-0.5.7) ``model_runner.py`` turns the pool on for any model with a
  sliding window except Llama 4, and ``server_args.py`` switches it off for gpt-oss (0.5.1-0.5.7)
  and Gemma 2/3/3n (from 0.5.1): those get the ordinary pool, every layer at full size. In
  0.4.10.x nothing switches it off, so Gemma 2/3/3n get the SWA pool there, their layers found
  by scanning the loaded model (not modelled). 0.4.9 and earlier have no such pool (Llama 4
  only with ``--hybrid-kvcache-ratio``).
  gpt-oss gets the SWA pool from 0.5.8 (0.5.8-0.5.9: not with the ``trtllm_mha`` attention
  backend, the default on SM100), Llama 4 from 0.5.8 (before: only with
  ``--hybrid-kvcache-ratio``), MiMo-V2-Flash from 0.5.7, when it appeared (modelled from 0.5.9;
  not with ``--enable-hierarchical-cache``).
* **The split** (``swa_full_tokens_ratio`` r, default 0.8; F / S bytes per token of one full /
  sliding layer, n_f / n_s layers; P the page size):

  - ``layers`` (0.5.8, ``set_num_tokens_hybrid_swa``): T = rest / (F (n_f + n_s)), page-aligned;
    full = int(T (n_f + n_s) / (n_f + r n_s)); swa = int(full r); both then page-aligned.
  - ``memory`` (0.5.9-0.5.10.x, ``model_runner_kv_cache_mixin.py``): T = rest / (F n_f + S n_s),
    page-aligned; full = int(T (F n_f + S n_s) / (F n_f + r S n_s)); swa = int(full r), from
    the unaligned full count in 0.5.9 and from the page-aligned one in 0.5.10.
  - ``cell`` (0.5.11+, ``HybridSWAPoolConfigurator``): full = align(int(rest / (F n_f + r S n_s)));
    swa = align(int(full r)).

Not modelled (reported so, the figure left out): speculative decoding with an SWA pool (draft
layers in the cell from 0.5.17), ``--max-total-tokens``, pipeline parallelism, the request-cap
sizing of 0.5.21+ (``SWARequestCapPoolConfigurator``: radix cache off, ``--max-running-requests``
given), ``--enable-unified-memory`` and the Gemma 4 / DeepSeek-V4 / Step / Inkling families.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .._record import record
from ..parse.versions import Version

if TYPE_CHECKING:
    from .models import ModelFacts


@record
class SwaArch:
    """One architecture SGLang gives the SWA pool: from which release, and how its layers split."""

    arch: str
    #: The first release whose code gives this architecture the SWA pool.
    first: Version
    #: ``layer_types`` (config list), ``every_fourth_full`` (Llama 4: layer i is full when
    #: (i + 1) % 4 == 0) or ``hybrid_layer_pattern`` (MiMo: 1 = sliding).
    layers_from: str
    label: str
    #: The first release whose split is modelled (None: from ``first``).
    modelled_from: Version | None = None


#: Architectures whose SWA pool is modelled (``get_hybrid_layer_ids`` of 0.5.9-0.5.23).
SWA_ARCHS: tuple[SwaArch, ...] = (
    SwaArch("GptOssForCausalLM", (0, 5, 8), "layer_types", "gpt-oss"),
    SwaArch("Llama4ForConditionalGeneration", (0, 5, 8), "every_fourth_full", "Llama 4"),
    # 0.5.7 (``is_hybrid_model`` returns 1 for MiMo) and 0.5.8 size MiMo's cell with every layer
    # at full size plus the sliding layers again (sgl-project/sglang#18039 fixed it for 0.5.9):
    # not modelled there.
    SwaArch(
        "MiMoV2FlashForCausalLM", (0, 5, 7), "hybrid_layer_pattern", "MiMo-V2-Flash", (0, 5, 9)
    ),
)

#: How the budget is split, by the first release of each rule (newest first): (release,
#: split, sliding tokens taken from the page-aligned full count).
SPLIT_RULES: tuple[tuple[Version, str, bool], ...] = (
    ((0, 5, 11), "cell", True),
    ((0, 5, 10), "memory", True),
    ((0, 5, 9), "memory", False),
    ((0, 5, 8), "layers", False),
)

#: gpt-oss with the trtllm_mha backend keeps the ordinary pool in these releases.
GPT_OSS_TRTLLM_OFF: tuple[Version, Version] = ((0, 5, 8), (0, 5, 10))
#: Request-cap sizing of the SWA pool: in 0.5.21, 0.5.22 and 0.5.23, not in 0.5.20.
REQUEST_CAP_FROM: Version = (0, 5, 21)
#: ``--enable-unified-memory`` sizes the pools by bisection from 0.5.20.
UNIFIED_MEMORY_FROM: Version = (0, 5, 20)
#: Releases whose layer scan gives these architectures the SWA pool (0.5.1 turns it off).
LAYER_SCAN_ONLY: tuple[frozenset[str], Version, Version] = (
    frozenset(
        {
            "Gemma2ForCausalLM",
            "Gemma3ForCausalLM",
            "Gemma3ForConditionalGeneration",
            "Gemma3nForCausalLM",
            "Gemma3nForConditionalGeneration",
        }
    ),
    (0, 4, 10),
    (0, 5, 1),
)
#: GPU names of SM100 parts, where gpt-oss defaults to trtllm_mha (``is_sm100_supported``).
_SM100_NAMES = ("B200", "B300", "GB200", "GB300")


def swa_arch(arch: str) -> SwaArch | None:
    return next((a for a in SWA_ARCHS if a.arch == arch), None)


def swa_layer_ids(cfg: Mapping[str, Any], arch: str, layers: int) -> tuple[int, ...] | None:
    """The sliding-window layer ids SGLang reads from this config, or None when it cannot tell."""
    rule = swa_arch(arch)
    if rule is None:
        return None
    if rule.layers_from == "every_fourth_full":
        return tuple(i for i in range(layers) if (i + 1) % 4 != 0)
    key = "layer_types" if rule.layers_from == "layer_types" else "hybrid_layer_pattern"
    seq = cfg.get(key)
    if not isinstance(seq, Sequence) or isinstance(seq, str) or len(seq) < layers:
        return None
    sliding = "sliding_attention" if key == "layer_types" else 1
    return tuple(i for i in range(layers) if seq[i] == sliding)


@record
class SwaPool:
    """The resolved SWA pool of one launch on one rank."""

    full_layers: int
    swa_layers: int
    #: Bytes per token of one full / one sliding layer on one rank (K + V).
    full_bytes: int
    swa_bytes: int
    ratio: float
    page_size: int
    #: ``layers`` / ``memory`` / ``cell`` (see the module docstring).
    split: str
    #: The sliding count is taken from the page-aligned full count (0.5.10+).
    swa_from_aligned: bool = True

    @property
    def cell_bytes(self) -> int:
        """Bytes one full-pool token costs with its share of sliding tokens (0.5.11+ cell)."""
        return int(
            self.full_bytes * self.full_layers + self.ratio * self.swa_bytes * self.swa_layers
        )

    def tokens(self, rest_bytes: int) -> tuple[int, int]:
        """(full-layer tokens, sliding-layer tokens) for ``rest_bytes`` of KV budget."""
        f, s, nf, ns, r = (
            self.full_bytes,
            self.swa_bytes,
            self.full_layers,
            self.swa_layers,
            self.ratio,
        )
        if rest_bytes <= 0 or f <= 0:
            return 0, 0
        if self.split == "cell":
            full = int(rest_bytes // (f * nf + r * s * ns))
        else:
            dense = f * (nf + ns) if self.split == "layers" else f * nf + s * ns
            t = self._align(rest_bytes // dense)
            weights = (
                (nf + ns, nf + r * ns) if self.split == "layers" else (dense, f * nf + r * s * ns)
            )
            full = int(t * weights[0] / weights[1])
        swa_base = self._align(full) if self.swa_from_aligned else full
        return self._align(full), self._align(int(swa_base * r))

    def gib(self, full: int, swa: int) -> float:
        return (
            full * self.full_bytes * self.full_layers + swa * self.swa_bytes * self.swa_layers
        ) / 2**30

    def _align(self, x: int) -> int:
        return x // self.page_size * self.page_size


@record
class SwaDecision:
    """What a release does with a model's sliding-window layers for one launch."""

    #: The SWA pool, or None when SGLang uses the ordinary pool (every layer full size).
    pool: SwaPool | None = None
    #: Why the figure is left out (never a silent dense guess).
    not_modelled: tuple[str, ...] = ()
    #: What was assumed or why the ordinary pool applies (shown next to the verdict).
    notes: tuple[str, ...] = ()


def decide(
    model: ModelFacts,
    version: Version,
    args: Mapping[str, Any],
    *,
    attn_tp: int,
    kv_bytes: float,
    gpu_name: str = "",
) -> SwaDecision:
    """SGLang's choice for this model at ``version``: SWA pool, ordinary pool, or not modelled."""
    rule = swa_arch(model.architecture)
    v = version[:3]
    rel = ".".join(map(str, v))
    scan_archs, scan_from, scan_until = LAYER_SCAN_ONLY
    if model.architecture in scan_archs and scan_from <= v < scan_until:
        if args.get("disable_hybrid_swa_memory"):
            return SwaDecision()
        return SwaDecision(not_modelled=(f"sliding-window pool of {rel} (Gemma layer scan)",))
    if rule is None or not model.swa_attention_layers:
        return SwaDecision()
    ordinary = _ordinary_pool_reason(rule, v, rel, args, gpu_name)
    if ordinary is not None:
        return SwaDecision(notes=(ordinary,)) if ordinary else SwaDecision()
    blocked = _unmodelled(v, args)
    if len(model.swa_attention_layers) >= model.num_layers:
        blocked = ("all-sliding-window pool (no full-attention layer)", *blocked)
    if rule.modelled_from is not None and v < rule.modelled_from:
        blocked = (f"{rule.label} sliding-window pool of {rel}", *blocked)
    if blocked:
        return SwaDecision(not_modelled=blocked)
    split, aligned = next((name, a) for first, name, a in SPLIT_RULES if v >= first)
    heads = max(1, model.num_kv_heads // attn_tp)
    swa_heads = max(1, (model.swa_num_kv_heads or model.num_kv_heads) // attn_tp)
    swa_dim = model.swa_head_dim or model.head_dim
    swa_v = model.swa_v_head_dim or swa_dim
    ratio = _ratio(args.get("swa_full_tokens_ratio"))
    if ratio is None:
        return SwaDecision(
            not_modelled=(
                f"--swa-full-tokens-ratio {args.get('swa_full_tokens_ratio')!r} "
                "(SGLang accepts 0 < r <= 1)",
            )
        )
    pool = SwaPool(
        full_layers=model.num_layers - len(model.swa_attention_layers),
        swa_layers=len(model.swa_attention_layers),
        full_bytes=int(heads * (model.head_dim + model.v_head_dim) * kv_bytes),
        swa_bytes=int(swa_heads * (swa_dim + swa_v) * kv_bytes),
        ratio=ratio,
        page_size=_page_size(args.get("page_size")),
        split=split,
        swa_from_aligned=aligned,
    )
    note = (
        f"sliding-window pool of {rel} ({split} split): {pool.swa_layers} sliding / "
        f"{pool.full_layers} full layers, swa_full_tokens_ratio {ratio:g}"
    )
    return SwaDecision(pool=pool, notes=(note,))


def _ratio(value: Any) -> float | None:
    """``--swa-full-tokens-ratio`` (default 0.8), or None when SGLang would refuse it."""
    if value is None:
        return 0.8
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if 0 < value <= 1 else None


def _page_size(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def _ordinary_pool_reason(
    rule: SwaArch, v: Version, rel: str, args: Mapping[str, Any], gpu_name: str
) -> str | None:
    """Why this release gives the model the ordinary pool ('' = silently), or None when it
    gives it the SWA pool."""
    if args.get("disable_hybrid_swa_memory"):
        return "--disable-hybrid-swa-memory: the ordinary pool, every layer at full size"
    if rule.arch == "Llama4ForConditionalGeneration" and v < rule.first:
        if args.get("hybrid_kvcache_ratio") is not None:
            return None  # the old chunked-attention split; refused in _unmodelled
        return f"SGLang {rel} gives Llama 4 the ordinary pool unless --hybrid-kvcache-ratio is set"
    if v < rule.first:
        return (
            f"SGLang {rel} gives {rule.label} the ordinary pool (no sliding-window pool before "
            f"{'.'.join(map(str, rule.first))}): every layer at full size"
        )
    if rule.arch == "GptOssForCausalLM" and GPT_OSS_TRTLLM_OFF[0] <= v < GPT_OSS_TRTLLM_OFF[1]:
        backend = args.get("attention_backend") or args.get("decode_attention_backend")
        sm100 = any(n in gpu_name.upper() for n in _SM100_NAMES)
        if backend == "trtllm_mha" or (backend is None and sm100):
            return f"SGLang {rel} turns the SWA pool off for gpt-oss with trtllm_mha attention"
    if rule.arch == "MiMoV2FlashForCausalLM" and args.get("enable_hierarchical_cache"):
        return "hierarchical cache: SGLang turns the SWA pool off for MiMo-V2-Flash"
    return None


def _unmodelled(v: Version, args: Mapping[str, Any]) -> tuple[str, ...]:
    """Launch options whose SWA sizing the arithmetic does not cover."""
    out: list[str] = []
    if v < (0, 5, 8) and args.get("hybrid_kvcache_ratio") is not None:
        out.append("Llama 4 chunked-attention pool (--hybrid-kvcache-ratio)")
    if args.get("speculative_algorithm"):
        out.append("sliding-window pool with speculative decoding (draft layers and pool)")
    if args.get("max_total_tokens") is not None:
        out.append("sliding-window pool capped by --max-total-tokens")
    pp = args.get("pp_size")
    if isinstance(pp, int) and pp > 1:
        out.append("sliding-window pool with pipeline parallelism")
    if v >= UNIFIED_MEMORY_FROM and args.get("enable_unified_memory"):
        out.append("sliding-window pool in unified memory (--enable-unified-memory)")
    if (
        v >= REQUEST_CAP_FROM
        and args.get("disable_radix_cache")
        and args.get("max_running_requests") is not None
    ):
        out.append("sliding-window pool sized by the request cap (radix cache off, requests given)")
    return tuple(out)
