"""The held-out real logs of issue 17 (fixtures/heldout/NNN: whole log files committed in public
repositories, with the outcome a person read from each in its meta.json)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.runs import Outcome
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.staleness.judge import check

HELDOUT = Path(__file__).resolve().parent.parent / "fixtures" / "heldout"
FOLDERS = sorted(p for p in HELDOUT.iterdir() if (p / "log").is_file())


def _kind_at(events: list, line: int) -> EventKind:  # type: ignore[type-arg]
    return next(e.kind for e in events if e.line == line)


def test_a_test_harness_assertion_after_ready_is_foreign() -> None:
    """heldout/001 (an Ascend nightly perf test): after 'fired up' the harness prints its
    AssertionError (throughput below the bar) and unittest's retry() error, through
    sglang/test/test_utils.py and the srt/utils retry helper the test package borrows: two
    foreign tracebacks; the run stays ready."""
    log = read_log(HELDOUT / "001" / "log")
    assert _kind_at(log.events, 1015) is EventKind.FOREIGN_TRACEBACK
    assert _kind_at(log.events, 1038) is EventKind.FOREIGN_TRACEBACK
    run = log.runs[-1]
    assert run.outcome is Outcome.READY and run.failure is None


def test_a_test_harness_launch_timeout_before_ready_is_foreign() -> None:
    """heldout/004: the prefill node hangs in distributed init ('[Gloo] Rank 8 is NOT
    connected to: [1]'); after 3600 s the harness's launch thread raises TimeoutError /
    RuntimeError through sglang/test/test_utils.py. The server itself never failed: it is
    still starting."""
    log = read_log(HELDOUT / "004" / "log")
    assert _kind_at(log.events, 735) is EventKind.FOREIGN_TRACEBACK
    run = log.runs[-1]
    assert run.outcome is Outcome.STARTING and run.failure is None


def test_the_servers_own_traceback_still_fails_the_run_under_a_harness() -> None:
    """heldout/006: the NPU op error during the warmup request (frames in sglang/srt) is the
    run's failure; the harness's closing AssertionError ('Server process exited with code
    -9') is foreign."""
    log = read_log(HELDOUT / "006" / "log")
    run = log.runs[-1]
    assert run.outcome is Outcome.CRASHED and run.failure is not None
    assert run.failure.line == 170 and "aclnnInplaceCopy" in run.failure.message
    last = [
        e for e in log.events if e.kind.value.endswith("traceback") or e.kind.value == "exception"
    ]
    assert last[-1].kind is EventKind.FOREIGN_TRACEBACK


def test_an_in_process_engine_crash_under_unittest_is_the_runs_failure() -> None:
    """Synthetic: a test that runs sglang.Engine in its own process; the exception comes out of
    sglang/srt through unittest's frames. That is the engine's failure, not the harness's."""
    text = (
        "[2026-01-04 07:51:21] server_args=ServerArgs(model_path='m', tp_size=1)\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/unittest/case.py", line 579, in _callTestMethod\n'
        '  File "/work/test/test_engine.py", line 12, in test_generate\n'
        '  File "/usr/lib/python3/site-packages/sglang/srt/entrypoints/engine.py", line 80, in __init__\n'
        "RuntimeError: boom\n"
    )
    assert [e.kind for e in iter_events(io.StringIO(text))][-1] is EventKind.EXCEPTION


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: p.name)
def test_heldout_outcome_is_what_the_log_shows(folder: Path) -> None:
    """Every held-out log whose outcome is visible in it gets the outcome (and, where meta.json
    names one, the failure kind) a person read from it; these logs are tuned on now, no longer
    unseen."""
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    if meta["outcome_evidence_in_log"] != "full":
        pytest.skip("the outcome is not visible in this log")
    run = read_log(folder / "log").runs[-1]
    assert run.outcome.value == meta["expected_outcome"]
    if meta.get("expected_failure"):
        assert run.failure is not None and run.failure.kind.value == meta["expected_failure"]


def test_heldout_fixtures_are_whole_files_with_their_source() -> None:
    """Each held-out log names the commit and path it was copied from, and is at most 5 MB."""
    assert len(FOLDERS) >= 20
    for folder in FOLDERS:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        assert meta["source"] == (
            f"https://github.com/{meta['repo']}/blob/{meta['commit']}/{meta['path']}"
        )
        assert (folder / "log").stat().st_size <= 5 * 2**20


def test_no_memory_budget_on_an_assumed_gpu_for_an_npu_launch() -> None:
    """heldout/004 checked against its own argv (``--device npu``, 2p1d over 32 NPUs): the
    budget used to assume 16 RTX A6000 48GB and say 'does not fit' (LS024); SGLang's memory
    arithmetic is modelled for CUDA/ROCm GPUs only, so LS100 says no budget is given."""
    folder = HELDOUT / "004"
    report = check(folder / "log", expect=folder / "command.txt", live=False, full_scan=True)
    codes = [f.code for f in report.findings]
    assert "LS100" in codes and "LS024" not in codes
    assert "'npu'" in next(f.message for f in report.findings if f.code == "LS100")


def test_a_gpu_launch_still_gets_its_budget() -> None:
    """fixtures/demo (Qwen3.6-27B, tp 2 on 2x RTX A6000, banner device='cuda'): the budget is
    given, no LS100."""
    demo = HELDOUT.parent / "demo"
    report = check(demo / "sglang-serve.log", expect=demo / "command.txt", live=False)
    assert "LS100" not in [f.code for f in report.findings]
    assert report.budget is not None
