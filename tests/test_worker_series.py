"""Per-worker serving series of several logs (issue 30, item 3): each worker's prefill
throughput (``Prefill batch``: input throughput), decode throughput (``Decode batch``: gen
throughput) and queue depth (``#queue-req``), per DP/TP rank, folded per minute, drawn in the
report of several logs and in the notebook view of :class:`Launches` as inline SVG.

Fixture: ``fixtures/launches/pd-serving`` (synthetic, see its meta.json: no public PD log
with batch lines exists) — a prefill server (9 batch lines, TP0) and a decode server with
DP attention (3 lines on DP0 TP0, 3 on DP1 TP8)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from cli_run import run_captured as _run

from sglang_logscope.events import EventKind
from sglang_logscope.log.launches import read_launches
from sglang_logscope.log.series import MAX_POINTS, WORKER_VALUES, WorkerSeries, read_for_report
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.render.launch_html import WORKER_SERIES

ROOT = Path(__file__).resolve().parent.parent
SERVING = ROOT / "fixtures" / "launches" / "pd-serving"
META = json.loads((SERVING / "meta.json").read_text(encoding="utf-8"))
PREFILL, DECODE = str(SERVING / "prefill.log"), str(SERVING / "decode.log")


def _charts(html: str) -> dict[str, dict[str, int]]:
    """Per per-worker chart (its title), per line (rank), its number of points."""
    out = {}
    for svg in re.findall(r"<svg[^>]*id='chart-worker-\d+-[a-z]+'.*?</svg>", html, re.S):
        title = re.search(r"<title>([^<]*)</title>", svg)
        assert title is not None
        lines = re.findall(r"<polyline[^>]*points='([^']*)'[^>]*><title>([^<]*)</title>", svg)
        out[title[1]] = {rank: len(points.split()) for points, rank in lines}
    return out


def test_each_series_has_its_title_and_unit() -> None:
    assert set(WORKER_SERIES) == set(WORKER_VALUES)


def test_the_fixture_folds_into_each_rank() -> None:
    prefill = read_for_report(PREFILL, tail=1, workers=True).workers
    decode = read_for_report(DECODE, tail=1, workers=True).workers
    assert prefill is not None and decode is not None
    counts = {rank: len(p) for rank, p in prefill.points("prefill").items()}
    assert counts == META["prefill_lines"] and prefill.points("decode") == {}
    counts = {rank: len(p) for rank, p in decode.points("decode").items()}
    assert counts == META["decode_lines"] and decode.points("prefill") == {}
    queue = decode.points("queue")
    assert [v for _, v in queue["DP0 TP0"]] == [2.0, 4.0, 5.0]  # as the lines print them
    # the per-minute buckets: prefill's 3, 2 and 4 lines a minute
    minutes = prefill.series["prefill"]["TP0"]
    assert [b.count for _, b in sorted(minutes.items())] == [3, 2, 4]
    assert minutes["2026-03-02 10:02"].mean == pytest.approx((7300.0 + 6900.75) / 2)


@pytest.mark.parametrize("log", [PREFILL, DECODE])
def test_bulk_rows_fold_as_the_parsers_events(log: str) -> None:
    """The report's streamed read (bulk rows where the scanner takes them) and the line
    parser's events give the same buckets."""
    from_events = WorkerSeries()
    for event in iter_events(log):
        from_events.add(event)
    streamed = read_for_report(log, tail=1, workers=True).workers
    assert streamed is not None
    assert streamed.lines == from_events.lines
    for chart in WORKER_VALUES:
        assert _buckets(streamed, chart) == _buckets(from_events, chart)


def _buckets(w: WorkerSeries, chart: str) -> dict[str, list[tuple[str, int, float]]]:
    return {
        rank: [(m, b.count, round(b.total, 6)) for m, b in sorted(minutes.items())]
        for rank, minutes in w.series[chart].items()
    }


def test_many_lines_are_drawn_per_minute(tmp_path: Path) -> None:
    """Beyond MAX_POINTS points a chart draws the minutes' means: memory and points follow
    the minutes, not the lines."""
    lines = (SERVING / "decode.log").read_text(encoding="utf-8").splitlines()[:2]
    for i in range(MAX_POINTS + 400):
        minute, second = divmod(i * 5 // 60, 60)[1], (i * 5) % 60
        lines.append(
            f"[2026-03-02 11:{minute:02d}:{second:02d} DP{i % 2} TP{8 * (i % 2)}] Decode batch, "
            f"#running-req: 32, #token: 9120, token usage: 0.04, cuda graph: True, "
            f"gen throughput (token/s): {2000 + i % 7}.50, #queue-req: {i % 3}"
        )
    log = tmp_path / "long.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    w = read_for_report(str(log), tail=1, workers=True).workers
    assert w is not None and w.lines[EventKind.DECODE_BATCH] == MAX_POINTS + 400
    assert w.raw["decode"] is None  # too many lines to keep each
    spans = {m for minutes in w.series["decode"].values() for m in minutes}
    points = w.points("decode")
    assert set(points) == {"DP0 TP0", "DP1 TP8"}
    assert all(len(p) == len(spans) for p in points.values())


def test_report_draws_a_chart_per_worker_with_each_line_a_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = tmp_path / "<b>decode&.log"  # a file name is untrusted text too
    shutil.copy(DECODE, odd)
    page = tmp_path / "r.html"
    code, _, err = _run(["report", "--html", str(page), PREFILL, str(odd)], capsys)
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert (
        "<script" not in html
        and "<b>decode" not in html
        and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    )
    charts = _charts(html)
    prefill = META["prefill_lines"]
    decode = META["decode_lines"]
    assert charts == {
        "Prefill throughput (input, Prefill batch lines) — prefill": prefill,
        "Queue depth (#queue-req) — prefill": prefill,
        "Decode throughput (gen, Decode batch lines) — decode": decode,
        "Queue depth (#queue-req) — decode": decode,
    }
    assert html.count("<h3>") == 2


def test_a_worker_without_batch_lines_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    node0 = str(ROOT / "fixtures" / "launches" / "two-node-oom" / "node0.log")
    page = tmp_path / "r.html"
    code, _, err = _run(["report", "--html", str(page), PREFILL, node0], capsys)
    assert code in (0, 1), err
    html = page.read_text(encoding="utf-8")
    assert "No Prefill batch or Decode batch lines in this log." in html
    assert len(_charts(html)) == 2  # the prefill worker's two


def test_launches_in_a_notebook_draw_each_worker(tmp_path: Path) -> None:
    odd = tmp_path / "<i>prefill.log"
    shutil.copy(PREFILL, odd)
    html = read_launches([str(odd), DECODE])._repr_html_()
    assert "<i>prefill" not in html and "&lt;i&gt;prefill.log" in html and "<script" not in html
    charts = _charts(html)
    assert charts["Decode throughput (gen, Decode batch lines) — decode"] == META["decode_lines"]
    assert charts["Prefill throughput (input, Prefill batch lines) — prefill"] == {"TP0": 9}
    assert html.count("<svg") == 4
    launches = read_launches([str(odd), DECODE])
    odd.unlink()  # gone since it was read: its charts are not drawn, and that is said
    html = launches._repr_html_()
    assert html.count("<svg") == 2 and "&lt;i&gt;prefill.log: not read again" in html


def test_points_are_on_the_log_s_clock_in_any_zone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each line's point and each minute's mean are placed by the log's wall clock, not this
    machine's zone (five hours west of UTC a 10:01:08 row was drawn at 15:01:08)."""
    import time
    from datetime import datetime, timedelta

    from sglang_logscope.timing import wall_seconds

    start = datetime(2026, 3, 2, 10, 0, 0)
    lines = [f"[{start + timedelta(seconds=5 * i)} DP0 TP0] Decode batch, #running-req: 1, "
             "#token: 9, token usage: 0.04, gen throughput (token/s): 20.50, #queue-req: 0"
             for i in range(MAX_POINTS + 400)]  # fmt: skip
    many = tmp_path / "many.log"
    many.write_text("\n".join(lines) + "\n", encoding="utf-8")
    seen = {}
    try:
        for zone in ("UTC0", "WST+5"):
            monkeypatch.setenv("TZ", zone)
            time.tzset()
            raw = read_for_report(DECODE, tail=1, workers=True).workers
            minutes = read_for_report(str(many), tail=1, workers=True).workers
            assert raw is not None and minutes is not None and minutes.raw["decode"] is None
            seen[zone] = (raw.points("decode"), minutes.points("decode"))
    finally:
        monkeypatch.undo()
        time.tzset()
    assert seen["UTC0"] == seen["WST+5"]
    first = min(t for pts in seen["UTC0"][1].values() for t, _ in pts)
    assert first == wall_seconds(datetime(2026, 3, 2, 10, 0))
