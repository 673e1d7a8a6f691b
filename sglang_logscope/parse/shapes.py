"""What a serving row's *shape* is, for the bulk paths: one definition.

``logscope events -f jsonl`` (:mod:`.bulk_json`) and ``events_frame`` (:mod:`.bulk_columns`)
read millions of batch and access rows without an ``Event`` each. Both group a block's rows
of one spec by *shape*, lay a shape's fields out once, and fill the rows of a shape a column
at a time. This module holds all of that; each of them keeps only its output loop (JSON text
or frame columns):

- **The shape key** (:data:`ShapeKey`): the spec, which of its named groups matched, and for
  ``label: value`` rows the pairs text without its *value numbers* (the whole numbers after
  ``: `` that :func:`.catalog.read_pairs` keys its templates by), ``: \\x00`` where each was.
- **The value numbers**: one split of a block's pairs texts (:func:`split_pairs`), each number
  as its JSON text where that is its text (:data:`PLAIN_NUMBER`), else as the caller converts
  it (:class:`NumberJson`, :class:`NumberValues`); and, for a shape seen before, the shape's
  own row pattern (:class:`ShapeReader`: a split per shape).
- **The field layout** (:func:`field_layout`): per field, a group, a value number's slot or a
  constant, in the reference's order (:func:`.catalog._template` for the pairs); the types
  come from :data:`.catalog._CONVERTERS`.
- **The shape cache and its rule** (:class:`ShapeCache`): a shape's plan is made once and
  *checked on its first row against the reference* (the row's ``Event`` through the caller's
  reference writer); a shape that cannot be laid out, or whose check differs, goes the
  reference way for every row of it, never a wrong answer.

The report's decode series (``log/series.py``) reads its chart values by its own patterns;
:func:`series_key` and :func:`sample_pattern` are its shape key and pattern, here to be shared.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from itertools import compress, count, repeat
from operator import is_not, itemgetter
from typing import Any, Generic, TypeVar

from ..limits import rules as limit_rules
from .bulk import Rows, _Alt
from .catalog import _VALUE_NUMBER, _template

__all__ = [
    "JSON_SLOTS",
    "PLAIN_NUMBER",
    "SERIES_NUMBER",
    "TEXT_SLOTS",
    "Layout",
    "NumberJson",
    "NumberValues",
    "ShapeCache",
    "ShapeKey",
    "ShapeReader",
    "Shaped",
    "field_layout",
    "number_slots",
    "pick",
    "sample_pattern",
    "series_key",
    "series_literals",
    "spec_columns",
    "spec_rows",
    "split_pairs",
]

#: A row's shape: its spec (the alternative's number), the names of its named groups that
#: matched (in the spec's order), and its pairs key (``""`` for a spec without pairs).
ShapeKey = tuple[int, tuple[str, ...], str]
#: How a shape's fields are filled, in the reference's order: per field its name and a group
#: (``("g", i)``: the i-th *present* group), a value number's slot (``("n", j)``) or a
#: constant (``("c", value)``).
Layout = tuple[tuple[str, str, Any], ...]

#: The bounds of a value number whose text is its JSON, one place for the patterns below and
#: the C lane's ``int_slot``/``float_slot`` (``_rowjson.h`` defines the same names;
#: ``tests/test_lane_json.py`` holds them equal and tries each bound and one past it): an int's
#: digits; a float's whole digits, its kept decimals (the last one not 0), after ``0.`` its
#: leading zeros and then its digits, and the trailing zeros a shape's slot takes after it.
INT_DIGITS = 18
WHOLE_DIGITS = 9
KEPT_DIGITS = 6
SMALL_ZEROS = 3
SMALL_DIGITS = 3
TRAILING_ZEROS = 12
#: A value number with a point whose text is its JSON (what ``repr`` of the float prints: no
#: leading or trailing zero, at most 15 digits, no exponent form); an int's is its text
#: without a leading zero.
_PLAIN_POINT = (
    rf"[1-9][0-9]{{0,{WHOLE_DIGITS - 1}}}\.(?:0|[0-9]{{0,{KEPT_DIGITS - 1}}}[1-9])"
    rf"|0\.(?:0|0{{0,{SMALL_ZEROS}}}(?:[1-9]|[1-9][0-9]{{0,{SMALL_DIGITS - 2}}}[1-9]))"
)
_PLAIN_INT = rf"(?:0|[1-9][0-9]{{0,{INT_DIGITS - 1}}})(?![0-9.])"
#: A value number whose text is its JSON, as the general split takes it.
PLAIN_NUMBER = rf"{_PLAIN_INT}|(?:{_PLAIN_POINT})(?![0-9])"
#: A value number in a shape's row pattern, by whether its first row had a point there:
#: for the JSON writer (``JSON_SLOTS``) the group is its JSON, an int's text or a float's
#: without the trailing zeros ``repr`` drops (``0.50``); for values (``TEXT_SLOTS``) its
#: text (the digits :data:`.catalog._VALUE_NUMBER` takes). ``tests/test_bulk_json.py`` checks
#: the JSON ones against ``json.dumps``.
JSON_SLOTS = {False: f"({_PLAIN_INT})", True: f"({_PLAIN_POINT})0{{0,{TRAILING_ZEROS}}}"}
TEXT_SLOTS = {False: r"([0-9]{1,18})", True: r"([0-9]{1,18}\.[0-9]{1,18})"}


#: :data:`.catalog._VALUE_NUMBER` over rows joined by newlines: a row's end is a line's end
#: (rows are single lines; ``\\s`` without the newline, which no row holds), and its ``: ``
#: taken rather than looked behind (the engine then searches for that literal; the keys lose
#: it, one to one). The first group takes a :data:`PLAIN_NUMBER`, the second the others.
_VALUE_NUMBER_LINES = re.compile(
    f": (?:({PLAIN_NUMBER})|"
    + _VALUE_NUMBER.pattern.removeprefix("(?<=: )")
    .replace(r"\s?", r"[\t\x0b\x0c\r\x1c-\x1f ]?")
    .replace(r"\Z", r"(?=\n)|\Z")
    .replace("(?=", ")(?=", 1)
)
#: Where a value number was in a pairs key.
NUMBER_MARK = ": \x00"
#: Known shapes' row patterns kept per spec.
MAX_PATTERNS = 8


def spec_rows(rows: Rows, kinds: Any) -> tuple[Any, list[tuple[_Alt, list[int]]]]:
    """A block's full columns, and per spec (of ``kinds``; all when ``None``) its rows
    (indexes into the block), specs in the pattern's order."""
    shape = rows.shape
    full = shape.full
    cols = rows.cols if rows.layout is full else shape.full_columns(rows.piece)
    a, b = rows.start, rows.stop
    out: list[tuple[_Alt, list[int]]] = []
    for alt in shape.alts:
        if kinds is not None and alt.spec.kind not in kinds:
            continue
        column = cols[full.witness[alt.number]][a:b]
        picked = list(compress(count(), map(is_not, column, repeat(None))))
        if picked:
            out.append((alt, picked))
    return cols, out


def spec_columns(
    rows: Rows, cols: Any, alt: _Alt, picked: list[int]
) -> tuple[list[tuple[str, list[Any]]], bytes, list[str], list[str] | None]:
    """One spec's rows (``picked``) of a block: its named groups' raw columns (the field that
    takes the rest of the line among them), the rests of the lines joined by newlines and as
    texts, and the pairs texts ``read_pairs`` reads (``None`` for a spec without pairs)."""
    a, b = rows.start, rows.stop
    rest_raw = pick(cols[rows.shape.full.index["rest"]][a:b], picked)
    joined = b"\n".join(rest_raw)
    rest = joined.decode("ascii").split("\n")
    named = [
        (name, pick(cols[i][a:b], picked)) for name, i in alt.groups if not name.startswith("_")
    ]
    if alt.rest_field is not None and not alt.rest_field.startswith("_"):
        named.append((alt.rest_field, rest_raw))
    pairs: list[str] | None = None
    if alt.spec.pairs is not None:
        if alt.rest_field == "_pairs":
            pairs = rest
        else:
            column = next((cols[i] for name, i in alt.groups if name == "_pairs"), None)
            raw = pick(column[a:b], picked) if column is not None else [None] * len(picked)
            pairs = [x.decode("ascii") if x is not None else "" for x in raw]
    return named, joined, rest, pairs


def pick(column: list[Any], picked: list[int]) -> list[Any]:
    """``column``'s items at ``picked`` (increasing), without a Python step per row."""
    if len(picked) == len(column):
        return list(column)  # every row (picked is then 0, 1, ...)
    if len(picked) < 2:
        return [column[r] for r in picked]
    return list(itemgetter(*picked)(column))


def split_pairs(texts: list[str]) -> tuple[list[str], list[str | None], list[str | None]]:
    """Per row its pairs key (the text without its value numbers, :data:`NUMBER_MARK` where
    each was), and all rows' value numbers in order: the plain ones' text (``None`` for the
    others) and the others' (``None`` for the plain): one split of the rows joined by
    newlines (rows hold no NUL)."""
    parts = _VALUE_NUMBER_LINES.split("\n".join(texts))
    return NUMBER_MARK.join(parts[0::3]).split("\n"), parts[1::3], parts[2::3]


def _filled(plain: list[str | None], other: list[str | None], convert: Any) -> list[str]:
    """The value numbers' texts: a plain one's own, another's ``convert(text)`` (only these
    cost a Python step)."""
    out: list[str] = plain  # type: ignore[assignment]
    at = -1
    try:
        while True:
            at = plain.index(None, at + 1)
            out[at] = convert(other[at])
    except ValueError:
        return out


class NumberJson(dict[str, str]):
    """A value number's JSON text by its printed text (``0.50`` → ``0.5``), as
    :func:`.catalog.read_pairs` types it (float with a point, else int)."""

    def __missing__(self, text: str) -> str:
        value = repr(float(text)) if "." in text else repr(int(text))
        if len(self) < 65536:
            self[text] = value
        return value


class NumberValues(dict[str, Any]):
    """A value number's value by its text, as :func:`.catalog.read_pairs` types it."""

    def __missing__(self, text: str) -> Any:
        value = float(text) if "." in text else int(text)
        if len(self) < 65536:
            self[text] = value
        return value

    def column(self, texts: list[str]) -> list[Any]:
        """The values of a column of texts: all ints or all floats by ``int`` / ``float`` at
        C speed (a number's text holds at most one point), else one look-up each."""
        points = "".join(texts).count(".")
        if points == 0:
            return list(map(int, texts))
        if points == len(texts):
            return list(map(float, texts))
        return list(map(self.__getitem__, texts))


class Shaped:
    """The rows of one shape in one spec's rows of a block: ``ks`` (indexes into those
    rows, increasing), its value numbers a column per slot, and its first row's pairs text
    (what lays the shape out)."""

    __slots__ = ("key", "ks", "numbers", "pairs")

    def __init__(
        self, key: ShapeKey, ks: list[int], numbers: list[list[str]], pairs: str | None
    ) -> None:
        self.key = key
        self.ks = ks
        self.numbers = numbers
        self.pairs = pairs

    @property
    def width(self) -> int:
        return len(self.numbers)


T = TypeVar("T")


class ShapeReader:
    """Groups a spec's rows by shape, with their value numbers as columns; per spec, the row
    patterns of shapes seen before (:meth:`learn`), which take a block's numbers in one split
    each. ``convert``: a value number's text where it is not plain (the JSON writer's
    :class:`NumberJson`, or the text itself)."""

    def __init__(self, convert: Callable[[str], str] | None = None) -> None:
        self.convert: Any = convert if convert is not None else str
        #: by spec (its alternative's number): (pattern, pairs key, a point in each slot?)
        self.patterns: dict[int, list[tuple[re.Pattern[str], str, tuple[bool, ...]]]] = {}
        self.by_pattern = 0  # rows whose numbers came from a known shape's pattern

    def shapes(
        self, alt: _Alt, n: int, named: list[tuple[str, list[Any]]], pairs: list[str] | None
    ) -> list[Shaped]:
        """The shapes of one spec's ``n`` rows: ``named`` its named groups' columns
        (``None`` where a group did not match), ``pairs`` the rows' pairs texts (``None``:
        a spec without pairs)."""
        known = self.patterns.get(alt.number)
        absent = [column.count(None) for _, column in named]
        if known and pairs is not None and all(x == n for x in absent):
            out, left = self._by_patterns(alt.number, known, pairs)
            self.by_pattern += n - len(left)
            if left:
                more = self._by_split(alt, len(left), [], [pairs[k] for k in left], [])
                out += [_moved(s, left) for s in more]
            return out
        return self._by_split(alt, n, named, pairs, absent)

    def plan(
        self,
        cache: ShapeCache[T],
        alt: _Alt,
        shaped: Shaped,
        make: Callable[[], T | None],
        check: Callable[[T], bool],
    ) -> T | None:
        """A shape's plan in ``cache``: known, or ``make()`` kept when ``check`` passes (its
        first row as the reference makes it: :meth:`ShapeCache.settle`); a checked pairs
        shape without groups is learnt (:meth:`learn`)."""
        known, plan = cache.known(shaped.key)
        if known:
            return plan
        plan = cache.settle(shaped.key, make(), check)
        if plan is not None and alt.spec.pairs is not None and not shaped.key[1]:
            self.learn(alt.number, shaped)
        return plan

    def learn(self, number: int, shaped: Shaped) -> None:
        """Remember a pairs shape without groups (laid out and checked) by a pattern that
        takes a whole row of it, its value numbers as groups: each an int or a number with a
        point, as on the shape's first row (a row with another there is left to the split)."""
        key = shaped.key[2]
        known = self.patterns.setdefault(number, [])
        found = number_slots(shaped) if NUMBER_MARK in key and len(known) < MAX_PATTERNS else None
        if found is not None:
            pieces, points = found
            pattern = "\n" + re.escape(pieces[0])
            slots = TEXT_SLOTS if self.convert is str else JSON_SLOTS
            for point, piece in zip(points, pieces[1:], strict=True):
                pattern += f": {slots[point]}" + re.escape(piece)
            compiled = re.compile(pattern + "(?=\n|\\Z)")
            known.append((compiled, key, points))

    def _by_split(
        self,
        alt: _Alt,
        n: int,
        named: list[tuple[str, list[Any]]],
        pairs: list[str] | None,
        absent: list[int],
    ) -> list[Shaped]:
        """:meth:`shapes` by the general split of the value numbers (``absent``: per named
        group, on how many rows it did not match)."""
        if pairs is not None:
            keys, plain, other = split_pairs(pairs)
            numbers = _filled(plain, other, self.convert)
        else:
            keys, numbers = [""] * n, []
        names = [name for name, _ in named]
        groups: dict[tuple[tuple[str, ...], str], list[int]] = {}
        if all(x in (0, n) for x in absent):  # every row has the same groups
            present = tuple(name for name, x in zip(names, absent, strict=True) if x == 0)
            if keys.count(keys[0]) == n:
                groups[(present, keys[0])] = list(range(n))
            else:
                for k, key in enumerate(keys):
                    groups.setdefault((present, key), []).append(k)
        else:
            for k, key in enumerate(keys):
                there = tuple(name for name, c in named if c[k] is not None)
                groups.setdefault((there, key), []).append(k)
        widths = {key.count("\x00") for _, key in groups}
        offsets: list[int] = []
        if len(widths) > 1:  # rows of several widths: where each row's numbers start
            offsets = [0]
            for key in keys:
                offsets.append(offsets[-1] + key.count("\x00"))
        out: list[Shaped] = []
        for (present, key), ks in groups.items():
            width = key.count("\x00")
            if offsets:
                columns = [[numbers[offsets[k] + j] for k in ks] for j in range(width)]
            else:
                columns = [pick(numbers[j::width], ks) for j in range(width)]
            first = pairs[ks[0]] if pairs is not None else None
            out.append(Shaped((alt.number, present, key), ks, columns, first))
        return out

    def _by_patterns(
        self,
        number: int,
        known: list[tuple[re.Pattern[str], str, tuple[bool, ...]]],
        pairs: list[str],
    ) -> tuple[list[Shaped], list[int]]:
        """The rows of known shapes (per shape one split of the rows left), and the rows of
        others; the shape that took the most rows is tried first next time."""
        out: list[Shaped] = []
        todo = list(range(len(pairs)))
        text = "\n" + "\n".join(pairs)
        for pattern, key, points in known:
            if not todo:
                break
            if len(todo) < len(pairs):
                text = "\n" + "\n".join(pick(pairs, todo))
            pieces = pattern.split(text)
            step = len(points) + 1
            found = len(pieces) // step
            if not found:
                continue
            columns = [pieces[j::step] for j in range(1, step)]
            if found == len(todo):  # every row left is of this shape
                out.append(Shaped((number, (), key), todo, columns, pairs[todo[0]]))
                todo = []
                break
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
            out.append(Shaped((number, (), key), hits, columns, pairs[hits[0]]))
            todo = left
        if out and out[0].key[2] != known[0][1]:
            top = max(out, key=lambda s: len(s.ks)).key[2]
            known.sort(key=lambda entry: entry[1] != top)
        return out, todo


def number_slots(shaped: Shaped) -> tuple[list[str], tuple[bool, ...]] | None:
    """A pairs shape's text around its value numbers (its key's pieces: ``: `` and a number
    between each two) and, per number, whether the shape's first row has a point there (an
    int slot or one with a point, :data:`JSON_SLOTS`); ``None`` where the two disagree."""
    pieces = shaped.key[2].split(NUMBER_MARK)
    _, plain, other = split_pairs([shaped.pairs or ""])
    points = tuple("." in (p or o or "") for p, o in zip(plain, other, strict=True))
    return (pieces, points) if len(points) == len(pieces) - 1 else None


def _moved(shaped: Shaped, rows: list[int]) -> Shaped:
    """``shaped`` of a subset of rows (``rows``) as one of all of them."""
    shaped.ks = pick(rows, shaped.ks)
    return shaped


def field_layout(alt: _Alt, present: tuple[str, ...], pairs: str | None) -> Layout | None:
    """How a shape's fields are filled (``None``: the reference way), in the order the
    reference has them: the present groups, then the pairs (one of a group's name takes its
    value in the group's place, as ``dict.update`` does). ``None`` for a spec that sets
    arguments, a pairs text without a value number or with a mutable value
    (:func:`.catalog._template`), or a field :mod:`..limits` may reject (issue 20)."""
    spec = alt.spec
    if spec.sets:
        return None
    slots: dict[str, tuple[str, Any]] = {name: ("g", g) for g, name in enumerate(present)}
    if spec.pairs is not None and pairs:
        if len(_VALUE_NUMBER.split(pairs)) == 1:
            return None
        shape = _template(pairs, spec.pairs)
        if shape is False:
            return None
        for name, slot, value in shape:
            slots[name] = ("n", slot) if slot >= 0 else ("c", value)
    rules = limit_rules()
    if any(name in rules for name in slots):
        return None
    return tuple((name, how, arg) for name, (how, arg) in slots.items())


class ShapeCache(Generic[T]):
    """Each shape's plan (an emitter's form of its :func:`field_layout`), made once and kept
    only when it gives the reference's answer on the shape's first row; ``None`` (the
    reference way) otherwise. At most ``limit`` shapes; beyond, a shape is made each block
    (never a wrong answer, only slower)."""

    def __init__(self, limit: int = 4096) -> None:
        self.plans: dict[Hashable, T | None] = {}
        self.limit = limit

    def known(self, key: Hashable) -> tuple[bool, T | None]:
        """Whether the shape was seen (in this output), and its plan (``None``: the
        reference way)."""
        plan = self.plans.get(key, _UNKNOWN)
        return (False, None) if plan is _UNKNOWN else (True, plan)

    def settle(self, key: Hashable, made: T | None, check: Callable[[T], bool]) -> T | None:
        """A new shape's plan: ``made`` (from its :func:`field_layout`) when ``check(made)``
        (its first row as the reference makes it), else ``None``, kept for the shape."""
        if made is not None and not check(made):
            made = None
        if len(self.plans) < self.limit:
            self.plans[key] = made
        return made


_UNKNOWN: Any = object()


#: A number of a decode line, as the report's series reads them (``log/series.py``); no
#: possessive quantifiers (Python 3.10's ``re`` has none).
SERIES_NUMBER = re.compile(rb"\d{1,18}(?:\.\d{1,12})?")
#: A number inside a series pattern: possessive (a line whose numbers only fit the shape by
#: giving back digits is no line of it), ``regex`` on Python 3.10.
_SLOT_NUM = rb"[0-9]{1,18}+(?:\.[0-9]{1,12}+)?+"


def series_key(text: bytes) -> bytes:
    """The series' shape key of a decode line's field text: the text without its numbers."""
    return SERIES_NUMBER.sub(b"", text)


def series_literals(sample: bytes) -> tuple[bytes, ...]:
    """The literal parts of ``sample`` around its numbers (one more than the numbers): the C
    lane's reading of the shape (``fastscan.shape_values``)."""
    cuts = [0, *(i for m in SERIES_NUMBER.finditer(sample) for i in m.span()), len(sample)]
    return tuple(sample[cuts[i] : cuts[i + 1]] for i in range(0, len(cuts), 2))


def sample_pattern(sample: bytes, wanted: list[int]) -> bytes:
    """The series' row pattern of ``sample``'s shape: a marker group (the first character),
    each number a possessive number (a group at the indexes ``wanted``, in order), the
    rest literal; any other line matches empty (compile with ``re.M``; Python 3.10's ``re``
    has no possessive quantifiers: the ``regex`` module there)."""
    body = [b"(" + re.escape(sample[:1]) + b")"]
    at = 1
    for i, m in enumerate(SERIES_NUMBER.finditer(sample)):
        body.append(re.escape(sample[at : m.start()]))
        body.append(b"(" + _SLOT_NUM + b")" if i in wanted else _SLOT_NUM)
        at = m.end()
    body.append(re.escape(sample[at:]))
    return b"^(?:" + b"".join(body) + rb"$|[^\n]*)"
