"""The watcher's decisions: has a run of the launch started, how far did it get, and is it
ready, crashed, timed out, or never came? One :meth:`Watcher.step` at a time, given the time,
so tests need no sleeping.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta, timezone, tzinfo
from typing import TYPE_CHECKING, Any

from .. import _text
from .._record import record
from ..events import Event
from ..log.reader import Log
from ..log.runs import Run, split_runs
from ..parse.source import decode_line
from ..staleness.judge import check
from ..timing import START_TOLERANCE, LaunchTime, file_mtime, to_log_time
from .existing import Existing, read_existing, worth_it
from .follow import EventStream, Follower, Reset, parse_partial
from .phases import STARTUP_KINDS, Phase, PhaseChange, PhaseTracker
from .result import Note, WatchOutcome, WatchResult

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand
    from ..staleness.verdict import CheckReport

#: Without a launch time: the file's last run, when it started at most this long before the
#: watch began (the log's clock read in ``--log-tz``, else this machine's zone), is the run
#: being watched — ``watch`` started a few seconds after the launch joins it from its first
#: line instead of reporting a "new run" from its middle (issue 27).
JOIN_WINDOW = timedelta(minutes=5)


@record
class WatchOptions:
    """What to watch for and how long. Times in seconds."""

    launched_at: LaunchTime | None = None
    log_tz: tzinfo | None = None
    #: ``--log-tz`` as given (``Europe/Berlin``): the ``time_zone`` of the JSON result
    log_tz_name: str | None = None
    expect: LaunchCommand | None = None
    timeout: float = 20 * 60
    quiet_after: float = 60.0
    settle: float = 1.0
    #: The whole current file belongs to the launch (``logscope launch`` created it).
    fresh_file: bool = False
    #: The launched server's pid (for messages) and a check that it is still running.
    pid: int | None = None
    alive: Callable[[], bool] | None = None
    tail_lines: int = 20


class Watcher:
    """Decide, one :meth:`step` at a time, what became of the launch that writes ``path``.

    Content that was in the file before the launch is ignored: with a launch time, runs that
    started before it; without one, everything the file held when the watch began except its
    last run when that started within :data:`JOIN_WINDOW` before the watch (it is joined); with
    ``fresh_file``, nothing (the launch created the file). Whatever is written after the watch
    began is new, whatever its timestamps say (a log in another time zone is still followed).
    """

    def __init__(
        self, path: str | os.PathLike[str], options: WatchOptions, *, start: float
    ) -> None:
        self.path = os.fspath(path)
        self.opt = options
        self.start = start
        self._now = start
        #: no launch time: the file's last run is joined when it started just before the watch
        self._join = options.launched_at is None and not options.fresh_file
        self._join_now = to_log_time(datetime.now(timezone.utc), options.log_tz)
        self._by_time = not options.fresh_file
        self._initial_lines = 0  # what the file held at start (a run there was joined)
        #: A big existing file read as check reads it (serving lines folded), not line by line.
        self._fast = self._by_time and worth_it(self.path)
        self.follower = Follower(self.path, skip_existing=self._fast)
        self.result: WatchResult | None = None
        self._stream = EventStream()
        self._opened = False
        self._events: list[Event] = []  # final events after the cut, file order
        self._cut = 0  # lines up to this one are earlier content
        self._initial = self._by_time  # still reading what the file held at start
        self._lines_seen = 0  # lines read in this generation (after any skipped ones)
        self._last_data = start
        self._dirty = False
        self._run: Run | None = None
        self._tracker: PhaseTracker | None = None
        self._told_quiet = False
        self._told_stall = False
        self._written = False  # a line was written after the watch began
        self._tail: list[str] = []
        #: Why the arg diff was left out of the forensic summary, if it was.
        self.forensics_note: str | None = None

    @property
    def done(self) -> bool:
        return self.result is not None

    @property
    def tracker(self) -> PhaseTracker | None:
        return self._tracker

    @property
    def run(self) -> Run | None:
        return self._run

    def close(self) -> None:
        self.follower.close()

    def begin(self) -> list[Note]:
        """The first note: what is being waited for."""
        return [
            self._note(
                "waiting",
                f"waiting for a run that starts after {self._launch_text()} in {self.path}",
            )
        ]

    def step(self, now: float) -> list[Note]:
        """Read what is new, update the phase view, and decide whether the watch is over."""
        if self.result is not None:
            return []
        self._now = now
        # Asked before reading: a process found dead has written all it will write.
        alive = self.opt.alive() if self.opt.alive is not None else True
        notes: list[Note] = []
        for _ in range(64):
            chunk = self.follower.poll()
            if self.follower.is_open and not self._opened:
                notes.extend(self._on_open())
                if not self._opened:  # the existing content is to be read line by line after all
                    continue
            if chunk.reset is not None:
                notes.extend(self._on_reset(chunk.reset, now))
            if chunk.lines:
                self._accept(chunk.lines, now)
            if self._initial and not chunk.more:
                if self.follower.is_open:
                    notes.extend(self._end_initial())
                elif not self.follower.existed_at_start:
                    self._initial = False  # no file at start: all of it will be new
            if not chunk.more:
                break
        if self._dirty:
            self._dirty = False
            notes.extend(self._update())
        notes.extend(self._partial_progress())
        notes.extend(self._decide(now, alive))
        return notes

    # -- reading

    def _on_open(self) -> list[Note]:
        if self._fast:
            self._fast = False
            if self.follower.existed_at_start:
                return self._read_existing()
        self._opened = True
        self._stream = EventStream(first_line=self.follower.skipped_lines + 1)
        return []

    def _accept(self, lines: Sequence[bytes], now: float) -> None:
        self._last_data = now
        if not self._initial:
            self._written = True
            self._tail.extend(decode_line(raw) for raw in lines[-self.opt.tail_lines :])
            del self._tail[: -self.opt.tail_lines]
        self._lines_seen += len(lines)
        final = self._stream.feed(lines)
        self._events.extend(e for e in final if e.line > self._cut)
        self._dirty = True

    def _on_reset(self, why: Reset, now: float) -> list[Note]:
        self._stream = EventStream()
        self._lines_seen = 0
        self._events = []
        self._cut = 0
        self._initial = False
        self._run = None
        self._tracker = None
        self._tail = []
        self._last_data = now
        self._dirty = True
        what = {
            Reset.REPLACED: "was replaced by a new file (rotated or recreated)",
            Reset.TRUNCATED: "was truncated",
            Reset.REWRITTEN: "was truncated and rewritten",
            Reset.CREATED: "was created again",
        }[why]
        return [
            self._note(
                "reset",
                f"{self.path} {what}: following the new content from its first line",
                reset=why.value,
            )
        ]

    def _read_existing(self) -> list[Note]:
        """The big file's content at start, read as check reads it (see :mod:`.existing`):
        from the second last run starter on, then the third and fourth, until the launch's
        run and the one before it are parsed (not known from a starter line only); else the
        follower starts over from the file's first line (``_opened`` stays false)."""
        for back in (2, 3, 4):
            ex = read_existing(self.path, self.follower.offset, self.follower.skipped_lines, back)
            if ex is None:
                break
            runs = [r for r in ex.runs if _is_launch(r)]
            keep = next(
                (r for r in runs if self._started_after_launch(r, last=r is runs[-1])), None
            )
            earlier = [r for r in runs if keep is None or r.first_line < keep.first_line]
            told = [r for r in (keep, *earlier[-1:]) if r is not None]
            if _headless(ex) or any(r.first_line < ex.exact_from for r in told):
                continue
            self._opened = True
            self._stream = EventStream(first_line=ex.last_line)
            self._events = [*ex.events, *self._stream.feed(ex.last_raw)]
            self._lines_seen = 0
            return self._settle_initial(runs, keep, ex.lines)
        self.follower.close()
        self.follower = Follower(self.path)
        return []

    def _end_initial(self) -> list[Note]:
        """What the file held at start is read: keep only runs that belong to the launch."""
        events = list(self._events)
        prov = self._stream.provisional
        if prov is not None:
            events.append(prov)
        runs = [r for r in split_runs(events) if _is_launch(r)] if events else []
        keep = next((r for r in runs if self._started_after_launch(r, last=r is runs[-1])), None)
        return self._settle_initial(runs, keep, self._lines_seen)

    def _settle_initial(self, runs: list[Run], keep: Run | None, initial_lines: int) -> list[Note]:
        """Cut the content at start before ``keep`` (the launch's run, if it is there)."""
        self._initial = False
        self._initial_lines = initial_lines
        earlier = [r for r in runs if keep is None or r.first_line < keep.first_line]
        self._cut = keep.first_line - 1 if keep is not None else initial_lines
        self._events = [e for e in self._events if e.line > self._cut]
        self._dirty = True
        if self._join and keep is None and initial_lines:  # no launch time: as before issue 27
            return [
                self._note(
                    "ignoring",
                    f"ignoring the {initial_lines} line(s) already in the file (no run in it "
                    f"started in the {int(JOIN_WINDOW.total_seconds() // 60)} min before the watch)",
                    lines=initial_lines,
                )
            ]
        if earlier:
            last = earlier[-1]
            started = (
                f"started {_text.when(last.started_at)}"
                if last.started_at
                else "start time not printed"
            )
            failure = f" ({last.failure.kind.value})" if last.failure else ""
            msg = (
                f"ignoring {len(earlier)} earlier run(s) in the file; the last one {started}, "
                f"{last.outcome.value}{failure}, lines {last.first_line}-{last.last_line}"
            )
            return [self._note("ignoring", msg, earlier_runs=len(earlier), lines=self._cut)]
        if keep is None and initial_lines:
            return [
                self._note(
                    "ignoring",
                    f"ignoring the {initial_lines} line(s) already in the file",
                    lines=initial_lines,
                )
            ]
        return []

    # -- judging

    def _launch_moment(self, day: datetime | None) -> datetime | None:
        lt = self.opt.launched_at
        if lt is None:
            return None
        moment = lt.on(day.date() if day is not None else None)
        if moment.year == 1900:
            return None
        return to_log_time(moment, self.opt.log_tz)

    def _started_after_launch(self, run: Run, *, last: bool) -> bool:
        """For content that was there at start: did this run start after the launch?"""
        started = run.started_at if run.started_at and run.started_at.year != 1900 else None
        if self._join:  # the last run, when it started just before the watch
            now = self._join_now
            return (
                last
                and started is not None
                and now - JOIN_WINDOW <= started <= now + START_TOLERANCE
            )
        launch = self._launch_moment(started)
        if launch is None:
            return False
        if started is not None:
            return launch - started <= START_TOLERANCE
        # No time in the run (argparse died at once): the launch's if it is the last run and
        # the file was written after the launch.
        mtime = file_mtime(self.path, self.opt.log_tz)
        return last and mtime is not None and launch - mtime <= START_TOLERANCE

    def _update(self) -> list[Note]:
        events = list(self._events)
        prov = self._stream.provisional
        if (
            prov is not None
            and prov.line > self._cut
            and (not events or prov.line > events[-1].line)
        ):
            events.append(prov)
        if self._initial or not events:
            return []
        runs = [r for r in split_runs(events) if _is_launch(r)]
        if not runs:
            return []
        run = runs[-1]
        notes: list[Note] = []
        if self._run is None or run.first_line != self._run.first_line:
            self._tracker = PhaseTracker()
            when = _text.when(run.started_at) if run.started_at else "time not printed"
            joined = run.first_line <= self._initial_lines
            what = "joined the run already in the file" if joined else "a new run started"
            notes.append(
                self._note(
                    "run_started",
                    f"{what} at line {run.first_line} ({when})",
                    line=run.first_line,
                    **({"joined": True} if joined else {}),
                )
            )
            self._told_stall = False
        self._run = run
        assert self._tracker is not None
        notes.extend(self._change_note(c) for c in self._tracker.consume_all(run.events))
        return notes

    def _partial_progress(self) -> list[Note]:
        if self._tracker is None or self._run is None:
            return []
        line = self.follower.skipped_lines + self._lines_seen + 1
        event = parse_partial(self.follower.partial, line)
        if event is None:
            return []
        return [self._change_note(c) for c in self._tracker.consume(event)]

    def _decide(self, now: float, alive: bool) -> list[Note]:
        quiet = now - self._last_data
        run = self._run
        tracker = self._tracker
        if run is not None and tracker is not None and tracker.ready:
            return self._finish(WatchOutcome.READY, now, f"ready: {self._ready_text(tracker)}")
        if run is not None and run.failure is not None and (quiet >= self.opt.settle or not alive):
            return self._finish(WatchOutcome.CRASHED, now, self._crash_text(run))
        who = f"the server (pid {self.opt.pid})" if self.opt.pid else "the server"
        if not alive:
            if run is not None:
                return self._finish(
                    WatchOutcome.EXITED,
                    now,
                    f"{who} exited during {self._phase_text()} with no failure in the log",
                )
            return self._finish(
                WatchOutcome.EXITED, now, f"{who} exited without writing a run to {self.path}"
            )
        if now - self.start >= self.opt.timeout:
            took = _secs(now - self.start)
            if run is not None:
                return self._finish(
                    WatchOutcome.TIMEOUT, now, f"timed out after {took} in {self._phase_text()}"
                )
            return self._finish(
                WatchOutcome.STALE, now, f"{self._nothing_text(now)}; gave up after {took}"
            )
        notes: list[Note] = []
        if run is None and not self._told_quiet and now - self.start >= self.opt.quiet_after:
            self._told_quiet = True
            notes.append(self._note("quiet", self._nothing_text(now)))
        if run is not None and not self._told_stall and quiet >= self.opt.quiet_after:
            self._told_stall = True
            notes.append(
                self._note("stall", f"no new line for {_secs(quiet)} (in {self._phase_text()})")
            )
        elif quiet < self.opt.quiet_after:
            self._told_stall = False
        return notes

    def _nothing_text(self, now: float) -> str:
        since = _secs(now - self.start)
        if not self._written:
            if not self.follower.is_open:
                return f"nothing has started writing: {self.path} does not exist ({since} since the watch began)"
            return f"nothing has started writing to {self.path} ({since} since the watch began)"
        last = self._tail[-1] if self._tail else ""
        return f"{self.path} was written, but no SGLang run has started; last line: {_text.visible(last, 200)}"

    def _finish(self, outcome: WatchOutcome, now: float, message: str) -> list[Note]:
        run = self._run
        check_report = self._forensics(run) if outcome is WatchOutcome.CRASHED and run else None
        self.result = WatchResult(
            outcome=outcome,
            log=self.path,
            message=message,
            elapsed=now - self.start,
            run=run,
            phases=self._tracker.view(self.opt.log_tz) if self._tracker else None,
            check=check_report,
            tail=tuple(self._tail),
            log_tz=self.opt.log_tz,
            log_tz_name=self.opt.log_tz_name,
        )
        return []

    def _forensics(self, run: Run) -> CheckReport:
        """``check`` of this run against the intended command: failure, arg diff, OOM, budget."""

        log = Log(name=self.path, events=run.events, runs=(run,))
        return check(
            log, expect=self.opt.expect, launched_at=self.opt.launched_at, log_tz=self.opt.log_tz
        )

    # -- wording

    def _note(self, kind: str, message: str, **data: Any) -> Note:
        return Note(kind, message, self._now - self.start, data)

    def _change_note(self, change: PhaseChange) -> Note:
        data: dict[str, Any] = {"phase": change.phase.value, "line": change.line}
        if change.figures:
            data["figures"] = dict(change.figures)
        kind = {
            "enter": "phase",
            "done": "phase_done",
            "progress": "progress",
            "warning": "warning",
        }[change.kind]
        return self._note(kind, change.message, **data)

    def _phase_text(self) -> str:
        tracker = self._tracker
        if tracker is None or tracker.current is None:
            return "startup (no phase reached yet)"
        return f"phase {tracker.current.label}"

    def _ready_text(self, tracker: PhaseTracker) -> str:
        st = tracker.states[Phase.READY]
        if "startup_s" in st.figures:
            return f"the server is up (startup {st.figures['startup_s']:.1f} s in the log)"
        return "the server is up"

    def _crash_text(self, run: Run) -> str:
        assert run.failure is not None
        return (
            f"crashed in {self._phase_text()}: {run.failure.kind.value} at line {run.failure.line}"
        )

    def _launch_text(self) -> str:
        if self.opt.fresh_file:
            return "the launch (a new log file)"
        if self.opt.launched_at is not None:
            return f"the launch at {self.opt.launched_at.text}"
        return (
            "the watch began (a run already in the file is joined when it started in the last "
            f"{int(JOIN_WINDOW.total_seconds() // 60)} min; earlier content is ignored)"
        )


def _headless(ex: Existing) -> bool:
    """A run before the first starter, known from its first lines only: whether it is a
    launch (has startup lines) is not known, so the file is read line by line."""
    return any(not r.events and r.first_line < ex.exact_from for r in ex.runs)


def _is_launch(run: Run) -> bool:
    return run.failure is not None or any(e.kind in STARTUP_KINDS for e in run.events)


def _secs(seconds: float) -> str:
    seconds = max(0.0, seconds)
    if seconds < 120:
        return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
