"""What a watch says as it goes (:class:`Note`) and how it ends (:class:`WatchResult`)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import field
from datetime import tzinfo
from typing import TYPE_CHECKING, Any, Protocol

from .. import _text
from .._record import record
from ..log.runs import Run

if TYPE_CHECKING:
    from ..staleness.verdict import CheckReport
    from .watcher import Watcher


class WatchOutcome(str, enum.Enum):
    READY = "ready"
    CRASHED = "crashed"
    EXITED = "exited"  # the launched process ended without a ready line or a failure
    TIMEOUT = "timeout"  # a run started but was neither ready nor failed in time
    STALE = "stale"  # nothing of the launch came: the file holds only earlier content

    @property
    def exit_code(self) -> int:
        return 0 if self is WatchOutcome.READY else 1


@record
class Note:
    """One thing the watch says: waiting, a run started, a phase change, the end."""

    kind: str
    message: str
    elapsed: float
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind,
            "elapsed_s": round(self.elapsed, 2),
            "message": self.message,
            **self.data,
        }


@record
class WatchResult:
    """How a watched launch ended, with the run and the check where there are any."""

    outcome: WatchOutcome
    log: str
    message: str
    elapsed: float
    run: Run | None = field(default=None, repr=False)
    phases: Mapping[str, Any] | None = None
    check: CheckReport | None = field(default=None, repr=False)
    tail: tuple[str, ...] = ()
    #: the log's zone (``--log-tz``) and its name as given; ``None``: unknown
    log_tz: tzinfo | None = field(default=None, repr=False)
    log_tz_name: str | None = None

    @property
    def exit_code(self) -> int:
        return self.outcome.exit_code

    def to_dict(self) -> dict[str, Any]:
        run = self.run
        zone = self.log_tz
        out: dict[str, Any] = {
            "event": "result",
            "schema_version": _text.SCHEMA_VERSION,
            "log": self.log,
            "outcome": self.outcome.value,
            "message": self.message,
            "elapsed_s": round(self.elapsed, 2),
            "run": {
                "first_line": run.first_line,
                "last_line": run.last_line,
                "started_at": _text.rfc3339(run.started_at, zone) if run.started_at else None,
                "outcome": run.outcome.value,
            }
            if run
            else None,
            "time_zone": _text.zone_name(zone, self.log_tz_name),
            "phases": dict(self.phases) if self.phases else None,
            "tail": list(self.tail),
        }
        if self.check is not None:
            data = self.check.to_dict()
            for key in ("failure", "arg_diff", "oom", "budget", "findings", "next_steps"):
                out[key] = data.get(key)
        return out


class Sink(Protocol):
    """Where a watch reports: notes as they come, the live view, the result."""

    def start(self, watcher: Watcher) -> None: ...

    def note(self, note: Note) -> None: ...

    def refresh(self, watcher: Watcher) -> None: ...

    def stop(self) -> None: ...

    def finish(self, result: WatchResult) -> None: ...
