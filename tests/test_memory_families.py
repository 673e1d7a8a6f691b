"""Families SGLang prices with pools this arithmetic does not model are said so, with the
figures left out (never a silent dense guess); checkpoints' quantization read from the config.

The configs under ``fixtures/memory/configs/`` are the reference configs of the transformers
library (its config classes' defaults, named in each ``_source``): no real log of these families
prints its pools with the figures needed to recompute them (corpus 033 and 053 lack them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.gpus import PRESETS
from sglang_logscope.memory.models import facts_from_config, profile_facts

CONFIGS = Path(__file__).resolve().parent.parent / "fixtures" / "memory" / "configs"


def _facts(name: str):  # type: ignore[no-untyped-def]
    cfg = json.loads((CONFIGS / f"{name}.json").read_text(encoding="utf-8"))
    return facts_from_config(cfg, name=name, source=cfg["_source"])


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("lfm2", "LFM2 short-conv state"),
        ("falcon-h1", "Mamba2 state"),
    ],
)
def test_unmodelled_families_leave_the_figures_out(name: str, label: str) -> None:
    model = _facts(name)
    assert any(label in n for n in model.not_modelled)
    b = budget(
        {"model_path": name, "mem_fraction_static": 0.85}, gpus=[PRESETS["h100"]], model=model
    )
    d = b.to_dict()
    assert d["per_gpu"]["kv_tokens"] is None and d["kv_tokens"] is None
    assert d["max_running_requests"] is None and d["concurrency_at_context"] is None
    assert any(w.startswith("not modelled: ") and label in w for w in b.warnings)
    assert d["not_modelled"] == list(model.not_modelled)


def test_gemma3_is_priced_dense_as_sglang_does() -> None:
    """Gemma 3 has sliding-window layers, but SGLang's ``is_hybrid_swa_model`` does not list
    it (0.5.9-0.5.23): its KV pool holds every layer in full, as corpus 033 prints (no SWA
    pool line), and this arithmetic prices it the same way."""
    model = _facts("gemma3-text")
    assert model.not_modelled == ()
    assert len(model.full_attention_layers) == model.num_layers == 26
    log = (
        Path(__file__).resolve().parent.parent / "fixtures/memory/cases/033/server.log"
    ).read_text(encoding="utf-8", errors="replace")
    assert "KV Cache is allocated" in log and "SWAKVPool" not in log and "sliding window" not in log


def test_plain_models_are_modelled() -> None:
    for name in ("Qwen3-32B", "Llama-3.1-8B", "Qwen3.6-27B", "DeepSeek-V3"):
        assert profile_facts(name).not_modelled == (), name


def test_mla_with_a_sparse_indexer_is_flagged() -> None:
    cfg = dict(profile_facts("DeepSeek-V3").to_dict())
    ds = json.loads(
        (
            Path(__file__).resolve().parent.parent / "sglang_logscope/data/models/deepseek-v3.json"
        ).read_text(encoding="utf-8")
    )["config"]
    assert cfg["mla"]
    v32 = facts_from_config({**ds, "index_topk": 2048}, name="v3.2", source="test")
    assert any("indexer" in n for n in v32.not_modelled)


@pytest.mark.parametrize(
    ("num_bits", "kind", "quant"),
    [(8, "float", "fp8"), (8, "int", "w8a8_int8"), (4, "int", "compressed-tensors")],
)
def test_compressed_tensors_is_priced_by_its_weight_bits(
    num_bits: int, kind: str, quant: str
) -> None:
    base = json.loads(
        (
            Path(__file__).resolve().parent.parent / "sglang_logscope/data/models/qwen3-32b.json"
        ).read_text(encoding="utf-8")
    )["config"]
    qc = {
        "quant_method": "compressed-tensors",
        "config_groups": {"group_0": {"weights": {"num_bits": num_bits, "type": kind}}},
    }
    assert (
        facts_from_config({**base, "quantization_config": qc}, name="q", source="t").quantization
        == quant
    )


@pytest.mark.parametrize(
    ("extra", "label"),
    [
        # synthetic: no public Nemotron-H / Kimi-Linear config is in the fixtures; the markers
        # are the fields their configs carry (hybrid_override_pattern, linear_attn_config)
        (
            {"architectures": ["NemotronHForCausalLM"], "hybrid_override_pattern": "M-M-M*-"},
            "Mamba2 state",
        ),
        (
            {"architectures": ["KimiLinearForCausalLM"], "linear_attn_config": {"kda_layers": [1]}},
            "Kimi-Linear KDA state",
        ),
    ],
)
def test_other_state_hybrids_are_flagged(extra: dict[str, object], label: str) -> None:
    base = json.loads(
        (
            Path(__file__).resolve().parent.parent / "sglang_logscope/data/models/qwen3-32b.json"
        ).read_text(encoding="utf-8")
    )["config"]
    model = facts_from_config({**base, **extra}, name="synthetic", source="test")
    assert any(label in n for n in model.not_modelled)
