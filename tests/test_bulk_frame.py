"""``events_frame`` made from the bulk columns (issue 18, target 5b): the same frame —
values, column order and dtypes — as every row through its ``Event``, on every fixture log,
on both generated shapes and on hypothesis mixes of batch lines; and the fast path really
takes the rows."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from examples import examples
from fixture_logs import FIXTURE_LOGS
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bulk_json import _batch_lines

from sglang_logscope import read_log
from sglang_logscope.events import EventKind
from sglang_logscope.log.bulk_frame import chunk_frames
from sglang_logscope.log.frames import event_row
from sglang_logscope.log.reader import _RunOfLine, events_frame, iter_runs
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.bulk_columns import BulkColumns, _placed
from sglang_logscope.parse.lines import iter_records

ROOT = Path(__file__).resolve().parent.parent
BATCH = [EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH]


def _equal(fast: pd.DataFrame, ref: pd.DataFrame) -> None:
    assert list(fast.columns) == list(ref.columns)
    assert list(fast.dtypes) == list(ref.dtypes)
    assert fast.equals(ref)
    assert fast.attrs == ref.attrs  # the zone the printed times show (a wrapped log's)
    pd.testing.assert_frame_equal(fast, ref, check_exact=True)


def _same(path: Path, chunks: tuple[int, ...] = (20_000, 7)) -> None:
    """The fast frame in each of ``chunks`` is the reference's; the reference is taken once
    (in its first chunk size): it is the same frame in any (tests/test_frames.py)."""
    for kinds in (None, BATCH, [EventKind.HTTP_ACCESS]):
        for messages in (True, False):
            ref = events_frame(path, kinds, messages=messages, chunk=chunks[0], bulk=False)
            for chunk in chunks:
                _equal(events_frame(path, kinds, messages=messages, chunk=chunk), ref)


def _stats(path: Path) -> BulkColumns:
    """The fast path's counters over all of ``path``'s rows."""
    index = _RunOfLine(list(iter_runs(path)))
    stats = BulkColumns(
        lambda e: event_row(e, index, True), index.of_lines, None, messages=True, missing=np.nan
    )
    for _ in chunk_frames(
        iter_records(path), index, index.of_lines, None, messages=True, chunk=1000, stats=stats
    ):
        pass
    return stats


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_logs_give_the_same_frame(path: Path) -> None:
    with mock.patch.object(_source, "PIECE_BYTES", 4096):  # real logs fit in one piece
        _same(path)


def test_batch_rows_of_a_real_log_go_the_fast_way() -> None:
    """A check that can fail: corpus 069's batch rows (hybrid decode fields) are all made
    from their columns."""
    stats = _stats(next((ROOT / "fixtures" / "real").glob("069*/server.log")))
    assert stats.fast > 50 and stats.slow == 0


def test_blocks_of_a_known_shape_are_split_by_it() -> None:
    """The long-run shape's decode and prefill blocks take their numbers from the shape's
    own row pattern (not the general split), and give the reference's frame."""
    from benchmarks.generate import generate_long

    with tempfile.TemporaryDirectory() as tmp:
        big = generate_long(Path(tmp), 0.4, seed=3)["big"]
        with mock.patch.object(_source, "PIECE_BYTES", 1 << 15):
            stats = _stats(big)
            _same(big, (20_000,))
    assert stats.by_shape > stats.fast // 2


@settings(max_examples=examples(3), deadline=None)
@given(seed=st.integers(0, 10_000), long=st.booleans())
def test_generated_logs_give_the_same_frame(seed: int, long: bool) -> None:
    """Both benchmark shapes (many runs of every era on TP and DP ranks, ``docker logs -t``
    with receive times; one long run with the hybrid decode fields), in pieces and chunks
    that cut blocks, and nearly every row made fast."""
    from benchmarks.generate import generate, generate_long

    with tempfile.TemporaryDirectory() as tmp:
        make = generate_long if long else generate
        big = make(Path(tmp), 0.3, seed=seed)["big"]
        with mock.patch.object(_source, "PIECE_BYTES", 1 << 15):
            _same(big, (20_000, 333))
            stats = _stats(big)
    assert stats.fast > 500
    assert stats.slow <= stats.fast  # the docker-wrapped runs' rows go the reference way


@settings(max_examples=examples(150), deadline=None)
@given(_batch_lines(), st.sampled_from([64, 1 << 18]), st.sampled_from([3, 20_000]))
def test_any_batch_values_give_the_same_frame(text: str, piece: int, chunk: int) -> None:
    """Any value text (trailing and leading zeros, exponents, 20 digits, units, bools,
    lists), labels with quotes, backslashes and DEL, optional groups, ranks."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "server.log"
        path.write_text(text, encoding="ascii")
        with mock.patch.object(_source, "PIECE_BYTES", piece):
            for kinds in (None, BATCH):
                ref = events_frame(path, kinds, messages=False, chunk=chunk, bulk=False)
                _equal(events_frame(path, kinds, messages=False, chunk=chunk), ref)


def _decode(second: int, running: object, graph: object, extra: str = "") -> str:
    return (
        f"[2026-05-09 09:00:{second:02d}] Decode batch, #running-req: {running}, #token: 5, "
        f"token usage: 0.10, cuda graph: {graph}, gen throughput (token/s): 1.00, "
        f"#queue-req: 0{extra}"
    )


def test_a_column_typed_apart_by_its_chunks_gives_a_frame(tmp_path: Path) -> None:
    """Synthetic (no real log mixes these): ``cuda graph`` a bool in the first chunk and text
    in the second, ``#running-req`` an int in one chunk and past int64 (kept as text) in
    another, ``accept len`` only in some rows. Chunked, the frame was a TypeError /
    OverflowError; now it is the one-frame typing (numbers, else objects with NaN), the same
    on both paths and as ``read_log(...).to_dataframe()``."""
    lines = [_decode(i, i, "True" if i < 3 else "x") for i in range(6)]
    lines += [
        _decode(i, 5 if i < 9 else 2**70, "True", ", accept len: 1.5" * (i == 7))
        for i in range(6, 12)
    ]
    lines += [_decode(12, 7, "False")]
    path = tmp_path / "server.log"
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    whole = read_log(path).to_dataframe(BATCH, messages=False)
    for chunk in (3, 4, 20_000):
        ref = events_frame(path, BATCH, messages=False, chunk=chunk, bulk=False)
        fast = events_frame(path, BATCH, messages=False, chunk=chunk)
        _equal(fast, ref)
        _equal(fast, whole)
    assert fast["cuda_graph"].tolist() == [True] * 3 + ["x"] * 3 + [True] * 6 + [False]
    assert fast["running_req"].dtype == np.float64
    # (pandas before 3 reads the 22-digit text one ulp off: its own float parser)
    assert math.isclose(fast["running_req"].iloc[-4], float(2**70), rel_tol=1e-15)


def test_an_empty_selection_is_the_same_empty_frame(tmp_path: Path) -> None:
    path = next((ROOT / "fixtures" / "real").glob("069*/server.log"))
    for messages in (True, False):
        fast = events_frame(path, [EventKind.NCCL_ERROR], messages=messages)
        ref = events_frame(path, [EventKind.NCCL_ERROR], messages=messages, bulk=False)
        assert fast.empty and list(fast.columns) == list(ref.columns)


@pytest.mark.parametrize("placed", [0, 100])  # 100 rows of one part: placed by numpy
def test_a_placed_column_keeps_the_missing_value_itself(placed: int) -> None:
    """A row a column lacks holds the missing value itself, not an equal copy: the frame's
    field types are the types of the values that are not it (numpy 1.24's ``np.full`` stored
    a copy of NaN, so the gaps read as floats and an int column became float64 in some
    chunks on the lowest floors)."""
    missing = float("nan")
    parts = [(list(range(0, 2 * placed, 2)), list(range(placed)))] if placed else []
    column = _placed(parts, 201, missing)
    assert [v for v in column if v is not missing] == list(range(placed))
