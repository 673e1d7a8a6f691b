"""GPU sizes and presets, model facts from configs and bundled profiles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang_logscope.errors import LogscopeError
from sglang_logscope.log.reader import read_log
from sglang_logscope.memory.from_run import budget_for_run
from sglang_logscope.memory.gpus import (
    PRESETS,
    GpuSpec,
    gpu_from_text,
    gpu_list,
    parse_size_mib,
)
from sglang_logscope.memory.models import (
    ModelUnknown,
    bundled_profiles,
    facts_from_config,
    match_profile,
    profile_facts,
    resolve_model,
)


@pytest.mark.parametrize(
    ("text", "mib"),
    [
        ("48GB", 49152),
        ("48GiB", 49152),
        ("49152MiB", 49152),
        ("48 gb", 49152),
        ("47.99GiB", 47.99 * 1024),
        ("1TB", 1024 * 1024),
        ("40", 40960),
    ],
)
def test_sizes(text: str, mib: float) -> None:
    assert parse_size_mib(text) == pytest.approx(mib)


@pytest.mark.parametrize("bad", ["", "48XB", "-4GB", "0GB", "GB48", "lots"])
def test_bad_sizes(bad: str) -> None:
    with pytest.raises(LogscopeError):
        gpu_from_text(bad)


def test_presets_and_aliases() -> None:
    assert gpu_from_text("a6000").total_mib == 49140
    assert gpu_from_text("RTX_A6000") == PRESETS["a6000"]
    assert gpu_from_text("A100-80GB") == PRESETS["a100-80g"]
    for key in ("a6000", "l40s", "a100-40g", "a100-80g", "h100", "h200", "rtx4090", "rtx3090"):
        assert key in PRESETS
    assert gpu_list(None, None) is None
    assert len(gpu_list(4, "h100") or []) == 4
    only_model = gpu_list(None, "80GB")  # the count then comes from tp x pp
    assert isinstance(only_model, GpuSpec) and only_model.total_mib == 81920
    with pytest.raises(LogscopeError):
        gpu_list(0, None)


def test_every_profile_names_its_source_and_loads() -> None:
    names = {p.name for p in bundled_profiles()}
    assert names >= {
        "Qwen3.6-27B",
        "Qwen3.5-27B",
        "Qwen3-Next-80B-A3B",
        "Qwen3-32B",
        "Llama-3.1-8B",
        "Llama-3.1-70B",
        "DeepSeek-V3",
    }
    for p in bundled_profiles():
        assert p.source.startswith("https://")
        assert profile_facts(p.name).params_language > 1e9


@pytest.mark.parametrize(
    ("name", "params_b"),
    # published totals: Qwen3-Next 79.67B (without MTP), DeepSeek-V3 671B (without MTP), Llama 8.03/70.55B, Qwen3-32B 32.8B
    [
        ("Qwen3-Next-80B-A3B", 79.674),
        ("DeepSeek-V3", 671.0),
        ("Llama-3.1-8B", 8.03),
        ("Llama-3.1-70B", 70.55),
        ("Qwen3-32B", 32.76),
    ],
)
def test_parameter_estimates_match_published_counts(name: str, params_b: float) -> None:
    assert profile_facts(name).params_language / 1e9 == pytest.approx(params_b, rel=0.005)


def test_qwen36_facts() -> None:
    m = profile_facts("Qwen3.6-27B")
    assert m.is_hybrid and m.is_multimodal
    assert m.full_attention_layers == tuple(range(3, 64, 4))
    assert m.num_linear_layers == 48
    assert m.params_language / 1e9 == pytest.approx(26.895, abs=0.01)
    assert m.params_mtp / 1e9 == pytest.approx(0.425, abs=0.005)
    assert m.vision_num_hidden_layers is None  # the vision config says 'depth'


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/root/models/Qwen3.6-27B", "Qwen3.6-27B"),
        ("/data/hub/models--mattbucci--Qwen3.6-27B-AWQ/snapshots/f54", "Qwen3.6-27B"),
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen3-Next-80B-A3B"),
        ("deepseek-ai/DeepSeek-R1", "DeepSeek-V3"),
        ("meta-llama/Llama-3.1-8B-Instruct", "Llama-3.1-8B"),
    ],
)
def test_profile_matching(path: str, name: str) -> None:
    p = match_profile(path)
    assert p is not None and p.name == name


def test_distill_models_do_not_match_deepseek_v3() -> None:
    assert match_profile("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B") is None


def test_resolve_model_prefers_config_then_local_dir_then_profile(tmp_path: Path) -> None:
    cfg = {
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 1024,
        "num_hidden_layers": 4,
        "num_attention_heads": 8,
        "num_key_value_heads": 2,
        "vocab_size": 1000,
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    m = resolve_model({"model_path": str(tmp_path)})
    assert m.num_layers == 4 and m.head_dim == 128
    m2 = resolve_model({"model_path": "/root/models/Qwen3.6-27B"}, tmp_path / "config.json")
    assert m2.num_layers == 4
    m3 = resolve_model({"model_path": "/root/models/Qwen3.6-27B-AWQ"})
    assert m3.quantization == "awq" and any("guessed" in n for n in m3.notes)
    with pytest.raises(LogscopeError, match="--model-config"):
        resolve_model({"model_path": "/nowhere/Mystery-9B"})
    with pytest.raises(LogscopeError, match="model config"):
        resolve_model({}, tmp_path / "missing.json")


def test_text_config_wins_in_multimodal_configs() -> None:
    cfg = {
        "architectures": ["X"],
        "hidden_size": 1,
        "text_config": {
            "hidden_size": 2048,
            "num_hidden_layers": 8,
            "num_attention_heads": 16,
            "vocab_size": 10,
        },
        "vision_config": {"num_hidden_layers": 12, "hidden_size": 768},
    }
    m = facts_from_config(cfg, name="x", source="test")
    assert m.hidden_size == 2048 and m.is_multimodal and m.vision_num_hidden_layers == 12
    with pytest.raises(LogscopeError):
        facts_from_config({"hidden_size": 4}, name="y", source="test")


def test_model_config_from_the_local_hf_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ORG/NAME`` is read from the HF cache's newest snapshot when no local dir exists."""
    src = Path(__file__).resolve().parent.parent / "fixtures/memory/cases/037/config.json"
    snap = tmp_path / "hub/models--deepseek-ai--DeepSeek-R1-Distill-Qwen-7B/snapshots/abc123"
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    facts = resolve_model({"model_path": "deepseek-ai/DeepSeek-R1-Distill-Qwen-7B"})
    assert facts.source == str(snap / "config.json")
    assert facts.num_layers == 28 and facts.num_kv_heads == 4
    with pytest.raises(LogscopeError, match="unknown model"):
        resolve_model({"model_path": "someone/not-cached-7B"})


def test_an_unknown_model_gets_no_figure_unless_a_substitute_is_asked_for(tmp_path: Path) -> None:
    """Issue 32 (replaces the nearest-profile-by-architecture fallback): corpus 069 with its
    model path made unknown is declined, not priced as the bundled profile of the log's
    architecture; ``assume_model`` substitutes on request, and says so."""
    src = Path(__file__).resolve().parent.parent / "fixtures/memory/cases/069/server.log"
    text = src.read_text(encoding="utf-8")
    old = "/data/cache/huggingface/hub/models--mattbucci--Qwen3.6-27B-AWQ/snapshots/f541031dfc1bf5da3f198b52b9bf44cbd5ceee49"
    assert old in text
    log = tmp_path / "server.log"
    log.write_text(text.replace(old, "/data/ckpt/local-run-7"), encoding="utf-8")
    run = read_log(str(log)).runs[0]
    with pytest.raises(ModelUnknown, match="--model-config DIR"):
        budget_for_run(run, sglang_version="0.5.15")
    b = budget_for_run(run, sglang_version="0.5.15", assume_model="Qwen3.6-27B")
    assert b.sources["model"].startswith("assumed: bundled profile Qwen3.6-27B (--assume-model")
    assert any("model assumed on request" in a for a in b.assumptions)
    known = budget_for_run(read_log(str(src)).runs[0], sglang_version="0.5.15")
    assert b.per_gpu.kv_tokens == known.per_gpu.kv_tokens  # same shapes, same measured figures
