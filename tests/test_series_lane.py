"""The report's decode values read by the C lane (``shape_values``) equal the shape's regex
(the Python path) line for line, and the numpy buckets equal a fold one line at a time."""

from __future__ import annotations

import math
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate, generate_long
from sglang_logscope.events import EventKind
from sglang_logscope.log import series as S
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.fastscan import FAST_LANE
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.shapes import SERIES_NUMBER

rowscan = pytest.importorskip("sglang_logscope.parse._rowscan")

_TEXT = st.text(alphabet="ab #:,.()/-_=", min_size=0, max_size=6)
_DIGITS = st.text(alphabet="0123456789", min_size=1, max_size=22)
_NUMBER = st.tuples(_DIGITS, st.one_of(st.just(""), _DIGITS.map(lambda d: "." + d))).map("".join)


@st.composite
def _shape_and_lines(draw: st.DrawFn) -> tuple[bytes, list[int], list[bytes]]:
    """A sample line (literals and numbers), the numbers picked, and lines like it: other
    numbers in its places, some of them cut, grown or mangled."""
    parts = draw(st.lists(st.tuples(_TEXT, _NUMBER), min_size=1, max_size=6))
    tail = draw(_TEXT)
    sample = ("#" + "".join(t + n for t, n in parts) + tail).encode()
    count = len(list(SERIES_NUMBER.finditer(sample)))
    wanted = sorted(draw(st.sets(st.integers(0, count - 1), min_size=1, max_size=3)))
    lines = []
    for _ in range(draw(st.integers(1, 12))):
        line = "#" + "".join(t + draw(_NUMBER) for t, _ in parts) + tail
        edit = draw(st.integers(0, 3))
        if edit and line:
            at = draw(st.integers(0, len(line)))
            char = draw(st.sampled_from(["1", ".", "a", "", "#", " 2"]))
            line = line[:at] + char + line[at + (edit == 2) :]
        lines.append(line.encode())
    return sample, wanted, lines


def _read(shape: S._Shape, texts: list[bytes], lane: bool) -> tuple[object, ...]:
    with mock.patch.object(FAST_LANE, "on", lane):
        read = S._read_shape(shape, texts)
    assert read is not None
    hits, numbers, misses = read
    return hits, {k: v.tolist() for k, v in numbers.items()}, list(misses)


@settings(max_examples=examples(400), deadline=None)
@given(_shape_and_lines())
def test_the_lane_reads_what_the_shape_pattern_reads(
    case: tuple[bytes, list[int], list[bytes]],
) -> None:
    sample, wanted, lines = case
    pattern, literals = S._template(sample, wanted)
    slots = tuple(1 + i for i in range(len(wanted)))
    shape = S._Shape(pattern, slots, literals, tuple(wanted))
    assert _read(shape, [*lines, sample], True) == _read(shape, [*lines, sample], False)


def test_the_lane_refuses_what_is_not_a_shape() -> None:
    with pytest.raises(ValueError):
        rowscan.shape_values([b"a1"], (b"a", b""), (1,))  # no number 1
    with pytest.raises(TypeError):
        rowscan.shape_values([b"a1", "a2"], (b"a", b""), (0,))  # not bytes
    assert rowscan.shape_values([], (b"a", b""), (0,)) == (b"", b"")


def _fold_one_by_one(path: Path) -> dict[str, S.Series]:
    """The buckets folded a line at a time into plain dicts (``Bucket.merge``'s arithmetic)."""
    charts: dict[str, S.Series] = {"tokens": {}, "throughput": {}}
    for e in iter_events(path, helper=False):
        if e.kind is not EventKind.DECODE_BATCH or e.timestamp is None:
            continue
        rank = e.rank.label if e.rank else "all"
        minute = f"{e.timestamp:%Y-%m-%d %H:%M}"
        for chart, keys in (("tokens", S.TOKENS), ("throughput", S.THROUGHPUT)):
            S._put(charts[chart], rank, minute, S._first_number(e.fields, keys))
    return charts


@pytest.mark.parametrize("lane", [True, False])
def test_numpy_buckets_equal_a_fold_line_by_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lane: bool
) -> None:
    """Folded in many small steps (each block's runs and the pending rows sorted in), the
    buckets, their order and the drawn points are a plain one-line-at-a-time fold's."""
    monkeypatch.setattr(FAST_LANE, "on", lane)
    monkeypatch.setattr(S, "MAX_BUCKETS", 40)
    monkeypatch.setattr(S, "SETTLE_ROWS", 64)  # folded in many steps (singles every 4 rows)
    path = generate_long(tmp_path / "long", 1.2, seed=13, hours=3.0)["big"]
    streamed = S.read_for_report(path).serving
    by_events = S.ServingSeries()
    for e in iter_events(path, helper=False):
        if e.kind is EventKind.DECODE_BATCH:
            by_events.add_event(e)  # each line a single row
    plain = _fold_one_by_one(path)
    for serving in (streamed, by_events):
        _assert_folds(serving, plain)


def _assert_folds(serving: S.ServingSeries, plain: dict[str, S.Series]) -> None:
    for chart in ("tokens", "throughput"):
        mine = getattr(serving, chart)
        assert list(mine) == list(plain[chart])
        for rank, minutes in plain[chart].items():
            assert list(mine[rank]) == list(minutes)
            for minute, b in minutes.items():
                got = mine[rank][minute]
                assert (got.count, got.low, got.high) == (b.count, b.low, b.high)
                assert got.total == pytest.approx(b.total, rel=1e-12)
            widened = [
                (S._seconds(m), w.low, w.mean, w.high) for m, w in S._widen(sorted(minutes.items()))
            ]
            assert len(widened) <= 40
            drawn = serving.points(chart)[rank]
            assert [p[0] for p in drawn] == [p[0] for p in widened]
            flat = [v for p in drawn for v in p]
            assert flat == pytest.approx([v for p in widened for v in p], rel=1e-12)


_MINUTES = [f"2026-05-{d:02d} 1{h}:0{m}" for d in (9, 30) for h in (0, 7) for m in (1, 5)]


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(
                st.sampled_from(_MINUTES),
                st.one_of(st.integers(0, 10**6).map(lambda v: v / 8), st.just(math.nan)),
            ),
            min_size=1,
            max_size=9,
        ),
        max_size=30,
    ),
    st.integers(1, 40),
    st.integers(1, 5),
)
def test_folds_keep_each_minute_in_the_order_first_seen(
    batches: list[list[tuple[str, float]]], settle: int, parts: int
) -> None:
    """Rows put one by one and blocks' runs, in any order of minutes and folded at any point,
    give a one-line-at-a-time fold's buckets in its order."""
    with (
        mock.patch.object(S, "SETTLE_ROWS", settle),
        mock.patch.object(S, "SETTLE_PARTS", parts),
        mock.patch.object(S, "MAX_BUCKETS", 3),  # points merge adjacent minutes
    ):
        folds = S._Folds()
        plain: S.Series = {}
        for i, batch in enumerate(batches):
            for minute, value in batch:
                S._put(plain, "r", minute, value)
            if i % 2 or any(math.isnan(v) for _, v in batch):  # (nan: a line the parser read)
                for minute, value in batch:
                    folds.put(minute.encode(), value)
                continue
            keys = [m.encode() for m, _ in batch]
            starts = [j for j in range(len(keys)) if j == 0 or keys[j] != keys[j - 1]]
            ends = [*starts[1:], len(keys)]
            runs = [[v for _, v in batch[a:b]] for a, b in zip(starts, ends, strict=True)]
            folds.add(
                np.array([keys[a] for a in starts], "S16"),
                np.array([len(r) for r in runs]),
                np.array([sum(r) for r in runs]),
                np.array([min(r) for r in runs]),
                np.array([max(r) for r in runs]),
            )
        got = folds.buckets() if batches else {}
        want = plain.get("r", {})
        widened = [(m, w.low, w.high) for m, w in S._widen(sorted(want.items()))]
        drawn = folds.points() if batches else []
    assert list(got) == list(want)
    for minute, b in want.items():
        g = got[minute]
        assert repr((g.count, g.low, g.high)) == repr((b.count, b.low, b.high))  # nan as nan
        assert g.total == pytest.approx(b.total, rel=1e-12, nan_ok=True)
    assert repr([(lo, hi) for _, lo, _, hi in drawn]) == repr([(lo, hi) for _, lo, hi in widened])


def _odd_log(path: Path, lines: int) -> Path:
    """Decode rows of three shapes (one the parser types otherwise) on four ranks, in the
    plainest form the C lane reads, after one startup line."""
    out = ["[2026-05-25 16:59:59] server_args=ServerArgs(model_path='m', tp_size=2)"]
    for i in range(lines):
        stamp = (
            f"[2026-05-25 {17 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d} DP{i % 4} TP{i % 2}]"
        )
        if i % 7 == 0:
            body = f"#running-req: 5, #token: 5, token usage: 0.{i % 10}0, gen throughput (token/s): 5.00, #queue-req: 0"
        elif i % 11 == 0:
            body = f"#running-req: 1, #token: 1e3, token usage: 1.5 GB, gen throughput (token/s): nan, #queue-req: {i}"
        else:
            body = f"#running-req: {i}, #full token: {i * 7}, full token usage: 0.5, mamba num: 3, gen throughput (token/s): {i}.25, #queue-req: 0"
        out.append(f"{stamp} Decode batch, {body}")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("log", ["odd", "many"])
def test_the_lane_reads_a_blocks_decode_rows_as_its_columns_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, log: str
) -> None:
    """Blocks of plain rows read from their bytes by ``decode_values`` (rows of other shapes,
    several ranks, the first block before any shape is known) fold as the columns' reading
    does with the lane off: the same buckets, lines, peak usage and points."""
    monkeypatch.setattr(S, "MAX_POINTS", 10)  # the buckets drawn early: the lane reads the rest
    monkeypatch.setattr(_source, "PIECE_BYTES", 1 << 13)
    path = (
        _odd_log(tmp_path / "odd.log", 3000) if log == "odd" else generate(tmp_path, 1.5, 4)["big"]
    )
    calls = []
    real = S.decode_values
    monkeypatch.setattr(S, "decode_values", lambda *a: calls.append(real(*a)) or calls[-1])
    fast = S.read_for_report(path).serving
    assert sum(c is not None for c in calls) > 10
    with mock.patch.object(FAST_LANE, "on", False):
        slow = S.read_for_report(path).serving
    assert fast.charts == slow.charts and fast.charts["tokens"]
    assert (fast.lines, fast.peak_usage, fast.raw) == (slow.lines, slow.peak_usage, slow.raw)
    assert fast.points("throughput") == slow.points("throughput")
