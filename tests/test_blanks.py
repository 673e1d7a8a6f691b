"""Runs of blank lines as one record (issue 29): every reader gives what the line-by-line
reading gives, with runs of empty and whitespace-only lines mixed into real log lines.

The real lines are those of ``fixtures/real/007/server.log`` (two scheduler tracebacks with
blank lines between their parts; source in its ``meta.json``) and of
``fixtures/real/069/server.log`` (a hybrid model serving: batch lines in bulk; source in its
``meta.json``). The reference for events and runs is ``iter_records(..., bulk=False)``; for
the readers that have no line-by-line mode (JSON lines, the report's input, the frame) it is
the same reader with blank runs left to the line parser (``split_blank_runs`` taking none).
"""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pandas as pd
from examples import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sglang_logscope._text import visible
from sglang_logscope.events import EventKind
from sglang_logscope.log import runs as _runs
from sglang_logscope.log.reader import SUMMARY_KINDS, events_frame, read_log
from sglang_logscope.log.runs import stream_runs
from sglang_logscope.log.series import read_for_report
from sglang_logscope.log.tail import CHECK_KINDS, read_last_run
from sglang_logscope.parse import lines as _lines
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.blanks import Blanks, split_blank_runs
from sglang_logscope.parse.bulk import SERIES
from sglang_logscope.parse.bulk_json import event_json, iter_event_json
from sglang_logscope.parse.lines import iter_events, iter_records
from sglang_logscope.render.events import MESSAGE_LIMIT, _row, write_events_table

ROOT = Path(__file__).resolve().parent.parent
REAL = [
    line
    for name in ("007", "069")
    for line in (ROOT / "fixtures" / "real" / name / "server.log").read_bytes().split(b"\n")
]
BLANKS = [b"", b" ", b"\t", b"\r", b"  ", b" \t \r", b"\r\r"]


def _no_runs(part: bytes) -> Iterator[tuple[bytes, bool]]:
    yield part, False


@st.composite
def _logs(draw: st.DrawFn) -> bytes:
    """Slices of real lines with runs of blank lines between them (LF or CRLF)."""
    out: list[bytes] = []
    for _ in range(draw(st.integers(1, 6))):
        start = draw(st.integers(0, len(REAL) - 1))
        out += REAL[start : start + draw(st.integers(0, 40))]
        out += draw(st.lists(st.sampled_from(BLANKS), max_size=30))
        if draw(st.booleans()):
            out += [draw(st.sampled_from(BLANKS))] * draw(st.integers(0, 40))
    end = b"\r\n" if draw(st.booleans()) else b"\n"
    return end.join(out)


def _same_runs(data: bytes) -> None:
    reference = list(iter_records(io.BytesIO(data), bulk=False))
    assert list(iter_events(io.BytesIO(data))) == reference
    for keep in ((), SUMMARY_KINDS, CHECK_KINDS, frozenset(EventKind)):
        for first_row in (False, True):
            expected = list(stream_runs(reference, keep, first_row))
            for fields in (True, False, SERIES):
                records = iter_records(io.BytesIO(data), fields=fields)
                assert list(stream_runs(records, keep, first_row)) == expected


# small bounds, so that short runs cross them: the trailing preamble a run holds back and the
# lines a traceback may take
@settings(max_examples=examples(150), deadline=None)
@given(_logs(), st.sampled_from([5, 64, 1 << 18]), st.sampled_from([3, 4096]))
@example(b"\n" * 40, 7, 3)
@example(b"Traceback (most recent call last):\n" + b"\n" * 30 + b'  File "x"\nX: y', 64, 3)
def test_runs_and_events_equal_the_line_by_line_reading(data: bytes, piece: int, most: int) -> None:
    with (
        mock.patch.object(_source, "PIECE_BYTES", piece),
        mock.patch.object(_runs, "MAX_PREAMBLE", most),
        mock.patch.object(_lines, "MAX_BLOCK_LINES", 2 * most + 1),
    ):
        _same_runs(data)


@settings(max_examples=examples(60), deadline=None)
@given(_logs(), st.sampled_from([5, 1 << 18]))
def test_json_lines_report_and_frame_equal_the_reading_without_runs(
    data: bytes, piece: int
) -> None:
    with tempfile.TemporaryDirectory() as tmp, mock.patch.object(_source, "PIECE_BYTES", piece):
        path = Path(tmp) / "server.log"
        path.write_bytes(data)
        fast = _readings(str(path))
        with mock.patch.object(_lines, "split_blank_runs", _no_runs):
            slow = _readings(str(path))
    assert fast[0] == slow[0]
    assert fast[1:3] == slow[1:3]
    pd.testing.assert_frame_equal(fast[3], slow[3])
    pd.testing.assert_frame_equal(fast[4], slow[4])


def _readings(path: str) -> tuple[object, ...]:
    jsonl = "\n".join(iter_event_json(path, None, False))
    report = read_for_report(path, tail=7)
    with mock.patch.dict("os.environ", {"LOGSCOPE_NO_CACHE": "1"}):
        checked = read_last_run(path, keep=CHECK_KINDS, min_bytes=0, window=64)
    return (
        jsonl,
        (
            report.log.runs,
            [tuple(r.events) for r in report.log.runs],
            checked.runs,
            tuple(checked.events),
            [r.sglang_release for r in checked.runs],
            [r.of_kind(EventKind.TEXT, EventKind.EXCEPTION) for r in checked.runs],
        ),
        report.last_events,
        events_frame(path, chunk=50),
        events_frame(path, [EventKind.TEXT], messages=False, chunk=50),
    )


def test_json_lines_of_blank_runs_are_each_events_json() -> None:
    data = b"a\n" + b"\n" * 5 + b" \n" * 3 + b"\t\r\n \r\n" * 2 + b"b"
    expected = [event_json(e, False) for e in iter_records(io.BytesIO(data), bulk=False)]
    assert "\n".join(iter_event_json(io.BytesIO(data), None, False)).split("\n") == expected


def test_a_file_of_blank_lines_is_one_record() -> None:
    """Pieces of one repeated line join into one run (its events made only when asked)."""
    data = b"\n" * 100_000
    with mock.patch.object(_source, "PIECE_BYTES", 4096):
        records = list(iter_records(io.BytesIO(data)))
    assert len(records) == 1 and isinstance(records[0], Blanks)
    run = records[0]
    assert (run.first_line, run.count, run.data, run.uniform) == (1, 100_000, None, b"")
    assert [e.line for e in run.events(99_998, 100_000)] == [99_999, 100_000]
    log = read_log(io.BytesIO(data))
    assert [(r.first_line, r.last_line) for r in log.runs] == [(1, 100_000)]


def test_split_blank_runs_cuts_whole_lines() -> None:
    part = b"a\n\n \nb\n\t\n\nc\n\n"
    pieces = list(split_blank_runs(part))
    assert pieces == [
        (b"a", False),
        (b"\n ", True),
        (b"b", False),
        (b"\t\n", True),
        (b"c", False),
        (b"\n", True),
    ]
    assert b"\n".join(p for p, _ in pieces) == part
    assert list(split_blank_runs(b"")) == [(b"", False)]
    assert list(split_blank_runs(b"x\ny")) == [(b"x\ny", False)]


def test_the_events_table_of_blank_runs_is_each_events_row() -> None:
    """Rows of events without time or rank are made once per kind and message: the table is
    the one made row by row, line numbers of any width included."""
    data = (ROOT / "fixtures" / "real" / "007" / "server.log").read_bytes()
    data += b"\n" * 30 + b" \n" * 5 + b"\t"
    events = list(iter_events(io.BytesIO(data), first_line=9_999_990))
    out = io.StringIO()
    assert write_events_table(events, out) == len(events)
    expected = [_row("line", "time", "rank", "kind", "message", 120)]
    for e in events:
        message = visible(e.message, limit=MESSAGE_LIMIT)
        when = e.timestamp.strftime("%H:%M:%S") if e.timestamp else ""
        rank = visible(e.rank.label) if e.rank else ""
        expected.append(_row(str(e.line), when, rank, e.kind.value, message, 120))
    assert out.getvalue() == "".join("\n".join(rows) + "\n" for rows in expected)
