"""An offline ``sglang.Engine`` script that ran to its end is ``completed`` (issue 28, item 1).

SGLang prints nothing when an Engine shuts down, so this is inferred from what a real run shows
(fixtures/engine/README.md): the engine came up, no HTTP server line, no failure, and the
script's own output ends the run."""

from __future__ import annotations

import io
from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_logscope.log.reader import read_log
from sglang_logscope.log.runs import SCRIPT_OUTPUT_LINES, Outcome, StreamState, split_runs
from sglang_logscope.log.scan_index import Resume, round_trip
from sglang_logscope.parse.lines import iter_events

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "engine" / "offline_engine_api.log"
LINES = LOG.read_text(encoding="utf-8").splitlines()
#: the last line SGLang printed (the capture bar at 100 %); the script's output follows
UP = next(i for i, line in enumerate(LINES) if line.startswith("Capturing num tokens"))
UVICORN = "[2026-03-03 23:21:45] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)"


def _outcome(lines: list[str]) -> Outcome:
    events = list(iter_events(io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))))
    return split_runs(events)[-1].outcome


def test_the_real_engine_script_completed() -> None:
    (run,) = read_log(LOG).runs
    assert run.outcome is Outcome.COMPLETED and run.failure is None


def test_cut_before_the_scripts_output_it_is_still_starting() -> None:
    assert _outcome(LINES[: UP + 1]) is Outcome.STARTING


def test_an_http_server_line_makes_it_a_served_launch() -> None:
    lines = [*LINES[: UP + 1], UVICORN, *LINES[UP + 1 :]]
    assert _outcome(lines) is not Outcome.COMPLETED


def test_a_traceback_after_the_output_is_a_crash() -> None:
    tail = ["Traceback (most recent call last):", '  File "x.py", line 3', "KeyError: 'text'"]
    assert _outcome([*LINES, *tail]) is Outcome.CRASHED


def test_before_the_graphs_were_captured_output_proves_nothing() -> None:
    """The bar cut at 90 % (its first redraws only): the engine had not come up."""
    bar = LINES[UP - 1].split("Capturing batches (bs=1")[0]
    lines = [*LINES[: UP - 1], bar, *LINES[UP + 1 :]]
    assert _outcome(lines) is Outcome.STARTING


@given(st.integers(min_value=0, max_value=len(LINES) - UP - 1))
def test_completed_only_with_enough_of_the_scripts_lines(keep: int) -> None:
    """Property: cut the script's output anywhere; completed iff it kept enough non-blank
    lines, and a cut never makes a run crash or split."""
    lines = LINES[: UP + 1 + keep]
    events = list(iter_events(io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))))
    runs = split_runs(events)
    assert len(runs) == 1
    printed = sum(1 for line in LINES[UP + 1 : UP + 1 + keep] if line.strip())
    expected = Outcome.COMPLETED if printed >= SCRIPT_OUTPUT_LINES else Outcome.STARTING
    assert runs[0].outcome is expected


@pytest.mark.parametrize("kind", ["Killed", "Segmentation fault (core dumped)"])
def test_an_abort_after_the_output_is_not_completed(kind: str) -> None:
    assert _outcome([*LINES, kind]) is Outcome.CRASHED


def test_the_engine_state_survives_the_scan_index() -> None:
    """A check that goes on from the scan index folds on with what the run had: the engine
    up, and how many of the script's lines ended it so far."""
    state = StreamState(
        index=0,
        last_ts=datetime(2026, 3, 3, 23, 21, 38),
        settled=(),
        tail=(),
        count=20,
        first_line=1,
        last_line=20,
        oldest=None,
        newest=None,
        banner=None,
        best=None,
        kinds=frozenset(),
        releases=((0,), (999,), False, None),
        clues=(),
        seen=frozenset(),
        stopping=False,
        has_args=False,
        last_kind=None,
        up=True,
        output=3,
    )
    resume = Resume(0, 1, 0, 0, 0, 20, 100, False, state)
    _, back = round_trip(resume)
    assert (back.state.up, back.state.output) == (True, 3)
    assert back.state == state
