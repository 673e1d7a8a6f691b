"""Bulk rows written as the JSON lines of their events, without an ``Event`` or a dict each.

``logscope events --format jsonl`` of a long-running server is millions of batch and access
lines. Each is one JSON object (:meth:`~sglang_logscope.events.Event.to_dict` through
:func:`~sglang_logscope._text.to_json`); this module is the *output loop*: it writes a block's
rows (:class:`~.bulk.Rows`) a shape at a time, the shapes, their value numbers, their field
layouts and the rule that checks each on its first row coming from :mod:`.shapes`. A shape's
layout becomes one fields template (a ``str.format`` string, composed with the line's layout
into one :data:`_Plan`); a row then costs a ``str.join`` of its pieces.

Exactness: a shape's template is checked on its first row against the reference (that row's
``Event`` through :func:`event_json`); a shape that differs, a value that could be rejected by
:mod:`..limits`, a mutable value, or a wrapped log's receive times send rows to the reference
path (:attr:`BulkJson.slow` counts them). Text is escaped by the C encoder ``json.dumps``
uses (rows are ASCII: ``ensure_ascii`` changes nothing) and DEL is escaped as
:func:`~sglang_logscope._text.to_json` does, so log text stays inert.

The C lane: a block of plain serving rows (the middle of a long run) is written by
``_rowjson.h`` from each shape's *lane plan* -- the same line, laid out as literal text and
slots -- made from the checked template and itself checked on the shape's first row against
the reference (:meth:`BulkJson._learn_lane`); a row that fits no plan is written the
reference way (:attr:`BulkJson.lane` counts the rows written there).
"""

from __future__ import annotations

import json
import string
from collections import deque
from collections.abc import Iterator
from functools import partial
from itertools import repeat
from operator import add
from typing import Any

from .._text import to_json
from ..events import Event, EventKind, new_event
from .blanks import Blanks
from .bulk import LANE, Rows, _Alt, _distinct, _rank, _texts, row_time
from .catalog import _CONVERTERS, MessageSpec
from .fastscan import LaneShape, LaneTable, json_lines
from .levels import LEVEL_HINT
from .lines import iter_records
from .shapes import (
    NumberJson,
    ShapeCache,
    Shaped,
    ShapeReader,
    field_layout,
    number_slots,
    pick,
    spec_columns,
    spec_rows,
)

_encode = json.encoder.encode_basestring_ascii


def event_json(event: Event, ascii_only: bool) -> str:
    """The reference: one event's JSON line as ``logscope events -f jsonl`` writes it."""
    return to_json(event.to_dict(), indent=None, parsed=True, ascii_only=ascii_only)


class BulkJson:
    """Per-shape templates, kept across the blocks of one output (and its counters)."""

    def __init__(self, ascii_only: bool, kinds: set[EventKind] | None = None) -> None:
        self.ascii_only = ascii_only
        self.kinds = kinds
        self.reader = ShapeReader(NumberJson().__getitem__)
        #: by shape: its fields template (``None``: the reference way)
        self.templates: ShapeCache[str] = ShapeCache()
        self.line: str | None = None  # the layout of a row's line (:func:`_line_layout`)
        #: by layout, its block-constant header values and a fields template: :func:`_compose`
        self.composed: dict[tuple[str, tuple[str | None, ...], str], _Plan] = {}
        self.time_sep = " "
        self.fast = 0  # rows written from their columns (or by the C lane)
        self.slow = 0  # rows written through their Event
        self.lane = 0  # rows written by the C lane (of ``fast``)
        #: by alternative, the checked lane plans (``_rowjson.h``) and the shape keys tried
        self.lane_plans: dict[int, list[LaneShape]] = {}
        self.lane_tried: set[tuple[int, tuple[str, ...], str]] = set()
        self._lane_args: tuple[tuple[LaneShape, ...] | None, ...] | None = None
        self.ranks = _RankJson()

    def text(self, rows: Rows) -> str:
        """The JSON lines of a block's rows (of the kinds asked for), joined by newlines:
        by the C lane where it writes them, else :meth:`lines`."""
        if (
            rows.summary is not None
            and rows.received is None
            and self.line not in (None, _NO_LAYOUT)
        ):
            text = self._lane_text(rows)
            if text is not None:
                return text
        return "\n".join(self.lines(rows))

    def _lane_text(self, rows: Rows) -> str | None:
        """A block of plain serving rows by the C lane, its misses spliced in the reference
        way (``None``: too many misses: :meth:`lines` writes the block, learning its shapes)."""
        table = rows.shape.lane
        assert table is not None  # a block with a lane summary
        found = json_lines(
            rows.piece.data, table, rows.first_line, self.time_sep.encode(), self._plans(rows),
            self.ranks,
        )  # fmt: skip
        if found is None:
            return None
        text, entries, misses = found
        if len(misses) > _LANE_SPLICE or (misses and not self.lane_plans):
            return None
        if misses:
            lines = text.split("\n")
            for r, at in misses:  # a row's event alone (not the block's events)
                lines[at] = self._reference(rows, [r])[0]
            text = "\n".join(lines)
        self.lane += entries - len(misses)
        self.fast += entries - len(misses)
        self.slow += len(misses)
        return text

    def _plans(self, rows: Rows) -> tuple[tuple[LaneShape, ...] | None, ...]:
        """The lane plans by alternative, ``None`` for one not asked for."""
        if self._lane_args is None:
            self._lane_args = tuple(
                tuple(self.lane_plans.get(alt.number, ()))
                if self.kinds is None or alt.spec.kind in self.kinds
                else None
                for alt in rows.shape.alts
            )
        return self._lane_args

    def lines(self, rows: Rows) -> list[str]:
        """The JSON line of each row (of the kinds asked for), in order."""
        if rows.received is not None:  # a wrapped log: receive times, zones (the reference)
            events = [e for e in rows.events() if self.kinds is None or e.kind in self.kinds]
            self.slow += len(events)
            return [event_json(e, self.ascii_only) for e in events]
        cols, specs = spec_rows(rows, self.kinds)
        a, b = rows.start, rows.stop
        out: list[str | None] = [None] * (b - a)
        slow: list[int] = []
        if self.line is None:
            self.line, self.time_sep = _line_layout(rows.slice(0, 1).events()[0])
        header = _header(cols, rows.shape.full.index, a, b, self.time_sep)
        for alt, picked in specs:
            self._alt_lines(rows, cols, alt, picked, header, out, slow)
        if slow:
            slow.sort()
            for r, text in zip(slow, self._reference(rows, slow), strict=True):
                out[r] = text
        if None in out:  # rows of kinds not asked for
            out = [x for x in out if x is not None]
        lines: list[str] = out  # type: ignore[assignment]
        self.fast += len(lines) - len(slow)
        self.slow += len(slow)
        return lines

    def _alt_lines(
        self,
        rows: Rows,
        cols: Any,
        alt: _Alt,
        picked: list[int],
        header: tuple[list[str], ...],
        out: list[str | None],
        slow: list[int],
    ) -> None:
        """The lines of one spec's rows of a block (into ``out``), a shape at a time;
        ``slow`` gets the rows of shapes that go the reference way."""
        spec = alt.spec
        named, rest_raw, rest, pairs = spec_columns(rows, cols, alt, picked)
        body = pick(cols[alt.body][rows.start : rows.stop], picked)
        columns = _spec_header(rows.first_line, spec, picked, header, _texts(body), rest)
        layout = (self.line or _NO_LAYOUT).replace("KIND", _encode(spec.kind.value))
        if _MESSAGE in layout and _plain(rest_raw) and _plain(b"".join(set(body))):
            layout = layout.replace(_MESSAGE, _MESSAGE_PLAIN)  # the message is its JSON text
        else:
            columns[5][:] = encode_texts(columns[5])
        fixed = _constants(columns)
        varying = [column for column, value in zip(columns, fixed, strict=True) if value is None]
        groups: dict[str, list[str | None]] = {}  # a group's JSON column, made on first use
        for shaped in self.reader.shapes(alt, len(picked), named, pairs):
            ks = shaped.ks
            present = shaped.key[1]
            for name in present:
                if name not in groups:
                    groups[name] = _group_column(spec, name, dict(named)[name])
            values = [pick(groups[name], ks) for name in present] + shaped.numbers
            template = self.reader.plan(
                self.templates,
                alt,
                shaped,
                partial(_fields_template, alt, present, shaped.pairs, self.ascii_only),
                partial(self._checked, rows, picked[ks[0]], layout, columns, ks[0], values=values),
            )
            if template is None:
                slow.extend(pick(picked, ks))
                continue
            if rows.summary is not None:  # a block of plain rows: the C lane's plan too
                self._learn_lane(rows, alt, shaped, picked, template, columns)
            plan = self._composed(layout, fixed, template)
            if len(ks) == len(picked):  # every row of the spec (ks is 0, 1, ...)
                lines = _fill(plan, [*varying, *values], len(ks))
                deque(map(out.__setitem__, picked, lines), maxlen=0)  # out[picked[k]] = ...
            else:
                lines = _fill(plan, [*(pick(c, ks) for c in varying), *values], len(ks))
                deque(map(out.__setitem__, pick(picked, ks), lines), maxlen=0)

    def _composed(self, layout: str, fixed: tuple[str | None, ...], template: str) -> _Plan:
        """The line ``layout`` with its ``fixed`` columns and a shape's fields ``template``
        as one :data:`_Plan`, made once (for 4,096 of them)."""
        key = (layout, fixed, template)
        plan = self.composed.get(key)
        if plan is None:
            plan = _plan(_compose(layout, fixed, template))
            if len(self.composed) < 4096:
                self.composed[key] = plan
        return plan

    def _learn_lane(
        self,
        rows: Rows,
        alt: _Alt,
        shaped: Shaped,
        picked: list[int],
        template: str,
        columns: tuple[list[str], ...],
    ) -> None:
        """Make a shape's lane plan from its checked ``template`` (the shape's rows of the
        block: ``shaped.ks`` of ``picked``; ``columns``: their header JSON, whose level and
        source are constant in plain rows) and keep it when the C lane writes the shape's
        first row as the reference does; tried once per shape, for a bounded number."""
        if shaped.key in self.lane_tried or len(self.lane_tried) >= _LANE_TRIED:
            return
        self.lane_tried.add(shaped.key)
        at = shaped.ks[0]
        r = picked[at]
        table = rows.shape.lane
        layout = (self.line or _NO_LAYOUT).replace("KIND", _encode(alt.spec.kind.value))
        shape = _lane_shape(table, alt, shaped, layout, template, (columns[2][at], columns[4][at]))
        if (
            shape is None
            or table is None
            or len(self.lane_plans.get(alt.number, ())) >= _LANE_SHAPES
        ):
            return
        line = rows.piece.data.split(b"\n", r + 1)[r]
        only = tuple((shape,) if a is alt else None for a in rows.shape.alts)
        sep = self.time_sep.encode()
        found = json_lines(line, table, rows.first_line + r, sep, only, self.ranks)
        if found is not None and not found[2] and found[0] == self._reference(rows, [r])[0]:
            self.lane_plans.setdefault(alt.number, []).append(shape)
            self._lane_args = None

    def _checked(
        self,
        rows: Rows,
        r: int,
        layout: str,
        columns: tuple[list[str], ...],
        k: int,
        template: str,
        *,
        values: list[list[Any]],
    ) -> bool:
        """Whether a new shape's fields ``template`` writes its first row (row ``r`` of the
        block, ``k`` of the shape's columns) as the reference does."""
        line = [column[k] for column in columns]
        row = [column[0] for column in values]
        fast = layout.format(*line, template.format(*row)).replace("\x7f", "\\u007f")
        return fast == self._reference(rows, [r])[0]

    def _reference(self, rows: Rows, picked: list[int]) -> list[str]:
        """Rows' lines through their events (:func:`event_json`)."""
        if len(picked) == 1:
            r = picked[0]
            return [event_json(rows.slice(r, r + 1).events()[0], self.ascii_only)]
        events = rows.events()
        return [event_json(events[r], self.ascii_only) for r in picked]


#: A block of plain rows with more misses than this is written by :meth:`BulkJson.lines`
#: (which learns its shapes); the lane plans kept per alternative (``_rowjson.h``'s bound).
_LANE_SPLICE = 8
_LANE_SHAPES = 16
#: Shapes tried for a lane plan at most (memory stays bounded on a log of endless shapes).
_LANE_TRIED = 4096
#: The groups of the access line the C lane reads, in its order (``_rowjson.h``: slot
#: ``-10 - g`` writes group ``g`` as a JSON string, ``-20 - g`` as an int).
_LANE_GROUPS = ("client", "method", "path", "http", "status")
_LANE_SLOTS = {"line": -1, "time": -2, "rank": -3, "message": -4}
_LANE_TYPES = {"str": -10, "int": -20}


class _RankJson(dict[bytes, bytes]):
    """A row's rank JSON by its header's ranks text, made on first use (the C lane asks)."""

    def __missing__(self, raw: bytes) -> bytes:
        value = _rank_json(raw.decode("ascii")).encode("ascii")
        if len(self) < 4096:
            self[raw] = value
        return value


def _lane_shape(
    table: LaneTable | None,
    alt: _Alt,
    shaped: Shaped,
    layout: str,
    template: str,
    level_source: tuple[str, str],
) -> LaneShape | None:
    """A checked shape's lane plan (``_rowjson.h``): its line layout (``KIND`` written in)
    and fields ``template`` as literal text and slots; ``None`` where the lane cannot write
    it (a batch shape with groups, an access shape without its five groups)."""
    if table is None or layout == _NO_LAYOUT:
        return None
    batch, access = table
    present = shaped.key[1]
    if alt.number == access and alt.spec.pairs is None and present == _LANE_GROUPS:
        literals: tuple[bytes, ...] = ()
        points = b""
        types = [alt.spec.fields.get(name, "str") for name in present]
        if not set(types) <= _LANE_TYPES.keys():
            return None
        slots = [_LANE_TYPES[t] - g for g, t in enumerate(types)]  # group g, by its type
    elif any(alt.number == n for _, n in batch) and not present and alt.rest_field == "_pairs":
        found = number_slots(shaped)
        if found is None:
            return None
        pieces, kinds = found
        heads = [p.encode("ascii") + b": " for p in pieces[:-1]]  # each before a number
        literals = (*heads, pieces[-1].encode("ascii"))
        points = bytes(kinds)
        slots = list(range(len(points)))
    else:
        return None
    level, source = level_source
    fixed = (None, None, level, None, source, None)
    composed = _compose(layout, fixed, template)
    order = (_LANE_SLOTS["line"], _LANE_SLOTS["time"], _LANE_SLOTS["rank"], _LANE_SLOTS["message"])
    out: list[bytes | int] = []
    for literal, number in _plan(composed):
        if literal:
            out.append(literal.encode("utf-8"))
        if number is not None:
            out.append(order[number] if number < len(order) else slots[number - len(order)])
    return literals, points, tuple(out)


#: Where a bulk row's values go in its JSON line, by the key of :meth:`Event.to_dict`: its
#: number, time, level, rank, source, message and fields (``KIND``: the spec's kind); any
#: other key takes the prototype's value (a bulk row is never truncated and has no receive
#: time), checked with the rest on each shape's first row.
_SLOTS = {
    "line": "{0}",
    "end_line": "{0}",
    "kind": "KIND",
    "timestamp": "{1}",
    "level": "{2}",
    "rank": "{3}",
    "source": "{4}",
    "message": "{5}",
    "fields": "{6}",
}


def _line_layout(event: Event) -> tuple[str, str]:
    """The format of a bulk row's line, made from one row's event as the reference writes it,
    and the separator its time is written with (:data:`_NO_LAYOUT` when it cannot keep one)."""
    data = event.to_dict()
    parts = []
    for key, value in data.items():
        slot = _SLOTS.get(key)
        if slot is None:
            slot = to_json(value, indent=None, parsed=True).replace("{", "{{").replace("}", "}}")
        parts.append(f"{_encode(key)}: {slot}")
    stamp = event.timestamp
    sep = next(
        (
            c
            for c in (" ", "T")
            if stamp is not None and data.get("timestamp") == stamp.isoformat(c)
        ),
        None,
    )
    if sep is None or set(_SLOTS) - set(data):
        return _NO_LAYOUT, " "
    return "{{" + ", ".join(parts) + "}}", sep


#: A line layout no row matches (every shape then goes the reference way).
_NO_LAYOUT = "\x00"


def _spec_header(
    line0: int,
    spec: MessageSpec,
    picked: list[int],
    header: tuple[list[str], ...],
    bodies: list[str],
    rest: list[str],
) -> tuple[list[str], ...]:
    """One spec's rows' header JSON columns (row ``r`` of the block is line ``line0 + r``):
    line number, time, level (the spec's hint where the line has none), rank, source, and
    the message text (``bodies`` and ``rest``, not yet encoded)."""
    when, levels, ranks, src = (pick(column, picked) for column in header)
    hint = LEVEL_HINT.get(spec.kind)
    level_json = {v: _encode(v or hint) if v or hint else "null" for v in set(levels)}  # type: ignore[arg-type]
    return (
        list(map(str, map(line0.__add__, picked))),
        when,
        list(map(level_json.__getitem__, levels)),
        ranks,
        src,
        list(map(add, bodies, rest)),
    )


def _constants(columns: tuple[list[str], ...]) -> tuple[str | None, ...]:
    """Per header column of a spec's rows: its one value when every row has it (the level,
    rank and source of most blocks), else ``None``; the line number, time and message vary."""
    return tuple(
        column[0] if i in (2, 3, 4) and len(set(column)) == 1 else None
        for i, column in enumerate(columns)
    )


_FORMATTER = string.Formatter()


def _compose(layout: str, fixed: tuple[str | None, ...], template: str) -> str:
    """One format string for ``layout.format(*columns, template.format(*values))``: the
    columns of one value (``fixed``) written in, the others numbered in order, and the fields
    slot (``{6}``) replaced by ``template`` with its numbers after theirs."""
    number: dict[int, int] = {}
    for i, value in enumerate(fixed):
        if value is None:
            number[i] = len(number)
    out: list[str] = []
    for literal, name, _, _ in _FORMATTER.parse(layout):
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is None:
            continue
        i = int(name)
        if i == len(fixed):
            out.append(_renumbered(template, len(number)))
        elif fixed[i] is not None:
            out.append(fixed[i].replace("{", "{{").replace("}", "}}"))  # type: ignore[union-attr]
        else:
            out.append(f"{{{number[i]}}}")
    return "".join(out)


#: A format string as its pieces: (literal text, the number of the column after it or None).
_Plan = list[tuple[str, int | None]]


def _plan(template: str) -> _Plan:
    """``template`` (no conversions or format specs) as :data:`_Plan` pieces."""
    return [
        (literal, None if name is None else int(name))
        for literal, name, _, _ in _FORMATTER.parse(template)
    ]


def _fill(plan: _Plan, columns: list[list[str]], rows: int) -> list[str]:
    """``template.format(*row)`` of each row of ``columns`` (strings), for its :func:`_plan`:
    a row is one ``str.join`` of its pieces (no template to parse per row: a third of the
    time of ``str.format``)."""
    pieces: list[Any] = []
    for literal, number in plan:
        if literal:
            pieces.append(repeat(literal))
        if number is not None:
            pieces.append(columns[number])
    if all(isinstance(piece, repeat) for piece in pieces):
        return ["".join(literal for literal, _ in plan)] * rows
    return list(map("".join, zip(*pieces, strict=False)))  # the literals repeat endlessly


def _renumbered(template: str, base: int) -> str:
    """``template`` with each field's number moved up by ``base``."""
    out: list[str] = []
    for literal, name, _, _ in _FORMATTER.parse(template):
        out.append(literal.replace("{", "{{").replace("}", "}}"))
        if name is not None:
            out.append(f"{{{int(name) + base}}}")
    return "".join(out)


def _time_json(raw: bytes, sep: str) -> str:
    """A row's header time as ``datetime.isoformat`` writes it (microseconds in six digits,
    none when zero), from its text: the pattern takes only valid full dates, and the usual
    lengths are those ``fromisoformat`` reads (others are parsed)."""
    text = raw.decode("ascii")
    if len(text) == 19:
        return f'"{text[:10]}{sep}{text[11:]}"'
    if len(text) in (23, 26):
        fraction = text[20:].ljust(6, "0")
        clock = text[11:19] if fraction == "000000" else f"{text[11:19]}.{fraction}"
        return f'"{text[:10]}{sep}{clock}"'
    return _encode(row_time(raw).isoformat(sep))


#: Where a row's message goes in its line, and where a message that needs no escape goes.
_MESSAGE = '"message": {5}'
_MESSAGE_PLAIN = '"message": "{5}"'
#: The bytes a JSON string holds as they are (``json.dumps``: printable ASCII but the quote
#: and the backslash), and the newline that joins rows.
_AS_IS = bytes(c for c in range(0x20, 0x7F) if c not in b'"\\') + b"\n"


def _plain(joined: bytes) -> bool:
    """True when rows' text (``joined`` by newlines) is each row's JSON string between
    quotes: no byte that ``json.dumps`` escapes."""
    return not joined.translate(None, _AS_IS)


def encode_texts(texts: list[str]) -> list[str]:
    """The JSON string of each text, as ``json.dumps`` writes it, in one call of the encoder:
    texts joined by newlines (rows hold none), whose escape ``\\n`` then marks where one
    ends. Exact only without a backslash in the texts (each backslash of the output then
    starts an escape), else one call each."""
    joined = "\n".join(texts)
    if "\\" in joined or not texts:
        return list(map(_encode, texts))
    return _encode(joined).replace("\\n", '"\n"').split("\n")


def _times_json(times: list[bytes], sep: str) -> list[str]:
    """:func:`_time_json` of each row time: a block of whole seconds (no ``.``: the pattern
    then took 19 characters each) in a few calls, others once per distinct time."""
    joined = b"\n".join(times).decode("ascii")
    if "." in joined or not times:
        when = {t: _time_json(t, sep) for t in set(times)}
        return list(map(when.__getitem__, times))
    return ('"' + joined.replace(" ", sep).replace("\n", '"\n"') + '"').split("\n")


def _header(cols: Any, index: dict[str, int], a: int, b: int, sep: str) -> tuple[list[str], ...]:
    """Per row of a block: the JSON of its timestamp, its level text (or uvicorn level;
    ``""`` for none), and the JSON of its rank and source."""
    times = cols[index["ts"]][a:b]
    uvicorn = cols[index["ulevel"]][a:b]
    if uvicorn.count(None) == len(uvicorn):  # (most blocks: no access line's level)
        levels = _json_column(cols[index["level"]][a:b], str, "")
    else:
        level = _distinct(cols[index["level"]][a:b])
        levels = [x or y or "" for x, y in zip(level, _distinct(uvicorn), strict=True)]
    return (
        _times_json(times, sep),
        levels,
        _json_column(cols[index["ranks"]][a:b], _rank_json),
        _json_column(cols[index["src"]][a:b], _encode),
    )


def _json_column(column: list[bytes | None], make: Any, missing: str = "null") -> list[str]:
    """Each row's ``make(text)`` (``missing`` where the group did not match), made once per
    distinct value."""
    seen = {raw: make(raw.decode("ascii")) if raw is not None else missing for raw in set(column)}
    return list(map(seen.__getitem__, column))


def _rank_json(label: str) -> str:
    rank = _rank(label)
    return _encode(rank.label) if rank is not None else "null"


def _group_column(spec: MessageSpec, name: str, raw: list[bytes | None]) -> list[str | None]:
    """A captured group's values as JSON, typed by the spec's field type (``None``: the
    group did not match); a text group through the encoder, others once per distinct value."""
    kind = spec.fields.get(name, "str")
    if kind == "str":
        if None in raw:
            return [_encode(x.decode("ascii")) if x is not None else None for x in raw]
        texts: list[str | None] = encode_texts(_texts(raw))  # type: ignore[assignment]
        return texts
    convert = _CONVERTERS[kind]
    return _distinct(raw, lambda text: to_json(convert(text), indent=None, parsed=True))


def _fields_template(
    alt: _Alt, present: tuple[str, ...], pairs_text: str | None, ascii_only: bool
) -> str | None:
    """``{"name": {0}, ...}`` for a shape (its :func:`.shapes.field_layout`: the present
    groups' slots first, then the value numbers', constants written in); ``None``: the
    reference way."""
    layout = field_layout(alt, present, pairs_text)
    if layout is None:
        return None
    base = len(present)
    slots: list[str] = []
    for name, how, arg in layout:
        if how == "g":
            slot = f"{{{arg}}}"
        elif how == "n":
            slot = f"{{{base + arg}}}"
        else:
            text = to_json(arg, indent=None, parsed=True, ascii_only=ascii_only)
            slot = text.replace("{", "{{").replace("}", "}}")
        slots.append(_encode(name).replace("{", "{{").replace("}", "}}") + ": " + slot)
    return "{{" + ", ".join(slots) + "}}"


def iter_event_json(
    source: Any, kinds: set[EventKind] | None, ascii_only: bool, stats: BulkJson | None = None
) -> Iterator[str]:
    """The JSON lines of ``source``'s events of ``kinds`` (all when ``None``), a block at a
    time (lines joined by ``\\n``, no final newline): :func:`event_json` of every event."""
    writer = stats if stats is not None else BulkJson(ascii_only, kinds)
    for record in iter_records(source, fields=LANE):
        if isinstance(record, Rows):
            text = writer.text(record)
            if text:
                yield text.replace("\x7f", "\\u007f") if "\x7f" in text else text
        elif isinstance(record, Blanks):
            yield from blank_json(record, kinds, ascii_only)
        elif kinds is None or record.kind in kinds:
            yield event_json(record, ascii_only)


#: A line number no whitespace-only line's JSON holds otherwise (its line and end_line).
_SENTINEL = 987654321987654321
#: JSON lines of a run of blank lines written per block.
_BLANK_BLOCK = 1 << 16


def blank_json(run: Blanks, kinds: set[EventKind] | None, ascii_only: bool) -> Iterator[str]:
    """The JSON lines of a run of blank lines (of ``kinds``), blocks of lines joined by
    ``\\n``: each distinct line's JSON made by :func:`event_json` once, with its line number
    as a slot (where that number shows up only as ``line`` and ``end_line``; else, and for the
    kinds asked for, line by line)."""
    formats: dict[bytes, str | None] = {}
    for raw in dict.fromkeys(run.raws()) if run.data is not None else [run.uniform or b""]:
        t = run.templates[raw]
        if kinds is not None and t.kind not in kinds:
            formats[raw] = None
            continue
        event = new_event(
            _SENTINEL, t.kind, t.message, _SENTINEL, None, t.level, None, None, {}, t.text,
            False, t.releases,
        )  # fmt: skip
        text = event_json(event, ascii_only)
        parts = text.split(str(_SENTINEL))
        formats[raw] = "%d".join(p.replace("%", "%%") for p in parts) if len(parts) == 3 else ""
    for lo in range(0, run.count, _BLANK_BLOCK):
        hi = min(run.count, lo + _BLANK_BLOCK)
        out: list[str] = []
        first = run.first_line + lo
        if run.data is None:
            form = formats[run.uniform or b""]
            if form:
                out = [form % (n, n) for n in range(first, run.first_line + hi)]
            elif form == "":
                out = [event_json(e, ascii_only) for e in run.events(lo, hi)]
        else:
            for n, raw in enumerate(run.raws(lo, hi), first):
                form = formats[raw]
                if form:
                    out.append(form % (n, n))
                elif form == "":
                    at = n - run.first_line
                    out.append(event_json(next(run.events(at, at + 1)), ascii_only))
        if out:
            yield "\n".join(out)
