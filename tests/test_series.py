"""The streamed decode series read what the parser's events hold, and stay bounded."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from benchmarks.generate import generate, generate_long
from sglang_logscope.events import EventKind
from sglang_logscope.log import series as S
from sglang_logscope.log.series import ServingSeries, read_for_report
from sglang_logscope.parse.bulk import SERIES
from sglang_logscope.parse.lines import iter_events, iter_records
from sglang_logscope.render.html import render_html
from sglang_logscope.staleness.report import full_report

ROOT = Path(__file__).resolve().parent.parent
REAL = sorted((ROOT / "fixtures" / "real").glob("*/server.log"))


def _by_events(path: Path) -> ServingSeries:
    ref = ServingSeries()
    for e in iter_events(path, helper=False):
        if e.kind is EventKind.DECODE_BATCH:
            ref.add_event(e)
    return ref


def _dump(series: S.Series) -> dict[str, dict[str, tuple[int, float, float, float]]]:
    return {
        rank: {m: (b.count, round(b.total, 6), b.low, b.high) for m, b in minutes.items()}
        for rank, minutes in series.items()
    }


def _same(path: Path) -> ServingSeries:
    """The series folded from the bulk rows (the full layout and the report's own) equals the
    one from the parser's events: buckets, the order ranks and minutes first appear in (the
    page draws them in that order), peak usage and the raw points."""
    ref = _by_events(path)
    for fields in (True, SERIES):
        streamed = ServingSeries()
        for item in iter_records(path, fields=fields, helper=False):
            streamed.add(item)
        assert streamed.lines == ref.lines
        for mine, theirs in ((streamed.tokens, ref.tokens), (streamed.throughput, ref.throughput)):
            assert _dump(mine) == _dump(theirs)
            assert [(r, list(m)) for r, m in mine.items()] == [
                (r, list(m)) for r, m in theirs.items()
            ]
        assert streamed.peak_usage == ref.peak_usage
        assert streamed.raw == ref.raw
    return streamed


@pytest.mark.parametrize("shape", ["long", "many"])
@pytest.mark.parametrize("seed", [0, 7])
def test_streamed_buckets_equal_the_events(tmp_path: Path, shape: str, seed: int) -> None:
    out = tmp_path / f"{shape}{seed}"
    paths = generate_long(out, 1.2, seed=seed) if shape == "long" else generate(out, 1.2, seed)
    streamed = _same(paths["big"])
    assert streamed.lines > S.MAX_POINTS
    assert streamed.raw["tokens"] is None  # too many points: drawn from the buckets


@pytest.mark.parametrize("path", REAL, ids=[p.parent.name for p in REAL])
def test_streamed_buckets_equal_the_events_on_real_logs(path: Path) -> None:
    _same(path)


def test_lines_of_other_shapes_go_through_the_parser(tmp_path: Path) -> None:
    """A shape the numbers cannot give unambiguously (two equal numbers), a value the parser
    types otherwise, and shapes alternating line by line all read as the events do."""
    lines = []
    for i in range(300):
        stamp = f"[2026-05-25 17:{i // 60:02d}:{i % 60:02d} TP0]"
        if i % 3 == 0:
            body = f"#running-req: 5, #token: 5, token usage: 0.{i % 10}0, gen throughput (token/s): 5.00, #queue-req: 0"
        elif i % 3 == 1:
            body = f"#running-req: {i}, #full token: {i * 7}, full token usage: 0.5, mamba num: 3, gen throughput (token/s): {i}.25, #queue-req: 0"
        else:
            body = f"#running-req: 1, #token: 1e3, token usage: 1.5 GB, gen throughput (token/s): nan, #queue-req: {i}"
        lines.append(f"{stamp} Decode batch, {body}")
    log = tmp_path / "odd.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _same(log)


def test_points_are_bounded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(S, "MAX_BUCKETS", 50)
    paths = generate_long(tmp_path / "long", 1.2, seed=3, hours=30.0)
    read = read_for_report(paths["big"])
    for chart in ("tokens", "throughput"):
        for points in read.serving.points(chart).values():
            assert 0 < len(points) <= 50
            assert all(lo <= mean <= hi for _, lo, mean, hi in points)
    assert [e.line for e in read.last_events][-1] == sum(1 for _ in paths["big"].open())


def test_report_of_a_long_run_draws_bands(tmp_path: Path) -> None:
    paths = generate_long(tmp_path / "long", 1.2, seed=5)
    page = render_html(full_report(paths["big"], paths["cmd"]))
    assert page.count("<polygon class='band'") == 2  # tokens and throughput, one rank
    assert "per minute per rank" in page
    points = re.findall(r"<polyline class='series' points='([^']*)'", page)
    assert len(points) == 2 and all(0 < len(p.split()) <= S.MAX_BUCKETS for p in points)
    assert "Last lines of the checked run" in page and "Application shutdown complete" in page
    shutil.rmtree(tmp_path / "long")


def test_ever_changing_shapes_fall_back_to_the_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Decode lines of a new shape each (a label that changes): after the cap on shapes made,
    the parser reads them; the buckets are the events' all the same."""
    monkeypatch.setattr(S, "MAX_SHAPES_MADE", 5)
    lines = [
        f"[2026-05-25 17:{i // 60:02d}:{i % 60:02d} TP0] Decode batch, #running-req: 1, "
        f"#token: {i}, x{'y' * i}: 1, gen throughput (token/s): {i}.5, #queue-req: 0"
        for i in range(120)
    ]
    log = tmp_path / "shapes.log"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _same(log)


def _page_both_ways(path: Path) -> str:
    """The streamed report's page, asserted equal to the page whose charts come from the
    parser's decode events (the reference the fast path must draw exactly)."""
    report = full_report(path)
    page = render_html(report)
    assert page == render_html(dataclasses.replace(report, serving=_by_events(path)))
    return page


@pytest.mark.parametrize("path", REAL, ids=[p.parent.name for p in REAL])
def test_the_page_draws_the_events_charts_on_real_logs(path: Path) -> None:
    _page_both_ways(path)


@pytest.mark.parametrize("shape", ["long", "many"])
def test_the_page_draws_the_events_charts_on_generated_logs(tmp_path: Path, shape: str) -> None:
    out = tmp_path / shape
    paths = generate_long(out, 1.2, seed=11) if shape == "long" else generate(out, 1.2, 11)
    assert "decode batch line(s)" in _page_both_ways(paths["big"])
