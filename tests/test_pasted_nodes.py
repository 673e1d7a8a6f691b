"""Several nodes' tails pasted into one file without banners (issue 28, item 3): said, never
merged silently (LS112), and one node's own run is never taken for two (property tests).

The lines are real: the first 100 s of rank lines of fixtures/heldout/001/log (one Ascend
node, ranks TP0-TP3). Two "nodes" are made from them by pasting the lines of two disjoint rank
sets one after the other, as `tail` of two nodes' logs would give."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from sglang_logscope.events import Event
from sglang_logscope.log.pasted import TOLERANCE, pasted_tails
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.runs import split_runs
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.staleness.judge import check

ROOT = Path(__file__).resolve().parent.parent
_RUN = read_log(ROOT / "fixtures" / "heldout" / "001" / "log").runs[-1]
_RANKED = [e for e in _RUN.events if e.rank is not None and e.timestamp is not None]
WINDOW = [e for e in _RANKED if e.timestamp - _RANKED[0].timestamp <= timedelta(seconds=100)]  # type: ignore[operator]
RANKS = sorted({e.rank.label for e in WINDOW if e.rank is not None})


def _events(lines: list[str]) -> list[Event]:
    return list(iter_events(io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))))


def _paste(first: set[str]) -> list[str]:
    a = [e.text for e in WINDOW if e.rank is not None and e.rank.label in first]
    b = [e.text for e in WINDOW if e.rank is not None and e.rank.label not in first]
    return a + b


def test_one_nodes_real_lines_say_nothing() -> None:
    assert len(RANKS) == 4 and len(WINDOW) > 40
    assert pasted_tails(_RUN.events) is None
    assert pasted_tails(_events([e.text for e in WINDOW])) is None


def test_two_pasted_tails_are_said_and_stay_one_run(tmp_path: Path) -> None:
    events = _events(_paste({"TP0", "TP1"}))
    runs = split_runs(events)
    assert len(runs) == 1
    found = pasted_tails(runs[0].events)
    assert found is not None
    assert found.rank_sets == (("TP0", "TP1"), ("TP2", "TP3"))
    assert found.back_seconds > TOLERANCE.total_seconds()
    log = tmp_path / "two-nodes.log"
    log.write_text("\n".join(_paste({"TP0", "TP1"})) + "\n", encoding="utf-8")
    report = check(read_log(log), with_budget=False, live=False)
    (ls112,) = [f for f in report.findings if f.code == "LS112"]
    assert f"at line {found.line}" in ls112.message and "TP2, TP3" in ls112.message


@given(st.lists(st.booleans(), min_size=len(WINDOW), max_size=len(WINDOW)))
def test_any_excerpt_of_one_node_is_one_node(keep: list[bool]) -> None:
    """Property: any subsequence of one node's lines (a cut, a grep) is never read as
    several nodes, and never split into runs."""
    lines = [e.text for e, k in zip(WINDOW, keep, strict=True) if k]
    events = _events(lines)
    runs = split_runs(events)
    assert len(runs) <= 1
    assert all(pasted_tails(r.events) is None for r in runs)


@given(st.lists(st.integers(min_value=0, max_value=len(WINDOW) - 2), max_size=40))
def test_one_node_written_out_of_order_within_the_tolerance_is_one_node(swaps: list[int]) -> None:
    """Property: one node's processes writing a little out of order (neighbours within
    TOLERANCE swapped) is still one node."""
    lines = list(WINDOW)
    for i in swaps:
        a, b = lines[i].timestamp, lines[i + 1].timestamp
        assert a is not None and b is not None
        if abs(a - b) <= TOLERANCE:
            lines[i], lines[i + 1] = lines[i + 1], lines[i]
    assert pasted_tails(_events([e.text for e in lines])) is None


@given(st.sets(st.sampled_from(RANKS), min_size=1, max_size=len(RANKS) - 1))
def test_any_two_disjoint_rank_sets_pasted_are_said(first: set[str]) -> None:
    """Property: whichever ranks one node held, pasting its lines before the other's is
    said whenever the time goes back by more than the tolerance where they meet."""
    a = [e for e in WINDOW if e.rank is not None and e.rank.label in first]
    b = [e for e in WINDOW if e.rank is not None and e.rank.label not in first]
    found = pasted_tails(_events(_paste(first)))
    last_a = max(e.timestamp for e in a if e.timestamp is not None)
    if b[0].timestamp is not None and last_a - b[0].timestamp > TOLERANCE:
        assert found is not None
        assert set(found.rank_sets) == {tuple(sorted(first)), tuple(sorted(set(RANKS) - first))}
