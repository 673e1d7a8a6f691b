"""Streaming runs (issue 6, target 3): ``summary`` and ``runs`` without holding every event
give byte for byte what the full parse gives."""

from __future__ import annotations

import dataclasses
import itertools
import shutil
from pathlib import Path

import pytest
from examples import examples
from fixture_logs import FIXTURE_LOGS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate
from sglang_logscope.events import Event, EventKind
from sglang_logscope.log.reader import iter_runs, read_log, summarize, summarize_source
from sglang_logscope.log.runs import split_runs, stream_runs
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.render import text as report

ROOT = Path(__file__).resolve().parent.parent


def _consistent_runs(events: list[Event]) -> None:
    """Runs kept thin equal the full runs but for their events; every significant event is in
    exactly one run, in file order, and runs do not overlap."""
    full = split_runs(events)
    thin = list(stream_runs(events, keep=()))
    assert thin == [dataclasses.replace(r, events=()) for r in full]
    lines = [e.line for r in full for e in r.events]
    assert lines == sorted(set(lines))
    significant = {e.line for e in events if e.kind not in (EventKind.TEXT, EventKind.UNKNOWN)}
    assert significant <= set(lines)
    for a, b in itertools.pairwise(full):
        assert a.last_line < b.first_line


def _same_summary(path: Path | str) -> None:
    full = report.to_json(summarize(read_log(path)))
    assert report.to_json(summarize_source(path)) == full


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_streamed_summary_is_the_full_summary(path: Path) -> None:
    _same_summary(path)
    events = list(iter_events(path))
    _consistent_runs(events)


@settings(
    max_examples=examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 10_000), runs=st.integers(1, 4))
def test_streamed_summary_on_generated_logs(tmp_path: Path, seed: int, runs: int) -> None:
    out = tmp_path / f"gen{seed}-{runs}"
    if out.exists():
        shutil.rmtree(out)
    big = generate(out, size_mb=0.2 * runs, seed=seed, runs=runs)["big"]
    _same_summary(big)
    events = list(iter_events(big))
    _consistent_runs(events)


_ADJUST = "[2026-05-09 09:00:0{s}] WARNING server_args.py:1: Setting x to {s} (adjusted).\n"
_BANNER = "[2026-05-09 09:00:1{s}] server_args=ServerArgs(model_path='m{s}', tp_size=1)\n"
_PIECES = [
    "[2026-05-09 09:00:0{s}] Load weight begin. avail mem=70.00 GB\n",
    "[2026-05-09 09:00:0{s}] The server is fired up and ready to roll!\n",
    "plain text line {s}\n",
    "Killed\n",
    "[2026-05-09 09:00:0{s}] INFO something unknown {s}\n",
    _ADJUST,
    _BANNER,
    "[2026-05-09 08:00:0{s}] Load weight begin. avail mem=70.00 GB\n",
    "usage: launch_server.py [-h] --model-path MODEL_PATH\n",
    "launch_server.py: error: unrecognized arguments: --x {s}\n",
    "[2026-05-09 09:00:0{s}] Received sigquit from a child process. It usually means the child "
    "failed.\n",
    "[09:00:0{s}] Load weight begin. avail mem=70.00 GB\n",
]


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(_PIECES) - 1), st.integers(0, 9)), max_size=40))
def test_streamed_runs_on_shuffled_starts_and_preambles(pieces: list[tuple[int, int]]) -> None:
    """Banners, preambles, headless noise, argparse blocks and clock jumps in any order."""
    import io

    text = "".join(_PIECES[i].format(s=s) for i, s in pieces)
    events = list(iter_events(io.StringIO(text)))
    _consistent_runs(events)


def test_runs_hold_only_the_kinds_kept() -> None:
    path = ROOT / "fixtures" / "demo" / "sglang-serve.log"
    full = read_log(path).runs
    thin = list(iter_runs(path, [EventKind.SERVER_ARGS]))
    assert [r.first_line for r in thin] == [r.first_line for r in full]
    for a, b in zip(full, thin, strict=True):
        assert b.events == tuple(e for e in a.events if e.kind is EventKind.SERVER_ARGS)
        assert (a.outcome, a.failure, a.server_args) == (b.outcome, b.failure, b.server_args)


_STARTER_PIECES = [
    "[2026-05-09 09:00:01] server_args=ServerArgs(model_path='m', tp_size=1)\n",
    "usage: launch_server.py [-h] --model-path MODEL_PATH\n",
    "launch_server.py: error: unrecognized arguments: --x\n",
    "[2026-05-09 09:00:02 TP0] Decode batch. #running-req: 1, #token: 9, token usage: 0.01\n",
    "a=b c=d e=f g=h\n",
    "x",
    "u\n",
    "\n",
]


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.integers(0, len(_STARTER_PIECES) - 1), max_size=30),
    st.sampled_from([2, 8, 64, 4096]),
    st.sampled_from([1, 3, 2000]),
    st.sampled_from([0, 1 << 30]),
    st.integers(0, 40),
)
def test_starter_scan_finds_the_parsers_starters(
    pieces: list[int], block: int, dense: int, small: int, cut: int
) -> None:
    """Any block size (banners and 'usage:' across block edges, at odd and even offsets), any
    '=' density, numpy or plain ``bytes`` searches (``small``) and a scan that starts at a
    line boundary part-way (as after a scan index) give the parser's starter lines and
    newlines."""
    import tempfile

    from sglang_logscope.log import starters as tail

    text = "".join(_STARTER_PIECES[i] for i in pieces)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "x.log"
        path.write_text(text, encoding="utf-8")
        expected = [
            e.line
            for e in iter_events(path)
            if e.kind in (EventKind.SERVER_ARGS, EventKind.ARGPARSE_USAGE)
        ]
        data = text.encode()
        bounds = [0] + [i + 1 for i, ch in enumerate(data) if ch == 10]
        start = bounds[min(cut, len(bounds) - 1)]
        old = tail._BLOCK, tail._DENSE, tail._SMALL_SCAN
        tail._BLOCK, tail._DENSE, tail._SMALL_SCAN = block, dense, small
        try:
            found = tail.scan_starters(str(path))
            part = tail.scan_region(str(path), start, data[:start].count(b"\n") + 1)
        finally:
            tail._BLOCK, tail._DENSE, tail._SMALL_SCAN = old
    assert [s.line for s in found] == expected
    assert part.starters == [s for s in found if s.offset >= start]
    assert part.newlines == data[start:].count(b"\n")
    lines = text.split("\n")
    for s in found:
        assert text.encode()[s.offset :].split(b"\n")[0] == s.raw
        assert lines[s.line - 1].encode() == s.raw


def test_header_time_fast_path_is_parse_timestamp() -> None:
    from sglang_logscope.parse.header import _bracket_time, parse_timestamp

    for day in ("2026-05-09", "2026-02-29", "2024-02-29", "2026-13-01", "0000-01-01", "2026-00-10"):
        for clock in ("09:00:01", "23:59:59", "24:00:00", "23:60:00", "00:00:60"):
            for frac in ("", ".1", ".12", ".123", ".1234", ".12345", ".123456"):
                text = f"{day} {clock}{frac}"
                assert _bracket_time(text) == parse_timestamp(text), text
    for text in ("09:00:01", "05-09 09:00:01"):
        assert _bracket_time(text) == parse_timestamp(text)


def test_lines_with_nul_or_escapes_are_cleaned(tmp_path: Path) -> None:
    path = tmp_path / "x.log"
    path.write_bytes(b"[2026-05-09 09:00:01] a\x00b \x1b[31mred\x1b[0m \xff\n")
    (event,) = iter_events(path)
    assert event.text == "[2026-05-09 09:00:01] ab red \ufffd"
