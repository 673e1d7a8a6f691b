"""'Is this OOM real?': real, ghost, contention, unexplained."""

from __future__ import annotations

from pathlib import Path

from sglang_logscope import read_log
from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.from_run import budget_for_run, version_for_run
from sglang_logscope.memory.gpus import PRESETS
from sglang_logscope.memory.verdict import OomVerdictKind, oom_verdict

LOGS = Path(__file__).resolve().parent.parent / "fixtures" / "memory" / "logs"


def _run(name: str):  # type: ignore[no-untyped-def]
    return read_log(str(LOGS / name)).runs[-1]


def test_worked_example_log_is_real_and_uses_the_run_numbers() -> None:
    run = _run("not_enough_memory_059.log")
    v = oom_verdict(run, stale=False, intended_budget=None)
    assert v is not None and v.verdict is OomVerdictKind.REAL
    assert "17.20 GiB" in v.explanation and "15.80" in v.explanation
    b = budget_for_run(run)
    assert b.sglang_version == "0.5.9"  # from the error text's wording
    assert b.sources["f0"].startswith("measured") and b.per_gpu.f0_gib == 46.99
    assert b.per_gpu.weights_gib == 25.55
    assert b.reported is not None and b.reported["kv_tokens"] is None  # nothing printed: it died


def test_ghost_says_whether_the_intended_command_fits() -> None:
    run = _run("not_enough_memory_059.log")
    intended = budget(
        {
            "model_path": "/root/models/Qwen3.6-27B",
            "tp_size": 2,
            "mem_fraction_static": 0.88,
            "max_running_requests": 16,
            "speculative_algorithm": "NEXTN",
            "context_length": 32768,
        },
        gpus=[PRESETS["a6000"]] * 2,
        sglang_version="0.5.9",
    )
    v = oom_verdict(run, stale=True, intended_budget=intended)
    assert v is not None and v.verdict is OomVerdictKind.GHOST
    assert "would fit" in v.explanation
    assert v.to_dict()["verdict"] == "ghost"


def test_unbalanced_ranks_are_contention() -> None:
    v = oom_verdict(_run("contention_ranks.log"), stale=False, intended_budget=None)
    assert v is not None and v.verdict is OomVerdictKind.CONTENTION
    assert "TP1" in v.explanation


def test_low_f0_against_printed_capacity_is_contention(tmp_path: Path) -> None:
    text = (
        (LOGS / "cuda_oom_after_pools.log")
        .read_text()
        .replace("avail mem=46.99", "avail mem=30.00")
        .replace("avail mem=21.44", "avail mem=4.45")
    )
    (tmp_path / "x.log").write_text(text)
    v = oom_verdict(read_log(str(tmp_path / "x.log")).runs[-1], stale=False, intended_budget=None)
    assert v is not None and v.verdict is OomVerdictKind.CONTENTION
    assert "47.54" in v.explanation


def test_cuda_oom_with_small_slack_is_real() -> None:
    v = oom_verdict(_run("cuda_oom_after_pools.log"), stale=False, intended_budget=None)
    assert v is not None and v.verdict is OomVerdictKind.REAL
    assert "slack" in v.explanation


def test_runs_without_oom_get_no_verdict() -> None:
    case = (
        Path(__file__).resolve().parent.parent
        / "fixtures"
        / "memory"
        / "cases"
        / "069"
        / "server.log"
    )
    assert oom_verdict(read_log(str(case)).runs[-1], stale=False, intended_budget=None) is None


def test_unexplained_when_the_arithmetic_fits(tmp_path: Path) -> None:
    text = (
        (LOGS / "not_enough_memory_059.log")
        .read_text()
        .replace("max_running_requests=48", "max_running_requests=8")
    )
    (tmp_path / "x.log").write_text(text)
    v = oom_verdict(read_log(str(tmp_path / "x.log")).runs[-1], stale=False, intended_budget=None)
    assert v is not None and v.verdict is OomVerdictKind.UNEXPLAINED


def test_error_wording_dates_the_release(tmp_path: Path) -> None:
    """'self.server_args.mem_fraction_static=' is 0.5.5-0.5.9; the bare wording is 0.4.x-0.5.2
    or 0.5.11+ (audit item 4): without a narrower hint from the log, 0.5.11 and the doubt."""
    src = (LOGS / "not_enough_memory_059.log").read_text(encoding="utf-8")
    run = read_log(str(LOGS / "not_enough_memory_059.log")).runs[-1]
    version, note = version_for_run(run, None)
    assert version == "0.5.9" and note is not None and "0.5.5-0.5.9" in note
    bare = tmp_path / "bare.log"
    bare.write_text(
        src.replace(" Current value: self.server_args.mem_fraction_static=0.88", ""),
        encoding="utf-8",
    )
    version, note = version_for_run(read_log(str(bare)).runs[-1], None)
    assert version == "0.5.11" and note is not None and "0.4.x-0.5.2 and 0.5.11+" in note
