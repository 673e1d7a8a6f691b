"""HTML pieces every layer may use: escaping, tables, the budget bars' colours, and the one
call the ``_repr_html_`` hooks make (:func:`notebook_html`). The notebook views themselves are
:mod:`sglang_logscope.render.notebook`: this floor names no type of a layer above it.

Log text is untrusted: :func:`esc` escapes ``&<>"'`` and makes control characters visible, and
every piece of log text goes through it. The whole report page is
:mod:`sglang_logscope.render.html`.
"""

from __future__ import annotations

import importlib
import math
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import cast

from ._text import moment, visible

#: The budget's stacked segments: (label, PerGpu attribute, colour). Order = bar order.
SEGMENTS: tuple[tuple[str, str, str], ...] = (
    ("weights", "weights_gib", "#4e79a7"),
    ("draft", "draft_weights_gib", "#76b7b2"),
    ("state", "mamba_state_gib", "#b07aa1"),
    ("scratch", "spec_scratch_gib", "#e15759"),
    ("KV", "kv_gib", "#59a14f"),
    ("reserve", "_reserve", "#9c755f"),
    ("slack", "slack_gib", "#edc948"),
)


NOT_FREE = "#bab0ac"

#: ``html.escape(text, quote=True)``'s five replacements, as one table (``tests/test_html_report``
#: holds them equal): the ``html`` package imports its 2,231 named entities, 1 ms of a check's
#: start-up, for ``unescape``, which nothing here calls (issue 33, 2).
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"})


def esc(value: object) -> str:
    """``value`` as HTML text: ``&<>"'`` escaped, control characters made visible."""
    return visible(str(value)).translate(_ESCAPES)


def x_scale(lo: float, hi: float, x0: float, x1: float) -> Callable[[float], float]:
    span = (hi - lo) or 1.0
    return lambda t: x0 + (t - lo) / span * (x1 - x0)


def nice_max(value: float) -> float:
    if value <= 0:
        return 1.0
    mag = 10.0 ** math.floor(math.log10(value))
    for f in (1, 2, 2.5, 5, 10):
        if value <= f * mag:
            return f * mag
    return 10 * mag


def num(v: float) -> str:
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


_SWATCH = "display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px;"


def legend() -> str:
    """The colour key of the budget bars."""
    items = [("not free at start", NOT_FREE), *((label, c) for label, _, c in SEGMENTS)]
    return (
        "<p class='legend'>"
        + " ".join(
            f"<span style='margin-right:10px;white-space:nowrap'><span style='{_SWATCH}"
            f"background:{c}'></span>{esc(label)}</span>"
            for label, c in items
        )
        + f" <span><span style='{_SWATCH}width:2px;background:#000'></span>capacity</span></p>"
    )


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def when(value: datetime | None) -> str:
    return moment(value)


def kv_table(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in rows)
    return f"<table class='kv'>{body}</table>"


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A table whose cells are already HTML (callers escape)."""
    th = "".join(f"<th>{esc(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table>"


#: Type name → ``module:function`` under ``sglang_logscope.render``: the Jupyter view of each
#: type with a ``_repr_html_`` hook (the way ``render/emit.RENDERERS`` names its renderers).
NOTEBOOK_VIEWS: dict[str, str] = {
    "Log": "notebook:log_html",
    "Run": "notebook:run_html",
    "Budget": "notebook:budget_html",
    "CheckReport": "notebook:check_html",
    "Launches": "launch_html:launches_html",
}


def notebook_html(obj: object) -> str:
    """``obj``'s Jupyter view: the render layer's function for its type (or a base type's),
    loaded when first shown (start-up: no command loads the notebook views)."""
    where = next(
        NOTEBOOK_VIEWS[t.__name__] for t in type(obj).__mro__ if t.__name__ in NOTEBOOK_VIEWS
    )
    module, func = where.split(":")
    view = getattr(importlib.import_module(f"{__package__}.render.{module}"), func)
    return cast(str, view(obj))
