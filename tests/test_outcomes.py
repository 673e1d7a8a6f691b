"""Outcomes of issue 17: offline entry points complete, SIGTERM stops, foreign tracebacks after
ready are not the server's failure."""

from __future__ import annotations

import io
from pathlib import Path

from sglang_logscope import read_log
from sglang_logscope.events import EventKind
from sglang_logscope.log.runs import Outcome
from sglang_logscope.parse.lines import iter_events

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"

READY = (
    "[2026-05-20 10:00:00] server_args=ServerArgs(model_path='m', tp_size=1)\n"
    "[2026-05-20 10:00:30] The server is fired up and ready to roll!\n"
)


def _log(text: str):  # type: ignore[no-untyped-def]
    return read_log(io.StringIO(text))


def test_bench_one_batch_that_ran_to_its_end_is_completed() -> None:
    """fixtures/real/053: sglang.bench_one_batch printed its warm-up and benchmark totals."""
    run = read_log(REAL / "053" / "server.log").runs[-1]
    assert run.outcome is Outcome.COMPLETED and run.failure is None
    totals = [e for e in run.events if e.kind is EventKind.BENCH_RESULT]
    assert [e.fields["throughput"] for e in totals] == [13084.74, 2351.56]


def test_sigterm_chain_is_a_stop_not_a_crash() -> None:
    """SGLang's stop on SIGTERM (wording of 0.5.10+ tokenizer_manager.py and watchdog.py, as
    the message index has it; synthetic log): the detokenizer's -15 exit and the SIGQUIT that
    follow are the stop itself."""
    text = READY + (
        "[2026-05-20 11:00:00] SIGTERM received. signum=None frame=None. Draining requests and shutting down...\n"
        "[2026-05-20 11:00:01] Gracefully exiting... Remaining number of requests 0\n"
        "[2026-05-20 11:00:02] Subprocess detokenizer (pid=123) crashed with exit code -15. Triggering SIGQUIT for cleanup...\n"
        "[2026-05-20 11:00:02] SIGQUIT received. signum=None, frame=None. It usually means one child failed.\n"
    )
    run = _log(text).runs[-1]
    assert run.outcome is Outcome.STOPPED and run.failure is None
    crashed = _log(READY + text.split("\n", 4)[4]).runs[-1]  # the same deaths without SIGTERM
    assert crashed.outcome is Outcome.CRASHED


FOREIGN = (
    "Traceback (most recent call last):\n"
    '  File "/work/tests/test_latency.py", line 41, in test_ttft\n'
    "    assert ttft < 0.5\n"
    "AssertionError\n"
)
OWN = (
    "Traceback (most recent call last):\n"
    '  File "/usr/lib/python3/site-packages/sglang/srt/managers/scheduler.py", line 10, in run\n'
    "    raise ValueError('x')\n"
    "ValueError: x\n"
)


def test_a_foreign_traceback_after_ready_is_not_the_runs_failure() -> None:
    """A test harness writing its failed assertion into the server's log after ready
    (synthetic): a foreign_traceback event; the run stays ready. A traceback through SGLang's
    own frames still fails the run, and before ready any traceback does."""
    run = _log(READY + FOREIGN).runs[-1]
    assert run.outcome is Outcome.READY and run.failure is None
    assert [e.kind for e in run.events][-1] is EventKind.FOREIGN_TRACEBACK
    assert _log(READY + OWN).runs[-1].outcome is Outcome.CRASHED
    kinds = [e.kind for e in iter_events(io.StringIO(READY.split("\n")[0] + "\n" + FOREIGN))]
    assert kinds[-1] is EventKind.EXCEPTION


def test_a_traceback_ends_where_sglang_speaks_again() -> None:
    """After a traceback's exception line, a line SGLang prints on its own (bench_one_batch's
    'Warmup ...', from the message index) is an event of its own, not more traceback; lines
    that may continue the exception text stay in it (synthetic)."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/sglang/srt/a.py", line 1, in f\n'
        "    g()\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n"
        "Warmup ...\n"
    )
    events = list(iter_events(io.StringIO(text)))
    assert [(e.kind, e.line, e.end_line) for e in events] == [
        (EventKind.EXCEPTION, 1, 5),
        (EventKind.SGLANG_MESSAGE, 6, 6),
    ]
