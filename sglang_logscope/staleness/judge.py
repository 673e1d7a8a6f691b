"""The staleness check: is the log's last run the launch you intended?

:func:`check` takes the log's last run and weighs the evidence — time (the run's banner time
vs. the launch time, the file's mtime), arguments (the run's effective args vs. the intended
command, each difference explained by SGLang's own adjustments or not), what the run shows of
its end, what bash does with the command (the launch lint), and this machine's live processes
and server — into one :class:`CheckReport` with a :class:`Verdict`.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable, Iterator
from dataclasses import field
from datetime import datetime, timedelta, tzinfo
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._record import record
from .._text import ZoneSource, zone_name
from ..errors import LogscopeError
from ..events import Event, EventKind
from ..findings import Finding
from ..limits import COMMAND_MAX_BYTES, read_regular
from ..log.pasted import pasted_tails
from ..log.reader import Log, read_log
from ..log.release import ReleaseUsed, choose_release
from ..log.runs import FailureKind, Outcome, Run, kinds_in
from ..log.tail import CHECK_KINDS, read_last_run, scan_of
from ..parse.source import Source
from ..timing import (
    START_TOLERANCE,
    LaunchTime,
    file_mtime,
    launch_record_bytes,
    parse_launched_at,
    parse_tz,
    to_log_time,
    whole_hour_gap,
)
from .argdiff import NOT_GIVEN_PREFIX, ArgDiff, DiffStatus, arg_diff
from .live import live_findings
from .out_of_range import out_of_range_findings
from .release_words import release_flag_findings
from .verdict import CheckReport, Verdict
from .wording import cause_of, headline_for, next_steps

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand
    from ..memory.budget_types import Budget, DeclinedBudget
    from ..memory.verdict import OomReading
    from .process import LiveProcess
    from .server import ServerEvidence


def check(
    log: Log | Source,
    expect: LaunchCommand | str | os.PathLike[str] | None = None,
    launched_at: datetime | str | LaunchTime | None = None,
    log_tz: tzinfo | str | None = None,
    *,
    sglang_version: str | None = None,
    with_budget: bool = True,
    full_scan: bool = False,
    live: bool = True,
    server: str | None = None,
    here: bool = False,
    log_path: str | None = None,
) -> CheckReport:
    """Judge whether the last run of ``log`` is the launch described by ``expect``.

    ``expect`` is a :class:`~sglang_logscope.command.LaunchCommand`, the text of a launch
    command, or a path to a file holding one. ``launched_at`` is when you ran it (a datetime,
    or text as ``--launched-at`` takes it). ``log_tz`` is the zone of the log's naive times.
    Without ``expect``/``launched_at``, a launch record beside the log (``LOG.launch.json``)
    is used when present. A big plain file is read from its end (:mod:`.tail`): the last run
    and the run count are exact, earlier runs are known from their banner only
    (``full_scan=True`` parses every line). ``live`` adds this machine's evidence (the
    processes holding the log, the launch record's pid, the live server's arguments — asked on
    loopback, or at ``server``); it is skipped for a command that runs on another host unless
    ``here`` says this machine is that host. ``log_path``: the file a :class:`Log` passed as
    ``log`` was read from (for its modification time and launch record).
    """
    parsed = _parsed(log, full_scan)
    path = log_path if isinstance(log, Log) else _path_of(log)
    zone, received = _zones(log_tz, parsed)
    record = _launch_record(path) if path else {}
    if expect is None and record.get("command"):
        expect = str(record["command"])
    if launched_at is None and record.get("launched_at"):
        launched_at = str(record["launched_at"])
    intended, text = _intended(expect, sglang_version or table_release(parsed))
    inputs = _Inputs(
        parsed,
        intended,
        text,
        _launch_time(launched_at),
        zone or received,
        path,
        version=sglang_version,
        with_budget=with_budget,
        record_pid=record.get("pid"),
        live=live,
        server=server,
        command_file=os.fspath(expect) if isinstance(expect, os.PathLike) else None,
        here=here,
        zone_name=log_tz if isinstance(log_tz, str) else zone_name(received),
        zone_received=received is not None,
    )
    return _judge(inputs)


def _parsed(log: Log | Source, full_scan: bool) -> Log:
    """The log as given, or read: whole with ``full_scan``, else from its end, as a big plain
    file's last run is all the check needs."""
    if isinstance(log, Log):
        return log
    if full_scan:
        return read_log(log)
    # big plain files: only the end is parsed; serving lines are folded, never objects
    return read_last_run(log, keep=CHECK_KINDS)


def _zones(log_tz: tzinfo | str | None, parsed: Log) -> tuple[tzinfo | None, tzinfo | None]:
    """(the zone named by ``log_tz``, the zone the last run's receive times give): a wrapped
    log's receive times give its printed times a zone when none was named."""
    zone = parse_tz(log_tz) if isinstance(log_tz, str) or log_tz is None else log_tz
    received = parsed.runs[-1].printed_zone if zone is None and parsed.runs else None
    return zone, received


def _zone_source(inp: _Inputs) -> ZoneSource:
    """Where the check's zone comes from: the log's receive times, ``--log-tz``, or none —
    then ``assumed-local`` when the log's times are compared with this machine's clock (a
    ``--launched-at`` or the file's modification time), as if written in its zone."""
    if inp.zone_received:
        return ZoneSource.LOG
    if inp.zone is not None:
        return ZoneSource.LOG_TZ
    compared = inp.when is not None or inp.path is not None
    return ZoneSource.ASSUMED_LOCAL if compared else ZoneSource.UNKNOWN


def _path_of(source: Source) -> str | None:
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        return None if name == "-" else name
    return None


def _launch_record(path: str) -> dict[str, Any]:
    """The optional ``LOG.launch.json`` written by ``logscope launch`` (data only, validated)."""
    try:
        raw = launch_record_bytes(path)
        if raw is None:
            return {}
        data = json.loads(raw.decode("utf-8", errors="replace"))
    except (LogscopeError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, Any] = {}
    if isinstance(data.get("pid"), int) and not isinstance(data.get("pid"), bool):
        out["pid"] = data["pid"]
    if isinstance(data.get("launched_at"), str):
        out["launched_at"] = data["launched_at"]
    argv = data.get("argv")
    if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
        out["command"] = shlex.join(argv)
    return out


def table_release(log: Log) -> str | None:
    """The argument table to read your command with when no version is given: the newest
    release of the range the last run is read with (issue 17: :mod:`..log.release`;
    ``None``: the newest table)."""
    chosen = choose_release(log.runs[-1] if log.runs else None)
    return chosen.table if chosen is not None else None


def release_used(log: Log, given: str | None) -> ReleaseUsed | None:
    """What the check read the run with (JSON ``sglang_release_used``), and why."""
    if given is not None:
        note = f"SGLang {given} (given)"
        return {"min": given, "max": given, "source": "given", "arg_table": given, "note": note}
    chosen = choose_release(log.runs[-1] if log.runs else None)
    return chosen.to_dict() if chosen is not None else None


def _intended(
    expect: LaunchCommand | str | os.PathLike[str] | None, version: str | None
) -> tuple[LaunchCommand | None, str | None]:
    """The intended command, and its text (for the launch lint) when there is one."""
    if expect is None:
        return None, None
    # start-up: the command parser only for a check given a command (issue 33, 2)
    from ..command.parse import LaunchCommand, parse_launch_command

    if isinstance(expect, LaunchCommand):
        return expect, None
    if isinstance(expect, os.PathLike) or (
        isinstance(expect, str) and "\n" not in expect and _is_file(expect)
    ):
        file = Path(os.fspath(expect))
        raw = read_regular(file, COMMAND_MAX_BYTES, "the command file", pipes=True)
        text = raw.decode("utf-8", errors="replace")
        return parse_launch_command(text, sglang_version=version, base_dir=file.parent), text
    return parse_launch_command(str(expect), sglang_version=version), str(expect)


def _is_file(text: str) -> bool:
    try:
        return len(text) < 4096 and Path(text).is_file()
    except (OSError, ValueError):
        return False


def _launch_time(value: datetime | str | LaunchTime | None) -> LaunchTime | None:
    if value is None or isinstance(value, LaunchTime):
        return value
    if isinstance(value, datetime):
        return LaunchTime(
            value, has_date=True, has_zone=value.tzinfo is not None, text=value.isoformat()
        )
    return parse_launched_at(value)


# --------------------------------------------------------------------------------------- judge


@record
class _Inputs:
    """What the judgement starts from: the parsed log, the command, the launch time, the host."""

    log: Log
    intended: LaunchCommand | None
    text: str | None  # the command text, for the launch lint
    when: LaunchTime | None
    zone: tzinfo | None
    path: str | None
    version: str | None = None
    zone_name: str | None = None  # ``--log-tz`` as given (``Europe/Berlin``)
    zone_received: bool = False  # the zone is the one the log's receive times show
    with_budget: bool = True
    record_pid: int | None = None
    live: bool = False
    server: str | None = None
    command_file: str | None = None
    here: bool = False


@record(frozen=False)
class _Judgement:
    """The evidence gathered so far (filled in step by step by the functions below)."""

    findings: list[Finding]
    launch: datetime | None = None
    tz_hours: int | None = None
    mtime: datetime | None = None
    diffs: tuple[ArgDiff, ...] = ()
    matched: tuple[str, ...] = ()
    unverified: tuple[str, ...] = ()
    process: LiveProcess | None = None
    server: ServerEvidence | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def _judge(inp: _Inputs) -> CheckReport:
    runs = inp.log.runs
    run = runs[-1] if runs and _looks_like_sglang(inp.log) else None
    j = _Judgement(findings=[], mtime=file_mtime(inp.path, inp.zone) if inp.path else None)
    if inp.zone_received:
        j.findings.append(
            Finding.of(
                "LS120",
                f"The log's times carry no zone; the times its lines were received at (kubectl, "
                f"Docker, journald) put its clock at UTC{inp.zone_name}: it was read in that zone "
                "(pass --log-tz to read it in another).",
            )
        )
    _launch_moment(inp, run, j)
    if run is None:
        return _no_run(inp, j)
    _earlier_runs(runs, j)
    meant = _meant(inp.intended)
    j.findings.extend(out_of_range_findings(run, meant or inp.intended))
    fixed = None
    if meant is not None:
        # start-up: the command layer loads with a command (_intended)
        from ..command.parse import with_suggestions

        fixed = with_suggestions(meant)
    if fixed is not None:
        j.diffs, j.matched, j.unverified = arg_diff(run, fixed)
    _command_findings(run, inp.intended, meant, j, release_used(inp.log, inp.version))
    verdict = _time_verdict(run, inp, meant, j)
    verdict = _mtime_evidence(verdict, j)
    _diff_findings(j)
    _outcome_findings(run, j)
    _lint(inp, verdict, j)
    _live_evidence(inp, run, j)
    if verdict is Verdict.FRESH and any(f.code == "LS045" for f in j.findings):
        verdict = Verdict.EXITED  # dead is not fresh: a script testing `verdict` sees it
    oom, budget = (None, None)
    if inp.with_budget:
        oom, budget = _memory(
            run,
            fixed,
            stale=verdict in (Verdict.STALE, Verdict.MISMATCH),
            findings=j.findings,
            version=inp.version,
        )
    return _report(inp, verdict, run, j, oom, budget)


def _meant(intended: LaunchCommand | None) -> LaunchCommand | None:
    """The command as its author meant it (``\\ `` before flags repaired), for diff and budget."""
    if intended is None:
        return None
    return intended.meant or intended


def _looks_like_sglang(log: Log) -> bool:
    """At least one line SGLang prints (a syslog, a binary, another server's log: none)."""
    return any(
        k not in (EventKind.TEXT, EventKind.UNKNOWN) for r in log.runs for k in kinds_in(r.events)
    )


def _launch_moment(inp: _Inputs, run: Run | None, j: _Judgement) -> None:
    """The launch time on the log's naive clock, and what was assumed to get there."""
    when = inp.when
    if when is None:
        return
    started = run.started_at if run and run.started_at and run.started_at.year != 1900 else None
    moment = when.on(started.date() if started else None)
    if when.ambiguity:
        j.findings.append(Finding.of("LS042", when.ambiguity))
    if moment.tzinfo is None or inp.zone is not None:
        j.launch = to_log_time(moment, inp.zone)
        return
    if when.text.replace(".", "", 1).isdigit():  # an epoch: no wall clock was typed
        j.launch = to_log_time(moment, None)
        assumed = f"this machine's zone ({j.launch:%H:%M:%S} local)"
    else:
        wall = moment.replace(tzinfo=None)
        j.tz_hours = whole_hour_gap(started, wall) if started else None
        j.launch = wall
        assumed = f"the zone of your --launched-at ({moment:%z})"
    j.findings.append(
        Finding.of(
            "LS041",
            f"The log's times carry no zone; they were read as {assumed}. If the server's clock "
            "is in another zone, pass --log-tz (e.g. --log-tz Europe/Berlin or --log-tz +02:00).",
        )
    )


def _earlier_runs(runs: tuple[Run, ...], j: _Judgement) -> None:
    if len(runs) < 2:
        return
    earlier = ", ".join(
        f"#{r.index} {r.started_at:%Y-%m-%d %H:%M:%S} {r.outcome.value}"
        if r.started_at
        else f"#{r.index} {r.outcome.value}"
        for r in runs[:-1]
    )
    j.findings.append(Finding.of("LS011", f"The file holds {len(runs)} runs; earlier: {earlier}."))


def _no_run(inp: _Inputs, j: _Judgement) -> CheckReport:
    if inp.log.runs:  # lines, but none SGLang prints
        first = [e.message.strip()[:80] for e in islice(_all_events(inp.log.runs), 3)]
        shown = " | ".join(repr(line) for line in first)
        j.findings.append(
            Finding.of("LS040", f"This does not look like an SGLang log (first lines: {shown}).")
        )
    j.findings.append(Finding.of("LS005"))
    if j.launch is not None and j.mtime is not None and j.mtime < j.launch:
        j.findings.append(
            Finding.of(
                "LS002",
                f"Last modified {j.mtime:%Y-%m-%d %H:%M:%S}, before your launch at {j.launch:%Y-%m-%d %H:%M:%S}.",
            )
        )
    _lint(inp, Verdict.NO_RUN, j)
    return _report(inp, Verdict.NO_RUN, None, j)


def _command_findings(
    run: Run,
    intended: LaunchCommand | None,
    meant: LaunchCommand | None,
    j: _Judgement,
    used: ReleaseUsed | None = None,
) -> None:
    if intended is None or meant is None:
        return
    # a flag some release of the run's range accepts is no sure rejection (LS111 says so)
    by_release, somewhere = release_flag_findings(meant, used)
    j.findings.extend(by_release)
    if not run.has_banner:
        j.findings.append(Finding.of("LS012"))
    # a flag whose field the run's own banner shows was accepted by that run's argparse
    shown = run.server_args or {}
    unknown = [
        f
        for f in meant.unknown
        if f.lstrip("-").split("=")[0].replace("-", "_") not in shown
        and f.split("=", 1)[0] not in somewhere
    ]
    ambiguous = [f for f in meant.ambiguous if f not in somewhere]
    if unknown or ambiguous:
        flags = ", ".join([*unknown, *ambiguous])
        hints = "; ".join(f"{k} → {v}" for k, v in meant.suggestions.items())
        j.findings.append(
            Finding.of(
                "LS006",
                f"SGLang's argparse (argument table {meant.sglang_version}) would reject {flags}: "
                "it exits at once (status 2)." + (f" Fixed: {hints}" if hints else ""),
            )
        )
    for d in j.diffs:
        if d.explanation and d.explanation.startswith(NOT_GIVEN_PREFIX):
            j.findings.append(
                Finding.of(
                    "LS043",
                    f"{d.arg}: your command passes {d.intended!r}, but the run says it was not "
                    f"given (line {d.evidence_line}): the flag did not reach this process.",
                )
            )


def _time_verdict(run: Run, inp: _Inputs, meant: LaunchCommand | None, j: _Judgement) -> Verdict:
    unexplained = [d for d in j.diffs if d.status is DiffStatus.UNEXPLAINED]
    argparse_own = _argparse_from_intended(run, meant)
    started = run.started_at if run.started_at and run.started_at.year != 1900 else None
    launch = j.launch
    if argparse_own:
        hints = {k: v for k, v in (meant.suggestions if meant else {}).items() if k in argparse_own}
        fixed = "; ".join(f"{k} → {v}" for k, v in hints.items())
        j.findings.append(
            Finding.of(
                "LS007",
                f"The last run died at argparse on {', '.join(argparse_own)}, flags from your command"
                + (f". Fixed: {fixed}" if fixed else "."),
            )
        )
        return Verdict.FRESH
    if launch is None:
        j.findings.append(Finding.of("LS009"))
        return Verdict.MISMATCH if unexplained else Verdict.INCONCLUSIVE
    if started is None:
        return Verdict.MISMATCH if unexplained else Verdict.INCONCLUSIVE
    if j.tz_hours is not None:
        text = inp.when.text if inp.when else ""
        j.findings.append(
            Finding.of(
                "LS008",
                f"The run started {started:%H:%M:%S} and your launch was {launch:%H:%M:%S} ({text}): "
                f"exactly {abs(j.tz_hours)} h apart, which looks like a time-zone difference, not a stale log.",
            )
        )
        return Verdict.INCONCLUSIVE
    if started < launch - START_TOLERANCE:
        j.findings.append(
            Finding.of(
                "LS001",
                f"The last run started at {started:%Y-%m-%d %H:%M:%S}, {_span(launch - started)} before your launch at {launch:%Y-%m-%d %H:%M:%S}.",
            )
        )
        return Verdict.STALE
    j.findings.append(
        Finding.of(
            "LS015",
            f"The last run started at {started:%Y-%m-%d %H:%M:%S}, after your launch at {launch:%Y-%m-%d %H:%M:%S}.",
        )
    )
    return Verdict.MISMATCH if unexplained else Verdict.FRESH


def _mtime_evidence(verdict: Verdict, j: _Judgement) -> Verdict:
    launch, mtime = j.launch, j.mtime
    if launch is None or mtime is None:
        return verdict
    if mtime < launch - START_TOLERANCE:
        j.findings.append(
            Finding.of(
                "LS002",
                f"The log was last modified at {mtime:%Y-%m-%d %H:%M:%S}, before your launch at {launch:%Y-%m-%d %H:%M:%S}: nothing has written to it since.",
            )
        )
        if verdict is Verdict.INCONCLUSIVE and j.tz_hours is None:
            return Verdict.STALE
    elif verdict is Verdict.STALE:
        j.findings.append(
            Finding.of(
                "LS013",
                f"The log was modified at {mtime:%Y-%m-%d %H:%M:%S}, after your launch, but holds no run that started after it.",
            )
        )
    return verdict


def _diff_findings(j: _Judgement) -> None:
    for d in j.diffs:
        code = "LS003" if d.status is DiffStatus.UNEXPLAINED else "LS004"
        why = (
            f" — {d.explanation} (line {d.evidence_line})"
            if d.explanation and d.evidence_line
            else (f" — {d.explanation}" if d.explanation else "")
        )
        j.findings.append(
            Finding.of(
                code, f"{d.arg}: you intended {d.intended!r}, the run has {d.effective!r}{why}."
            )
        )
    if j.matched and not [d for d in j.diffs if d.status is DiffStatus.UNEXPLAINED]:
        j.findings.append(
            Finding.of(
                "LS016", f"{len(j.matched)} explicit argument(s) match: {', '.join(j.matched)}."
            )
        )


def _outcome_findings(run: Run, j: _Judgement) -> None:
    if run.failure is not None:
        j.findings.append(
            Finding.of(
                "LS010",
                f"{run.failure.kind.value} at line {run.failure.line}: {run.failure.message[:300]}",
            )
        )
    elif run.outcome is Outcome.STARTING:
        j.findings.append(Finding.of("LS014"))
    pasted = pasted_tails(run.events)
    if pasted is not None:
        j.findings.append(
            Finding.of("LS112", f"Several nodes' output in one file: {pasted.describe()}")
        )


def _lint(inp: _Inputs, verdict: Verdict, j: _Judgement) -> None:
    """The launch lint, told whether the launch left the log untouched (stale, not written)."""
    if inp.text is None:
        return
    # start-up: the launch lint only for a check given a command's text
    from ..command.lint import LogFacts, lint, remote_check

    codes = {f.code for f in j.findings}
    untouched = verdict is Verdict.STALE or "LS002" in codes
    facts = LogFacts(inp.path or inp.log.name, untouched) if inp.path else None
    hits = lint(inp.text, facts, script=inp.command_file)
    j.findings.extend(hit.finding() for hit in hits)
    j.extra["lint"] = hits
    log = inp.intended.log_path if inp.intended and inp.intended.log_path else "LOG"
    there = f"logscope check --here --expect-args - {shlex.quote(log)}"
    remote = None if inp.here else remote_check(inp.text, there)
    if remote is not None:
        where, command = remote
        stdin = shlex.quote(inp.command_file) if inp.command_file else "YOUR_COMMAND_FILE"
        j.extra["remote"] = {"where": where, "command": f"{command} < {stdin}"}
        j.findings.append(
            Finding.of(
                "LS050",
                f"Your command runs on {where}; this machine's processes, GPUs and paths say "
                f"nothing about it. The same check there (the command on stdin): {command} < {stdin}",
            )
        )


def _live_evidence(inp: _Inputs, run: Run, j: _Judgement) -> None:
    """``/proc`` and the live server, when the log's host is this machine."""
    if not inp.live or inp.path is None or "remote" in j.extra:
        return
    j.process, j.server, found = live_findings(
        inp.path, run, _meant(inp.intended), inp.record_pid, inp.server, j.mtime
    )
    j.findings.extend(found)


def _span(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def _argparse_from_intended(run: Run, intended: LaunchCommand | None) -> list[str]:
    """Flags of the run's argparse error that come from the intended command."""
    if (
        intended is None
        or run.failure is None
        or run.failure.kind is not FailureKind.ARGPARSE_ERROR
    ):
        return []
    message = run.failure.message
    bad = set(intended.unknown) | set(intended.ambiguous)
    hits = [flag for flag in sorted(bad) if flag in message]
    if hits:
        return hits
    # argparse names the first offending flag: any flag of the intended argv in the error counts.
    return [a for a in intended.argv if a.startswith("--") and a.split("=")[0] in message][:3]


# ------------------------------------------------------------------------------------ memory


def _measured(run: Run, intended: LaunchCommand) -> Any:
    """What the run measured on these GPUs that the intended budget may use."""
    # start-up: the memory model loads only for a check that budgets something
    from ..memory.from_run import measured_for_command

    return measured_for_command(run, intended.args)


def _memory(
    run: Run,
    intended: LaunchCommand | None,
    *,
    stale: bool,
    findings: list[Finding],
    version: str | None,
) -> tuple[OomReading | None, Budget | DeclinedBudget | None]:
    """The OOM verdict and the intended command's budget (when the memory model can tell)."""
    budget = _intended_budget(run, intended, findings=findings, version=version)
    oom = _oom(run, stale=stale, budget=budget, findings=findings)
    if budget is not None and budget.fits is False:
        findings.append(
            Finding.of(
                "LS024",
                f"Your command needs more memory than the GPUs have ({getattr(budget.failure_kind, 'value', budget.failure_kind)}, short by {budget.shortfall_gib:.2f} GiB; {budget.basis}).",
            )
        )
    return oom, budget


def _intended_budget(
    run: Run, intended: LaunchCommand | None, *, findings: list[Finding], version: str | None
) -> Budget | DeclinedBudget | None:
    """The intended command's budget, or ``None`` (no command, not a GPU launch, or inputs the
    memory model cannot price).

    It uses the release the log points to (unless one was given) and, when the run used the
    same model and parallelism, the free memory and weights the run measured on these GPUs.
    """
    if intended is None:
        return None
    # start-up: the memory model loads only for a check that budgets something
    from ..memory.budget import budget as memory_budget
    from ..memory.budget_types import declined_budget
    from ..memory.from_run import version_for_run
    from ..memory.log_gpus import gpu_from_run
    from ..memory.models import ModelUnknown

    device = _non_gpu_device(run, intended)
    if device is not None:
        findings.append(
            Finding.of("LS100", f"No memory budget: the launch targets device {device!r}.")
        )
        return None
    from_log = version_for_run(run, None)[0]
    era_version = version or from_log or intended.sglang_version
    version_source = "given" if version else ("log" if from_log else "assumed")
    measured = _measured(run, intended)
    try:
        return memory_budget(
            intended.args,
            gpus=gpu_from_run(run),  # the GPU the log names, never a default in its place
            sglang_version=era_version,
            explicit=intended.explicit,
            measured=measured,
            version_source=version_source,
        )
    except ModelUnknown as exc:  # no figure on another model's shapes: declined, said why
        return declined_budget(exc)
    except LogscopeError:
        return None


def _oom(
    run: Run, *, stale: bool, budget: Budget | DeclinedBudget | None, findings: list[Finding]
) -> OomReading | None:
    """For a run that died out of memory: real OOM, ghost or contention (with its finding)."""
    if run.failure is None or not run.failure.kind.is_oom:
        return None
    # start-up: the memory model loads only for a check that budgets something
    from ..memory.verdict import oom_verdict

    result = oom_verdict(run, stale=stale, intended_budget=budget)
    if result is None:
        return None
    oom = result.to_dict()
    code = {"ghost": "LS020", "real": "LS021", "contention": "LS022"}.get(oom["verdict"], "LS023")
    findings.append(Finding.of(code, oom["explanation"]))
    return oom


def _non_gpu_device(run: Run, intended: LaunchCommand | None) -> str | None:
    """The device the launch targets when it is not a CUDA/ROCm GPU (SGLang's ``--device``:
    the intended command's when it sets one, else the run's banner), else ``None``."""
    device = intended.args.get("device") if intended is not None else None
    if device is None and run.server_args:
        device = run.server_args.get("device")
    if not isinstance(device, str) or device.lower() in ("cuda", "auto", ""):
        return None
    return device


# ------------------------------------------------------------------------------------ wording


def _report(
    inp: _Inputs,
    verdict: Verdict,
    run: Run | None,
    j: _Judgement,
    oom: OomReading | None = None,
    budget: Budget | DeclinedBudget | None = None,
) -> CheckReport:
    steps = next_steps(
        verdict,
        run,
        j.diffs,
        j.findings,
        inp.when is not None,
        oom,
        inp.intended,
        j.extra.get("lint", ()),
    )
    expected = inp.intended is not None or j.launch is not None
    fixed = None
    if inp.text is not None:
        # start-up: the fixer only for a check given a command's text
        from ..command.fix import fixed_for

        fixed = fixed_for(inp.text, j.extra.get("lint"), budget, inp.command_file)
        fixed = fixed if fixed.changes else None
    headline = headline_for(verdict, run, j.diffs, j.launch, j.findings, expected)
    return CheckReport(
        log=inp.log.name,
        verdict=verdict,
        runs=inp.log.runs,
        run=run,
        arg_diff=j.diffs,
        findings=tuple(j.findings),
        headline=headline,
        next_steps=tuple(steps),
        launched_at=j.launch,
        log_mtime=j.mtime,
        intended=inp.intended,
        matched_args=j.matched,
        unverified_args=j.unverified,
        oom=oom,
        budget=budget,
        process=j.process,
        server=j.server,
        remote=j.extra.get("remote"),
        cause=cause_of(j.findings, j.extra.get("lint", ())),
        scan=scan_of(inp.log),
        release=release_used(inp.log, inp.version),
        log_tz=inp.zone,
        log_tz_name=inp.zone_name,
        expected=expected,
        fixed_command=fixed,
        time_zone_source=_zone_source(inp),
    )


def _all_events(runs: Iterable[Run]) -> Iterator[Event]:
    for r in runs:
        yield from r.events
