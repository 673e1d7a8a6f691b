"""Bulk rows as the columns of their events' frame rows, without an ``Event`` each.

``events_frame`` of a long-running server is millions of batch and access rows. The
reference (:func:`~sglang_logscope.log.frames.events_dataframe`) makes each row's
``Event``, types its fields and turns it into a dict; this module is the *output loop* that
makes the same values column by column from the block's columns (:class:`~.bulk.Rows`): the
header parts once per distinct value, and the fields a shape at a time, the shapes, their
value numbers, their field layouts and the rule that checks each on its first row coming
from :mod:`.shapes`.

Exactness: a shape's layout is checked on its first row against the reference (that row's
``Event`` through the caller's ``reference_row``: keys, order, types and values); a shape
that differs, one with a value :mod:`..limits` may reject, a mutable or non-scalar value,
a spec that sets arguments, or a wrapped log's receive times send rows to the reference
(:attr:`BulkColumns.slow` counts them).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import field
from functools import partial
from itertools import repeat
from typing import Any

import numpy as np

from .._record import record
from ..events import Event, EventKind
from .blanks import Blanks
from .bulk import Rows, _Alt, _distinct, _rank, _texts, row_times
from .catalog import _CONVERTERS, MessageSpec
from .levels import LEVEL_HINT
from .shapes import (
    Layout,
    NumberValues,
    ShapeCache,
    ShapeReader,
    field_layout,
    pick,
    spec_columns,
    spec_rows,
)

#: The field types whose converted value is always a scalar (int, float or the text).
_SCALAR_KINDS = frozenset({"int", "float", "gib", "mib", "str"})
_SCALAR = (int, float, str, bool)


@record(frozen=False)
class Segment:
    """Consecutive frame rows as columns: each list ``n`` long, ``missing`` where a row
    lacks the column; ``columns`` in the order the reference's rows first show them, and
    ``types`` the Python types of each field column's values."""

    n: int
    columns: dict[str, list[Any]] = field(default_factory=dict)
    types: dict[str, set[type]] = field(default_factory=dict)
    #: the zones its rows' printed times show (:func:`..log.frames.event_zone`), by the caller
    zones: set[str | None] = field(default_factory=set)


class BulkColumns:
    """Per-shape layouts, kept across the blocks of one frame (and its counters)."""

    def __init__(
        self,
        reference_row: Callable[[Event], dict[str, Any]],
        runs_of: Callable[[list[int]], list[int | None]],
        kinds: frozenset[EventKind] | None,
        *,
        messages: bool,
        missing: Any,
    ) -> None:
        self.reference_row = reference_row
        self.runs_of = runs_of  # the run of each of consecutive lines
        self.kinds = kinds
        self.messages = messages
        self.missing = missing
        self.base = ["line", "run", "timestamp", "kind", "level", "rank", "tp", "dp"]
        self.base += ["message"] * messages
        self.reader = ShapeReader()
        #: by shape: its layout as frame columns (``None``: the reference way)
        self.layouts: ShapeCache[Layout] = ShapeCache()
        self.numbers = NumberValues()
        self.fast = 0  # rows made from their columns
        self.slow = 0  # rows made through their Event

    @property
    def by_shape(self) -> int:
        """Rows whose numbers came from a known shape's own pattern (not the general split)."""
        return self.reader.by_pattern

    def segment(self, rows: Rows) -> Segment:
        """The frame rows of ``rows`` (of the kinds asked for), in order."""
        if rows.received is not None:  # a wrapped log: receive times (the reference)
            events = [e for e in rows.events() if self.kinds is None or e.kind in self.kinds]
            self.slow += len(events)
            return self.from_events(events)
        cols, picked = spec_rows(rows, self.kinds)
        a, b = rows.start, rows.stop
        order = sorted(r for _, at in picked for r in at)
        position = None if len(order) == b - a else {r: p for p, r in enumerate(order)}
        out = Segment(len(order))
        places = [at if position is None else [position[r] for r in at] for _, at in picked]
        base = self._base(rows, cols, order, picked, places)
        firsts: list[tuple[int, list[str]]] = [(-1, list(base))] if order else []
        fields: list[tuple[list[int], dict[str, list[Any]]]] = []
        slow: list[int] = []
        for (alt, at), where in zip(picked, places, strict=True):
            done = self._alt_fields(rows, cols, alt, at, firsts, slow)
            fields.extend(
                (where if len(rs) == len(at) else [where[k] for k in rs], f) for rs, f in done
            )
        if slow:
            events = rows.events()
            for r in slow:
                p = r if position is None else position[r]
                row = self.reference_row(events[r])
                firsts.append((r, list(row)))
                extra = {k: [v] for k, v in row.items() if k not in base}
                fields.append(([p], extra))
                for k in base:  # the reference's own base values for this row
                    base[k][p] = row.get(k, self.missing)
        self.slow += len(slow)
        self.fast += len(order) - len(slow)
        self._assemble(out, base, fields, firsts)
        return out

    def _assemble(
        self,
        out: Segment,
        base: dict[str, list[Any]],
        fields: list[tuple[list[int], dict[str, list[Any]]]],
        firsts: list[tuple[int, list[str]]],
    ) -> None:
        """The segment's columns: in first-seen order, each filled at its rows' places."""
        names: dict[str, None] = {}
        for _, keys in sorted(firsts, key=lambda x: x[0]):
            names.update(dict.fromkeys(keys))
        parts: dict[str, list[tuple[list[int], list[Any]]]] = {}
        for where, columns in fields:
            for name, values in columns.items():
                parts.setdefault(name, []).append((where, values))
                out.types.setdefault(name, set()).update(map(type, values))
        filled: dict[str, list[Any]] = dict(base)
        for name, placed in parts.items():
            filled[name] = _placed(placed, out.n, self.missing)
        out.columns = {name: filled[name] for name in names}

    def _base(
        self,
        rows: Rows,
        cols: Any,
        order: list[int],
        picked: list[tuple[_Alt, list[int]]],
        places: list[list[int]],
    ) -> dict[str, list[Any]]:
        """The columns every row has: line, run, time, kind, level, rank and message (the
        rows ``order``; each spec's rows ``picked`` are at ``places`` among them)."""
        a = rows.start
        c = rows.shape.full.index
        lines = list(map(rows.first_line.__add__, order))
        whole = len(order) == rows.stop - a  # every row of the block: slices

        def take(column: list[Any]) -> list[Any]:
            return column[a : rows.stop] if whole else pick(column[a : rows.stop], order)

        ranks = take(cols[c["ranks"]])
        parts = {raw: _rank_parts(raw) for raw in set(ranks)}
        level = _distinct(list(map(_either, take(cols[c["level"]]), take(cols[c["ulevel"]]))))
        kind: list[Any] = [None] * len(order)
        hint: list[Any] = [None] * len(order)
        for (alt, _), where in zip(picked, places, strict=True):
            _put(kind, where, alt.spec.kind.value)
            _put(hint, where, LEVEL_HINT.get(alt.spec.kind))
        out: dict[str, list[Any]] = {
            "line": lines,
            "run": self.runs_of(lines),
            "timestamp": row_times(take(cols[c["ts"]])),
            "kind": kind,
            "level": list(map(_or, level, hint)) if any(level) else hint,
        }
        for i, name in enumerate(("rank", "tp", "dp")):
            out[name] = list(map({raw: p[i] for raw, p in parts.items()}.__getitem__, ranks))
        if self.messages:
            body: list[Any] = [None] * len(order)
            for (alt, at), where in zip(picked, places, strict=True):
                _put(body, where, pick(cols[alt.body][a : rows.stop], at))
            rest = _texts(take(cols[c["rest"]]))
            out["message"] = list(map(str.__add__, _texts(body), rest))
        return out

    def _alt_fields(
        self,
        rows: Rows,
        cols: Any,
        alt: _Alt,
        at: list[int],
        firsts: list[tuple[int, list[str]]],
        slow: list[int],
    ) -> list[tuple[list[int], dict[str, list[Any]]]]:
        """One spec's rows' field columns, a shape at a time: (the rows, as indexes into
        ``at``; the columns); rows whose shape goes the reference way are added to ``slow``."""
        named, _, _, pairs = spec_columns(rows, cols, alt, at)
        out: list[tuple[list[int], dict[str, list[Any]]]] = []
        for shaped in self.reader.shapes(alt, len(at), named, pairs):
            ks = shaped.ks
            present = shaped.key[1]
            columns = dict(named)
            groups = [pick(columns[name], ks) for name in present]
            layout = self.reader.plan(
                self.layouts,
                alt,
                shaped,
                partial(self._layout, alt, present, shaped.pairs),
                partial(self._checked, rows, alt, at[ks[0]], groups, shaped.numbers),
            )
            if layout is None:
                slow.extend(pick(at, ks))
                continue
            fields = self._columns(layout, alt.spec, groups, shaped.numbers, len(ks))
            out.append((ks, fields))
            firsts.append((at[ks[0]], list(fields)))
        return out

    def _columns(
        self,
        layout: Layout,
        spec: MessageSpec,
        groups: list[list[Any]],
        numbers: list[list[str]],
        n: int,
    ) -> dict[str, list[Any]]:
        """The field columns of one shape's ``n`` rows: a present group converted by its
        type (``g``), a value number (``n``), or a constant."""
        columns: dict[str, list[Any]] = {}
        for name, how, arg in layout:
            if how == "g":
                convert = _CONVERTERS[spec.fields.get(name, "str")]
                columns[name] = _distinct_values(groups[arg], convert)
            elif how == "n":
                columns[name] = self.numbers.column(numbers[arg])
            else:
                columns[name] = [arg] * n
        return columns

    def _layout(self, alt: _Alt, present: tuple[str, ...], pairs: str | None) -> Layout | None:
        """A shape's :func:`.shapes.field_layout` as frame columns: ``None`` (the reference
        way) for a group of a non-scalar type; the base columns' names and non-scalar
        constants left out (the reference's row has them apart)."""
        spec = alt.spec
        if any(spec.fields.get(name, "str") not in _SCALAR_KINDS for name in present):
            return None
        layout = field_layout(alt, present, pairs)
        if layout is None:
            return None
        return tuple(
            (name, how, arg)
            for name, how, arg in layout
            if name not in self.base and (how != "c" or isinstance(arg, _SCALAR))
        )

    def _checked(
        self,
        rows: Rows,
        alt: _Alt,
        r: int,
        groups: list[list[Any]],
        numbers: list[list[str]],
        layout: Layout,
    ) -> bool:
        """Whether ``layout`` makes row ``r``'s fields (the first of the shape's ``groups``
        and ``numbers``) exactly as the reference does: keys, order, types and values."""
        reference = self.reference_row(rows.slice(r, r + 1).events()[0])
        first = self._columns(
            layout, alt.spec, [g[:1] for g in groups], [n[:1] for n in numbers], 1
        )
        fast = {name: column[0] for name, column in first.items()}
        fields = {key: v for key, v in reference.items() if key not in self.base}
        return [(key, type(v), v) for key, v in fields.items()] == [
            (key, type(v), v) for key, v in fast.items()
        ]

    def from_blanks(self, run: Blanks, lo: int, hi: int) -> Segment | None:
        """The reference's rows of lines ``lo`` .. ``hi`` of a run of blank lines: each
        distinct line's row made from its event once, the others copied (line and run
        apart); ``None`` where a row has more than the header columns or the kinds asked
        for take only some of the lines (then the reference makes them)."""
        raws = run.raws(lo, hi)
        rows: dict[bytes, dict[str, Any]] = {}
        for raw in dict.fromkeys(raws):
            t = run.templates[raw]
            if self.kinds is not None and t.kind not in self.kinds:
                return None
            row = self.reference_row(
                next(run.events(lo + raws.index(raw), lo + raws.index(raw) + 1))
            )
            if not set(row) <= set(self.base) or "received_at" in row:
                return None
            rows[raw] = row
        lines = list(range(run.first_line + lo, run.first_line + hi))
        names = list(next(iter(rows.values())))
        columns: dict[str, list[Any]] = {}
        for name in names:
            if name == "line":
                columns[name] = lines
            elif name == "run":
                columns[name] = self.runs_of(lines)
            elif len(rows) == 1:
                columns[name] = [next(iter(rows.values()))[name]] * len(lines)
            else:
                by_raw = {raw: row[name] for raw, row in rows.items()}
                columns[name] = list(map(by_raw.__getitem__, raws))
        return Segment(len(lines), columns)

    def from_events(self, events: list[Event]) -> Segment:
        """The reference's rows of ``events`` as a segment."""
        out = Segment(len(events))
        fields: list[tuple[list[int], dict[str, list[Any]]]] = []
        firsts: list[tuple[int, list[str]]] = []
        base: dict[str, list[Any]] = {k: [self.missing] * len(events) for k in self.base}
        for p, event in enumerate(events):
            row = self.reference_row(event)
            firsts.append((p, list(row)))
            for k in self.base:
                base[k][p] = row.get(k, self.missing)
            fields.append(([p], {k: [v] for k, v in row.items() if k not in self.base}))
        self._assemble(out, base, fields, firsts)
        return out


def _either(level: bytes | None, ulevel: bytes | None) -> bytes | None:
    return level or ulevel


def _or(value: Any, other: Any) -> Any:
    return value or other


_NO_RANK = (None, None, None)


def _rank_parts(raw: bytes | None) -> tuple[str | None, int | None, int | None]:
    """A rank's label, tp and dp (``None`` each without a rank)."""
    rank = _rank(raw.decode("ascii")) if raw is not None else None
    return (rank.label, rank.tp, rank.dp) if rank else _NO_RANK


#: Rows of one part placed by numpy (fewer: one step each).
_MANY = 64


def _placed(parts: list[tuple[list[int], list[Any]]], n: int, missing: Any) -> list[Any]:
    """A column of ``n`` rows: each part's values at its rows (parts are disjoint),
    ``missing`` elsewhere; large parts placed by numpy (an object array: the values stay
    the same objects), the others one row at a time."""
    if len(parts) == 1 and len(parts[0][0]) == n:
        return list(parts[0][1])
    many = [(where, values) for where, values in parts if len(where) >= _MANY]
    if many:
        column_array = np.empty(n, dtype=object)
        column_array.fill(missing)  # (numpy 1.24's np.full stores a copy of a float: not `is`)
        for where, values in many:
            column_array[np.asarray(where)] = np.fromiter(values, dtype=object, count=len(values))
        column: list[Any] = column_array.tolist()
    else:
        column = [missing] * n
    for where, values in parts:
        if len(where) < _MANY:
            deque(map(column.__setitem__, where, values), maxlen=0)
    return column


def _put(column: list[Any], where: list[int], values: Any) -> None:
    """``column[where[k]] = values[k]`` (one value for all when ``values`` is not a list),
    without a Python step per row."""
    if len(where) == len(column):
        column[:] = values if isinstance(values, list) else [values] * len(where)
        return
    items = values if isinstance(values, list) else repeat(values)
    deque(map(column.__setitem__, where, items), maxlen=0)


def _decode(raw: Any) -> Any:
    return raw.decode("ascii") if isinstance(raw, bytes) else raw


def _distinct_values(column: list[Any], convert: Callable[[str], Any]) -> list[Any]:
    """Each distinct raw value (bytes, or the rest's text) decoded and converted once."""
    seen = {raw: convert(_decode(raw)) for raw in set(column)}
    return list(map(seen.__getitem__, column))
