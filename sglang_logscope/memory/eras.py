"""SGLang releases grouped by how they size memory, and each era's defaults.

Read from the released wheels (see ``docs/memory.md``):

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
from dataclasses import dataclass

import regex

from ..errors import LogscopeError

Version = tuple[int, ...]

#: The newest release whose code was read; the default when no version is known.
NEWEST_READ = "0.5.23"


class Era(str, enum.Enum):
    A = "A"
    B = "B"
    C = "C"
    D = "D"

    @property
    def releases(self) -> str:
        return _RELEASES[self]


_RELEASES = {
    Era.A: "0.5.9-0.5.10.post1",
    Era.B: "0.5.11-0.5.12.post1",
    Era.C: "0.5.13.post1",
    Era.D: "0.5.14+",
}

_VERSION = regex.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.?post(\d+))?")


def parse_version(text: str) -> Version:
    """``0.5.10.post1`` → (0, 5, 10, 1); raises LogscopeError when unreadable."""
    m = _VERSION.match(text.strip())
    if m is None:
        raise LogscopeError(f"cannot read SGLang version {text!r} (expected e.g. 0.5.9)")
    return tuple(int(g) if g else 0 for g in m.groups())


def era_of(version: Version) -> Era:
    v = version[:3]
    if v < (0, 5, 11):
        return Era.A
    if v < (0, 5, 13):
        return Era.B
    if v < (0, 5, 14):
        return Era.C
    return Era.D


@dataclass(frozen=True)
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

    @property
    def label(self) -> str:
        return f"{self.era.value} ({self.era.releases})"


def rules_for(version: Version) -> EraRules:
    era = era_of(version)
    v = version[:3]
    return EraRules(
        era=era,
        version=version,
        padding_slot=v >= (0, 5, 17),
        mm_reserve_mib=100.0 if v >= (0, 5, 18) else 0.0,
        mfs_without_gpu=0.95 if v >= (0, 5, 20) else 0.88,
        mid_gpu_defaults=(4096, 48, 160) if v >= (0, 5, 20) else (2048, 24, 80),
        graph_bs_capped_by_mrr=v >= (0, 5, 22),
        spec_reserve_mib=0.0 if era is Era.D else (4096.0 if era is Era.C else 2048.0),
        standalone_reserve_mib=0.0 if era is Era.D else 6144.0,
        piecewise_default=era in (Era.C, Era.D),
        spec_disables_radix=v < (0, 5, 10),
        spec_radix_no_buffer_error=(0, 5, 10) <= v < (0, 5, 14),
    )


def gpu_tier(capacity_mib: float, tp: int, rules: EraRules) -> tuple[int, int]:
    """Default (chunked_prefill_size, cuda_graph_max_bs) for a GPU of ``capacity_mib``."""
    g = capacity_mib
    if g < 20 * 1024:
        return 2048, 8
    if g < 35 * 1024:
        cpf, bs_small_tp, bs_large_tp = rules.mid_gpu_defaults
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


@dataclass(frozen=True)
class DefaultMfs:
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
) -> DefaultMfs:
    """``--mem-fraction-static`` as the release computes it when the flag is not given."""
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
    if rules.piecewise_default:
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
    extra = 0
    if strategy in ("extra_buffer", "extra_buffer_lazy"):
        if rules.era is Era.A:
            extra = 1 if spec else 2
        elif not overlap:
            extra = 1
        else:
            extra = 1 if strategy == "extra_buffer_lazy" else 2
    return 3 + extra
