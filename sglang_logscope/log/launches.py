"""Several logs, one launch: the runs of many files (the nodes of a multi-node launch, the
prefill and decode servers of PD disaggregation) grouped into launches by the evidence of
their ``server_args`` headers, each with one timeline and one outcome.

Grouping reads each file's runs with only their header kept (:func:`header_runs`: what a
per-file summary costs, no event bodies held). Two runs join only on evidence, and each
:class:`Launch` names the evidence that joined it (:data:`NODE_KEYS`, :data:`SHAPE_KEYS`,
:data:`PD_KEYS`, time overlap within :data:`JOIN_SLACK`); runs that share no such evidence
stay apart, each listed as its own launch. The first failure of a launch is the earliest
failure that is not a consequence of another (:data:`CONSEQUENCES`: NCCL watchdog timeouts,
remote NCCL errors, a process killed by SIGQUIT, exit code -3): those are marked as what the
others did after.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import field
from datetime import datetime, timedelta
from functools import cached_property
from typing import Any, TypeVar

from .._record import record
from .._text import SCHEMA_VERSION, visible
from ..errors import LogscopeError
from ..events import EventKind
from ..meter import file_done, files_begin
from ..parse.source import Source, describe
from .reader import iter_runs
from .runs import Outcome, Run

_T = TypeVar("_T")

#: Runs whose spans come this close (or overlap) may be one launch: the nodes of a launch start
#: within seconds to minutes of each other.
JOIN_SLACK = timedelta(minutes=5)
#: The arguments every node of a multi-node launch shares (``nnodes`` > 1), and the one that
#: tells the nodes apart.
NODE_KEYS = ("dist_init_addr", "nnodes")
NODE_RANK = "node_rank"
#: The launch's shape: the nodes of one launch agree on each one present.
SHAPE_KEYS = ("model_path", "tp_size", "pp_size", "dp_size", "ep_size")
#: PD disaggregation: the servers of one launch serve one model over one transfer backend.
PD_KEYS = ("model_path", "disaggregation_transfer_backend")
PD_MODES = ("prefill", "decode")
#: Every ``server_args`` key grouping reads (with each :class:`Launch`'s evidence): a run
#: whose header holds only these groups as the whole header does (a fleet task sends no more).
HEADER_KEYS = tuple(
    dict.fromkeys(
        (
            *NODE_KEYS,
            NODE_RANK,
            *SHAPE_KEYS,
            *PD_KEYS,
            "disaggregation_mode",
            "host",
            "disaggregation_bootstrap_port",
        )
    )
)
#: A failure whose message matches one of these is what a node does when another died: a
#: consequence, not a cause (name → pattern). One table: the wording in the JSON comes from it.
CONSEQUENCES: dict[str, re.Pattern[str]] = {
    "nccl_watchdog_timeout": re.compile(r"Watchdog caught collective operation timeout"),
    "nccl_remote_error": re.compile(r"ncclRemoteError|NCCL communicator was aborted|remote peer"),
    "killed_by_sigquit": re.compile(r"(?:exit code:? ?|terminated with (?:signal )?)-3\b"),
    "peer_closed_connection": re.compile(r"[Cc]onnection (?:reset|closed) by peer"),
}
#: The launch's outcome: the first of these that a member's run has.
OUTCOME_ORDER = (
    Outcome.CRASHED,
    Outcome.STARTING,
    Outcome.UNKNOWN,
    Outcome.STOPPED,
    Outcome.READY,
    Outcome.COMPLETED,
)
#: In a directory, the files read as logs: these endings, and rotations (``x.log.1``).


@record
class Member:
    """One run of one file in a launch, and the role its header gives it."""

    file: str
    run: Run

    # Read once each (grouping asks them for every pair it tries): a copy of the header's
    # arguments, not to be changed.
    @cached_property
    def args(self) -> dict[str, Any]:
        return dict(self.run.server_args or {})

    @cached_property
    def mode(self) -> str | None:
        mode = self.args.get("disaggregation_mode")
        return str(mode) if mode in PD_MODES else None

    @cached_property
    def node_rank(self) -> int | None:
        return _int(self.args.get(NODE_RANK)) if _multi_node(self.args) else None

    @property
    def role(self) -> str:
        parts = [self.mode] if self.mode else []
        if self.node_rank is not None:
            parts.append(f"node{self.node_rank}")
        return " ".join(parts) or "server"

    @cached_property
    def moment(self) -> Moment | None:
        """Its run's failure in the launch's timeline (``None``: no failure); made once (a
        fleet makes it as each file arrives, before grouping: :meth:`warm`)."""
        return _moment(self) if self.run.failure is not None else None

    @cached_property
    def node_key(self) -> Hashable:
        """Its :data:`NODE_KEYS`, :data:`SHAPE_KEYS` and mode (:func:`_node_groups`'s key)."""
        return _key(self.args, (*NODE_KEYS, *SHAPE_KEYS, "disaggregation_mode"))

    def warm(self) -> Member:
        """This member with what grouping and the fleet table read of it made now (its
        arguments, role, failure), not during grouping: a fleet does it as each file arrives,
        while others are still being read (issue 30)."""
        _ = self.node_rank, self.mode, self.moment, self.node_key
        return self

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "run": self.run.index,
            "role": self.role,
            "node_rank": self.node_rank,
            "disaggregation_mode": self.mode,
            "outcome": self.run.outcome.value,
            "started_at": _iso(self.run.started_at),
            "ended_at": _iso(self.run.ended_at),
        }


@record
class Moment:
    """A failure of a member, placed in the launch's timeline."""

    file: str
    role: str
    line: int
    time: datetime | None
    kind: str
    message: str
    #: the :data:`CONSEQUENCES` name it matches, ``None`` for a failure of its own
    consequence_of: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "role": self.role,
            "line": self.line,
            "time": _iso(self.time),
            "kind": self.kind,
            "message": visible(self.message),
            "consequence": self.consequence_of,
        }


@record
class Launch:
    """Runs of one or more files that the evidence says are one launch."""

    members: tuple[Member, ...]
    evidence: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def files(self) -> list[str]:
        return list(dict.fromkeys(m.file for m in self.members))

    @property
    def started_at(self) -> datetime | None:
        return min((m.run.started_at for m in self.members if m.run.started_at), default=None)

    @property
    def ended_at(self) -> datetime | None:
        return max((m.run.ended_at for m in self.members if m.run.ended_at), default=None)

    @property
    def outcome(self) -> Outcome:
        seen = {m.run.outcome for m in self.members}
        return next(o for o in OUTCOME_ORDER if o in seen)

    @property
    def failures(self) -> list[Moment]:
        """Every member's failure, earliest first (undated ones last)."""
        moments = [m.moment for m in self.members if m.moment is not None]
        return sorted(moments, key=lambda x: (x.time is None, x.time or datetime.min, x.file))

    @property
    def first_failure(self) -> Moment | None:
        """The earliest failure that is no consequence of another; where every failure is one
        (the cause's node left no log here), the earliest of them, so marked."""
        failures = self.failures
        causes = [f for f in failures if f.consequence_of is None]
        chosen = causes or failures
        return chosen[0] if chosen else None

    def timeline(self) -> list[dict[str, Any]]:
        """Each member's start, failure and last line, across files, in time order."""
        first = self.first_failure
        rows: list[tuple[datetime | None, dict[str, Any]]] = []
        for m in self.members:
            where = {"file": m.file, "role": m.role}
            rows.append((m.run.started_at, {**where, "line": m.run.first_line, "what": "start"}))
            moment = m.moment
            if moment is not None:
                what = "first failure" if moment == first else "failure"
                if moment != first and moment.consequence_of:
                    what = f"consequence ({moment.consequence_of})"
                rows.append((moment.time, {**where, "line": moment.line, "what": what}))
            end = f"last line ({m.run.outcome.value})"
            rows.append((m.run.ended_at, {**where, "line": m.run.last_line, "what": end}))
        rows.sort(key=lambda r: (r[0] is None, r[0] or datetime.min, r[1]["line"]))
        return [{"time": _iso(t), **row} for t, row in rows]

    def to_dict(self) -> dict[str, Any]:
        first = self.first_failure
        return {
            "files": self.files,
            "evidence": list(self.evidence),
            "roles": [m.to_dict() for m in self.members],
            "outcome": self.outcome.value,
            "started_at": _iso(self.started_at),
            "ended_at": _iso(self.ended_at),
            "first_failure": first.to_dict() if first else None,
            "consequences": [f.to_dict() for f in self.failures if f != first and f.consequence_of],
            "timeline": self.timeline(),
            "notes": list(self.notes),
        }


@record
class Launches:
    """The launches several logs hold, and the files that could not be read."""

    launches: tuple[Launch, ...]
    #: (file, why) of each file that could not be read; the others are still answered
    unreadable: tuple[tuple[str, str], ...] = field(default=())

    def _repr_html_(self) -> str:
        """Jupyter: one row per launch (its roles, outcome, first failure, evidence), and each
        worker's throughput and queue-depth charts (``render/notebook.launches_html``)."""
        # start-up: the HTML views load only in a notebook
        from .._html import notebook_html

        return notebook_html(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "launches": [launch.to_dict() for launch in self.launches],
            "unreadable": [{"file": f, "error": why} for f, why in self.unreadable],
        }


def header_runs(source: Source) -> tuple[Run, ...]:
    """The runs of ``source`` with their header (``server_args``) kept, no other event: what
    grouping needs, streamed."""
    return tuple(iter_runs(source, (EventKind.SERVER_ARGS,)))


def read_launches(sources: Sequence[Source]) -> Launches:
    """The launches the logs ``sources`` hold (each file's header runs, grouped by
    :func:`group_launches`). A file that cannot be read is listed in ``unreadable``; only when
    none can be read is it an error."""
    read: list[tuple[str, Sequence[Run]]] = []
    unreadable: list[tuple[str, str]] = []
    files_begin(len(sources), "grouping")  # the progress line's count (each file read whole)
    for source in sources:
        try:
            read.append((describe(source), header_runs(source)))
        except (LogscopeError, OSError) as exc:
            unreadable.append((describe(source), str(exc)))
        file_done()
    if not read:
        why = "; ".join(f"{f}: {w}" for f, w in unreadable) or "no log given"
        raise LogscopeError(f"no log could be read ({why})")
    return Launches(group_launches(read), tuple(unreadable))


def group_launches(
    files: Sequence[tuple[str, Sequence[Run]]], *, why: bool = True
) -> tuple[Launch, ...]:
    """Group the runs of ``files`` ((name, runs) each) into launches, in start order: first
    the nodes of each multi-node launch (:func:`_node_groups`), then prefill and decode
    groups serving one model over one backend in overlapping time (:func:`_pd_join`). Runs
    with no ``server_args`` header join nothing. ``why=False``: the same launches without
    their evidence and notes (for the fleet table, which shows neither: a third of its time
    at 10,000 files)."""
    return group_members([Member(name, run) for name, runs in files for run in runs], why=why)


def group_members(members: list[Member], *, why: bool = True) -> tuple[Launch, ...]:
    """:func:`group_launches` of members made already (in file order; a fleet makes them as
    its files arrive, :meth:`Member.warm`). Sorts ``members`` in place."""
    members.sort(key=lambda m: (m.run.started_at is None, m.run.started_at or datetime.min))
    groups = _node_groups([m for m in members if m.run.server_args is not None])
    groups = _pd_join(groups)
    launches = [_launch(g) if why else Launch(_in_order(g), ()) for g in groups]
    launches += [
        Launch((m,), ("no server_args header: nothing to join it by",) if why else ())
        for m in members
        if m.run.server_args is None
    ]
    launches.sort(key=lambda x: (x.started_at is None, x.started_at or datetime.min))
    return _mark_older(launches) if why else tuple(launches)


def _node_groups(members: Iterable[Member]) -> list[list[Member]]:
    """Members sharing :data:`NODE_KEYS` and :data:`SHAPE_KEYS`, each node rank once, in
    overlapping time; every other member alone. Groups are looked up by those keys' values
    (a member can only join a group whose first member has the same ones), so a fleet of
    many files groups in linear time, with the same result as trying every group in turn."""
    return _gather(members, lambda m: m.node_key, _same_nodes)


def _gather(
    items: Iterable[_T], key: Callable[[_T], Hashable], joins: Callable[[list[_T], _T], bool]
) -> list[list[_T]]:
    """``items`` in groups, in order: each joins the first group under its ``key`` that
    ``joins`` lets it join, else starts one (only groups whose key is its own are tried)."""
    groups: list[list[_T]] = []
    by_key: dict[Hashable, list[list[_T]]] = {}
    for item in items:
        bucket = by_key.setdefault(key(item), [])
        home = next((g for g in bucket if joins(g, item)), None)
        if home is None:
            groups.append([item])
            bucket.append(groups[-1])
        else:
            home.append(item)
    return groups


def _key(args: dict[str, Any], keys: Sequence[str]) -> Hashable:
    """``args``' values of ``keys`` as a dictionary key: equal values, equal keys (values
    that cannot be hashed share one key, where the full comparison still sorts them)."""
    values = tuple(args.get(k) for k in keys)
    try:
        hash(values)
    except TypeError:
        return _UNHASHABLE
    return values


_UNHASHABLE = object()


def _same_nodes(group: list[Member], m: Member) -> bool:
    first = group[0].args
    if not (_multi_node(first) and _multi_node(m.args) and first.get("dist_init_addr")):
        return False
    keys = (*NODE_KEYS, *SHAPE_KEYS, "disaggregation_mode")
    if any(first.get(k) != m.args.get(k) for k in keys):
        return False
    if m.node_rank in {g.node_rank for g in group}:
        return False
    return all(_overlap(g.run, m.run) for g in group)


def _pd_join(groups: list[list[Member]]) -> list[list[Member]]:
    """Prefill and decode groups that serve one model over one transfer backend in
    overlapping time, joined (at least one prefill and one decode: else they stay apart)."""
    pd = [g for g in groups if g[0].mode is not None]
    rest = [g for g in groups if g[0].mode is None]
    joined = _gather(pd, lambda g: _key(g[0].args, PD_KEYS), _same_pd)
    out = list(rest)
    for j in joined:
        modes = {g[0].mode for g in j}
        out.extend([[m for g in j for m in g]] if len(modes) == 2 else j)
    return out


def _same_pd(joined: list[list[Member]], g: list[Member]) -> bool:
    first = joined[0][0].args
    if any(first.get(k) != g[0].args.get(k) for k in PD_KEYS):
        return False
    seats = {_seat(m) for j in joined for m in j if m.node_rank is not None}
    if any(_seat(m) in seats for m in g if m.node_rank is not None):
        return False  # one node of one role's cluster is in a launch once
    return all(_overlap(a.run, b.run) for j in joined for a in j for b in g)


def _seat(m: Member) -> tuple[str | None, str, int | None]:
    """Where a member sits in a launch: its role, its cluster and its node rank."""
    return (m.mode, str(m.args.get("dist_init_addr")), m.node_rank)


def _launch(group: list[Member]) -> Launch:
    """The launch of a group, with the evidence that joined it."""
    members = _in_order(group)
    if len(members) == 1:
        return Launch(members, ("one file's run: no other run shares its evidence",), _gaps(group))
    evidence: list[str] = []
    args = [m.args for m in members]
    for key in (*SHAPE_KEYS, "disaggregation_transfer_backend"):
        values = {repr(a.get(key)) for a in args if key in a}
        if len(values) == 1 and all(key in a for a in args) and args[0].get(key) is not None:
            evidence.append(f"{key}={visible(str(args[0][key]))} on every member")
    for m in members:
        if m.mode == "prefill" and m.node_rank in (None, 0):
            host, port = m.args.get("host"), m.args.get("disaggregation_bootstrap_port")
            evidence.append(f"prefill bootstrap {visible(str(host))}:{visible(str(port))}")
    evidence += _node_evidence(members)
    modes = sorted({m.mode for m in members if m.mode})
    if len(modes) == 2:
        evidence.append("disaggregation_mode prefill and decode")
    start, end = min(_starts(members)), max(_ends(members))
    evidence.append(f"runs overlap in time ({_iso(start)} .. {_iso(end)})")
    return Launch(members, tuple(evidence), _gaps(group))


def _in_order(group: list[Member]) -> tuple[Member, ...]:
    """A launch's members in the order it lists them: by role, node rank, file."""
    return tuple(sorted(group, key=lambda m: (m.mode or "", m.node_rank or 0, m.file)))


def _node_evidence(members: Sequence[Member]) -> list[str]:
    """Per mode (prefill, decode, or none), what its nodes share and their ranks."""
    out = []
    for mode in dict.fromkeys(m.mode for m in members):
        nodes = [m for m in members if m.mode == mode and m.node_rank is not None]
        if not nodes:
            continue
        what = f"{mode}: " if mode else ""
        shared = ", ".join(f"{k}={visible(str(nodes[0].args.get(k)))}" for k in NODE_KEYS)
        ranks = ", ".join(str(m.node_rank) for m in nodes)
        out.append(f"{what}{shared}, node_rank {ranks}")
    return out


def _gaps(group: list[Member]) -> tuple[str, ...]:
    """Nodes a multi-node group names (``nnodes``) but whose log was not given."""
    notes = []
    by_mode: dict[str | None, list[Member]] = {}
    for m in group:
        by_mode.setdefault(m.mode, []).append(m)
    for mode, ms in by_mode.items():
        nnodes = _int(ms[0].args.get("nnodes")) or 1
        have = {m.node_rank for m in ms}
        missing = [r for r in range(nnodes) if nnodes > 1 and r not in have]
        if missing:
            what = f"{mode} " if mode else ""
            notes.append(
                f"{what}node_rank {', '.join(map(str, missing))} of nnodes={nnodes}: no log given"
            )
    return tuple(notes)


def _mark_older(launches: list[Launch]) -> tuple[Launch, ...]:
    """A launch of the same cluster (``dist_init_addr``, or the same PD model) that ended
    before a later one started is an older launch: said, on the older one (naming the first
    such launch in start order). Launches are found by their cluster keys, not pair by pair."""
    keys = [_cluster_keys(launch) for launch in launches]
    by_key: dict[tuple[str, str], list[int]] = {}
    for j, ks in enumerate(keys):
        for k in ks:
            by_key.setdefault(k, []).append(j)
    out = []
    for i, launch in enumerate(launches):
        others = {j for k in keys[i] for j in by_key[k] if j != i}
        later = sorted(j for j in others if _before(launch, launches[j]))
        if later:
            note = (
                f"an older launch of the same cluster as launch {later[0]}: its runs ended "
                f"({_iso(launch.ended_at)}) before that one started"
            )
            launch = Launch(launch.members, launch.evidence, (*launch.notes, note))
        out.append(launch)
    return tuple(out)


def _cluster_keys(launch: Launch) -> set[tuple[str, str]]:
    """What makes two launches one cluster's: a multi-node ``dist_init_addr``, a PD model."""
    out = set()
    for m in launch.members:
        if _multi_node(m.args) and m.args.get("dist_init_addr"):
            out.add(("dist", str(m.args["dist_init_addr"])))
        if m.mode:
            out.add(("pd", str(m.args.get("model_path"))))
    return out


def _before(a: Launch, b: Launch) -> bool:
    return a.ended_at is not None and b.started_at is not None and a.ended_at < b.started_at


def _moment(m: Member) -> Moment:
    failure = m.run.failure
    assert failure is not None  # the callers pick members with a failure
    when = failure.event.timestamp if failure.event is not None else None
    if when is not None and when.year == 1900:  # a time-only header: no date to order by
        when = None
    text = f"{failure.message}\n{failure.event.text if failure.event else ''}"
    consequence = next((name for name, p in CONSEQUENCES.items() if p.search(text)), None)
    return Moment(
        file=m.file,
        role=m.role,
        line=failure.line,
        time=when,
        kind=failure.kind.value,
        message=failure.message,
        consequence_of=consequence,
    )


def _overlap(a: Run, b: Run) -> bool:
    if None in (a.started_at, a.ended_at, b.started_at, b.ended_at):
        return False
    assert a.started_at and a.ended_at and b.started_at and b.ended_at
    return a.started_at <= b.ended_at + JOIN_SLACK and b.started_at <= a.ended_at + JOIN_SLACK


def _starts(members: Iterable[Member]) -> Iterator[datetime]:
    return (m.run.started_at for m in members if m.run.started_at is not None)


def _ends(members: Iterable[Member]) -> Iterator[datetime]:
    return (m.run.ended_at for m in members if m.run.ended_at is not None)


def _multi_node(args: dict[str, Any]) -> bool:
    return (_int(args.get("nnodes")) or 1) > 1


def _int(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat(sep=" ") if value is not None else None
