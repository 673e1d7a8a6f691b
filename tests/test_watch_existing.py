"""``watch --launched-at`` on a big existing file reads it as ``check`` does (serving lines
folded, see ``watch/existing.py``) and says exactly what the line-by-line reading says.

Generated logs of both shapes (``benchmarks.generate``), with the variants of
``tests/test_long_run.py`` (a crash in the middle of the long run, a run without a banner, a
clock jump, an argparse launch at the end), launch times before, inside and after the file's
runs, then lines appended after the watch began.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_long_run import VARIANTS, _make

from benchmarks.generate import generate
from sglang_logscope.log import tail
from sglang_logscope.log.reader import read_log
from sglang_logscope.timing import parse_launched_at
from sglang_logscope.watch import existing
from sglang_logscope.watch.result import Note
from sglang_logscope.watch.watcher import Watcher, WatchOptions

APPENDED = (
    "[2026-05-25 09:00:00] Scheduler hit an exception: Traceback (most recent call last):\n"
    '  File "/sgl/scheduler.py", line 1, in run\n'
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
)


def _notes(notes: list[Note]) -> list[dict[str, Any]]:
    return [{k: v for k, v in n.to_dict().items() if k != "elapsed_s"} for n in notes]


def _watch(log: Path, launched: str, fast: bool, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every note and the result of a watch that reads the file, then sees lines appended;
    last, whether the file was read the fast way (the follower then skipped its lines)."""
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0 if fast else 1 << 62)
    opts = WatchOptions(
        launched_at=parse_launched_at(launched), timeout=30.0, quiet_after=5.0, settle=0.5
    )
    w = Watcher(log, opts, start=0.0)
    seen: list[Any] = [_notes(w.step(0.0))]
    taken = w.follower.skipped_lines > 0
    with log.open("a", encoding="utf-8") as f:
        f.write(APPENDED)
    for t in (0.1, 0.7, 1.5):
        seen.append(_notes(w.step(t)))
    result = w.result.to_dict() if w.result else None
    if result:
        result.pop("elapsed_s")
    w.close()
    return [*seen, result, taken]


@settings(
    max_examples=examples(16),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    shape=st.sampled_from(["long", "many"]),
    seed=st.integers(0, 10_000),
    variant=st.sampled_from(VARIANTS),
    when=st.sampled_from(["before", "last", "after"]),
)
# the run before the launch's is older than the last two starters (an argparse launch last)
@example(shape="many", seed=0, variant="argparse", when="last")
def test_watch_on_an_existing_file_equals_the_line_by_line_reading(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    shape: str,
    seed: int,
    variant: str,
    when: str,
) -> None:
    big, _ = _make(tmp_path, shape, seed, variant)
    runs = read_log(big).runs
    stamped = [r.started_at for r in runs if r.started_at is not None]
    moment = {
        "before": min(stamped) - timedelta(hours=1),
        "last": (runs[-1].started_at or max(stamped)) - timedelta(seconds=30),
        "after": max(r.ended_at or min(stamped) for r in runs) + timedelta(hours=1),
    }[when]
    launched = moment.isoformat(sep=" ")
    fast = _watch(big, launched, True, monkeypatch)
    big.write_bytes(big.read_bytes()[: -len(APPENDED)])
    slow = _watch(big, launched, False, monkeypatch)
    assert fast[:-1] == slow[:-1]


def test_a_long_run_is_read_without_the_follower(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast reading is taken (not a fallback) on the long shape's plain log, and the
    follower then starts at the file's end."""
    big, _ = _make(tmp_path, "long", 5, "plain")
    run = read_log(big).runs[-1]
    assert run.started_at is not None
    launched = (run.started_at - timedelta(seconds=30)).isoformat(sep=" ")
    got = _watch(big, launched, True, monkeypatch)
    assert got[-1] is True
    result = got[-2]
    assert result is not None and result["outcome"] == "ready"
    assert result["run"]["first_line"] == run.first_line


def test_a_launch_before_the_parsed_runs_is_read_line_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The launch's run is older than the last four starters: known from its banner only, so
    the watch falls back to reading the file from its first line, and says the same."""
    big = generate(tmp_path / "six", size_mb=1.0, seed=2, runs=6)["big"]
    runs = read_log(big).runs
    assert len(runs) == 6 and runs[0].started_at is not None
    launched = (runs[0].started_at - timedelta(hours=1)).isoformat(sep=" ")
    fast = _watch(big, launched, True, monkeypatch)
    assert fast[-1] is False
    big.write_bytes(big.read_bytes()[: -len(APPENDED)])
    assert fast[:-1] == _watch(big, launched, False, monkeypatch)[:-1]


def test_an_unfinished_last_line_is_read_line_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big, _ = _make(tmp_path, "long", 6, "plain")
    with big.open("a", encoding="utf-8") as f:
        f.write("[2026-05-25 09:00:00 TP0] Decode batch, #running-req: 1")  # no newline yet
    size = big.stat().st_size
    lines = big.read_bytes().count(b"\n") + 1
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    assert existing.read_existing(str(big), size, lines) is None
