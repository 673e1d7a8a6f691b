"""Live process evidence for ``check``: who holds the log open, and is the launch still running.

Read from ``/proc`` of this machine (the log's host by default): the processes with the log
open (``/proc/*/fd``), their pid, start time and command line; the processes whose command line
is the intended launch; and whether the launch record's pid is alive. What ``/proc`` does not
show (another user's processes, another PID namespace) is "not visible from here", never an
error.
"""

from __future__ import annotations

import os
from dataclasses import field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .._record import record
from .._text import rfc3339

#: Scanning every process's fds is bounded: at most this many processes are looked at.
MAX_PROCESSES = 20_000


@record
class LiveProcess:
    """One process as ``/proc`` shows it."""

    pid: int
    alive: bool
    started_at: datetime | None = None
    cmdline: tuple[str, ...] = ()
    holds_log: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "alive": self.alive,
            # this machine's clock: its zone is known
            "started_at": rfc3339(self.started_at.replace(microsecond=0).astimezone())
            if self.started_at
            else None,
            "cmdline": list(self.cmdline),
            "holds_log": self.holds_log,
        }


@record
class ProcessEvidence:
    """What this machine's processes say about the log and the launch."""

    process: LiveProcess | None  # the one that matters most (record pid, holder, your command)
    holders: tuple[LiveProcess, ...] = ()
    running_intended: tuple[LiveProcess, ...] = ()
    visible: bool = True  # False: /proc could not be read at all
    unreadable: int = 0  # processes whose fds could not be read (another user)
    notes: tuple[str, ...] = field(default=())


class ProcTable:
    """Reads a ``/proc`` tree (``root`` is a parameter so tests can point it elsewhere)."""

    def __init__(self, root: str | os.PathLike[str] = "/proc") -> None:
        self.root = Path(root)
        self._boot: datetime | None = None
        self._hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def pids(self) -> list[int]:
        try:
            names = os.listdir(self.root)
        except OSError:
            return []
        return sorted(int(n) for n in names if n.isdigit())[:MAX_PROCESSES]

    def cmdline(self, pid: int) -> tuple[str, ...] | None:
        try:
            raw = (self.root / str(pid) / "cmdline").read_bytes()
        except OSError:
            return None
        return tuple(a.decode("utf-8", "replace") for a in raw.split(b"\0") if a)

    def started_at(self, pid: int) -> datetime | None:
        """Start time as naive local wall-clock time (field 22 of stat, after the last ')')."""
        try:
            stat = (self.root / str(pid) / "stat").read_text("utf-8", "replace")
            ticks = int(stat.rsplit(")", 1)[1].split()[19])
        except (OSError, ValueError, IndexError):
            return None
        boot = self._boot_time()
        return None if boot is None else boot + timedelta(seconds=ticks / self._hz)

    def _boot_time(self) -> datetime | None:
        if self._boot is None:
            try:
                for line in (self.root / "stat").read_text().splitlines():
                    if line.startswith("btime "):
                        self._boot = datetime.fromtimestamp(int(line.split()[1]))
            except (OSError, ValueError):
                return None
        return self._boot

    def open_fds(self, pid: int) -> list[tuple[str, str]] | None:
        """The process's fds as (fd, target); None when they cannot be read (permissions). A
        process that exited since the pids were listed holds nothing: ``[]``, not "could not
        be read"."""
        # paths joined as strings: a check reads every process's fds (~600 links here), and
        # a pathlib join per link was a visible part of its start-up (issue 33, 2)
        fd_dir = os.path.join(self.root, str(pid), "fd")
        try:
            entries = os.listdir(fd_dir)
        except (FileNotFoundError, ProcessLookupError):
            return []  # it vanished mid-scan
        except OSError:
            return None
        out = []
        for name in entries:
            try:
                out.append((name, os.readlink(os.path.join(fd_dir, name))))
            except OSError:
                continue
        return out

    def writes(self, pid: int, fd: str) -> bool:
        """Is the fd open for writing (``flags`` of ``/proc/PID/fdinfo/FD``)? Where the flags
        cannot be read it counts as writing: the fd's target was readable, so say it holds."""
        try:
            with open(os.path.join(self.root, str(pid), "fdinfo", fd), "rb") as f:
                info = f.read().decode("ascii", "replace")
        except OSError:
            return True
        for line in info.splitlines():
            if line.startswith("flags:"):
                try:
                    return int(line.split()[1], 8) & os.O_ACCMODE != os.O_RDONLY
                except (IndexError, ValueError):
                    return True
        return True

    def process(self, pid: int, holds_log: bool = False) -> LiveProcess:
        argv = self.cmdline(pid)
        if argv is None:
            return LiveProcess(pid, alive=False)
        return LiveProcess(pid, True, self.started_at(pid), argv, holds_log)


def _same_file(target: str, log: Path, log_stat: os.stat_result | None) -> bool:
    """``os.path.samefile(target, log)`` with the log's stat taken once (``None``: it could not
    be taken), falling back to the names' equality where a stat fails: a check compares every
    fd of every process with the log (issue 33, 2: start-up)."""
    if log_stat is None:
        return target == str(log)
    try:
        return os.path.samestat(os.stat(target), log_stat)
    except OSError:
        return target == str(log)


def gather(
    log: str,
    *,
    record_pid: int | None = None,
    intended_argv: tuple[str, ...] | None = None,
    table: ProcTable | None = None,
) -> ProcessEvidence:
    """Who holds ``log`` open for writing, who runs the intended command, and is the record's
    pid alive."""
    procs = table or ProcTable()
    pids = procs.pids()
    if not pids:
        return ProcessEvidence(None, visible=False, notes=("/proc is not readable here",))
    path = Path(log).resolve()
    try:
        log_stat: os.stat_result | None = os.stat(path)
    except OSError:
        log_stat = None
    holders: list[LiveProcess] = []
    running: list[LiveProcess] = []
    unreadable = 0
    me = os.getpid()
    for pid in pids:
        if pid == me:
            continue
        fds = procs.open_fds(pid)
        if fds is None:
            unreadable += 1
        elif any(_writes_log(procs, pid, fd, target, path, log_stat) for fd, target in fds):
            holders.append(procs.process(pid, holds_log=True))
        if intended_argv and _runs(procs.cmdline(pid), intended_argv):
            running.append(procs.process(pid, holds_log=any(p.pid == pid for p in holders)))
    chosen = _choose(procs, record_pid, holders, running)
    return ProcessEvidence(chosen, tuple(holders), tuple(running), True, unreadable)


def _writes_log(
    procs: ProcTable, pid: int, fd: str, target: str, log: Path, log_stat: os.stat_result | None
) -> bool:
    """Does this fd write the log? A reader (``tail -f``, a pager, another check) holds the
    file but is not what writes it, so it is no evidence of a live run."""
    return target.startswith("/") and _same_file(target, log, log_stat) and procs.writes(pid, fd)


def _runs(argv: tuple[str, ...] | None, intended: tuple[str, ...]) -> bool:
    """Does the process's argv end with the intended SGLang argv (after its interpreter)?"""
    if not argv or not intended:
        return False
    return len(argv) > len(intended) and argv[-len(intended) :] == intended


def _choose(
    procs: ProcTable,
    record_pid: int | None,
    holders: list[LiveProcess],
    running: list[LiveProcess],
) -> LiveProcess | None:
    if record_pid is not None:
        held = next((p for p in holders if p.pid == record_pid), None)
        return held or procs.process(record_pid)
    if holders:
        return holders[0]
    return running[0] if running else None
