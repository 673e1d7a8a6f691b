"""Argument differences between an intended launch and a run, each explained or not.

A difference is *explained* when SGLang changed the value itself — an auto-adjust warning in
the same run (with its line), or a rule it applies silently (NEXTN → EAGLE) — and
*unexplained* otherwise: then the run was not started with that command.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from .._record import record
from .._text import lazy_re
from ..events import Event, EventKind
from ..log.runs import Run

if TYPE_CHECKING:
    from ..command.parse import LaunchCommand


#: SGLang's "X not specified, use default" lines: said of an argument the command passes, the
#: flag never reached the process (``Attention backend not specified. Use aiter backend``).
_NOT_GIVEN = lazy_re(r"\bnot (?:explicitly )?(?:specified|set)\b", re.IGNORECASE)
#: How an explanation that proves the flag was not received starts.
NOT_GIVEN_PREFIX = "SGLang says it was not given"


class DiffStatus(str, enum.Enum):
    EXPLAINED = "explained"
    UNEXPLAINED = "unexplained"


@record
class ArgDiff:
    """One argument whose effective value differs from the intended one."""

    arg: str
    intended: Any
    effective: Any
    status: DiffStatus
    explanation: str | None = None
    evidence_line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "arg": self.arg,
            "intended": self.intended,
            "effective": self.effective,
            "status": self.status.value,
            "explanation": self.explanation,
            "evidence_line": self.evidence_line,
        }


def effective_args(run: Run) -> tuple[dict[str, Any], dict[str, Event]]:
    """The run's effective arguments, and for each one the event that revealed or set it.

    The banner (post-adjustment values) wins; without one, values the run's own messages
    reveal: failure messages (``Current value: ...=0.85``) and auto-adjust warnings.
    """
    values: dict[str, Any] = dict(run.server_args or {})
    evidence: dict[str, Event] = {}
    for event in run.events:
        sets = event.fields.get("sets")
        if isinstance(sets, Mapping):
            for arg, value in sets.items():
                evidence.setdefault(arg, event)
                if not run.has_banner and _printed_value(value):
                    values.setdefault(arg, value)
    if run.failure is not None and run.failure.event is not None:
        for arg, value in run.failure.effective.items():
            values.setdefault(arg, value)
            evidence.setdefault(arg, run.failure.event)
    if not run.has_banner:
        _revealed_by_lines(run, values, evidence)
    return values, evidence


#: ``max_total_num_tokens=...`` summary fields that are effective argument values.
_SUMMARY_ARGS = {"context_len": "context_length", "chunked_prefill_size": "chunked_prefill_size"}


def _revealed_by_lines(run: Run, values: dict[str, Any], evidence: dict[str, Event]) -> None:
    """Without a banner: tp size from the rank prefixes, sizes from the token summary.

    The tp size is taken only when every rank 0..N printed its own startup line (distributed
    init or weight load), so a cut excerpt that shows a few ranks proves nothing.
    """
    seen: dict[int, Event] = {}
    for event in run.of_kind(EventKind.DIST_INIT_BEGIN, EventKind.LOAD_WEIGHT_BEGIN):
        if event.rank is not None and event.rank.tp is not None and event.rank.tp >= 0:
            seen.setdefault(event.rank.tp, event)
    if len(seen) >= 2 and sorted(seen) == list(range(len(seen))) and "tp_size" not in values:
        values["tp_size"] = len(seen)
        evidence.setdefault("tp_size", seen[len(seen) - 1])
    summary = run.first(EventKind.TOKEN_SUMMARY)
    if summary is not None:
        for field, arg in _SUMMARY_ARGS.items():
            value = summary.fields.get(field)
            if isinstance(value, int) and arg not in values:
                values[arg] = value
                evidence.setdefault(arg, summary)


def _printed_value(value: Any) -> bool:
    """A concrete value a message printed (not ``None`` or a rule such as ``steps + 1``)."""
    if value is None:
        return False
    return not (isinstance(value, str) and " " in value)


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return bool(a) == bool(b) if {type(a), type(b)} <= {bool, int} else a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(a)))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, str) and isinstance(b, str):
        return a.rstrip("/") == b.rstrip("/")
    return bool(a == b)


def arg_diff(
    run: Run, intended: LaunchCommand
) -> tuple[tuple[ArgDiff, ...], tuple[str, ...], tuple[str, ...]]:
    values, evidence = effective_args(run)
    pin = run.sglang_release
    span = (pin.low, pin.high) if pin is not None else None
    diffs: list[ArgDiff] = []
    matched: list[str] = []
    unverified: list[str] = []
    for arg, want in intended.explicit_args().items():
        if arg not in values:
            unverified.append(arg)
            continue
        have = values[arg]
        event = evidence.get(arg)
        if event is not None and _NOT_GIVEN.search(event.message):
            why = f"{NOT_GIVEN_PREFIX}: {event.message.strip()[:200]}"
            diffs.append(ArgDiff(arg, want, have, DiffStatus.UNEXPLAINED, why, event.line))
            continue
        if same_value(want, have):
            matched.append(arg)
            continue
        diffs.append(_explain(arg, want, have, evidence.get(arg), values, span))
    return tuple(diffs), tuple(matched), tuple(unverified)


def _explain(
    arg: str,
    want: Any,
    have: Any,
    event: Event | None,
    values: Mapping[str, Any],
    span: tuple[str, str] | None,
) -> ArgDiff:
    # SGLang's own value rewrites, read from its source per release: those of the releases
    # the run's lines agree with, of every release when they pin none (issue 28)
    # start-up: the argument tables load with an intended command (the only diff's source)
    from ..command.argtable import find_rewrite

    rewrite = find_rewrite(arg, want, have, span)
    if rewrite is not None:
        return ArgDiff(arg, want, have, DiffStatus.EXPLAINED, rewrite.explanation())
    if event is not None and event.kind in (EventKind.ARGS_ADJUSTED, EventKind.ATTENTION_BACKEND):
        return ArgDiff(
            arg,
            want,
            have,
            DiffStatus.EXPLAINED,
            f"SGLang adjusted it: {event.message.strip()[:200]}",
            event.line,
        )
    if arg == "speculative_num_draft_tokens" and values.get("speculative_eagle_topk") == 1:
        steps = values.get("speculative_num_steps")
        if isinstance(steps, int) and have == steps + 1:
            return ArgDiff(
                arg,
                want,
                have,
                DiffStatus.EXPLAINED,
                "with speculative_eagle_topk == 1 SGLang sets draft tokens to num_steps + 1",
            )
    return ArgDiff(arg, want, have, DiffStatus.UNEXPLAINED)
