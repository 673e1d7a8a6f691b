"""``summary`` in one process (issue 18, target 4): the shortcuts it rests on give what the
line-by-line parse gives, on both benchmark shapes and on a real startup printed again."""

from __future__ import annotations

import io
from pathlib import Path
from unittest import mock

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate, generate_long, startup
from sglang_logscope.log.reader import (
    SUMMARY_KINDS,
    read_log,
    run_summary,
    summarize,
    summarize_source,
)
from sglang_logscope.log.runs import stream_runs
from sglang_logscope.parse import lines as _lines
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.lines import iter_events, iter_records
from sglang_logscope.render import text as report

#: The real startup of corpus 069 (fixtures/real/069: Qwen3.6-27B, its model's weight
#: listing printed line by line), as a server started again prints it again.
RELAUNCH = startup("069")


def _line_by_line(data: bytes) -> list[dict[str, object]]:
    runs = stream_runs(iter_records(io.BytesIO(data), bulk=False), SUMMARY_KINDS)
    return [run_summary(r) for r in runs]


@pytest.mark.parametrize("shape", ["many", "long"])
def test_one_process_summary_of_both_shapes_is_the_full_parse(tmp_path: Path, shape: str) -> None:
    """The benchmark's two shapes, small: several runs each with its startup (``many``), one
    old crashed run then one long serving run with the hybrid decode fields (``long``)."""
    paths = (
        generate_long(tmp_path, 0.5, seed=4) if shape == "long" else generate(tmp_path, 0.6, 4, 4)
    )
    big = paths["big"]
    fast = summarize_source(big, helper=False)
    assert report.to_json(fast) == report.to_json(summarize(read_log(big, helper=False)))
    assert fast["runs"] == _line_by_line(big.read_bytes())
    assert len(fast["runs"]) >= 2


def test_a_relaunch_parses_each_plain_line_of_its_startup_once() -> None:
    """Three launches printing the same startup: the second and third cost the header split of
    their headed lines only (the weight listing's lines are each parsed once), and every event
    is the one the line-by-line parse makes."""
    one = ("\n".join(RELAUNCH) + "\n").encode()
    calls = []
    for copies in (1, 3):
        with mock.patch.object(_lines, "split_header", wraps=_lines.split_header) as split:
            events = list(iter_events(io.BytesIO(one * copies)))
        calls.append(split.call_count)
        assert events == list(iter_records(io.BytesIO(one * copies), bulk=False))
    plain = sum(1 for line in RELAUNCH if not line.startswith("["))
    assert plain > 500  # the weight listing
    assert calls[1] - calls[0] <= 2 * (len(RELAUNCH) - plain + 20)


#: Headless lines of every sort the cache must keep apart: plain text from the real startup,
#: Python warning lines and the indented lines under them, traceback lines, a tqdm redraw,
#: compose and Ray prefixes, escapes, NUL, blank lines; and headed lines between them.
_POOL = [
    *[line for line in RELAUNCH if not line.startswith("[")][:40],
    "/x/sglang/srt/utils.py:54: UserWarning: this is deprecated",
    "  warnings.warn(",
    "  Example: sglang serve --model-path <model> [options]",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 9, in f',
    "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "Killed",
    "sglang-1  | plain text after a compose prefix",
    "(WorkerDict pid=26103) plain text from an actor",
    "\x1b[31mcolored\x1b[0m text",
    "nul\x00inside",
    "bar  10%|#         |\rbar 100%|##########|",
    "",
    "    ",
    "usage: launch_server.py [-h] --model-path MODEL_PATH",
    "launch_server.py: error: unrecognized arguments: --x",
    "[2026-05-09 09:00:00] The server is fired up and ready to roll!",
    "[2026-05-09 09:00:01 TP0] Decode batch, #running-req: 1, #token: 47, token usage: 0.00",
    "[2026-05-09 09:00:02] server_args=ServerArgs(model_path='m', tp_size=2)",
    "[2026-05-09 09:00:03 TP0] Scheduler hit an exception: Traceback (most recent call last):",
]


@settings(max_examples=examples(150), deadline=None)
@given(
    st.lists(st.integers(0, len(_POOL) - 1), max_size=80),
    st.sampled_from([1, 3, 8192]),
    st.sampled_from([64, 1 << 18]),
)
def test_repeated_headless_lines_parse_as_line_by_line(
    picks: list[int], remembered: int, piece: int
) -> None:
    data = "\n".join(_POOL[i] for i in picks).encode("utf-8")
    with (
        mock.patch.object(_lines, "SEEN_LINES", remembered),
        mock.patch.object(_source, "PIECE_BYTES", piece),
    ):
        assert list(iter_events(io.BytesIO(data))) == list(
            iter_records(io.BytesIO(data), bulk=False)
        )
        summary = summarize_source(io.BytesIO(data), helper=False)["runs"]
    assert summary == _line_by_line(data)


def test_release_pins_read_from_memory_are_those_read_afresh(tmp_path: Path) -> None:
    """Runs of one log print the same startup lines: their evidence is read against the index
    once; each run's pin equals the one read with a fresh index (nothing remembered)."""
    from importlib import resources

    from sglang_logscope.log.pinning import pin_release
    from sglang_logscope.log.reader import iter_runs
    from sglang_logscope.parse.message_index import MessageIndex, message_index

    big = generate(tmp_path, 0.4, 7, 3)["big"]
    runs = list(iter_runs(big, helper=False))
    data = resources.files("sglang_logscope").joinpath("data/messages.idx").read_bytes()
    for run in runs * 2:
        fresh = MessageIndex.from_bytes(data)
        started = run.started_at
        assert pin_release(run.release_clues, message_index(), started) == pin_release(
            run.release_clues, fresh, started
        )
    assert sum(len(r.release_clues) for r in runs) > 20


_LEVEL_HEADS = [
    "[2026-05-09 09:00:00] ",
    "[2026-05-09 09:00:00 TP0] ",
    "[2026-05-09 09:00:00] INFO scheduler.py:12: ",
    "[2026-05-09 09:00:00] DEBUG a.b-c.py:1: ",
    "[2026-05-09 09:00:00] CRITICAL x.py:9999999: ",
    "[2026-05-09 09:00:00] ERROR x.py: ",
    "[2026-05-09 09:00:00] INFO:     ",
    "[2026-05-09 09:00:00] DEBUG:\t",
    "[2026-05-09 09:00:00] WARNING:\x0b",
    "[2026-05-09 09:00:00] CRITICAL: ",
    "[2026-05-09 09:00:00] TRACE:  ",
    "[2026-05-09 09:00:00] INFO ",
    "[2026-05-09 09:00:00] INFO:",
    "[2026-05-09 09:00:00] Info: ",
]
_LEVEL_BODIES = [
    "Decode batch, #running-req: 1, #token: 47",
    "Prefill batch. #new-seq: 1, #new-token: 7",
    '127.0.0.1:35342 - "GET /health HTTP/1.1" 200 OK',
    'DEBUG:1 - "GET / HTTP/1.1" 200 OK',
    'INFO x.py:1: 1.2.3.4:5 - "GET / HTTP/1.1" 200 OK',
    "Decode batch",
]


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(_LEVEL_HEADS) - 1), st.integers(0, len(_LEVEL_BODIES) - 1)),
        max_size=30,
    ),
    st.booleans(),
)
def test_every_layout_takes_the_same_lines(lines: list[tuple[int, int]], odd: bool) -> None:
    """The layouts that capture no level (lean, series) match the level by its first letter:
    they take exactly the lines the full layout takes, each as the same spec."""
    from sglang_logscope.parse.bulk import bulk_shape
    from sglang_logscope.parse.fastscan import FAST_LANE

    shape = bulk_shape()
    text = "\n".join(_LEVEL_HEADS[h] + _LEVEL_BODIES[b] for h, b in lines)
    data = (text + ("\n\x00odd" if odd else "")).encode()
    full = shape.cut(data, True)
    for fields in (False, "series"):
        FAST_LANE.on = False  # the regex's layouts (the C lane: tests/test_rowscan.py)
        try:
            other = shape.cut(data, fields)  # type: ignore[arg-type]
        finally:
            FAST_LANE.on = True
        assert (full is None) == (other is None)
        if full is None or other is None:
            continue
        step_full, step = shape.full.width + 1, shape.layout(fields).width + 1
        assert full.parts[0::step_full] == other.parts[0::step]  # the text between rows
        for alt in shape.alts:  # and which spec took each row
            assert (
                full.parts[1 + shape.full.witness[alt.number] :: step_full]
                == other.parts[1 + shape.layout(fields).witness[alt.number] :: step]
            )


@settings(max_examples=examples(500), deadline=None)
@given(
    st.text(alphabet="aZ09٣² \t|()-[]:._T,Z+\u00e9", max_size=40)
    | st.sampled_from(
        ["svc-1  | x", "(Actor pid=1) x", "  [2026", "2026-05-09T09:00:00Z [", "- a - INFO - x"]
    )
)
def test_the_header_split_skips_only_what_cannot_match(line: str) -> None:
    """``split_header`` skips the outer-prefix and compose patterns on a line that cannot
    start with them (no ``|``, and no leading space, digit, ``-`` or ``(``)."""
    from sglang_logscope.parse import header as H

    if line and not H._may_have_outer(line):
        outer = H._OUTER.match(line)
        assert outer is None or outer.end() == 0
    if "|" not in line:
        assert H._COMPOSE.match(line) is None
