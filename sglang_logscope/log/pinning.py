"""Which SGLang release wrote a run: a range as narrow as the run's own lines allow.

Two kinds of evidence, both read against the message index (:mod:`.message_index`):

* a **message** that only some releases print (every typed or index-known line of the run whose
  text is a template of the index): the releases that have the template;
* a **source line**: a ``[ts] LEVEL file.py:LINE:`` header whose message is the template printed
  from that very ``file.py:LINE`` — line numbers move with every edit, so this pins hardest.

The releases every piece of evidence agrees with form the range. A source checkout or a fork
mixes releases; then the releases most pieces agree with are given, with ``agreeing`` below
``pieces``, instead of nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..events import Event, EventKind
from ..parse.message_index import MessageIndex, SourceMessage, message_index
from ..parse.messages import CATALOG

#: Templates with less literal text than this say too little to pin anything.
MIN_LITERAL = 16
#: Distinct messages examined per run (bounded work on a long run).
MAX_MESSAGES = 400
#: Evidence entries reported (the narrowest first).
MAX_EVIDENCE = 12
#: Not read: lines without SGLang text, and the high-volume kinds the parser folds in bulk
#: (a run's evidence must not depend on whether its batch lines came as rows or events).
_SKIP = frozenset({EventKind.UNKNOWN, EventKind.TEXT} | {s.kind for s in CATALOG.specs if s.bulk})


@dataclass(frozen=True)
class Evidence:
    """One line that narrows the release range: its line number, what it is, the releases."""

    line: int
    kind: str  # "message" or "source_line"
    text: str
    releases: str
    mask: int

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "kind": self.kind, "text": self.text, "releases": self.releases}


@dataclass(frozen=True)
class ReleasePin:
    """The releases a run's lines agree with: ``low``..``high`` (index release names)."""

    low: str
    high: str
    evidence: tuple[Evidence, ...]
    pieces: int
    agreeing: int

    @property
    def consistent(self) -> bool:
        """Every piece of evidence agrees (else: a checkout or fork between releases)."""
        return self.agreeing == self.pieces

    def __str__(self) -> str:
        return self.low if self.low == self.high else f"{self.low}-{self.high}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "min": self.low,
            "max": self.high,
            "evidence": [e.to_dict() for e in self.evidence],
            "pieces": self.pieces,
            "agreeing": self.agreeing,
        }


#: What pinning reads of a line: its number, its message, its ``file.py:LINE`` header or None.
Clue = tuple[int, str, "str | None"]


class ClueCollector:
    """The distinct messages of a run, as its events stream by (bounded: the first
    :data:`MAX_MESSAGES`), for :func:`pin_release`."""

    __slots__ = ("clues", "seen")

    def __init__(self) -> None:
        self.clues: list[Clue] = []
        self.seen: set[tuple[str, str | None]] = set()

    def add(self, event: Event) -> None:
        if event.kind in _SKIP or len(self.clues) >= MAX_MESSAGES:
            return
        key = (event.message[:120], event.source)
        if key not in self.seen:
            self.seen.add(key)
            self.clues.append((event.line, event.message, event.source))


def clues_of(events: Iterable[Event]) -> list[Clue]:
    collector = ClueCollector()
    for event in events:
        collector.add(event)
    return collector.clues


def pin_release(clues: Iterable[Clue], index: MessageIndex | None = None) -> ReleasePin | None:
    """The release range of the run these clues (see :class:`ClueCollector`) come from
    (``None``: no evidence)."""
    index = index or message_index()
    pieces = list(_evidence(clues, index))
    if not pieces:
        return None
    everyone = len(index.releases)
    mask, agreeing = _agreement([p.mask for p in pieces], everyone)
    ids = [i for i in range(everyone) if mask >> i & 1]
    narrowest = sorted(pieces, key=lambda p: (p.mask.bit_count(), p.line))
    chosen = [p for p in narrowest if p.mask & mask][:MAX_EVIDENCE]
    return ReleasePin(
        low=index.releases[ids[0]],
        high=index.releases[ids[-1]],
        evidence=tuple(sorted(chosen, key=lambda p: p.line)),
        pieces=len(pieces),
        agreeing=agreeing,
    )


def _agreement(masks: Sequence[int], everyone: int) -> tuple[int, int]:
    """The releases all masks share; when none, those the most masks share, and how many."""
    common = (1 << everyone) - 1
    for m in masks:
        common &= m
    if common:
        return common, len(masks)
    votes = [sum(m >> i & 1 for m in masks) for i in range(everyone)]
    best = max(votes)
    return sum(1 << i for i, v in enumerate(votes) if v == best), best


def _evidence(clues: Iterable[Clue], index: MessageIndex) -> Iterable[Evidence]:
    for line, message, source in clues:
        found = index.match(message)
        if found is None:
            continue
        msg = found[0]
        place = _source_line(line, source, msg, index)
        if place is not None:
            yield place
        elif msg.literal_chars >= MIN_LITERAL:
            yield Evidence(line, "message", _short(msg), msg.releases, _mask(msg.release_indexes))


def _source_line(
    line: int, source: str | None, msg: SourceMessage, index: MessageIndex
) -> Evidence | None:
    """A ``file.py:LINE`` header that is where some release prints this template."""
    if not source or ":" not in source:
        return None
    name, _, digits = source.rpartition(":")
    if not digits.isdigit():
        return None
    ids = index.releases_at(msg, name, int(digits))
    if not ids:
        return None
    low, high = index.releases[min(ids)], index.releases[max(ids)]
    span = low if low == high else f"{low}-{high}"
    return Evidence(line, "source_line", f"{source}: {_short(msg)}", span, _mask(ids))


def _mask(ids: Iterable[int]) -> int:
    out = 0
    for i in ids:
        out |= 1 << i
    return out


def _short(msg: SourceMessage) -> str:
    text = msg.template.replace("\x00", "{}")
    return text if len(text) <= 80 else text[:77] + "..."
