"""The HTML page of ``report`` given several logs: per launch its roles, evidence, first
failure and timeline, each file's check, per-worker decode series (KV tokens in use and
throughput, one line per file and rank), and per worker its prefill or decode throughput and
queue depth (one line per DP/TP rank) as inline SVG — no scripts, no network. Also the
Jupyter view of :class:`~sglang_logscope.log.launches.Launches` (:func:`launches_html`), which
draws the same per-worker charts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .._html import esc, table
from ..errors import LogscopeError
from ..log.launches import Launches
from ..log.series import ServingSeries, WorkerSeries, read_for_report
from ..staleness.report import LaunchReport
from .html import line_chart, page

#: The per-worker charts: (series, title, unit, element id).
WORKER_CHARTS = (
    ("tokens", "KV tokens in use, per worker", "tokens", "chart-worker-tokens"),
    ("throughput", "Decode throughput, per worker", "token/s", "chart-worker-throughput"),
)
#: Each worker's own charts (one per series of
#: :data:`~sglang_logscope.log.series.WORKER_VALUES` it has): series → (title, unit).
WORKER_SERIES = {
    "prefill": ("Prefill throughput (input, Prefill batch lines)", "token/s"),
    "decode": ("Decode throughput (gen, Decode batch lines)", "token/s"),
    "queue": ("Queue depth (#queue-req)", "requests"),
}


def render_launch_html(report: LaunchReport) -> str:
    data = report.check.to_dict()
    roles = {f["file"]: f["role"] or "server" for f in data["files"]}
    parts = [_files_section(data)]
    parts += [_launch_section(i, launch) for i, launch in enumerate(data["launches"])]
    parts.append(_workers_section(report.serving, roles))
    parts.append(
        "<section id='per-worker'><h2>Each worker: throughput and queue depth</h2>"
        + worker_charts(report.workers, roles)
        + "</section>"
    )
    title = f"logscope report — {len(data['files'])} logs"
    subtitle = (
        f"launch verdict: {esc(data['verdict'])} · self-contained page (no scripts, no network)"
    )
    return page(title, esc(title), subtitle, parts)


def _files_section(data: dict[str, Any]) -> str:
    rows = [
        [
            esc(f["file"]),
            esc(f["role"] or "-"),
            esc(f["verdict"]),
            esc(f["check"]["headline"])
            + (f"<br>{esc(f['older_launch'])}" if f["older_launch"] else ""),
        ]
        for f in data["files"]
    ]
    rows += [[esc(u["file"]), "-", "unreadable", esc(u["error"])] for u in data["unreadable"]]
    return (
        "<section id='files'><h2>Files</h2>"
        + table(["file", "role", "verdict", "why"], rows)
        + "</section>"
    )


def _launch_section(i: int, launch: dict[str, Any]) -> str:
    out = [f"<section id='launch-{i}'><h2>Launch {i}: {esc(launch['outcome'])}</h2>"]
    first = launch["first_failure"]
    if first is not None:
        out.append(
            f"<p><b>First failure:</b> {esc(first['role'])} <code>{esc(first['file'])}:"
            f"{esc(first['line'])}</code> at {esc(first['time'] or '?')} — "
            f"{esc(first['kind'])}: {esc(first['message'])}</p>"
        )
    out.append("<ul>" + "".join(f"<li>{esc(e)}</li>" for e in launch["evidence"]) + "</ul>")
    out += [f"<p class='muted'>{esc(n)}</p>" for n in launch["notes"]]
    rows = [
        [esc(t["time"] or "?"), esc(t["role"]), esc(f"{t['file']}:{t['line']}"), esc(t["what"])]
        for t in launch["timeline"]
    ]
    out.append(table(["time", "role", "where", "what"], rows))
    out.append("</section>")
    return "\n".join(out)


def _workers_section(serving: Mapping[str, ServingSeries], roles: dict[str, str]) -> str:
    out = ["<section id='workers'><h2>Serving per worker</h2>"]
    if not any(s.lines for s in serving.values()):
        out.append("<p class='muted'>No decode batches in these logs.</p></section>")
        return "\n".join(out)
    out.append(
        "<p class='muted'>Decode batch lines of each file, per rank (one line per worker; "
        "many lines are drawn per minute as their mean). Each worker's prefill or decode "
        "throughput and queue depth are drawn below.</p><div class='charts'>"
    )
    for chart, title, unit, css in WORKER_CHARTS:
        series: dict[str, list[tuple[float, float]]] = {}
        for file, s in serving.items():
            raw = s.raw[chart]
            points = (
                raw
                if raw is not None
                else {k: [(t, mean) for t, _, mean, _ in v] for k, v in s.points(chart).items()}
            )
            for rank, pts in points.items():
                series[_worker(file, roles.get(file), rank, series)] = list(pts)
        out.append(line_chart(title, series, y_label=unit, css_id=css))
    out.append("</div></section>")
    return "\n".join(out)


def _worker(file: str, role: str | None, rank: str, taken: Mapping[str, Any]) -> str:
    """A worker's label: its role and rank (``decode node1 TP8``), or its file's name and rank
    where the role says nothing or is taken."""
    label = f"{role} {rank}"
    if role in (None, "server") or label in taken:
        label = f"{os.path.basename(file)} {rank}"
    return label if label not in taken else f"{file} {rank}"


def worker_charts(workers: Mapping[str, WorkerSeries], roles: Mapping[str, str | None]) -> str:
    """Per worker (file), a chart of each series it has (:data:`WORKER_SERIES`), one line
    per rank: each batch line a point while few, else each minute's mean."""
    out: list[str] = []
    taken: dict[str, None] = {}
    for n, (file, series) in enumerate(workers.items()):
        named = _worker(file, roles.get(file), "", taken)
        taken[named] = None
        label = named.strip()
        charts = [
            line_chart(
                f"{title} — {label}", points, y_label=unit, css_id=f"chart-worker-{n}-{name}"
            )
            for name, (title, unit) in WORKER_SERIES.items()
            if (points := series.points(name))
        ]
        out.append(f"<h3>{esc(label)}</h3>")
        if not charts:
            out.append("<p class='muted'>No Prefill batch or Decode batch lines in this log.</p>")
            continue
        out.append("<div class='charts'>" + "".join(charts) + "</div>")
    return "\n".join(out) or "<p class='muted'>No logs read.</p>"


def launches_html(launches: Launches) -> str:
    """One row per launch (its roles, outcome, first failure, evidence), then each worker's
    prefill or decode throughput and queue depth per rank, as the report of several logs
    draws them (each file read again, streamed: memory follows the minutes)."""
    rows = []
    for i, launch in enumerate(launches.launches):
        first = launch.first_failure
        where = f"{first.role} {first.file}:{first.line} {first.kind}" if first else "-"
        rows.append(
            [
                str(i),
                esc(", ".join(f"{m.role}: {m.file}" for m in launch.members)),
                esc(launch.outcome.value),
                esc(where),
                esc("; ".join(launch.evidence + launch.notes)),
            ]
        )
    rows += [["-", esc(f), "unreadable", esc(why), ""] for f, why in launches.unreadable]
    roles: dict[str, str | None] = {}
    for launch in launches.launches:
        roles.update({m.file: m.role for m in launch.members})
    workers: dict[str, WorkerSeries] = {}
    notes = []
    for file in roles:
        try:
            series = read_for_report(file, tail=1, workers=True).workers
        except (LogscopeError, OSError) as exc:  # gone, or a stream read once: no charts
            notes.append(
                f"<p class='muted'>{esc(file)}: not read again for its charts ({esc(exc)})</p>"
            )
            continue
        if series is not None:
            workers[file] = series
    head = ["launch", "roles", "outcome", "first failure", "evidence"]
    return table(head, rows) + worker_charts(workers, roles) + "".join(notes)
