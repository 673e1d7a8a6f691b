"""Bulk rows written as the JSON lines of their events, without an ``Event`` or a dict each.

``logscope events --format jsonl`` of a long-running server is millions of batch and access
lines. Each is one JSON object (:meth:`~sglang_logscope.events.Event.to_dict` through
:func:`~sglang_logscope._text.to_json`); this module writes it from the block's columns
(:class:`~.bulk.Rows`) with a format string per *shape*: a spec, the optional groups present
and, for ``label: value`` lines, the text without its value numbers (the key
:func:`.catalog.read_pairs` already uses). A shape's fields are laid out once from
:func:`.catalog._template`; a row then costs a split of its pairs, a few dict look-ups
(each distinct number's JSON text is made once) and two ``str.format`` calls.

Exactness: a shape's template is checked on its first row against the reference (that row's
``Event`` through ``to_json``); a shape that differs, a value that could be rejected by
:mod:`..limits`, a mutable value, or a wrapped log's receive times send rows to the reference
path (:attr:`BulkJson.slow` counts them). Text is escaped by the C encoder ``json.dumps``
uses (rows are ASCII: ``ensure_ascii`` changes nothing) and DEL is escaped as
:func:`~sglang_logscope._text.to_json` does, so log text stays inert.
"""

from __future__ import annotations

import json
import re
import string
from collections import deque
from collections.abc import Iterator
from itertools import compress, count, repeat
from operator import add, is_not, itemgetter
from typing import Any

from .._text import to_json
from ..events import Event, EventKind, new_event
from ..limits import rules as limit_rules
from .blanks import Blanks
from .bulk import Rows, _Alt, _distinct, _rank, _texts, row_time
from .catalog import _CONVERTERS, _VALUE_NUMBER, MessageSpec, _template
from .levels import LEVEL_HINT
from .lines import iter_records

_encode = json.encoder.encode_basestring_ascii

#: A template that could not be made (the shape goes the reference way).
_SLOW = ""


def event_json(event: Event, ascii_only: bool) -> str:
    """The reference: one event's JSON line as ``logscope events -f jsonl`` writes it."""
    return to_json(event.to_dict(), indent=None, parsed=True, ascii_only=ascii_only)


class _NumberJson(dict[str, str]):
    """A value number's JSON text by its printed text (``0.50`` → ``0.5``), as
    :func:`.catalog.read_pairs` types it (float with a point, else int)."""

    def __missing__(self, text: str) -> str:
        value = repr(float(text)) if "." in text else repr(int(text))
        if len(self) < 65536:
            self[text] = value
        return value


class BulkJson:
    """Per-shape templates, kept across the blocks of one output (and its counters)."""

    def __init__(self, ascii_only: bool, kinds: set[EventKind] | None = None) -> None:
        self.ascii_only = ascii_only
        self.kinds = kinds
        self.numbers = _NumberJson()
        self.templates: dict[tuple[Any, ...], dict[str, str]] = {}
        #: by spec (its alternative's number): row patterns of its shapes (:meth:`_add_sub`)
        self.subs: dict[int, list[tuple[re.Pattern[str], str, int]]] = {}
        self.line: str | None = None  # the layout of a row's line (:func:`_line_layout`)
        #: by layout, its block-constant header values and a fields template: :func:`_compose`
        self.composed: dict[tuple[str, tuple[str | None, ...], str], _Plan] = {}
        self.time_sep = " "
        self.fast = 0  # rows written from their columns
        self.slow = 0  # rows written through their Event

    def lines(self, rows: Rows) -> list[str]:
        """The JSON line of each row (of the kinds asked for), in order."""
        if rows.received is not None:  # a wrapped log: receive times, zones (the reference)
            events = [e for e in rows.events() if self.kinds is None or e.kind in self.kinds]
            self.slow += len(events)
            return [event_json(e, self.ascii_only) for e in events]
        shape = rows.shape
        full = shape.full
        cols = rows.cols if rows.layout is full else shape.full_columns(rows.piece)
        a, b = rows.start, rows.stop
        out: list[str | None] = [None] * (b - a)
        slow: list[int] = []
        if self.line is None:
            self.line, self.time_sep = _line_layout(rows.slice(0, 1).events()[0])
        header = _header(cols, full.index, a, b, self.time_sep)
        for alt in shape.alts:
            if self.kinds is not None and alt.spec.kind not in self.kinds:
                continue
            column = cols[full.witness[alt.number]][a:b]
            picked = list(compress(count(), map(is_not, column, repeat(None))))
            if picked:
                self._alt_lines(rows, cols, alt, picked, header, out, slow)
        if slow:
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
        """The lines of one spec's rows of a block (into ``out``; ``slow`` gets the rows
        whose shape goes the reference way)."""
        spec = alt.spec
        a = rows.start
        b = rows.stop
        body = _pick(cols[alt.body][a:b], picked)
        rest_raw = b"\n".join(_pick(cols[rows.shape.full.index["rest"]][a:b], picked))
        rest_text = "\n" + rest_raw.decode("ascii")  # (each row after a newline)
        rest = rest_text[1:].split("\n")
        when, levels, ranks, src = (_pick(column, picked) for column in header)
        hint = LEVEL_HINT.get(spec.kind)
        level_json = {v: _encode(v or hint) if v or hint else "null" for v in set(levels)}  # type: ignore[arg-type]
        line0 = rows.first_line
        columns = (
            list(map(str, map(line0.__add__, picked))),
            when,
            list(map(level_json.__getitem__, levels)),
            ranks,
            src,
            list(map(add, _texts(body), rest)),
        )
        layout = (self.line or _NO_LAYOUT).replace("KIND", _encode(spec.kind.value))
        if _MESSAGE in layout and _plain(rest_raw) and _plain(b"".join(set(body))):
            layout = layout.replace(_MESSAGE, _MESSAGE_PLAIN)  # the message is its JSON text
        else:
            columns[5][:] = encode_texts(columns[5])
        parts, slow_ks = self._fields(rows, cols, alt, picked, rest, rest_text, layout, columns)
        fixed = _constants(columns)
        varying = [column for column, value in zip(columns, fixed, strict=True) if value is None]
        for template, ks, values in parts:
            key = (layout, fixed, template)
            plan = self.composed.get(key)
            if plan is None:
                plan = _plan(_compose(layout, fixed, template))
                if len(self.composed) < 4096:
                    self.composed[key] = plan
            if len(ks) == len(picked):  # every row of the spec (ks is 0, 1, ...)
                lines = _fill(plan, [*varying, *values], len(ks))
                deque(map(out.__setitem__, picked, lines), maxlen=0)  # out[picked[k]] = ...
            else:
                lines = _fill(plan, [*(_pick(c, ks) for c in varying), *values], len(ks))
                deque(map(out.__setitem__, _pick(picked, ks), lines), maxlen=0)
        slow.extend(_pick(picked, slow_ks) if slow_ks else ())

    def _fields(
        self,
        rows: Rows,
        cols: Any,
        alt: _Alt,
        picked: list[int],
        rest: list[str],
        rest_text: str,
        layout: str,
        columns: tuple[list[Any], ...],
    ) -> tuple[list[_Part], list[int]]:
        """The rows' fields as :data:`_Part` s, and the rows (indices in ``picked``) to write
        the reference way (``rest_text``: the rows' pairs texts, each after a newline)."""
        spec = alt.spec
        a = rows.start
        groups = [  # the groups that matched on some row of the block (most never do)
            (name, _group_column(spec, name, column))
            for name, i in alt.groups
            if not name.startswith("_")
            and (column := _pick(cols[i][a : rows.stop], picked)).count(None) < len(picked)
        ]
        subs = self.subs.get(alt.number)
        if spec.pairs is None or groups or not subs:
            return self._split_fields(rows, alt, picked, rest, layout, columns, groups)
        parts, left = _by_shapes(subs, rest, rest_text)
        if parts and parts[0][0] != subs[0][1]:  # the shape of these rows first next time
            top = max(parts, key=lambda part: len(part[1]))[0]
            subs.sort(key=lambda sub: sub[1] != top)
        if not left:
            return parts, []
        more, slow = self._split_fields(
            rows,
            alt,
            _pick(picked, left),
            _pick(rest, left),
            layout,
            tuple(_pick(column, left) for column in columns),
            [],
        )
        return parts + _moved(more, left), _pick(left, slow)

    def _split_fields(
        self,
        rows: Rows,
        alt: _Alt,
        picked: list[int],
        rest: list[str],
        layout: str,
        columns: tuple[list[Any], ...],
        groups: list[tuple[str, list[str | None]]],
    ) -> tuple[list[_Part], list[int]]:
        """:meth:`_fields` by splitting the value numbers out; rows of one width (the same
        groups, as many value numbers) are formatted column-wise, a block at a time."""
        spec = alt.spec
        values: list[list[str]] = [column for _, column in groups]  # type: ignore[misc]
        if spec.pairs is not None:  # shapes and value numbers of all rows in one split
            parts = _VALUE_NUMBER_LINES.split("\n".join(rest))
            keys = ": \x00".join(parts[0::3]).split("\n")  # (rows hold no NUL)
            numbers = self._numbers(parts[1::3], parts[2::3])
            widths = set(map(str.count, keys, repeat("\x00")))
        else:
            keys = [""] * len(picked)
            numbers, widths = [], {0}
            if alt.rest_field is not None:
                values.append(encode_texts(rest))
        if len(widths) != 1 or any(None in column for column in values):
            return self._by_kind_of_row(rows, alt, picked, rest, layout, columns, groups, keys)
        width = widths.pop()
        values.extend(numbers[j::width] for j in range(width))
        present = tuple(name for name, _ in groups)
        table = self.templates.setdefault((alt.number, present), {})
        templates = list(map(table.get, keys))
        if None in templates:
            for k, key in enumerate(keys):
                if templates[k] is None and key not in table:
                    row = [column[k] for column in values]
                    line = [column[k] for column in columns]
                    pairs = rest[k] if spec.pairs else None
                    made = self._checked(rows, alt, picked[k], present, pairs, layout, line, row)
                    table[key] = made
                    if made is not _SLOW and spec.pairs is not None and not present:
                        self._add_sub(alt.number, key, made, width)
            templates = list(map(table.get, keys))
        every = list(range(len(picked)))
        if len(distinct := set(templates)) == 1 and _SLOW not in distinct:
            return [(templates[0], every, values)], []  # type: ignore[list-item]
        fields: list[str | None] = list(map(str.format, templates, *values))
        if _SLOW in templates:
            for k, template in enumerate(templates):
                if template is _SLOW:
                    fields[k] = None
        return _as_parts(every, fields)

    def _by_kind_of_row(
        self,
        rows: Rows,
        alt: _Alt,
        picked: list[int],
        rest: list[str],
        layout: str,
        columns: tuple[list[Any], ...],
        groups: list[tuple[str, list[str | None]]],
        keys: list[str],
    ) -> tuple[list[_Part], list[int]]:
        """:meth:`_split_fields` of rows of several widths or groups present: each kind of
        row on its own."""
        kinds: dict[tuple[Any, ...], list[int]] = {}
        for k, key in enumerate(keys):
            present = tuple(column[k] is not None for _, column in groups)
            kinds.setdefault((key.count("\x00"), present), []).append(k)
        parts: list[_Part] = []
        slow: list[int] = []
        for (_, present), ks in kinds.items():
            some, not_fast = self._split_fields(
                rows,
                alt,
                [picked[k] for k in ks],
                [rest[k] for k in ks],
                layout,
                tuple([column[k] for k in ks] for column in columns),
                [
                    (name, [c[k] for k in ks])
                    for (name, c), p in zip(groups, present, strict=True)
                    if p
                ],
            )
            parts += _moved(some, ks)
            slow += _pick(ks, not_fast)
        return parts, slow

    def _add_sub(self, number: int, key: str, template: str, width: int) -> None:
        """A pattern that takes a whole row of the shape ``key`` and its value numbers as
        groups (plain ones, whose text is their JSON, and floats less the trailing zeros
        ``repr`` drops), to split a block by (:func:`_by_shapes`)."""
        pieces = key.split(": \x00")
        pattern = "\n" + re.escape(pieces[0])
        pattern += "".join(f": {_SUB_NUMBER}" + re.escape(p) for p in pieces[1:])
        subs = self.subs.setdefault(number, [])
        if width and len(subs) < 8:
            subs.append((re.compile(pattern + "(?=\n|\\Z)"), template, width))

    def _numbers(self, plain: list[str | None], other: list[str | None]) -> list[str]:
        """The JSON of each value number: its text where that is its JSON (``plain``), else
        typed (``other``: ``0.50`` is ``0.5``)."""
        out: list[str] = plain  # type: ignore[assignment]
        convert = self.numbers.__getitem__
        at = -1
        try:
            while True:
                at = plain.index(None, at + 1)
                out[at] = convert(other[at])  # type: ignore[arg-type]
        except ValueError:
            return out

    def _checked(
        self,
        rows: Rows,
        alt: _Alt,
        r: int,
        present: tuple[str, ...],
        pairs_text: str | None,
        layout: str,
        line: list[Any],
        values: list[str],
    ) -> str:
        """A new shape's fields template, checked on its first row (row ``r``) against the
        reference; :data:`_SLOW` when it cannot be made or differs."""
        template = _fields_template(alt, present, pairs_text, self.ascii_only)
        if template is _SLOW:
            return _SLOW
        fast = layout.format(*line, template.format(*values)).replace("\x7f", "\\u007f")
        return template if fast == self._reference(rows, [r])[0] else _SLOW

    def _reference(self, rows: Rows, picked: list[int]) -> list[str]:
        """Rows' lines through their events (:func:`event_json`)."""
        if len(picked) == 1:
            r = picked[0]
            return [event_json(rows.slice(r, r + 1).events()[0], self.ascii_only)]
        events = rows.events()
        return [event_json(events[r], self.ascii_only) for r in picked]


#: :data:`.catalog._VALUE_NUMBER` over rows joined by newlines: a row's end is a line's end
#: (rows are single lines; ``\\s`` without the newline, which no row holds), and its
#: ``: `` taken rather than looked behind (the engine then searches for that literal). The
#: first group takes the numbers whose text is their JSON (what ``repr`` of the int or float
#: prints: no leading or trailing zero, at most 15 digits, no exponent form), the second
#: the others (``tests/test_bulk_json.py`` checks the first against ``repr``).
_PLAIN_NUMBER = (
    r"(?:0|[1-9][0-9]{0,17})(?![0-9.])"
    r"|[1-9][0-9]{0,8}\.(?:0|[0-9]{0,5}[1-9])(?![0-9])"
    r"|0\.(?:0|0{0,3}(?:[1-9]|[1-9][0-9]?[1-9]))(?![0-9])"
)
#: A value number in a shape's pattern (:meth:`BulkJson._add_sub`): the group is its JSON, a
#: plain number or a float's text without the trailing zeros ``repr`` drops (``0.50``).
_SUB_NUMBER = (
    r"((?:0|[1-9][0-9]{0,17})(?![0-9.])|[1-9][0-9]{0,8}\.(?:0|[0-9]{0,5}[1-9])"
    r"|0\.(?:0|0{0,3}(?:[1-9]|[1-9][0-9]?[1-9])))0{0,12}"
)
_VALUE_NUMBER_LINES = re.compile(
    f": (?:({_PLAIN_NUMBER})|"
    + _VALUE_NUMBER.pattern.removeprefix("(?<=: )")
    .replace(r"\s?", r"[\t\x0b\x0c\r\x1c-\x1f ]?")
    .replace(r"\Z", r"(?=\n)|\Z")
    .replace("(?=", ")(?=", 1)
)

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


def _by_shapes(
    shapes: list[tuple[re.Pattern[str], str, int]], rest: list[str], text: str
) -> tuple[list[_Part], list[int]]:
    """The fields of the rows (their pairs text ``rest``; ``text``: all of them, each after
    a newline) of known shapes as :data:`_Part` s, and the rows of other shapes: per shape
    one split of the rows left."""
    parts: list[_Part] = []
    todo = list(range(len(rest)))
    for pattern, template, width in shapes:
        if not todo:
            break
        if len(todo) < len(rest):
            text = "\n" + "\n".join(_pick(rest, todo))
        pieces = pattern.split(text)
        step = width + 1
        columns = [pieces[j::step] for j in range(1, step)]
        found = len(columns[0])
        if not found:
            continue
        if found == len(todo):  # every row left is of this shape
            parts.append((template, todo, columns))
            return parts, []
        hits: list[int] = []
        left: list[int] = []
        at = 0  # in todo
        for i, segment in enumerate(pieces[0::step]):
            skipped = segment.count("\n")  # rows of other shapes between two matches
            if skipped:
                left += todo[at : at + skipped]
                at += skipped
            if i < found:
                hits.append(todo[at])
                at += 1
        parts.append((template, hits, columns))
        todo = left
    return parts, todo


#: Rows of one fields template: the template, the rows (indices in the spec's rows of the
#: block) and the template's value columns.
_Part = tuple[str, list[int], list[list[str]]]


def _as_parts(ks: list[int], fields: list[str | None]) -> tuple[list[_Part], list[int]]:
    """Fields' JSON per row (``None``: the reference way) as one :data:`_Part` and the rows
    to write the reference way."""
    if None not in fields:
        return [("{0}", ks, [fields])], []  # type: ignore[list-item]
    done = [k for k, x in zip(ks, fields, strict=True) if x is not None]
    slow = [k for k, x in zip(ks, fields, strict=True) if x is None]
    return [("{0}", done, [[x for x in fields if x is not None]])], slow


def _moved(parts: list[_Part], rows: list[int]) -> list[_Part]:
    """``parts`` of a subset of rows (``rows``) as parts of all of them."""
    return [(template, _pick(rows, ks), values) for template, ks, values in parts]


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


def _pick(column: list[Any], picked: list[int]) -> list[Any]:
    """``column``'s items at ``picked`` (increasing), without a Python step per row."""
    if len(picked) == len(column):
        return list(column)  # every row (picked is then 0, 1, ...)
    if len(picked) < 2:
        return [column[r] for r in picked]
    return list(itemgetter(*picked)(column))


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
) -> str:
    """``{"name": {0}, ...}`` for a shape: its present groups, then its pairs (a pair of a
    group's name takes its value in the group's place, as ``dict.update`` does)."""
    spec = alt.spec
    if spec.sets:
        return _SLOW
    slots: dict[str, str] = {}
    for k, name in enumerate(present):
        slots[name] = f"{{{k}}}"
    if spec.pairs is not None:
        if pairs_text:
            parts = _VALUE_NUMBER.split(pairs_text)
            if len(parts) == 1:
                return _SLOW
            shape = _template(pairs_text, spec.pairs)
            if shape is False:
                return _SLOW
            base = len(present)
            for name, slot, value in shape:
                if slot >= 0:
                    slots[name] = f"{{{base + slot}}}"
                else:
                    text = to_json(value, indent=None, parsed=True, ascii_only=ascii_only)
                    slots[name] = text.replace("{", "{{").replace("}", "}}")
    elif alt.rest_field is not None:
        slots[alt.rest_field] = f"{{{len(present)}}}"
    if any(name in limit_rules() for name in slots):
        return _SLOW  # a value there may be rejected (issue 20): the reference decides
    inner = ", ".join(
        _encode(name).replace("{", "{{").replace("}", "}}") + ": " + slot
        for name, slot in slots.items()
    )
    return "{{" + inner + "}}"


def iter_event_json(
    source: Any, kinds: set[EventKind] | None, ascii_only: bool, stats: BulkJson | None = None
) -> Iterator[str]:
    """The JSON lines of ``source``'s events of ``kinds`` (all when ``None``), a block at a
    time (lines joined by ``\\n``, no final newline): :func:`event_json` of every event."""
    writer = stats if stats is not None else BulkJson(ascii_only, kinds)
    for record in iter_records(source):
        if isinstance(record, Rows):
            lines = writer.lines(record)
            if lines:
                text = "\n".join(lines)
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
