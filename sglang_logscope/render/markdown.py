"""``logscope report --markdown``: the check as GitHub-flavoured Markdown, to paste into an issue.

Rendered from the same :class:`~sglang_logscope.staleness.report.FullReport` as the HTML page:
verdict, cause, the argument diff, the memory budget per GPU, the findings with their codes
and the checked run's last lines. Log text is untrusted: outside the fenced block every piece
of it goes through :func:`_md` (``&<>`` as entities, Markdown control characters and pipes
backslash-escaped, control characters made visible, newlines folded), so no raw HTML, link,
image or table break passes; the last lines sit in a fence longer than any backtick run in
them. The document stays under :data:`MAX_CHARS` (GitHub's comment limit is 65,536): the last
lines are cut first, and the document says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .. import __version__
from .._html import cut
from .._text import own_pattern, visible
from ..events import Event
from ..log.runs import Run
from .check_view import ArgSection, CheckView, check_view
from .html import TAIL_EVENTS

if TYPE_CHECKING:
    from ..memory.budget_types import Budget
    from ..staleness.report import FullReport, RunBudget
    from ..staleness.verdict import CheckReport

__all__ = ["MAX_CHARS", "render_markdown"]

#: The most characters a report holds (GitHub refuses a comment over 65,536).
MAX_CHARS = 65_000
#: The most characters of one table cell or paragraph of log text, and of one log line.
CELL_CHARS = 500
LINE_CHARS = 2000

#: Characters Markdown (GFM) reads as syntax in running text and table cells.
_CONTROL = own_pattern(r"([\\`*_\[\]|~#])")
_BACKTICKS = own_pattern(r"`++")


def render_markdown(report: FullReport) -> str:
    """The Markdown document for a :class:`~sglang_logscope.staleness.report.FullReport`,
    under :data:`MAX_CHARS` characters."""
    result = report.check
    view = check_view(result)
    sections = [
        f"## logscope report: {_md(result.log)}",
        f"_sglang-logscope {_md(__version__)} · {len(result.runs)} run(s) in the file_",
        _verdict_section(view),
        _fixed_command_section(report),
        _arg_section(view.args),
        _memory_section(result, report.run_budget),
        _findings_section(view),
    ]
    head = "\n\n".join(p for p in sections if p)
    return _fit(head, _tail_lines(result.run, report.last_events))


# --------------------------------------------------------------------------------- escaping


def _md(value: object, limit: int = CELL_CHARS) -> str:
    """``value`` as inert Markdown text on one line: visible, cut, ``&<>`` as entities and
    every Markdown control character (pipes included) backslash-escaped."""
    text = visible(str(value), limit).replace("\r", " ").replace("\n", " ")
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _CONTROL.sub(r"\\\1", text)


def _row(cells: Sequence[object]) -> str:
    return "| " + " | ".join(_md(c) for c in cells) + " |"


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = [_row(headers), "|" + "|".join(" --- " for _ in headers) + "|"]
    lines.extend(_row(r) for r in rows)
    return "\n".join(lines)


def fence(text: str) -> str:
    """``text`` in a fenced block whose fence is longer than any backtick run in it."""
    longest = max((len(m) for m in _BACKTICKS.findall(text)), default=0)
    bar = "`" * max(3, longest + 1)
    return f"{bar}text\n{text}\n{bar}"


# --------------------------------------------------------------------------------- sections


def _verdict_section(v: CheckView) -> str:
    out = [f"### Verdict: **{_md(v.verdict.upper())}**", _md(v.headline, 2000)]
    if v.cause is not None:
        out.append(
            f"**Likely cause** ({_md(v.cause.code)}): {_md(v.cause.message, 2000)}"
            f"  \n**Fix:** {_md(v.cause.fix, 2000)}"
        )
    rows: list[tuple[str, object]] = list(v.run_facts)
    if v.failure is not None:
        f = v.failure
        rows.append(("failure", f"{f.kind} at line {f.line}: {f.message}"))
    rows.extend(v.time_facts)
    if v.memory.oom_verdict is not None:
        rows.append(("out of memory", f"{v.memory.oom_verdict}: {v.memory.oom_explanation}"))
    out.append(_table(["", ""], rows))
    return "\n\n".join(out)


def _fixed_command_section(report: FullReport) -> str:
    """The whole corrected launch (issue 27's ``fixed_command``) fenced, and each edit's
    reason; empty when there is nothing to change."""
    fixed = report.check.fixed_command
    if fixed is None or not fixed.changes:
        return ""
    rows = [[c.code, c.why] for c in fixed.changes]
    out = ["### Fixed command", fence(visible(fixed.text)), _table(["code", "why"], rows)]
    if fixed.unfixed:
        out.append("Not fixed by an edit: " + ", ".join(fixed.unfixed) + ".")
    return "\n\n".join(out)


def _arg_section(a: ArgSection) -> str:
    title = "### Arguments: intended vs. the run"
    if not a.compared:
        return f"{title}\n\nNo intended command given (`--expect-args`): nothing to compare."
    out = [title]
    if a.rows:
        rows = [[d.arg, d.intended, d.effective, d.status, d.why] for d in a.rows]
        out.append(_table(["argument", "you intended", "the run had", "status", "why"], rows))
    else:
        out.append("No differences in the arguments the run shows.")
    if a.matched:
        out.append("**Matched:** " + ", ".join(_md(m) for m in a.matched))
    if a.unverified:
        out.append(
            "**Not shown by the run (unverified):** " + ", ".join(_md(m) for m in a.unverified)
        )
    return "\n\n".join(out)


def _memory_section(r: CheckReport, rb: RunBudget) -> str:
    out = ["### Memory budget per GPU"]
    if rb.budget is not None:
        out.append("**The checked run, from its own numbers**")
        out.append(_budget_table(rb.budget))
    else:
        out.append(f"No budget for the checked run: {_md((rb.note or '').rstrip('.'))}.")
    if r.budget is not None:
        out.append("**Your intended command**")
        if r.budget.fits is None:  # declined: no evidence of the model's shapes
            out.append(f"No figure: {_md(r.budget.reason)}")
        else:
            out.append(_budget_table(r.budget))
    return "\n\n".join(out)


def _budget_table(b: Budget) -> str:
    """The budget's verdict line and its pools (GiB per GPU), as SGLang carves them."""
    g = b.per_gpu
    if b.fits:
        verdict = "fits"
    else:
        kind = b.failure_kind.value if b.failure_kind else "no request slots"
        verdict = f"does not fit ({kind}, short by {b.shortfall_gib:.2f} GiB)"
    kv = f"{b.kv_tokens:,} tokens" if b.kv_tokens is not None else "not modelled"
    line = (
        f"{_md(b.model)} on {b.gpus} GPU(s), SGLang {_md(b.sglang_version)}: **{_md(verdict)}** "
        f"(on {_md(b.basis)}; confidence {_md(b.confidence.get('level', '-'))}). KV pool {_md(kv)}."
    )
    rows: list[list[object]] = [[label, f"{v:.2f}"] for label, v in g.bar_segments()]
    rows.append(["free before weights (F0)", f"{g.f0_gib:.2f}"])
    cap = f"{g.total_gib:.2f}" if g.total_gib is not None else "unknown"
    rows.append(["GPU capacity", cap])
    parts = [line, _table(["part", "GiB per GPU"], rows)]
    if b.suggestions:
        parts.append(
            "Each of these alone makes it fit:\n\n"
            + "\n".join(f"- {_md(s.change)}: {_md(s.effect)}" for s in b.suggestions)
        )
    if b.assumptions:
        parts.append("_Assumptions:_ " + "; ".join(_md(a) for a in b.assumptions))
    return "\n\n".join(parts)


def _findings_section(v: CheckView) -> str:
    if not v.findings:
        return "### Findings\n\nNone."
    rows = [[f.code, f.severity, f.name, f.message] for f in v.findings]
    return "### Findings\n\n" + _table(["code", "severity", "name", "message"], rows)


def _tail_lines(run: Run | None, last_events: Sequence[Event] | None) -> list[Event]:
    """The checked run's last records (as the HTML page shows them)."""
    if run is None:
        return []
    if last_events is None:
        return list(run.events[-TAIL_EVENTS:])
    span = range(run.first_line, run.last_line + 1)
    return [e for e in last_events if e.line in span][-TAIL_EVENTS:]


# ------------------------------------------------------------------------------------ size


def _tail_block(tail: Sequence[Event], dropped: int) -> str:
    lines = "\n".join(cut(visible(e.text or e.message), LINE_CHARS) for e in tail)
    title = f"### Last lines of the checked run (from line {tail[0].line})"
    note = ""
    if dropped:
        note = (
            f"\n\n_{dropped} earlier line(s) left out to keep the report under "
            f"{MAX_CHARS:,} characters._"
        )
    return f"{title}\n\n{fence(lines)}{note}"


def _fit(head: str, tail: Sequence[Event]) -> str:
    """``head`` and as many of the last lines as fit under :data:`MAX_CHARS` (the earliest
    are cut first); a head over the limit is itself cut at a line, and says so."""
    footer = "\n"
    for dropped in range(len(tail) + 1):
        kept = tail[dropped:]
        if not kept:
            break
        doc = f"{head}\n\n{_tail_block(kept, dropped)}{footer}"
        if len(doc) <= MAX_CHARS:
            return doc
    note = f"\n\n_The report was cut to stay under {MAX_CHARS:,} characters._\n"
    if tail:
        note = f"\n\n_The last lines were left out to stay under {MAX_CHARS:,} characters._\n"
    if len(head) + len(note) > MAX_CHARS:
        head = head[: MAX_CHARS - len(note) - 200]
        head = head[: head.rfind("\n")] if "\n" in head else head
        note = f"\n\n_The report was cut to stay under {MAX_CHARS:,} characters._\n"
    return head + note
