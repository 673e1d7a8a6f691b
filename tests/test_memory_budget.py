"""The memory arithmetic: the worked example the issue pins, cells, slots, eras, defaults."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from sglang_logscope.errors import LogscopeError
from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.runs import FailureKind
from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.budget_types import Budget, MeasuredFigures
from sglang_logscope.memory.eras import Era, default_mfs, era_of, rules_for
from sglang_logscope.memory.estimates import kv_cell_bytes, mamba_slot_bytes
from sglang_logscope.memory.gpus import PRESETS, gpu_list
from sglang_logscope.memory.models import profile_facts
from sglang_logscope.parse.versions import release_key

A6000x2 = [PRESETS["a6000"]] * 2
NEXT = {
    "model_path": "/models/Qwen3-Next-80B-A3B-Instruct",
    "tp_size": 4,
    "mem_fraction_static": 0.85,
    "context_length": 32768,
}
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
    assert "drop" in changes  # dropping speculative decoding (the 13.8 GiB scratch) is offered
    for s in b.suggestions:
        r = _worked(**dict(s.args))
        assert r.fits, s.change
        assert s.kv_tokens == r.per_gpu.kv_tokens
        assert s.max_running_requests == r.max_running_requests
        assert s.concurrency_at_context == pytest.approx(r.per_gpu.kv_tokens / 32768, abs=0.01)
    assert "slack" in changes["--mem-fraction-static"].effect


def test_running_requests_suggestion_serves_every_request_at_full_context() -> None:
    """Not 41 (36k tokens shared by 41 slots): the largest count whose pool holds that many
    32k requests at once."""
    s = next(s for s in _worked().suggestions if s.change.startswith("--max-running-requests"))
    n = int(s.change.split()[1])
    assert s.fits and s.kv_tokens is not None
    assert s.kv_tokens >= n * 32768
    above = _worked(max_running_requests=n + 1)
    assert above.per_gpu.kv_tokens < (n + 1) * 32768
    assert n == 11 and s.concurrency_at_context == pytest.approx(11.86, abs=0.01)


def test_a_change_leaving_less_than_one_request_is_not_fits() -> None:
    # 0.91 starts (504 KV tokens, the issue's example) but holds no 32k request
    r = _worked(mem_fraction_static=0.91)
    assert r.fits and r.concurrency_at_context is not None and r.concurrency_at_context < 1
    assert any("less than one request" in w for w in r.warnings)
    assert r.suggestions, "a pool that holds no full request gets suggestions too"
    mfs = next(s for s in _worked().suggestions if s.change.startswith("--mem-fraction-static"))
    assert float(mfs.change.split()[1]) > 0.91
    assert mfs.concurrency_at_context is not None and mfs.concurrency_at_context >= 1


def test_suggestions_ranked_by_what_the_user_keeps() -> None:
    ranked = _worked().suggestions
    assert ranked[0].change == "--max-running-requests 11"  # keeps context, spec, most served
    fitting = [s for s in ranked if s.fits and not s.needs_more_gpus]
    assert list(ranked[: len(fitting)]) == fitting
    drop = next(i for i, s in enumerate(ranked) if s.change.startswith("drop"))
    bf16 = next(i for i, s in enumerate(ranked) if s.change.startswith("--mamba-ssm-dtype"))
    assert drop < bf16  # dropping spec serves 8 full requests, bf16 state 7
    assert ranked[-1].needs_more_gpus


def test_gpu_changes_beyond_the_gpus_given_are_labelled() -> None:
    two = [s for s in _worked().suggestions if s.change.startswith("--tp")]
    assert two and all(s.needs_more_gpus for s in two)
    assert "needs 4 GPUs; 2 given" in two[0].effect
    four = budget({**WORKED}, gpus=[PRESETS["a6000"]] * 4, sglang_version="0.5.9").suggestions
    tp4 = next(s for s in four if s.change == "--tp 4")
    assert not tp4.needs_more_gpus and "uses 4 of the 4 GPUs" in tp4.effect


def test_gpu_count_comes_from_tp_pp_and_dp() -> None:
    eight = {**WORKED, "tp_size": 8, "model_path": "meta-llama/Llama-3.1-70B-Instruct"}
    del eight["speculative_algorithm"]
    b = budget(eight, sglang_version="0.5.9")
    assert b.gpus == 8 and "8 x RTX A6000 48GB assumed" in b.basis
    assert budget({**eight, "dp_size": 2}, sglang_version="0.5.9").gpus == 16
    dp_attn = {**eight, "dp_size": 2, "enable_dp_attention": True}
    assert budget(dp_attn, sglang_version="0.5.9").gpus == 8
    one_model = budget(eight, gpus=PRESETS["h100"], sglang_version="0.5.9")
    assert one_model.gpus == 8 and "count from tp x pp" in one_model.basis
    short = budget(eight, gpus=[PRESETS["h100"]] * 2, sglang_version="0.5.9")
    assert any("needs 8 GPUs" in w for w in short.warnings)


def test_sources_say_what_was_given_and_what_was_assumed() -> None:
    assumed = budget(WORKED)
    assert assumed.sources["sglang_version"] == "assumed" and assumed.sources["gpu"] == "assumed"
    assert assumed.basis == "2 x RTX A6000 48GB assumed, SGLang 0.5.23 assumed"
    given = _worked()
    assert given.sources["sglang_version"] == "given"
    assert given.basis.endswith("SGLang 0.5.9 given")
    logged = budget(WORKED, gpus=A6000x2, sglang_version="0.5.9", version_source="log")
    assert logged.basis.endswith("SGLang 0.5.9 read from the log")


def test_confidence_names_the_unvalidated_terms() -> None:
    spec = _worked().confidence
    assert spec["level"] == "low"
    assert "hybrid speculative scratch (no log prints it)" in spec["unvalidated"]
    assert {"f0", "weights"} <= set(spec["assumed_inputs"])
    dense = budget(
        {"model_path": "meta-llama/Llama-3.1-8B", "mem_fraction_static": 0.88},
        gpus=[PRESETS["h100"]],
        sglang_version="0.5.9",
        measured=MeasuredFigures(f0_gib=78.0, weights_gib=15.0),
    )
    assert dense.confidence == {"level": "high", "unvalidated": [], "assumed_inputs": []}


def test_bars_draw_the_draft_inside_the_slack_before_era_d() -> None:
    g = _worked(max_running_requests=16).per_gpu
    segs = dict(g.bar_segments())
    stacked = sum(segs.values())
    # weights + pools + slack = F0: the draft is taken from the slack, not stacked on top
    assert stacked == pytest.approx(g.f0_gib, abs=0.11)  # 0.1 GiB: the 0.5.9 padding rows
    assert segs["draft"] == pytest.approx(g.draft_weights_gib)
    assert segs["slack"] == pytest.approx(g.slack_gib - g.draft_weights_gib - g.draft_kv_gib)


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
    assert d["schema_version"] == 2 and d["failure_kind"] == "not_enough_memory"
    assert d["suggestions"] and all(
        list(s)
        == [
            "change",
            "effect",
            "fits",
            "kv_tokens",
            "max_running_requests",
            "concurrency_at_context",
            "needs_more_gpus",
            "warnings",  # issue 32: each suggestion carries its own budget's warnings
            "confidence",
        ]
        for s in d["suggestions"]
    )
    assert d["kv_tokens"] == d["per_gpu"]["kv_tokens"] and "concurrency_at_context" in d
    assert d["confidence"]["level"] in ("high", "medium", "low")


def test_no_gpu_given_assumes_48gb_cards_and_says_so() -> None:
    b = budget(WORKED, sglang_version="0.5.9")
    assert b.gpus == 2  # tp 2
    assert any("48 GB" in a for a in b.assumptions)
    assert b.sources["gpu"] == "assumed"


def test_era_d_counts_draft_and_raises_the_valueerror() -> None:
    path = {**WORKED, "disable_radix_cache": True, "speculative_draft_model_path": "/m/mtp"}
    b = budget(path, gpus=A6000x2, sglang_version="0.5.23")
    assert b.era is Era.D
    assert b.failure_kind is FailureKind.WEIGHTS_LEAVE_NO_MEMORY
    assert b.per_gpu.kv_cell_bytes == 34_816  # 16 target layers + 1 draft layer
    # (48 + 1) state slots and (48 + 1) x 4 scratch slots: 17.56 GiB in the note
    assert b.per_gpu.mamba_state_gib + b.per_gpu.spec_scratch_gib == pytest.approx(17.56, abs=0.02)


@pytest.mark.parametrize(
    ("version", "draft_path", "cell"),
    [
        ("0.5.17", None, 32_768),  # NEXTN without a path: eagle_draft_num_layers unset
        ("0.5.17", "/m/mtp", 34_816),
        ("0.5.23", None, 32_768),  # Qwen3.6 names mtp_num_hidden_layers, not num_nextn_...
        ("0.5.23", "/m/mtp", 34_816),
    ],
)
def test_era_d_draft_kv_only_when_sglang_sets_draft_layers(
    version: str, draft_path: str | None, cell: int
) -> None:
    args = {**WORKED, "mem_fraction_static": 0.85, "speculative_draft_model_path": draft_path}
    b = budget(args, gpus=A6000x2, sglang_version=version)
    assert b.per_gpu.kv_cell_bytes == cell
    # without the draft in the cell its KV pool comes out of the slack (one layer of tokens)
    assert (b.per_gpu.draft_kv_gib > 0) == (cell == 32_768)


def test_era_d_draft_layers_from_the_target_config_from_0520() -> None:
    ds = {"model_path": "deepseek-ai/DeepSeek-V3", "tp_size": 8, "speculative_algorithm": "EAGLE"}
    for version in ("0.5.17", "0.5.23"):  # DeepSeek: SGLang fills the draft path in
        b = budget(ds, gpus=[PRESETS["h200"]] * 8, sglang_version=version)
        base = budget({**ds, "speculative_algorithm": None}, gpus=[PRESETS["h200"]] * 8)
        assert b.per_gpu.kv_cell_bytes > base.per_gpu.kv_cell_bytes


def test_era_d_extra_buffer_caps_running_requests() -> None:
    b = budget({**WORKED, "mem_fraction_static": 0.85}, gpus=A6000x2, sglang_version="0.5.17")
    assert b.fits
    assert b.inputs["mamba_ratio"] == 5
    # 39 slots, running requests capped to 7 (cell 32,768 B: no draft layer without a path).
    # Issue 32: the draft's own embed/lm_head copies (2.37 GiB per GPU) are held when SGLang
    # profiles (fixtures/memory/startup-order.json), so they count with the draft weights
    # (0.44 + 2.37 GiB); before that change these were 48 slots, 9 requests, 248,150 tokens.
    assert b.per_gpu.draft_weights_gib == pytest.approx(0.44 + 2.37, abs=0.01)
    assert b.per_gpu.mamba_slots == 39
    assert b.max_running_requests == 7
    assert b.per_gpu.kv_cell_bytes == 32_768
    assert b.per_gpu.kv_tokens == pytest.approx(210_480, rel=0.001)


def test_era_d_seed_tokens_match_the_path_less_rule() -> None:
    """The audit's hand figures for the demo command (ratio 0.5) on 0.5.15 / 0.5.17 / 0.5.23
    were 346,013 / 341,315 / 338,115 tokens, M 39 / 36 / 36, MRR 7 (cell 32,768 B) with the
    draft's embed/lm_head copies freed before profiling. Issue 32: SGLang's start-up order
    holds them then (fixtures/memory/startup-order.json): 2.37 GiB less to split."""
    for version, tokens, slots in (
        ("0.5.15", 291_906, 33),
        ("0.5.17", 287_208, 30),
        ("0.5.23", 284_008, 30),
    ):
        b = budget({**WORKED, "mamba_full_memory_ratio": 0.5}, gpus=A6000x2, sglang_version=version)
        assert b.per_gpu.mamba_slots == slots and b.max_running_requests == 6, version
        assert b.per_gpu.kv_tokens == pytest.approx(tokens, abs=20), version


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


def test_default_mfs_per_era_matches_sglangs_code() -> None:
    """0.5.10-0.5.13: +4 GiB EAGLE reserve and no piecewise term (spec in 0.5.10.x and the
    multimodal model switch it off first): 0.717 (audit item 1); 0.5.23's 0.786 is the oracle's."""
    args = {k: v for k, v in WORKED.items() if k != "mem_fraction_static"}

    def mfs(version: str) -> float:
        return float(
            budget(args, gpus=A6000x2, sglang_version=version).inputs["mem_fraction_static"]
        )

    assert mfs("0.5.9") == pytest.approx(0.755, abs=0.001)
    for version in ("0.5.10", "0.5.11", "0.5.12", "0.5.13"):
        assert mfs(version) == pytest.approx(0.717, abs=0.001), version
    assert mfs("0.5.23") == pytest.approx(0.786, abs=0.001)


def test_piecewise_reserve_only_where_sglang_keeps_piecewise_graphs() -> None:
    dense = {"model_path": "Qwen/Qwen3-32B", "tp_size": 2}
    on = budget(dense, gpus=A6000x2, sglang_version="0.5.13").inputs["mem_fraction_static"]
    off = budget(
        {**dense, "enable_torch_compile": True}, gpus=A6000x2, sglang_version="0.5.13"
    ).inputs["mem_fraction_static"]
    before = budget(dense, gpus=A6000x2, sglang_version="0.5.9").inputs["mem_fraction_static"]
    assert on < off == before  # 8 MiB per captured size, only while piecewise graphs stay on


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
        ("0.4.0", Era.P4),
        ("0.4.6.post5", Era.P4),
        ("0.4.10.post2", Era.P4),
        ("0.5.2", Era.P5),
        ("0.5.8", Era.P5),
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
    assert era_of(release_key(version)) is era


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
    rules = rules_for(release_key(version))
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
        rules_for(release_key(version)),
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


DENSE = {"model_path": "Qwen/Qwen3-32B"}


@pytest.mark.parametrize(
    ("version", "gpu", "tp", "spec", "mfs"),
    [
        # < 0.4.9: the tp x pp table (0.4.6.post5 server_args.py), on GPUs up to 80 GiB
        ("0.4.6.post5", "a6000", 2, None, 0.87),
        ("0.4.6.post5", "h100", 1, None, 0.88),
        ("0.4.6.post5", "h100", 8, None, 0.81),
        # above 96 GiB: min(mfs + 48 GiB x (1 - mfs) / g, (g - 18 GiB) / g)
        ("0.4.6.post5", "h200", 8, None, (143771 - 18432) / 143771),
        # 0.4.9 - 0.5.2: reserve tiers by capacity, + 2 GiB for EAGLE
        ("0.4.9.post6", "a6000", 2, None, round((49140 - 10.5 * 1024) / 49140, 3)),
        ("0.5.2", "a6000", 2, None, round((49140 - 10.5 * 1024) / 49140, 3)),
        ("0.5.2", "a6000", 2, "EAGLE", round((49140 - 12.5 * 1024) / 49140, 3)),
        ("0.5.2", "rtx4090", 1, None, round((24564 - 2.9 * 1024) / 24564, 3)),
    ],
)
def test_default_mfs_before_059(
    version: str, gpu: str, tp: int, spec: str | None, mfs: float
) -> None:
    args = {**DENSE, "tp_size": tp, "speculative_algorithm": spec}
    b = budget(args, gpus=[PRESETS[gpu]] * tp, sglang_version=version)
    assert b.era in (Era.P4, Era.P5)
    assert b.inputs["mem_fraction_static"] == pytest.approx(mfs, abs=6e-4)


def test_qwen35_before_059_is_not_modelled() -> None:
    # 0.5.8's wheel has no models/qwen3_5.py: that release cannot load the model at all
    b = budget({**WORKED, "mem_fraction_static": 0.85}, gpus=A6000x2, sglang_version="0.5.5")
    assert b.not_modelled == (
        "Qwen3_5ForConditionalGeneration on 0.5.5 (Qwen3.5 architectures first load in 0.5.9)",
    )
    assert b.to_dict()["kv_tokens"] is None
    b58 = budget(
        {**NEXT, "disable_radix_cache": True}, gpus=[PRESETS["h100"]] * 4, sglang_version="0.5.8"
    )
    assert not b58.not_modelled and b58.per_gpu.mamba_slots == 512  # radix off, MRR unset


def test_dp_attention_sizes_the_cell_with_attn_tp_as_log_027_prints() -> None:
    """Corpus 027 (Qwen3-Next, tp 4, dp 4, DP attention) prints K = 31.89 GiB for 2,786,325
    tokens: 24,576 B per token for K + V, the cell at attn_tp = tp // dp = 1."""
    log = read_log(
        str(Path(__file__).resolve().parent.parent / "fixtures/memory/cases/027/server.log")
    )
    kv = log.runs[0].first(EventKind.KV_CACHE_ALLOCATED)
    assert kv is not None
    printed = 2 * float(kv.fields["k_gib"]) * 2**30 / int(kv.fields["tokens"])
    args = {"model_path": "Qwen/Qwen3-Next-80B-A3B-Instruct-FP8", "tp_size": 4, "dp_size": 4}
    h100 = [PRESETS["h100"]] * 4
    dp = budget({**args, "enable_dp_attention": True}, gpus=h100, sglang_version="0.5.6")
    plain = budget(args, gpus=h100, sglang_version="0.5.6")
    assert dp.inputs["attn_tp_size"] == 1 and plain.inputs["attn_tp_size"] == 4
    assert dp.per_gpu.kv_cell_bytes == pytest.approx(printed, rel=0.001)
    assert dp.per_gpu.kv_cell_bytes == 2 * plain.per_gpu.kv_cell_bytes
    assert dp.per_gpu.mamba_slot_bytes == 4 * plain.per_gpu.mamba_slot_bytes


def test_era_d_draft_copies_are_held_at_profiling() -> None:
    """Issue 32 (was: the transient is added back): era D logs the MTP draft's Load weight end
    while its own embed/lm_head copies (2 x 248,320 / 2 x 5,120 x 2 B = 2.37 GiB per GPU) are
    held, and SGLang profiles before freeing them (scheduler.init_memory_pools: the target's
    alloc_memory_pool, then the draft's init_lm_head; fixtures/memory/startup-order.json): the
    logged figures are used as they are, and an estimate counts the copies as draft weights."""
    seen = MeasuredFigures(
        f0_gib=46.99, free_after_weights_gib=18.0, weights_gib=25.54, draft_weights_gib=2.81
    )
    args = {**WORKED, "mem_fraction_static": 0.85}
    plain = budget(args, gpus=A6000x2, sglang_version="0.5.17", measured=seen)
    drafted = budget(
        args, gpus=A6000x2, sglang_version="0.5.17", measured=replace(seen, from_draft_line=True)
    )
    assert drafted.per_gpu.draft_weights_gib == pytest.approx(2.81)
    assert drafted.per_gpu.rest_gib == pytest.approx(plain.per_gpu.rest_gib)
    assert any("still held when SGLang profiles" in a for a in drafted.assumptions)
    copies = 2 * 248_320 / 2 * 5_120 * 2 / 2**30
    assert copies == pytest.approx(2.37, abs=0.01)
    estimated = budget(args, gpus=A6000x2, sglang_version="0.5.17")
    before_d = budget(args, gpus=A6000x2, sglang_version="0.5.9")
    assert estimated.per_gpu.draft_weights_gib == pytest.approx(
        before_d.per_gpu.draft_weights_gib + copies
    )
    assert any("held until after SGLang profiles" in a for a in estimated.assumptions)


def test_spec_token_padding_before_057() -> None:
    """0.4.6.post5 - 0.5.6 size the shared pool T + MRR (steps x topk + D) + 100
    (``draft_runner_cache_size`` in model_runner.py); 0.5.7+ do not."""
    args = {
        "model_path": "meta-llama/Llama-3.1-8B-Instruct",
        "mem_fraction_static": 0.85,
        "speculative_algorithm": "EAGLE",
        "speculative_draft_model_path": "/m/eagle",
        "speculative_num_steps": 5,
        "speculative_eagle_topk": 4,
        "speculative_num_draft_tokens": 8,
    }
    h100 = [PRESETS["h100"]]
    old = budget(args, gpus=h100, sglang_version="0.4.6.post5").per_gpu.kv_tokens
    new = budget(args, gpus=h100, sglang_version="0.5.8").per_gpu.kv_tokens
    assert old - new == 48 * (5 * 4 + 8) + 100
    plain = {k: v for k, v in args.items() if not k.startswith("speculative")}
    assert (
        budget(plain, gpus=h100, sglang_version="0.4.6.post5").per_gpu.kv_tokens
        == budget(plain, gpus=h100, sglang_version="0.5.8").per_gpu.kv_tokens
    )


def test_a_gpu_count_without_a_model_says_the_model_is_assumed() -> None:
    b = budget(WORKED, gpus=gpu_list(2, None), sglang_version="0.5.9")
    assert b.gpus == 2 and "(count given, model assumed)" in b.basis


def test_when_no_raise_holds_a_full_request_the_most_that_starts_is_shown() -> None:
    args = {
        "model_path": "meta-llama/Llama-3.1-8B-Instruct",
        "context_length": 131072,
        "mem_fraction_static": 0.5,
    }
    b = budget(args, gpus=[PRESETS["rtx4090"]], sglang_version="0.5.23")
    mfs = next(s for s in b.suggestions if s.change.startswith("--mem-fraction-static"))
    assert mfs.change == "--mem-fraction-static 0.95" and not mfs.fits
    assert mfs.concurrency_at_context is not None and 0 < mfs.concurrency_at_context < 1
