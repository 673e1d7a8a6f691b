"""Gated-delta-net state of SGLang 0.5.2-0.5.7 (era P5), each release's rule as data.

No corpus or public log of those releases prints the mamba pool with the figures needed (the
one Qwen3-Next log of the time, corpus 005, ends inside its ``server_args`` line), and the oracle
resolves ``ServerArgs`` only, not the model runner. So each case is recomputed here step by step
from the release's own code, quoted in the comments (paths inside the wheel), from the same
per-rank free memory, slack and slot size the budget used.
"""

from __future__ import annotations

from typing import Any

import pytest

from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.budget_types import Budget
from sglang_logscope.memory.eras import hybrid_rule_of, mamba_ratio, rules_for
from sglang_logscope.memory.gpus import PRESETS
from sglang_logscope.parse.versions import release_key

GIB = 1 << 30
H100x4 = [PRESETS["h100"]] * 4
NEXT = {
    "model_path": "/models/Qwen3-Next-80B-A3B-Instruct",
    "tp_size": 4,
    "mem_fraction_static": 0.85,
    "context_length": 32768,
}
SPEC = {
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
    "max_running_requests": 48,
}


def _run(version: str, **extra: Any) -> Budget:
    return budget({**NEXT, **extra}, gpus=H100x4, sglang_version=version)


def _rest(b: Budget) -> float:
    """``available - total x (1 - mfs)``: what profile_max_num_token starts from (GiB)."""
    g = b.per_gpu
    return g.f0_gib - g.weights_gib - g.slack_gib


def _tokens(b: Budget, rest_after_state: float) -> int:
    return int(rest_after_state * GIB) // b.per_gpu.kv_cell_bytes


@pytest.mark.parametrize(
    ("version", "rule"),
    [
        ("0.5.1", "none"),
        ("0.5.2", "radix_off"),
        ("0.5.3.post3", "radix_off"),
        ("0.5.4", "split_per_draft"),
        ("0.5.6.post2", "split_per_draft"),
        ("0.5.7", "explicit_or_split"),
        ("0.5.8", "upfront"),
        ("0.5.23", "upfront"),
    ],
)
def test_each_release_has_its_rule(version: str, rule: str) -> None:
    assert hybrid_rule_of(release_key(version)) == rule


def test_before_052_the_state_is_not_modelled() -> None:
    b = _run("0.5.1")
    assert b.not_modelled and "before 0.5.2" in b.not_modelled[0]
    assert b.to_dict()["kv_tokens"] is None


@pytest.mark.parametrize("version", ["0.5.2", "0.5.3"])
def test_052_forces_the_radix_cache_off_and_reserves_m_slots(version: str) -> None:
    """model_runner.py ``__init__``: "Hybrid GDN model detected, disable radix cache";
    ``max_mamba_cache_size = max_running_requests or 512``; profile_max_num_token:
    ``rest_memory -= max_mamba_cache_size * mamba_cache_per_req``."""
    b = _run(version)
    assert not b.not_modelled and b.inputs["radix_cache"] == "off"
    p = b.per_gpu.mamba_slot_bytes
    assert b.per_gpu.mamba_slots == 512
    assert b.per_gpu.kv_tokens == _tokens(b, _rest(b) - 512 * p / GIB)
    assert b.max_running_requests == 512  # min(estimated 2048.., M): ratio 1
    b16 = _run(version, max_running_requests=16)
    assert b16.per_gpu.mamba_slots == 16 and b16.max_running_requests == 16
    # with spec the pool allocates the scratch later; it is not reserved (no spec term), and
    # the slack warning counts it: (48 + 1) x 4 rows of P
    spec = _run(version, **SPEC)
    assert spec.per_gpu.spec_scratch_gib == 0 and spec.per_gpu.mamba_slots == 48
    late = 49 * 4 * p / GIB
    assert any(
        f"{late:.1f} GiB spec scratch allocated after the budget" in w for w in spec.warnings
    )


def test_054_to_056_split_the_state_per_draft_token() -> None:
    """handle_max_mamba_cache (0.5.4-0.5.6): radix on: ``M = int(rest * r / (1 + r) * 2**30
    // mamba_cache_per_req // (1 + D))``; state ``M * P * (1 + D)``; requests ``M // 3``."""
    for version in ("0.5.4", "0.5.5", "0.5.6"):
        b = _run(version, **SPEC)
        p = b.per_gpu.mamba_slot_bytes
        rest = _rest(b)
        m = int(rest * 0.9 / 1.9 * GIB) // p // 5
        assert b.inputs["radix_cache"] != "off"  # no spec rule before 0.5.9
        assert b.per_gpu.mamba_slots == m
        assert b.per_gpu.mamba_state_gib + b.per_gpu.spec_scratch_gib == pytest.approx(
            m * p * 5 / GIB
        )
        # + the draft headroom of these releases: MRR x (steps x topk + D) + 100 tokens
        assert b.per_gpu.kv_tokens == _tokens(b, rest - m * p * 5 / GIB) + 48 * (3 + 4) + 100
        assert b.max_running_requests == min(48, m // 3)
        # radix off: M = max_running_requests, still times (1 + D)
        off = _run(version, disable_radix_cache=True, **SPEC)
        assert off.per_gpu.mamba_slots == 48
        assert off.per_gpu.spec_scratch_gib == pytest.approx(48 * 4 * p / GIB)


def test_057_reserves_scratch_only_in_the_ratio_split() -> None:
    """model_runner_kv_cache_mixin.py (0.5.7): radix off or M given: ``M`` as given / MRR /
    512, no scratch; else ``rest -= P * MRR * D`` then ``M = rest * r / (1 + r) // P``; the
    request cap ``M // (3 + 2)`` (``MAMBA_CACHE_V2_ADDITIONAL_RATIO_OVERLAP`` in the else)."""
    b = _run("0.5.7", **SPEC)
    p = b.per_gpu.mamba_slot_bytes
    scratch = 48 * 4 * p / GIB
    m = int((_rest(b) - scratch) * 0.9 / 1.9 * GIB) // p
    assert b.per_gpu.mamba_slots == m
    assert b.per_gpu.spec_scratch_gib == pytest.approx(scratch)
    assert b.per_gpu.kv_tokens == _tokens(b, _rest(b) - scratch - m * p / GIB)
    assert b.max_running_requests == min(48, m // 5)
    given = _run("0.5.7", max_mamba_cache_size=100, **SPEC)
    assert given.per_gpu.mamba_slots == 100 and given.per_gpu.spec_scratch_gib == 0
    rules = rules_for(release_key("0.5.7"))
    assert (
        mamba_ratio(rules, radix_disabled=False, strategy="no_buffer", spec=False, overlap=False)
        == 5
    )
    assert (
        mamba_ratio(rules, radix_disabled=False, strategy="extra_buffer", spec=True, overlap=True)
        == 4
    )


def test_dp_attention_divides_the_slots_over_dp_ranks() -> None:
    """0.5.2-0.5.6 divide ``max_mamba_cache_size`` by dp with DP attention."""
    args = {"enable_dp_attention": True, "dp_size": 2, "max_running_requests": 64}
    for version in ("0.5.2", "0.5.5"):
        b = _run(version, disable_radix_cache=True, **args)
        assert b.per_gpu.mamba_slots == 32
