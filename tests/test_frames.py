"""The pandas view (issue 6, target 3): typed columns, categoricals, no object columns for
batch rows once the message text is left out."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import events_frame, read_log

ROOT = Path(__file__).resolve().parent.parent
HYBRID = next((ROOT / "fixtures" / "real").glob("069*/server.log"))  # corpus 069: batch lines
BATCH = [EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH]


def test_batch_rows_are_typed_columns() -> None:
    log = read_log(HYBRID)
    df = log.to_dataframe(kinds=BATCH)
    batch = [e for e in log.events if e.kind in BATCH]
    assert len(df) == len(batch) > 50
    assert list(df["line"]) == [e.line for e in batch]
    assert isinstance(df["kind"].dtype, pd.CategoricalDtype)
    assert isinstance(df["rank"].dtype, pd.CategoricalDtype)
    assert str(df["run"].dtype) == "Int32" and df["run"].notna().all()
    assert pd.api.types.is_datetime64_any_dtype(df["timestamp"])
    for column in ("running_req", "gen_throughput", "mamba_usage", "new_token"):
        assert pd.api.types.is_numeric_dtype(df[column]), column
    first = df.iloc[0]
    assert first["new_token"] == batch[0].fields["new_token"]
    assert df["message"].iloc[0] == batch[0].message


def test_without_messages_no_column_is_an_object_column() -> None:
    log = read_log(HYBRID)
    full = log.to_dataframe(kinds=BATCH)
    lean = log.to_dataframe(kinds=BATCH, messages=False)
    assert "message" not in lean.columns
    assert [c for c in lean.columns if lean[c].dtype == object] == []
    assert lean.equals(full.drop(columns=["message"]))
    per_row = lean.memory_usage(deep=True).sum() / len(lean)
    assert per_row < full.memory_usage(deep=True).sum() / len(full) / 2


def test_an_empty_selection_is_an_empty_frame() -> None:
    log = read_log(HYBRID)
    assert log.to_dataframe(kinds=[EventKind.NCCL_ERROR]).empty
    assert "message" not in log.to_dataframe(kinds=[EventKind.NCCL_ERROR], messages=False)


def _same_frame(streamed: pd.DataFrame, whole: pd.DataFrame) -> None:
    assert sorted(streamed.columns) == sorted(whole.columns)
    pd.testing.assert_frame_equal(
        streamed[list(whole.columns)],
        whole,
        check_dtype=False,  # a field column is float where a chunk lacks the field
        check_categorical=False,
    )


def _without_the_weight_dump(tmp_path: Path) -> Path:
    """HYBRID less its ~1,950 printed weight shapes (``model.…``/``visual.… torch.Size(…)``
    lines, one unknown text each): every kind of event it has in ~200 lines, so a frame of
    one row a chunk stays cheap."""
    lines = HYBRID.read_bytes().splitlines(keepends=True)
    lean_lines = [line for line in lines if not line.startswith((b"model.", b"visual."))]
    assert len(lean_lines) < 250 < len(lines)
    lean = tmp_path / "server.log"
    lean.write_bytes(b"".join(lean_lines))
    return lean


def test_streamed_frame_is_the_log_frame_in_any_chunk_size(tmp_path: Path) -> None:
    demo = ROOT / "fixtures" / "demo" / "sglang-serve.log"
    lean = _without_the_weight_dump(tmp_path)
    for path, chunks in ((HYBRID, (7, 100_000)), (lean, (1, 7)), (demo, (1, 7, 100_000))):
        log = read_log(path)
        for kinds in (None, BATCH, [EventKind.LOAD_WEIGHT_END, EventKind.KV_CACHE_ALLOCATED]):
            whole = log.to_dataframe(kinds=kinds)
            for chunk in chunks:
                _same_frame(events_frame(path, kinds, chunk=chunk), whole)
            # the reference path too (tests/test_bulk_frame.py takes it in one chunk size)
            _same_frame(events_frame(path, kinds, chunk=chunks[-1] // 2 + 1, bulk=False), whole)
    lean = events_frame(HYBRID, BATCH, messages=False, chunk=10)
    assert [c for c in lean.columns if lean[c].dtype == object] == []
    assert isinstance(lean["rank"].dtype, pd.CategoricalDtype)


@pytest.mark.filterwarnings("error::FutureWarning")
def test_chunks_without_a_level_or_rank_share_the_categories() -> None:
    """In 7-row chunks of the offline-engine log, some chunks hold no level or rank (no
    categories): the chunks' columns get one categorical dtype before they are joined, so the
    frame is categorical as a one-chunk frame is, with the same categories, on pandas 2 (which
    warned that its rule for all-missing chunks changes; the matrix's 3.10 suites run it) and 3."""
    path = ROOT / "fixtures" / "engine" / "offline_engine_api.log"
    whole = events_frame(path, chunk=100_000)
    chunked = events_frame(path, chunk=7)
    assert len(chunked) == len(whole) > 14  # three chunks at least
    for col in ("level", "rank"):
        assert isinstance(chunked[col].dtype, pd.CategoricalDtype), col
        assert chunked[col].dtype == whole[col].dtype, col  # the categories, in their order
        assert chunked[col].astype(object).equals(whole[col].astype(object)), col
