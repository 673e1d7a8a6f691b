"""0.1.6-0.2.9.post1: 'Prefill/Decode out of memory. This should never happen.' is followed by
the radix tree dump and exit() in SGLang's source: the run is dead (issue 17, corpus log 041)."""

from __future__ import annotations

from pathlib import Path

from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.runs import FailureKind, Outcome

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"


def test_prefill_out_of_memory_legacy_ends_the_run() -> None:
    """fixtures/real/041 (0.1.x, 4x A6000): the message, the radix-tree dump, '#tokens: 7'.
    The run crashed at line 1 (it was read as 'starting' before); not an OOM of the GPU."""
    log = read_log(REAL / "041" / "server.log")
    assert log.events[0].kind is EventKind.SCHEDULER_DEAD
    assert [e.kind for e in log.events[1:5]] == [EventKind.TEXT] * 4
    run = log.runs[-1]
    assert run.outcome is Outcome.CRASHED
    assert run.failure is not None and run.failure.line == 1
    assert run.failure.kind is FailureKind.EXCEPTION and not run.failure.kind.is_oom
