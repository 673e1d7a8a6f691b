"""The words of a check report: the headline, the likely cause, and the next steps by cause.

Next steps come in the order of what happened first: SGLang's argparse rejecting your own
command (with the fixed flag), then what the shell did to the launch (the lint, :mod:`..command.lint`),
then the time and argument evidence, then memory. Nothing is suggested that was already given.
When the log proves the shell died before the launch (it still exists although the command
deletes it: LS031), the line that killed the shell comes before everything else.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from ..events import EventKind
from ..findings import CODES, Finding, Severity
from ..log.runs import FailureKind, Outcome, Run
from .argdiff import ArgDiff, DiffStatus
from .verdict import Cause, Verdict

if TYPE_CHECKING:  # start-up: a check without a command never loads the command layer
    from ..command.lint import LintHit
    from ..command.parse import LaunchCommand
    from ..memory.verdict import OomReading

#: Lint codes (the launch command as bash runs it) and the argparse ones.
LINT = (*(f"LS0{n}" for n in range(30, 40)), "LS053")
#: Lint codes whose hit stops the script before the launch (a killed shell, exit, set -e, a wait).
STOPPERS = ("LS030", "LS038", "LS039", "LS053")
ARGPARSE = ("LS007", "LS006", "LS037")
#: Lint findings that explain why a launch never wrote to the log.
EXPLAINS_SILENCE = ("LS030", "LS031", "LS034", "LS035", "LS037", "LS038", "LS039", "LS053")
FIXED = " Fixed: "


def _by_code(findings: list[Finding], *codes: str) -> list[Finding]:
    return [f for f in findings if f.code in codes]


def _hits_of(findings: list[Finding], lint: tuple[LintHit, ...]) -> dict[int, LintHit]:
    """The lint hit behind each lint finding (by the finding's place in ``findings``)."""
    by_message = {h.finding().message: h for h in lint}
    return {i: by_message[f.message] for i, f in enumerate(findings) if f.message in by_message}


def _cause_findings(findings: list[Finding], lint: tuple[LintHit, ...] = ()) -> list[Finding]:
    """Argparse and lint findings in the order bash meets them, the cause first.

    The cause is the first thing that stops the script as bash runs it: a command that kills
    its own shell (LS030), an ``exit`` (LS038), a no-match failure under ``set -e`` (LS039) or a
    command that never returns (LS053), before the launch, comes before the launch's own exit (argparse:
    LS007, LS006, the ``\\ `` paste LS037). Each code is listed once (a second self-killing
    ``pkill`` never runs: it is a finding, not a next step); LS031 (the proof that the shell
    died early) follows the cause."""
    hits = _hits_of(findings, lint)
    order = {id(f): hits[i].step if i in hits else 1 << 20 for i, f in enumerate(findings)}
    stops = {id(f) for i, f in enumerate(findings) if i in hits and hits[i].stops}
    lint_f = sorted((f for f in findings if f.code in LINT), key=lambda f: order[id(f)])
    killers = [f for f in lint_f if f.code in STOPPERS and id(f) in stops]
    argparse = _by_code(findings, *ARGPARSE)
    if killers and "LS037" in {f.code for f in argparse}:  # a killer after the launch's exit
        at = order[id(_by_code(argparse, "LS037")[0])]
        killers = [f for f in killers if order[id(f)] < at]
    errors = [f for f in lint_f if f.severity is Severity.ERROR and f.code != "LS037"]
    warnings = [f for f in lint_f if f.severity is not Severity.ERROR]
    proof = _by_code(findings, "LS031") if killers else []
    ordered = [*killers[:1], *proof, *argparse, *errors, *warnings]
    seen: set[str] = set()
    out = []
    for f in ordered:
        if f.code not in seen:
            seen.add(f.code)
            out.append(f)
    return out


def cause_of(findings: list[Finding], lint: tuple[LintHit, ...] = ()) -> Cause | None:
    """The root cause: the first thing that stops the script (argparse or lint error), in one
    line, with its fix and what it keeps from running (``prevents``)."""
    hits = {id(findings[i]): h for i, h in _hits_of(findings, lint).items()}
    for f in _cause_findings(findings, lint):
        if f.severity is Severity.ERROR and f.code != "LS031":
            message, _, fix = f.message.partition(FIXED)
            hit = hits.get(id(f))
            prevents: list[str] = []
            if hit is not None:
                message, fix = hit.short or hit.message, hit.fix
                prevents = list(hit.prevents)
            elif f.code in ARGPARSE:
                prevents = ["the server itself (argparse exits with status 2 before any log line)"]
            return {
                "code": f.code,
                "message": message,
                "fix": fix or CODES[f.code].action,
                "prevents": prevents,
            }
    return None


def _hms(value: datetime | None) -> str | None:
    return f"{value:%Y-%m-%d %H:%M:%S}" if value is not None and value.year != 1900 else None


def outcome_headline(run: Run, findings: list[Finding]) -> str:
    """The first line when nothing was expected: the last run's outcome and why it ended
    (``CRASHED at 09:17:45: not enough memory for the KV pool (mem_fraction_static=0.85)``)."""
    started = _hms(run.started_at) or "at an unknown time"
    failure = run.failure
    if failure is not None:
        event = failure.event
        at = _hms(event.timestamp if event is not None else None) or _hms(run.ended_at)
        values = ", ".join(f"{k}={v}" for k, v in list(failure.effective.items())[:3])
        what = failure.kind.words + (f" ({values})" if values else "")
        begun = f"; the run started {_hms(run.started_at)}" if _hms(run.started_at) else ""
        return f"CRASHED{f' at {at}' if at else ''}: {what} (line {failure.line}{begun})."
    gone = _by_code(findings, "LS045")
    if gone:
        said = gone[0].message
        return f"EXITED: the last run (started {started}) {said[:1].lower()}{said[1:]}"
    if run.outcome is Outcome.READY:
        ready = run.first(EventKind.SERVER_READY)
        since = _hms(ready.timestamp) if ready is not None else None
        return f"READY{f' since {since}' if since else ''}: the last run (started {started}) is up."
    if run.outcome in (Outcome.STOPPED, Outcome.COMPLETED):
        end = _hms(run.ended_at)
        word = "STOPPED" if run.outcome is Outcome.STOPPED else "COMPLETED"
        return f"{word}{f' at {end}' if end else ''}: the last run (started {started}) ended without a failure."
    if run.outcome is Outcome.STARTING:
        return f"STARTING: the last run (started {started}) has not reached ready yet."
    return f"UNKNOWN: the last run started {started}; the log does not show how it ended."


def headline_for(
    verdict: Verdict,
    run: Run | None,
    diffs: tuple[ArgDiff, ...],
    launch: datetime | None,
    findings: list[Finding],
    expected: bool = True,
) -> str:
    unexplained = [d for d in diffs if d.status is DiffStatus.UNEXPLAINED]
    shown = ", ".join(f"{d.arg}={d.effective!r} (you: {d.intended!r})" for d in unexplained[:4])
    if verdict is Verdict.NO_RUN:
        if _by_code(findings, "LS040"):
            return "No SGLang run in this log: it does not look like an SGLang log."
        return "No SGLang run in this log."
    assert run is not None
    started = f"{run.started_at:%Y-%m-%d %H:%M:%S}" if run.started_at else "at an unknown time"
    if verdict is Verdict.STALE:
        head = f"STALE: the last run started {started}, before your launch"
        if launch is not None:
            head += f" at {launch:%Y-%m-%d %H:%M:%S}"
        if shown:
            head += f"; it ran with {shown}"
        return head + ". Your launch has not written here."
    if verdict is Verdict.MISMATCH:
        return f"MISMATCH: the last run ({started}) did not run with your arguments: {shown}."
    if verdict in (Verdict.FRESH, Verdict.EXITED):
        return _fresh_headline(run, started, findings)
    if not expected:
        return outcome_headline(run, findings)
    return f"INCONCLUSIVE: the last run started {started}; the evidence cannot tell whether it is your launch."


def _fresh_headline(run: Run, started: str, findings: list[Finding]) -> str:
    if run.failure is not None:
        return f"FRESH, CRASHED: your launch (run started {started}) failed with {run.failure.kind.value}."
    gone = _by_code(findings, "LS045")
    if gone:
        said = gone[0].message
        return (
            f"FRESH, EXITED: the last run ({started}) is your launch; {said[:1].lower()}{said[1:]}"
        )
    if run.outcome is Outcome.READY:
        return f"FRESH: the last run ({started}) is your launch and it is ready."
    return f"FRESH: the last run ({started}) is your launch; it is {run.outcome.value}."


def next_steps(
    verdict: Verdict,
    run: Run | None,
    diffs: tuple[ArgDiff, ...],
    findings: list[Finding],
    launch_given: bool,
    oom: OomReading | None,
    intended: LaunchCommand | None,
    lint: tuple[LintHit, ...] = (),
) -> list[str]:
    """What to do, most likely cause first (see the module docstring)."""
    hits = {id(findings[i]): h.step_text() for i, h in _hits_of(findings, lint).items()}
    steps = [
        _cause_step(f, i == 0, hits.get(id(f)))
        for i, f in enumerate(_cause_findings(findings, lint))
    ]
    explained = bool(_by_code(findings, *EXPLAINS_SILENCE))
    if verdict is Verdict.NO_RUN:
        if not explained:
            steps.append(
                "Check the log path and that the server's output is redirected here (`> LOG 2>&1`)."
            )
    else:
        assert run is not None
        expected = intended is not None or launch_given
        steps.extend(_evidence_steps(verdict, run, findings, launch_given, explained, expected))
    steps.extend(_live_steps(findings))
    if oom is not None:
        fixed = (
            " (for your command once its flags are fixed)" if intended and intended.rejected else ""
        )
        steps.append(f"Memory{fixed}: {oom['explanation']}")
    return steps


def _cause_step(f: Finding, first: bool, short: str | None) -> str:
    message, _, fix = f.message.partition(FIXED)
    text = short or (f"{message} Fixed: {fix}" if fix else message)
    return (
        f"Likely root cause ({f.code}): {text}"
        if first and f.severity is Severity.ERROR
        else (f"{f.code}: {text}")
    )


def _evidence_steps(
    verdict: Verdict,
    run: Run,
    findings: list[Finding],
    launch_given: bool,
    explained: bool,
    expected: bool = True,
) -> list[str]:
    codes = {f.code for f in findings}
    steps: list[str] = []
    if verdict is Verdict.STALE:
        if not explained:
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
        step = "This is probably an earlier run (a stale log), or your flags did not reach SGLang."
        if "LS043" in codes:
            step = "Your flags did not reach SGLang (it says they were not given): check the quoting and any wrapper script between your command and the server."
        if not launch_given:
            step += " Pass --launched-at (`now` or `-5m` work) to decide by time."
        steps.append(step)
    elif verdict is Verdict.FRESH and run.failure is not None:
        if run.failure.kind is FailureKind.ARGPARSE_ERROR:
            if not _by_code(findings, *ARGPARSE):
                steps.append(
                    "SGLang's argparse rejected your command: fix the flag and launch again."
                )
        else:
            steps.append(f"Fix the failure at line {run.failure.line} ({run.failure.kind.value}).")
    elif verdict not in (Verdict.FRESH, Verdict.EXITED):
        if "LS008" in codes:
            steps.append(
                "Give --log-tz (the server's time zone) or --launched-at in the server's local time."
            )
        elif not launch_given:
            steps.append(
                "Pass --launched-at with the time you ran the launch (`now` or `-5m` work too) to decide by time."
                if expected
                else "To tell whether this run is your launch: pass --expect-args CMD_FILE and "
                "--launched-at (`now` or `-5m` work too)."
            )
    return steps


def _live_steps(findings: list[Finding]) -> list[str]:
    steps = []
    for f in _by_code(findings, "LS045", "LS046", "LS048", "LS050"):
        if f.code == "LS045":
            steps.append(
                "Its process has exited: read the end of the log for why, then launch again."
            )
        elif f.code == "LS046":
            steps.append(f"{f.message} Check the redirect of your launch.")
        elif f.code == "LS048":
            steps.append(f"{f.message} Stop that server before you launch yours.")
        else:
            steps.append(f.message)
    return steps
