"""The memory arithmetic: the worked example the issue pins, cells, slots, eras, defaults."""

from __future__ import annotations

import pytest

from sglang_logscope.errors import LogscopeError
from sglang_logscope.log.runs import FailureKind
from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.budget_types import Budget
from sglang_logscope.memory.eras import Era, default_mfs, era_of, parse_version, rules_for
from sglang_logscope.memory.estimates import kv_cell_bytes, mamba_slot_bytes
from sglang_logscope.memory.gpus import PRESETS
from sglang_logscope.memory.models import profile_facts

A6000x2 = [PRESETS["a6000"]] * 2
WORKED = {
    "model_path": "/root/models/Qwen3.6-27B",
    "tp_size": 2,
    "mem_fraction_static": 0.88,
    "speculative_algorithm": "NEXTN",
    "speculative_num_steps": 3,
    "speculative_eagle_topk": 1,
    "speculative_num_draft_tokens": 4,
    "context_length": 32768,
}


def _worked(**changes: object) -> Budget:
    return budget({**WORKED, **changes}, gpus=A6000x2, sglang_version="0.5.9")


def test_worked_example_not_enough_memory_is_real() -> None:
    b = _worked()
    g = b.per_gpu
    assert b.era is Era.A
    assert g.mamba_state_gib + g.spec_scratch_gib == pytest.approx(17.2, abs=0.05)
    assert g.rest_gib == pytest.approx(15.8, abs=0.05)
    assert not b.fits
    assert b.failure_kind is FailureKind.NOT_ENOUGH_MEMORY
    assert b.shortfall_gib == pytest.approx(1.40, abs=0.05)
    assert b.inputs["radix_cache"] == "off"
    assert g.mamba_slots == 48
    assert g.mamba_slot_bytes == 76_972_032
    assert g.kv_cell_bytes == 32_768


def test_worked_example_fits_with_16_running_requests() -> None:
    b = _worked(max_running_requests=16)
    assert b.fits
    assert b.failure_kind is None
    assert b.per_gpu.kv_tokens == pytest.approx(330_000, rel=0.005)
    assert b.max_running_requests == 16
    assert b.shortfall_gib == 0


def test_worked_example_suggestions_each_fit() -> None:
    b = _worked()
    changes = {s.change.split()[0]: s for s in b.suggestions}
    assert "--max-running-requests" in changes
    assert "--mamba-ssm-dtype" in changes
    assert "--mem-fraction-static" in changes
    for s in b.suggestions:
        assert _worked(**dict(s.args)).fits, s.change
    mrr = int(changes["--max-running-requests"].change.split()[1])
    assert 16 < mrr <= 44  # the note's break-even at 0.88 is 44
    assert "slack" in changes["--mem-fraction-static"].effect


def test_to_dict_has_the_issue_keys() -> None:
    d = _worked().to_dict()
    for key in (
        "schema_version",
        "sglang_version",
        "era",
        "model",
        "per_gpu",
        "max_running_requests",
        "fits",
        "failure_kind",
        "shortfall_gib",
        "suggestions",
        "assumptions",
        "sources",
    ):
        assert key in d
    assert set(d["per_gpu"]) >= {
        "total_gib",
        "f0_gib",
        "weights_gib",
        "draft_weights_gib",
        "slack_gib",
        "rest_gib",
        "mamba_state_gib",
        "spec_scratch_gib",
        "kv_gib",
        "kv_tokens",
        "kv_cell_bytes",
        "mamba_slot_bytes",
        "mamba_slots",
    }
    assert d["schema_version"] == 1 and d["failure_kind"] == "not_enough_memory"
    assert all(set(s) == {"change", "effect"} for s in d["suggestions"])


def test_no_gpu_given_assumes_two_48gb_cards_and_says_so() -> None:
    b = budget(WORKED, sglang_version="0.5.9")
    assert b.gpus == 2
    assert any("48 GB" in a for a in b.assumptions)
    assert b.sources["gpu"] == "assumed"


def test_era_d_counts_draft_and_raises_the_valueerror() -> None:
    b = budget({**WORKED, "disable_radix_cache": True}, gpus=A6000x2, sglang_version="0.5.23")
    assert b.era is Era.D
    assert b.failure_kind is FailureKind.WEIGHTS_LEAVE_NO_MEMORY
    assert b.per_gpu.kv_cell_bytes == 34_816  # 16 target layers + 1 draft layer
    # (48 + 1) state slots and (48 + 1) x 4 scratch slots: 17.56 GiB in the note
    assert b.per_gpu.mamba_state_gib + b.per_gpu.spec_scratch_gib == pytest.approx(17.56, abs=0.02)


def test_era_d_extra_buffer_caps_running_requests() -> None:
    b = budget({**WORKED, "mem_fraction_static": 0.85}, gpus=A6000x2, sglang_version="0.5.23")
    assert b.fits
    assert b.inputs["mamba_ratio"] == 5
    # the note's table: 48 slots, running requests capped to 9, ~230.6k tokens
    assert b.per_gpu.mamba_slots == 48
    assert b.max_running_requests == 9
    assert b.per_gpu.kv_tokens == pytest.approx(230_600, rel=0.01)


def test_era_c_joint_solve() -> None:
    b = budget(
        {**WORKED, "mem_fraction_static": 0.85, "mamba_scheduler_strategy": "extra_buffer"},
        gpus=A6000x2,
        sglang_version="0.5.13",
    )
    assert b.era is Era.C and b.fits
    assert b.per_gpu.mamba_slots == 52
    assert b.max_running_requests == 10
    assert b.per_gpu.kv_tokens == pytest.approx(255_800, rel=0.01)


def test_0510_refuses_spec_with_no_buffer_radix_and_says_so() -> None:
    b = budget(WORKED, gpus=A6000x2, sglang_version="0.5.10")
    assert any("refuses" in w for w in b.warnings)


def test_default_mfs_per_era_matches_the_note() -> None:
    args = {k: v for k, v in WORKED.items() if k != "mem_fraction_static"}
    assert budget(args, gpus=A6000x2, sglang_version="0.5.9").inputs[
        "mem_fraction_static"
    ] == pytest.approx(0.755, abs=0.001)
    assert budget(args, gpus=A6000x2, sglang_version="0.5.13").inputs[
        "mem_fraction_static"
    ] == pytest.approx(0.709, abs=0.001)
    assert budget(args, gpus=A6000x2, sglang_version="0.5.23").inputs[
        "mem_fraction_static"
    ] == pytest.approx(0.786, abs=0.001)


def test_explicit_collection_decides_whether_mfs_was_given() -> None:
    b = budget(WORKED, gpus=A6000x2, sglang_version="0.5.9", explicit={"tp_size"})
    assert b.inputs["mem_fraction_static"] == pytest.approx(0.755, abs=0.001)


def test_dense_model_cell_and_weights() -> None:
    m = profile_facts("Qwen3-32B")
    assert kv_cell_bytes(m, tp=1, pp=1, kv_bytes=2) == 262_144
    assert kv_cell_bytes(m, tp=2, pp=1, kv_bytes=2) == 131_072
    assert kv_cell_bytes(m, tp=16, pp=1, kv_bytes=2) == 2 * 256 * 64 * 1  # heads replicated
    assert mamba_slot_bytes(m, tp=2, pp=1, ssm_bytes=4) == 0
    b = budget(
        {"model_path": "Qwen/Qwen3-32B", "tp_size": 2, "mem_fraction_static": 0.9},
        gpus=[PRESETS["h100"]] * 2,
        sglang_version="0.5.9",
    )
    assert b.fits
    assert b.per_gpu.weights_gib == pytest.approx(30.5, abs=0.2)
    assert b.per_gpu.mamba_slots is None


def test_mla_cell_is_not_split_over_tp() -> None:
    m = profile_facts("DeepSeek-V3")
    assert m.is_mla
    assert kv_cell_bytes(m, tp=8, pp=1, kv_bytes=2) == (512 + 64) * 61 * 2
    assert kv_cell_bytes(m, tp=1, pp=1, kv_bytes=1) == (512 + 64) * 61


def test_hybrid_slot_sizes_match_the_note() -> None:
    m = profile_facts("Qwen3.6-27B")
    assert mamba_slot_bytes(m, tp=1, pp=1, ssm_bytes=4) == 153_944_064
    assert mamba_slot_bytes(m, tp=2, pp=1, ssm_bytes=2) == 39_223_296
    n = profile_facts("Qwen3-Next-80B-A3B")
    assert mamba_slot_bytes(n, tp=1, pp=1, ssm_bytes=4) == 77_266_944
    assert kv_cell_bytes(n, tp=4, pp=1, kv_bytes=2) == 12_288  # 1 head per rank, replicated


def test_fp8_kv_doubles_tokens() -> None:
    base = _worked(max_running_requests=16)
    fp8 = _worked(max_running_requests=16, kv_cache_dtype="fp8_e4m3")
    assert fp8.per_gpu.kv_cell_bytes * 2 == base.per_gpu.kv_cell_bytes
    assert fp8.per_gpu.kv_tokens == pytest.approx(2 * base.per_gpu.kv_tokens, rel=0.001)


def test_bad_inputs_raise_logscope_errors() -> None:
    with pytest.raises(LogscopeError, match="kv-cache-dtype"):
        _worked(kv_cache_dtype="int3")
    with pytest.raises(LogscopeError, match="unknown model"):
        budget({"model_path": "/x/NoSuchModel-7B"})
    with pytest.raises(LogscopeError, match="version"):
        _ = budget(WORKED, sglang_version="latest")


@pytest.mark.parametrize(
    ("version", "era"),
    [
        ("0.5.9", Era.A),
        ("0.5.10.post1", Era.A),
        ("0.5.11", Era.B),
        ("0.5.12.post1", Era.B),
        ("0.5.13.post1", Era.C),
        ("0.5.14", Era.D),
        ("0.5.23", Era.D),
    ],
)
def test_eras(version: str, era: Era) -> None:
    assert era_of(parse_version(version)) is era


# Releases 0.5.14-0.5.22, read from the wheels: where each switch of era D begins.
# 0.5.16 kv_cache_configurator._handle_max_mamba_cache prices M state slots and M x D scratch;
# 0.5.17 adds the pool's padding slot to both; 0.5.18 _profile_available_bytes subtracts
# mm_runtime_reservation_gb (SGLANG_VLM_CACHE_SIZE_MB = 100); 0.5.20 handle_gpu_memory_settings
# moves 20-35 GiB GPUs to 4096 / 48|160 and the no-GPU mfs to 0.95; 0.5.22 caps a default decode
# graph max_bs at --max-running-requests.
_P = 76_972_032  # Qwen3.6-27B state slot at tp 2, fp32 ssm


@pytest.mark.parametrize(
    ("version", "slots_priced"),
    [("0.5.15", 48 + 48 * 4), ("0.5.16", 48 + 48 * 4), ("0.5.17", 49 + 49 * 4), ("0.5.22", 245)],
)
def test_padding_state_slot_starts_in_0517(version: str, slots_priced: int) -> None:
    b = budget({**WORKED, "disable_radix_cache": True}, gpus=A6000x2, sglang_version=version)
    g = b.per_gpu
    assert g.mamba_slots == 48
    assert g.mamba_state_gib + g.spec_scratch_gib == pytest.approx(
        slots_priced * _P / 2**30, abs=1e-6
    )
    assert not any("not read" in a for a in b.assumptions)


@pytest.mark.parametrize(
    ("version", "mib"), [("0.5.17", 0.0), ("0.5.18", 100.0), ("0.5.22", 100.0)]
)
def test_multimodal_reserve_starts_in_0518(version: str, mib: float) -> None:
    b = budget({**WORKED, "mem_fraction_static": 0.85}, gpus=A6000x2, sglang_version=version)
    assert b.per_gpu.mm_reserve_gib == pytest.approx(mib / 1024)


@pytest.mark.parametrize(
    ("version", "mfs", "no_gpu"),
    [
        ("0.5.15", 0.874, 0.88),
        ("0.5.19", 0.874, 0.88),
        ("0.5.20", 0.777, 0.95),
        ("0.5.23", 0.777, 0.95),
    ],
)
def test_mid_gpu_defaults_change_in_0520(version: str, mfs: float, no_gpu: float) -> None:
    # 32607 MiB GPU, tp 1: 0.5.19 reserves 512 + 2048 x 1.5 + 24 x 2 + 128 + 42 graphs x 8 = 4096 MiB;
    # 0.5.20: 512 + 4096 x 1.5 + 48 x 2 + 128 + 50 x 8 = 7280 MiB.
    rules = rules_for(parse_version(version))
    dm = default_mfs(
        rules,
        capacity_mib=32607,
        tp=1,
        pp=1,
        chunked_prefill_size=None,
        cuda_graph_max_bs=None,
        spec_algorithm=None,
        max_running_requests=None,
        is_mla=False,
        vlm_factor=None,
    )
    assert dm.value == mfs
    assert rules.mfs_without_gpu == no_gpu


@pytest.mark.parametrize(("version", "bs", "mfs"), [("0.5.21", 32, 0.850), ("0.5.22", 16, 0.851)])
def test_graph_bs_capped_by_running_requests_from_0522(version: str, bs: int, mfs: float) -> None:
    dm = default_mfs(
        rules_for(parse_version(version)),
        capacity_mib=49140,
        tp=2,
        pp=1,
        chunked_prefill_size=None,
        cuda_graph_max_bs=None,
        spec_algorithm=None,
        max_running_requests=16,
        is_mla=False,
        vlm_factor=None,
    )
    assert (dm.cuda_graph_max_bs, dm.value) == (bs, mfs)
