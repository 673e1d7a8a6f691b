"""``logscope report --html``: one self-contained HTML page to attach to an issue.

Rendered from the library's :class:`~sglang_logscope.staleness.report.FullReport` — the check
(verdict, runs, arg diff, findings, the intended command's budget), the checked run's own budget
and the runs' events (decode batches) — never from the log text again. The page is static: inline CSS and SVG, no script, no network, no external fonts, and a
Content-Security-Policy that forbids anything else. Every piece of log text goes through
:func:`html.escape`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from .. import __version__
from .._html import (
    cut,
    esc,
    kv_table,
    legend,
    nice_max,
    num,
    table,
    when,
    x_scale,
)
from ..events import Event, EventKind
from ..log.runs import Outcome, Run
from ..log.series import ServingSeries
from ..timing import wall_clock, wall_seconds
from .check_view import ArgSection, CheckView, check_view
from .notebook import budget_block

if TYPE_CHECKING:
    from ..staleness.report import FullReport, RunBudget
    from ..staleness.verdict import CheckReport

_OUTCOME_COLOUR = {
    Outcome.READY: "#59a14f",
    Outcome.STARTING: "#f28e2b",
    Outcome.CRASHED: "#e15759",
    Outcome.STOPPED: "#79706e",
    Outcome.COMPLETED: "#4e79a7",
    Outcome.UNKNOWN: "#bab0ac",
}
_VERDICT_COLOUR = {
    "fresh": "#2e7d32",
    "stale": "#c62828",
    "mismatch": "#c62828",
    "no_run": "#c62828",
    "inconclusive": "#ef6c00",
    "exited": "#c62828",
}
_SERIES = ("#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2", "#9c755f", "#ff9da7")
#: Log records shown at the end of the report (the checked run's last ones).
TAIL_EVENTS = 20  # (the same count as staleness.report.TAIL_EVENTS)


# ----------------------------------------------------------------------------------- entry


def render_html(report: FullReport) -> str:
    """The page for a :class:`~sglang_logscope.staleness.report.FullReport`."""
    result, rb = report.check, report.run_budget
    view = check_view(result)
    parts = [
        _verdict_section(view),
        _timeline_section(result),
        _arg_section(view.args),
        _memory_section(result, rb),
        _serving_section(result.runs, report.serving or _series_of(result.runs)),
        _findings_section(view),
        _tail_section(result.run, report.last_events),
    ]
    title = f"logscope report — {result.log}"
    subtitle = (
        f"sglang-logscope {esc(__version__)} · {len(result.runs)} run(s) in "
        "the file · self-contained page (no scripts, no network)"
    )
    return page(title, esc(result.log), subtitle, parts)


def page(title: str, heading: str, subtitle: str, parts: list[str]) -> str:
    """The one page shell of every report (a log's, several logs'): no scripts, no network
    (the CSP allows inline style and data: images only). ``heading`` and ``subtitle`` are
    HTML already escaped; ``title`` is text."""
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; img-src data:\">",
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="generator" content="sglang-logscope ' + esc(__version__) + '">',
            f"<title>{esc(title)}</title>",
            f"<style>{_CSS}</style>",
            "</head>",
            "<body>",
            "<header>",
            f"<h1>logscope report <span class='log'>{heading}</span></h1>",
            f"<p class='muted'>{subtitle}</p>",
            "</header>",
            *parts,
            "</body>",
            "</html>",
            "",
        ]
    )


# --------------------------------------------------------------------------------- sections


def _verdict_section(v: CheckView) -> str:
    colour = _VERDICT_COLOUR.get(v.verdict, "#555")
    rows = [(label, esc(value)) for label, value in (*v.run_facts, *v.time_facts)]
    out = [
        "<section id='verdict'>",
        "<h2>Verdict</h2>",
        f"<p class='headline'><span class='badge' style='background:{colour}'>"
        f"{esc(v.verdict.upper())}</span> {esc(v.headline)}</p>",
    ]
    if v.cause is not None:
        out.append(
            f"<p><b>Likely cause ({esc(v.cause.code)}):</b> {esc(v.cause.message)}"
            f"<br><b>Fixed:</b> <code>{esc(v.cause.fix)}</code></p>"
        )
    out.append(kv_table(rows))
    if v.failure is not None:
        out.append(
            f"<h3>Failure: {esc(v.failure.kind)} at line {v.failure.line}</h3>"
            f"<pre class='logtext'>{esc(v.failure.message)}</pre>"
        )
    if v.memory.oom_verdict is not None:
        out.append(
            f"<p><b>Out of memory:</b> <span class='tag bad'>{esc(v.memory.oom_verdict)}</span> "
            f"{esc(v.memory.oom_explanation)}</p>"
        )
    if v.next_steps:
        steps = v.next_steps[1:] if v.cause is not None else v.next_steps  # the cause is above
        shown = steps[:3]  # the page stays short; every step is also a finding below
        out.append("<h3>Next steps</h3><ul>")
        out.extend(f"<li>{esc(s)}</li>" for s in shown)
        if len(steps) > len(shown):
            out.append(f"<li>{len(steps) - len(shown)} more: see the findings below.</li>")
        out.append("</ul>")
    out.append("</section>")
    return "\n".join(out)


def _timeline_section(r: CheckReport) -> str:
    out = ["<section id='timeline'>", "<h2>Runs in this file</h2>"]
    if not r.runs:
        out.append("<p class='muted'>The file holds no SGLang run.</p></section>")
        return "\n".join(out)
    out.append(timeline_svg(r.runs, launched_at=r.launched_at, log_mtime=r.log_mtime))
    rows = []
    for run in r.runs:
        checked = " (checked)" if r.run is not None and run.index == r.run.index else ""
        failure = (
            f"{esc(run.failure.kind.value)} (line {run.failure.line})<br>"
            f"<code>{esc(cut(run.failure.message, 300))}</code>"
            if run.failure
            else "-"
        )
        rows.append(
            [
                f"{run.index}{checked}",
                esc(when(run.started_at)),
                esc(when(run.ended_at)),
                f"{run.first_line}-{run.last_line}",
                f"<span class='dot' style='background:{_OUTCOME_COLOUR[run.outcome]}'></span>"
                + esc(run.outcome.value),
                failure,
                esc(run.release_hint or "-"),
            ]
        )
    out.append(table(["run", "started", "ended", "lines", "outcome", "failure", "release"], rows))
    out.append("</section>")
    return "\n".join(out)


def _arg_section(a: ArgSection) -> str:
    out = ["<section id='args'>", "<h2>Arguments: intended vs. the run</h2>"]
    if not a.compared:
        out.append(
            "<p class='muted'>No intended command given (<code>--expect-args</code>): "
            "nothing to compare.</p></section>"
        )
        return "\n".join(out)
    if a.rows:
        rows = [
            [
                f"<code>{esc(d.arg)}</code>",
                f"<code>{esc(d.intended)}</code>",
                f"<code>{esc(d.effective)}</code>",
                f"<span class='tag {'good' if d.explained else 'bad'}'>{esc(d.status)}</span>",
                esc(d.why),
            ]
            for d in a.rows
        ]
        out.append(table(["argument", "you intended", "the run had", "status", "why"], rows))
    else:
        out.append("<p>No differences in the arguments the run shows.</p>")
    if a.matched:
        out.append("<p><b>Matched:</b> " + ", ".join(f"<code>{esc(m)}</code>" for m in a.matched))
    if a.unverified:
        out.append(
            "<p><b>Not shown by the run (unverified):</b> "
            + ", ".join(f"<code>{esc(m)}</code>" for m in a.unverified)
        )
    out.append("</section>")
    return "\n".join(out)


def _memory_section(r: CheckReport, rb: RunBudget) -> str:
    out = ["<section id='memory'>", "<h2>Memory budget per GPU</h2>", legend()]
    if rb.budget is not None:
        out.append("<h3>The checked run, from its own numbers</h3>")
        out.append(budget_block(rb.budget, rb.f0_by_rank))
    else:
        out.append(
            f"<p class='muted'>No budget for the checked run: {esc((rb.note or '').rstrip('.'))}.</p>"
        )
    if r.budget is not None:
        out.append("<h3>Your intended command</h3>")
        if r.budget.fits is None:  # declined: no evidence of the model's shapes
            out.append(f"<p class='muted'>No figure: {esc(r.budget.reason)}</p>")
        else:
            out.append(budget_block(r.budget, {}))
    out.append("</section>")
    return "\n".join(out)


def _series_of(runs: Sequence[Run]) -> ServingSeries:
    """The decode series of runs that hold their decode events (a fully parsed log)."""
    serving = ServingSeries()
    for run in runs:
        for e in run.events:
            if e.kind is EventKind.DECODE_BATCH:
                serving.add_event(e)
    return serving


def _serving_section(runs: Sequence[Run], serving: ServingSeries) -> str:
    out = ["<section id='serving'>", "<h2>Serving: decode batches over time</h2>"]
    if not serving.lines:
        out.append("<p class='muted'>No decode batches in this log.</p></section>")
        return "\n".join(out)
    pools = [
        e.fields.get("max_total_num_tokens")
        for run in runs
        for e in run.events
        if e.kind is EventKind.TOKEN_SUMMARY
    ]
    pool = next((p for p in reversed(pools) if isinstance(p, int)), None)
    note = f"{serving.lines:,} decode batch line(s)"
    if pool is not None:
        note += f"; KV pool {pool:,} tokens"
    if serving.peak_usage is not None:
        note += (
            f"; peak token usage {serving.peak_usage:.2f} "
            "(fraction of the pool, as SGLang prints it)"
        )
    if any(serving.raw[c] is None for c in ("tokens", "throughput")):
        note += "; drawn per minute per rank: the mean as a line, min to max as a band"
    out.append(f"<p class='muted'>{esc(note)}</p>")
    out.append("<div class='charts'>")
    for chart, title, unit, css in (
        ("tokens", "KV tokens in use", "tokens", "chart-tokens"),
        ("throughput", "Decode throughput", "token/s", "chart-throughput"),
    ):
        raw = serving.raw[chart]
        if raw is not None:
            out.append(line_chart(title, raw, y_label=unit, css_id=css))
        else:
            buckets = serving.points(chart)
            means = {k: [(t, mean) for t, _, mean, _ in v] for k, v in buckets.items()}
            bands = {k: [(t, lo, hi) for t, lo, _, hi in v] for k, v in buckets.items()}
            out.append(line_chart(title, means, y_label=unit, css_id=css, bands=bands))
    out.append("</div></section>")
    return "\n".join(out)


def _findings_section(v: CheckView) -> str:
    rows = [
        [
            f"<code>{esc(f.code)}</code>",
            f"<span class='tag {_SEVERITY_CLASS.get(f.severity, '')}'>{esc(f.severity)}</span>",
            esc(f.name),
            esc(f.message),
        ]
        for f in v.findings
    ]
    return "\n".join(
        [
            "<section id='findings'>",
            "<h2>Findings</h2>",
            table(["code", "severity", "name", "message"], rows)
            if rows
            else "<p class='muted'>None.</p>",
            "</section>",
        ]
    )


def _tail_section(run: Run | None, last_events: Sequence[Event] | None = None) -> str:
    if run is None:
        return ""
    if last_events is None:
        tail = list(run.events[-TAIL_EVENTS:])
    else:
        span = range(run.first_line, run.last_line + 1)
        tail = [e for e in last_events if e.line in span][-TAIL_EVENTS:]
    if not tail:
        return ""
    lines = "\n".join(cut(e.text or e.message, 2000) for e in tail)
    return (
        "<section id='tail'>"
        f"<h2>Last lines of the checked run (from line {tail[0].line})</h2>"
        f"<pre class='logtext'>{esc(lines)}</pre></section>"
    )


_SEVERITY_CLASS = {"error": "bad", "warning": "warn", "info": "info"}


# ------------------------------------------------------------------------------------- SVG


def _at(seconds: float, fmt: str) -> str:
    """The wall clock ``seconds`` into the time line (:func:`.wall_clock`); no label past
    year 1 or 9999 (a chart's range may end just beyond its last row)."""
    clock = wall_clock(seconds)
    try:
        return "" if clock is None else clock.strftime(fmt)
    except ValueError:  # a year strftime will not write here
        return ""


def _time_ticks(lo: float, hi: float, n: int = 5) -> list[tuple[float, str]]:
    span = hi - lo
    if span <= 0:
        return [(lo, _at(lo, "%H:%M:%S"))]
    fmt = "%H:%M:%S" if span < 6 * 3600 else "%m-%d %H:%M"
    if span > 3 * 86400:
        fmt = "%Y-%m-%d"
    return [(lo + span * i / (n - 1), _at(lo + span * i / (n - 1), fmt)) for i in range(n)]


def timeline_svg(
    runs: Sequence[Run],
    *,
    launched_at: datetime | None = None,
    log_mtime: datetime | None = None,
    width: int = 900,
) -> str:
    """Every run as a bar from its first to its last timestamp, coloured by outcome, with the
    failure, your launch time and the file's modification time marked."""
    row_h, top, left, right = 26, 26, 70, 20
    height = top + row_h * len(runs) + 34
    marks, extra = _timeline_marks(runs, launched_at, log_mtime)
    parts = [
        f"<svg class='chart' id='timeline-svg' role='img' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' xmlns='http://www.w3.org/2000/svg'>",
        "<title>Run timeline</title>",
    ]
    if not marks:
        parts.append(
            f"<text x='{left}' y='{top + 14}' class='muted'>No timestamps in this log.</text>"
        )
        parts.append("</svg>")
        return "".join(parts)
    lo, hi = min(marks), max(marks)
    pad = max((hi - lo) * 0.03, 1.0)
    lo, hi = lo - pad, hi + pad
    x = x_scale(lo, hi, left, width - right)
    axis_y = top + row_h * len(runs) + 4
    parts.append(_time_axis(x, lo, hi, left, width - right, axis_y))
    for i, run in enumerate(runs):
        parts.append(_run_bar(run, x, top + i * row_h, row_h, left, width))
    for moment, name in extra:
        parts.append(_moment_line(moment, name, x, top, axis_y, left, width))
    parts.append("</svg>")
    return "".join(parts)


def _timeline_marks(
    runs: Sequence[Run], launched_at: datetime | None, log_mtime: datetime | None
) -> tuple[list[float], list[tuple[datetime, str]]]:
    """The times the timeline spans (runs, launch, mtime) and the extra moments it marks."""
    marks: list[float] = []
    for run in runs:
        marks += [wall_seconds(t) for t in (run.started_at, run.ended_at) if t is not None]
    extra = [(launched_at, "launch")] if launched_at is not None else []
    if log_mtime is not None and marks:
        # the modification time is drawn when it is near the runs (or your launch), not when
        # the file was merely copied days later
        reach = max(max(marks) - min(marks), 3600.0)
        near = [*marks, *(wall_seconds(t) for t, _ in extra)]
        if min(near) - reach <= wall_seconds(log_mtime) <= max(near) + reach:
            extra.append((log_mtime, "mtime"))
    marks += [wall_seconds(t) for t, _ in extra]
    return marks, extra


def _time_axis(
    x: Callable[[float], float], lo: float, hi: float, x0: float, x1: float, axis_y: float
) -> str:
    parts = [f"<line x1='{x0}' y1='{axis_y}' x2='{x1}' y2='{axis_y}' class='axis'/>"]
    ticks = _time_ticks(lo, hi)
    for i, (t, label) in enumerate(ticks):
        parts.append(
            f"<line x1='{x(t):.1f}' y1='{axis_y}' x2='{x(t):.1f}' y2='{axis_y + 4}' class='axis'/>"
            f"<text x='{x(t):.1f}' y='{axis_y + 16}' text-anchor='{_anchor(i, len(ticks))}'>"
            f"{esc(label)}</text>"
        )
    return "".join(parts)


def _run_bar(
    run: Run, x: Callable[[float], float], y: float, row_h: int, left: int, width: int
) -> str:
    """One run's row: its label, its bar (with the failure marked) and its outcome."""
    parts = [f"<text x='4' y='{y + 16}'>run {run.index}</text>"]
    if run.started_at is None:
        parts.append(f"<text x='{left}' y='{y + 16}' class='muted'>no timestamps</text>")
        return "".join(parts)
    start = x(wall_seconds(run.started_at))
    end = x(wall_seconds(run.ended_at or run.started_at))
    w = max(end - start, 3.0)
    colour = _OUTCOME_COLOUR[run.outcome]
    parts.append(
        f"<rect class='run' x='{start:.1f}' y='{y + 4}' width='{w:.1f}' height='{row_h - 8}' "
        f"rx='3' fill='{colour}'><title>run {run.index}: {esc(run.outcome.value)}, "
        f"{esc(when(run.started_at))} → {esc(when(run.ended_at))}</title></rect>"
    )
    if run.failure is not None:
        fx = start + w
        parts.append(
            f"<path d='M{fx:.1f} {y + 2} l5 9 l-5 9 l-5 -9 z' fill='#b71c1c'>"
            f"<title>{esc(run.failure.kind.value)} at line {run.failure.line}</title></path>"
        )
    label = run.outcome.value + (f" · {run.failure.kind.value}" if run.failure else "")
    lx = start + w + 10 if start + w + 10 < width - 160 else max(start - 6, left)
    anchor = "start" if lx > start else "end"
    parts.append(f"<text x='{lx:.1f}' y='{y + 16}' text-anchor='{anchor}'>{esc(label)}</text>")
    return "".join(parts)


def _moment_line(
    moment: datetime,
    name: str,
    x: Callable[[float], float],
    top: int,
    axis_y: float,
    left: int,
    width: int,
) -> str:
    """Your launch or the file's modification time, as a vertical line with its label."""
    mx = x(wall_seconds(moment))
    cls = "launch" if name == "launch" else "mtime"
    text = "your launch" if name == "launch" else "log last modified"
    anchor = "end" if mx > width - 150 else ("start" if mx < left + 80 else "middle")
    return (
        f"<line x1='{mx:.1f}' y1='{top - 6}' x2='{mx:.1f}' y2='{axis_y}' class='{cls}'/>"
        f"<text x='{mx:.1f}' y='{top - 10}' text-anchor='{anchor}' class='{cls}-label'>"
        f"{esc(text)} {esc(moment.strftime('%H:%M:%S'))}</text>"
    )


def _anchor(i: int, n: int) -> str:
    """Text anchor of tick ``i`` of ``n``: the end ticks stay inside the chart."""
    if n > 1 and i == 0:
        return "start"
    return "end" if n > 1 and i == n - 1 else "middle"


def line_chart(
    title: str,
    series: Mapping[str, Sequence[tuple[float, float]]],
    *,
    y_label: str,
    css_id: str,
    width: int = 440,
    height: int = 240,
    bands: Mapping[str, Sequence[tuple[float, float, float]]] | None = None,
) -> str:
    """A time-series line chart (one polyline per rank) as inline SVG; ``bands`` (per rank,
    ``(time, low, high)``) are drawn as shaded min-max bands behind the lines."""
    left, right, top, bottom = 52, 12, 28, 38
    parts = [
        f"<svg class='chart' id='{esc(css_id)}' role='img' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' xmlns='http://www.w3.org/2000/svg'>",
        f"<title>{esc(title)}</title>",
        f"<text x='{left}' y='16' class='chart-title'>{esc(title)}</text>",
    ]
    points = [p for s in series.values() for p in s]
    points += [(t, hi) for b in (bands or {}).values() for t, _, hi in b]
    if not points:
        parts.append(
            f"<text x='{left}' y='{height // 2}' class='muted'>not printed by this log</text></svg>"
        )
        return "".join(parts)
    t_lo, t_hi = min(p[0] for p in points), max(p[0] for p in points)
    y_hi = nice_max(max(p[1] for p in points))
    x = x_scale(t_lo, t_hi, left, width - right)
    y = x_scale(0.0, y_hi, height - bottom, top)
    frame = (left, right, top, bottom, width, height)
    parts.append(_chart_axes(x, y, y_hi, t_lo, t_hi, y_label, frame))
    parts.extend(_bands(bands or {}, x, y))
    for i, (rank, pts) in enumerate(series.items()):
        colour = _SERIES[i % len(_SERIES)]
        coords = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in pts)
        parts.append(
            f"<polyline class='series' points='{coords}' fill='none' stroke='{colour}' "
            f"stroke-width='1.6'><title>{esc(rank)}</title></polyline>"
        )
        if len(pts) == 1:
            parts.append(
                f"<circle cx='{x(pts[0][0]):.1f}' cy='{y(pts[0][1]):.1f}' r='3' fill='{colour}'/>"
            )
        if len(series) > 1:
            parts.append(
                f"<text x='{width - right - 4}' y='{top + 12 + 13 * i}' text-anchor='end' "
                f"fill='{colour}'>{esc(rank)}</text>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _chart_axes(
    x: Callable[[float], float],
    y: Callable[[float], float],
    y_hi: float,
    t_lo: float,
    t_hi: float,
    y_label: str,
    frame: tuple[int, int, int, int, int, int],
) -> str:
    """A chart's value grid, time ticks and value label."""
    left, right, top, bottom, width, height = frame
    parts = []
    for i in range(5):
        v = y_hi * i / 4
        parts.append(
            f"<line x1='{left}' y1='{y(v):.1f}' x2='{width - right}' y2='{y(v):.1f}' "
            f"class='grid'/><text x='{left - 4}' y='{y(v) + 4:.1f}' text-anchor='end'>"
            f"{esc(num(v))}</text>"
        )
    ticks = _time_ticks(t_lo, t_hi, 4)
    for i, (t, label) in enumerate(ticks):
        parts.append(
            f"<text x='{x(t):.1f}' y='{height - bottom + 16}' "
            f"text-anchor='{_anchor(i, len(ticks))}'>{esc(label)}</text>"
        )
    parts.append(
        f"<text x='12' y='{(top + height - bottom) / 2:.0f}' text-anchor='middle' "
        f"transform='rotate(-90 12 {(top + height - bottom) / 2:.0f})'>{esc(y_label)}</text>"
    )
    return "".join(parts)


def _bands(
    bands: Mapping[str, Sequence[tuple[float, float, float]]],
    x: Callable[[float], float],
    y: Callable[[float], float],
) -> list[str]:
    """Per rank, its min-max band as a shaded polygon (drawn behind the lines)."""
    out = []
    for i, (rank, band) in enumerate(bands.items()):
        if band:
            upper = [f"{x(t):.1f},{y(hi):.1f}" for t, _, hi in band]
            lower = [f"{x(t):.1f},{y(lo):.1f}" for t, lo, _ in reversed(band)]
            out.append(
                f"<polygon class='band' points='{' '.join(upper + lower)}' "
                f"fill='{_SERIES[i % len(_SERIES)]}' fill-opacity='0.18' stroke='none'>"
                f"<title>{esc(rank)}: min to max per minute</title></polygon>"
            )
    return out


# ----------------------------------------------------------------------------------- helpers


_CSS = """
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;
color:#222;background:#fff;margin:0 auto;max-width:1000px;padding:16px 24px}
h1{font-size:20px;margin:0 0 4px}h1 .log{font-weight:normal;font-family:monospace;font-size:15px}
h2{font-size:17px;border-bottom:1px solid #ddd;padding-bottom:3px;margin-top:26px}
h3{font-size:15px;margin:14px 0 6px}
.muted{color:#666}code,pre{font-family:ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace;
font-size:12.5px}
pre.logtext{background:#f6f8fa;border:1px solid #e1e4e8;padding:8px;white-space:pre-wrap;
word-break:break-word;max-height:320px;overflow:auto}
table{border-collapse:collapse;margin:6px 0;font-size:13px}
th,td{border:1px solid #e1e4e8;padding:3px 8px;text-align:left;vertical-align:top}
thead th{background:#f6f8fa}table.kv th{background:#fafbfc;font-weight:600}
.badge{color:#fff;font-weight:700;padding:2px 8px;border-radius:4px;margin-right:6px}
.headline{font-size:15px}
.tag{padding:0 6px;border-radius:3px;font-size:12px;font-weight:600}
.tag.good{background:#e6f4ea;color:#1e7e34}.tag.bad{background:#fdecea;color:#b71c1c}
.tag.warn{background:#fff4e5;color:#a15c00}.tag.info{background:#eef2f7;color:#455a64}
.dot{display:inline-block;width:9px;height:9px;border-radius:50%;margin-right:5px}
svg.chart{display:block;margin:6px 0;font-size:11px}svg.chart text{fill:#333}
svg .axis{stroke:#888}svg .grid{stroke:#eee}svg .chart-title{font-weight:600;font-size:12px}
svg .launch{stroke:#1565c0;stroke-dasharray:4 3;stroke-width:1.5}
svg .mtime{stroke:#6a1b9a;stroke-dasharray:2 3;stroke-width:1.5}
svg text.launch-label{fill:#1565c0}svg text.mtime-label{fill:#6a1b9a}
svg .capacity{stroke:#000;stroke-width:2}
.charts{display:flex;flex-wrap:wrap;gap:12px}
.legend span{margin-right:10px;white-space:nowrap}
.swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}
.swatch.cap{width:2px;background:#000}
details{margin:4px 0}
"""
