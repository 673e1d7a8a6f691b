"""Real SGLang logs (fixtures/real/NNN, copied from public threads with their source URL).

One test per case: the run count, the last run's outcome and failure, and the key figures the
log shows. Truncated excerpts are held to what they do show (see each meta.json's notes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sglang_logscope import read_log
from sglang_logscope.events import Event, EventKind
from sglang_logscope.log.reader import Log

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "real"

# An expected event: (kind, rank label or None for "any", fields it must carry).
Expect = tuple[str, "str | None", Mapping[str, Any]]


@dataclass(frozen=True)
class Case:
    runs: int
    outcome: str
    failure: str | None = None
    failure_line: int | None = None
    message: str = ""
    effective: Mapping[str, Any] = field(default_factory=dict)
    args: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[Expect, ...] = ()
    counts: Mapping[str, int] = field(default_factory=dict)
    hint: str | None = None


SCHED = ("scheduler_exception", None, {"process": "Scheduler"})

CASES: dict[str, Case] = {
    "002": Case(
        1,
        "crashed",
        "exception",
        1,
        "triton.compiler.errors.CompilationError",
        events=(("sigquit", None, {}),),
    ),
    "003": Case(
        2,
        "starting",
        args={
            "tp_size": 1,
            "mem_fraction_static": 0.88,
            "context_length": 4096,
            "chunked_prefill_size": 2048,
        },
        events=(("scheduler_exception", "TP0", {"process": "Scheduler"}),),
    ),
    "005": Case(
        1,
        "starting",
        args={"model_path": "Qwen/Qwen3-Next-80B-A3B-Thinking"},
        events=(("server_args", None, {}),),
    ),
    "006": Case(
        1,
        "starting",
        args={"model_path": "/app/models/Qwen3-Next-80B-A3B-Instruct"},
        events=(("args_adjusted", None, {"page_size": 128, "sets": {"page_size": 128}}),),
    ),
    "007": Case(
        1,
        "crashed",
        "exception",
        1,
        "AssertionError",
        events=(
            ("scheduler_exception", "TP7", {"exc_type": "AssertionError"}),
            ("scheduler_exception", "TP0", {"process": "Scheduler"}),
        ),
        counts={"scheduler_exception": 2},
    ),
    "008": Case(
        1,
        "crashed",
        "exception",
        2,
        events=(("sigquit", None, {}), ("scheduler_exception", "TP3", {})),
    ),
    "009": Case(
        1,
        "crashed",
        "cuda_oom",
        1,
        "NPU out of memory",
        events=(
            (
                "cuda_oom",
                None,
                {
                    "device": "NPU",
                    "tried": "98.71 GiB",
                    "gpu": 0,
                    "capacity": "60.96 GiB",
                    "free": "35.47 GiB",
                },
            ),
            ("sigquit", None, {}),
        ),
    ),
    "010": Case(
        1,
        "crashed",
        "exception",
        2,
        "router init state",
        events=(("scheduler_exception", None, {"process": "router"}),),
    ),
    "011": Case(1, "crashed", "exception", 1, events=(("scheduler_exception", "TP0", {}),)),
    "012": Case(
        1,
        "starting",
        args={
            "model_path": "Qwen/Qwen2.5-0.5B-Instruct-AWQ",
            "dp_size": 8,
            "mem_fraction_static": 0.01,
        },
    ),
    "015": Case(
        1,
        "crashed",
        "cuda_oom",
        1,
        "Capture cuda graph failed: CUDA out of memory",
        events=(("cuda_oom", None, {"tried": "448.00 MiB", "gpu": 7, "exc_type": "Exception"}),),
    ),
    "016": Case(
        1,
        "crashed",
        "exception",
        3,
        events=(
            ("memory_pool_end", "TP0", {"avail_gib": 8.38}),
            ("cuda_graph_begin", "TP0", {"graph": "cuda"}),
            ("exception", "TP0", {}),
        ),
    ),
    "018": Case(
        1,
        "crashed",
        "exception",
        2,
        events=(
            (
                "http_access",
                None,
                {"method": "POST", "status": 200, "path": "/v1/chat/completions"},
            ),
            ("scheduler_exception", "TP0", {}),
        ),
    ),
    "019": Case(1, "starting", args={"model_path": "../DeepSeek-R1-Distill-Qwen-32B/"}),
    "020": Case(1, "crashed", "exception", 1, events=(("scheduler_exception", "TP1", {}),)),
    "021": Case(1, "crashed", "exception", 1, events=(("exception", None, {"lineno": 4062}),)),
    "022": Case(
        1,
        "starting",
        events=(
            (
                "load_weight_end",
                "DP0 TP0",
                {
                    "model_class": "DeepseekV3ForCausalLM",
                    "avail_gib": 21.73,
                    "mem_usage_gib": 166.59,
                },
            ),
            ("args_adjusted", "DP7 TP7", {"requested": 131072, "max_total_num_tokens": -561981}),
        ),
        counts={"args_adjusted": 8},
    ),
    "023": Case(
        1,
        "crashed",
        "exception",
        1,
        "AttributeError: 'NoneType' object has no attribute",
        events=(("scheduler_exception", None, {"process": "ModelRpcClient"}),),
    ),
    "024": Case(1, "starting", args={"tp_size": 8, "mem_fraction_static": 0.9}),
    "025": Case(
        1,
        "crashed",
        "weights_leave_no_memory",
        3,
        "Loaded weights leave no GPU memory",
        effective={"mem_fraction_static": 0.88},
        events=(
            (
                "load_weight_end",
                None,
                {"quant": "fp8", "avail_gib": 12.25, "mem_usage_gib": 125.65},
            ),
        ),
    ),
    "026": Case(
        1,
        "starting",
        events=(
            ("load_weight_end", "TP0", {"avail_gib": 36.51}),
            ("memory_pool_end", "TP5", {"avail_gib": 22.0}),
            ("cuda_graph_begin", "TP1", {"graph": "cuda"}),
        ),
        counts={"memory_pool_end": 8},
    ),
    "027": Case(
        1,
        "starting",
        events=(
            (
                "kv_cache_allocated",
                "DP0 TP0 EP0",
                {"tokens": 2786325, "k_gib": 31.89, "v_gib": 31.89},
            ),
            ("memory_pool_end", "DP3 TP3 EP3", {"avail_gib": 34.27}),
            ("cuda_graph_begin", "DP1 TP1 EP1", {"avail_gib": 34.05}),
            ("cuda_graph_progress", "DP0 TP0 EP0", {}),
        ),
    ),
    "028": Case(
        1,
        "starting",
        events=(
            ("kv_cache_allocated", None, {"tokens": 2243474, "k_gib": 59.91}),
            (
                "cuda_graph_end",
                None,
                {"elapsed_s": 5.37, "mem_usage_gib": 1.44, "avail_gib": 38.05},
            ),
            ("cuda_graph_progress", None, {"bs": 1, "avail_gib": 38.07}),
        ),
    ),
    "029": Case(
        1,
        "starting",
        args={"model_path": "meta-llama/Llama-3.1-8B-Instruct", "mem_fraction_static": 0.88},
    ),
    "030": Case(1, "crashed", "exception", 1, events=(("scheduler_exception", None, {}),)),
    "031": Case(1, "crashed", "exception", 1, events=(("exception", None, {"lineno": 143}),)),
    "032": Case(1, "starting", events=(("weight_progress", None, {"format": "pt", "total": 1}),)),
    "033": Case(
        1,
        "starting",
        events=(
            (
                "load_weight_end",
                None,
                {
                    "model_class": "Gemma3ForConditionalGeneration",
                    "avail_gib": 21.49,
                    "mem_usage_gib": 17.51,
                },
            ),
            ("kv_cache_allocated", None, {"tokens": 22095, "k_gib": 5.23}),
            ("memory_pool_end", None, {"avail_gib": 10.63}),
            ("cuda_graph_begin", None, {"avail_gib": 10.11}),
        ),
    ),
    "034": Case(1, "crashed", "exception", 1, "RuntimeError: Sizes of tensors must match"),
    "036": Case(
        1,
        "crashed",
        "exception",
        2,
        events=(
            ("http_access", None, {"method": "POST", "path": "/generate"}),
            ("scheduler_exception", None, {"process": "Scheduler"}),
        ),
    ),
    "037": Case(
        1,
        "ready",
        hint=">=0.4.0",
        args={"tp_size": 1, "mem_fraction_static": 0.88, "chunked_prefill_size": 2048},
        events=(
            ("load_weight_begin", "TP0", {"avail_gib": 22.76}),
            (
                "load_weight_end",
                "TP0",
                {"model_class": "Qwen2ForCausalLM", "dtype": "torch.bfloat16", "avail_gib": 8.37},
            ),
            ("kv_cache_allocated", "TP0", {"k_gib": 2.82, "v_gib": 2.82}),
            ("memory_pool_end", "TP0", {"avail_gib": 1.68}),
            ("cuda_graph_end", "TP0", {"elapsed_s": 1.79}),
            (
                "token_summary",
                "TP0",
                {
                    "max_total_num_tokens": 105531,
                    "max_running_requests": 2049,
                    "context_len": 131072,
                },
            ),
            ("uvicorn_running", None, {"url": "http://0.0.0.0:30000"}),
            ("server_ready", None, {}),
        ),
        counts={"weight_progress": 4, "http_access": 3},
    ),
    "039": Case(
        1,
        "crashed",
        "exception",
        1,
        events=(("scheduler_exception", "DP0 TP0", {"process": "TpModelWorkerClient"}),),
    ),
    "040": Case(
        1,
        "crashed",
        "cuda_oom",
        3,
        "CUDA out of memory. Tried to allocate 73.65 GiB",
        events=(("cuda_oom", None, {"tried": "73.65 GiB", "gpu": 1, "free": "50.40 GiB"}),),
    ),
    # the 0.1.x router calls exit() right after this message (issue 17: was 'starting')
    "041": Case(
        1,
        "crashed",
        failure="exception",
        failure_line=1,
        message="Prefill out of memory",
        events=(("scheduler_dead", None, {}),),
    ),
    "043": Case(
        1,
        "starting",
        events=(
            (
                "load_weight_end",
                "TP1",
                {"elapsed_s": 654.79, "avail_gib": 19.08, "mem_usage_gib": 3.76},
            ),
            (
                "mamba_cache_allocated",
                "TP0",
                {"max_mamba_cache_size": 82, "conv_gib": 0.13, "ssm_gib": 7.29},
            ),
            ("kv_cache_allocated", "TP1", {"tokens": 580364, "k_gib": 4.15}),
            (
                "token_summary",
                "TP0",
                {
                    "max_total_num_tokens": 580364,
                    "max_running_requests": 1,
                    "available_gpu_gib": 3.63,
                },
            ),
        ),
    ),
    "044": Case(1, "crashed", "exception", 1, events=(("exception", None, {"lineno": 863}),)),
    "046": Case(
        1,
        "crashed",
        "exception",
        2,
        events=(("sigquit", None, {}), ("scheduler_exception", "TP0", {})),
    ),
    "047": Case(
        1,
        "crashed",
        "exception",
        7,
        events=(("scheduler_exception", "TP0", {"process": "TpModelWorkerClient"}),),
    ),
    "048": Case(1, "crashed", "exception", 1),
    "049": Case(
        1,
        "crashed",
        "exception",
        1,
        events=(("scheduler_exception", None, {"process": "ControllerSingle"}),),
    ),
    "050": Case(
        1,
        "crashed",
        "cuda_oom",
        2,
        "Failed to initialize lk_moe: CUDA out of memory",
        events=(
            ("weight_progress", None, {"percent": 100, "done": 142}),
            (
                "cuda_oom",
                "TP1",
                {"tried": "24.00 MiB", "gpu": 1, "capacity": "47.37 GiB", "free": "4.31 MiB"},
            ),
        ),
    ),
    "051": Case(
        1,
        "crashed",
        "cuda_oom",
        1,
        "torch.OutOfMemoryError: CUDA out of memory",
        events=(
            (
                "cuda_oom",
                None,
                {
                    "tried": "32.00 MiB",
                    "gpu": 0,
                    "capacity": "23.52 GiB",
                    "free": "13.00 MiB",
                    "process_usage": "23.48 GiB",
                },
            ),
        ),
    ),
    "053": Case(
        1,
        "completed",  # sglang.bench_one_batch ran to its end (issue 17)
        hint="0.5.9-0.5.12",
        events=(
            ("bench_result", None, {"latency_s": 5.225, "throughput": 2351.56}),
            ("args_adjusted", None, {"sets": {"disable_overlap_schedule": True}}),
            ("load_weight_begin", "TP0", {"avail_gib": 15.33}),
            (
                "load_weight_end",
                "TP0",
                {"model_class": "Lfm2ForCausalLM", "avail_gib": 13.81, "mem_usage_gib": 1.52},
            ),
            (
                "mamba_cache_allocated",
                "TP0",
                {"max_mamba_cache_size": 85292, "conv_gib": 4.88, "ssm_gib": 0.0},
            ),
            ("kv_cache_allocated", "TP0", {"tokens": 473854}),
            ("cuda_graph_progress", "TP0", {"bs": [1, 2, 4, 8]}),
            ("cuda_graph_end", "TP0", {"elapsed_s": 1.01, "avail_gib": 2.39}),
            ("token_summary", None, {"max_total_num_tokens": 473854}),
        ),
    ),
    "054": Case(
        1,
        "starting",
        events=(
            ("load_weight_begin", "TP1", {"avail_gib": 22.93}),
            (
                "load_weight_end",
                "TP0",
                {"elapsed_s": 5.54, "avail_gib": 14.08, "mem_usage_gib": 8.85},
            ),
            ("mamba_cache_allocated", "TP1", {"max_mamba_cache_size": 186, "ssm_gib": 4.38}),
            ("kv_cache_allocated", "TP0", {"tokens": 327310, "k_gib": 2.5}),
            (
                "cuda_graph_end",
                "TP1",
                {"elapsed_s": 4.78, "mem_usage_gib": 0.26, "avail_gib": 3.79},
            ),
            (
                "token_summary",
                "TP0",
                {"max_total_num_tokens": 327310, "max_running_requests": 62, "context_len": 262144},
            ),
        ),
        counts={"weight_progress": 6, "dist_init_end": 2},
    ),
    "055": Case(
        1,
        "ready",
        hint=">=0.5.15",
        events=(
            ("attention_backend", None, {"backend": "flashinfer"}),
            (
                "load_weight_end",
                None,
                {"elapsed_s": 353.55, "avail_gib": 59.87, "mem_usage_gib": 51.86},
            ),
            (
                "kv_cache_allocated",
                None,
                {"dtype": "torch.bfloat16", "tokens": 535124, "k_gib": 16.33},
            ),
            ("cuda_graph_end", None, {"graph": "target decode CUDA", "elapsed_s": 30.54}),
            ("token_summary", None, {"max_total_num_tokens": 535124, "max_running_requests": 32}),
            ("decode_batch", None, {"running_req": 1, "gen_throughput": 1.64}),
        ),
    ),
    "057": Case(
        1,
        "starting",
        events=(
            ("dist_init_end", "TP0", {"elapsed_s": 3.75, "mem_usage_gib": 1.16}),
            ("dist_init_end", "TP1", {"elapsed_s": 1.38}),
        ),
    ),
    "058": Case(1, "unknown"),
    "059": Case(
        1,
        "starting",
        hint="0.4.5-0.4.6",
        events=(
            (
                "args_adjusted",
                "TP1",
                {"mem_fraction_static": 0.783, "sets": {"mem_fraction_static": 0.783}},
            ),
            ("args_adjusted", "TP1", {"sets": {"chunked_prefill_size": -1}}),
            ("dist_init_end", "TP0", {"mem_usage_gib": 0.11}),
            ("load_weight_begin", "TP1", {"avail_gib": 21.4}),
        ),
    ),
    "061": Case(1, "crashed", "exception", 1, "requests.exceptions.ConnectionError"),
    "062": Case(
        1, "starting", args={"model_path": "meta-llama/Llama-3.2-3B-Instruct", "tp_size": 1}
    ),
    "063": Case(
        1,
        "starting",
        events=(
            ("args_adjusted", "TP0", {"sets": {"mem_fraction_static": 0.76}}),
            ("dist_init_begin", "TP0", {}),
            ("load_weight_begin", "TP0", {"avail_gib": 22.46}),
            ("weight_progress", None, {"percent": 50, "done": 2, "total": 4}),
        ),
    ),
    "064": Case(1, "unknown"),
    "065": Case(
        1,
        "crashed",
        "cuda_oom",
        38,
        "CUDA out of memory. Tried to allocate 384.00 MiB",
        hint=">=0.5.10",
        args={
            "tp_size": 2,
            "mem_fraction_static": 0.85,
            "context_length": 262144,
            "kv_cache_dtype": "fp8_e4m3",
            "quantization": "awq",
            "disable_cuda_graph": True,
        },
        events=(
            ("launch_warning", None, {"lineno": 54}),
            ("args_adjusted", None, {"sets": {"disable_overlap_schedule": True}}),
            ("dist_init_end", "TP1", {"elapsed_s": 2.76, "mem_usage_gib": 0.3}),
            ("load_weight_begin", "TP0", {"avail_gib": 31.42}),
            (
                "cuda_oom",
                "TP1",
                {
                    "process": "Scheduler",
                    "tried": "384.00 MiB",
                    "gpu": 1,
                    "capacity": "31.86 GiB",
                    "free": "124.00 MiB",
                },
            ),
            ("sigquit", None, {}),
        ),
    ),
    "067": Case(
        1,
        "crashed",
        "exception",
        60,
        "KeyError: 'model.layers.0.mlp.experts.w2_qweight'",
        hint=">=0.5.10",
        args={"tp_size": 2, "mem_fraction_static": 0.85},
        events=(
            ("load_weight_begin", "TP1", {"avail_gib": 31.46}),
            ("scheduler_exception", "TP0", {"exc_type": "KeyError"}),
            ("scheduler_exception", "TP1", {"exc_type": "KeyError"}),
        ),
        counts={"scheduler_exception": 2},
    ),
    "069": Case(
        1,
        "ready",
        hint="0.5.10-0.5.12",
        args={"tp_size": 2, "mem_fraction_static": 0.85, "context_length": 262144},
        events=(
            (
                "load_weight_end",
                "TP0",
                {
                    "elapsed_s": 12.03,
                    "quant": "awq",
                    "bits": 4,
                    "avail_gib": 17.0,
                    "mem_usage_gib": 14.49,
                },
            ),
            (
                "mamba_cache_allocated",
                "TP1",
                {"max_mamba_cache_size": 40, "conv_gib": 0.11, "ssm_gib": 5.77},
            ),
            ("kv_cache_allocated", "TP0", {"tokens": 422310, "k_gib": 3.22}),
            ("memory_pool_end", "TP1", {"avail_gib": 4.62}),
            (
                "token_summary",
                "TP0",
                {
                    "max_total_num_tokens": 422310,
                    "max_running_requests": 13,
                    "available_gpu_gib": 4.49,
                },
            ),
            ("uvicorn_started", None, {"pid": 25892}),
            ("server_ready", None, {}),
            ("prefill_batch", "TP0", {"new_token": 80, "mamba_usage": 0.05}),
            ("decode_batch", "TP0", {"full_token": 89, "mamba_num": 2}),
        ),
    ),
    "071": Case(
        1,
        "crashed",
        "not_enough_memory",
        2,
        "Not enough memory",
        effective={"mem_fraction_static": 0.82},
        events=(("scheduler_dead", None, {"rank": 0}),),
    ),
    # 090/091: startup excerpts (no server_args line, no 'fired up') of a raw-data appendix.
    "090": Case(
        1,
        "starting",
        hint=">=0.5.15",
        events=(
            ("load_weight_begin", None, {"avail_gib": 78.48}),
            ("load_weight_end", None, {"model_class": "Qwen3MoeForCausalLM", "quant": "fp8"}),
            ("kv_cache_allocated", None, {"tokens": 392920, "k_gib": 17.99}),
            ("token_summary", None, {"max_total_num_tokens": 392920, "max_running_requests": 4096}),
        ),
    ),
    "091": Case(
        1,
        "starting",
        events=(
            ("load_weight_begin", "TP1", {"avail_gib": 77.33}),
            (
                "load_weight_end",
                "TP0",
                {"model_class": "DeepseekV3ForCausalLM", "avail_gib": 74.15},
            ),
            ("kv_cache_allocated", "TP7", {"tokens": 932468}),
            (
                "token_summary",
                "TP0",
                {"max_total_num_tokens": 932468, "max_running_requests": 2913},
            ),
        ),
        counts={"load_weight_begin": 8, "kv_cache_allocated": 8},
    ),
}


def _matches(event: Event, rank: str | None, fields: Mapping[str, Any]) -> bool:
    if rank is not None and (event.rank is None or event.rank.label != rank):
        return False
    return all(k in event.fields and _same(v, event.fields[k]) for k, v in fields.items())


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and all(
            k in actual and _same(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, float):
        return isinstance(actual, float) and abs(expected - actual) < 1e-9
    return bool(expected == actual)


@pytest.fixture(scope="module")
def logs() -> dict[str, Log]:
    return {case: read_log(FIXTURES / case / "server.log") for case in CASES}


def test_every_fixture_has_a_case_and_provenance() -> None:
    on_disk = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
    assert on_disk == sorted(CASES)
    for case in on_disk:
        meta = json.loads((FIXTURES / case / "meta.json").read_text(encoding="utf-8"))
        assert meta["source"].strip()


@pytest.mark.parametrize("case", sorted(CASES))
def test_real_log(case: str, logs: dict[str, Log]) -> None:
    expected = CASES[case]
    log = logs[case]
    runs = log.runs
    assert len(runs) == expected.runs, [(r.first_line, r.last_line) for r in runs]
    last = runs[-1]
    assert last.outcome.value == expected.outcome
    if expected.failure is None:
        assert last.failure is None, last.failure
    else:
        assert last.failure is not None
        assert last.failure.kind.value == expected.failure
        assert last.failure.line == expected.failure_line
        assert expected.message in last.failure.message
        assert dict(last.failure.effective) == dict(expected.effective)
    if expected.args:
        assert last.server_args is not None
        assert {k: last.server_args.get(k) for k in expected.args} == dict(expected.args)
    for kind, rank, fields in expected.events:
        candidates = [e for e in log.events if e.kind is EventKind(kind)]
        assert any(_matches(e, rank, fields) for e in candidates), (
            kind,
            rank,
            [(e.rank and e.rank.label, dict(e.fields)) for e in candidates][:5],
        )
    for kind, count in expected.counts.items():
        assert sum(e.kind is EventKind(kind) for e in log.events) == count, kind
    if expected.hint is not None:
        assert last.release_hint == expected.hint


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_line_belongs_to_exactly_one_event(case: str, logs: dict[str, Log]) -> None:
    raw = (FIXTURES / case / "server.log").read_bytes()
    n_lines = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    covered = [n for e in logs[case].events for n in range(e.line, e.end_line + 1)]
    assert covered == list(range(1, n_lines + 1))
