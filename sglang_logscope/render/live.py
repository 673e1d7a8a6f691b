"""How a watch is shown: a :class:`Sink` takes its notes and result, as a rich live view of the
phases, plain lines, or JSON lines. Log text is rendered with ``report.plain``.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Group
from rich.live import Live
from rich.table import Table
from rich.text import Text

from .. import _text
from ..watch.phases import PHASES, PhaseState, figures_text
from ..watch.result import Note, Sink, WatchOutcome, WatchResult
from . import text as report
from .check_view import check_view
from .views import arg_diff_table, memory_texts

if TYPE_CHECKING:
    from rich.console import Console, Group

    from ..staleness.verdict import CheckReport
    from ..watch.watcher import Watcher


_NOTE_LABEL = {
    "waiting": "waiting",
    "ignoring": "ignoring",
    "info": "info",
    "quiet": "QUIET",
    "stall": "stalled",
    "reset": "reset",
    "run_started": "started",
    "phase": "phase",
    "phase_done": "done",
    "progress": "progress",
    "warning": "warning",
}
_NOTE_STYLE = {
    "quiet": "bold yellow",
    "stall": "yellow",
    "warning": "yellow",
    "reset": "cyan",
    "run_started": "bold",
    "phase": "bold cyan",
}
_OUTCOME_STYLE = {
    "ready": "bold green",
    "crashed": "bold red",
    "exited": "bold red",
    "timeout": "bold yellow",
    "stale": "bold red",
}


def note_text(note: Note) -> Text:
    label = _NOTE_LABEL.get(note.kind, note.kind)
    return Text.assemble(
        (f"[+{note.elapsed:6.1f}s] ", "dim"),
        (f"{label:<9} ", _NOTE_STYLE.get(note.kind, "")),
        report.plain(note.message, limit=400),
    )


class _LineSink:
    """A sink that only writes what it is told: no live view to start, redraw or stop."""

    def start(self, watcher: Watcher) -> None:
        pass

    def refresh(self, watcher: Watcher) -> None:
        pass

    def stop(self) -> None:
        pass


class PlainSink(_LineSink):
    """One line per note; the result as a short report. For pipes and ``--format text`` off a TTY."""

    def __init__(self, console: Console) -> None:
        self.console = console

    def note(self, note: Note) -> None:
        self.console.print(note_text(note), soft_wrap=True)

    def finish(self, result: WatchResult) -> None:
        render_result(self.console, result)


class JsonlSink(_LineSink):
    """One JSON object per note, then the result object (``"event": "result"``)."""

    def __init__(self, out: Any = None) -> None:

        self.out = out if out is not None else sys.stdout

    def _write(self, data: Mapping[str, Any]) -> None:
        self.out.write(_text.to_json(data, indent=None) + "\n")
        self.out.flush()

    def note(self, note: Note) -> None:
        self._write(note.to_dict())

    def finish(self, result: WatchResult) -> None:
        self._write(result.to_dict())


class LiveSink:
    """A rich live view of the phases, the last notes below it; the result printed after."""

    def __init__(self, console: Console, keep_notes: int = 6) -> None:

        self.console = console
        self._notes: list[Note] = []
        self._keep = keep_notes
        self._live = Live(
            console=console, refresh_per_second=4, transient=False, auto_refresh=False
        )
        self._watcher: Watcher | None = None
        self._started = False

    def start(self, watcher: Watcher) -> None:
        self._watcher = watcher
        self._live.start()
        self._started = True

    def note(self, note: Note) -> None:
        if note.kind in ("progress",):
            return
        self._notes.append(note)
        del self._notes[: -self._keep]

    def refresh(self, watcher: Watcher) -> None:
        self._live.update(live_view(watcher, self._notes), refresh=True)

    def stop(self) -> None:
        if self._started:
            if self._watcher is not None:
                self._live.update(live_view(self._watcher, self._notes), refresh=True)
            self._live.stop()
            self._started = False

    def finish(self, result: WatchResult) -> None:
        render_result(self.console, result, phases=False)


def phase_table(phases: Mapping[str, Any] | None, *, failed: bool = False) -> Table:
    """The phases as a table: state, name, progress, figures (numbers from the log, as text)."""
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(width=2)
    table.add_column(min_width=18)
    table.add_column(width=12)
    table.add_column()
    rows = phases.get("phases", []) if phases else [PhaseState(p).to_dict() for p in PHASES]
    current = phases.get("phase") if phases else None
    for row in rows:
        if row["done"]:
            mark, style = "✓", "green"
        elif row["phase"] == current:
            mark, style = ("✗", "red") if failed else ("▶", "bold cyan")
        else:
            mark, style = "·", "dim"
        progress = row.get("progress")
        bar = _bar(progress) if progress is not None else ""
        table.add_row(
            Text(mark, style=style),
            Text(row["label"], style=style),
            Text(bar),
            report.plain(figures_text(row["figures"]), limit=200),
        )
    return table


def _bar(fraction: float, width: int = 8) -> str:
    fraction = min(1.0, max(0.0, fraction))
    filled = round(fraction * width)
    return "█" * filled + "░" * (width - filled) + f" {fraction * 100:3.0f}%"


def live_view(watcher: Watcher, notes: Sequence[Note]) -> Group:

    tracker = watcher.tracker
    head = Text.assemble(("logscope watch ", "bold"), report.plain(watcher.path))
    run = watcher.run
    if run is not None:
        head.append(f"  run from line {run.first_line}", style="dim")
    parts: list[Any] = [head, phase_table(tracker.view() if tracker else None)]
    for note in notes:
        parts.append(note_text(note))
    return Group(*parts)


def render_result(console: Console, result: WatchResult, *, phases: bool = True) -> None:
    """The end of a watch: the outcome line, then what explains it."""
    outcome = result.outcome.value
    _line(
        console,
        Text.assemble(
            (outcome.upper(), _OUTCOME_STYLE.get(outcome, "bold")),
            "  ",
            report.plain(result.message, limit=600),
        ),
    )
    failed = result.outcome is not WatchOutcome.READY
    if phases and result.phases:
        console.print(phase_table(result.phases, failed=failed))
    if result.check is not None:
        render_forensics(console, result.check)
    elif failed and result.tail:
        _line(console, Text(f"Last {len(result.tail)} line(s) of the log:", style="bold"))
        for line in result.tail:
            _line(console, Text.assemble("  ", report.plain(line, limit=400)))


def render_forensics(console: Console, data_report: CheckReport) -> None:
    """The crash summary: failure, arg diff, OOM verdict, the budget's suggestions, next steps
    (the sections of :func:`~.check_view.check_view`)."""
    view = check_view(data_report)
    failure, mem = view.failure, view.memory
    if failure:
        _line(
            console,
            Text.assemble(("Failure ", "bold"), (failure.kind, "red"), f" at line {failure.line}"),
        )
        _line(console, Text.assemble("  ", report.plain(failure.message, limit=600)))
        if failure.effective:
            eff = ", ".join(f"{k}={v!r}" for k, v in failure.effective)
            _line(console, Text.assemble("  effective: ", report.plain(eff, limit=300)))
    if view.args.rows:
        console.print(arg_diff_table(view.args.rows))
    elif view.args.compared:
        console.print(
            Text("Arguments: every explicit argument checked matches the run.", style="dim")
        )
    for line in memory_texts(mem, oom_limit=800, change=_text.visible):
        _line(console, line)
    if view.next_steps:
        _line(console, Text("Next", style="bold"))
        for step in view.next_steps:
            _line(console, Text.assemble("  → ", report.plain(step, limit=600)))


def make_sink(fmt: str, console: Console) -> Sink:
    """``jsonl`` → JSON lines; ``text`` → a live view on a terminal, plain lines elsewhere."""
    if fmt == "jsonl":
        return JsonlSink()
    if console.is_terminal:
        return LiveSink(console)
    return PlainSink(console)


def _line(console: Console, text: Text) -> None:
    console.print(text, soft_wrap=True)
