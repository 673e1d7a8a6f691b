"""Which SGLang release wrote a run: a range as narrow as the run's own lines allow.

Two kinds of evidence, both read against the message index (:mod:`.message_index`):

* a **message** that only some releases print (every typed or index-known line of the run whose
  text is a template of the index): the releases that have the template;
* a **source line**: a ``[ts] LEVEL file.py:LINE:`` header whose message is the template printed
  from that very ``file.py:LINE`` — line numbers move with every edit, so this pins hardest.

The releases every piece of evidence agrees with form the range. A source checkout or a fork
mixes releases; then the releases most pieces agree with are given, with ``agreeing`` below
``pieces``, instead of nothing. A run dated two days or more before the oldest release of its
range was first uploaded to PyPI (``data/release_dates.json``) ran code between the release
before and that one: a source checkout (``source_checkout``), said as such rather than as a
release it cannot be.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import date, datetime, timedelta
from functools import cache
from typing import Any

from .._record import record
from .._text import lazy_regex
from ..events import Event, kinds_where
from ..limits import package_files
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
_SKIP = kinds_where(lambda r: r.no_release_text) | {s.kind for s in CATALOG.specs if s.bulk}


@record
class Evidence:
    """One line that narrows the release range: its line number, what it is, the releases."""

    line: int
    kind: str  # "message" or "source_line"
    text: str
    releases: str
    mask: int

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "kind": self.kind, "text": self.text, "releases": self.releases}


@record
class ReleasePin:
    """The releases a run's lines agree with: ``low``..``high`` (index release names)."""

    low: str
    high: str
    evidence: tuple[Evidence, ...]
    pieces: int
    agreeing: int
    #: the run predates ``high``'s release: a source checkout between ``low`` and ``high``
    source_checkout: bool = False

    @property
    def consistent(self) -> bool:
        """Every piece of evidence agrees (else: a checkout or fork between releases)."""
        return self.agreeing == self.pieces

    def __str__(self) -> str:
        span = self.low if self.low == self.high else f"{self.low}-{self.high}"
        return f"{span} (source checkout)" if self.source_checkout else span

    def to_dict(self) -> dict[str, Any]:
        return {
            "min": self.low,
            "max": self.high,
            "evidence": [e.to_dict() for e in self.evidence],
            "pieces": self.pieces,
            "agreeing": self.agreeing,
            "source_checkout": self.source_checkout,
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
        if len(self.clues) >= MAX_MESSAGES:
            return
        warned = _warning_clue(event) if event.kind in _WARNED else None
        if warned is not None:
            if warned[1:] not in self.seen:
                self.seen.add(warned[1:])
                self.clues.append(warned)
            return
        if event.kind in _SKIP:
            return
        raised = _raise_clue(event) if event.end_line > event.line else None
        if raised is not None and raised[1:] not in self.seen:
            self.seen.add(raised[1:])
            self.clues.append(raised)
        key = (event.message[:120], event.source)
        if key not in self.seen:
            self.seen.add(key)
            self.clues.append((event.line, event.message, event.source))


#: The kinds a ``warnings`` line is read as (no header: text, or a message of the index).
_WARNED = kinds_where(lambda r: r.warning_line)
#: Python's ``warnings`` line: ``/path/sglang/srt/x/awq.py:73: UserWarning: message`` (its
#: ``file.py:LINE`` is where that release calls ``warnings.warn``).
_WARNING = lazy_regex(
    r"(?P<path>[^\s:]{1,800}+):(?P<line>\d{1,7}+): (?P<category>[A-Z]\w{0,60}+): (?P<msg>.+)"
)


def _warning_clue(event: Event) -> Clue | None:
    """A warnings line printed from SGLang's own source, as a clue with its ``file.py:LINE``."""
    if "sglang" not in event.message[:400]:
        return None
    m = _WARNING.match(event.message)
    if m is None or not m.group("category").endswith("Warning"):
        return None
    path = m.group("path").replace("\\", "/")
    if "sglang/" not in path or not path.endswith(".py"):
        return None
    return (event.line, m.group("msg").strip(), f"{path.rsplit('/', 1)[-1]}:{m.group('line')}")


#: A traceback frame in a file: its path and line.
_FRAME = lazy_regex(r'\s*File "(?P<path>[^"]{1,800}+)", line (?P<line>\d{1,7}+)')


def _raise_clue(event: Event) -> Clue | None:
    """A traceback whose last frame is a ``raise`` in SGLang's source: its exception text as a
    clue with that frame's ``file.py:LINE`` (where that release raises it)."""
    message = event.fields.get("exc_message")
    if not message or "Traceback" not in event.text[:400]:
        return None
    lines = event.text.split("\n")
    for i in range(len(lines) - 2, -1, -1):
        m = _FRAME.match(lines[i])
        if m is None:
            continue
        path = m.group("path").replace("\\", "/")
        if "sglang/" not in path or not lines[i + 1].lstrip().startswith("raise "):
            return None
        return (event.line, str(message), f"{path.rsplit('/', 1)[-1]}:{m.group('line')}")
    return None


def clues_of(events: Iterable[Event]) -> list[Clue]:
    collector = ClueCollector()
    # a run's kept runs of blank lines by their distinct lines (the others add nothing)
    distinct = getattr(events, "distinct_events", None)
    for event in events if distinct is None else distinct():
        if len(collector.clues) >= MAX_MESSAGES:
            break  # (it takes no more)
        collector.add(event)
    return collector.clues


def pin_release(
    clues: Iterable[Clue], index: MessageIndex | None = None, started: datetime | None = None
) -> ReleasePin | None:
    """The release range of the run these clues (see :class:`ClueCollector`) come from, which
    started at ``started`` (``None``: no evidence)."""
    pin = _pin(clues, index or message_index())
    if pin is None or started is None or started.year < 2020:  # time-only headers: no date
        return pin
    return _checkout(pin, started.date(), index or message_index())


#: A run this many days or more before a release's first upload cannot be that release (the
#: margin absorbs time zones and a log's clock).
CHECKOUT_MARGIN = timedelta(days=2)


@cache
def release_dates() -> dict[str, date]:
    """The day each release was first uploaded to PyPI (``data/release_dates.json``)."""
    raw = package_files().joinpath("data/release_dates.json").read_text("utf-8")
    return {k: date.fromisoformat(v) for k, v in json.loads(raw)["first_upload"].items()}


def _checkout(pin: ReleasePin, day: date, index: MessageIndex) -> ReleasePin:
    """``pin`` as a source checkout when the run predates the release of its ``low``: then
    between the newest release out by that day and ``low``."""
    dates = release_dates()
    first = dates.get(pin.low)
    if first is None or day > first - CHECKOUT_MARGIN:
        return pin
    before = [r for r in index.releases if r in dates and dates[r] <= day]
    low = before[-1] if before else index.releases[0]
    why = Evidence(
        min((e.line for e in pin.evidence), default=0),
        "date",
        f"run dated {day}, before {pin.low} was released ({first}): a source checkout",
        f"{low}-{pin.low}",
        0,
    )
    return replace(pin, low=low, high=pin.low, evidence=(why, *pin.evidence), source_checkout=True)


def _pin(clues: Iterable[Clue], index: MessageIndex) -> ReleasePin | None:
    """The releases the clues' evidence agrees with (``None``: no evidence)."""
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


#: Each index's evidence by (message, header source), line 0: the runs of one log (a server
#: started again) print the same startup lines, read against the index once.
_READ: weakref.WeakKeyDictionary[MessageIndex, dict[tuple[str, str | None], Evidence | None]]
_READ = weakref.WeakKeyDictionary()
#: Messages remembered per index (each run reads at most :data:`MAX_MESSAGES`).
READ_MAX = 8192


def _evidence(clues: Iterable[Clue], index: MessageIndex) -> Iterable[Evidence]:
    read = _READ.setdefault(index, {})
    for line, message, source in clues:
        found = _read(message, source, index, read)
        if found is not None:
            yield replace(found, line=line)


def telling_clues(clues: Iterable[Clue], index: MessageIndex | None = None) -> tuple[Clue, ...]:
    """The clues that are evidence, in order: :func:`pin_release` of these is
    :func:`pin_release` of all (it reads nothing of the others), for a run sent on without
    its events (a fleet task's: issue 30)."""
    index = index or message_index()
    read = _READ.setdefault(index, {})
    return tuple(c for c in clues if _read(c[1], c[2], index, read) is not None)


def _read(
    message: str,
    source: str | None,
    index: MessageIndex,
    read: dict[tuple[str, str | None], Evidence | None],
) -> Evidence | None:
    """:func:`_read_clue` through the index's memo ``read``."""
    key = (message, source)
    if key in read:
        return read[key]
    found = _read_clue(message, source, index)
    if len(read) < READ_MAX:
        read[key] = found
    return found


def _read_clue(message: str, source: str | None, index: MessageIndex) -> Evidence | None:
    """The evidence of one line (at line 0), if it is any."""
    found = index.match(message)
    if found is None:
        return None
    msg = found[0]
    # every release that prints this text, from whichever template (issue 17: the most
    # specific template alone dates a line that later releases print from a wider one)
    also = [m for m in index.match_all(message, MIN_LITERAL) if m is not msg]
    place = _source_line(0, source, [msg, *also], index)
    if place is not None:
        return place
    if msg.literal_chars >= MIN_LITERAL:
        ids = msg.release_indexes.union(*(m.release_indexes for m in also))
        return Evidence(0, "message", _short(msg), _span(ids, index), _mask(ids))
    return None


def _source_line(
    line: int, source: str | None, msgs: Sequence[SourceMessage], index: MessageIndex
) -> Evidence | None:
    """A ``file.py:LINE`` header that is where some release prints this text."""
    if not source or ":" not in source:
        return None
    name, _, digits = source.rpartition(":")
    if not digits.isdigit():
        return None
    ids = frozenset().union(*(index.releases_at(m, name, int(digits)) for m in msgs))
    if not ids:
        return None
    span = _span(ids, index)
    return Evidence(line, "source_line", f"{source}: {_short(msgs[0])}", span, _mask(ids))


def _span(ids: Iterable[int], index: MessageIndex) -> str:
    """``first-last`` release of ``ids`` (one release when only one)."""
    ordered = sorted(ids)
    low, high = index.releases[ordered[0]], index.releases[ordered[-1]]
    return low if low == high else f"{low}-{high}"


def _mask(ids: Iterable[int]) -> int:
    out = 0
    for i in ids:
        out |= 1 << i
    return out


def _short(msg: SourceMessage) -> str:
    text = msg.template.replace("\x00", "{}")
    return text if len(text) <= 80 else text[:77] + "..."
