"""Bulk rows as the columns of their events' frame rows, without an ``Event`` each.

``events_frame`` of a long-running server is millions of batch and access rows. The
reference (:func:`~sglang_logscope.log.frames.events_dataframe`) makes each row's
``Event``, types its fields and turns it into a dict; this module makes the same values
column by column from the block's columns (:class:`~.bulk.Rows`): the header parts once
per distinct value, and the fields by *shape* (a spec, the groups present, and for
``label: value`` lines the text without its value numbers: the key
:func:`.catalog.read_pairs` uses), each laid out once from :func:`.catalog._template`.

Exactness: a shape's layout is checked on its first row against the reference (that row's
``Event`` through the caller's ``reference_row``: keys, order, types and values); a shape
that differs, one with a value :mod:`..limits` may reject, a mutable or non-scalar value,
a spec that sets arguments, or a wrapped log's receive times send rows to the reference
(:attr:`BulkColumns.slow` counts them).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from operator import is_not
from typing import Any

from ..events import Event, EventKind
from ..limits import rules as limit_rules
from .blanks import Blanks
from .bulk import Rows, _Alt, _distinct, _rank, _texts, parse_times
from .catalog import _CONVERTERS, _VALUE_NUMBER, MessageSpec, _template
from .levels import LEVEL_HINT

#: The field types whose converted value is always a scalar (int, float or the text).
_SCALAR_KINDS = frozenset({"int", "float", "gib", "mib", "str"})
_SCALAR = (int, float, str, bool)
#: How a shape's fields are filled: per field, its name and a group's column number
#: (``("g", i)``), a value number's slot (``("n", j)``) or a constant (``("c", value)``).
_Layout = tuple[tuple[str, str, Any], ...]


@dataclass
class Segment:
    """Consecutive frame rows as columns: each list ``n`` long, ``missing`` where a row
    lacks the column; ``columns`` in the order the reference's rows first show them, and
    ``types`` the Python types of each field column's values."""

    n: int
    columns: dict[str, list[Any]] = field(default_factory=dict)
    types: dict[str, set[type]] = field(default_factory=dict)
    #: the zones its rows' printed times show (:func:`..log.frames.event_zone`), by the caller
    zones: set[str | None] = field(default_factory=set)


class _Numbers(dict[str, Any]):
    """A value number's value by its text, as :func:`.catalog.read_pairs` types it."""

    def __missing__(self, text: str) -> Any:
        value = float(text) if "." in text else int(text)
        if len(self) < 65536:
            self[text] = value
        return value


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
        self.layouts: dict[tuple[Any, ...], _Layout | None] = {}
        #: by spec (its alternative's number): row patterns of its checked pairs shapes
        #: without groups, the one that took a whole block last first (:func:`_by_shape`)
        self.shapes: dict[int, list[tuple[re.Pattern[str], str, int]]] = {}
        self.numbers = _Numbers()
        self.fast = 0  # rows made from their columns
        self.by_shape = 0  # of them, rows whose numbers came from a known shape's split
        self.slow = 0  # rows made through their Event

    def segment(self, rows: Rows) -> Segment:
        """The frame rows of ``rows`` (of the kinds asked for), in order."""
        if rows.received is not None:  # a wrapped log: receive times (the reference)
            events = [e for e in rows.events() if self.kinds is None or e.kind in self.kinds]
            self.slow += len(events)
            return self.from_events(events)
        shape = rows.shape
        full = shape.full
        cols = rows.cols if rows.layout is full else shape.full_columns(rows.piece)
        a, b = rows.start, rows.stop
        picked: list[tuple[_Alt, list[int]]] = []
        for alt in shape.alts:
            if self.kinds is not None and alt.spec.kind not in self.kinds:
                continue
            column = cols[full.witness[alt.number]][a:b]
            at = list(compress(range(b - a), map(is_not, column, repeat(None))))
            if at:
                picked.append((alt, at))
        order = sorted(r for _, at in picked for r in at)
        position = None if len(order) == b - a else {r: p for p, r in enumerate(order)}
        out = Segment(len(order))
        which: dict[int, _Alt] = {r: alt for alt, at in picked for r in at}
        base = self._base(rows, cols, order, [which[r] for r in order])
        firsts: list[tuple[int, list[str]]] = [(-1, list(base))] if order else []
        fields: list[tuple[list[int], dict[str, list[Any]]]] = []
        slow: list[int] = []
        for alt, at in picked:
            done = self._alt_fields(rows, cols, alt, at, firsts, slow)
            where = at if position is None else [position[r] for r in at]
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
        filled: dict[str, list[Any]] = dict(base)
        for where, columns in fields:
            for name, values in columns.items():
                column = filled.get(name)
                if column is None:
                    column = filled[name] = [self.missing] * out.n
                    out.types[name] = set()
                if len(where) == out.n:
                    column[:] = values
                else:
                    for p, v in zip(where, values, strict=True):
                        column[p] = v
                out.types[name].update(map(type, values))
        out.columns = {name: filled[name] for name in names}

    def _base(
        self, rows: Rows, cols: Any, order: list[int], which: list[_Alt]
    ) -> dict[str, list[Any]]:
        """The columns every row has: line, run, time, kind, level, rank and message."""
        a = rows.start
        c = rows.shape.full.index
        lines = [rows.first_line + r for r in order]
        whole = len(order) == rows.stop - a  # every row of the block: slices

        def take(column: list[Any]) -> list[Any]:
            return column[a : rows.stop] if whole else [column[a + r] for r in order]

        times = take(cols[c["ts"]])
        stamps = parse_times(times)
        ranks = _distinct(take(cols[c["ranks"]]), _rank)
        level = _distinct(list(map(_either, take(cols[c["level"]]), take(cols[c["ulevel"]]))))
        out: dict[str, list[Any]] = {
            "line": lines,
            "run": self.runs_of(lines),
            "timestamp": list(map(stamps.__getitem__, times)),
            "kind": [alt.spec.kind.value for alt in which],
            "level": [
                v or LEVEL_HINT.get(alt.spec.kind) for v, alt in zip(level, which, strict=True)
            ],
            "rank": [x.label if x else None for x in ranks],
            "tp": [x.tp if x else None for x in ranks],
            "dp": [x.dp if x else None for x in ranks],
        }
        if self.messages:
            body = _texts([cols[alt.body][a + r] for alt, r in zip(which, order, strict=True)])
            rest = _texts(take(cols[c["rest"]]))
            out["message"] = list(map(str.__add__, body, rest))
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
        """One spec's rows' field columns, by shape: (the rows, as indexes into ``at``; the
        columns); rows whose shape goes the reference way are added to ``slow``."""
        spec = alt.spec
        a = rows.start
        whole = len(at) == rows.stop - a  # every row of the block: slices

        def take(column: list[Any]) -> list[Any]:
            return column[a : rows.stop] if whole else [column[a + r] for r in at]

        groups = [(name, take(cols[i])) for name, i in alt.groups]
        rest = _texts(take(cols[rows.shape.full.index["rest"]]))
        if alt.rest_field is not None:
            groups.append((alt.rest_field, rest))
        pairs_text: list[str] = [""] * len(at)
        if spec.pairs is not None:  # the text ``spec.convert`` reads its pairs from
            for name, column in groups:
                if name == "_pairs":
                    pairs_text = column if column is rest else [_decode(x) or "" for x in column]
        named = [(n, c) for n, c in groups if not n.startswith("_")]
        shapes, keys, numbers, number_columns = self._split(alt, named, pairs_text)
        uniform = len(shapes) == 1
        offsets = (
            [] if uniform else list(accumulate(map(str.count, keys, repeat("\x00")), initial=0))
        )
        out: list[tuple[list[int], dict[str, list[Any]]]] = []
        for (present, key), ks in shapes.items():
            shape_key = (alt.number, present, key)
            width = key.count("\x00")
            if shape_key not in self.layouts:
                layout = self._layout(alt, present, named, pairs_text[ks[0]])
                first = 0 if uniform else offsets[ks[0]]
                self.layouts[shape_key] = self._checked(
                    rows, alt, at[ks[0]], layout, named, numbers[first : first + width], ks[0]
                )
                if self.layouts[shape_key] is not None and width and not any(present):
                    self._add_shape(alt.number, key, width)
            layout = self.layouts[shape_key]
            if layout is None:
                slow.extend(at[k] for k in ks)
                continue
            texts_of = _texts_of(number_columns, numbers, offsets, width, ks)
            columns = self._columns(layout, spec, named, texts_of, ks)
            out.append((ks, columns))
            firsts.append((at[ks[0]], list(columns)))
        return out

    def _columns(
        self,
        layout: Any,
        spec: MessageSpec,
        named: list[tuple[str, list[Any]]],
        texts_of: Any,
        ks: list[int],
    ) -> dict[str, list[Any]]:
        """The field columns of one shape's rows ``ks``: a captured group converted by its
        type (``g``), a number read from the pairs text (``n``), or a constant."""
        columns: dict[str, list[Any]] = {}
        for name, how, arg in layout:
            if how == "g":
                convert = _CONVERTERS[spec.fields.get(name, "str")]
                columns[name] = _distinct_values([named[arg][1][k] for k in ks], convert)
            elif how == "n":
                columns[name] = self._values(texts_of(arg))
            else:
                columns[name] = [arg] * len(ks)
        return columns

    def _split(
        self, alt: _Alt, named: list[tuple[str, list[Any]]], pairs_text: list[str]
    ) -> tuple[dict[tuple[Any, ...], list[int]], list[str], list[str], list[list[str]] | None]:
        """The rows' shapes (groups present and pairs key: the rows), their keys and all
        their value numbers in order (the general split); or, when every row is of one known
        shape without groups, that shape and its numbers a column per number."""
        known = self.shapes.get(alt.number)
        if known and alt.spec.pairs is not None and all(c.count(None) == len(c) for _, c in named):
            by_shape = _by_shape(known, pairs_text)
            if by_shape is not None:
                key, number_columns = by_shape
                self.by_shape += len(pairs_text)
                every = list(range(len(pairs_text)))
                return {(tuple(False for _ in named), key): every}, [key], [], number_columns
        keys, numbers = _split_pairs(pairs_text)
        return _shapes(keys, named), keys, numbers, None

    def _values(self, texts: list[str]) -> list[Any]:
        """Value numbers' values (:class:`_Numbers`): a column of all ints or all floats by
        ``int`` / ``float`` at C speed (a number's text holds at most one point), else one
        look-up each."""
        points = "".join(texts).count(".")
        if points == 0:
            return list(map(int, texts))
        if points == len(texts):
            return list(map(float, texts))
        return list(map(self.numbers.__getitem__, texts))

    def _add_shape(self, number: int, key: str, width: int) -> None:
        """A pattern that takes a whole row of the pairs shape ``key`` (the text without its
        value numbers, NUL where each was with its ``: ``), its numbers as groups: the same
        number pattern as :func:`_split_pairs`, in the same places."""
        pieces = key.split("\x00")
        pattern = "\n" + re.escape(pieces[0])
        pattern += "".join(f": {_NUMBER_GROUP}" + re.escape(p) for p in pieces[1:])
        known = self.shapes.setdefault(number, [])
        if len(known) < 8:
            known.append((re.compile(pattern + r"(?=\n|\Z)"), key, width))

    def _layout(
        self,
        alt: _Alt,
        present: tuple[bool, ...],
        named: list[tuple[str, list[Any]]],
        pairs_text: str,
    ) -> _Layout | None:
        """How a shape's fields are filled (``None``: the reference way), in the order the
        reference's row has them: the groups, then the pairs (one of a group's name takes
        its place, as ``dict.update`` does); non-scalar values and base names left out."""
        spec = alt.spec
        if spec.sets:
            return None
        slots: dict[str, tuple[str, Any]] = {}
        for g, ((name, _), there) in enumerate(zip(named, present, strict=True)):
            if there:
                if spec.fields.get(name, "str") not in _SCALAR_KINDS:
                    return None
                slots[name] = ("g", g)
        if spec.pairs is not None and pairs_text:
            if len(_VALUE_NUMBER.split(pairs_text)) == 1:
                return None
            shape = _template(pairs_text, spec.pairs)
            if shape is False:
                return None
            for name, slot, value in shape:
                slots[name] = ("n", slot) if slot >= 0 else ("c", value)
        rules = limit_rules()
        if any(name in rules for name in slots):
            return None
        return tuple(
            (name, how, arg)
            for name, (how, arg) in slots.items()
            if name not in self.base and (how != "c" or isinstance(arg, _SCALAR))
        )

    def _checked(
        self,
        rows: Rows,
        alt: _Alt,
        r: int,
        layout: _Layout | None,
        named: list[tuple[str, list[Any]]],
        numbers: list[str],
        k: int,
    ) -> _Layout | None:
        """``layout`` when it makes row ``r``'s fields exactly as the reference does."""
        if layout is None:
            return None
        event = rows.slice(r, r + 1).events()[0]
        reference = self.reference_row(event)
        spec = alt.spec
        fast: dict[str, Any] = {}
        for name, how, arg in layout:
            if how == "g":
                fast[name] = _CONVERTERS[spec.fields.get(name, "str")](_decode(named[arg][1][k]))
            elif how == "n":
                fast[name] = self.numbers[numbers[arg]]
            else:
                fast[name] = arg
        fields = {key: v for key, v in reference.items() if key not in self.base}
        same = [(key, type(v), v) for key, v in fields.items()] == [
            (key, type(v), v) for key, v in fast.items()
        ]
        return layout if same else None

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


def _decode(raw: Any) -> Any:
    return raw.decode("ascii") if isinstance(raw, bytes) else raw


def _distinct_values(column: list[Any], convert: Callable[[str], Any]) -> list[Any]:
    """Each distinct raw value (bytes, or the rest's text) decoded and converted once."""
    seen = {raw: convert(_decode(raw)) for raw in set(column)}
    return list(map(seen.__getitem__, column))


#: :data:`.catalog._VALUE_NUMBER` over rows' pairs texts joined by newlines: a row's end is
#: a text's end (rows are single lines; ``\\s`` without the newline, which no row holds), and
#: its ``: `` taken rather than looked behind (the engine then searches for that literal; the
#: keys lose a ``: `` before each number, one to one).
_VALUE_NUMBER_LINES = re.compile(
    _VALUE_NUMBER.pattern.replace("(?<=: )", ": ", 1)
    .replace(r"\s?", r"[\t\x0b\x0c\r\x1c-\x1f ]?")
    .replace(r"\Z", r"\n|\Z")
)


#: A value number as :data:`_VALUE_NUMBER_LINES` takes it (the shape's text after it says
#: what may follow).
_NUMBER_GROUP = _VALUE_NUMBER.pattern.removeprefix("(?<=: )").split(")(?=", 1)[0] + ")"


def _texts_of(
    number_columns: list[list[str]] | None,
    numbers: list[str],
    offsets: list[int],
    width: int,
    ks: list[int],
) -> Callable[[int], list[str]]:
    """The value numbers' texts of a shape's rows ``ks`` by the number's place in the shape:
    from the shape's own split, from the general one of rows of one width (no ``offsets``),
    or of rows of several."""
    if number_columns is not None:
        return number_columns.__getitem__
    if not offsets:
        return lambda arg: numbers[arg::width]
    return lambda arg: [numbers[offsets[k] + arg] for k in ks]


def _by_shape(
    known: list[tuple[re.Pattern[str], str, int]], texts: list[str]
) -> tuple[str, list[list[str]]] | None:
    """When every row's pairs text (``texts``) is of one known shape: its key and the rows'
    value numbers, a column per number (one split); else ``None``. The shape that took the
    last block is tried first, then the others (the first to take a block moves first)."""
    text = "\n" + "\n".join(texts)
    for i, (pattern, key, width) in enumerate(known):
        pieces = pattern.split(text)
        step = width + 1
        if len(pieces) == 1 + step * len(texts):
            if i:
                known.insert(0, known.pop(i))
            return key, [pieces[j::step] for j in range(1, step)]
        if len(pieces) > 1:
            return None  # some rows of this shape, others not: the general split
    return None


def _split_pairs(texts: list[str]) -> tuple[list[str], list[str]]:
    """Per row, the key :func:`.catalog.read_pairs` reads its shape by (the text without its
    value numbers, joined by NUL, which no row holds), and all rows' value numbers in order:
    one split of the rows joined by newlines."""
    parts = _VALUE_NUMBER_LINES.split("\n".join(texts))
    return "\x00".join(parts[0::2]).split("\n"), parts[1::2]


def _shapes(
    keys: list[str], named: list[tuple[str, list[Any]]]
) -> dict[tuple[Any, ...], list[int]]:
    """The rows (indexes) of each shape: the groups present and the pairs key."""
    n = len(keys)
    nones = [column.count(None) for _, column in named]
    if all(x in (0, n) for x in nones):  # every row has the same groups
        present = tuple(x == 0 for x in nones)
        if keys.count(keys[0]) == n:
            return {(present, keys[0]): list(range(n))}
        out: dict[tuple[Any, ...], list[int]] = {}
        for k, key in enumerate(keys):
            out.setdefault((present, key), []).append(k)
        return out
    out = {}
    for k, key in enumerate(keys):
        there = tuple(column[k] is not None for _, column in named)
        out.setdefault((there, key), []).append(k)
    return out
