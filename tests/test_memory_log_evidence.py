"""Issue 32, the last pieces: a run's own lines as evidence.

GPU facts (item 2): the capacity a log's OOM message states is the budget's GPU
(``sources.gpu = "log"``), and no verdict names a GPU the log contradicts. Model facts (item 1,
last tier): a run that printed its pool is priced by its own K/V sizes and weight lines
(``sources.model = "log"``) when they give back its #tokens within 1 %, else no figure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sglang_logscope.cli import main
from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.runs import Run
from sglang_logscope.memory.budget import budget
from sglang_logscope.memory.budget_types import Budget
from sglang_logscope.memory.confidence import verdict_words
from sglang_logscope.memory.from_inputs import budget_from_inputs
from sglang_logscope.memory.from_run import budget_for_run, measured_from_run
from sglang_logscope.memory.log_gpus import gpu_from_run
from sglang_logscope.memory.log_model import REPRODUCE_PCT, LoggedFiguresOff, model_from_run
from sglang_logscope.memory.models import ModelUnknown, profile_facts
from sglang_logscope.memory.oom_phase import oom_figures

ROOT = Path(__file__).resolve().parent.parent
LOGS = sorted(
    [
        *ROOT.glob("fixtures/real/*/server.log"),
        *ROOT.glob("fixtures/heldout/*/log"),
        *ROOT.glob("fixtures/memory/logs/*.log"),
        *ROOT.glob("fixtures/memory/cases/*/server.log"),
    ]
)
#: Any model will do to price a GPU: the GPU is what these tests judge.
ANY_MODEL = profile_facts("Llama-3.1-8B")


@pytest.fixture(autouse=True)
def _no_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No cache of this machine decides a test: both caches point at empty folders."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf"))
    monkeypatch.setenv("MODELSCOPE_CACHE", str(tmp_path / "empty-ms"))


def _gpu_naming_runs() -> list[tuple[str, Run]]:
    """Every run of a fixture log that names its GPU: a stated capacity or free memory."""
    out = []
    for path in LOGS:
        for run in read_log(str(path)).runs:
            if gpu_from_run(run) is not None or measured_from_run(run).f0_gib is not None:
                out.append((str(path.relative_to(ROOT)), run))
    return out


def _gpu_words(b: Budget) -> str:
    """The basis's words about the GPUs (the release's follow ', SGLang')."""
    return b.basis.split(", SGLang", 1)[0]


def _assert_not_contradicted(name: str, run: Run, b: Budget) -> None:
    stated = gpu_from_run(run)
    f0 = measured_from_run(run).f0_gib
    assert b.sources["gpu"] != "assumed" and "assumed" not in _gpu_words(b), (name, b.basis)
    assert "A6000" not in b.basis, (name, b.basis)
    if stated is not None:
        figures = oom_figures(run)
        assert figures is not None and figures.capacity is not None
        assert b.sources["gpu"] == "log", name
        assert f"{figures.capacity:.2f} GiB" in b.basis, (name, b.basis)
    if f0 is not None and stated is not None:  # the log's own free memory fits its capacity
        assert stated.total_gib >= f0, name


def test_the_oom_capacity_is_the_budgets_gpu() -> None:
    """Corpus 065 (2 x 32 GB AMD, HIP OOM 'total capacity of 31.86 GiB')."""
    run = read_log(str(ROOT / "fixtures/real/065/server.log")).runs[0]
    b = budget_for_run(run, model=ANY_MODEL)
    assert b.sources["gpu"] == "log"
    assert b.basis.startswith("2 x 31.86 GiB GPU (capacity from the log's OOM message")
    assert b.per_gpu.total_gib == pytest.approx(31.86, abs=0.005)
    assert "assumed" not in b.basis


def test_an_npu_oom_names_an_npu() -> None:
    run = read_log(str(ROOT / "fixtures/real/009/server.log")).runs[0]
    spec = gpu_from_run(run)
    assert spec is not None and spec.name == "60.96 GiB NPU" and spec.source == "log"


def test_a_log_without_a_capacity_names_no_gpu() -> None:
    """Corpus 091 states free memory only: no capacity is made up from it."""
    run = read_log(str(ROOT / "fixtures/real/091/server.log")).runs[0]
    assert gpu_from_run(run) is None


def test_no_verdict_names_a_gpu_the_log_contradicts() -> None:
    """Over every fixture log naming its GPU, the run's budget and a command's budget
    against the run (``budget --log LOG -e CMD``) price that GPU, never a default."""
    runs = _gpu_naming_runs()
    named = [n for n, r in runs if gpu_from_run(r) is not None]
    assert {"fixtures/real/065/server.log", "fixtures/real/050/server.log"} <= set(named)
    assert len(runs) >= 40
    for name, run in runs:
        if run.server_args is not None:
            _assert_not_contradicted(name, run, budget_for_run(run, model=ANY_MODEL))


def test_a_command_against_a_log_takes_the_logs_gpu(tmp_path: Path) -> None:
    """``budget --log LOG -e CMD`` with another tp than the run's: the log's capacity."""
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 4",
        encoding="utf-8",
    )
    for log in ("fixtures/real/050/server.log", "fixtures/real/051/server.log"):
        b = budget_from_inputs(expect_args=str(cmd), log=str(ROOT / log), run_index=None,
                               model_config=None, gpus=None, gpu_memory=None,
                               sglang_version=None)  # fmt: skip
        assert isinstance(b, Budget)
        assert b.sources["gpu"] == "log" and b.basis.startswith("4 x "), b.basis
        assert "assumed" not in _gpu_words(b), b.basis


def test_check_budgets_the_intended_command_on_the_logs_gpu(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2",
        encoding="utf-8",
    )
    with pytest.raises(SystemExit):
        main(
            [
                "check",
                "-e",
                str(cmd),
                "--format",
                "json",
                str(ROOT / "fixtures/real/065/server.log"),
            ]
        )
    b = json.loads(capsys.readouterr().out)["budget"]
    assert b["sources"]["gpu"] == "log" and "31.86 GiB GPU" in b["basis"]


# ------------------------------------------- item 1, last tier: the run's own printed figures


def _pool_printing_runs() -> list[tuple[str, Run]]:
    """Every run of a fixture log that prints its KV pool and its launch arguments."""
    return [
        (str(path.relative_to(ROOT)), run)
        for path in LOGS
        for run in read_log(str(path)).runs
        if run.first(EventKind.KV_CACHE_ALLOCATED) is not None and run.server_args is not None
    ]


def test_the_runs_own_figures_reproduce_its_tokens_or_no_figure() -> None:
    """Over every fixture log that prints its pool, with no config or cache: within 1 % of
    the printed #tokens, or declined; never another model's shapes."""
    priced_by_log = []
    for name, run in _pool_printing_runs():
        try:
            b = budget_for_run(run)
        except ModelUnknown as exc:
            assert "--model-config DIR" in str(exc), name
            continue
        assert not b.sources["model"].startswith("assumed"), name
        if b.sources["model"] == "log":
            priced_by_log.append(name)
            err = b.reported["kv_tokens_error_pct"]
            assert isinstance(err, float) and abs(err) <= REPRODUCE_PCT, (name, err)
    assert {"fixtures/real/037/server.log", "fixtures/heldout/005/log"} <= set(priced_by_log)


def test_a_run_priced_by_its_own_lines_says_so() -> None:
    """Corpus 037 (DeepSeek-R1-Distill-Qwen-7B, 0.4.2; no #tokens on its pool line, so
    ``max_total_num_tokens`` counts): the cell from K + V, the weights from the load lines."""
    run = read_log(str(ROOT / "fixtures/real/037/server.log")).runs[0]
    b = budget_for_run(run)
    assert b.sources["model"] == "log"
    assert b.sources["weights"].startswith("measured (log")
    assert b.per_gpu.kv_cell_bytes == round(5.64 * 2**30 / 105_531)
    assert b.kv_tokens == pytest.approx(105_531, rel=0.01)
    assert any("from the run's pool line" in a for a in b.assumptions)
    assert b.to_dict()["sources"]["model"] == "log"


def test_runs_own_figures_that_miss_its_tokens_give_no_figure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Heldout 018 (a pruned MoE AWQ): its own figures give +1.3 % tokens, so no figure; the
    CLI says what to pass and exits 2."""
    log = ROOT / "fixtures/heldout/018/log"
    with pytest.raises(LoggedFiguresOff, match=r"\+1\.\d+% off its printed #tokens"):
        budget_for_run(read_log(str(log)).runs[0])
    with pytest.raises(SystemExit) as exc:
        main(["budget", "--log", str(log), "--format", "json"])
    assert exc.value.code == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["fits"] is None and doc["advice"].startswith("--model-config DIR")


def test_pools_that_are_not_one_kv_cell_are_not_priced_from_the_log() -> None:
    """A mamba (hybrid) or speculative run's pool line is not one KV cell per token."""
    for log in ("fixtures/real/069/server.log", "fixtures/heldout/006/log"):
        run = read_log(str(ROOT / log)).runs[0]
        args = dict(run.server_args or {})
        assert model_from_run(run, args, tokens=1000, weights_known=True) is None, log
    run = read_log(str(ROOT / "fixtures/real/037/server.log")).runs[0]
    spec = {**(run.server_args or {}), "speculative_algorithm": "EAGLE"}
    assert model_from_run(run, spec, tokens=105_531, weights_known=True) is None
    assert (
        model_from_run(run, dict(run.server_args or {}), tokens=105_531, weights_known=False)
        is None
    )


def test_an_assumed_gpu_is_said_in_the_verdict_line() -> None:
    """Where nothing names the GPU, the default card is priced and the line says "assumed"."""
    b = budget({"model_path": "meta-llama/Llama-3.1-8B-Instruct", "tp_size": 2}, model=ANY_MODEL)
    line = verdict_words(b.to_dict())
    assert b.sources["gpu"] == "assumed"
    assert "2 x RTX A6000 48GB assumed" in line
