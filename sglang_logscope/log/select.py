"""What the listing commands answer, as result objects a renderer takes in one call:
:class:`EventSelection` (``logscope events``), :class:`RunList` (``runs``), :class:`Summaries`
(``summary``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from .._record import record
from .._text import SCHEMA_VERSION
from ..errors import LogscopeError
from ..events import Event, EventKind
from ..parse.bulk_json import iter_event_json
from ..parse.lines import iter_events
from ..parse.source import Source, describe
from .reader import iter_runs, read_log, summarize_each, summarize_source
from .runs import Run


@record
class EventSelection:
    """The events of a log chosen by kind and run; ``events`` streams when no run is asked for
    (a renderer consumes it once)."""

    log: str
    events: Iterable[Event]
    #: the same events as JSON lines, blocks of lines joined by newlines (the argument:
    #: escape every non-ASCII character), bulk rows written from their columns
    #: (:mod:`..parse.bulk_json`); ``None`` when a run is chosen
    json_blocks: Callable[[bool], Iterator[str]] | None = None


@record
class RunList:
    """The runs a log holds (thin: no events kept)."""

    log: str
    runs: tuple[Run, ...]

    def rows(self) -> list[dict[str, Any]]:
        """One row per run: the ``runs`` JSON shape (:meth:`.Run.to_row`, as in ``check``)."""
        return [r.to_row() for r in self.runs]

    def to_dict(self) -> dict[str, Any]:
        rows = self.rows()
        return {
            "schema_version": SCHEMA_VERSION,
            "log": self.log,
            "runs": rows,
            "run_count": len(rows),
        }


@record
class Summaries:
    """The ``summary`` of each log given, in input order, and (file, why) of each that could
    not be read (of several logs: the others are still answered)."""

    items: tuple[dict[str, Any], ...]
    unreadable: tuple[tuple[str, str], ...] = ()


def select_events(
    source: str, kinds: set[EventKind] | None = None, run: int | None = None
) -> EventSelection:
    """The events of ``source`` of ``kinds`` (all when None) in run ``run`` (all when None)."""
    blocks = None
    if run is None:

        def blocks(ascii_only: bool) -> Iterator[str]:
            return iter_event_json(source, kinds, ascii_only)

    return EventSelection(source, _events_of(source, kinds, run), blocks)


def list_runs(source: Source) -> RunList:
    """The runs of ``source``, streamed (memory follows a run, not the file)."""
    # the banner event is kept: its receive time (a wrapped log) gives the run's zone
    return RunList(describe(source), tuple(iter_runs(source, (EventKind.SERVER_ARGS,))))


def summaries(sources: Sequence[str], jobs: int | None = None) -> Summaries:
    """:func:`~sglang_logscope.log.reader.summarize_source` of each source, on ``jobs``
    processes (default: the free cores): several files side by side, one big file in ranges."""
    if len(sources) == 1:
        return Summaries((summarize_source(sources[0], workers=jobs),))
    items: list[dict[str, Any]] = []
    unreadable: list[tuple[str, str]] = []
    for source, (summary, why) in zip(sources, summarize_each(sources, jobs), strict=True):
        if summary is not None:
            items.append(summary)
        else:
            unreadable.append((describe(source), why or "unreadable"))
    if not items:
        why = "; ".join(f"{f}: {w}" for f, w in unreadable)
        raise LogscopeError(f"no log could be read ({why})")
    return Summaries(tuple(items), tuple(unreadable))


def _events_of(source: str, kinds: set[EventKind] | None, run: int | None) -> Iterable[Event]:
    """Events of ``source`` filtered by kind and run; streams when no run is asked for."""
    if run is None:
        stream = iter_events(source)
        return (e for e in stream if kinds is None or e.kind in kinds)
    log = read_log(source)
    if not log.runs:
        raise LogscopeError(f"{log.name}: holds no run")
    try:
        chosen = log.runs[run]
    except IndexError:
        raise LogscopeError(f"{log.name}: no run {run} (the log holds {len(log.runs)})") from None
    return [e for e in chosen.events if kinds is None or e.kind in kinds]
