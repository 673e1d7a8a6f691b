"""A check report's sections, computed once: the view model every renderer of a
:class:`~sglang_logscope.staleness.verdict.CheckReport` draws.

The verdict, the likely cause, the failure, the argument diff, the memory verdict, the findings
and the next steps are read out of the report here, in one place; ``check``'s text
(:mod:`.views`), the watch's crash summary (:mod:`.live`), the report page (:mod:`.html`), its
Markdown (:mod:`.markdown`) and the notebook view (:mod:`.notebook`) each lay them out in their
own markup, with their own limits. Values stay as the report holds them (log text is
untrusted: each renderer escapes or makes it visible its own way); nothing here is markup.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._record import record
from .._text import moment as when
from ..memory.confidence import verdict_words

if TYPE_CHECKING:
    from ..staleness.verdict import CheckReport

__all__ = [
    "ArgRow",
    "ArgSection",
    "CauseSection",
    "CheckView",
    "FailureSection",
    "FindingRow",
    "MemorySection",
    "check_view",
]


@record
class CauseSection:
    """The likely root cause: its finding code, one line, and the fix."""

    code: str
    message: str
    fix: str


@record
class FailureSection:
    """How the checked run failed: the failure's kind, line, message and effective values."""

    kind: str
    line: int
    message: str
    effective: tuple[tuple[str, Any], ...] = ()


@record
class ArgRow:
    """One argument difference, its values as ``repr`` shows them."""

    arg: str
    intended: str
    effective: str
    status: str
    explanation: str
    #: the explanation and the line that shows it
    why: str

    @property
    def explained(self) -> bool:
        return self.status == "explained"


@record
class ArgSection:
    """The intended command against the run: ``compared`` is False when none was given."""

    compared: bool
    rows: tuple[ArgRow, ...]
    matched: tuple[str, ...]
    unverified: tuple[str, ...]


@record
class MemorySection:
    """The out-of-memory verdict and the intended command's budget, in words."""

    oom_verdict: str | None
    oom_explanation: str
    #: the budget's one-line verdict (:func:`~sglang_logscope.memory.confidence.verdict_words`)
    budget_words: str | None
    budget_fits: bool | None
    budget_basis: object
    #: (change, effect) of each change that alone makes it fit
    suggestions: tuple[tuple[str, str], ...]
    #: the confidence the verdict or the budget states, one sentence ("" when none)
    confidence: str


@record
class FindingRow:
    """One finding as the check's page shows it."""

    code: str
    severity: str
    name: str
    message: str


@record
class CheckView:
    """Every section of a check report, ready to lay out."""

    log: str
    verdict: str
    headline: str
    expected: bool
    cause: CauseSection | None
    failure: FailureSection | None
    #: the checked run's facts (outcome, start, release hint) and the launch's times
    run_facts: tuple[tuple[str, str], ...]
    time_facts: tuple[tuple[str, str], ...]
    args: ArgSection
    memory: MemorySection
    findings: tuple[FindingRow, ...]
    next_steps: tuple[str, ...]


def check_view(report: CheckReport) -> CheckView:
    """The sections of ``report``."""
    run = report.run
    cause = report.cause
    failure = run.failure if run is not None else None
    facts: list[tuple[str, str]] = []
    if run is not None:
        facts.append(("outcome", run.outcome.value))
        facts.append(("run started", when(run.started_at)))
        if run.release_hint:
            facts.append(("SGLang release (hint)", run.release_hint))
    return CheckView(
        log=report.log,
        verdict=report.verdict.value,
        headline=report.headline,
        expected=report.expected,
        cause=CauseSection(cause["code"], cause["message"], cause["fix"]) if cause else None,
        failure=FailureSection(
            failure.kind.value,
            failure.line,
            failure.message,
            tuple((failure.effective or {}).items()),
        )
        if failure is not None
        else None,
        run_facts=tuple(facts),
        time_facts=(
            ("you launched at", when(report.launched_at)),
            ("log last modified", when(report.log_mtime)),
        ),
        args=_args(report),
        memory=_memory(report),
        findings=tuple(
            FindingRow(f.code, f.severity.value, f.name, f.message) for f in report.findings
        ),
        next_steps=report.next_steps,
    )


def _args(report: CheckReport) -> ArgSection:
    rows = []
    for d in report.arg_diff:
        explanation = d.explanation or ""
        line = f" (line {d.evidence_line})" if d.evidence_line else ""
        rows.append(
            ArgRow(
                d.arg,
                repr(d.intended),
                repr(d.effective),
                d.status.value,
                explanation,
                explanation + line,
            )
        )
    return ArgSection(
        report.intended is not None, tuple(rows), report.matched_args, report.unverified_args
    )


def _memory(report: CheckReport) -> MemorySection:
    oom = dict(report.oom) if report.oom is not None else None
    budget = report.budget.to_dict() if report.budget is not None else None
    suggestions = tuple(
        (str(s.get("change")), str(s.get("effect")))
        for s in (budget or {}).get("suggestions") or []
    )
    return MemorySection(
        oom_verdict=str(oom["verdict"]) if oom else None,
        oom_explanation=str(oom["explanation"]) if oom else "",
        budget_words=verdict_words(budget) if budget else None,
        budget_fits=budget.get("fits") if budget else None,
        budget_basis=budget.get("basis") if budget else None,
        suggestions=suggestions,
        confidence=_confidence(oom, budget),
    )


def _confidence(oom: Mapping[str, Any] | None, budget: Mapping[str, Any] | None) -> str:
    for source in (oom, budget):
        found = (source or {}).get("confidence")
        if isinstance(found, Mapping) and found.get("level"):
            why = [str(w) for w in (found.get("unvalidated") or found.get("deciding") or [])][:1]
            return f"{found['level']}" + (f" ({why[0]})." if why else ".")
        if isinstance(found, str) and found:
            return found + "."
    return ""
