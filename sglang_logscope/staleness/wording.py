"""The words of a check report: the one-line headline and the next steps, per verdict."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..findings import Finding
from ..log.runs import FailureKind, Outcome, Run
from .argdiff import ArgDiff, DiffStatus
from .verdict import Verdict


def wording(
    verdict: Verdict,
    run: Run | None,
    diffs: tuple[ArgDiff, ...],
    findings: list[Finding],
    launch: datetime | None,
    mtime: datetime | None,
    oom: dict[str, Any] | None,
) -> tuple[str, list[str]]:
    codes = {f.code for f in findings}
    unexplained = [d for d in diffs if d.status is DiffStatus.UNEXPLAINED]
    shown = ", ".join(f"{d.arg}={d.effective!r} (you: {d.intended!r})" for d in unexplained[:4])
    steps: list[str] = []
    if verdict is Verdict.NO_RUN:
        return "No SGLang run in this log.", [
            "Check the log path and that the server's output is redirected here (`> LOG 2>&1`)."
        ]
    assert run is not None
    started = f"{run.started_at:%Y-%m-%d %H:%M:%S}" if run.started_at else "at an unknown time"
    if verdict is Verdict.STALE:
        headline = f"STALE: the last run started {started}, before your launch"
        if launch is not None:
            headline += f" at {launch:%Y-%m-%d %H:%M:%S}"
        if shown:
            headline += f"; it ran with {shown}"
        headline += ". Your launch has not written here."
        steps.append(
            "Your process never wrote to this log: check that it started (did `echo PID=$!` print a pid? is `ps -p PID` alive?)."
        )
        if "LS002" in codes:
            steps.append(
                "The file has not changed since your launch: run the launch in the foreground to see why it does not start."
            )
        if "LS013" in codes:
            steps.append(
                "The file changed after your launch without a new run: read its last lines for an import error or a shell error."
            )
        if run.failure is not None:
            steps.append(
                f"Do not tune flags against this run's {run.failure.kind.value}: it is not your launch."
            )
    elif verdict is Verdict.MISMATCH:
        headline = f"MISMATCH: the last run ({started}) did not run with your arguments: {shown}."
        steps.append(
            "This is probably an earlier run (a stale log), or your flags did not reach SGLang. Pass --launched-at to decide by time."
        )
    elif verdict is Verdict.FRESH:
        if run.failure is not None:
            headline = f"FRESH, CRASHED: your launch (run started {started}) failed with {run.failure.kind.value}."
            if run.failure.kind is FailureKind.ARGPARSE_ERROR:
                steps.append(
                    "SGLang's argparse rejected your command: fix the flag and launch again."
                )
            else:
                steps.append(
                    f"Fix the failure at line {run.failure.line} ({run.failure.kind.value})."
                )
        elif run.outcome is Outcome.READY:
            headline = f"FRESH: the last run ({started}) is your launch and it is ready."
        else:
            headline = f"FRESH: the last run ({started}) is your launch; it is {run.outcome.value}."
    else:
        headline = f"INCONCLUSIVE: the last run started {started}; the evidence cannot tell whether it is your launch."
        if "LS008" in codes:
            steps.append(
                "Give --log-tz (the server's time zone) or --launched-at in the server's local time."
            )
        elif launch is None:
            steps.append(
                "Pass --launched-at with the time you launched (e.g. --launched-at 09:18) to decide by time."
            )
    if oom is not None:
        steps.append(f"Memory: {oom['explanation']}")
    return headline, steps
