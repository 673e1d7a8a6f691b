"""pandas views of events. Imported lazily: the CLI never pays for pandas unless asked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

import pandas as pd

from ..events import Event, EventKind

_NUMERIC = (int, float)
#: The nullable dtype of a field column whose values are all of these types.
_NULLABLE: dict[frozenset[type], Any] = {
    frozenset({int}): pd.Int64Dtype(),
    frozenset({bool}): pd.BooleanDtype(),
}


def events_dataframe(
    events: Iterable[Event], run_of: Mapping[int, int] | None = None, *, messages: bool = True
) -> pd.DataFrame:
    """One row per event: line, run, timestamp, rank parts, kind, level, message, and each
    scalar field as its own column (numeric where the values are numbers). ``kind``, ``level``
    and ``rank`` are categoricals, so millions of batch rows stay small; ``messages=False``
    leaves out the message text, the one object column (two thirds of a batch row's bytes).
    """
    rows: list[dict[str, Any]] = []
    types: dict[str, set[type]] = {}  # the Python types of each field's values
    received = False
    for e in events:
        row: dict[str, Any] = {
            "line": e.line,
            "run": (run_of or {}).get(e.line),
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
            received = True
        for key, value in e.fields.items():
            if isinstance(value, (*_NUMERIC, str, bool)) and key not in row:
                row[key] = value
                types.setdefault(key, set()).add(type(value))
        rows.append(row)
    frame = pd.DataFrame(rows)
    if frame.empty:
        columns = ["line", "run", "timestamp", "kind", "level", "rank"] + ["message"] * messages
        return cast(pd.DataFrame, pd.DataFrame(columns=columns))
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
            frame[key] = pd.array([row.get(key) for row in rows], dtype=dtype)
    for col in frame.columns:
        if frame[col].dtype == object and col != "message":
            converted = pd.to_numeric(frame[col], errors="coerce")
            if converted.notna().sum() == frame[col].notna().sum():
                frame[col] = converted
    return cast(pd.DataFrame, frame)
