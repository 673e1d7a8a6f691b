"""Several nodes' output pasted into one file without their banners (issue 28).

Each node of a multi-node launch writes its own log, and only its own ranks' lines (node 0:
``TP0``..``TP7``, node 1: ``TP8``..``TP15``). Pasting two nodes' tails into one file leaves no
banner to say so, and every line still reads as one run. What does show it: the time goes back
where one node's lines end and the other's begin, and the ranks before and after that step are
different ranks altogether. One node's own lines never do that: its processes write to one file
within a second or so of each other, and its ranks interleave.

So a *switch* is a step back in time of more than :data:`TOLERANCE` between two dated rank
lines, and the file holds several nodes' output when, at some switch, the ranks of the stretch
before it and of the stretch after it share none. Interleaved tails (many switches) give the
same answer. Without ranks (a single-GPU node) or without a step back in time nothing is said:
no evidence, no claim.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta

from .._record import record
from ..events import Event

#: A step back in time up to this is one node's processes writing out of order.
TOLERANCE = timedelta(seconds=2)


@record
class PastedTails:
    """Evidence that a run holds several nodes' output: the line where the time first goes
    back to another set of ranks, how far back, and the rank sets met (as printed)."""

    line: int
    back_seconds: float
    rank_sets: tuple[tuple[str, ...], ...]
    switches: int

    def describe(self) -> str:
        sets = "; ".join(", ".join(s) for s in self.rank_sets)
        return (
            f"at line {self.line} the time goes back {self.back_seconds:.0f} s to other ranks "
            f"({self.switches} such step(s)); the ranks fall in {len(self.rank_sets)} sets that "
            f"never share a stretch of time: {sets}"
        )


def pasted_tails(events: Iterable[Event]) -> PastedTails | None:
    """The evidence that ``events`` (one run's) hold several nodes' tails; ``None`` when
    nothing shows it."""
    stretches: list[set[str]] = [set()]
    newest = None
    steps: list[tuple[int, float]] = []  # (line, seconds back) of each switch
    for e in events:
        if e.rank is None or e.timestamp is None:
            continue
        ts = e.timestamp
        if newest is not None and newest - ts > TOLERANCE:
            steps.append((e.line, (newest - ts).total_seconds()))
            stretches.append(set())
            newest = ts
        elif newest is None or ts > newest:
            newest = ts
        stretches[-1].add(e.rank.label)
    for i, (line, back) in enumerate(steps):
        before, after = stretches[i], stretches[i + 1]
        if before and after and not before & after:
            return PastedTails(line, back, _rank_sets(stretches), len(steps))
    return None


def _rank_sets(stretches: list[set[str]]) -> tuple[tuple[str, ...], ...]:
    """The stretches' ranks merged where they share a rank (each set: one node's)."""
    groups: list[set[str]] = []
    for ranks in stretches:
        if not ranks:
            continue
        hit = [g for g in groups if g & ranks]
        merged = set(ranks).union(*hit)
        groups = [g for g in groups if not g & ranks] + [merged]
    return tuple(tuple(sorted(g, key=_rank_key)) for g in groups)


def _rank_key(label: str) -> tuple[int, str]:
    digits = "".join(ch if ch.isdigit() else " " for ch in label).split()
    return (int(digits[-1]) if digits else -1, label)
