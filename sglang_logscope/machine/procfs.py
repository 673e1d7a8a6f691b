"""What this machine's ``/proc`` says about a PID: name, command line, state, and whether it has
a ``/dev/nvidia*`` device open (so a PID the driver reports can be told apart from a host PID)."""

from __future__ import annotations

import os
from pathlib import Path

from .._record import record


@record
class ProcInfo:
    """What this machine's ``/proc`` says about one PID."""

    pid: int
    exists: bool
    comm: str | None = None
    cmdline: str | None = None
    state: str | None = None  # R, S, D, Z, ... from /proc/PID/stat
    uses_gpu: bool | None = None  # has /dev/nvidia* open; None: could not look (permissions)


class ProcFs:
    """Looks PIDs up under a ``/proc`` tree (``root`` is a parameter so tests can build one)."""

    def __init__(self, root: Path | str = "/proc") -> None:
        self.root = Path(root)

    def info(self, pid: int) -> ProcInfo:
        base = self.root / str(pid)
        if not base.is_dir():
            return ProcInfo(pid, exists=False)
        comm = _read(base / "comm")
        raw_cmd = _read(base / "cmdline")
        cmdline = " ".join(a for a in raw_cmd.split("\0") if a) if raw_cmd else None
        return ProcInfo(
            pid,
            exists=True,
            comm=comm.strip() if comm else None,
            cmdline=cmdline or None,
            state=_state(_read(base / "stat")),
            uses_gpu=_uses_gpu(base / "fd"),
        )


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8", "replace")
    except OSError:
        return None


def _state(stat: str | None) -> str | None:
    # "PID (comm) S ..." — comm may hold spaces and parentheses: split after the last ')'.
    if not stat or ")" not in stat:
        return None
    rest = stat.rsplit(")", 1)[1].split()
    return rest[0] if rest else None


def _uses_gpu(fd_dir: Path) -> bool | None:
    try:
        entries = list(os.scandir(fd_dir))
    except OSError:
        return None
    for entry in entries:
        try:
            target = os.readlink(entry.path)
        except OSError:
            continue
        if target.startswith("/dev/nvidia"):
            return True
    return False
