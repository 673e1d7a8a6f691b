"""A whole log in memory: events, runs, per-run summaries and a pandas view."""

from __future__ import annotations

import io
import os
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import field, replace
from datetime import tzinfo
from typing import TYPE_CHECKING, Any, TypeVar

from .._record import record
from .._text import SCHEMA_VERSION
from ..errors import LogscopeError
from ..events import Event, EventKind
from ..limits import MAGIC_BYTES, compression_of
from ..meter import file_done, files_begin, input_size
from ..parse.blanks import Blanks
from ..parse.bulk import Rows
from ..parse.lines import iter_events, iter_records
from ..parse.source import Source, describe
from ..parse.split import process_threads, split_records
from .figures import run_memory
from .lazy import Builder, LazyEvents
from .runs import Run, split_runs, stream_runs

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    import pandas as pd


@record
class Log:
    """A parsed log file. ``events`` in file order; ``runs`` one per launch found in the file."""

    name: str
    events: Sequence[Event] = field(repr=False)
    runs: tuple[Run, ...]

    @property
    def last_run(self) -> Run | None:
        return self.runs[-1] if self.runs else None

    def iter_kind(self, *kinds: EventKind) -> Iterator[Event]:
        by_kind = getattr(self.events, "iter_kind", None)  # lean events: only where they are
        if by_kind is not None:
            return by_kind(*kinds)  # type: ignore[no-any-return]
        wanted = set(kinds)
        return (e for e in self.events if e.kind in wanted)

    def to_dataframe(
        self,
        kinds: Sequence[EventKind] | None = None,
        *,
        messages: bool = True,
        tz: tzinfo | str | None = None,
    ) -> pd.DataFrame:
        """One row per event, typed columns, fields flattened (see :func:`events_dataframe`;
        ``messages=False`` drops the message text, the one object column; ``tz``: the log's
        zone, for a zone-aware ``timestamp``)."""
        # start-up: pandas loads only when a DataFrame is asked for
        from .frames import events_dataframe

        events = self.events if kinds is None else self.iter_kind(*kinds)
        if isinstance(self.events, LazyEvents):  # made a chunk at a time: no Event held
            return _frame(events, _RunOfLine(self.runs), messages=messages, tz=tz)
        return events_dataframe(events, _RunOfLine(self.runs), messages=messages, tz=tz)

    def _repr_html_(self) -> str:
        """Jupyter: the runs and event counts as an HTML table."""
        # start-up: the HTML helpers load in a notebook only, not for every command
        from .._html import notebook_html

        return notebook_html(self)


#: Plain files of this size or more are held lean (:mod:`.lazy`): their bytes and a few
#: columns, each ``Event`` made on access.
LEAN_MIN_BYTES = 8 << 20


def read_log(source: Source, *, helper: bool | None = None) -> Log:
    """Parse ``source`` (a path, ``-``, a compressed file or an open file) into a :class:`Log`.
    A plain file of 64 MB or more is split in two processes unless ``helper=False``; one of
    :data:`LEAN_MIN_BYTES` or more is held lean (its events made on access, see
    :mod:`.lazy`: the same events, about the file's size plus 17 bytes an event)."""
    data = _plain_bytes(source)
    if data is not None:
        return _read_lean(source, data)
    events = tuple(iter_events(source, helper=helper))
    return Log(name=describe(source), events=events, runs=tuple(split_runs(events)))


def _plain_bytes(source: Source) -> bytes | None:
    """The bytes of a plain (not compressed) file of :data:`LEAN_MIN_BYTES` or more, else ``None``."""
    if not isinstance(source, (str, os.PathLike)) or os.fspath(source) == "-":
        return None
    try:
        if os.path.getsize(source) < LEAN_MIN_BYTES or not os.path.isfile(source):
            return None
        with open(source, "rb") as f:
            data = f.read()
    except OSError:
        return None  # the ordinary reader says why, in one line
    return None if compression_of(data[:MAGIC_BYTES]) is not None else data


def _read_lean(source: Source, data: bytes) -> Log:
    """A :class:`Log` holding ``data`` lean: one parse gives the kinds and lines of the
    events and the runs (whose ``events`` are views of the log's)."""
    seen: list[Event | Rows | Blanks] = []

    def records() -> Iterator[Event | Rows | Blanks]:
        for item in iter_records(io.BytesIO(data), fields=False, helper=False):
            seen.append(item)
            if len(seen) >= 256:
                events.feed(seen)
                seen.clear()
            yield item

    events = Builder(data)
    runs = list(stream_runs(records(), ()))
    events.feed(seen)
    lazy = events.finish()
    runs = [replace(r, events=lazy.between(r.first_line, r.last_line)) for r in runs]
    return Log(name=describe(source), events=lazy, runs=tuple(runs))


def events_frame(
    source: Source,
    kinds: Sequence[EventKind] | None = None,
    *,
    messages: bool = True,
    chunk: int = 20_000,
    helper: bool | None = None,
    tz: tzinfo | str | None = None,
    bulk: bool = True,
) -> pd.DataFrame:
    """:meth:`Log.to_dataframe` straight from a log of any size: the events stream by and are
    turned into frames ``chunk`` rows at a time, so memory follows the frame, not a
    :class:`Log` of every event (two passes: the runs first, for the ``run`` column). The rows
    and values are those of ``read_log(source).to_dataframe(kinds, messages=messages)``; a
    field's column is float where a chunk lacks it, and columns come in the order first seen.
    Batch and access rows are made from their columns (:mod:`.bulk_frame`, the same frame);
    ``bulk=False`` makes every row through its ``Event`` (the reference)."""
    index = _RunOfLine(list(iter_runs(source, helper=helper)))
    wanted = None if kinds is None else frozenset(kinds)
    if not bulk:
        events = (
            e for e in iter_events(source, helper=helper) if wanted is None or e.kind in wanted
        )
        return _frame(events, index, messages=messages, chunk=chunk, tz=tz)
    # start-up: pandas loads only when a DataFrame is asked for
    from .bulk_frame import chunk_frames

    records = iter_records(source, helper=helper)
    frames = list(
        chunk_frames(records, index, index.of_lines, wanted, messages=messages, chunk=chunk)
    )
    return _joined(frames, tz)


def _frame(
    events: Iterable[Event],
    index: Mapping[int, int],
    *,
    messages: bool,
    chunk: int = 20_000,
    tz: tzinfo | str | None = None,
) -> pd.DataFrame:
    """:func:`~.frames.events_dataframe` built ``chunk`` events at a time and concatenated."""
    # start-up: pandas loads only when a DataFrame is asked for
    from .frames import events_dataframe

    frames: list[pd.DataFrame] = []
    batch: list[Event] = []
    for event in events:
        batch.append(event)
        if len(batch) >= chunk:
            frames.append(events_dataframe(batch, index, messages=messages, localize=False))
            batch = []
    if batch or not frames:
        frames.append(events_dataframe(batch, index, messages=messages, localize=False))
    return _joined(frames, tz)


def _joined(frames: list[pd.DataFrame], tz: tzinfo | str | None) -> pd.DataFrame:
    """Chunks' frames as one (the dtypes a chunk-by-chunk build would lose, restored), in
    the zone the chunks' printed times show."""
    # start-up: pandas loads only when a DataFrame is asked for
    import pandas as pd

    # start-up: pandas loads only when a DataFrame is asked for
    from .frames import with_zone

    zones = {z for f in frames for z in f.attrs.get("printed_zones", ())}
    if len(frames) > 1:
        _share_categories(frames, ("level", "rank"))
    frame = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    for col in frame.columns:
        dtypes = {f[col].dtype for f in frames if col in f.columns}
        nullable = {d for d in dtypes if isinstance(d, (pd.Int64Dtype, pd.BooleanDtype))}
        if not nullable or dtypes == {frame[col].dtype}:
            continue
        if len(dtypes) == 1:  # a nullable column in one chunk, absent (float NaN) in another
            frame[col] = frame[col].astype(nullable.pop())
        else:  # ints or bools in one chunk, text or floats in another
            frame[col] = _as_one_frame_types(frame[col])
    for col in ("level", "rank"):  # categories differ from chunk to chunk
        if col in frame.columns and not isinstance(frame[col].dtype, pd.CategoricalDtype):
            frame[col] = frame[col].astype("category")
    return with_zone(frame, tz, zones)


def _share_categories(frames: list[pd.DataFrame], columns: Sequence[str]) -> None:
    """Give each categorical column of the chunks' frames one dtype: the categories of all
    chunks, ordered as one frame of all the rows orders them. Each chunk's categories are
    its own values, so a chunk without a value (no rank in its lines) has none; concatenated
    as they are, pandas 2 left such an all-missing chunk out of the result's dtype and pandas
    3 does not (the first kept the category, the second made the column objects: a
    ``FutureWarning`` in pandas 2.x). With one dtype both keep the category."""
    # start-up: pandas loads only when a DataFrame is asked for
    import pandas as pd

    for col in columns:
        dtypes = [f[col].dtype for f in frames if col in f.columns]
        cats = [d for d in dtypes if isinstance(d, pd.CategoricalDtype)]
        if len(set(dtypes)) < 2 or len(cats) < len(dtypes):
            continue
        seen = pd.Index([c for d in cats for c in d.categories]).unique()
        shared = pd.CategoricalDtype(pd.Categorical(seen).categories)  # (sorted as astype sorts)
        for f in frames:
            if col in f.columns:
                f[col] = f[col].astype(shared)


def _as_one_frame_types(column: pd.Series) -> pd.Series:
    """A column whose chunks typed it apart (``Int64`` here, text there) as one frame of all
    its rows types it (:func:`.frames.typed_frame`): numbers where every value reads as one,
    else the values as objects, missing ones NaN."""
    # start-up: pandas loads only when a DataFrame is asked for
    import numpy as np
    import pandas as pd

    values = column.astype(object)
    values = values.where(values.notna(), np.nan)
    numbers: pd.Series = pd.to_numeric(values, errors="coerce")
    return numbers if numbers.notna().sum() == values.notna().sum() else values


class _RunOfLine(Mapping[int, int]):
    """The index of the run holding a line, by bisection over the runs' line spans."""

    def __init__(self, runs: Sequence[Run]) -> None:
        self._firsts = [r.first_line for r in runs]
        self._runs = runs

    def __getitem__(self, line: int) -> int:

        i = bisect_right(self._firsts, line) - 1
        if i < 0 or line > self._runs[i].last_line:
            raise KeyError(line)
        return self._runs[i].index

    def of_lines(self, lines: list[int]) -> list[int | None]:
        """The run of each of ascending ``lines`` (``None`` outside every run): one look-up
        where the first and last are in one run (runs are spans of lines)."""
        if lines:
            first, last = self.get(lines[0]), self.get(lines[-1])
            if first is not None and first == last:
                return [first] * len(lines)
        return list(map(self.get, lines))

    def __iter__(self) -> Iterator[int]:
        return (line for r in self._runs for line in range(r.first_line, r.last_line + 1))

    def __len__(self) -> int:
        return sum(r.last_line - r.first_line + 1 for r in self._runs)


def run_summary(run: Run) -> dict[str, Any]:
    """The JSON shape ``logscope summary`` prints for one run."""

    span = run.to_dict()
    return {
        **{
            k: span[k]
            for k in (
                "index",
                "started_at",
                "ended_at",
                "time_zone",
                "time_zone_source",
                "first_line",
                "last_line",
            )
        },
        "outcome": span["outcome"],
        "failure": run.failure.to_dict() if run.failure else None,
        "server_args": dict(run.server_args) if run.server_args is not None else None,
        "memory": run_memory(run),
        "sglang_version_hint": run.release_hint,
        "sglang_release": span["sglang_release"],
        "adjustments": [
            {"line": e.line, "sets": dict(e.fields.get("sets", {})), "message": e.message}
            for e in run.adjustments
        ],
    }


def summary_document(name: str, runs: Iterable[Run]) -> dict[str, Any]:
    """``{"schema_version", "log", "runs": [...], "run_count"}`` — the ``summary`` JSON of the
    log ``name`` (the one place its shape is written: summary, streamed summary, fleet)."""
    rows = [run_summary(r) for r in runs]
    return {"schema_version": SCHEMA_VERSION, "log": name, "runs": rows, "run_count": len(rows)}


def summarize(log: Log) -> dict[str, Any]:
    """The ``summary`` JSON of a parsed log (:func:`summary_document`)."""
    return summary_document(log.name, log.runs)


#: The event kinds :func:`run_summary` reads from a run (its memory figures and adjustments).
SUMMARY_KINDS = frozenset(
    {
        EventKind.LOAD_WEIGHT_BEGIN,
        EventKind.LOAD_WEIGHT_END,
        EventKind.KV_CACHE_ALLOCATED,
        EventKind.MAMBA_CACHE_ALLOCATED,
        EventKind.MEMORY_POOL_END,
        EventKind.CUDA_GRAPH_END,
        EventKind.TOKEN_SUMMARY,
        EventKind.ARGS_ADJUSTED,
        EventKind.ATTENTION_BACKEND,
    }
)


def iter_runs(
    source: Source,
    keep: Sequence[EventKind] | frozenset[EventKind] = (),
    *,
    helper: bool | None = None,
    workers: int | None = None,
) -> Iterator[Run]:
    """The runs of ``source`` as :func:`read_log` finds them, streamed: memory follows a run,
    not the file. Each run's ``events`` hold only the kinds in ``keep``. A big plain file is
    parsed by ``workers`` processes (default: the free cores; see
    :mod:`~sglang_logscope.parse.split`); ``helper=False``: by this process alone, else
    ``helper`` as for :func:`~sglang_logscope.parse.lines.iter_records`."""
    records = None if helper is False or workers == 1 else split_records(source, keep, workers)
    if records is None:
        records = iter_records(source, fields=False, helper=helper)
    return stream_runs(records, keep)


def summarize_source(
    source: Source, *, helper: bool | None = None, workers: int | None = None
) -> dict[str, Any]:
    """``summarize(read_log(source))``, streamed: the same JSON without holding every event.
    ``helper`` and ``workers`` as for :func:`iter_runs`."""
    runs = iter_runs(source, SUMMARY_KINDS, helper=helper, workers=workers)
    return summary_document(describe(source), runs)


_T = TypeVar("_T")
#: A file's summary, or ``None`` and why it could not be read.
SummaryOrError = tuple[dict[str, Any] | None, str | None]


def summarize_file(path: Source, helper: bool | None = None) -> dict[str, Any]:
    """The ``summary`` JSON of one log file: a pure, picklable per-file function, so fleets of
    logs map onto ``multiprocessing``, Dask (``bag.map(summarize_file)``) or Spark
    (``rdd.map(summarize_file)``). Streams (see :func:`summarize_source`). ``path`` may be a
    URL (``s3://``, ``gs://``, ``https://``: the ``[remote]`` extra) or an open file."""
    return summarize_source(path, helper=helper)


def summarize_files(paths: Sequence[Source], workers: int | None = None) -> list[dict[str, Any]]:
    """:func:`summarize_file` over several files, in parallel across cores, in input order."""
    return _map_files(summarize_file, paths, workers)


def summary_or_error(path: Source, helper: bool | None = None) -> SummaryOrError:
    """:func:`summarize_file`, or (``None``, why) for a file that cannot be read: what
    ``summary`` of several logs maps, so that one unreadable file leaves the rest answered."""
    try:
        return summarize_file(path, helper), None
    except (LogscopeError, OSError) as exc:
        return None, str(exc)


def summarize_each(paths: Sequence[Source], workers: int | None = None) -> list[SummaryOrError]:
    """:func:`summary_or_error` of several files, in parallel across cores, in input order."""
    return _map_files(summary_or_error, paths, workers)


def _map_files(
    task: Callable[[Source, bool | None], _T], paths: Sequence[Source], workers: int | None
) -> list[_T]:
    # start-up: the process pool loads only for several files (a single summary never needs it)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    files_begin(len(paths))  # the progress line's count
    if len(paths) <= 1 or workers == 1 or multiprocessing.current_process().daemon:
        # a Dask (or multiprocessing) worker is daemonic: it may not start processes, and
        # the fleet is already spread over workers
        return [_counted(task(p, None)) for p in paths]

    count = min(len(paths), workers or os.cpu_count() or 1)
    pool = ProcessPoolExecutor(max_workers=count, mp_context=_pool_context())
    with pool:  # the files use the cores already
        futures = [pool.submit(task, p, False) for p in paths]
        for path, future in zip(paths, futures, strict=True):
            # counted here as each result arrives, with the file's size: the worker read it
            future.add_done_callback(_ended(_size(path)))
        return [f.result() for f in futures]


def _pool_context() -> BaseContext:
    """``fork`` (the workers start at once, the library already loaded) where this process runs
    one thread; else ``forkserver``: a fork while another thread (a progress line, a caller's
    server) holds a lock can deadlock the child, and Python 3.12+ warns of it."""
    # start-up: the process pool loads only for several files (a single summary never needs it)
    import multiprocessing
    import threading

    methods = multiprocessing.get_all_start_methods()
    if process_threads(threading.active_count()) == 1 and "fork" in methods:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _ended(size: int | None) -> Callable[[object], None]:
    """A pool future's callback: one more file done, of ``size`` bytes."""

    def ended(_: object) -> None:
        file_done(size)

    return ended


def _counted(result: _T) -> _T:
    """``result``, one more file done (its bytes were counted as this process read them)."""
    file_done()
    return result


def _size(source: Source) -> int | None:
    """The bytes of a local plain file (:func:`~sglang_logscope.meter.input_size`), else ``None``."""
    if isinstance(source, (str, os.PathLike)):
        return input_size([os.fspath(source)])
    return None
