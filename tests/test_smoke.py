"""Smoke tests of the parse → runs pipeline on a tiny inline log (real lines from corpus/065)."""

from __future__ import annotations

import io

from sglang_logscope import EventKind, Outcome, iter_events, read_log

LOG = """\
[2026-05-25 18:03:25] Disabling overlap schedule since mamba no_buffer is not compatible with overlap schedule, try to use --disable-radix-cache if overlap schedule is necessary
[2026-05-25 18:03:25] server_args=ServerArgs(model_path='/m', tp_size=2, mem_fraction_static=0.85)
[2026-05-25 18:03:30 TP0] Init torch distributed begin.
[2026-05-25 18:03:33 TP0] Load weight begin. avail mem=31.42 GB
[2026-05-25 18:03:34 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/x/scheduler.py", line 3918, in run_scheduler_process
    scheduler = Scheduler(
RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.85

[2026-05-25 18:03:35] Received sigquit from a child process. It usually means the child failed.
"""


def test_every_line_has_exactly_one_event() -> None:
    events = list(iter_events(io.StringIO(LOG)))
    covered = [n for e in events for n in range(e.line, e.end_line + 1)]
    assert covered == list(range(1, LOG.count("\n") + 1))


def test_traceback_becomes_not_enough_memory_with_effective_value() -> None:
    log = read_log(io.StringIO(LOG))
    assert len(log.runs) == 1
    run = log.runs[0]
    assert run.outcome is Outcome.CRASHED
    assert run.failure is not None
    assert run.failure.kind.value == "not_enough_memory"
    assert run.failure.effective == {"mem_fraction_static": 0.85}
    assert run.failure.line == 5
    assert run.server_args == {"model_path": "/m", "tp_size": 2, "mem_fraction_static": 0.85}
    first = run.events[0]
    assert first.kind is EventKind.ARGS_ADJUSTED
    assert first.fields["sets"] == {"disable_overlap_schedule": True}


def test_waiting_for_a_busy_port_is_not_a_crash() -> None:
    text = (
        "[2026-02-23 10:00:00] server_args=ServerArgs(model_path='/m', tp_size=1)\n"
        "[2026-02-23 10:00:01] port 30001 is in use. Waiting for 2 seconds for scheduler_input_port to be available.\n"
        "[2026-02-23 10:00:40] The server is fired up and ready to roll!\n"
    )
    run = read_log(io.StringIO(text)).runs[-1]
    assert run.events[1].kind is EventKind.PORT_WAIT
    assert run.failure is None and run.outcome is Outcome.READY
