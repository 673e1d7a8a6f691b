"""SGLang releases grouped by how they size memory, and each era's defaults.

Read from the released wheels (see ``docs/memory.md``):

* **P4** 0.4.x: the pool formula of 0.5.9 for dense models; default ``--mem-fraction-static``
  from a tp x pp table before 0.4.9, from capacity tiers (reserve 2.8 / 9.5 / 12 GiB + parallel
  share) from 0.4.9.
* **P5** 0.5.0 – 0.5.8: tiers until 0.5.2, the reserve formula of 0.5.9 from 0.5.3; the
  gated-delta-net state by each release's own rule (``HYBRID_RULES``, from 0.5.2).
* **A** 0.5.9 – 0.5.10.post1: ``profile_max_num_token``; hybrid spec scratch reserved up front
  for all ``max_running_requests``; draft weights, KV and graphs come out of the slack.
* **B** 0.5.11 – 0.5.12.post1: same arithmetic, moved into ``pool_configurator.py``.
* **C** 0.5.13.x: mamba pool and spec scratch solved jointly.
* **D** 0.5.14 and later: draft weights loaded before profiling, draft KV priced into the cell,
  ``ValueError: Loaded weights leave no GPU memory ...`` when the budget is negative.
  Within D (every wheel 0.5.14-0.5.23 read): a padding state slot from 0.5.17, a 100 MiB
  multimodal reserve from 0.5.18, the 20-35 GiB GPU defaults 4096 / 48|160 and mfs 0.95 without a
  GPU from 0.5.20, the decode graph batch capped by ``--max-running-requests`` from 0.5.22.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._record import record
from ..parse.versions import Version

if TYPE_CHECKING:
    from .models import ModelFacts


#: The newest release whose code was read; the default when no version is known.
NEWEST_READ = "0.5.23"


class Era(str, enum.Enum):
    P4 = "P4"
    P5 = "P5"
    A = "A"
    B = "B"
    C = "C"
    D = "D"

    @property
    def releases(self) -> str:
        return _RELEASES[self]


_RELEASES = {
    Era.P4: "0.4.0-0.4.10.post2",
    Era.P5: "0.5.0-0.5.8",
    Era.A: "0.5.9-0.5.10.post1",
    Era.B: "0.5.11-0.5.12.post1",
    Era.C: "0.5.13.post1",
    Era.D: "0.5.14+",
}


def era_of(version: Version) -> Era:
    v = version[:3]
    if v < (0, 5, 0):
        return Era.P4
    if v < (0, 5, 9):
        return Era.P5
    if v < (0, 5, 11):
        return Era.A
    if v < (0, 5, 13):
        return Era.B
    if v < (0, 5, 14):
        return Era.C
    return Era.D


@record
class EraRules:
    """Version-specific switches of the arithmetic."""

    era: Era
    version: Version
    #: The mamba pool counts one padding slot (``(M + 1) * P``) [0.5.17+; 0.5.16 has none].
    padding_slot: bool
    #: Reserve for multimodal models taken from the budget before profiling, MiB [0.5.18+].
    mm_reserve_mib: float
    #: ``--mem-fraction-static`` when GPU capacity is unknown [0.95 from 0.5.20, else 0.88].
    mfs_without_gpu: float
    #: Default (chunked_prefill_size, graph max_bs at tp < 4, at tp >= 4) on 20-35 GiB GPUs.
    mid_gpu_defaults: tuple[int, int, int]
    #: A default decode graph max_bs is lowered to ``--max-running-requests`` [0.5.22+].
    graph_bs_capped_by_mrr: bool
    #: Extra MiB the default-mfs heuristic reserves for EAGLE-family / STANDALONE drafts.
    spec_reserve_mib: float
    standalone_reserve_mib: float
    #: Piecewise CUDA graphs are on by default (adds 8 MiB per captured size to the reserve).
    piecewise_default: bool
    #: 0.5.9 quirk: with spec decoding the radix cache of a hybrid model is turned off.
    spec_disables_radix: bool
    #: 0.5.10-0.5.13 refuse spec decoding with radix cache in no_buffer mode.
    spec_radix_no_buffer_error: bool
    #: How the default mfs is derived: ``tp_table`` (< 0.4.9), ``tiers`` (0.4.9 - 0.5.2),
    #: ``reserve`` (0.5.3+, the 512 + activations + graphs formula).
    mfs_rule: str = "reserve"
    #: The multimodal factor on the default mfs (``adjust_mem_fraction_for_vlm``, 0.5.3+).
    vlm_factor: bool = True
    #: 0.5.10.x: speculative decoding turns piecewise CUDA graphs off before the heuristic.
    spec_disables_piecewise: bool = False
    #: 0.5.20+: a path-less EAGLE draft gets ``eagle_draft_num_layers`` from the target config.
    draft_layers_from_target: bool = False
    #: Graph max_bs default on 20-35 GiB GPUs at tp < 4 for 0.5.3-0.5.4 (16, later 24).
    mid_gpu_small_tp_bs: int = 24
    #: 0.5.16+: prefill graphs default to the breakable backend, whose own (shorter) disable
    #: rules replace the torch.compile-piecewise ones (arch blacklist, DP attention, ...).
    breakable_default: bool = False
    #: Before 0.5.7 the spec-decoding pool gets ``T + MRR (steps x topk + D) + 100`` tokens
    #: (``draft_runner_cache_size``), beyond what the budget priced.
    spec_token_padding: bool = False
    #: How the gated-delta-net state is sized before 0.5.9 (``HYBRID_RULES``); ``upfront`` is
    #: 0.5.8 onwards (era C/D solve their own way).
    hybrid_rule: str = "upfront"

    def not_modelled_for(self, model: ModelFacts) -> tuple[str, ...]:
        """Pools of this release the arithmetic does not cover for ``model``."""
        release = ".".join(map(str, self.version[:3]))
        if model.is_hybrid and self.hybrid_rule == "none":
            return (
                f"hybrid state arithmetic of {release} (no gated-delta-net support before 0.5.2)",
            )
        if (
            model.is_hybrid
            and self.version[:3] < (0, 5, 9)
            and model.architecture.startswith("Qwen3_5")
        ):
            return (
                f"{model.architecture} on {release} (Qwen3.5 architectures first load in 0.5.9)",
            )
        return ()

    @property
    def label(self) -> str:
        return f"{self.era.value} ({self.era.releases})"


#: The gated-delta-net state rules of the releases before 0.5.8, read from each wheel
#: (first release, rule); every release up to the next entry uses the rule:
#:
#: * ``none`` (< 0.5.2): no Qwen3-Next support, the state is not modelled.
#: * ``radix_off`` (0.5.2-0.5.3, ``model_runner.py`` ``__init__`` / ``profile_max_num_token``):
#:   the radix cache is forced off for Qwen3-Next; ``M = --max-mamba-cache-size`` or
#:   ``--max-running-requests`` or 512, divided over DP-attention ranks; ``rest -= M x P``. The
#:   spec scratch is allocated by the pool but not reserved.
#: * ``split_per_draft`` (0.5.4-0.5.6, ``handle_max_mamba_cache``): radix off: ``M`` as above;
#:   radix on: ``M = rest x r / (1 + r) / P // (1 + D)`` (a given ``--max-mamba-cache-size`` is
#:   overwritten); ``M //= dp``; state and scratch ``M x P x (1 + D)``.
#: * ``explicit_or_split`` (0.5.7, ``model_runner_kv_cache_mixin.py``): radix off or ``M`` given:
#:   ``M`` as above (``// dp``), no scratch reserved; else the scratch ``MRR x D x P`` (MRR not
#:   split over DP ranks) first, then ``M = rest x r / (1 + r) / P``. ``M // ratio`` with ratio
#:   ``3 + 2`` (``3 + 1`` with extra_buffer and spec) whenever the radix cache is on.
#: * ``upfront`` (0.5.8+): the scratch ``MRR // dp x D x P`` reserved first in both branches.
HYBRID_RULES: tuple[tuple[Version, str], ...] = (
    ((0, 0, 0), "none"),
    ((0, 5, 2), "radix_off"),
    ((0, 5, 4), "split_per_draft"),
    ((0, 5, 7), "explicit_or_split"),
    ((0, 5, 8), "upfront"),
)


def hybrid_rule_of(version: Version) -> str:
    rule = "none"
    for first, name in HYBRID_RULES:
        if version[:3] >= first:
            rule = name
    return rule


def rules_for(version: Version) -> EraRules:
    era = era_of(version)
    v = version[:3]
    piecewise = v >= (0, 5, 10)
    return EraRules(
        era=era,
        version=version,
        padding_slot=v >= (0, 5, 17),
        mm_reserve_mib=100.0 if v >= (0, 5, 18) else 0.0,
        mfs_without_gpu=0.95 if v >= (0, 5, 20) else 0.88,
        mid_gpu_defaults=(4096, 48, 160) if v >= (0, 5, 20) else (2048, 24, 80),
        graph_bs_capped_by_mrr=v >= (0, 5, 22),
        spec_reserve_mib=0.0 if era is Era.D else (4096.0 if piecewise else 2048.0),
        standalone_reserve_mib=0.0 if era is Era.D else 6144.0,
        piecewise_default=piecewise,
        # 0.5.9's _handle_mamba_radix_cache; 0.5.4-0.5.8 keep the radix cache with spec
        spec_disables_radix=(0, 5, 9) <= v < (0, 5, 10),
        spec_radix_no_buffer_error=(0, 5, 10) <= v < (0, 5, 14),
        mfs_rule="tp_table" if v < (0, 4, 9) else ("tiers" if v < (0, 5, 3) else "reserve"),
        vlm_factor=v >= (0, 5, 3),
        spec_disables_piecewise=(0, 5, 10) <= v < (0, 5, 11),
        draft_layers_from_target=v >= (0, 5, 20),
        mid_gpu_small_tp_bs=16 if v < (0, 5, 5) else 24,
        breakable_default=v >= (0, 5, 16),
        spec_token_padding=v < (0, 5, 7),
        hybrid_rule=hybrid_rule_of(version),
    )


#: Architectures SGLang keeps off piecewise CUDA graphs (``piecewise_cuda_graph_disabled_model_archs``).
_PIECEWISE_DISABLED_ARCHS = frozenset(
    {
        "DeepseekV32ForCausalLM",
        "DeepseekV4ForCausalLM",
        "Qwen3NextForCausalLM",
        "GlmMoeDsaForCausalLM",
        "BailingMoeV2_5ForCausalLM",
        "LLaDAModelLM",
    }
)


#: Multimodal architectures whose decoder prefill keeps CUDA graphs, by the first release
#: read with that list (``multimodal_piecewise_cuda_graph_supported_model_archs``, and from
#: 0.5.17 the breakable-graph allowlist too). Before 0.5.14 every multimodal model is off.
_MM_PREFILL_GRAPHS: tuple[tuple[Version, frozenset[str]], ...] = (
    ((0, 5, 14), frozenset({"Cohere2VisionForConditionalGeneration"})),
    (
        (0, 5, 17),
        frozenset(
            {
                "Cohere2VisionForConditionalGeneration",
                "KimiK25ForConditionalGeneration",
                "MiniMaxM3SparseForCausalLM",
                "MiniMaxM3SparseForConditionalGeneration",
                "Qwen3_5ForConditionalGeneration",
                "Qwen3_5MoeForConditionalGeneration",
            }
        ),
    ),
)


def _multimodal_keeps_prefill_graphs(rules: EraRules, arch: str) -> bool:
    kept: frozenset[str] = frozenset()
    for since, archs in _MM_PREFILL_GRAPHS:
        if rules.version[:3] >= since:
            kept = archs
    return arch in kept


def piecewise_enabled(
    rules: EraRules, args: Mapping[str, Any], model: ModelFacts, spec: str | None
) -> bool:
    """Whether piecewise (prefill) CUDA graphs stay on: SGLang's disable rules run before the
    default-mfs heuristic (``_handle_piecewise_cuda_graph``, 0.5.10+; from 0.5.16 the
    breakable backend's rules unless a validated multimodal model keeps torch.compile)."""
    if not rules.piecewise_default or args.get("disable_piecewise_cuda_graph"):
        return False
    if args.get("enforce_piecewise_cuda_graph"):
        return True
    multimodal = model.is_multimodal and not args.get("language_only")
    mm_ok = _multimodal_keeps_prefill_graphs(rules, model.architecture)
    if rules.breakable_default:
        return not _breakable_off(args, model, multimodal and not mm_ok)
    off = (
        model.architecture in _PIECEWISE_DISABLED_ARCHS,
        bool(spec) and rules.spec_disables_piecewise,
        bool(args.get("enable_dp_attention")),
        bool(args.get("enable_torch_compile")),
        int(args.get("pp_size") or 1) > 1,
        str(args.get("moe_a2a_backend") or "none") != "none",
        bool(args.get("lora_paths") or args.get("enable_lora")),
        multimodal and not mm_ok,
        float(args.get("cpu_offload_gb") or 0) > 0 or bool(args.get("enable_hierarchical_cache")),
        bool(args.get("enable_deterministic_inference")),
        str(args.get("disaggregation_mode") or "null") != "null",
        bool(args.get("enable_symm_mem")),
        bool(args.get("enable_eplb")),
        str(args.get("load_format") or "") == "gguf" or str(args.get("quantization")) == "gguf",
    )
    return not any(off)


def _breakable_off(args: Mapping[str, Any], model: ModelFacts, multimodal_off: bool) -> bool:
    """``_disable_breakable_cudagraph_if_incompatible`` (0.5.16+): MLA (non-DSA), Nemotron-H,
    DeepSeek-V4, two-batch overlap, an unvalidated MoE A2A backend, unlisted multimodal."""
    a2a = str(args.get("moe_a2a_backend") or "none")
    return any(
        (
            model.is_mla and "sparse-attention indexer" not in " ".join(model.not_modelled),
            model.architecture.startswith(("NemotronH", "DeepseekV4")),
            bool(args.get("enable_two_batch_overlap")),
            a2a not in ("none", "deepep", "megamoe", "flashinfer"),
            multimodal_off,
        )
    )


def gpu_tier(capacity_mib: float, tp: int, rules: EraRules) -> tuple[int, int]:
    """Default (chunked_prefill_size, cuda_graph_max_bs) for a GPU of ``capacity_mib``."""
    g = capacity_mib
    if g < 20 * 1024:
        return 2048, 8
    if g < 35 * 1024:
        cpf, bs_small_tp, bs_large_tp = rules.mid_gpu_defaults
        if bs_small_tp == 24:
            bs_small_tp = rules.mid_gpu_small_tp_bs
        return cpf, bs_small_tp if tp < 4 else bs_large_tp
    if g < 60 * 1024:
        return 4096, 32 if tp < 4 else 160
    if g < 160 * 1024:
        return 8192, 256 if tp < 4 else 512
    return 16384, 512


def piecewise_sizes(max_tokens: int) -> int:
    """How many token counts SGLang captures piecewise/prefill graphs for, up to ``max_tokens``."""
    sizes: list[int] = []
    for start, stop, step in (
        (4, 32, 4),
        (48, 256, 16),
        (288, 512, 32),
        (576, 1024, 64),
        (1280, 4096, 256),
    ):
        sizes.extend(range(start, stop + 1, step))
    nxt = 4096 + 512
    while nxt <= max_tokens:
        sizes.append(nxt)
        nxt += 512
    return len([s for s in sizes if s <= max_tokens])


def early_graph_max_bs(rules: EraRules, capacity_mib: float | None, tp: int) -> int | None:
    """``cuda_graph_max_bs`` as ServerArgs sets it before 0.5.3: only on small GPUs (below
    25,000 MiB before 0.4.8, below 35 GiB from 0.4.8), 8 at tp < 4 else 80; otherwise left
    unset for the CUDA-graph runner's own list (up to 160, more on > 90 GiB GPUs)."""
    limit = 25_000 if rules.version[:3] < (0, 4, 8) else 35 * 1024
    if capacity_mib is None or capacity_mib >= limit:
        return None
    return 8 if tp < 4 else 80


def decode_graph_batch_sizes(
    rules: EraRules, max_bs: int | None, *, spec: bool, padding_disabled: bool
) -> list[int] | None:
    """The decode batch sizes SGLang captures CUDA graphs for (``_generate_cuda_graph_batch_sizes``
    0.5.3-0.5.13, ``generate_decode_cuda_graph_batch_sizes`` 0.5.14+); None before 0.5.3, where
    the graph runner picks them at start-up."""
    if max_bs is None or max_bs < 1 or rules.version[:3] < (0, 5, 3):
        return None
    if padding_disabled:
        sizes = list(range(1, max_bs + 1))
    elif not spec:
        sizes = [1, 2, 4, 8, 12, *range(16, 257, 8), *range(272, 512, 16)]
        sizes += range(512, max_bs + 1, 32)
    else:
        upto_64 = 65 if rules.version[:3] >= (0, 5, 5) else 64
        sizes = [*range(1, 9), *range(10, 33, 2), *range(40, upto_64, 4), *range(72, 257, 8)]
        sizes += range(272, max_bs + 1, 16)
    sizes = [bs for bs in sizes if bs <= max_bs]
    if rules.version[:3] >= (0, 5, 10) and max_bs not in sizes:
        sizes.append(max_bs)
    return sizes


@record
class DefaultMfs:
    """SGLang's own default ``mem_fraction_static`` for a GPU, and what it was derived from."""

    value: float
    reserve_mib: float
    chunked_prefill_size: int
    cuda_graph_max_bs: int
    explanation: str


def default_mfs(
    rules: EraRules,
    *,
    capacity_mib: float | None,
    tp: int,
    pp: int,
    chunked_prefill_size: int | None,
    cuda_graph_max_bs: int | None,
    spec_algorithm: str | None,
    max_running_requests: int | None,
    is_mla: bool,
    vlm_factor: float | None,
    dp_attention_size: int = 1,
    piecewise: bool | None = None,
) -> DefaultMfs:
    """``--mem-fraction-static`` as the release computes it when the flag is not given."""
    if rules.mfs_rule != "reserve":
        return _early_default_mfs(rules, capacity_mib, tp * pp, spec_algorithm, dp_attention_size)
    if piecewise is None:
        piecewise = rules.piecewise_default
    if capacity_mib is None:
        cpf, bs = 4096, 160
    else:
        cpf, bs = gpu_tier(capacity_mib, tp, rules)
    if chunked_prefill_size is not None:
        cpf = chunked_prefill_size
    if cuda_graph_max_bs is not None:
        bs = cuda_graph_max_bs
    elif rules.graph_bs_capped_by_mrr and max_running_requests is not None:
        bs = min(bs, max_running_requests)
    reserve = 512.0 + max(cpf, 2048) * 1.5 + bs * 2 + tp * pp / 8 * 1024
    if dp_attention_size > 1:
        reserve += bs * dp_attention_size * 3
        if bs > 300:
            reserve += bs * dp_attention_size * 1.5
    if piecewise:
        reserve += 1536 if is_mla else piecewise_sizes(max(cpf, 0)) * 8
    if capacity_mib is not None and capacity_mib > 60 * 1024:
        reserve = max(reserve, 10 * 1024)
    alg = (spec_algorithm or "").upper()
    if alg == "STANDALONE":
        reserve += rules.standalone_reserve_mib
    elif alg and alg != "NGRAM":
        reserve += rules.spec_reserve_mib
    if capacity_mib is None:
        value = rules.mfs_without_gpu
        how = f"no GPU capacity known: {value}"
    else:
        value = round((capacity_mib - reserve) / capacity_mib, 3)
        how = f"round(({capacity_mib:.0f} - {reserve:.0f}) / {capacity_mib:.0f}, 3) = {value}"
    if vlm_factor is not None:
        value = value * vlm_factor
        how += f" x multimodal factor {vlm_factor:.5f} = {value:.4f}"
    return DefaultMfs(value, reserve, cpf, bs, how)


def _early_default_mfs(
    rules: EraRules,
    capacity_mib: float | None,
    parallel: int,
    spec_algorithm: str | None,
    dp_attention_size: int,
) -> DefaultMfs:
    """0.4.x - 0.5.2: a tp x pp table (before 0.4.9) or reserve tiers by capacity."""
    g = capacity_mib
    if rules.mfs_rule == "tp_table":
        value = 0.88
        if g is not None and g <= 81920:
            for at_least, v in ((16, 0.79), (8, 0.81), (4, 0.85), (2, 0.87)):
                if parallel >= at_least:
                    value = v
                    break
        if g is not None and g > 96 * 1024:
            value = min(value + 48 * 1024 * (1 - value) / g, (g - 18 * 1024) / g)
        how = f"tp x pp {parallel} table of {'.'.join(map(str, rules.version[:3]))}: {value:.3f}"
        return DefaultMfs(value, 0.0, 8192 if g is None or g >= 25_000 else 2048, 160, how)
    if g is None:
        return DefaultMfs(0.88, 0.0, 8192, 160, "no GPU capacity known: 0.88")
    if g < 35 * 1024:
        reserve = (2.8 + parallel / 10) * 1024
    elif g < 90 * 1024:
        reserve = (9.5 + parallel / 2) * 1024
    elif g < 160 * 1024:
        reserve = (12 + parallel / 2) * 1024
    else:
        reserve = 32 * 1024.0
    alg = (spec_algorithm or "").upper()
    if alg:
        reserve += 6 * 1024 if alg == "STANDALONE" else 2 * 1024
    if dp_attention_size > 1:
        reserve += 4 * 1024
    value = round((g - reserve) / g, 3)
    how = f"capacity tier: round(({g:.0f} - {reserve:.0f}) / {g:.0f}, 3) = {value}"
    return DefaultMfs(value, reserve, 2048 if g < 35 * 1024 else 8192, 160, how)


def vlm_factor(vision_layers: int | None, vision_hidden: int | None) -> float:
    """The multimodal reduction of the default mfs (same formula in every era read)."""
    layers = vision_layers if vision_layers is not None else 24
    hidden = vision_hidden if vision_hidden is not None else 1024
    ratio = layers * hidden**2 / (24 * 1024**2)
    return 0.95 * max(0.8, min(1.05, 1.0 - 0.1 * (ratio - 1.0)))


def mamba_ratio(
    rules: EraRules,
    *,
    radix_disabled: bool,
    strategy: str,
    spec: bool,
    overlap: bool,
) -> int:
    """State slots a running request may hold: ``max_running_requests <= M // ratio``."""
    if radix_disabled:
        return 1
    if rules.hybrid_rule == "explicit_or_split":  # 0.5.7: +2 unless extra_buffer with spec
        return 3 + (1 if strategy in ("extra_buffer", "extra_buffer_lazy") and spec else 2)
    extra = 0
    if strategy in ("extra_buffer", "extra_buffer_lazy"):
        if rules.era in (Era.P5, Era.A):
            extra = 1 if spec else 2
        elif not overlap:
            extra = 1
        else:
            extra = 1 if strategy == "extra_buffer_lazy" else 2
    return 3 + extra
