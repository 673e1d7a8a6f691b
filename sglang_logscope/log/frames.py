"""pandas views of events. Imported lazily: the CLI never pays for pandas unless asked."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from datetime import datetime, timezone, tzinfo
from typing import Any, cast

import pandas as pd

from .._text import printed_zone, zone_name
from ..events import Event, EventKind
from ..timing import parse_tz

_NUMERIC = (int, float)
#: The nullable dtype of a field column whose values are all of these types.
_NULLABLE: dict[frozenset[type], Any] = {
    frozenset({int}): pd.Int64Dtype(),
    frozenset({bool}): pd.BooleanDtype(),
}


def events_dataframe(
    events: Iterable[Event],
    run_of: Mapping[int, int] | None = None,
    *,
    messages: bool = True,
    tz: tzinfo | str | None = None,
    localize: bool = True,
) -> pd.DataFrame:
    """One row per event: line, run, timestamp, rank parts, kind, level, message, and each
    scalar field as its own column (numeric where the values are numbers). ``kind``, ``level``
    and ``rank`` are categoricals, so millions of batch rows stay small; ``messages=False``
    leaves out the message text, the one object column (two thirds of a batch row's bytes).
    ``timestamp`` is zone-aware where the zone is known (see :func:`with_zone`; ``tz``: the
    log's, as ``--log-tz`` takes it), naive otherwise. ``localize=False``: left naive, the
    zones seen kept in ``attrs`` for :func:`with_zone` (a frame built in chunks).
    """
    rows: list[dict[str, Any]] = []
    types: dict[str, set[type]] = {}  # the Python types of each field's values
    received = False
    zones: set[str | None] = set()  # the zone each printed time's receive time shows
    header = len(_HEADER) + messages
    for e in events:
        if e.timestamp is not None:  # (a plain log's events: no receive time, no zone)
            zones.add(event_zone(e))
        row = event_row(e, run_of or {}, messages)
        if e.received_at is not None:
            received = True
        for key in list(row)[header + (e.received_at is not None) :]:
            types.setdefault(key, set()).add(type(row[key]))
        rows.append(row)
    frame = pd.DataFrame(rows)
    frame = typed_frame(frame, types, received, messages, lambda key: [r.get(key) for r in rows])
    if not rows:
        return frame
    if not localize:
        frame.attrs["printed_zones"] = zones
        return frame
    return with_zone(frame, tz, zones)


def event_zone(event: Event) -> str | None:
    """The zone an event's printed time shows against its receive time (``None``: none)."""
    received_at = event.received_at
    if received_at is None or event.timestamp is None:
        return None
    return zone_name(printed_zone(event.timestamp, received_at))


def event_row(event: Event, run_of: Mapping[int, int], messages: bool) -> dict[str, Any]:
    """One event's frame row: its header columns, then each scalar field not named like one."""
    e = event
    row: dict[str, Any] = {
        "line": e.line,
        "run": run_of.get(e.line),
        "timestamp": e.timestamp,
        "kind": e.kind.value,
        "level": e.level,
        "rank": e.rank.label if e.rank else None,
        "tp": e.rank.tp if e.rank else None,
        "dp": e.rank.dp if e.rank else None,
    }
    if messages:
        row["message"] = e.message
    if e.received_at is not None:
        row["received_at"] = e.received_at
    for key, value in e.fields.items():
        if isinstance(value, (*_NUMERIC, str, bool)) and key not in row:
            row[key] = value
    return row


#: The columns every row has, before the message.
_HEADER = ("line", "run", "timestamp", "kind", "level", "rank", "tp", "dp")


def typed_frame(
    frame: Any,  # a pandas.DataFrame, typed column by column below
    types: Mapping[str, set[type]],
    received: bool,
    messages: bool,
    values_of: Callable[[str], list[Any]],
) -> pd.DataFrame:
    """:func:`events_dataframe`'s typing of its rows' frame: categoricals, nullable ints,
    times; ``types`` are the Python types of each field's values and ``values_of`` a
    field's values, row by row (missing where a row lacks it). No zone yet."""
    if frame.empty:
        columns = ["line", "run", "timestamp", "kind", "level", "rank"] + ["message"] * messages
        frame = pd.DataFrame(columns=columns)
        frame.attrs["time_zone"] = None
        return cast(pd.DataFrame, frame)
    kinds = [k.value for k in EventKind]
    frame["kind"] = pd.Categorical(frame["kind"], categories=kinds)
    for col in ("level", "rank"):
        frame[col] = frame[col].astype("category")
    for col in ("run", "tp", "dp"):
        frame[col] = pd.array(frame[col], dtype="Int32")
    frame["timestamp"] = pd.to_datetime(frame["timestamp"])
    if received:  # a wrapped log: the outer times, zone-aware (UTC)
        frame["received_at"] = pd.to_datetime(frame["received_at"], utc=True)
    for key, seen in types.items():  # ints and bools with gaps: nullable, not float/object
        dtype = _NULLABLE.get(frozenset(seen))
        if dtype is not None and key in frame.columns:
            frame[key] = pd.array(values_of(key), dtype=dtype)
    for col in frame.columns:
        if frame[col].dtype == object and col != "message":
            converted = pd.to_numeric(frame[col], errors="coerce")
            if converted.notna().sum() == frame[col].notna().sum():
                frame[col] = converted
    return cast(pd.DataFrame, frame)


def with_zone(
    frame: pd.DataFrame, tz: tzinfo | str | None, zones: Collection[str | None]
) -> pd.DataFrame:
    """The ``timestamp`` column made zone-aware where the zone is known: ``tz`` when given,
    else the one offset every printed time's receive time shows (a wrapped log, ``zones``);
    naive when neither says (a plain log; or offsets that differ, a DST change). The zone is
    ``frame.attrs["time_zone"]`` (``None``: unknown). With ``tz``, a wall-clock time a DST
    change repeats or skips names no single moment and becomes NaT."""
    name = tz if isinstance(tz, str) else zone_name(tz)
    if isinstance(tz, str):
        zone = timezone.utc if tz.upper() in ("UTC", "Z") else parse_tz(tz)
    else:
        zone = tz
    if zone is None and len(zones) == 1 and None not in zones:
        name = next(iter(zones))  # an offset (``+02:00``), as :func:`zone_name` wrote it
        zone = datetime.fromisoformat(f"2000-01-01T00:00{name}").tzinfo
    frame.attrs.pop("printed_zones", None)
    frame.attrs["time_zone"] = name if zone is not None else None
    if zone is not None and "timestamp" in frame.columns and len(frame):
        stamps = pd.to_datetime(frame["timestamp"])
        frame["timestamp"] = stamps.dt.tz_localize(zone, ambiguous="NaT", nonexistent="NaT")
    return frame
