"""The Jupyter views (``_repr_html_``) of a :class:`~sglang_logscope.log.reader.Log`, a
:class:`~sglang_logscope.log.runs.Run`, a :class:`~sglang_logscope.memory.budget_types.Budget`
and a :class:`~sglang_logscope.staleness.verdict.CheckReport`, and the per-GPU budget bars the
report page draws too. The hooks reach them through ``_html.notebook_html`` (by name, so that
the ground floor names no type above it; the view of several logs' ``Launches`` is
``launch_html.launches_html``, beside the charts it shares with the report). Log text is
untrusted: every piece goes through :func:`~sglang_logscope._html.esc`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from .._html import (
    NOT_FREE,
    SEGMENTS,
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
from .check_view import check_view

if TYPE_CHECKING:
    from ..log.reader import Log
    from ..log.runs import Run
    from ..memory.budget_types import Budget
    from ..staleness.verdict import CheckReport


def _tokens(b: Budget) -> str:
    if b.kv_tokens is None:
        return "tokens not modelled (" + esc(", ".join(b.not_modelled)) + ")"
    conc = b.concurrency_at_context
    at = f", {conc:.1f} requests of {b.context_len:,} tokens at once" if conc is not None else ""
    return f"{b.kv_tokens:,} tokens{at}"


def _segment_values(b: Budget) -> list[tuple[str, float, str]]:
    values = dict(b.per_gpu.bar_segments())
    return [(label, max(values.get(label, 0.0), 0.0), colour) for label, _, colour in SEGMENTS]


def budget_block(b: Budget, f0_by_rank: Mapping[str, float], *, width: int = 900) -> str:
    """Stacked bars, one per GPU: the pools SGLang carves out of the memory free at start (F0),
    against the GPU's capacity (or F0 when the capacity is unknown)."""
    segs = _segment_values(b)
    parts = [_budget_headline(b), _budget_svg(b, f0_by_rank, segs, width)]
    parts.extend(_budget_details(b, segs))
    parts.append("</div>")
    return "\n".join(parts)


def _budget_headline(b: Budget) -> str:
    verdict = (
        "<span class='tag good'>fits</span>"
        if b.fits
        else f"<span class='tag bad'>does not fit</span> "
        f"({esc(b.failure_kind.value if b.failure_kind else 'no request slots')}, "
        f"short by {b.shortfall_gib:.2f} GiB)"
    )
    return (
        f"<div class='budget'><p>{esc(b.model)} on {b.gpus} GPU(s), SGLang "
        f"{esc(b.sglang_version)} (era {esc(b.era_label)}): {verdict} "
        f"(on {esc(b.basis)}; confidence {esc(b.confidence.get('level', '-'))}). "
        f"KV pool {_tokens(b)}; max_running_requests "
        f"{esc(b.max_running_requests if b.max_running_requests is not None else '-')}.</p>"
    )


def _budget_svg(
    b: Budget, f0_by_rank: Mapping[str, float], segs: list[tuple[str, float, str]], width: int
) -> str:
    """One stacked bar per GPU against its capacity (or F0), with a GiB axis."""
    g = b.per_gpu
    need = sum(v for _, v, _ in segs)
    ranks = list(f0_by_rank) if len(f0_by_rank) == b.gpus else [f"GPU {i}" for i in range(b.gpus)]
    f0s = [f0_by_rank.get(r, g.f0_gib) for r in ranks]
    caps = [g.total_gib if g.total_gib is not None else f0 for f0 in f0s]
    scale_max = max([*caps, need, *f0s]) or 1.0
    left, right, row_h, top = 80, 150, 30, 8
    height = top + row_h * len(ranks) + 26
    x = x_scale(0.0, scale_max, left, width - right)
    parts = [
        f"<svg class='chart budget-svg' role='img' width='{width}' height='{height}' "
        f"viewBox='0 0 {width} {height}' xmlns='http://www.w3.org/2000/svg'>",
        "<title>Memory budget per GPU</title>",
    ]
    for i, (rank, f0, cap) in enumerate(zip(ranks, f0s, caps, strict=True)):
        parts.extend(_budget_row(b, segs, x, top + i * row_h, row_h, width - right, rank, f0, cap))
    axis_y = top + row_h * len(ranks) + 2
    step = nice_max(scale_max / 6)
    v = 0.0
    while v <= scale_max + 1e-9:
        parts.append(
            f"<line x1='{x(v):.1f}' y1='{axis_y - 2}' x2='{x(v):.1f}' y2='{axis_y + 2}' "
            f"stroke='#888'/><text x='{x(v):.1f}' y='{axis_y + 14}' text-anchor='middle'>"
            f"{num(v)}</text>"
        )
        v += step
    parts.append(f"<text x='{width - right + 6}' y='{axis_y + 14}'>GiB per GPU</text></svg>")
    return "\n".join(parts)


def _budget_row(
    b: Budget,
    segs: list[tuple[str, float, str]],
    x: Callable[[float], float],
    y: int,
    row_h: int,
    label_x: int,
    rank: str,
    f0: float,
    cap: float,
) -> list[str]:
    g = b.per_gpu
    parts = [f"<text x='4' y='{y + 18}'>{esc(rank)}</text>"]
    pos = 0.0
    if g.total_gib is not None and cap > f0:
        parts.append(_rect(x(0), x(cap - f0), y, "not free at start", cap - f0, NOT_FREE))
        pos = cap - f0
    for label, value, colour in segs:
        if value <= 0:
            continue
        parts.append(_rect(x(pos), x(pos + value), y, label, value, colour))
        pos += value
    cx = x(cap)
    parts.append(
        f"<line x1='{cx:.1f}' y1='{y}' x2='{cx:.1f}' y2='{y + row_h - 2}' class='capacity' "
        "stroke='#000' stroke-width='2'/>"
    )
    cap_label = "capacity" if g.total_gib is not None else "F0"
    over = " over!" if pos > cap + 1e-6 else ""
    parts.append(
        f"<text x='{label_x + 6}' y='{y + 18}'>{pos:.2f} / {cap:.2f} GiB {cap_label}{over}</text>"
    )
    return parts


def _budget_details(b: Budget, segs: list[tuple[str, float, str]]) -> list[str]:
    """The figures table, the suggestions and the assumptions under the bars."""
    g = b.per_gpu
    parts: list[str] = []
    rows = [[esc(label), f"{value:.2f}"] for label, value, _ in segs if value > 0]
    rows.append(["free before weights (F0)", f"{g.f0_gib:.2f}"])
    if g.total_gib is not None:
        rows.append(["GPU capacity", f"{g.total_gib:.2f}"])
    parts.append("<details><summary>figures (GiB per GPU)</summary>")
    parts.append(table(["part", "GiB"], rows))
    parts.append("</details>")
    if b.suggestions:
        parts.append("<p><b>Each of these alone makes it fit:</b></p><ul>")
        parts.extend(
            f"<li><code>{esc(s.change)}</code> — {esc(s.effect)}</li>" for s in b.suggestions
        )
        parts.append("</ul>")
    if b.assumptions:
        parts.append(
            "<p class='muted'>Assumptions: " + "; ".join(esc(a) for a in b.assumptions) + "</p>"
        )
    return parts


def _rect(x0: float, x1: float, y: float, label: str, value: float, colour: str) -> str:
    return (
        f"<rect class='seg' x='{x0:.1f}' y='{y + 3}' width='{max(x1 - x0, 0.5):.1f}' "
        f"height='20' fill='{colour}'><title>{esc(label)}: {value:.2f} GiB</title></rect>"
    )


def log_html(log: Log) -> str:
    """The runs of ``log`` (times, lines, outcome, failure, release) and its event kinds."""
    rows = [
        [
            str(r.index),
            esc(when(r.started_at)),
            esc(when(r.ended_at)),
            f"{r.first_line}-{r.last_line}",
            esc(r.outcome.value),
            esc(f"{r.failure.kind.value} (line {r.failure.line})") if r.failure else "-",
            esc(r.release_hint or "-"),
        ]
        for r in log.runs
    ]
    lean = getattr(log.events, "kind_counts", None)  # a lean Log counts its kinds column
    kinds = lean() if lean is not None else Counter(e.kind.value for e in log.events)
    counts = ", ".join(f"{esc(k)} {n}" for k, n in kinds.most_common(12))
    more = f", … ({len(kinds) - 12} more kinds)" if len(kinds) > 12 else ""
    runs = (
        table(["run", "started", "ended", "lines", "outcome", "failure", "release"], rows)
        if rows
        else "<p>No SGLang run.</p>"
    )
    return (
        f"<div class='logscope-log'><p><b>Log</b> <code>{esc(log.name)}</code>: "
        f"{len(log.events):,} events, {len(log.runs)} run(s)</p>{runs}"
        f"<p style='font-size:smaller'>events by kind: {counts}{more}</p></div>"
    )


def budget_html(budget: Budget) -> str:
    """The budget as stacked bars per GPU with its figures, suggestions and assumptions."""
    return f"<div class='logscope-budget'>{legend()}{budget_block(budget, {})}</div>"


def run_html(run: Run) -> str:
    """One run: where and when, how it ended, the failure's message, its size."""
    failure = run.failure
    rows = [
        ("lines", f"{run.first_line}-{run.last_line} ({len(run.events):,} events)"),
        ("started", esc(when(run.started_at))),
        ("ended", esc(when(run.ended_at))),
        ("outcome", esc(run.outcome.value)),
        ("failure", esc(f"{failure.kind.value} (line {failure.line})") if failure else "-"),
        ("release", esc(run.release_hint or "-")),
        ("server args", f"{len(run.server_args or {}):,}" if run.has_banner else "no banner"),
    ]
    message = f"<pre>{esc(cut(failure.message, 600))}</pre>" if failure else ""
    return f"<div class='logscope-run'><p><b>Run {run.index}</b></p>{kv_table(rows)}{message}</div>"


def check_html(report: CheckReport) -> str:
    """The check's verdict and headline, its argument differences, findings and next steps
    (the sections of :func:`~.check_view.check_view`)."""
    view = check_view(report)
    diffs = [
        [
            esc(d.arg),
            esc(cut(d.intended, 60)),
            esc(cut(d.effective, 60)),
            esc(d.status),
            esc(cut(d.explanation, 160)),
        ]
        for d in view.args.rows
    ]
    findings = "".join(
        f"<li><code>{esc(f.code)}</code> {esc(cut(f.message, 300))}</li>" for f in view.findings
    )
    steps = "".join(f"<li>{esc(cut(step, 400))}</li>" for step in view.next_steps)
    parts = [
        f"<div class='logscope-check'><p><b>{esc(view.verdict.upper())}</b> "
        f"<code>{esc(view.log)}</code>: {esc(cut(view.headline, 400))}</p>",
        run_html(report.run) if report.run is not None else "<p>No SGLang run.</p>",
    ]
    if diffs:
        parts.append(table(["argument", "you intended", "the run had", "status", "why"], diffs))
    if findings:
        parts.append(f"<ul>{findings}</ul>")
    if steps:
        parts.append(f"<p>Next</p><ol>{steps}</ol>")
    return "".join(parts) + "</div>"
