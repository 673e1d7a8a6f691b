"""Follow a launch as it happens: ``logscope watch``.

This module is the entry point: :func:`prepare` builds the options (with the launch record
beside the log), :func:`watch` is the loop around a :class:`Watcher`, reporting through a
:class:`Sink`. The layers below are each testable on their own:

- :mod:`.follow`: :class:`Follower` reads a path like ``tail -F`` and never sleeps;
  :class:`EventStream` parses the lines as they come.
- :mod:`.phases`: :class:`PhaseTracker` keeps the phase view of one run (args → distributed
  init → weights → KV / mamba pools → CUDA graphs → ready) with the key figures of each phase.
- :mod:`.watcher`: :class:`Watcher` decides, on every :meth:`Watcher.step` (given the time, so
  tests need no sleeping), whether a run of the launch has started, how far it got, and whether
  it is ready, crashed, timed out, or never came; :mod:`.result` holds what it says and the
  :class:`Sink` protocol a watch reports through.
- :mod:`sglang_logscope.render.live`: the sinks (rich live view, plain lines, JSON lines).
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from .._record import record
from .._text import own_pattern
from ..command.parse import parse_launch_command, read_command_file
from ..errors import CommandError, LogscopeError
from ..timing import parse_launched_at, parse_tz
from .launch import Launched, LaunchRecord, read_record
from .result import Note, Sink, WatchResult
from .watcher import Watcher, WatchOptions

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand


# ------------------------------------------------------------------------------ durations


def settle_for(poll_interval: float) -> float:
    """How long a file must stay quiet before a watch judges it: four polls, 0.3–2 s."""
    return min(2.0, max(0.3, 4 * poll_interval))


_DURATION = own_pattern(
    r"(?:(?P<h>\d+(?:\.\d+)?)h)?(?:(?P<m>\d+(?:\.\d+)?)m)?(?:(?P<s>\d+(?:\.\d+)?)s?)?"
)


def parse_duration(text: str, option: str = "duration") -> float:
    """Seconds from ``20m``, ``90s``, ``1h``, ``1h30m``, ``2.5`` (plain seconds)."""
    raw = text.strip().lower()
    m = _DURATION.fullmatch(raw) if raw else None
    if m is None or not any(m.group(g) for g in ("h", "m", "s")):
        raise LogscopeError(f"{option} {text!r}: not a duration (e.g. 20m, 90s, 1h, 45)")
    seconds = (
        float(m.group("h") or 0) * 3600 + float(m.group("m") or 0) * 60 + float(m.group("s") or 0)
    )
    if seconds <= 0:
        raise LogscopeError(f"{option} {text!r}: must be more than zero")
    if seconds > MAX_DURATION_S:
        raise LogscopeError(f"{option} {text!r}: more than 30 days")
    return seconds


#: The longest ``--timeout`` / ``--quiet-after`` (issue 20: bounded option values).
MAX_DURATION_S = 30 * 86400


# ------------------------------------------------------------------------------ options


def pid_alive(pid: int) -> bool:
    """Is ``pid`` a running process here (a zombie counts as gone)?"""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
    except OSError:
        return True
    state = stat.rpartition(b")")[2].split()[:1]
    return state != [b"Z"]


@record
class Prepared:
    """Options for a watch, and what was said while preparing them."""

    options: WatchOptions
    notes: tuple[str, ...] = ()


def prepare(
    log: str | os.PathLike[str],
    *,
    expect_args: str | os.PathLike[str] | None = None,
    launched_at: str | None = None,
    log_tz: str | None = None,
    timeout: float = 20 * 60,
    quiet_after: float = 60.0,
    settle: float = 1.0,
) -> Prepared:
    """Build :class:`WatchOptions` from what the user gave, and the launch record beside the log.

    ``--expect-args`` and ``--launched-at`` win; otherwise the record (``LOG.launch.json``)
    gives the launch time, the intended command and the pid (watched while on this host).
    Bad user input raises :class:`LogscopeError`; a bad record is ignored with a note.
    """

    notes: list[str] = []
    zone = parse_tz(log_tz)
    when = parse_launched_at(launched_at) if launched_at is not None else None
    intended: LaunchCommand | None = None
    if expect_args is not None:
        text, base = read_command_file(os.fspath(expect_args))
        intended = parse_launch_command(text, base_dir=base)
    record = _usable_record(log, notes)
    pid: int | None = None
    alive: Callable[[], bool] | None = None
    if record is not None:
        if when is None:
            when = parse_launched_at(record.launched_at)
            pid, alive = _recorded_pid(record, notes)
            notes.append(
                f"launch record: pid {record.pid} on {record.host}, launched {record.launched_at}"
            )
        if intended is None:
            try:
                intended = parse_launch_command(record.command, base_dir=Path(record.cwd))
            except CommandError as exc:
                notes.append(f"the recorded command is not an SGLang launch, no arg diff: {exc}")
    options = WatchOptions(
        launched_at=when,
        log_tz=zone,
        log_tz_name=log_tz,
        expect=intended,
        timeout=timeout,
        quiet_after=quiet_after,
        settle=settle,
        pid=pid,
        alive=alive,
    )
    return Prepared(options, tuple(notes))


def started_options(
    started: Launched,
    intended: LaunchCommand | None,
    *,
    timeout: float,
    settle: float,
    quiet_after: float = WatchOptions.quiet_after,
) -> WatchOptions:
    """Options to watch the server :func:`~.launch.start` just started: its own record gives the
    launch time and pid, and the whole log is its own (the launch created the file)."""
    return WatchOptions(
        launched_at=parse_launched_at(started.record.launched_at),
        expect=intended,
        timeout=timeout,
        quiet_after=quiet_after,
        settle=settle,
        fresh_file=True,
        pid=started.pid,
        alive=started.alive,
    )


def _usable_record(log: str | os.PathLike[str], notes: list[str]) -> LaunchRecord | None:
    """The launch record beside ``log``; a bad one is only a note, as the user's flags and the
    log can carry the watch without it."""
    try:
        return read_record(log)
    except LogscopeError as exc:
        notes.append(f"launch record ignored: {exc}")
        return None


def _recorded_pid(
    record: LaunchRecord, notes: list[str]
) -> tuple[int | None, Callable[[], bool] | None]:
    """(pid, liveness check) of the recorded server: only a pid on this host can be watched,
    and only a running one ends the watch when it goes."""
    if record.host != socket.gethostname():
        return None, None
    if pid_alive(record.pid):
        return record.pid, _alive_check(record.pid)
    # Gone already: that launch died, or the log was relaunched by other means.
    # Do not end the watch on it; time and the log decide.
    notes.append(
        f"the recorded server (pid {record.pid}) is not running; "
        "waiting for a new run in the log all the same"
    )
    return record.pid, None


def _alive_check(pid: int) -> Callable[[], bool]:
    return lambda: pid_alive(pid)


# ------------------------------------------------------------------------------ the loop


def watch(
    path: str | os.PathLike[str],
    options: WatchOptions,
    sink: Sink,
    *,
    poll_interval: float = 0.5,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
    preamble: Iterable[str] = (),
) -> WatchResult:
    """Follow ``path`` until the launch is ready, crashed, gone or timed out; report to ``sink``.

    ``KeyboardInterrupt`` propagates (after the sink's live display is stopped): the caller
    says what it means. The server is never touched.
    """
    watcher = Watcher(path, options, start=clock())
    try:
        sink.start(watcher)
        for text in preamble:
            sink.note(Note("info", text, 0.0))
        for note in watcher.begin():
            sink.note(note)
        while True:
            for note in watcher.step(clock()):
                sink.note(note)
            sink.refresh(watcher)
            if watcher.result is not None:
                break
            sleep(poll_interval)
    finally:
        watcher.close()
        sink.stop()
    result = watcher.result
    sink.finish(result)
    return result
