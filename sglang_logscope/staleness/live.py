"""Live evidence for ``check`` as findings: this machine's processes and the live server."""

from __future__ import annotations

import shlex
from datetime import datetime
from typing import TYPE_CHECKING

from ..errors import LogscopeError
from ..findings import Finding
from ..log.runs import Outcome, Run
from .argdiff import same_value
from .process import LiveProcess, ProcessEvidence, gather

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand
    from .server import ServerEvidence


def live_findings(
    log: str,
    run: Run,
    intended: LaunchCommand | None,
    record_pid: int | None,
    server: str | None,
    mtime: datetime | None,
) -> tuple[LiveProcess | None, ServerEvidence | None, list[Finding]]:
    """The process that matters most, what the live server said, and what they prove, as
    findings."""
    found: list[Finding] = []
    evidence = gather(
        log,
        record_pid=record_pid,
        intended_argv=tuple(intended.argv) if intended is not None else None,
    )
    found.extend(_process_findings(evidence, run, intended, record_pid, mtime))
    probe = _server_evidence(intended, server)
    if probe is not None and probe.silent:
        found.append(
            Finding.of(
                "LS052", f"The server on {probe.url} {probe.error}: no live evidence from it."
            )
        )
    if probe is not None and probe.reachable:
        if probe.arg_diff:
            shown = ", ".join(
                f"{d.arg}={d.live!r} (you: {d.intended!r})" for d in probe.arg_diff[:4]
            )
            found.append(
                Finding.of(
                    "LS048",
                    f"The server answering {probe.url} runs with {shown}: it is not your launch.",
                )
            )
        elif probe.matched:
            found.append(
                Finding.of(
                    "LS049",
                    f"The server answering {probe.url} runs with your arguments "
                    f"({len(probe.matched)} checked: {', '.join(probe.matched[:6])}).",
                )
            )
    return evidence.process, probe, found


def _server_evidence(intended: LaunchCommand | None, server: str | None) -> ServerEvidence | None:
    """What the live server says, where there is one to ask (a ``--server``, or the intended
    launch's port): without either, no URL and nothing to ask."""
    if intended is None and not server:
        return None
    # start-up: the server probe (and its types) only where there is a server to ask
    from .server import server_evidence

    return server_evidence(intended, server)


def _process_findings(
    ev: ProcessEvidence,
    run: Run,
    intended: LaunchCommand | None,
    record_pid: int | None,
    mtime: datetime | None,
) -> list[Finding]:
    if not ev.visible:
        return [Finding.of("LS051", "Processes are not visible from here (/proc unreadable).")]
    out: list[Finding] = []
    proc = ev.process
    if record_pid is not None and proc is not None and not proc.alive:
        last = f" (the log was last written at {mtime:%Y-%m-%d %H:%M:%S})" if mtime else ""
        state = "was ready" if run.outcome is Outcome.READY else f"is {run.outcome.value}"
        out.append(
            Finding.of(
                "LS045",
                f"The run {state}, but its process {record_pid} (from the launch record) has "
                f"exited{last}: nothing serves this launch now.",
            )
        )
    for holder in ev.holders[:3]:
        out.append(Finding.of("LS044", f"Process {_describe(holder, intended)} holds this log."))
    if not ev.holders:
        hidden = f"; {ev.unreadable} process(es) could not be looked at" if ev.unreadable else ""
        out.append(Finding.of("LS047", f"No process visible from here writes this log{hidden}."))
    elsewhere = [p for p in ev.running_intended if not p.holds_log]
    for p in elsewhere[:2]:
        out.append(
            Finding.of(
                "LS046",
                f"Process {_describe(p, intended)} runs your command but does not hold this "
                "log: its output goes elsewhere.",
            )
        )
    return out


def _describe(p: LiveProcess, intended: LaunchCommand | None) -> str:
    started = f", started {p.started_at:%Y-%m-%d %H:%M:%S}" if p.started_at else ""
    if intended is not None and tuple(p.cmdline[-len(intended.argv) :]) == intended.argv:
        return f"{p.pid} (your command{started})"
    return f"{p.pid} ({shlex.join(p.cmdline)[:120]}{started}{_args_differ(p, intended)})"


def _args_differ(p: LiveProcess, intended: LaunchCommand | None) -> str:
    """The process's own arguments (read from its command line) that differ from yours."""
    if intended is None:
        return ""
    # start-up: the command parser loads with the intended command (staleness.judge._intended)
    from ..command.parse import parse_launch_command

    try:
        theirs = parse_launch_command(shlex.join(p.cmdline), sglang_version=intended.sglang_version)
    except LogscopeError:
        return ""  # not an SGLang launch
    differ = [
        f"{k}={theirs.args.get(k)!r} (you: {v!r})"
        for k, v in intended.explicit_args().items()
        if not same_value(theirs.args.get(k), v)
    ]
    return f"; it runs with {', '.join(differ[:4])}" if differ else "; same explicit arguments"
