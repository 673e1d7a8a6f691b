"""Fleets of logs on a real engine: a batch of files per task on Dask (a scheduler's
address, or a local cluster), each file's summary streamed back as its batch completes, and
the fleet table — one row per launch (:mod:`.launches`): outcome, failure kind, release, GPUs, model — for text,
JSON and Parquet.

Dask (``distributed``) and pyarrow are the optional extra ``[fleet]``; they load only here.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from functools import cached_property
from typing import Any

from .._record import record
from .._text import to_json
from ..errors import LogscopeError
from ..events import EventKind
from ..parse.source import Source, describe
from .launches import HEADER_KEYS, Launch, Member, group_members
from .pinning import clues_of, telling_clues
from .reader import SUMMARY_KINDS, iter_runs, summary_document
from .runs import Run

#: The kinds a fleet task keeps of each run: the summary's, and the header grouping reads.
FLEET_KINDS = SUMMARY_KINDS | {EventKind.SERVER_ARGS}
#: The ``server_args`` keys a fleet item's runs keep: what grouping reads, and the table's GPUs.
TABLE_KEYS = (*HEADER_KEYS, "enable_dp_attention")
#: The fleet table's columns, in order (one row per launch).
FLEET_COLUMNS = (
    "launch",
    "files",
    "roles",
    "outcome",
    "failure_kind",
    "failure_file",
    "failure_line",
    "failure_time",
    "release",
    "gpus",
    "model",
)


@record
class FleetItem:
    """One file of a fleet: its summary, as its JSON line, and its runs as the fleet table
    reads them (:func:`_lean`), or why it could not be read. Compact, for a Dask task to send
    back: a string and a few small objects a file, not the summary's dictionaries (issue 30)."""

    source: str
    #: the ``summary`` JSON of the file, one line (:func:`~sglang_logscope._text.to_json`,
    #: non-ASCII characters as they are)
    summary_json: str | None
    runs: tuple[Run, ...]
    error: str | None = None
    #: each run's release as the fleet table reads it (:func:`release_of`), made where the
    #: file was read (on a worker, not in the client that groups); ``()``: not made yet
    releases: tuple[str | None, ...] = ()

    @cached_property
    def summary(self) -> dict[str, Any] | None:
        """The ``summary`` JSON of the file, parsed (once, when asked)."""
        return None if self.summary_json is None else json.loads(self.summary_json)


class Fleet:
    """A fleet being read: iterate it once for its items as they come (each kept, lean: the
    summary and the header runs), then :meth:`table` for the fleet table, whose members are
    made as the items come (:class:`FleetTable`)."""

    def __init__(self, items: Iterator[FleetItem]) -> None:
        self._items = items
        self.seen: list[FleetItem] = []
        self._table = FleetTable()

    def __iter__(self) -> Iterator[FleetItem]:
        for item in self._items:
            self.seen.append(item)
            self._table.add(item)
            yield item

    @property
    def read(self) -> int:
        """How many files could be read."""
        return sum(1 for i in self.seen if i.error is None)

    def table(self) -> list[dict[str, Any]]:
        return self._table.rows()


def read_fleet(
    sources: Sequence[Source], scheduler: str | None = None, batch: int | None = None
) -> Fleet:
    """The fleet of ``sources``: on Dask at ``scheduler`` (see :func:`map_fleet`, which
    takes ``batch``), else in this process in turn, lazily (nothing is read before the fleet
    is iterated)."""
    if scheduler is not None:
        return Fleet(map_fleet(sources, scheduler, batch))
    return Fleet(fleet_item(s) for s in sources)


def fleet_item(source: Source) -> FleetItem:
    """Read one file for a fleet (pure and picklable: a Dask task). One pass gives both the
    ``summary`` JSON and the runs that grouping reads."""
    try:
        runs = tuple(iter_runs(source, FLEET_KINDS, helper=False))
    except (LogscopeError, OSError) as exc:
        return FleetItem(describe(source), None, (), str(exc))
    summary = to_json(summary_document(describe(source), runs), indent=None)
    releases = tuple(release_of(r) for r in runs)
    return FleetItem(describe(source), summary, tuple(_lean(r) for r in runs), None, releases)


def release_of(run: Run) -> str | None:
    """A run's release for the fleet table: the release its lines pin (``low-high`` for a
    range), else its release hint, else ``None``."""
    pin = run.sglang_release
    if pin is not None:
        return pin.low if pin.low == pin.high else f"{pin.low}-{pin.high}"
    return run.release_hint or None


def _lean(run: Run) -> Run:
    """A run as the fleet table reads it: its times, outcome and failure, its header's
    :data:`TABLE_KEYS` (the whole header where it has none of them: an empty one reads as no
    header), and the release clues that are evidence (:func:`~.pinning.telling_clues`: the
    same ``sglang_release``); no events. The rest is in the summary, and most of what a task
    would send back."""
    args = run.server_args
    if args is not None:
        args = {k: args[k] for k in TABLE_KEYS if k in args} or args
    clues = telling_clues(run.release_clues or clues_of(run.events))
    return replace(run, events=(), server_args=args, release_clues=clues)


def fleet_items(sources: Sequence[Source]) -> list[FleetItem]:
    """:func:`fleet_item` of each of ``sources`` in turn: one Dask task for a batch of files."""
    return [fleet_item(s) for s in sources]


@record
class FleetBatch:
    """A Dask task's items as one object: Dask sends a list's items as a message part each
    (10,000 files, 10,000 parts: most of the client's CPU, docs/performance.md), one object
    as one part."""

    items: tuple[FleetItem, ...]


def fleet_batch(sources: Sequence[Source]) -> FleetBatch:
    """:func:`fleet_items` as a Dask task returns them (:class:`FleetBatch`)."""
    return FleetBatch(tuple(fleet_items(sources)))


#: Files per Dask task at most (:func:`batch_size`): a task of small logs costs about as much
#: in scheduling and transfer as reading one, so tasks carry many; few enough that results
#: still stream and the last tasks do not leave workers idle. Measured on 16 cores, 10,000
#: small logs (docs/performance.md): 128 files a task read them in 3.8-4.1 s, 32 in 5.0-5.3 s.
MAX_BATCH = 128
#: Tasks per worker thread that :func:`batch_size` aims for (for balance between workers).
TASKS_PER_THREAD = 4
#: The last tasks are smaller (:func:`batch_sizes`): a task holds at most the files left over
#: this many per worker thread, and at least :data:`MIN_BATCH` (so that the workers finish
#: close together, not one still reading a whole batch while the others wait).
TAIL_SPREAD = 1
MIN_BATCH = 8


def batch_size(files: int, threads: int) -> int:
    """Files per task for ``files`` on ``threads`` worker threads: about
    :data:`TASKS_PER_THREAD` tasks each, at most :data:`MAX_BATCH` files a task, at least one."""
    return max(1, min(MAX_BATCH, files // (max(1, threads) * TASKS_PER_THREAD)))


def batch_sizes(files: int, threads: int, largest: int) -> list[int]:
    """The files of each task, in the order they run: ``largest`` while many are left, then
    smaller toward the end (about the files left over :data:`TAIL_SPREAD` per thread, at
    least :data:`MIN_BATCH`), so the last tasks are short. They add up to ``files``."""
    sizes: list[int] = []
    left, spread = files, TAIL_SPREAD * max(1, threads)
    while left > 0:
        sizes.append(min(largest, left, max(MIN_BATCH, -(-left // spread))))
        left -= sizes[-1]
    return sizes


def map_fleet(
    sources: Sequence[Source], scheduler: str, batch: int | None = None
) -> Iterator[FleetItem]:
    """:func:`fleet_item` of each source on Dask, ``batch`` files a task (default:
    :func:`batch_size` for the cluster's worker threads) at most, the last tasks smaller
    (:func:`batch_sizes`; Dask runs them in order), each task's items yielded as it
    completes (not in input order). ``scheduler``: a scheduler's address, or ``local`` for a
    ``LocalCluster`` of one single-threaded worker process per core."""
    try:
        # start-up: Dask loads only for a fleet run on it
        from distributed import Client, as_completed
    except ImportError:
        raise LogscopeError(
            "--dask needs dask.distributed: pip install 'sglang-logscope[fleet]'"
        ) from None
    if batch is not None and batch < 1:
        raise LogscopeError(f"a fleet batch is at least one file, not {batch}")
    cluster = local_cluster() if scheduler == "local" else None
    try:
        try:
            # a local cluster's results come from its workers straight (not relayed by the
            # scheduler, which lives in this process); a remote cluster's workers may not be
            # reachable from here, so its scheduler relays them
            client = Client(  # type: ignore[no-untyped-call]
                cluster if cluster is not None else scheduler,
                timeout="30s",
                direct_to_workers=cluster is not None,
            )
        except (OSError, TimeoutError, ValueError) as exc:
            raise LogscopeError(f"--dask {scheduler}: cannot connect ({exc})") from None
        with client:
            names, threads = list(sources), _threads(client)
            chunks, start = [], 0
            for size in batch_sizes(len(names), threads, batch or batch_size(len(names), threads)):
                chunks.append(names[start : start + size])
                start += size
            futures = client.map(fleet_batch, chunks, pure=False)
            # with_results: each task's items are fetched as it completes, side by side in
            # the client's event loop, not one task after another when asked for
            done = as_completed(futures, with_results=True)  # type: ignore[no-untyped-call]
            for future, sent in done:
                future.release()
                yield from sent.items
    finally:
        if cluster is not None:
            cluster.close()


def local_cluster(workers: int | None = None) -> Any:
    """A Dask ``LocalCluster`` for a fleet (``--dask local``): ``workers`` single-threaded
    worker processes, one per core by default, each importing this module as it starts (not
    in its first task). Needs ``distributed``."""
    # start-up: Dask loads only for a fleet run on it
    from distributed import LocalCluster

    return LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=workers or os.cpu_count() or 1,
        threads_per_worker=1,
        dashboard_address=None,
        preload=[__name__],
    )


def _threads(client: Any) -> int:
    """The worker threads the client's cluster has now (one where it says none yet)."""
    workers = client.scheduler_info().get("workers", {})
    return sum(int(w.get("nthreads", 1)) for w in workers.values()) or 1


class FleetTable:
    """The fleet table, built as items arrive: each read item's members made and warmed
    (:meth:`~.launches.Member.warm`: arguments, role, failure) and its releases noted when it
    is added, so that on Dask that work overlaps the reading of the other files and only the
    grouping and the rows are left after the last one (issue 30). The same table as grouping
    them all at the end: the members are put in file order before grouping."""

    def __init__(self) -> None:
        self._files: list[tuple[str, list[Member]]] = []
        self._releases: dict[tuple[str, int], str | None] = {}

    def add(self, item: FleetItem) -> None:
        """Take one item (a file that could not be read adds nothing)."""
        if item.error is not None:
            return
        releases = item.releases or tuple(map(release_of, item.runs))
        for r, release in zip(item.runs, releases, strict=True):
            self._releases[item.source, r.index] = release
        self._files.append((item.source, [Member(item.source, r).warm() for r in item.runs]))

    def rows(self) -> list[dict[str, Any]]:
        """One row per launch of the items added so far (:data:`FLEET_COLUMNS`)."""
        files = sorted(self._files, key=lambda f: f[0])
        # Grouping makes no reference cycle; with the collector on, it walks every item's
        # objects again and again while grouping allocates (10,000 files: about a quarter of
        # the table's time on the 16-core machine, docs/performance.md)
        collecting = gc.isenabled()
        gc.disable()
        try:
            launches = group_members([m for _, ms in files for m in ms], why=False)
            return [_row(n, launch, self._releases) for n, launch in enumerate(launches)]
        finally:
            if collecting:
                gc.enable()


def fleet_table(items: Iterable[FleetItem]) -> list[dict[str, Any]]:
    """One row per launch the read items make (:data:`FLEET_COLUMNS`), the collector off
    throughout (as in :meth:`FleetTable.rows`: adding makes no reference cycle either)."""
    table = FleetTable()
    collecting = gc.isenabled()
    gc.disable()
    try:
        for item in items:
            table.add(item)
        return table.rows()
    finally:
        if collecting:
            gc.enable()


def write_parquet(rows: list[dict[str, Any]], path: str) -> None:
    """The fleet table as a Parquet file (pandas + pyarrow, the ``[fleet]`` extra)."""
    # start-up: pandas loads only for a Parquet table
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(FLEET_COLUMNS))
    for column in ("files", "failure_line", "gpus"):  # whole numbers, missing ones null
        frame[column] = frame[column].astype("Int64")
    try:
        frame.to_parquet(path, index=False)
    except ImportError:
        raise LogscopeError(
            "--parquet needs pyarrow: pip install 'sglang-logscope[fleet]'"
        ) from None
    except OSError as exc:
        raise LogscopeError(f"cannot write {path}: {exc.strerror or exc}") from None


def _row(n: int, launch: Launch, releases: dict[tuple[str, int], str | None]) -> dict[str, Any]:
    first = launch.first_failure
    return {
        "launch": n,
        "files": len(launch.files),
        "roles": ", ".join(m.role for m in launch.members),
        "outcome": launch.outcome.value,
        "failure_kind": first.kind if first else None,
        "failure_file": first.file if first else None,
        "failure_line": first.line if first else None,
        "failure_time": first.time.isoformat(sep=" ") if first and first.time else None,
        "release": _one(releases[m.file, m.run.index] for m in launch.members),
        "gpus": _gpus(launch),
        "model": _one(m.args.get("model_path") for m in launch.members),
    }


def _gpus(launch: Launch) -> int | None:
    """GPUs the launch's arguments ask for: per role (prefill, decode, or the one server),
    tp × pp, times dp without DP attention (its replicas); ``None`` where a member has no
    header. A figure from the arguments, not a count of devices seen."""
    per_role: dict[str | None, int] = {}
    for m in launch.members:
        a = m.args
        if not a:
            return None
        dp = 1 if a.get("enable_dp_attention") else int(a.get("dp_size") or 1)
        per_role[m.mode] = int(a.get("tp_size") or 1) * int(a.get("pp_size") or 1) * dp
    return sum(per_role.values())


def _one(values: Iterable[Any]) -> str | None:
    seen = {str(v) for v in values if v is not None}
    return seen.pop() if len(seen) == 1 else None
