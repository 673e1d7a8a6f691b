"""What ``logscope report`` shows: the check over the whole file (every run's timeline) and the
checked run's own memory budget, computed once here and rendered by
:func:`sglang_logscope.render.html.render_html`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import field
from datetime import datetime, tzinfo

from .._record import record
from ..command.parse import LaunchCommand
from ..errors import LogscopeError
from ..events import Event
from ..log.runs import Run
from ..log.series import ServingSeries, WorkerSeries, read_for_report
from ..memory.budget_types import Budget
from ..memory.from_run import budget_for_run, measured_from_run
from ..meter import file_done, files_begin
from ..parse.source import Source
from .judge import check
from .launch_check import LaunchCheck, check_launch
from .verdict import CheckReport

#: Log records shown at the end of the report (the checked run's last ones).
TAIL_EVENTS = 20


@record
class RunBudget:
    """The checked run's own budget, or why there is none."""

    budget: Budget | None
    f0_by_rank: Mapping[str, float]
    note: str | None = None


@record
class FullReport:
    """The check of a log (every run parsed) and the checked run's own budget; ``serving``
    (the decode series) and ``last_events`` (the file's last events) when the log was
    streamed (else the renderer reads both from the runs' events)."""

    check: CheckReport
    run_budget: RunBudget
    serving: ServingSeries | None = None
    last_events: tuple[Event, ...] | None = None


def run_budget(run: Run | None, sglang_version: str | None = None) -> RunBudget:
    """:func:`~sglang_logscope.memory.from_run.budget_for_run` for ``run``, never raising."""
    if run is None:
        return RunBudget(None, {}, "no run in the log")
    by_rank = dict(measured_from_run(run).f0_by_rank)
    if run.server_args is None:
        return RunBudget(None, by_rank, "the run printed no server_args banner")
    try:
        b = budget_for_run(run, sglang_version=sglang_version)
    except LogscopeError as exc:
        return RunBudget(None, by_rank, str(exc))
    return RunBudget(b, by_rank)


def full_report(
    log: Source,
    expect: LaunchCommand | str | os.PathLike[str] | None = None,
    launched_at: datetime | str | None = None,
    log_tz: tzinfo | str | None = None,
    *,
    sglang_version: str | None = None,
) -> FullReport:
    """The report of ``log`` (arguments as :func:`~sglang_logscope.staleness.judge.check`).

    A report shows every run's timeline, so the whole file is read, once and streamed
    (:func:`~sglang_logscope.log.series.read_for_report`): serving lines are folded into the
    runs and into per-minute decode series, never held."""
    read = read_for_report(log, tail=TAIL_EVENTS)
    path = os.fspath(log) if isinstance(log, (str, os.PathLike)) and log != "-" else None
    result = check(
        read.log, expect, launched_at, log_tz, sglang_version=sglang_version, log_path=path
    )
    return FullReport(
        result, run_budget(result.run, sglang_version), read.serving, read.last_events
    )


@record
class LaunchReport:
    """``report`` of several logs: the check of the launch (per file and per launch) and each
    file's decode series (per worker: per file and rank), folded per minute in bounded
    memory."""

    check: LaunchCheck
    serving: Mapping[str, ServingSeries]
    #: each file's prefill and decode throughput and queue depth, per rank
    workers: Mapping[str, WorkerSeries] = field(default_factory=dict)


def launch_report(
    sources: Sequence[str],
    expects: Mapping[str | None, str] | None = None,
    launched_at: str | None = None,
    log_tz: str | None = None,
    *,
    sglang_version: str | None = None,
) -> LaunchReport:
    """The report of the logs ``sources`` read as launches (arguments as
    :func:`~sglang_logscope.staleness.launch_check.check_launch`)."""
    result = check_launch(sources, expects, launched_at, log_tz, sglang_version=sglang_version)
    files_begin(len(result.files), "series")  # the progress line's count
    read = {}
    for f in result.files:
        read[f.file] = read_for_report(f.file, tail=1, workers=True)
        file_done()
    serving = {file: r.serving for file, r in read.items()}
    workers = {file: r.workers for file, r in read.items() if r.workers is not None}
    return LaunchReport(result, serving, workers)
