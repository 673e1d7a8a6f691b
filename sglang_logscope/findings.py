"""Stable finding codes: what each means and what to do. Other tools match on these codes.

``docs/findings/<CODE>.md`` is generated from this table (``scripts/gen_findings_docs.py``);
a test keeps it in sync. Codes are never renumbered or reused.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    meaning: str
    action: str = ""


CODES: dict[str, Code] = {
    c.code: c
    for c in (
        Code("LS001", "stale-run", Severity.ERROR,
             "The log's last run started before your launch: you are reading an earlier run.",
             "Your process has not written a run to this log. Check it started (`echo PID=$!` printed a pid, "
             "`ps -p PID`), that its output goes to this file, and read its own stderr if it was redirected elsewhere."),
        Code("LS002", "not-written-since-launch", Severity.ERROR,
             "The log file has not been modified since your launch time.",
             "The new process never wrote here: it did not start, or it writes to another file. Re-run the launch "
             "in the foreground (without nohup/&) to see why it fails."),
        Code("LS003", "unexplained-arg-difference", Severity.ERROR,
             "The run's effective argument differs from the command you intended, and SGLang did not say it changed it.",
             "This run was not started with your command (a stale log or another launch), or your flag never reached "
             "SGLang (quoting, a wrapper, a config file). Compare the run's server_args banner with your command."),
        Code("LS004", "explained-arg-difference", Severity.INFO,
             "The effective argument differs from what you passed because SGLang adjusted it itself (with evidence).",
             "Nothing to fix: this is SGLang's own rule. Set the argument explicitly if you need another value."),
        Code("LS005", "no-run", Severity.ERROR,
             "The log holds no SGLang run at all.",
             "Check the path, and that the server's stdout and stderr go to this file (`> log 2>&1`)."),
        Code("LS006", "argparse-rejects-command", Severity.ERROR,
             "SGLang's argparse would reject your command (unknown or ambiguous flag), so it exits at once.",
             "Fix the flag (see the suggestion) and launch again."),
        Code("LS007", "launch-died-at-argparse", Severity.ERROR,
             "The log's last run is your launch dying at argparse with your flags.",
             "Fix the flag named in the error (see the suggestion) and launch again."),
        Code("LS008", "timezone-suspect", Severity.WARNING,
             "The launch time and the run differ by whole hours: the log's time zone is probably not the launch time's.",
             "Pass --log-tz with the server's time zone (SGLang logs naive local time) or give --launched-at in the server's local time."),
        Code("LS009", "no-time-evidence", Severity.INFO,
             "No launch time was given, so staleness is judged from the arguments alone.",
             "Pass --launched-at (e.g. the time you ran the launch command) for a time-based verdict."),
        Code("LS010", "run-crashed", Severity.ERROR,
             "The run crashed.",
             "Read the failure and its line; for out-of-memory failures see the memory verdict."),
        Code("LS011", "several-runs", Severity.INFO,
             "The file holds several runs (appended with `>>`, or logs glued together); only the last is checked.",
             "Use `logscope runs LOG` to see them all."),
        Code("LS012", "no-banner", Severity.WARNING,
             "The run has no server_args banner; effective arguments come only from what its messages reveal.",
             "Arguments not revealed cannot be compared. A full log from the start of the run has the banner."),
        Code("LS013", "modified-but-no-new-run", Severity.WARNING,
             "The file was written after your launch, but holds no run that started after it.",
             "Your process may have died before SGLang's logging started (an import error, a bad interpreter path): read the last lines of the log."),
        Code("LS014", "still-starting", Severity.INFO,
             "The run has not finished starting (no ready line and no failure yet).",
             "Wait, or follow it with `tail -f`; a log cut short (disk full, killed) also looks like this."),
        Code("LS015", "launch-after-run", Severity.INFO,
             "The run started after your launch time.",
             "Nothing to do: the time evidence says this run is your launch or a later one."),
        Code("LS016", "args-match", Severity.INFO,
             "Every argument you passed explicitly has the same effective value in the run.",
             "Nothing to do."),
        Code("LS020", "oom-ghost", Severity.ERROR,
             "The out-of-memory failure belongs to a stale run, not to your launch.",
             "Do not tune flags against it. Find out why your launch did not run; the budget says whether your command would fit."),
        Code("LS021", "oom-real", Severity.ERROR,
             "SGLang's own memory arithmetic says the configuration cannot fit: the out-of-memory failure is real.",
             "Apply one of the suggested changes (the budget lists the smallest ones that make it fit)."),
        Code("LS022", "oom-contention", Severity.ERROR,
             "Free GPU memory at startup was well below the GPUs' capacity or unequal across ranks: another process held memory.",
             "Find and stop the process holding GPU memory (`logscope gpus`, `nvidia-smi`), e.g. a previous SGLang scheduler, then relaunch."),
        Code("LS023", "oom-unexplained", Severity.WARNING,
             "The arithmetic says the configuration should fit, and no contention is visible: the OOM is not explained.",
             "Check activation/CUDA-graph headroom (slack), fragmentation, and other memory users."),
        Code("LS024", "budget-does-not-fit", Severity.ERROR,
             "The memory budget of your intended command does not fit the GPUs.",
             "Apply one of the suggested changes before launching."),
    )
}  # fmt: skip


@dataclass(frozen=True)
class Finding:
    """One statement of a report, with its stable code."""

    code: str
    message: str
    severity: Severity

    @classmethod
    def of(cls, code: str, message: str | None = None) -> Finding:
        entry = CODES[code]
        return cls(code=code, message=message or entry.meaning, severity=entry.severity)

    @property
    def name(self) -> str:
        return CODES[self.code].name

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity.value,
            "message": self.message,
        }
