"""What a check says: the :class:`Verdict` and the :class:`CheckReport` that carries it with its
evidence (the runs, the argument differences, the findings, the memory budget)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import field
from datetime import datetime, tzinfo
from typing import TYPE_CHECKING, Any, TypedDict

from .._record import record
from .._text import CHECK_SCHEMA_VERSION, ZoneSource, rfc3339, zone_name
from ..findings import Finding
from ..log.runs import Outcome, Run
from .argdiff import ArgDiff

if TYPE_CHECKING:  # start-up: a check without a command never loads the command layer
    from ..command.fix import FixedCommand
    from ..command.parse import LaunchCommand
    from ..log.release import ReleaseUsed
    from ..log.tail import Scan
    from ..memory.budget_types import Budget, DeclinedBudget
    from ..memory.verdict import OomReading
    from .process import LiveProcess
    from .server import ServerEvidence


class Cause(TypedDict):
    """The likely root cause of a failed launch: its finding code, one line, the fix, and what
    it keeps from running (``prevents``: the first thing that stops the script is the cause)."""

    code: str
    message: str
    fix: str
    prevents: list[str]


class Verdict(str, enum.Enum):
    FRESH = "fresh"
    STALE = "stale"
    MISMATCH = "mismatch"
    NO_RUN = "no_run"
    INCONCLUSIVE = "inconclusive"
    #: the run is the launch, but its process is known to have exited (never ``fresh``)
    EXITED = "exited"


#: ``logscope check``'s exit codes: (what was expected, the answer, the code). ``docs/cli.md``
#: renders this table (``scripts/gen_cli_docs.py``); ``tests/test_first_screen.py`` holds
#: :attr:`CheckReport.exit_code` to every row.
EXIT_CODES: tuple[tuple[str, str, int], ...] = (
    (
        "nothing (no `--expect-args`, `--launched-at` or launch record)",
        "the last run is ready (its process not known dead), stopped or completed",
        0,
    ),
    (
        "nothing",
        "the last run crashed, is still starting, its end is unknown, or its process has exited while ready",
        1,
    ),
    (
        "a launch",
        "`fresh`: the last run is your launch, not crashed, its process alive or not known",
        0,
    ),
    (
        "a launch",
        "`stale`, `mismatch`, `inconclusive`, `exited` (your launch, its process dead), or `fresh` but crashed",
        1,
    ),
    ("either", "`no_run`: no SGLang run in the file", 1),
    ("either", "bad input: no such file, an unreadable command file, a bad `--launched-at`", 2),
)


@record
class CheckReport:
    """Everything ``logscope check`` knows about a log and an intended launch."""

    log: str
    verdict: Verdict
    runs: tuple[Run, ...] = field(repr=False)
    run: Run | None = field(repr=False)
    arg_diff: tuple[ArgDiff, ...]
    findings: tuple[Finding, ...]
    headline: str
    next_steps: tuple[str, ...]
    launched_at: datetime | None = None
    log_mtime: datetime | None = None
    intended: LaunchCommand | None = field(default=None, repr=False)
    matched_args: tuple[str, ...] = ()
    unverified_args: tuple[str, ...] = ()
    oom: OomReading | None = None
    budget: Budget | DeclinedBudget | None = field(default=None, repr=False)
    #: the process that matters most (the record's pid, the log's holder, your command)
    process: LiveProcess | None = None
    #: what the live server said about its arguments (``None``: not asked)
    server: ServerEvidence | None = None
    remote: Mapping[str, str] | None = None
    cause: Cause | None = None
    scan: Scan | None = None
    release: ReleaseUsed | None = None  # the release read with (issue 17)
    #: the log's zone (``--log-tz``) and its name as given; ``None``: unknown
    log_tz: tzinfo | None = field(default=None, repr=False)
    log_tz_name: str | None = None
    #: a launch was given to compare with (a command, a launch time or a launch record);
    #: without one the check answers "how did the last run end" (issue 27)
    expected: bool = True
    #: the whole corrected launch (``command.fix.FixedCommand``); ``None``: nothing to change
    fixed_command: FixedCommand | None = field(default=None, repr=False)
    #: where ``log_tz`` comes from (``assumed-local``: none, the machine's clock compared)
    time_zone_source: ZoneSource = ZoneSource.UNKNOWN

    @property
    def outcome(self) -> Outcome | None:
        return self.run.outcome if self.run else None

    @property
    def exit_code(self) -> int:
        """0 when the run is this launch, did not crash and (when known) still runs; with nothing
        expected, 0 when the last run is ready (and not known dead), stopped or completed; 1
        otherwise (docs/cli.md has the table)."""
        gone = any(f.code == "LS045" for f in self.findings)
        if not self.expected and self.verdict is not Verdict.NO_RUN:
            ended = self.outcome in (Outcome.STOPPED, Outcome.COMPLETED)
            return 0 if ended or (self.outcome is Outcome.READY and not gone) else 1
        ok = self.verdict is Verdict.FRESH and self.outcome is not Outcome.CRASHED and not gone
        return 0 if ok else 1

    def __repr__(self) -> str:
        """One line: the verdict and what it rests on, not every run and finding."""
        run = (
            f"{self.run.index} {self.run.outcome.value}"
            + (f" ({self.run.failure.kind.value})" if self.run.failure else "")
            if self.run is not None
            else None
        )
        return (
            f"CheckReport(verdict={self.verdict.value}, log={self.log!r}, run={run!r}, "
            f"arg_diff={len(self.arg_diff)}, findings={[f.code for f in self.findings]}, "
            f"exit_code={self.exit_code})"
        )

    def _repr_html_(self) -> str:
        """Jupyter: the verdict, the run, the argument differences and findings."""
        # start-up: the HTML views load only in a notebook
        from .._html import notebook_html

        return notebook_html(self)

    def to_dict(self) -> dict[str, Any]:
        run, zone, name = self.run, self.log_tz, self.log_tz_name
        source = self.time_zone_source
        return {
            "schema_version": CHECK_SCHEMA_VERSION,
            "log": self.log,
            "verdict": self.verdict.value,
            "outcome": run.outcome.value if run else None,
            "failure": run.failure.to_dict() if run and run.failure else None,
            # schema 3: every run's row, as ``logscope runs`` lists it (it was the count)
            "runs": [r.to_row(zone, name, source) for r in self.runs],
            "run_count": len(self.runs),
            "run": run.to_dict(zone, name, source) if run else None,
            "arg_diff": [d.to_dict() for d in self.arg_diff],
            "findings": [f.to_dict() for f in self.findings],
            "oom": dict(self.oom) if self.oom is not None else None,
            "budget": self.budget.to_dict() if self.budget is not None else None,
            "headline": self.headline,
            "next_steps": list(self.next_steps),
            "launched_at": rfc3339(self.launched_at, zone),
            "log_mtime": rfc3339(self.log_mtime.replace(microsecond=0), zone)
            if self.log_mtime
            else None,
            "time_zone": zone_name(zone, name),
            "time_zone_source": source.value,
            "earlier_runs": [r.to_dict(zone, name, source) for r in self.runs[:-1]],
            "matched_args": list(self.matched_args),
            "unverified_args": list(self.unverified_args),
            "process": self.process.to_dict() if self.process is not None else None,
            "server": self.server.to_dict() if self.server is not None else None,
            "remote": dict(self.remote) if self.remote is not None else None,
            "cause": dict(self.cause) if self.cause is not None else None,
            "scan": dict(self.scan) if self.scan is not None else None,
            "sglang_release_used": dict(self.release) if self.release is not None else None,
            "expected": self.expected,
            "fixed_command": self.fixed_command.to_dict() if self.fixed_command else None,
            "exit_code": self.exit_code,
        }
