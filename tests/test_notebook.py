"""Notebook views (issue #16): short reprs, ``_repr_html_`` for CheckReport and Run with log
text escaped, nullable integer and boolean columns, zone-aware outer times and, where the
log's zone is known, zone-aware timestamps."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from sglang_logscope import check, read_log
from sglang_logscope.log.reader import events_frame

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LOG = DEMO / "sglang-serve.log"


def test_reprs_are_one_short_line() -> None:
    report = check(str(LOG), expect=DEMO / "command.txt")
    run = report.run
    assert run is not None and run.server_args is not None and len(run.server_args) > 100
    for text in (repr(run), repr(report)):
        assert "\n" not in text and len(text) < 400, text
    assert "failure=not_enough_memory@20" in repr(run)
    assert "verdict=mismatch" in repr(report) and "exit_code=1" in repr(report)


def test_html_views_escape_the_log(tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.log"
    text = LOG.read_text(encoding="utf-8").replace(
        "Not enough memory", "Not enough <script>alert(1)</script> memory"
    )
    hostile.write_text(text, encoding="utf-8")
    report = check(str(hostile), expect=DEMO / "command.txt")
    assert report.run is not None
    for page in (report._repr_html_(), report.run._repr_html_()):
        assert "<script>" not in page and "&lt;script&gt;" in page
    page = report._repr_html_()
    assert "MISMATCH" in page and "mem_fraction_static" in page and "LS" in page


def test_integer_and_boolean_fields_with_gaps_stay_nullable() -> None:
    frame = read_log(str(LOG)).to_dataframe()
    assert frame["percent"].dtype == "Int64" and frame["percent"].isna().any()
    assert frame["run"].dtype == "Int32"
    streamed = events_frame(str(LOG), chunk=3)
    assert streamed["percent"].dtype == "Int64"
    assert list(streamed["percent"].dropna()) == list(frame["percent"].dropna())


def test_received_at_is_zone_aware(tmp_path: Path) -> None:
    lines = LOG.read_text(encoding="utf-8").splitlines()
    wrapped = tmp_path / "k.log"
    wrapped.write_text(
        "".join(f"2026-05-09T09:17:{i % 60:02d}.5Z {line}\n" for i, line in enumerate(lines)),
        encoding="utf-8",
    )
    frame = read_log(str(wrapped)).to_dataframe()
    assert isinstance(frame["received_at"].dtype, pd.DatetimeTZDtype)
    assert str(frame["received_at"].dt.tz) == "UTC"
    assert "received_at" not in read_log(str(LOG)).to_dataframe().columns


def test_timestamps_are_naive_when_the_zone_is_unknown() -> None:
    frame = read_log(str(LOG)).to_dataframe()
    assert frame["timestamp"].dt.tz is None and frame.attrs["time_zone"] is None
    assert frame["timestamp"].iloc[0] == pd.Timestamp("2026-05-09 09:17:42")


def test_timestamps_are_zone_aware_with_the_log_zone() -> None:
    log = read_log(str(LOG))
    frame = log.to_dataframe(tz="Europe/Berlin")
    assert isinstance(frame["timestamp"].dtype, pd.DatetimeTZDtype)
    assert frame.attrs["time_zone"] == "Europe/Berlin"
    assert frame["timestamp"].iloc[0] == pd.Timestamp("2026-05-09 07:17:42", tz="UTC")
    streamed = events_frame(str(LOG), chunk=3, tz="Europe/Berlin")
    assert list(streamed["timestamp"]) == list(frame["timestamp"])
    assert streamed["percent"].dtype == "Int64"  # the nullable dtypes stay


@pytest.mark.parametrize("chunk", [3, 20_000])
def test_a_wrapped_log_gives_its_frame_the_zone_of_its_receive_times(
    tmp_path: Path, chunk: int
) -> None:
    from tests.test_times import _shifted

    pod = str(_shifted(tmp_path, 2))
    for frame in (read_log(pod).to_dataframe(), events_frame(pod, chunk=chunk)):
        assert frame.attrs["time_zone"] == "+02:00"
        assert str(frame["timestamp"].dt.tz) == "UTC+02:00"
        first = frame["timestamp"].iloc[0]
        assert first == pd.Timestamp("2026-05-09 07:17:42", tz="UTC")
        assert first.isoformat() == "2026-05-09T09:17:42+02:00"
        assert frame["percent"].dtype == "Int64"
