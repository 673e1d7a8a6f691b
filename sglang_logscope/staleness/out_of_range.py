"""LS080 value-out-of-range: the values of a run or a command that logscope could not use."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..findings import Finding
from ..limits import Rejected
from ..log.runs import Run

if TYPE_CHECKING:  # start-up: a check without a command never loads the command layer
    from ..command.parse import LaunchCommand


def out_of_range_findings(run: Run | None, intended: LaunchCommand | None) -> list[Finding]:
    """One LS080 per value of the run (its banner, a ``Current value:``, a value SGLang says
    it set) or of the command that could not be used. Lazily converted fields (batch lines)
    hold no such values and are not read."""
    rejected: list[Rejected] = []
    for event in run.events if run is not None else ():
        if isinstance(event.fields, dict):
            rejected.extend(event.fields.get("rejected", ()))
    if intended is not None:
        rejected.extend(intended.out_of_range)
    return [Finding.of("LS080", r.message()) for r in dict.fromkeys(rejected)]
