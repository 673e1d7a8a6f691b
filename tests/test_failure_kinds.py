"""Issue 28: every way a launch fails, read from real lines (fixtures/failures/, sources in its
README): OOM in other wordings, environment failures, aborts without a traceback, port
collisions of listeners other than uvicorn's, and a failure glued to a progress bar by ``\\r``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from sglang_logscope.events import Event, EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.runs import FailureKind, split_runs
from sglang_logscope.log.select import RunList
from sglang_logscope.memory.oom_phase import oom_figures
from sglang_logscope.parse.lines import iter_events

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "failures"


@pytest.mark.parametrize(
    ("name", "kind", "fields"),
    [
        (
            "cuda_graph_oom_wrapped.log",
            FailureKind.CUDA_OOM,
            {
                "device": "CUDA",
                "tried": "672.00 MiB",
                "gpu": 0,
                "capacity": "140.06 GiB",
                "free": "200.75 MiB",
            },
        ),
        ("cuda_error_oom.log", FailureKind.CUDA_OOM, {"device": "CUDA"}),
        ("mps_oom.log", FailureKind.CUDA_OOM, {"device": "MPS", "capacity": "18.13 GB"}),
        (
            "xpu_oom.log",
            FailureKind.CUDA_OOM,
            {"device": "XPU", "tried": "192.00 MiB", "gpu": 3, "capacity": "31.89 GiB"},
        ),
        ("driver_too_old.log", FailureKind.ENVIRONMENT, {"found_version": 12090}),
        ("zmq_port.log", FailureKind.PORT_IN_USE, {"address": "tcp://127.0.0.1:56617"}),
        ("terminate_abort.log", FailureKind.NCCL_ERROR, {}),
    ],
)
def test_real_failure_lines_name_their_kind(name: str, kind: FailureKind, fields: dict) -> None:
    log = read_log(FIXTURES / name)
    failure = log.runs[-1].failure
    assert failure is not None and failure.kind is kind
    assert failure.event is not None
    for key, value in fields.items():
        assert failure.event.fields[key] == value
    assert kind.is_oom == (kind is FailureKind.CUDA_OOM)


def test_the_native_abort_is_read_and_the_nccl_cause_wins() -> None:
    events = read_log(FIXTURES / "terminate_abort.log").events
    kinds = [e.kind for e in events]
    assert EventKind.ABORTED in kinds and EventKind.NCCL_ERROR in kinds
    abort = next(e for e in events if e.kind is EventKind.ABORTED)
    assert abort.fields["exception"] == "c10::DistBackendError"


def parse_text(text: str) -> list[Event]:
    return list(iter_events(io.BytesIO(text.encode("utf-8"))))


def _last(text: str) -> tuple[str, str | None, dict]:
    runs = split_runs(parse_text(text))
    run = runs[-1]
    f = run.failure
    return (
        run.outcome.value,
        f.kind.value if f else None,
        dict(f.event.fields) if f and f.event else {},
    )


def test_an_abort_glued_to_a_progress_bar_by_cr_is_the_failure() -> None:
    """The bar is a real line of corpus/053; the abort the real line of terminate_abort.log."""
    bar = "Capturing batches (bs=1 avail_mem=2.39 GB): 100%|█| 4/4 [00:00<00:00,  7.80it/"
    abort = (FIXTURES / "terminate_abort.log").read_text(encoding="utf-8").splitlines()[1]
    start = "[2025-12-29 18:33:04 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=2.40 GB\n"
    outcome, kind, fields = _last(f"{start}{bar}\r{abort}\r{bar}\n")
    assert (outcome, kind) == ("crashed", "aborted")
    assert fields["exception"] == "c10::DistBackendError"


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        ("Killed", "Killed"),
        ("Aborted (core dumped)", "Aborted"),
        ("Segmentation fault (core dumped)", "Segmentation fault"),
        ("Fatal Python error: Segmentation fault", "Segmentation fault"),
    ],
)
def test_a_signal_after_startup_is_aborted_with_the_signal(line: str, signal: str) -> None:
    start = "[2026-05-25 17:55:40 TP0] Load weight begin. avail mem=30.99 GB\n"
    outcome, kind, fields = _last(f"{start}{line}\n")
    assert (outcome, kind) == ("crashed", "aborted")
    assert fields["signal"] == signal


def test_a_traceback_before_the_abort_names_the_cause() -> None:
    """An abort says least: the exception printed before it stays the failure."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "x.py", line 1, in <module>\n'
        "RuntimeError: CUDA error: out of memory\n"
        "Aborted (core dumped)\n"
    )
    assert _last(text)[1] == "cuda_oom"


@pytest.mark.parametrize(
    "text",
    [
        "/usr/bin/python3: Error while finding module specification for 'sglang.launch_server' "
        "(ModuleNotFoundError: No module named 'sglang')\n",
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main\n'
        "ModuleNotFoundError: No module named 'sgl_kernel'\n",
        "ImportError: libcudart.so.13: cannot open shared object file: No such file or directory\n",
        "OSError: /models/Qwen3-8B does not appear to have a file named config.json.\n",
    ],
)
def test_environment_failures_are_their_own_kind(text: str) -> None:
    outcome, kind, _ = _last(text)
    assert (outcome, kind) == ("crashed", "environment")


def test_sglang_ignored_imports_and_torch_warnings_are_not_failures() -> None:
    """Real lines of fixtures/heldout/006 and of torch's CUDA-init warning (issue 28's
    guard): SGLang goes on after them."""
    text = (
        "[2026-06-09 03:34:38] Ignore import error when loading "
        "sglang.srt.multimodal.processors.midashenglm: No module named 'torchaudio'\n"
        "/root/.venv/lib/python3.12/site-packages/torch/cuda/__init__.py:180: UserWarning: CUDA "
        "initialization: The NVIDIA driver on your system is too old (found version 12080).\n"
        "[2026-06-09 03:34:39] Load weight begin. avail mem=30.99 GB\n"
    )
    outcome, kind, _ = _last(text)
    assert kind is None and outcome == "starting"


def test_plain_words_are_no_abort() -> None:
    for line in ("Killed process 4242 (python3)", "Aborted request rid=abc", "Segmentation"):
        assert all(e.kind is not EventKind.ABORTED for e in parse_text(line + "\n")), line


def _runs(text: str) -> list[tuple[str, tuple[int, ...]]]:
    return [(r.outcome.value, r.nodes) for r in split_runs(parse_text(text))]


def test_a_late_ranks_load_weight_begin_after_a_crash_opens_no_run() -> None:
    """Ranks of one launch stay one run: a rank that starts loading after another crashed is
    late, not a relaunch; the same rank loading again is one."""
    crash = (
        "[2026-05-25 18:03:34 TP1] Scheduler hit an exception: Traceback (most recent call last):\n"
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1, in x\n'
        "RuntimeError: boom\n"
    )
    load = "[2026-05-25 18:03:{s} {rank}] Load weight begin. avail mem=30.99 GB\n"
    text = load.format(s="30", rank="TP0") + load.format(s="30", rank="TP1") + crash
    late = text + load.format(s="36", rank="TP2")
    assert _runs(late) == [("crashed", ())]
    again = late + load.format(s="50", rank="TP0")
    assert [o for o, _ in _runs(again)] == ["crashed", "starting"]


def test_several_nodes_of_one_launch_are_one_run_that_says_so() -> None:
    banner = (
        "[2026-04-26 14:30:0{n}] server_args=ServerArgs(model_path='sgl-project/DeepSeek-V4-Pro-FP8', "
        "tp_size=16, nnodes=2, node_rank={n}, dist_init_addr='10.0.0.1:20000')\n"
    )
    text = banner.format(n=0) + banner.format(n=1)
    assert _runs(text) == [("starting", (0, 1))]
    other = banner.format(n=0) + banner.format(n=0).replace("10.0.0.1", "10.0.0.2")
    assert [nodes for _, nodes in _runs(other)] == [(0,), (0,)]


def test_the_shells_killed_after_sglangs_own_stop_is_the_stop() -> None:
    """SGLang's SIGTERM line (the shutdown sample of the catalog, sglang 0.5.9), then the
    shell's report of the job: a stop, not an abort."""
    text = (
        "[2026-02-23 11:59:00] The server is fired up and ready to roll!\n"
        "[2026-02-23 12:00:00] SIGTERM received. signum=None frame=None. Draining requests "
        "and shutting down...\n"
        "Killed\n"
    )
    assert _last(text)[:2] == ("stopped", None)


def test_the_runs_document_names_the_nodes() -> None:
    banner = (
        "[2026-04-26 14:30:0{n}] server_args=ServerArgs(model_path='m', tp_size=16, nnodes=2, "
        "node_rank={n}, dist_init_addr='10.0.0.1:20000')\n"
    )
    runs = tuple(split_runs(parse_text(banner.format(n=0) + banner.format(n=1))))
    assert RunList("x", runs).rows()[0]["nodes"] == [0, 1]


# --- the allocator's figures on the lines after a cut-short OOM (issue 28, item 2) -----------


def test_the_figures_after_a_cut_short_oom_are_the_events_and_the_verdict_reads_them() -> None:
    """fixtures/failures/cuda_graph_oom_wrapped.log: 'CUDA out of memory.' ends its line; the
    allocator's sentences follow on lines of their own. They join the OOM event (lines 1-8),
    'Possible solutions:' does not, and the memory verdict reads the figures."""
    log = read_log(FIXTURES / "cuda_graph_oom_wrapped.log")
    run = log.runs[-1]
    oom = next(e for e in run.events if e.kind is EventKind.CUDA_OOM)
    assert (oom.line, oom.end_line) == (1, 8)
    after = [e.message for e in run.events if e.line > oom.end_line]
    assert "Possible solutions:" in after
    figures = oom_figures(run)
    assert figures is not None
    assert figures.capacity == pytest.approx(140.06)
    assert figures.free == pytest.approx(200.75 / 1024)
    assert figures.tried == pytest.approx(672 / 1024)
    assert figures.allocated == pytest.approx(128.50)


def test_the_figures_after_a_cut_short_oom_inside_a_traceback_are_read() -> None:
    """The same real lines as the exception of a scheduler traceback (the frame lines are
    SGLang's cuda_graph_runner.py frame from fixtures/real/015; the assembly is ours)."""
    lines = (FIXTURES / "cuda_graph_oom_wrapped.log").read_text(encoding="utf-8").splitlines()
    text = "\n".join(
        [
            "[2026-04-26 14:38:10] Scheduler hit an exception: Traceback (most recent call last):",
            '  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/cuda_graph_runner.py",'
            " line 269, in __init__",
            "    raise Exception(",
            *lines,
        ]
    )
    outcome, kind, fields = _last(text + "\n")
    assert (outcome, kind) == ("crashed", "cuda_oom")
    assert fields["capacity"] == "140.06 GiB" and fields["free"] == "200.75 MiB"
    assert fields["exc_message"] == "Capture cuda graph failed: CUDA out of memory."


@pytest.mark.parametrize(
    "after",
    [
        "Tried to allocate 672.00 MiB.",  # the figures of a line already whole are not re-read
        "[2026-04-26 14:38:11] Rank 0 scheduler is dead. Please check if there are relevant logs.",
    ],
)
def test_a_whole_oom_line_takes_no_following_line(after: str) -> None:
    whole = (
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32.00 MiB. GPU 0 has a "
        "total capacity of 23.52 GiB of which 13.00 MiB is free."
    )
    events = parse_text(f"{whole}\n{after}\n")
    assert [(e.line, e.end_line) for e in events] == [(1, 1), (2, 2)]
    assert events[0].fields["tried"] == "32.00 MiB"


def test_an_unrelated_line_ends_the_cut_short_oom() -> None:
    events = parse_text("Exception: Capture cuda graph failed: CUDA out of memory.\nhello\n")
    assert [(e.line, e.end_line) for e in events] == [(1, 1), (2, 2)]
    assert events[0].kind is EventKind.CUDA_OOM and "capacity" not in events[0].fields
