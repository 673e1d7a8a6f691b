"""Cut a stream of events into runs (one launch each) and say how each run ended."""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from datetime import datetime, timedelta, tzinfo
from functools import cached_property
from itertools import compress, islice, pairwise
from operator import gt
from typing import Any, overload

from .._record import record
from .._text import ZoneSource, lazy_regex, printed_zone, rfc3339, zone_name
from ..events import KIND_ROLES, OOM_FAILURES, Event, EventKind, kinds_where
from ..events import FailureKind as FailureKind  # re-exported: its home before KIND_ROLES
from ..parse.blanks import Blanks
from ..parse.bulk import Rows, row_time
from ..parse.catalog import KNOWN_RELEASES, MessageSpec, parse_release_range
from ..parse.versions import release_key
from .pinning import Clue, ClueCollector, ReleasePin, clues_of, pin_release

#: A timestamp this far behind the previous one starts a new run (logs glued together).
BACKWARDS_GAP = timedelta(minutes=2)
#: Pre-banner lines (auto-adjust warnings) this close before a banner belong to its run.
PREAMBLE_WINDOW = timedelta(minutes=2)


class Outcome(str, enum.Enum):
    READY = "ready"
    STARTING = "starting"
    CRASHED = "crashed"
    STOPPED = "stopped"
    COMPLETED = "completed"
    UNKNOWN = "unknown"


#: Event kinds that are failures, and the failure kind each one means (see ``KIND_ROLES``).
FAILURE_OF: dict[EventKind, FailureKind] = {
    k: r.failure for k, r in KIND_ROLES.items() if r.failure is not None
}
_OOM_KINDS = OOM_FAILURES
#: Failure kinds, most specific first (the enum's order).
_FAILURE_ORDER = list(FailureKind)
_TERMINAL = kinds_where(lambda r: r.failure is not None or r.terminal)
#: After SGLang's own SIGTERM handler spoke (a ``shutdown`` event), a child's death and the
#: SIGQUIT that follows are the stop itself, not a failure.
_STOP_CHAIN = kinds_where(lambda r: r.stop_chain)
#: Lines SGLang (or the shell) prints before the ``server_args`` banner of a run: they belong to
#: the run that follows when they come within :data:`PREAMBLE_WINDOW` of its start.
PREAMBLE_KINDS = kinds_where(lambda r: r.preamble)
#: Kinds that say nothing about how far a run got (a message of the source index is SGLang's,
#: but it carries no typed meaning).
_NO_PROGRESS = kinds_where(lambda r: r.no_progress)
#: At most this many trailing preamble lines move into the run that follows them (the rest
#: stay with the run before): what a run holds back while it waits for a banner is bounded, so a
#: file of millions of blank lines costs no more memory than any other.
MAX_PREAMBLE = 4096
#: Preamble kinds whose events a run of blank lines can be folded as at once: no run starts at
#: one, none is a failure or changes the run's state (a blank line's event is a ``text`` one).
_QUIET_PREAMBLE = (
    PREAMBLE_KINDS
    - set(FAILURE_OF)
    - {
        EventKind.SERVER_ARGS,
        EventKind.ARGPARSE_USAGE,
        EventKind.ARGPARSE_ERROR,
        EventKind.LOAD_WEIGHT_BEGIN,
        EventKind.SHUTDOWN,
    }
)
_READY = kinds_where(lambda r: r.ready)
_SERVING = kinds_where(lambda r: r.batch)
#: Only an HTTP server prints these; an offline ``Engine`` script never does.
_HTTP = kinds_where(lambda r: r.http_server)
#: The engine finished starting (with a capture bar at 100 % and batch rows, see _Group).
_ENGINE_UP = kinds_where(lambda r: r.engine_up) | _SERVING
#: Lines of a script's own output after the engine was up that make an offline run read as
#: run to its end (SGLang prints nothing when an Engine shuts down: issue 28).
SCRIPT_OUTPUT_LINES = 2
#: A tqdm bar at its end: ``| 20/20 [`` (the same count done and in all).
_BAR_DONE = lazy_regex(r"\|\s{0,4}+(\d{1,7}+)/\1 \[")


@record
class Failure:
    """Why a run died: the kind, the message, the line, and effective values it reveals."""

    kind: FailureKind
    message: str
    line: int
    effective: Mapping[str, Any] = field(default_factory=dict)
    event: Event | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "message": self.message,
            "line": self.line,
            "effective": dict(self.effective),
        }


@record
class Run:
    """One launch of the server, as far as the log shows it."""

    index: int
    events: Sequence[Event] = field(repr=False)
    started_at: datetime | None
    ended_at: datetime | None
    first_line: int
    last_line: int
    server_args: Mapping[str, Any] | None
    outcome: Outcome
    failure: Failure | None
    release_hint: str | None
    has_banner: bool
    release_clues: tuple[Clue, ...] = field(default=(), repr=False, compare=False)
    #: the node ranks whose output the run holds (``node_rank`` of each node's banner; issue
    #: 28): more than one when several nodes' output is in one file; ``()``: not shown
    nodes: tuple[int, ...] = ()

    def to_dict(
        self,
        zone: tzinfo | None = None,
        zone_text: str | None = None,
        zone_source: ZoneSource | None = None,
    ) -> dict[str, Any]:
        """Where and when the run is, and how it ended (JSON-ready; shared by every report).
        Times carry an offset when the zone is known: ``zone`` (the log's, named ``zone_text``,
        from ``zone_source``), else the one its events' receive times show
        (:attr:`printed_zone`)."""
        if zone is None:
            zone = self.printed_zone
            if zone_source is None or zone is not None:
                zone_source = ZoneSource.LOG if zone is not None else ZoneSource.UNKNOWN
        return {
            "index": self.index,
            "started_at": rfc3339(self.started_at, zone),
            "ended_at": rfc3339(self.ended_at, zone),
            "time_zone": zone_name(zone, zone_text),
            "time_zone_source": (zone_source or ZoneSource.LOG_TZ).value,
            "first_line": self.first_line,
            "last_line": self.last_line,
            "outcome": self.outcome.value,
            "sglang_version_hint": self.release_hint,
            "sglang_release": self.sglang_release.to_dict() if self.sglang_release else None,
            "has_banner": self.has_banner,
            "nodes": list(self.nodes),
        }

    def to_row(
        self,
        zone: tzinfo | None = None,
        zone_text: str | None = None,
        zone_source: ZoneSource | None = None,
    ) -> dict[str, Any]:
        """The run as an item of a ``runs`` array (``logscope runs -f json``, and ``check``'s
        ``runs`` from schema 3): :meth:`to_dict` and how it failed, the one shape of a run's
        summary row."""
        return {
            **self.to_dict(zone, zone_text, zone_source),
            "failure": self.failure.to_dict() if self.failure else None,
        }

    @cached_property
    def printed_zone(self) -> tzinfo | None:
        """The zone of the run's printed times, where a container runtime or journald stamped
        its lines (:func:`~sglang_logscope._text.printed_zone`); ``None``: unknown. Only the
        run's first events are looked at (a wrapped log stamps every line); a big log's lean
        events answer for the whole log (:attr:`.lazy.LazyEvents.printed_zone`)."""
        if hasattr(self.events, "printed_zone"):
            return self.events.printed_zone  # type: ignore[no-any-return]
        for e in islice(self.events, _ZONE_LOOKS):
            if e.received_at is not None and e.has_date:
                return printed_zone(e.timestamp, e.received_at)
        return None

    @cached_property
    def sglang_release(self) -> ReleasePin | None:
        """The release range the run's own lines agree with (see :mod:`.pinning`)."""
        return pin_release(self.release_clues or clues_of(self.events), started=self.started_at)

    def of_kind(self, *kinds: EventKind) -> list[Event]:
        by_kind = getattr(self.events, "iter_kind", None)  # lean events: only where they are
        if by_kind is not None:
            return list(by_kind(*kinds))
        return [e for e in self.events if e.kind in kinds]

    def __repr__(self) -> str:
        """One line: not the hundreds of server args and events a run holds."""
        failure = f"{self.failure.kind.value}@{self.failure.line}" if self.failure else None
        args = len(self.server_args) if self.server_args is not None else None
        return (
            f"Run(index={self.index}, lines={self.first_line}-{self.last_line}, "
            f"started_at={_short_time(self.started_at)}, outcome={self.outcome.value}, "
            f"failure={failure}, release_hint={self.release_hint!r}, "
            f"events={len(self.events)}, server_args={args})"
        )

    def _repr_html_(self) -> str:
        """Jupyter: the run as a small HTML table."""
        # start-up: the HTML views load only in a notebook
        from .._html import notebook_html

        return notebook_html(self)

    def first(self, kind: EventKind) -> Event | None:
        by_kind = getattr(self.events, "iter_kind", None)
        if by_kind is not None:
            return next(by_kind(kind), None)
        return next((e for e in self.events if e.kind is kind), None)

    @property
    def adjustments(self) -> list[Event]:
        """SGLang's own argument changes in this run (auto-adjust warnings, backend choice)."""
        return self.of_kind(EventKind.ARGS_ADJUSTED, EventKind.ATTENTION_BACKEND)


#: How many of a run's first events :attr:`Run.printed_zone` looks at for a receive time.
_ZONE_LOOKS = 64


def _short_time(value: datetime | None) -> str | None:
    return rfc3339(value)


def split_runs(events: Iterable[Event]) -> list[Run]:
    """Group events into runs.

    A new run starts at a ``server_args`` banner, at an argparse usage/error (a launch that
    died at once), when the timestamps jump backwards, or when a new ``Load weight begin``
    series starts after the previous run crashed or became ready. Auto-adjust warnings printed
    just before a banner belong to the banner's run. (:func:`stream_runs` keeping every kind:
    one mechanism for both.)
    """
    return list(stream_runs(events, keep=_ALL_KINDS))


_ALL_KINDS = frozenset(EventKind)


def _split_preamble(current: list[Event], starter: Event) -> tuple[list[Event], list[Event]]:
    """Move trailing preamble lines (auto-adjust warnings etc.) into the run ``starter`` opens."""
    if starter.kind is not EventKind.SERVER_ARGS:
        return current, []
    cut = len(current)
    while cut > max(0, len(current) - MAX_PREAMBLE):
        e = current[cut - 1]
        if e.kind not in PREAMBLE_KINDS:
            break
        if (
            e.timestamp is not None
            and starter.timestamp is not None
            and e.has_date
            and (
                starter.timestamp - e.timestamp > PREAMBLE_WINDOW or e.timestamp > starter.timestamp
            )
        ):
            break
        cut -= 1
    # Headless noise right after a crash (e.g. 'Killed') stays with the crashed run.
    while (
        cut < len(current)
        and current[cut].kind in (EventKind.TEXT, EventKind.SGLANG_MESSAGE)
        and current[cut].timestamp is None
    ):
        if any(
            e.kind in (EventKind.ARGS_ADJUSTED, EventKind.LAUNCH_WARNING) for e in current[cut:]
        ):
            break
        cut += 1
    return current[:cut], current[cut:]


def find_failure(events: Sequence[Event]) -> Failure | None:
    """The run's failure: the most specific failure kind seen, at its first occurrence."""
    best: tuple[int, Event, FailureKind] | None = None
    stopping = False
    for e in events:
        stopping = stopping or e.kind is EventKind.SHUTDOWN
        if stopping and e.kind in _STOP_CHAIN:
            continue
        kind = FAILURE_OF.get(e.kind)
        if kind is None:
            continue
        order = _FAILURE_ORDER.index(kind)
        if best is None or order < best[0]:
            best = (order, e, kind)
    if best is None:
        return None
    _, event, kind = best
    return _failure(event, kind)


def _failure(event: Event, kind: FailureKind) -> Failure:
    return Failure(
        kind=kind,
        message=_failure_message(event),
        line=event.line,
        effective=effective_values(event),
        event=event,
    )


def _failure_message(event: Event) -> str:
    if "exc_message" in event.fields:
        exc_type = event.fields.get("exc_type", "")
        exc_message = str(event.fields["exc_message"])
        if exc_type and exc_message:
            return f"{exc_type}: {exc_message}"
        return str(exc_type or exc_message)  # a bare 'AssertionError
    return event.message


def effective_values(event: Event) -> dict[str, Any]:
    """Argument values a failure message reveals (e.g. ``mem_fraction_static=0.85``)."""
    out: dict[str, Any] = {}
    if event.kind in (EventKind.NOT_ENOUGH_MEMORY, EventKind.WEIGHTS_LEAVE_NO_MEMORY):
        value = event.fields.get("mem_fraction_static")
        if isinstance(value, float):
            out["mem_fraction_static"] = value
    return out


def _outcome_of(kinds: set[EventKind], failure: Failure | None, script_done: bool) -> Outcome:
    if failure is not None:
        return Outcome.CRASHED
    if EventKind.BENCH_RESULT in kinds:
        return Outcome.COMPLETED
    if script_done and not kinds & _HTTP and not kinds & {EventKind.SHUTDOWN, EventKind.SIGQUIT}:
        # inferred: an offline Engine came up, served no HTTP, and its script printed after
        return Outcome.COMPLETED
    if EventKind.SHUTDOWN in kinds:
        return Outcome.STOPPED
    if EventKind.SIGQUIT in kinds:
        return Outcome.CRASHED
    if kinds & _READY or kinds & _SERVING:
        return Outcome.READY
    if kinds - _NO_PROGRESS:
        return Outcome.STARTING
    return Outcome.UNKNOWN


def release_hint(events: Iterable[Event]) -> str | None:
    """The SGLang releases consistent with every release-specific message in the run."""
    span = _ReleaseSpan()
    for e in events:
        span.add(e.releases)
    return span.hint()


#: parse_release_range by its text (a message spec's ``releases``: a few dozen in all).
_RANGES: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {}


class _ReleaseSpan:
    """The release range every release-specific message seen so far agrees with."""

    __slots__ = ("high", "last", "low", "narrowed")

    def __init__(self) -> None:
        self.low: tuple[int, ...] = (0,)
        self.high: tuple[int, ...] = (999,)
        self.narrowed = False
        self.last: str | None = None  # the same range again narrows nothing

    def add(self, releases: str | None) -> None:
        if not releases or releases == "all" or releases == self.last:
            return
        self.last = releases
        bounds = _RANGES.get(releases)
        if bounds is None:
            bounds = parse_release_range(releases)
            if len(_RANGES) < 4096:
                _RANGES[releases] = bounds
        lo, hi = bounds
        if lo > self.low:
            self.low, self.narrowed = lo, True
        if hi < self.high:
            self.high, self.narrowed = hi, True

    def hint(self) -> str | None:
        if not self.narrowed:
            return None
        return _release_hint(self.low, self.high)


def _release_hint(low: tuple[int, ...], high: tuple[int, ...]) -> str | None:
    if low > high:
        return None  # contradictory evidence: say nothing rather than something wrong
    known = [v for v in KNOWN_RELEASES if low <= release_key(v) <= high]
    if not known:
        return None
    if len(known) == 1:
        return known[0]
    if high >= (999,):
        return f">={known[0]}"
    return f"{known[0]}-{known[-1]}"


def stream_runs(
    events: Iterable[Event | Rows | Blanks],
    keep: Collection[EventKind] = (),
    first_row: bool = False,
) -> Iterator[Run]:
    """The runs of :func:`split_runs`, built as the events stream by, in memory that follows
    what a run keeps rather than the file: each :class:`Run` is yielded once the next one has
    started, and its ``events`` hold only the events whose kind is in ``keep`` (every other
    field is that of :func:`split_runs`; with ``keep`` every kind, the runs are equal).

    ``events`` may hold :class:`~sglang_logscope.parse.bulk.Rows` (``parse.iter_records``): a block
    of batch/access lines is folded in without an object per line, unless it holds a kind in
    ``keep`` (then its events are taken one by one); so is a run of blank lines
    (:class:`~sglang_logscope.parse.blanks.Blanks`).

    Held meanwhile: the current run's figures, its kept events and its trailing preamble
    (auto-adjust warnings, unknown lines) that a following banner would take over.

    ``first_row``: a run also keeps the first event of each kind not in ``keep`` (``watch``'s
    phase view enters "ready" at a run's first batch line) and its last line's event.
    """
    builder = _Builder(frozenset(keep), first_row)
    for item in events:
        if item.__class__ is Rows:
            yield from builder.rows(item)
        elif item.__class__ is Blanks:
            yield from builder.blanks(item)
        else:
            yield from builder.event(item)  # type: ignore[arg-type]
    yield from builder.finish()


def run_builder(
    keep: Collection[EventKind], state: StreamState | None = None, first_row: bool = False
) -> _Builder:
    """:func:`stream_runs` as an object (``feed`` each item, then ``finish``; ``state`` between
    two), fresh or resumed from ``state`` (``first_row``: fresh only)."""
    wanted = frozenset(keep)
    if state is None:
        return _Builder(wanted, first_row)
    if first_row:
        raise ValueError("run_builder: a resumed stream keeps no first rows")
    return _Builder.resumed(state, wanted)


@record
class StreamState:
    """Where :func:`stream_runs` stands between two items, inside a run: every figure the
    run's group has folded so far, so the stream can go on from that line later (the scan
    index, :mod:`.scan_index`). Only taken without ``first_row`` and while no run is spare."""

    index: int  # the run's index
    last_ts: datetime | None  # the newest dated time so far (a jump back from it cuts a run)
    settled: tuple[Event, ...]  # committed events of kept kinds
    tail: tuple[Event, ...]  # trailing preamble, not committed yet
    count: int
    first_line: int
    last_line: int
    oldest: datetime | None
    newest: datetime | None
    banner: int | None  # position of the banner in ``settled``
    best: tuple[int, int, FailureKind] | None  # (order, position in ``settled``, kind)
    kinds: frozenset[EventKind]
    releases: tuple[tuple[int, ...], tuple[int, ...], bool, str | None]
    clues: tuple[Clue, ...]
    seen: frozenset[tuple[str, str | None]]
    stopping: bool
    has_args: bool
    last_kind: EventKind | None
    loaders: frozenset[str] = frozenset()  # ranks that printed 'Load weight begin' (issue 28)
    nodes: frozenset[int] = frozenset()  # node ranks of the run's banners (issue 28)
    launch: tuple[int, str | None] | None = None  # (nnodes, dist_init_addr) of a multi-node one
    up: bool = False  # the engine finished starting (issue 28: an Engine script's end)
    output: int = 0  # text lines since then and since the last SGLang line


class _Builder:
    """The state of :func:`stream_runs` between two items."""

    __slots__ = ("current", "first_row", "index", "last_ts", "spare", "wanted")

    def __init__(self, wanted: frozenset[EventKind], first_row: bool = False) -> None:
        self.wanted = wanted
        self.first_row = first_row
        self.current: _Group | None = None
        self.last_ts: datetime | None = None
        self.index = 0
        self.spare: _Group | None = None  # the last group without meaning, for a log that has none

    def event(self, event: Event) -> Iterator[Run]:
        current = self.current
        if current is not None and current.starts_run(event, self.last_ts):
            yield from self._close(current, current.split_preamble(event))
            current = self.current
        if current is None:
            current = self.current = _Group(self.wanted, self.first_row)
        current.append(event)
        if event.timestamp is not None and event.has_date:
            self.last_ts = event.timestamp

    def rows(self, rows: Rows) -> Iterator[Run]:
        specs = rows.specs()
        if any(s.kind in self.wanted for s in specs):
            for e in rows.events():
                yield from self.event(e)
            return
        bounds = rows.time_bounds()  # the fast lane's reading: in order, no time column
        times = rows.times() if bounds is None else []
        cuts = None if bounds is not None else _gap_cuts(times)
        first, last = bounds or (times[0], times[-1])
        for lo, hi in cuts or [(0, len(rows))]:
            if self.current is not None and (lo > 0 or self._opens(row_time(first))):
                yield from self._close(self.current, self.current.split_preamble(None))
            if self.current is None:
                self.current = _Group(self.wanted, self.first_row)
            if cuts is None:  # in time order (nearly always): first and last row bound it
                self.current.add_rows(rows, specs, row_time(first), row_time(last))
            else:
                part, span = rows.slice(lo, hi), times[lo:hi]
                self.current.add_rows(part, part.specs(), row_time(min(span)), row_time(max(span)))
        self.last_ts = row_time(last)

    def blanks(self, run: Blanks) -> Iterator[Run]:
        """Fold in a run of blank lines: what ``event`` does for each of its events, at once
        where they are quiet preamble (no run starts at one; all kept or none); else one by
        one."""
        kinds = run.kinds()
        if not kinds <= _QUIET_PREAMBLE or (kinds & self.wanted and not kinds <= self.wanted):
            for e in run.events():
                yield from self.event(e)
            return
        if self.current is None:
            self.current = _Group(self.wanted, self.first_row)
        self.current.add_blanks(run)

    def _opens(self, first: datetime) -> bool:
        """Does a row of this time, after the events so far, start a run (see starts_run)?"""
        return self.last_ts is not None and self.last_ts - first > BACKWARDS_GAP

    def _close(self, current: _Group, moved: list[Event]) -> Iterator[Run]:
        if current.count:
            yield from self._emit(current)
        self.current = _Group(self.wanted, self.first_row)
        for e in moved:
            self.current.append(e)

    def _emit(self, group: _Group) -> Iterator[Run]:
        """A group with meaning becomes the next run; one without is kept as the spare."""
        if group.meaningful():
            yield group.build(self.index)
            self.index += 1
        else:
            self.spare = group

    def finish(self) -> Iterator[Run]:
        if self.current is not None:
            yield from self._emit(self.current)
        if self.index == 0 and self.spare is not None:
            yield self.spare.build(0)

    def close(self) -> Iterator[Run]:
        """The open run, closed as the start of a next one would close it (input cut just
        before that next run's first line); unlike :meth:`finish`, no spare run."""
        current = self.current
        if current is not None:
            current.split_preamble(None)
            if current.count:
                yield from self._emit(current)
            self.current = None

    def state(self) -> StreamState | None:
        """The stream's state now (between two items), or ``None`` where it cannot be resumed
        from one: no run open, ``first_row`` kept, or a spare group that a resumed stream
        would not know."""
        g = self.current
        if g is None or self.first_row or self.spare is not None or not g.count:
            return None
        if any(e.__class__ is Blanks for e in g.settled):
            return None  # (a run of blank lines kept: the index keeps events only)
        where = {id(e): i for i, e in enumerate(g.settled)}
        banner = None if g.banner is None else where.get(id(g.banner), -1)
        best = None if g.best is None else (g.best[0], where.get(id(g.best[1]), -1), g.best[2])
        if banner == -1 or (best is not None and best[1] == -1):
            return None  # not kept: cannot be named by position
        r = g.releases
        return StreamState(
            index=self.index,
            last_ts=self.last_ts,
            settled=tuple(g.settled),  # type: ignore[arg-type]
            tail=tuple(g.tail),
            count=g.count,
            first_line=g.first_line,
            last_line=g.last_line,
            oldest=g.oldest,
            newest=g.newest,
            banner=banner,
            best=best,
            kinds=frozenset(g.kinds),
            releases=(r.low, r.high, r.narrowed, r.last),
            clues=tuple(g.clues.clues),
            seen=frozenset(g.clues.seen),
            stopping=g.stopping,
            has_args=g.has_args,
            last_kind=g.last_kind,
            loaders=frozenset(g.loaders),
            nodes=frozenset(g.nodes),
            launch=g.launch,
            up=g.up,
            output=g.output,
        )

    @classmethod
    def resumed(cls, state: StreamState, wanted: frozenset[EventKind]) -> _Builder:
        """A builder that goes on from ``state`` as the one that took it would."""
        b = cls(wanted)
        b.index, b.last_ts = state.index, state.last_ts
        g = b.current = _Group(wanted)
        g.settled, g.tail = list(state.settled), list(state.tail)
        g.count, g.first_line, g.last_line = state.count, state.first_line, state.last_line
        g.oldest, g.newest = state.oldest, state.newest
        g.banner = None if state.banner is None else state.settled[state.banner]
        if state.best is not None:
            g.best = (state.best[0], state.settled[state.best[1]], state.best[2])
        g.kinds = set(state.kinds)
        r = g.releases
        r.low, r.high, r.narrowed, r.last = state.releases
        g.clues.clues, g.clues.seen = list(state.clues), set(state.seen)
        g.stopping, g.has_args, g.last_kind = state.stopping, state.has_args, state.last_kind
        g.loaders, g.nodes, g.launch = set(state.loaders), set(state.nodes), state.launch
        g.up, g.output = state.up, state.output
        return b

    def feed(self, item: Event | Rows | Blanks) -> Iterator[Run]:
        """One item of :func:`stream_runs`'s input."""
        if isinstance(item, Rows):
            return self.rows(item)
        if isinstance(item, Blanks):
            return self.blanks(item)
        return self.event(item)


def _gap_cuts(times: list[bytes]) -> list[tuple[int, int]] | None:
    """Rows cut where a row's time falls more than :data:`BACKWARDS_GAP` behind the row
    before it (a new run: see :func:`split_runs`; row 0 is compared by the caller), or
    ``None`` when the times are in order. Only a row whose time text sorts before the previous
    one's can be such a cut."""
    if sorted(times) == times:  # in order (nearly always): one sort of a sorted list is cheap
        return None
    back = list(compress(range(1, len(times)), map(gt, times, times[1:])))
    if not back:
        return None
    cuts = [0]
    for i in back:
        if row_time(times[i - 1]) - row_time(times[i]) > BACKWARDS_GAP:
            cuts.append(i)
    cuts.append(len(times))
    return list(pairwise(cuts))


def _node_of(banner: Event) -> tuple[int | None, tuple[int, str | None] | None]:
    """A banner's ``node_rank`` and, for a launch over more than one node, its
    ``(nnodes, dist_init_addr)`` (what every node of one launch shares)."""
    args = banner.fields.get("args") or {}
    node, nnodes, addr = args.get("node_rank"), args.get("nnodes"), args.get("dist_init_addr")
    node = node if isinstance(node, int) and not isinstance(node, bool) else None
    if not isinstance(nnodes, int) or isinstance(nnodes, bool) or nnodes < 2:
        return node, None
    return node, (nnodes, addr if isinstance(addr, str) else None)


def _firsts(events: Iterable[Event], kinds: set[EventKind]) -> Iterator[Event]:
    """The first event of each of ``kinds``, in order."""
    left = set(kinds)
    for e in events:
        if e.kind in left:
            left.discard(e.kind)
            yield e
            if not left:
                return


class _Group:
    """One run being gathered by :func:`stream_runs`: the figures a :class:`Run` needs,
    folded event by event, plus the trailing preamble events (``tail``) not yet committed."""

    __slots__ = (
        "banner",
        "best",
        "clues",
        "count",
        "final",
        "first_line",
        "firsts",
        "has_args",
        "kinds",
        "last_kind",
        "last_line",
        "launch",
        "loaders",
        "newest",
        "nodes",
        "oldest",
        "output",
        "releases",
        "settled",
        "stopping",
        "tail",
        "up",
        "wanted",
    )

    def __init__(self, wanted: frozenset[EventKind], first_row: bool = False) -> None:
        self.wanted = wanted
        #: the kinds not wanted of which the first event was kept (``None``: keep none)
        self.firsts: set[EventKind] | None = set() if first_row else None
        self.final: Event | Rows | None = None  # the last item committed but not kept
        #: committed events whose kind is wanted (a run of blank lines kept as itself)
        self.settled: list[Event | Blanks] = []
        self.tail: list[Event] = []  # the trailing preamble, not committed yet
        self.count = 0  # committed events
        self.first_line = 0
        self.last_line = 0
        self.oldest: datetime | None = None
        self.newest: datetime | None = None
        self.banner: Event | None = None
        self.best: tuple[int, Event, FailureKind] | None = None
        self.kinds: set[EventKind] = set()
        self.releases = _ReleaseSpan()
        self.clues = ClueCollector()
        self.stopping = False
        self.has_args = False
        self.last_kind: EventKind | None = None
        self.loaders: set[str] = set()
        self.nodes: set[int] = set()
        self.launch: tuple[int, str | None] | None = None
        self.up = False  # the engine finished starting
        self.output = 0  # text lines since then and since the last SGLang line

    def append(self, event: Event) -> None:
        self.last_kind = event.kind
        if event.kind in PREAMBLE_KINDS:
            self.tail.append(event)
            if len(self.tail) >= 2 * MAX_PREAMBLE:  # only the last MAX_PREAMBLE may move on
                self._commit(self.tail[:-MAX_PREAMBLE])
                del self.tail[:-MAX_PREAMBLE]
            return
        if self.tail:
            self._commit(self.tail)
            self.tail = []
        self._commit((event,))

    def _commit(self, events: Iterable[Event]) -> None:
        for e in events:
            kind = e.kind
            if not self.count:
                self.first_line = e.line
            self.count += 1
            self.last_line = max(e.end_line, e.line)
            ts = e.timestamp
            if ts is not None:
                if self.oldest is None or ts < self.oldest:
                    self.oldest = ts
                if self.newest is None or ts > self.newest:
                    self.newest = ts
            if kind is EventKind.SERVER_ARGS:
                self.has_args = True
                self._node(e)
                if self.banner is None:
                    self.banner = e
            elif kind is EventKind.LOAD_WEIGHT_BEGIN and e.rank is not None:
                self.loaders.add(e.rank.label)
            if kind is EventKind.SHUTDOWN:
                self.stopping = True
            failure = None if self.stopping and kind in _STOP_CHAIN else FAILURE_OF.get(kind)
            if failure is not None:
                order = _FAILURE_ORDER.index(failure)
                if self.best is None or order < self.best[0]:
                    self.best = (order, e, failure)
            self._script_output(e)
            self.kinds.add(kind)
            self.releases.add(e.releases)
            self.clues.add(e)
            if kind in self.wanted:
                self.settled.append(e)
                self.final = None
            elif self.firsts is not None:
                self.final = e
                if kind not in self.firsts:
                    self.firsts.add(kind)
                    self.settled.append(e)
                    self.final = None

    def _script_output(self, e: Event) -> None:
        """Count the lines of a script's own output after the engine came up (issue 28)."""
        kind = e.kind
        if kind is EventKind.TEXT:
            if self.up and e.message.strip():
                self.output += 1
            return
        self.output = 0
        if kind in _ENGINE_UP or (
            kind is EventKind.CUDA_GRAPH_PROGRESS and _BAR_DONE.search(e.message[-300:])
        ):
            self.up = True

    @property
    def script_done(self) -> bool:
        """The engine came up and a script's own lines end the run (an offline run ended)."""
        return self.up and self.output >= SCRIPT_OUTPUT_LINES

    def add_rows(
        self, rows: Rows, specs: list[MessageSpec], oldest: datetime, newest: datetime
    ) -> None:
        """Fold in a block of rows (none of them kept, all dated): what ``append`` does for
        each of its events, at once."""
        if self.tail:
            self._commit(self.tail)
            self.tail = []
        if self.firsts is not None:
            self._keep_firsts(rows, specs)
            self.final = rows
        if not self.count:
            self.first_line = rows.first_line
        self.count += len(rows)
        self.last_line = rows.last_line
        if self.oldest is None or oldest < self.oldest:
            self.oldest = oldest
        if self.newest is None or newest > self.newest:
            self.newest = newest
        for spec in specs:
            self.kinds.add(spec.kind)
            self.releases.add(spec.releases)
            self.up = self.up or spec.kind in _ENGINE_UP
        self.output = 0
        self.last_kind = rows.last_kind()

    def add_blanks(self, run: Blanks) -> None:
        """Append a run of quiet preamble events (:data:`_QUIET_PREAMBLE`) as ``append``
        appends each: the trailing preamble ends as long as it would (only its last
        :data:`MAX_PREAMBLE` may move on), the events before it committed at once."""
        n, held = run.count, len(self.tail)
        self.last_kind = run.distinct(n - 1, n)[0][1].kind
        total = held + n
        if total < 2 * MAX_PREAMBLE:
            self.tail.extend(run.events())
            return
        # ``append`` commits all but the last MAX_PREAMBLE each time the tail reaches twice that
        left = MAX_PREAMBLE + (total - 2 * MAX_PREAMBLE) % MAX_PREAMBLE
        if n < left:
            self._commit(self.tail[: held - (left - n)])
            self.tail = [*self.tail[held - (left - n) :], *run.events()]
            return
        self._commit(self.tail)
        self._commit_blanks(run, n - left)
        self.tail = list(run.events(n - left, n))

    def _commit_blanks(self, run: Blanks, stop: int) -> None:
        """``_commit`` of the run's first ``stop`` events (quiet preamble), at once."""
        if stop <= 0:
            return
        if not self.count:
            self.first_line = run.first_line
        self.count += stop
        self.last_line = run.first_line + stop - 1
        if run.kinds() <= self.wanted:  # kept: held as the run itself (KeptEvents)
            self.settled.append(run.slice(0, stop))
            self.final = None
        for line, t in run.distinct(0, stop):
            self.kinds.add(t.kind)
            self.releases.add(t.releases)
            event = next(run.events(line - run.first_line, line - run.first_line + 1))
            self.clues.add(event)
            if self.firsts is not None and t.kind not in self.firsts | self.wanted:
                self.firsts.add(t.kind)
                self.settled.append(event)
        if self.firsts is not None and not run.kinds() <= self.wanted:
            self.final = next(run.events(stop - 1, stop))
            if self.settled and _last_line(self.settled[-1]) == self.final.line:
                self.final = None

    def _keep_firsts(self, rows: Rows, specs: list[MessageSpec]) -> None:
        """The first row of each kind not kept yet, as an event (once per kind and run)."""
        assert self.firsts is not None
        new = {s.kind for s in specs} - self.firsts - self.wanted
        if not new:
            return
        self.firsts |= new
        self.settled.extend(e for e in _firsts(rows.events(), new))

    def _node(self, banner: Event) -> None:
        """A banner's node rank, and the multi-node launch it belongs to (issue 28)."""
        node, launch = _node_of(banner)
        if node is not None:
            self.nodes.add(node)
        if self.launch is None:
            self.launch = launch

    def starts_run(self, event: Event, last_ts: datetime | None) -> bool:
        """Does ``event`` open a new run after this group? (See :func:`split_runs`.)"""
        kind = event.kind
        if kind is EventKind.SERVER_ARGS:
            node, launch = _node_of(event)
            if launch is not None and launch == self.launch and node not in self.nodes:
                return False  # another node of the same multi-node launch (issue 28)
            return self.has_args or self.progress
        if kind in (EventKind.ARGPARSE_USAGE, EventKind.ARGPARSE_ERROR):
            if kind is EventKind.ARGPARSE_ERROR and self.last_kind is EventKind.ARGPARSE_USAGE:
                return False
            return self.progress
        if (
            last_ts is not None
            and event.timestamp is not None
            and event.has_date
            and last_ts - event.timestamp > BACKWARDS_GAP
        ):
            return True
        if kind is EventKind.LOAD_WEIGHT_BEGIN:
            if event.rank is not None and self.loaders and event.rank.label not in self.loaders:
                return False  # a late rank of this launch, not a new one (issue 28)
            return any(k in _TERMINAL or k in _READY for k in self.kinds)
        return False

    @property
    def progress(self) -> bool:
        """Anything beyond preamble noise? (The tail is preamble: it adds none.)"""
        return not self.kinds <= PREAMBLE_KINDS

    def split_preamble(self, starter: Event | None) -> list[Event]:
        """Commit what stays, return what moves to ``starter``'s run (``None``: a block of
        rows, which takes no preamble)."""
        tail = self.tail
        self.tail = []
        if starter is None or starter.kind is not EventKind.SERVER_ARGS:
            self._commit(tail)
            return []
        _, moved = _split_preamble(tail, starter)
        self._commit(tail[: len(tail) - len(moved)])
        return moved

    def meaningful(self) -> bool:
        return any(k not in _NO_PROGRESS for k in self.kinds)

    def build(self, index: int) -> Run:
        self._commit(self.tail)
        self.tail = []
        final = self.final
        if final is not None:  # ``first_row``: the run's last line, if it is not kept yet
            last = final if isinstance(final, Event) else final.slice(len(final) - 1, len(final))
            event = last if isinstance(last, Event) else last.events()[0]
            if not self.settled or _last_line(self.settled[-1]) < event.line:
                self.settled.append(event)
        banner = self.banner
        failure = _failure(self.best[1], self.best[2]) if self.best else None
        return Run(
            index=index,
            events=KeptEvents(self.settled)
            if any(e.__class__ is Blanks for e in self.settled)
            else tuple(self.settled),  # type: ignore[arg-type]
            started_at=self.oldest,
            ended_at=self.newest,
            first_line=self.first_line,
            last_line=self.last_line,
            server_args=dict(banner.fields.get("args", {})) if banner else None,
            outcome=_outcome_of(self.kinds, failure, self.script_done),
            failure=failure,
            release_hint=self.releases.hint(),
            has_banner=banner is not None,
            release_clues=tuple(self.clues.clues),
            nodes=tuple(sorted(self.nodes)),
        )


def _last_line(item: Event | Blanks) -> int:
    return item.last_line if isinstance(item, Blanks) else item.line


class KeptEvents(Sequence[Event]):
    """A run's kept events where runs of blank lines are among them: each such run held as
    its :class:`~sglang_logscope.parse.blanks.Blanks` (its events made on access), the other
    events as they are. Equal to any sequence of the same events."""

    __slots__ = ("_ends", "_parts")

    def __init__(self, parts: Sequence[Event | Blanks]) -> None:
        self._parts = tuple(parts)
        ends: list[int] = []
        n = 0
        for part in self._parts:
            n += part.count if isinstance(part, Blanks) else 1
            ends.append(n)
        self._ends = ends

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            lo, hi, step = index.indices(len(self))
            if step != 1:
                return tuple(self)[index]
            return tuple(self._between(lo, max(lo, hi)))
        i = index + len(self) if index < 0 else index
        if not 0 <= i < len(self):
            raise IndexError("event index out of range")
        return next(self._between(i, i + 1))

    def _between(self, lo: int, hi: int) -> Iterator[Event]:
        k = bisect_right(self._ends, lo)
        start = self._ends[k - 1] if k else 0
        while k < len(self._parts) and start < hi:
            part = self._parts[k]
            if isinstance(part, Blanks):
                yield from part.events(max(0, lo - start), min(part.count, hi - start))
            else:
                yield part
            start = self._ends[k]
            k += 1

    def __iter__(self) -> Iterator[Event]:
        return self._between(0, len(self))

    def __reversed__(self) -> Iterator[Event]:
        for i in range(len(self) - 1, -1, -1):
            yield self[i]

    def iter_kind(self, *kinds: EventKind) -> Iterator[Event]:
        """The events of ``kinds``, in order (a run of blank lines of other kinds skipped)."""
        for part in self._parts:
            if isinstance(part, Blanks):
                if part.kinds() & set(kinds):
                    yield from (e for e in part.events() if e.kind in kinds)
            elif part.kind in kinds:
                yield part

    def distinct_events(self) -> Iterator[Event]:
        """The events, each run of blank lines as the first event of each distinct line in
        it (what a fold that keeps one per message needs: :func:`.pinning.clues_of`)."""
        for part in self._parts:
            if isinstance(part, Blanks):
                for line, _ in part.distinct():
                    at = line - part.first_line
                    yield from part.events(at, at + 1)
            else:
                yield part

    @classmethod
    def chained(cls, seqs: Iterable[Sequence[Event]]) -> Sequence[Event]:
        """The events of ``seqs`` one after another: a tuple, or where one of them is a
        :class:`KeptEvents`, one holding their parts."""
        seqs = list(seqs)
        if not any(isinstance(s, KeptEvents) for s in seqs):
            return tuple(e for s in seqs for e in s)
        parts: list[Event | Blanks] = []
        for s in seqs:
            parts.extend(s._parts if isinstance(s, KeptEvents) else s)
        return cls(parts)

    def kinds(self) -> set[EventKind]:
        """The kinds of the events (runs of blank lines read by their distinct lines)."""
        out: set[EventKind] = set()
        for part in self._parts:
            out |= part.kinds() if isinstance(part, Blanks) else {part.kind}
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"KeptEvents({len(self)} events)"


def kinds_in(events: Iterable[Event]) -> Iterator[EventKind]:
    """The kinds of ``events`` (for a :class:`KeptEvents`, each distinct kind once: its runs
    of blank lines read by their distinct lines, no event made), for an ``any``/``all``."""
    if isinstance(events, KeptEvents):
        yield from events.kinds()
    else:
        for e in events:
            yield e.kind
