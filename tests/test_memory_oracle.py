"""Our era rules held to SGLang's own argument resolution.

``fixtures/memory/oracle/sglang-VERSION.json`` are golden files written by
``scripts/sglang_oracle.py``: each release's ``ServerArgs`` resolved the launches on mocked device
facts (GPU name and capacity) in a throwaway venv. SGLang is never imported here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import regex

from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.eras import piecewise_sizes
from sglang_logscope.memory.gpus import GpuSpec
from sglang_logscope.memory.models import facts_from_config

ORACLE = Path(__file__).resolve().parent.parent / "fixtures" / "memory" / "oracle"
MODELS = Path(__file__).resolve().parent.parent / "sglang_logscope" / "data" / "models"
#: Releases whose goldens must exist (the issue's list).
REQUIRED = {"0.4.6.post5", "0.5.2", "0.5.9", "0.5.14", "0.5.17", "0.5.23"}
#: Also recorded: 0.5.10 and 0.5.13.post1 (the +4 GiB EAGLE reserve and 0.717 of audit item 1).


def _goldens() -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for f in sorted(ORACLE.glob("sglang-*.json")):
        doc = json.loads(f.read_text(encoding="utf-8"))
        for case_id, case in sorted(doc["cases"].items()):
            out.append((doc["sglang_version"], case_id, case))
    return out


GOLDENS = _goldens()


def test_goldens_cover_the_required_releases() -> None:
    have = {v for v, _, _ in GOLDENS}
    assert have >= REQUIRED, sorted(REQUIRED - have)


_DECODE = regex.compile(r"decode=PhaseConfig\(backend='\w+', max_bs=(\d+), bs=\[([\d, ]*)\]")


def decode_graphs(resolved: dict[str, Any]) -> tuple[int | None, list[int] | None]:
    """The decode CUDA-graph max batch size and capture list SGLang resolved: flat fields until
    0.5.13, ``cuda_graph_config.decode`` from 0.5.14 (its repr in the 0.5.14-0.5.17 goldens)."""
    cfg = resolved.get("cuda_graph_config")
    if isinstance(cfg, dict):
        return cfg["decode"]["max_bs"], cfg["decode"]["bs"]
    if isinstance(cfg, str):
        m = _DECODE.search(cfg)
        assert m is not None, cfg[:120]
        return int(m.group(1)), [int(x) for x in m.group(2).split(",") if x.strip()]
    return resolved.get("cuda_graph_max_bs"), resolved.get("cuda_graph_bs")


_PREFILL = regex.compile(r"prefill=PhaseConfig\(backend='\w+', max_bs=(\d+), bs=\[([\d, ]*)\]")


def _prefill_graphs(resolved: dict[str, Any]) -> tuple[int, list[int]] | None:
    cfg = resolved.get("cuda_graph_config")
    if isinstance(cfg, dict):
        return cfg["prefill"]["max_bs"], cfg["prefill"]["bs"]
    if isinstance(cfg, str):
        m = _PREFILL.search(cfg)
        assert m is not None, cfg[:120]
        return int(m.group(1)), [int(x) for x in m.group(2).split(",") if x.strip()]
    if resolved.get("piecewise_cuda_graph_tokens"):
        return resolved["piecewise_cuda_graph_max_tokens"], resolved["piecewise_cuda_graph_tokens"]
    return None


def test_prefill_graph_sizes_the_reserve_counts_match_sglang() -> None:
    """The default-mfs reserve adds 8 MiB per prefill (piecewise) graph size: the count must be
    the length of the list SGLang resolved (0.5.9-0.5.13 flat, 0.5.14+ ``prefill``)."""
    checked = 0
    for version, case_id, case in GOLDENS:
        got = _prefill_graphs(case.get("resolved", {}))
        if got is None:
            continue
        max_tokens, sizes = got
        assert piecewise_sizes(max_tokens) == len(sizes), (version, case_id)
        checked += 1
    assert checked >= 40


def test_every_golden_records_decode_graph_sizes() -> None:
    """From 0.5.3 SGLang resolves the capture list in ServerArgs; the goldens must carry it."""
    for version, case_id, case in GOLDENS:
        if "error" in case or version in ("0.4.6.post5", "0.5.2"):
            continue
        max_bs, capture = decode_graphs(case["resolved"])
        assert max_bs is not None and capture and capture[-1] == max_bs, (version, case_id)


def _ours(version: str, case: dict[str, Any]) -> Any:
    profile = json.loads((MODELS / f"{case['model']}.json").read_text(encoding="utf-8"))
    model = facts_from_config(profile["config"], name=profile["name"], source="profile")
    args = {"model_path": f"/models/{case['model']}", **case["args"]}
    gpu = GpuSpec(case["device"]["name"], case["device"]["total_mib"], "given")
    return budget(args, gpus=gpu, model=model, sglang_version=version, explicit=set(args))


@pytest.mark.parametrize(
    ("version", "case_id", "case"), GOLDENS, ids=[f"{v}-{c}" for v, c, _ in GOLDENS]
)
def test_default_mfs_and_resets_match_sglang(version: str, case_id: str, case: Any) -> None:
    if "not compatible with radix cache" in case.get("error", ""):
        # 0.5.10-0.5.13 refuse spec decoding with the hybrid radix cache in no_buffer mode
        assert any("refuses speculative decoding" in w for w in _ours(version, case).warnings)
        return
    if "error" in case:
        pytest.skip(f"SGLang {version} refuses this launch: {case['error'][:80]}")
    want = case["resolved"]
    b = _ours(version, case)
    assert b.inputs["mem_fraction_static"] == pytest.approx(want["mem_fraction_static"], abs=6e-4)
    assert b.inputs["max_running_requests"] == want["max_running_requests"]
    assert b.inputs["chunked_prefill_size"] == want["chunked_prefill_size"]
    max_bs, capture = decode_graphs(want)
    # before 0.5.3 ServerArgs sets max_bs on small GPUs only and leaves the list to the runner
    assert b.inputs["cuda_graph_max_bs"] == max_bs
    assert b.inputs["cuda_graph_bs"] == capture
    if b.per_gpu.mamba_slot_bytes and b.era.value not in ("P4", "P5"):
        # before 0.5.9 the hybrid radix switch lives in the model runner, not in ServerArgs
        assert (b.inputs["radix_cache"] == "off") == bool(want["disable_radix_cache"])
