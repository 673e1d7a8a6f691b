"""The C fast lane of the bulk path (``parse/_rowscan.c``, issue 18): it reads a strict subset
of what the joined regex takes, each line as the same alternative with the same time; a block
it reads is folded exactly as the regex's split of it would be."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import pytest
from examples import examples
from fixture_logs import FIXTURE_LOGS
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.log.reader import summarize_source
from sglang_logscope.log.runs import stream_runs
from sglang_logscope.log.tail import CHECK_KINDS
from sglang_logscope.parse import bulk
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.bulk import SERIES, LaneSummary, Rows, bulk_shape
from sglang_logscope.parse.fastscan import FAST_LANE
from sglang_logscope.parse.lines import iter_records

rowscan = pytest.importorskip("sglang_logscope.parse._rowscan")
ROOT = Path(__file__).resolve().parent.parent
SHAPE = bulk_shape()


def _regex_reading(data: bytes) -> LaneSummary | None:
    """What the fold reads of ``data`` through the regex's lean split: ``None`` unless every
    line is a row."""
    layout = SHAPE.lean
    parts = layout.fast.split(b"\n" + data)
    step = layout.width + 1
    if len(parts) == 1 or any(parts[0::step]):
        return None
    times: list[bytes] = parts[1 + layout.index["ts"] :: step]  # type: ignore[assignment]
    which = [-1] * len(times)
    for alt in SHAPE.alts:
        for row, mark in enumerate(parts[1 + layout.witness[alt.number] :: step]):
            if mark is not None and which[row] < 0:
                which[row] = alt.number
    mask = 0
    for alt_number in which:
        mask |= 1 << alt_number
    return LaneSummary(len(times), times[0], times[-1], sorted(times) == times, mask, which[-1])


def _lane(data: bytes) -> LaneSummary | None:
    cut = SHAPE.cut(data, False)
    return None if cut is None else cut.summary


def _series_lane(data: bytes) -> list[list[bytes | None]] | None:
    cut = SHAPE.cut(data, SERIES)
    return None if cut is None else cut.columns


def _series_regex(data: bytes) -> list[list[bytes | None]] | None:
    """The series layout's columns of ``data`` by the regex, ``None`` unless every line is a row."""
    layout = SHAPE.series
    parts = layout.fast.split(b"\n" + data)
    step = layout.width + 1
    if len(parts) == 1 or any(parts[0::step]):
        return None
    return [parts[j::step] for j in range(1, step)]


def _agrees(data: bytes) -> None:
    """Whatever the lane reads of ``data``, lean or for the series, the regex reads alike."""
    found = _lane(data)
    if found is not None:
        assert found == _regex_reading(data)
    columns = _series_lane(data)
    if columns is not None:
        assert columns == _series_regex(data)
    assert (found is None) == (columns is None)


# ------------------------------------------------------------------ the lines it is shown

#: Each part of a line: forms the lane reads, and near misses.
PARTS: dict[str, tuple[list[str], list[str]]] = {
    "outer": (
        ["", "2026-03-09 04:32:23 ", "2025-02-04T21:29:21.123456789Z ", "2025-02-04T21:29:21,5 "],
        ["2025-02-04T21:29:21.1234567890Z ", "2025-02-04T21:29:21. ", "2025-02-04T21:29:21Z",
         "2025-02-04 21:29:21  ", "2025-2-04 21:29:21 "],
    ),
    "date": (
        ["2026-05-09", "2024-02-29", "2000-02-29", "2026-12-31", "0400-02-29", "2026-06-30",
         "2026-07-31"],
        ["2100-02-29", "2023-02-29", "2026-04-31", "2026-13-01", "2026-00-10", "2026-01-00",
         "1900-01-01", "0000-01-01", "2026-5-09"],
    ),
    "time": (["09:00:00", "23:59:59"], ["24:00:00", "09:60:00", "09:00:60", "9:00:00"]),
    "fraction": (["", ".1", ".123456"], [".1234567", ".", ",5"]),
    "rank": (
        [" TP0", " DP1", " EP12", " PP_3", " TP-1", " ABCDEFGHIJKLMNOP1", " TP123456"],
        [" ABCDEFGHIJKLMNOPQ1", " TP1234567", " TP", " tp0", " encode_server", "  TP0", " T-"],
    ),
    "close": (["] "], ["]", "]  ", " ] "]),
    "batch": (["Prefill batch", "Decode batch"], ["Decode batc", "decode batch"]),
    "after": (
        [", #running-req: 3, #token: 9", ". #new-seq: 1", ",", "."],
        ["", " x", " [3], #running-req: 1", "(mixed #running-req: 3). #new-seq: 1"],
    ),
    "level": (["INFO:"], ["INFO", "WARNING:", "INFO "]),
    "ws": ([" ", "     ", "\t", " \x0b\x0c", " " * 10], ["", " " * 11, "\n "]),
    "client": (
        ["127.0.0.1:35342", "10.0.0.1", "1" * 100, "2001:1aef:159::0", "9a_b.c%d-e:1", "1[x]"],
        ["[::1]:80", "host:1", "1" * 101, "", "1 2"],
    ),
    "method": (["GET", "POST", "ABCDEFGHIJ"], ["get", "", "ABCDEFGHIJK"]),
    "path": (["/", "/v1/chat/completions", "/x" * 2048], ["", "/a b", "/" + "x" * 4096]),
    "version": (["1.1", "2", "1.1.1"], ["", "1.1.1.1", "1a"]),
    "status": (["200 OK", "2000", "500 Internal Server Error"], ["20", "abc", ""]),
}  # fmt: skip


def _assemble(pick: Callable[[str], str], ranks: int, batch: bool) -> str:
    """A line from a choice per part (``pick(part)``)."""
    head = pick("outer") + "[" + pick("date") + " " + pick("time") + pick("fraction")
    head += "".join(pick("rank") for _ in range(ranks)) + pick("close")
    if batch:
        return head + pick("batch") + pick("after")
    return (
        f'{head}{pick("level")}{pick("ws")}{pick("client")} - "{pick("method")} {pick("path")} '
        f'HTTP/{pick("version")}" {pick("status")}'
    )


@st.composite
def _lines(draw: st.DrawFn) -> str:
    """A form the lane reads four times in five, else a near miss, part by part: all plain
    often enough (the property needs accepted lines), off by one rule often (where a lane
    and a regex would part ways)."""

    def pick(part: str) -> str:
        valid, invalid = PARTS[part]
        if draw(st.integers(0, 4)):
            return draw(st.sampled_from(valid))
        return draw(st.sampled_from(invalid))

    return _assemble(pick, draw(st.integers(0, 3)), draw(st.booleans()))


def test_the_drawn_lines_reach_the_lane() -> None:
    """The property below is not vacuous: lines drawn as the strategy draws them (here from a
    seeded generator) are read by the lane, left to the regex, or to neither, each often."""
    import random

    rng = random.Random(18)

    def pick(part: str) -> str:
        valid, invalid = PARTS[part]
        return rng.choice(valid if rng.randrange(5) else invalid)

    seen = {"lane": 0, "regex only": 0, "neither": 0}
    for _ in range(600):
        line = _assemble(pick, rng.randrange(4), rng.random() < 0.5).encode()
        lane, by_regex = _lane(line), _regex_reading(line)
        seen["lane" if lane else "regex only" if by_regex else "neither"] += 1
    assert min(seen.values()) >= 10, seen


@settings(max_examples=examples(1500), deadline=None)
@given(_lines())
def test_a_line_the_lane_reads_the_regex_reads_alike(line: str) -> None:
    """The subset property, line by line, around every rule of the lane's grammar."""
    _agrees(line.encode())


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_lines(), min_size=1, max_size=12))
def test_a_block_the_lane_reads_folds_as_the_regex_split(lines: list[str]) -> None:
    _agrees("\n".join(lines).encode())


@settings(max_examples=examples(300), deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_leave_the_lane_quietly(data: bytes) -> None:
    """Straight into the C function, past the bulk path's checks: ``None`` or a reading."""
    found = rowscan.rows_summary(data, *SHAPE.lane)
    if found is not None:
        assert LaneSummary(*found) == _regex_reading(data)
    columns = rowscan.series_columns(data, *SHAPE.lane, len(SHAPE.alts))
    assert (columns is None) == (found is None)


def test_the_lane_reads_serving_lines_as_sglang_and_uvicorn_print_them() -> None:
    """The plain forms are taken (the lane would be no use otherwise): batch lines of old and
    new releases, hybrid fields, docker's outer time, uvicorn's access line."""
    lines = [
        "[2026-05-24 09:00:59 TP0] Prefill batch, #new-seq: 8, #new-token: 11552, "
        "#cached-token: 8032, token usage: 0.48, #running-req: 32, #queue-req: 0",
        "[2026-05-24 09:00:59 TP0] Decode batch, #running-req: 36, #full token: 112765, "
        "full token usage: 0.50, mamba num: 72, mamba usage: 0.36, accept len: 3.24",
        "[2024-11-02 10:00:00] Decode batch. #running-req: 1, #token: 47, gen throughput (token/s): 94.12",
        "2026-03-09 04:32:23 [2026-03-08 12:32:23 DP0 TP0 EP0] Decode batch, #running-req: 1",
        '[2026-03-01 08:00:32] INFO:     127.0.0.1:39132 - "GET /model_info HTTP/1.1" 200 OK',
    ]
    data = "\n".join(lines).encode()
    found = _lane(data)
    assert found == _regex_reading(data)
    assert found is not None and found.rows == 5 and found.alternatives == 0b111
    assert _series_lane(data) == _series_regex(data) is not None
    assert found.in_order is False  # 2026-03-08 after 2026-05-24


def test_a_block_with_another_line_is_left_to_the_regex() -> None:
    lines = [
        "[2026-05-24 09:00:59 TP0] Decode batch, #running-req: 1",
        "[2026-05-24 09:00:59 TP0] Load weight begin. avail mem=70.00 GB",
    ]
    assert _lane("\n".join(lines).encode()) is None
    assert _lane(b"[2026-05-24 09:00:59 TP0] Decode batch, caf\xc3\xa9") is None  # not clean


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(TypeError):
        rowscan.rows_summary("text", (), -1)
    with pytest.raises(ValueError):
        rowscan.rows_summary(b"x", ((b"", 0),), -1)
    with pytest.raises(ValueError):
        rowscan.rows_summary(b"x", tuple((b"a", 0) for _ in range(9)), -1)
    with pytest.raises(ValueError):
        rowscan.rows_summary(b"x", (), 31)
    assert rowscan.rows_summary(b"", *SHAPE.lane) is None
    with pytest.raises(ValueError):
        rowscan.series_columns(b"x", ((b"a", 3),), -1, 3)  # an alternative past the count
    with pytest.raises(ValueError):
        rowscan.series_columns(b"x", (), 0, 0)
    assert rowscan.series_columns(b"", *SHAPE.lane, 3) is None


# ------------------------------------------------------------------ whole logs, both ways


@contextlib.contextmanager
def _lane_taken() -> Iterator[list[int]]:
    """Counts, in its one item, the blocks the lane read (lean or for the series) meanwhile."""
    taken = [0]
    real_cut = SHAPE.cut

    def counting(block: bytes, fields: bulk.Fields) -> bulk.Cut | None:
        cut = real_cut(block, fields)
        taken[0] += cut is not None and (cut.summary is not None or cut.columns is not None)
        return cut

    with mock.patch.object(SHAPE, "cut", counting):
        yield taken


@contextlib.contextmanager
def _lane_off() -> Iterator[None]:
    FAST_LANE.on = False
    try:
        yield
    finally:
        FAST_LANE.on = True


def _both_ways(data: bytes) -> tuple[list[object], list[object], int]:
    """The runs with check's kinds and first rows, with the lane and without, and how many
    blocks the lane read."""
    with _lane_taken() as taken:
        fast = list(stream_runs(iter_records(io.BytesIO(data), fields=False), CHECK_KINDS, True))
    with _lane_off():
        slow = list(stream_runs(iter_records(io.BytesIO(data), fields=False), CHECK_KINDS, True))
    return fast, slow, taken[0]


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_logs_fold_the_same_with_the_lane(path: Path) -> None:
    with mock.patch.object(_source, "PIECE_BYTES", 1 << 12):
        fast, slow, _ = _both_ways(path.read_bytes())
    assert fast == slow


def test_the_lane_takes_the_serving_middle_of_a_generated_log(tmp_path: Path) -> None:
    """The benchmark's long-run shape: nearly every block of the middle goes through the lane,
    and check's reading and the summary are the regex's."""
    from benchmarks.generate import generate_long

    big = generate_long(tmp_path, 3)["big"]
    data = big.read_bytes()
    with mock.patch.object(_source, "PIECE_BYTES", 1 << 14):
        fast, slow, taken = _both_ways(data)
    assert fast == slow
    assert taken >= len(data) // (1 << 14) * 0.8
    with_lane = summarize_source(big, helper=False)
    with _lane_off():
        assert summarize_source(big, helper=False) == with_lane
    assert any(isinstance(r, Rows) and r.summary for r in iter_records(big, fields=False))


def test_the_report_series_are_the_same_with_the_lane(tmp_path: Path) -> None:
    """The report's charts (its series pass) read through the lane's columns and through the
    regex: the same series, and the lane took most blocks."""
    from benchmarks.generate import generate
    from sglang_logscope.log.series import read_for_report

    big = generate(tmp_path, size_mb=1.5, seed=3, runs=3)["big"]
    with mock.patch.object(_source, "PIECE_BYTES", 1 << 14):
        with _lane_taken() as taken:
            fast = read_for_report(big)
        with _lane_off():
            slow = read_for_report(big)
    assert (fast.log.runs, fast.last_events) == (slow.log.runs, slow.last_events)
    public = [k for k in vars(fast.serving) if not k.startswith("_")]  # (not its caches)
    assert len(public) > 3
    assert {k: vars(fast.serving)[k] for k in public} == {k: vars(slow.serving)[k] for k in public}
    assert taken[0] > 20


# ------------------------------------------------------------------ the byte pass's marks


@settings(max_examples=examples(500), deadline=None)
@given(
    st.lists(
        st.sampled_from([b"\n", b"usage: ", b"server_args=", b"x", b"=", b"u", b"\r"]), max_size=40
    ),
    st.integers(0, 400),
)
def test_block_marks_are_the_bytes_methods_answers(pieces: list[bytes], skip: int) -> None:
    data = b"".join(pieces)
    skip = min(skip, len(data))
    newlines, usage, banners = rowscan.block_marks(data, skip)
    assert newlines == data.count(b"\n", skip)
    assert usage == [k + 1 for k in range(len(data)) if data.startswith(b"\nusage: ", k)]
    assert banners == [k for k in range(len(data)) if data.startswith(b"server_args=", k)]


def test_block_marks_refuse_a_skip_past_the_data() -> None:
    with pytest.raises(ValueError):
        rowscan.block_marks(b"abc", 4)
    with pytest.raises(ValueError):
        rowscan.block_marks(b"abc", -1)


def test_the_byte_pass_finds_the_same_starters_either_way(tmp_path: Path) -> None:
    """check's byte pass (newlines, banners, usage lines) by the C scan and by numpy: one
    answer, on the long-run shape and on the fixture logs with relaunches and usage lines."""
    from benchmarks.generate import generate_long
    from sglang_logscope.log import starters

    big = generate_long(tmp_path, 2)["big"]
    logs = [big, *(p for p in FIXTURE_LOGS if b"usage: " in p.read_bytes())][:12]
    assert len(logs) > 1
    for log in logs:
        with mock.patch.object(starters, "_SMALL_SCAN", 0):  # numpy even for a small file
            fast = starters.scan_region(str(log))
            with _lane_off():
                slow = starters.scan_region(str(log))
        assert fast == slow
        assert fast.newlines == log.read_bytes().count(b"\n")
