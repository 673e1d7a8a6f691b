"""The HTML report: built from the library's results, self-contained, escaped, and it renders."""

from __future__ import annotations

import html
import os
import re
import shutil
import time
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from scripts.screenshot_report import console_messages, find_chromium, run_chromium
from sglang_logscope import budget_for_run, read_log
from sglang_logscope._html import SEGMENTS, esc
from sglang_logscope._text import visible
from sglang_logscope.cli import main
from sglang_logscope.events import EventKind
from sglang_logscope.render import budget as text_budget
from sglang_logscope.render.html import render_html
from sglang_logscope.staleness.judge import check
from sglang_logscope.staleness.report import FullReport, full_report, run_budget


def html_report(*args: Any, **kwargs: Any) -> str:
    """The page ``logscope report`` writes: the library's report, rendered."""
    return render_html(full_report(*args, **kwargs))


ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
REAL_069 = ROOT / "fixtures" / "real" / "069" / "server.log"

HOSTILE_LOG = """\
[2026-05-09 09:00:00] server_args=ServerArgs(model_path='/m/"><img src=x onerror=alert(1)>', served_model_name='<script>alert(2)</script>', tp_size=1, mem_fraction_static=0.85)
[2026-05-09 09:00:05 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-09 09:00:10 TP0] Scheduler hit an exception: Traceback (most recent call last):
  File "x.py", line 1, in <module>
RuntimeError: <script>alert("x")</script> "><img src=x onerror=alert(3)>
[2026-05-09 09:10:00] server_args=ServerArgs(model_path='/m/"><svg onload=alert(4)>', served_model_name='<b>bold</b>', tp_size=1, mem_fraction_static=0.8)
[2026-05-09 09:10:05 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-09 09:10:30] The server is fired up and ready to roll!
[2026-05-09 09:10:40 DP0 TP0] Decode batch, #running-req: 1, #token: 100, token usage: 0.01, cuda graph: True, gen throughput (token/s): 40.00, #queue-req: 0
[2026-05-09 09:10:40 DP1 TP1] Decode batch, #running-req: 2, #token: 300, token usage: 0.03, cuda graph: True, gen throughput (token/s): 80.00, #queue-req: 0
[2026-05-09 09:10:50 DP0 TP0] Decode batch, #running-req: 1, #token: 140, token usage: 0.01, cuda graph: True, gen throughput (token/s): 42.00, #queue-req: 0
[2026-05-09 09:10:50 DP1 TP1] Decode batch, #running-req: 2, #token: 380, token usage: 0.04, cuda graph: True, gen throughput (token/s): 81.00, #queue-req: 0
[2026-05-09 09:11:00 TP0] <script>document.title='pwned'</script> '"><iframe src=javascript:alert(5)>
"""
HOSTILE_COMMAND = (
    "python -m sglang.launch_server --model-path '/m/x' "
    "--served-model-name '\"><img src=y onerror=alert(6)>' --mem-fraction-static 0.9\n"
)


class _Tags(HTMLParser):
    """Every start tag and its attributes, and the text of the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _parse(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo log with its mtime as on the server (as ``make demo`` sets it)."""
    path = tmp_path_factory.mktemp("demo") / "sglang-serve.log"
    shutil.copyfile(DEMO / "sglang-serve.log", path)
    stamp = datetime(2026, 5, 9, 9, 18, 32).timestamp()
    os.utime(path, (stamp, stamp))
    return path


@pytest.fixture(scope="module")
def demo_page(demo_log: Path) -> str:
    return html_report(demo_log, DEMO / "command.txt", "2026-05-09 09:31:05")


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    log = folder / 'x"><script>alert(7).log'
    log.write_text(HOSTILE_LOG, encoding="utf-8")
    cmd = folder / "cmd.txt"
    cmd.write_text(HOSTILE_COMMAND, encoding="utf-8")
    return log, cmd


# ------------------------------------------------------------------------------ content


def test_demo_report_has_every_section_from_the_check(demo_log: Path, demo_page: str) -> None:
    result = check(demo_log, DEMO / "command.txt", "2026-05-09 09:31:05")
    tags = _parse(demo_page)
    ids = [a.get("id") for _, a in tags.tags if a.get("id")]
    for section in ("verdict", "timeline", "args", "memory", "serving", "findings"):
        assert section in ids
    text = " ".join(" ".join(tags.text).split())
    assert "STALE" in text and " ".join(result.headline.split()) in text
    for d in result.arg_diff:
        assert d.arg in text
    assert text.count("unexplained") >= 3 and "explained" in text
    for f in result.findings:
        assert f.code in text
    # the intended budget is the check's, with its shortfall; the run's is budget_for_run's
    assert result.budget is not None and not result.budget.fits
    assert f"short by {result.budget.shortfall_gib:.2f} GiB" in text
    assert result.run is not None
    own = budget_for_run(result.run)
    assert f"short by {own.shortfall_gib:.2f} GiB" in text
    assert "No decode batches in this log" in text


def test_budget_bars_are_per_gpu_and_proportional(demo_page: str) -> None:
    tags = _parse(demo_page)
    svgs = [a for t, a in tags.tags if t == "svg" and "budget-svg" in (a.get("class") or "")]
    assert len(svgs) == 2  # the checked run's and the intended command's
    segs = [a for t, a in tags.tags if t == "rect" and a.get("class") == "seg"]
    # 2 budgets x 2 GPUs, each with weights, draft, state, scratch, slack (KV is 0: no fit)
    assert len(segs) == 2 * 2 * 5
    colours = {c for _, _, c in SEGMENTS}
    assert {a["fill"] for a in segs} <= colours
    first = segs[:5]
    widths = [float(a["width"] or 0) for a in first]
    # weights 25.55 GiB vs slack 7.05 GiB (the run's own mem_fraction_static 0.85 of F0 47.00),
    # drawn less the 0.44 GiB draft: in 0.5.9 the draft loads later, out of that slack
    assert widths[0] / widths[4] == pytest.approx(25.55 / (7.05 - 0.44), rel=0.02)
    xs = [float(a["x"] or 0) for a in first]
    assert xs == sorted(xs)  # stacked left to right


def test_self_contained_no_scripts_no_network(demo_page: str) -> None:
    tags = _parse(demo_page)
    names = {t for t, _ in tags.tags}
    assert not names & {"script", "link", "iframe", "img", "object", "embed"}
    assert not any(k.startswith("on") for _, a in tags.tags for k in a)
    without_ns = demo_page.replace("http://www.w3.org/2000/svg", "")
    assert not re.search(r"https?://|url\(|@import|@font-face", without_ns)
    csp = [a for t, a in tags.tags if t == "meta" and a.get("http-equiv")]
    assert csp and "default-src 'none'" in (csp[0]["content"] or "")


def test_log_text_is_escaped(hostile: tuple[Path, Path]) -> None:
    log, cmd = hostile
    page = html_report(log, cmd)
    tags = _parse(page)
    names = [t for t, _ in tags.tags]
    assert "script" not in names and "img" not in names and "iframe" not in names
    assert names.count("svg") >= 3  # our own charts, and no injected one beyond them
    assert not any(k.startswith("on") for _, a in tags.tags for k in a)
    text = "".join(tags.text)
    # the hostile strings are shown, as text
    assert '<script>alert("x")</script>' in text
    assert "<iframe src=javascript:alert(5)>" in text
    assert '"><img src=y onerror=alert(6)>' in text
    assert "&lt;script&gt;" in page and "&quot;&gt;&lt;img" in page
    assert "<script" not in page.lower() and "<img" not in page.lower()


def test_decode_charts_plot_every_batch_per_rank(hostile: tuple[Path, Path]) -> None:
    log, _ = hostile
    page = html_report(log)
    tags = _parse(page)
    lines = [a for t, a in tags.tags if t == "polyline"]
    assert len(lines) == 4  # tokens and throughput, one line per rank (DP0 TP0, DP1 TP1)
    tokens = [
        [tuple(map(float, p.split(","))) for p in (a["points"] or "").split()] for a in lines[:2]
    ]
    assert [len(p) for p in tokens] == [2, 2]
    # the busier rank (300 -> 380 tokens) is drawn above the other (svg y grows downwards)
    assert max(y for _, y in tokens[1]) < min(y for _, y in tokens[0])
    assert "2 run(s)" in "".join(tags.text)
    # the earlier run's failure is in the runs table; the checked run's last lines at the end
    assert 'RuntimeError: <script>alert("x")</script>' in "".join(tags.text)
    assert "<iframe src=javascript:alert(5)>" in "".join(tags.text)


def test_charts_read_the_log_s_clock_in_any_zone(
    hostile: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A series point was placed by ``datetime.timestamp()``, which reads a naive time as this
    machine's: five hours west of UTC the 09:10 rows were drawn and labelled at 14:10, beside
    the run's band at 09:10. POSIX zone strings: no zone database needed."""
    log, _ = hostile
    charts = {}
    try:
        for zone in ("UTC0", "WST+5", "EST-5:30"):
            monkeypatch.setenv("TZ", zone)
            time.tzset()
            charts[zone] = re.findall(r"<svg.*?</svg>", html_report(log), re.S)
    finally:
        monkeypatch.undo()
        time.tzset()
    assert charts["UTC0"] == charts["WST+5"] == charts["EST-5:30"]
    labels = re.findall(r">(\d\d:\d\d:\d\d)</text>", "".join(charts["UTC0"]))
    assert labels and all(label[:2] in ("08", "09") for label in labels), labels


def test_real_log_decode_chart_matches_its_events() -> None:
    log = read_log(REAL_069)
    decode = [e for e in log.events if e.kind is EventKind.DECODE_BATCH]
    assert len(decode) == 78
    result = check(log)
    page = render_html(FullReport(result, run_budget(result.run)))
    tags = _parse(page)
    chart = [a for t, a in tags.tags if t == "polyline"]
    assert len(chart) == 2
    points = [tuple(map(float, p.split(","))) for p in (chart[0]["points"] or "").split()]
    assert len(points) == 78
    peak = max(range(78), key=lambda i: decode[i].fields["full_token"])
    assert points[peak][1] == min(y for _, y in points)
    assert "KV pool 422,310 tokens" in "".join(tags.text)


REAL_LOGS = sorted((ROOT / "fixtures" / "real").glob("*/server.log"))


@pytest.mark.parametrize("path", REAL_LOGS, ids=[p.parent.name for p in REAL_LOGS])
def test_every_real_log_makes_a_well_formed_report(path: Path) -> None:
    page = html_report(path)
    tags = _parse(page)
    names = [t for t, _ in tags.tags]
    assert names.count("section") >= 6 and "script" not in names and "img" not in names
    assert page.rstrip().endswith("</html>")


def test_no_run_report(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("", encoding="utf-8")
    page = html_report(empty)
    text = " ".join(_parse(page).text)
    assert "NO_RUN" in text and "holds no SGLang run" in text


def test_cli_report_writes_the_page(tmp_path: Path, demo_log: Path) -> None:
    out = tmp_path / "r.html"
    argv = ["report", str(demo_log), "--expect-args", str(DEMO / "command.txt")]
    with pytest.raises(SystemExit) as done:
        main([*argv, "--launched-at", "2026-05-09 09:31:05", "--html", str(out)])
    assert done.value.code == 0
    assert "STALE" in out.read_text(encoding="utf-8")


def test_repr_html(hostile: tuple[Path, Path]) -> None:
    log = read_log(hostile[0])
    page = log._repr_html_()
    names = [t for t, _ in _parse(page).tags]
    assert "table" in names and "script" not in names
    assert page.count("<tr>") == 1 + len(log.runs)
    demo = read_log(DEMO / "sglang-serve.log")
    assert demo.runs
    b = budget_for_run(demo.runs[-1])
    bar = b._repr_html_()
    assert "<svg" in bar and "does not fit" in bar and b.model in bar


# ------------------------------------------------------------------------------ Chromium


needs_chromium = pytest.mark.skipif(
    find_chromium() is None,
    reason="chromium is not installed (Debian: apt-get install chromium; `make test` tries)",
)


@needs_chromium
def test_console_check_catches_a_broken_page(tmp_path: Path) -> None:
    """The console scan itself works: a page with a blocked script is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!DOCTYPE html><html><head><meta http-equiv='Content-Security-Policy' "
        "content=\"default-src 'none'\"></head><body><script>nope()</script></body></html>",
        encoding="utf-8",
    )
    _, err = run_chromium(bad, dump_dom=True, timeout=30)
    assert console_messages(err)


@needs_chromium
def test_chromium_renders_the_report(tmp_path: Path, demo_page: str) -> None:
    page = tmp_path / "report.html"
    page.write_text(demo_page, encoding="utf-8")
    shot = tmp_path / "report.png"
    _, err = run_chromium(page, screenshot=shot, window=(1000, 2000), timeout=30)
    assert console_messages(err) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    image = pytest.importorskip("matplotlib.image", reason="matplotlib reads the screenshot")
    pixels = image.imread(str(shot))
    rgb = (pixels[..., :3] * 255).round().astype(int)

    def count(colour: str) -> int:
        want = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
        return int(((abs(rgb - want) <= 3).all(axis=-1)).sum())

    weights = next(c for label, _, c in SEGMENTS if label == "weights")
    scratch = next(c for label, _, c in SEGMENTS if label == "scratch")
    assert count(weights) > 5000  # the budget bars were painted
    assert count(scratch) > 2000


@needs_chromium
def test_chromium_hostile_page_has_no_injected_elements(
    tmp_path: Path, hostile: tuple[Path, Path]
) -> None:
    log, cmd = hostile
    page = tmp_path / "hostile.html"
    page.write_text(html_report(log, cmd), encoding="utf-8")
    dom, err = run_chromium(page, dump_dom=True, timeout=30)
    assert console_messages(err) == []
    assert '<section id="verdict">' in dom and "</html>" in dom
    tags = _parse(dom)
    names = [t for t, _ in tags.tags]
    assert "script" not in names and "img" not in names and "iframe" not in names
    assert not any(k.startswith("on") for _, a in tags.tags for k in a)
    assert "pwned" not in next((d for d in tags.text if "logscope report" in d), "")


#: A file name is untrusted too (issue 20, item 6): markup, an event handler, a bidi override.
HOSTILE_NAME = "<img src=x onerror=alert(7)>\u202egol.log"


def _hostile_named(folder: Path) -> Path:
    log = folder / HOSTILE_NAME
    shutil.copyfile(DEMO / "sglang-serve.log", log)
    return log


def test_a_hostile_file_name_is_escaped_everywhere(tmp_path: Path) -> None:
    log = _hostile_named(tmp_path)
    page = html_report(log, DEMO / "command.txt")
    assert "<img" not in page and "onerror=alert(7)>" not in page.replace("&gt;", "")
    assert "\u202e" not in page  # shown as \u202e, never applied
    tags = _parse(page)
    assert [t for t, _ in tags.tags].count("img") == 0
    shown = "&lt;img src=x onerror=alert(7)&gt;\\u202egol.log"
    assert page.count(shown) >= 2  # the <title> and the <h1>


@needs_chromium
def test_chromium_a_hostile_file_name_injects_nothing(tmp_path: Path) -> None:
    log = _hostile_named(tmp_path)
    page = tmp_path / "report.html"
    with pytest.raises(SystemExit) as done:
        main(["report", str(log), "--html", str(page)])
    assert done.value.code in (0, 1)
    dom, err = run_chromium(page, dump_dom=True, timeout=30)
    assert console_messages(err) == []
    tags = _parse(dom)
    names = [t for t, _ in tags.tags]
    assert "img" not in names and "script" not in names
    assert not any(k.startswith("on") for _, a in tags.tags for k in a)
    assert any("<img src=x onerror=alert(7)>" in d for d in tags.text)  # shown as text


def test_terminal_bar_segments_follow_the_one_segment_table() -> None:
    labels = [label for label, _, _ in SEGMENTS]
    assert [label for label, _, _ in text_budget._SEGMENTS] == labels
    assert set(text_budget._LOOK) == set(labels), "a look for each segment, none for another"


@settings(max_examples=examples(300), deadline=None)
@given(st.text())
def test_esc_is_html_escape_of_the_visible_text(text: str) -> None:
    """``_html.esc`` escapes by one table, not through the ``html`` package (its import is the
    named entities', issue 33, 2): the same text as ``html.escape(..., quote=True)``."""
    assert esc(text) == html.escape(visible(text), quote=True)
