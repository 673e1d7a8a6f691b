"""The hybrid sliding-window (SWA) pool per release, held to SGLang's code (``memory/swa.py``).

No real log prints an SWA pool together with the free-memory figures needed to recompute it
(the corpus has none; the public ones found are curated GB10 excerpts of Gemma 4, which is not
modelled), so the release rules are pinned here to the wheels' source lines, and the model is
the transformers reference GptOssConfig of ``fixtures/memory/configs/gpt-oss.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.cli import main
from sglang_logscope.log.reader import read_log
from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.from_run import budget_for_run, reported_from_run
from sglang_logscope.memory.gpus import PRESETS, GpuSpec
from sglang_logscope.memory.models import facts_from_config, load_config, profile_facts
from sglang_logscope.memory.swa import SPLIT_RULES, SwaDecision, SwaPool, decide, swa_layer_ids

ROOT = Path(__file__).resolve().parent.parent
GPT_OSS = facts_from_config(
    load_config(ROOT / "fixtures" / "memory" / "configs" / "gpt-oss.json"),
    name="gpt-oss",
    source="fixtures/memory/configs/gpt-oss.json",
)
ARGS: dict[str, Any] = {
    "model_path": "openai/gpt-oss-120b",
    "tp_size": 1,
    "mem_fraction_static": 0.85,
}


def _b(version: str, gpu: GpuSpec = PRESETS["h100"], **extra: Any) -> Any:
    return budget({**ARGS, **extra}, gpus=gpu, model=GPT_OSS, sglang_version=version)


def test_gpt_oss_config_gives_18_sliding_of_36_layers_and_no_unmodelled_pool() -> None:
    assert GPT_OSS.num_layers == 36
    assert GPT_OSS.swa_attention_layers == tuple(range(0, 36, 2))
    assert GPT_OSS.not_modelled == ()
    assert GPT_OSS.to_dict()["swa_layers"] == 18


@pytest.mark.parametrize("version", ["0.5.2", "0.5.5", "0.5.7"])
def test_before_0_5_8_gpt_oss_gets_the_ordinary_pool_every_layer_full(version: str) -> None:
    """0.5.1-0.5.7 server_args.py: the gpt-oss branch sets ``disable_hybrid_swa_memory = True``."""
    b = _b(version)
    assert b.per_gpu.swa_tokens is None
    assert b.per_gpu.kv_cell_bytes == 36 * 8 * (64 + 64) * 2  # every layer, 8 KV heads, bf16
    assert any("ordinary pool" in a and version in a for a in b.assumptions)


@pytest.mark.parametrize(
    ("version", "split"),
    [("0.5.8", "layers"), ("0.5.9", "memory"), ("0.5.10.post1", "memory"), ("0.5.11", "cell"),
     ("0.5.23", "cell")],
)  # fmt: skip
def test_from_0_5_8_gpt_oss_gets_the_swa_pool_split_at_ratio_0_8(version: str, split: str) -> None:
    b = _b(version)
    full, swa = b.per_gpu.kv_tokens, b.per_gpu.swa_tokens
    assert swa == int(full * 0.8)
    # the same KV bytes (rest) buy 36/(18 + 0.8 x 18) = 1.111x the dense token count
    dense = _b("0.5.7").per_gpu.kv_tokens
    assert full == pytest.approx(dense * 36 / 32.4, abs=2)
    assert b.per_gpu.kv_gib == pytest.approx(b.per_gpu.rest_gib, abs=0.001)
    assert any(f"({split} split)" in a for a in b.assumptions)
    assert b.to_dict()["per_gpu"]["swa_tokens"] == swa


def test_the_splits_of_sglang_on_unequal_layers_and_pages() -> None:
    """14 GiB of KV, full layers 2,048 B x 9, sliding 1,024 B x 39, ratio 0.8, page 64:
    layers (0.5.8): T = 14 GiB // (2048 x 48) = 152,917 -> 152,896; full = int(T 48 / 40.2) =
    182,562 -> 182,528; swa = int(182,562 x 0.8) = 146,049 -> 146,048.
    memory (0.5.9): T = 14 GiB // 58,368 -> 257,536; full = int(T 58,368 / 50,380.8) = 298,363
    -> 298,304; swa = int(298,363 x 0.8) = 238,690 -> 238,656; 0.5.10 takes the sliding count
    from the aligned 298,304: 238,643 -> 238,592.
    cell (0.5.11+): full = 14 GiB // 50,380.8 = 298,374 -> 298,368; swa = 238,694 -> 238,656."""
    rest = 14 * 2**30
    got = {
        (split, aligned): SwaPool(9, 39, 2048, 1024, 0.8, 64, split, aligned).tokens(rest)
        for split, aligned in (
            ("layers", False),
            ("memory", False),
            ("memory", True),
            ("cell", True),
        )
    }
    assert got == {
        ("layers", False): (182528, 146048),
        ("memory", False): (298304, 238656),
        ("memory", True): (298304, 238592),
        ("cell", True): (298368, 238656),
    }
    rules = {".".join(map(str, v)): (split, a) for v, split, a in SPLIT_RULES}
    assert rules == {
        "0.5.8": ("layers", False),
        "0.5.9": ("memory", False),
        "0.5.10": ("memory", True),
        "0.5.11": ("cell", True),
    }


def test_trtllm_mha_keeps_the_ordinary_pool_for_gpt_oss_in_0_5_8_and_0_5_9_only() -> None:
    """0.5.8-0.5.9 server_args.py: trtllm_mha (the SM100 default) disables the SWA pool."""
    b200 = GpuSpec("NVIDIA B200", 183359)
    assert _b("0.5.9", attention_backend="trtllm_mha").per_gpu.swa_tokens is None
    assert _b("0.5.8", gpu=b200).per_gpu.swa_tokens is None
    assert _b("0.5.9", gpu=b200, attention_backend="fa3").per_gpu.swa_tokens is not None
    assert _b("0.5.10", gpu=b200).per_gpu.swa_tokens is not None


def test_disable_hybrid_swa_memory_and_unmodelled_options() -> None:
    off = _b("0.5.23", disable_hybrid_swa_memory=True)
    assert off.per_gpu.swa_tokens is None and off.kv_tokens == _b("0.5.7").kv_tokens
    spec = _b("0.5.23", speculative_algorithm="EAGLE3", speculative_draft_model_path="x")
    assert spec.kv_tokens is None and spec.max_running_requests is None
    assert any("speculative decoding" in w for w in spec.not_modelled)
    cap = _b("0.5.23", disable_radix_cache=True, max_running_requests=8)
    assert cap.kv_tokens is None and any("request cap" in w for w in cap.not_modelled)
    assert _b("0.5.20", disable_radix_cache=True, max_running_requests=8).kv_tokens is not None


def test_llama4_ordinary_pool_before_0_5_8_and_every_fourth_layer_full_after() -> None:
    cfg = {
        "architectures": ["Llama4ForConditionalGeneration"],
        "text_config": {
            "hidden_size": 5120,
            "num_hidden_layers": 48,
            "num_attention_heads": 40,
            "num_key_value_heads": 8,
            "head_dim": 128,
            "vocab_size": 202048,
        },
    }
    m = facts_from_config(cfg, name="llama4", source="test")
    assert len(m.swa_attention_layers) == 36 and 3 not in m.swa_attention_layers
    old = decide(m, (0, 5, 2), {}, attn_tp=1, kv_bytes=2)
    assert old.pool is None and "--hybrid-kvcache-ratio" in old.notes[0]
    ratio = decide(m, (0, 5, 2), {"hybrid_kvcache_ratio": 0.5}, attn_tp=1, kv_bytes=2)
    assert ratio.pool is None and ratio.not_modelled
    new = decide(m, (0, 5, 9), {}, attn_tp=8, kv_bytes=2)
    assert new.pool is not None and (new.pool.full_layers, new.pool.swa_layers) == (12, 36)
    assert new.pool.full_bytes == new.pool.swa_bytes == 1 * 256 * 2


def test_mimo_sliding_layers_use_their_own_heads_modelled_from_0_5_9() -> None:
    cfg = {
        "architectures": ["MiMoV2FlashForCausalLM"],
        "hidden_size": 4096,
        "num_hidden_layers": 4,
        "num_attention_heads": 64,
        "num_key_value_heads": 4,
        "head_dim": 192,
        "v_head_dim": 128,
        "swa_num_key_value_heads": 8,
        "swa_head_dim": 192,
        "swa_v_head_dim": 128,
        "hybrid_layer_pattern": [0, 1, 1, 1],
        "vocab_size": 152576,
    }
    m = facts_from_config(cfg, name="mimo", source="test")
    old = decide(m, (0, 5, 8), {}, attn_tp=1, kv_bytes=2)  # its own 0.5.8 cell (sglang#18039)
    assert old.pool is None and old.not_modelled == ("MiMo-V2-Flash sliding-window pool of 0.5.8",)
    assert decide(m, (0, 5, 7), {}, attn_tp=1, kv_bytes=2).not_modelled  # is_hybrid_model: 1
    assert decide(m, (0, 5, 6), {}, attn_tp=1, kv_bytes=2).not_modelled == ()  # no MiMo yet
    pool = decide(m, (0, 5, 9), {}, attn_tp=1, kv_bytes=2).pool
    assert pool is not None and pool.split == "memory"
    assert (pool.full_bytes, pool.swa_bytes) == (4 * 320 * 2, 8 * 320 * 2)
    hicache = decide(m, (0, 5, 23), {"enable_hierarchical_cache": True}, attn_tp=1, kv_bytes=2)
    assert hicache.pool is None


def test_gemma3_keeps_the_ordinary_pool_and_gemma4_stays_not_modelled() -> None:
    g3 = facts_from_config(
        load_config(ROOT / "fixtures" / "memory" / "configs" / "gemma3-text.json"),
        name="gemma3",
        source="test",
    )
    assert g3.not_modelled == () and g3.swa_attention_layers == ()
    # 0.4.10.x: model_runner's layer scan gives Gemma the SWA pool, nothing turns it off yet
    assert decide(g3, (0, 4, 10, 2), {}, attn_tp=1, kv_bytes=2).not_modelled
    for old_or_new in ((0, 4, 9), (0, 5, 1), (0, 5, 23)):
        assert decide(g3, old_or_new, {}, attn_tp=1, kv_bytes=2) == SwaDecision()
    g4 = facts_from_config(
        {
            "architectures": ["Gemma4ForConditionalGeneration"],
            "text_config": {
                "hidden_size": 2816,
                "num_hidden_layers": 30,
                "num_attention_heads": 16,
                "num_key_value_heads": 8,
                "head_dim": 256,
                "vocab_size": 262144,
            },
        },
        name="gemma4",
        source="test",
    )
    assert any("sliding-window" in w for w in g4.not_modelled)
    b = budget({"model_path": "g4", "mem_fraction_static": 0.85}, gpus=[PRESETS["h100"]], model=g4)
    assert b.kv_tokens is None and b.max_running_requests is None
    assert any(w.startswith("not modelled: sliding-window pool") for w in b.warnings)


def test_a_run_printing_an_swa_pool_is_compared_on_its_full_layer_tokens(tmp_path: Path) -> None:
    """Synthetic log (the catalog's sample lines): SGLang prints one KV line per sub-pool,
    the sliding one first; the comparison uses ``full_layer_tokens``."""
    log = tmp_path / "swa.log"
    log.write_text(
        "[2026-02-23 10:00:00 TP0] Load weight begin. avail mem=78.50 GB\n"
        "[2026-02-23 10:00:09 TP0] Load weight end. type=GptOssForCausalLM, dtype=torch.bfloat16,"
        " avail mem=16.00 GB, mem usage=62.50 GB.\n"
        "[2026-02-23 10:00:10 TP0] Use sliding window memory pool. full_layer_tokens=500000,"
        " swa_layer_tokens=400000\n"
        "[2026-02-23 10:00:10 TP0] KV Cache is allocated. #tokens: 400000, K size: 2.75 GB,"
        " V size: 2.75 GB\n"
        "[2026-02-23 10:00:10 TP0] KV Cache is allocated. #tokens: 500000, K size: 3.43 GB,"
        " V size: 3.43 GB\n",
        encoding="utf-8",
    )
    run = read_log(str(log)).runs[0]
    rep = reported_from_run(run)
    assert (rep["kv_tokens"], rep["swa_tokens"]) == (500000, 400000)
    b = budget_for_run(run, args=ARGS, model=GPT_OSS, sglang_version="0.5.23")
    assert b.reported is not None
    assert b.reported["swa_tokens_error_pct"] is not None
    assert b.per_gpu.swa_tokens == int(b.per_gpu.kv_tokens * 0.8)


def test_dense_models_are_untouched() -> None:
    m = profile_facts("Qwen3-32B")
    assert m.swa_attention_layers == ()
    assert decide(m, (0, 5, 23), {}, attn_tp=1, kv_bytes=2).pool is None


def test_budget_text_and_json_show_the_sliding_window_tokens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python -m sglang.launch_server --model-path openai/gpt-oss-120b --mem-fraction-static 0.85"
    )
    base = ["budget", "-e", str(cmd), "--gpus", "1", "--gpu-memory", "h100"]
    base += ["--model-config", str(ROOT / "fixtures" / "memory" / "configs" / "gpt-oss.json")]
    for version, shown in (("0.5.23", True), ("0.5.7", False)):
        with pytest.raises(SystemExit):
            main([*base, "--sglang-version", version])
        text = capsys.readouterr().out
        assert ("sliding-window layer tokens" in text) is shown
        assert ("sliding-window pool of 0.5.23 (cell split)" in text) is shown
        assert ("gives gpt-oss the ordinary pool" in text) is not shown
    with pytest.raises(SystemExit):
        main([*base, "--sglang-version", "0.5.23", "--format", "json"])
    per_gpu = json.loads(capsys.readouterr().out)["per_gpu"]
    assert per_gpu["swa_tokens"] == int(per_gpu["kv_tokens"] * 0.8)


@pytest.mark.parametrize("ratio", [0, 1.5, "x", True, float("nan")])
def test_a_ratio_sglang_would_refuse_leaves_the_figures_out(ratio: Any) -> None:
    d = decide(GPT_OSS, (0, 5, 23), {"swa_full_tokens_ratio": ratio}, attn_tp=1, kv_bytes=2)
    assert d.pool is None and "swa-full-tokens-ratio" in d.not_modelled[0]


_JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.floats(allow_nan=True)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=examples(200), deadline=None)
@given(
    arch=st.sampled_from(
        ["GptOssForCausalLM", "Llama4ForConditionalGeneration", "MiMoV2FlashForCausalLM", "X"]
    ),
    layers=st.integers(0, 64),
    pattern=_JSONISH,
    extra=st.dictionaries(
        st.sampled_from(["swa_full_tokens_ratio", "page_size", "attention_backend", "pp_size"]),
        _JSONISH,
        max_size=3,
    ),
)
def test_swa_rules_never_raise_on_arbitrary_configs_and_args(
    arch: str, layers: int, pattern: Any, extra: dict[str, Any]
) -> None:
    key = "layer_types" if arch == "GptOssForCausalLM" else "hybrid_layer_pattern"
    ids = swa_layer_ids({key: pattern}, arch, layers)
    assert ids is None or all(0 <= i < layers for i in ids)
    m = GPT_OSS if arch == "GptOssForCausalLM" else profile_facts("Qwen3-32B")
    d = decide(m, (0, 5, 23), extra, attn_tp=1, kv_bytes=2)
    if d.pool is not None:
        full, swa = d.pool.tokens(10 * 2**30)
        assert 0 <= swa <= full


def test_confidence_names_the_swa_split_and_no_longer_the_bf16_mla_pool() -> None:
    assert "sliding-window pool split" in " ".join(_b("0.5.23").confidence["unvalidated"])
    assert "sliding-window" not in " ".join(_b("0.5.7").confidence["unvalidated"])
    ds = budget(
        {"model_path": "deepseek-ai/DeepSeek-R1", "tp_size": 8, "mem_fraction_static": 0.83},
        gpus=PRESETS["h200"],
        model=profile_facts("DeepSeek-V3"),
        sglang_version="0.5.23",
    )
    assert not any("MLA" in t for t in ds.confidence["unvalidated"])


def test_an_all_sliding_model_is_not_modelled() -> None:
    cfg = load_config(ROOT / "fixtures" / "memory" / "configs" / "gpt-oss.json")
    cfg = {**cfg, "layer_types": ["sliding_attention"] * 36}
    m = facts_from_config(cfg, name="all-swa", source="test")
    assert decide(m, (0, 5, 23), {}, attn_tp=1, kv_bytes=2).not_modelled
