"""HTML renderings for Jupyter (``_repr_html_``): a :class:`~sglang_logscope.log.reader.Log` as a table
of its runs and event counts, a :class:`~sglang_logscope.memory.Budget` as the per-GPU stacked
bar of the HTML report. Log text is escaped like everywhere else."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from .html import _table, _when, budget_block, esc, legend

if TYPE_CHECKING:
    from ..log.reader import Log
    from ..memory.budget_types import Budget


def log_html(log: Log) -> str:
    """The runs of ``log`` (times, lines, outcome, failure, release) and its event kinds."""
    rows = [
        [
            str(r.index),
            esc(_when(r.started_at)),
            esc(_when(r.ended_at)),
            f"{r.first_line}-{r.last_line}",
            esc(r.outcome.value),
            esc(f"{r.failure.kind.value} (line {r.failure.line})") if r.failure else "-",
            esc(r.release_hint or "-"),
        ]
        for r in log.runs
    ]
    kinds = Counter(e.kind.value for e in log.events)
    counts = ", ".join(f"{esc(k)} {n}" for k, n in kinds.most_common(12))
    more = f", … ({len(kinds) - 12} more kinds)" if len(kinds) > 12 else ""
    runs = (
        _table(["run", "started", "ended", "lines", "outcome", "failure", "release"], rows)
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
