"""The staleness check: is the log's last run the launch you intended?

:func:`check` takes the log's last run and weighs three kinds of evidence — time (the run's
banner time vs. the launch time, the file's mtime), arguments (the run's effective args vs.
the intended command, each difference explained by SGLang's own adjustments or not), and
what the run shows of its end — into one :class:`CheckReport` with a :class:`Verdict`.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import replace
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..command.parse import LaunchCommand, parse_launch_command
from ..errors import LogscopeError
from ..findings import Finding
from ..log.reader import Log, read_log
from ..log.runs import FailureKind, Outcome, Run
from ..log.tail import read_last_run
from ..parse.source import Source
from ..timing import (
    START_TOLERANCE,
    LaunchTime,
    file_mtime,
    parse_launched_at,
    parse_tz,
    to_log_time,
    whole_hour_gap,
)
from .argdiff import ArgDiff, DiffStatus, arg_diff, same_value
from .verdict import CheckReport, Verdict
from .wording import wording

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand


def check(
    log: Log | Source,
    expect: LaunchCommand | str | os.PathLike[str] | None = None,
    launched_at: datetime | str | LaunchTime | None = None,
    log_tz: tzinfo | str | None = None,
    *,
    sglang_version: str | None = None,
    with_budget: bool = True,
    full_scan: bool = False,
) -> CheckReport:
    """Judge whether the last run of ``log`` is the launch described by ``expect``.

    ``expect`` is a :class:`~sglang_logscope.command.parse.LaunchCommand`, the text of a launch
    command, or a path to a file holding one. ``launched_at`` is when you ran it (a datetime,
    or text as ``--launched-at`` takes it). ``log_tz`` is the zone of the log's naive times.
    Without ``expect``/``launched_at``, a launch record beside the log (``LOG.launch.json``)
    is used when present. A big plain file is read from its end (:mod:`.tail`): the last run
    and the run count are exact, earlier runs are known from their banner only
    (``full_scan=True`` parses every line).
    """
    if isinstance(log, Log):
        parsed = log
    elif full_scan:
        parsed = read_log(log)
    else:
        parsed = read_last_run(log)  # big plain files: only the end is parsed
    path = None if isinstance(log, Log) else _path_of(log)
    zone = parse_tz(log_tz) if isinstance(log_tz, str) or log_tz is None else log_tz
    record = _launch_record(path) if path and (expect is None or launched_at is None) else {}
    if expect is None and record.get("command"):
        expect = str(record["command"])
    if launched_at is None and record.get("launched_at"):
        launched_at = str(record["launched_at"])
    intended = _intended(expect, sglang_version)
    when = _launch_time(launched_at)
    return _judge(
        parsed, intended, when, zone, path, with_budget=with_budget, version=sglang_version
    )


def _path_of(source: Source) -> str | None:
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        return None if name == "-" else name
    return None


def _launch_record(path: str) -> dict[str, Any]:
    """The optional ``LOG.launch.json`` written by ``logscope launch`` (data only, validated)."""
    record_path = Path(path + ".launch.json")
    if not record_path.is_file():
        return {}
    try:
        data = json.loads(record_path.read_text(encoding="utf-8", errors="replace")[:1_000_000])
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    out: dict[str, Any] = {}
    if isinstance(data.get("launched_at"), str):
        out["launched_at"] = data["launched_at"]
    argv = data.get("argv")
    if isinstance(argv, list) and all(isinstance(a, str) for a in argv):
        out["command"] = shlex.join(argv)
    return out


def _intended(
    expect: LaunchCommand | str | os.PathLike[str] | None, version: str | None
) -> LaunchCommand | None:
    if expect is None:
        return None

    if isinstance(expect, LaunchCommand):
        return expect
    if isinstance(expect, os.PathLike) or (
        isinstance(expect, str) and "\n" not in expect and _is_file(expect)
    ):
        file = Path(os.fspath(expect))
        try:
            text = file.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise LogscopeError(
                f"{file}: cannot read the command file ({exc.strerror or exc})"
            ) from None
        return parse_launch_command(text, sglang_version=version, base_dir=file.parent)
    return parse_launch_command(str(expect), sglang_version=version)


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


def _judge(
    log: Log,
    intended: LaunchCommand | None,
    when: LaunchTime | None,
    zone: tzinfo | None,
    path: str | None,
    *,
    with_budget: bool,
    version: str | None = None,
) -> CheckReport:
    findings: list[Finding] = []
    runs = log.runs
    run = runs[-1] if runs else None
    mtime = file_mtime(path, zone) if path else None
    launch: datetime | None = None
    tz_hours: int | None = None
    if when is not None:
        day = (
            run.started_at.date()
            if run and run.started_at and run.started_at.year != 1900
            else None
        )
        moment = when.on(day)
        if moment.tzinfo is not None and zone is None and run and run.started_at:
            # The log's zone is unknown: compare wall clocks, and watch for whole-hour gaps.
            wall = moment.replace(tzinfo=None)
            tz_hours = whole_hour_gap(run.started_at, wall) if run.started_at.year != 1900 else None
            launch = to_log_time(moment, None) if tz_hours is None else wall
        else:
            launch = to_log_time(moment, zone)
    if len(runs) > 1:
        earlier = ", ".join(
            f"#{r.index} {r.started_at:%Y-%m-%d %H:%M:%S} {r.outcome.value}"
            if r.started_at
            else f"#{r.index} {r.outcome.value}"
            for r in runs[:-1]
        )
        findings.append(
            Finding.of("LS011", f"The file holds {len(runs)} runs; earlier: {earlier}.")
        )
    if run is None:
        findings.append(Finding.of("LS005"))
        if launch is not None and mtime is not None and mtime < launch:
            findings.append(
                Finding.of(
                    "LS002",
                    f"Last modified {mtime:%Y-%m-%d %H:%M:%S}, before your launch at {launch:%Y-%m-%d %H:%M:%S}.",
                )
            )
        return _report(log, Verdict.NO_RUN, run, (), findings, launch, mtime, intended, (), ())

    diffs, matched, unverified = arg_diff(run, intended) if intended else ((), (), ())
    if intended is not None and not run.has_banner:
        findings.append(Finding.of("LS012"))
    if intended is not None and (intended.unknown or intended.ambiguous):
        flags = ", ".join([*intended.unknown, *intended.ambiguous])
        hints = "; ".join(f"{k} → {v}" for k, v in intended.suggestions.items())
        findings.append(
            Finding.of(
                "LS006",
                f"SGLang's argparse would reject {flags}"
                + (f" (did you mean: {hints})" if hints else "")
                + ".",
            )
        )

    verdict: Verdict
    unexplained = [d for d in diffs if d.status is DiffStatus.UNEXPLAINED]
    argparse_own = _argparse_from_intended(run, intended)
    started = run.started_at if run.started_at and run.started_at.year != 1900 else None
    if argparse_own:
        verdict = Verdict.FRESH
        findings.append(
            Finding.of(
                "LS007",
                f"The last run died at argparse on {', '.join(argparse_own)}, flags from your command.",
            )
        )
    elif launch is not None and started is not None:
        if tz_hours is not None:
            verdict = Verdict.INCONCLUSIVE
            findings.append(
                Finding.of(
                    "LS008",
                    f"The run started {started:%H:%M:%S} and your launch was {launch:%H:%M:%S} ({when.text if when else ''}): "
                    f"exactly {abs(tz_hours)} h apart, which looks like a time-zone difference, not a stale log.",
                )
            )
        elif started < launch - START_TOLERANCE:
            verdict = Verdict.STALE
            gap = launch - started
            findings.append(
                Finding.of(
                    "LS001",
                    f"The last run started at {started:%Y-%m-%d %H:%M:%S}, {_span(gap)} before your launch at {launch:%Y-%m-%d %H:%M:%S}.",
                )
            )
        else:
            verdict = Verdict.MISMATCH if unexplained else Verdict.FRESH
            findings.append(
                Finding.of(
                    "LS015",
                    f"The last run started at {started:%Y-%m-%d %H:%M:%S}, after your launch at {launch:%Y-%m-%d %H:%M:%S}.",
                )
            )
    elif unexplained:
        verdict = Verdict.MISMATCH
    else:
        verdict = Verdict.INCONCLUSIVE
    if launch is None:
        findings.append(Finding.of("LS009"))
    if launch is not None and mtime is not None:
        if mtime < launch - START_TOLERANCE:
            findings.append(
                Finding.of(
                    "LS002",
                    f"The log was last modified at {mtime:%Y-%m-%d %H:%M:%S}, before your launch at {launch:%Y-%m-%d %H:%M:%S}: nothing has written to it since.",
                )
            )
            if verdict is Verdict.INCONCLUSIVE and tz_hours is None:
                verdict = Verdict.STALE
        elif verdict is Verdict.STALE:
            findings.append(
                Finding.of(
                    "LS013",
                    f"The log was modified at {mtime:%Y-%m-%d %H:%M:%S}, after your launch, but holds no run that started after it.",
                )
            )
    for d in diffs:
        code = "LS003" if d.status is DiffStatus.UNEXPLAINED else "LS004"
        why = (
            f" — {d.explanation} (line {d.evidence_line})"
            if d.explanation and d.evidence_line
            else (f" — {d.explanation}" if d.explanation else "")
        )
        findings.append(
            Finding.of(
                code, f"{d.arg}: you intended {d.intended!r}, the run has {d.effective!r}{why}."
            )
        )
    if intended is not None and matched and not unexplained:
        findings.append(
            Finding.of("LS016", f"{len(matched)} explicit argument(s) match: {', '.join(matched)}.")
        )
    if run.failure is not None:
        findings.append(
            Finding.of(
                "LS010",
                f"{run.failure.kind.value} at line {run.failure.line}: {run.failure.message[:300]}",
            )
        )
    elif run.outcome is Outcome.STARTING:
        findings.append(Finding.of("LS014"))
    oom, budget = (None, None)
    if with_budget:
        oom, budget = _memory(
            run,
            intended,
            stale=verdict in (Verdict.STALE, Verdict.MISMATCH),
            findings=findings,
            version=version,
        )
    return _report(
        log,
        verdict,
        run,
        diffs,
        findings,
        launch,
        mtime,
        intended,
        matched,
        unverified,
        oom,
        budget,
    )


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


def _memory(
    run: Run,
    intended: LaunchCommand | None,
    *,
    stale: bool,
    findings: list[Finding],
    version: str | None,
) -> tuple[dict[str, Any] | None, Any]:
    """The OOM verdict and the intended command's budget (when the memory model can tell).

    The intended budget uses the release the log points to (unless one was given) and, when the
    run used the same model and parallelism, the free memory and weights the run measured on
    these GPUs.
    """
    # start-up: the memory model loads only for a check that budgets something
    from ..memory.budget import budget as memory_budget
    from ..memory.budget_types import MeasuredFigures
    from ..memory.from_run import measured_from_run, version_for_run
    from ..memory.verdict import oom_verdict

    budget = None
    if intended is not None:
        era_version = version or version_for_run(run, None)[0] or intended.sglang_version
        measured = None
        same = run.server_args is not None and all(
            same_value(run.server_args.get(k), intended.args.get(k))
            for k in ("model_path", "tp_size", "quantization")
        )
        if run.server_args is not None and same_value(
            run.server_args.get("tp_size"), intended.args.get("tp_size")
        ):
            seen = measured_from_run(run)
            if seen.f0_gib is not None:
                measured = (
                    replace(seen, origin="log (the checked run, same GPUs)")
                    if same
                    else MeasuredFigures(
                        f0_gib=seen.f0_gib,
                        f0_by_rank=seen.f0_by_rank,
                        origin="log (free memory of these GPUs)",
                    )
                )
        try:
            budget = memory_budget(
                intended.args,
                sglang_version=era_version,
                explicit=intended.explicit,
                measured=measured,
            )
        except LogscopeError:
            budget = None
    oom = None
    if run.failure is not None and run.failure.kind.is_oom:
        result = oom_verdict(run, stale=stale, intended_budget=budget)
        if result is not None:
            oom = result.to_dict()
            code = {"ghost": "LS020", "real": "LS021", "contention": "LS022"}.get(
                oom["verdict"], "LS023"
            )
            findings.append(Finding.of(code, oom["explanation"]))
    if budget is not None and not budget.fits:
        findings.append(
            Finding.of(
                "LS024",
                f"Your command needs more memory than the GPUs have ({getattr(budget.failure_kind, 'value', budget.failure_kind)}, short by {budget.shortfall_gib:.2f} GiB).",
            )
        )
    return oom, budget


# ------------------------------------------------------------------------------------ wording


def _report(
    log: Log,
    verdict: Verdict,
    run: Run | None,
    diffs: tuple[ArgDiff, ...],
    findings: list[Finding],
    launch: datetime | None,
    mtime: datetime | None,
    intended: LaunchCommand | None,
    matched: tuple[str, ...],
    unverified: tuple[str, ...],
    oom: dict[str, Any] | None = None,
    budget: Any = None,
) -> CheckReport:
    headline, steps = wording(verdict, run, diffs, findings, launch, mtime, oom)
    return CheckReport(
        log=log.name,
        verdict=verdict,
        runs=log.runs,
        run=run,
        arg_diff=diffs,
        findings=tuple(findings),
        headline=headline,
        next_steps=tuple(steps),
        launched_at=launch,
        log_mtime=mtime,
        intended=intended,
        matched_args=matched,
        unverified_args=unverified,
        oom=oom,
        budget=budget,
    )
