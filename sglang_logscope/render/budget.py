"""``logscope budget`` as text: the per-GPU bar, the figures, the suggestions and assumptions."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .._html import SEGMENTS
from ..memory.budget_types import Budget
from .text import console, plain
from .text import table as make_table

BAR_WIDTH = 60
#: The terminal look (glyph, style) of each segment of ``_html.SEGMENTS``, the one list of the
#: bar's segments in bar order (a segment without a look here fails at import).
_LOOK = {
    "weights": ("█", "blue"),
    "draft": ("▓", "cyan"),
    "state": ("▒", "magenta"),
    "scratch": ("░", "red"),
    "KV": ("■", "green"),
    "reserve": ("▪", "white"),
    "slack": ("·", "yellow"),
}
_SEGMENTS = tuple((label, *_LOOK[label]) for label, _, _ in SEGMENTS)


def _bar(b: Budget) -> Text:
    g = b.per_gpu
    cap = g.total_gib or g.f0_gib or 1.0
    values = dict(g.bar_segments())
    text = Text()
    used = 0
    for name, char, style in _SEGMENTS:
        value = max(values.get(name, 0.0), 0.0)
        n = round(value / cap * BAR_WIDTH)
        n = min(n, BAR_WIDTH - used)
        text.append(char * n, style=style)
        used += n
    text.append(" " * (BAR_WIDTH - used))
    text.append(f"| {cap:.2f} GiB")
    return text


def _legend() -> Text:
    t = Text("  ")
    for name, char, style in _SEGMENTS:
        t.append(f"{char} {name}  ", style=style)
    return t


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


#: (label, PerGpu key, key of what SGLang printed) for the figures table.
_ROWS: tuple[tuple[str, str, str | None], ...] = (
    ("GPU capacity (GiB)", "total_gib", None),
    ("free before weights F0 (GiB)", "f0_gib", None),
    ("weights (GiB)", "weights_gib", None),
    ("draft weights (GiB)", "draft_weights_gib", None),
    ("slack F0 x (1 - mfs) (GiB)", "slack_gib", None),
    ("rest for pools (GiB)", "rest_gib", None),
    ("mamba state (GiB)", "mamba_state_gib", None),
    ("spec scratch (GiB)", "spec_scratch_gib", None),
    ("KV pool (GiB)", "kv_gib", "kv_gib"),
    ("KV tokens", "kv_tokens", "kv_tokens"),
    ("sliding-window layer tokens", "swa_tokens", "swa_tokens"),
    ("KV bytes per token", "kv_cell_bytes", None),
    ("mamba bytes per slot", "mamba_slot_bytes", None),
    ("mamba slots", "mamba_slots", "mamba_slots"),
)


def render_budget(con: Console, b: Budget) -> None:
    """The verdict with what it rests on, the per-GPU bar, the figures, then the fixes."""
    verdict = (
        "fits"
        if b.fits
        else f"does NOT fit ({b.failure_kind.value if b.failure_kind else 'no request slots'}, short by {b.shortfall_gib:.2f} GiB)"
    )
    con.print(
        plain(
            f"{b.model} on {b.gpus} GPU(s), SGLang {b.sglang_version} (era {b.era_label}): {verdict}",
            style="bold",
        )
    )
    con.print(plain(f"  on {b.basis}; confidence {b.confidence.get('level', '-')}"))
    if b.confidence.get("deciding"):
        con.print(plain(f"  {b.confidence['deciding']}", style="yellow"))
    con.print(plain("per GPU:"))
    con.print(_bar(b))
    con.print(_legend())
    con.print(_figures(b))
    _notes(con, b)


def _figures(b: Budget) -> Table:
    g = b.to_dict()["per_gpu"]
    rep = b.reported
    blank = ["", ""] if rep is not None else []
    table = make_table(
        "figure",
        "predicted",
        *(("printed by SGLang", "error") if rep is not None else ()),
        box=None,
        header_style="bold",
    )
    for label, key, rep_key in _ROWS:
        if key == "swa_tokens" and g.get(key) is None:
            continue  # only hybrid-SWA pools have a second token count
        cells = [label, _fmt(g.get(key))]
        if rep is not None:
            printed = rep.get(rep_key) if rep_key else None
            err = (
                rep.get(f"{rep_key}_error_pct")
                if rep_key in ("kv_tokens", "swa_tokens", "mamba_slots")
                else None
            )
            cells += [_fmt(printed), f"{err:+.2f}%" if isinstance(err, (int, float)) else ""]
        table.add_row(*cells)
    conc = b.concurrency_at_context
    table.add_row(f"requests of {b.context_len:,} tokens at once", _fmt(conc), *blank)
    mrr_cells = ["max_running_requests", _fmt(b.max_running_requests)]
    if rep is not None:
        err = rep.get("max_running_requests_error_pct")
        mrr_cells += [
            _fmt(rep.get("max_running_requests")),
            f"{err:+.2f}%" if isinstance(err, (int, float)) else "",
        ]
    table.add_row(*mrr_cells)
    table.add_row("mem_fraction_static", _fmt(b.inputs.get("mem_fraction_static")), *blank)
    return table


def _notes(con: Console, b: Budget) -> None:
    if b.suggestions:
        con.print(plain("suggestions (each alone, best first):", style="bold"))
        for s in b.suggestions:
            con.print(plain(f"  {s.change}: {s.effect}"))
            for w in s.warnings:
                con.print(plain(f"    warning: {w}", style="yellow"))
    for w in b.warnings:
        con.print(plain(f"warning: {w}", style="yellow"))
    if b.assumptions:
        con.print(plain("assumptions:", style="bold"))
        for a in b.assumptions:
            con.print(plain(f"  - {a}"))
    unvalidated = b.confidence.get("unvalidated") or []
    if unvalidated:
        con.print(plain("not validated by a real log: " + "; ".join(unvalidated)))
    con.print(plain("sources:", style="bold"))
    for k, v in b.sources.items():
        con.print(plain(f"  {k}: {v}"))


def budget_text(result: Budget) -> None:
    render_budget(console(), result)
