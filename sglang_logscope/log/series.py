"""Decode-batch series of a log of any size, downsampled while the log streams by.

The report's serving charts need, per rank, the KV tokens in use and the decode throughput
over time. A long-running server prints millions of decode lines, so they are folded as they
pass into per-minute buckets (count, sum, min, max) per rank: memory follows the minutes, not
the lines, and a chart draws a bounded number of points (:data:`MAX_BUCKETS` per series,
buckets widened beyond that).

Bulk rows (:class:`~sglang_logscope.bulk.Rows`) are read a block at a time: a decode line's
field text has one of a handful of *shapes* (its literal parts, numbers between them), and a
shape's pattern takes the chart values of every line of that shape in one ``findall`` over
the block. A shape is made from a sample line and checked against the parser's own reading of
it (``MessageSpec.convert``); a line of no known shape, or of a shape whose numbers the parser
reads otherwise, is read through the parser. Decode lines the line parser took come as events
and are read from their fields. ``tests/test_series.py`` holds the buckets to those of the
parser's events."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from itertools import compress, count, repeat
from operator import is_not
from typing import Any

import numpy as np

from .._record import record
from .._text import own_pattern
from ..events import Event, EventKind
from ..parse.blanks import Blanks
from ..parse.bulk import SERIES, Fields, Rows, row_time
from ..parse.catalog import MessageSpec, read_pairs
from ..parse.fastscan import MAX_LANE_NUMBERS, LaneTable, decode_values, shape_values
from ..parse.lines import iter_records
from ..parse.shapes import SERIES_NUMBER, sample_pattern, series_key, series_literals
from ..parse.source import Source, describe
from ..timing import wall_seconds
from .reader import Log
from .runs import KeptEvents, stream_runs
from .tail import CHECK_KINDS

#: Ranks drawn per chart (DP attention logs print one decode line per rank).
MAX_SERIES = 8
#: Buckets kept per series when drawn; longer spans get wider buckets (whole minutes).
MAX_BUCKETS = 1500
#: Up to this many points per chart (all ranks), every decode line is kept as its own point
#: too, and drawn so; beyond, the chart draws the buckets.
MAX_POINTS = 2000
#: Rows pending in a series before they are folded into its columns (or as many as it holds),
#: and parts (a block's runs each: small arrays, ~0.5 kB apiece) pending at most.
SETTLE_ROWS = 1 << 16
SETTLE_PARTS = 256
#: Per chart value, the fields that hold it, the first one present winning.
TOKENS = ("full_token", "token")
THROUGHPUT = ("gen_throughput",)
USAGE = ("full_token_usage", "token_usage")
_KEYS = (TOKENS, THROUGHPUT, USAGE)
#: Python 3.11's ``re`` (possessive quantifiers, atomic groups; the faster engine here), 3.10's
#: ``regex``: :func:`~sglang_logscope._text.own_pattern`.
_compile: Any = own_pattern
#: Line shapes remembered (a log prints a handful: one per release and model kind).
MAX_SHAPES = 64
#: Shapes made at most per series: a log whose decode lines keep changing shape (none real
#: does) has the rest read by the parser, line by line, instead of a pattern compiled each.
MAX_SHAPES_MADE = 4 * MAX_SHAPES


@record(frozen=False)
class Bucket:
    """The values of one minute (or wider span) of one rank."""

    count: int
    total: float
    low: float
    high: float

    @property
    def mean(self) -> float:
        return self.total / self.count

    def merge(self, other: Bucket) -> None:
        self.count += other.count
        self.total += other.total
        self.low = min(self.low, other.low)
        self.high = max(self.high, other.high)


#: A series: per rank label, per minute (``YYYY-MM-DD HH:MM``), its bucket.
Series = dict[str, dict[str, Bucket]]


class _Folds:
    """One rank's buckets of one chart as numpy columns (minute, count, sum, min, max), the
    minutes in the order they first appear. Blocks' runs and single lines are appended as
    they come and folded together now and then (a sort, no Python object per minute): a
    minute's sum adds its parts in the order they came, as :meth:`Bucket.merge` would."""

    __slots__ = ("_parts", "_pending", "_singles", "columns")

    def __init__(self) -> None:
        empty = np.empty(0, np.float64)
        #: minute (``S16``), count, sum, min, max: one row per minute, first seen first
        self.columns: tuple[Any, ...] = (np.empty(0, "S16"), np.empty(0, np.int64), empty, empty)
        self.columns += (empty,)
        self._parts: list[tuple[Any, ...]] = []
        self._pending = 0
        self._singles: tuple[list[bytes], list[float]] = ([], [])

    def __eq__(self, other: object) -> bool:
        """The same buckets in the same order (everything added folded in first)."""
        if not isinstance(other, _Folds):
            return NotImplemented
        return all(
            np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
            for a, b in zip(self.settle(), other.settle(), strict=True)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    def put(self, minute: bytes, value: float) -> None:
        """One line's value."""
        self._singles[0].append(minute)
        self._singles[1].append(value)
        if len(self._singles[1]) >= SETTLE_ROWS // 16:
            self._flush_singles()
            self._bounded()

    def add(self, minutes: Any, counts: Any, totals: Any, lows: Any, highs: Any) -> None:
        """A block's runs of one minute each (their count, sum, min and max)."""
        self._flush_singles()
        self._parts.append((minutes, counts, totals, lows, highs))
        self._pending += len(minutes)
        self._bounded()

    def _bounded(self) -> None:
        """Folds what is pending once it outgrows the folded columns or holds many parts
        (memory follows the minutes; each row is sorted a bounded number of times over)."""
        if len(self._parts) >= SETTLE_PARTS or self._pending > max(
            SETTLE_ROWS, len(self.columns[0])
        ):
            self.settle()

    def _flush_singles(self) -> None:
        minutes, values = self._singles
        if minutes:
            v = np.array(values, np.float64)
            self._parts.append((np.array(minutes, "S16"), np.ones(len(v), np.int64), v, v, v))
            self._singles = ([], [])
            self._pending += len(v)

    def settle(self) -> tuple[Any, ...]:
        """The columns with everything added folded in (one row per minute)."""
        self._flush_singles()
        if not self._parts:
            return self.columns
        cols = [np.concatenate(c) for c in zip(self.columns, *self._parts, strict=True)]
        self._parts, self._pending = [], 0
        minutes = cols[0]
        order = np.argsort(minutes, kind="stable")  # a minute's parts stay in their order
        ordered = minutes[order]
        new = np.concatenate(([True], ordered[1:] != ordered[:-1]))
        starts = np.flatnonzero(new)
        group = np.cumsum(new) - 1
        counts = np.add.reduceat(cols[1][order], starts)
        # bincount adds each group's parts one after another, in order (as Bucket.merge)
        totals = np.bincount(group, weights=cols[2][order], minlength=len(starts))
        lows = _extreme(np.fmin, cols[3][order], starts)
        highs = _extreme(np.fmax, cols[4][order], starts)
        first = np.argsort(order[starts], kind="stable")  # minutes in first-seen order
        self.columns = tuple(c[first] for c in (ordered[starts], counts, totals, lows, highs))
        return self.columns

    def buckets(self) -> dict[str, Bucket]:
        """Per minute (``YYYY-MM-DD HH:MM``), its bucket, first seen first."""
        minutes, counts, totals, lows, highs = (c.tolist() for c in self.settle())
        return {
            m.decode("ascii"): Bucket(n, t, lo, hi)
            for m, n, t, lo, hi in zip(minutes, counts, totals, lows, highs, strict=True)
        }

    def points(self) -> list[tuple[float, float, float, float]]:
        """``(time, min, mean, max)`` per bucket in time order, at most :data:`MAX_BUCKETS`
        (runs of ``k`` adjacent minutes merged beyond that, as :func:`_widen`)."""
        minutes, counts, totals, lows, highs = self.settle()
        order = np.argsort(minutes, kind="stable")
        n = len(order)
        k = max(1, -(-n // MAX_BUCKETS))
        starts = np.arange(0, n, k)
        group = np.arange(n) // k
        count = np.add.reduceat(counts[order], starts)
        total = np.bincount(group, weights=totals[order], minlength=len(starts))
        low = _extreme(np.fmin, lows[order], starts).tolist()
        high = _extreme(np.fmax, highs[order], starts).tolist()
        names = minutes[order[starts]].tolist()
        means = (total / count).tolist()
        return [
            (_seconds(m.decode("ascii")), lo, mean, hi)
            for m, lo, mean, hi in zip(names, low, means, high, strict=True)
        ]


def _extreme(ufunc: Any, values: Any, starts: Any) -> Any:
    """Each group's min (``np.fmin``) or max (``np.fmax``) as :meth:`Bucket.merge` takes it, a
    group after another: a ``nan`` first in its group stays, one after is passed over."""
    found = ufunc.reduceat(values, starts)
    first = values[starts]
    return np.where(np.isnan(first), first, found)


class _Shape:
    """A shape of decode field text: ``pattern`` takes, for each line of a block, a marker
    (non-empty where the line has this shape) and the numbers at ``slots`` (per chart value:
    its group, or ``None`` when the shape lacks it). ``pattern`` is ``None`` when the shape's
    lines must go through the parser."""

    __slots__ = ("literals", "pattern", "picks", "slots")

    def __init__(
        self,
        pattern: re.Pattern[bytes] | None,
        slots: tuple[int | None, ...],
        literals: tuple[bytes, ...] = (),
        picks: tuple[int, ...] = (),
    ) -> None:
        self.pattern = pattern
        self.slots = slots
        #: the C lane's reading of the same shape: its literal parts and the numbers picked
        #: (the pattern's groups after the marker, in order)
        self.literals = literals
        self.picks = picks


def _shape_of(sample: bytes, spec: MessageSpec) -> _Shape:
    """The shape of one line of decode field text, checked against the parser's reading."""
    fields = spec.convert({"_pairs": sample.decode("ascii")})
    numbers = list(SERIES_NUMBER.finditer(sample))
    picks: list[int | None] = []
    for keys in _KEYS:
        want = _first_number(fields, keys)
        hits = [i for i, m in enumerate(numbers) if want is not None and float(m[0]) == want]
        if want is not None and len(hits) != 1:
            return _Shape(None, ())  # a value the numbers do not give unambiguously
        picks.append(hits[0] if hits else None)
    if not sample or sample[:1].isdigit() or all(p is None for p in picks):
        return _Shape(None, ())
    wanted = sorted(p for p in picks if p is not None)
    pattern, literals = _template(sample, wanted)
    slots = tuple(None if p is None else 1 + wanted.index(p) for p in picks)
    return _Shape(pattern, slots, literals, tuple(wanted))


def _template(sample: bytes, wanted: Sequence[int]) -> tuple[re.Pattern[bytes], tuple[bytes, ...]]:
    """The pattern of ``sample``'s shape (a marker group, then a group per number at
    ``wanted``; its numbers possessive: a line whose numbers only fit the shape by giving back
    digits is no line of it, and the pattern costs half) and its literal parts (around its
    numbers: the C lane's reading of it), both as ``parse/shapes.py`` defines them."""
    return _compile(sample_pattern(sample, list(wanted)), re.M), series_literals(sample)


class ServingSeries:
    """Decode lines folded into per-minute buckets per rank (see the module doc)."""

    def __init__(self) -> None:
        #: per chart, per rank (at most :data:`MAX_SERIES`), its minutes' buckets
        self.charts: dict[str, dict[str, _Folds]] = {"tokens": {}, "throughput": {}}
        self.lines = 0  # decode lines seen (dated)
        self.peak_usage: float | None = None
        self._shapes: dict[bytes, _Shape] = {}
        self._made = 0
        self._current: _Shape | None = None
        #: every point while there are few (per chart: rank -> (seconds, value)), else None
        self.raw: dict[str, dict[str, list[tuple[float, float]]] | None] = {
            "tokens": {},
            "throughput": {},
        }
        self._raw_count = {"tokens": 0, "throughput": 0}

    def add(self, item: Event | Rows | Blanks) -> None:
        if isinstance(item, Rows):
            self.add_rows(item)
        elif isinstance(item, Blanks):
            return  # no decode line
        elif item.kind is EventKind.DECODE_BATCH:
            self.add_event(item)

    def add_event(self, event: Event) -> None:
        if event.timestamp is None:
            return
        minute = f"{event.timestamp:%Y-%m-%d %H:%M}"
        rank = event.rank.label if event.rank else "all"
        values = [_first_number(event.fields, keys) for keys in _KEYS]
        self._one(rank, minute, values, event.timestamp)

    def _one(
        self, rank: str, minute: str, values: Sequence[float | None], when: datetime | bytes
    ) -> None:
        self.lines += 1
        for chart, value in (("tokens", values[0]), ("throughput", values[1])):
            if value is None:
                continue
            folds = _folds_of(self.charts[chart], rank)
            if folds is not None:
                folds.put(minute.encode("ascii"), value)
            if self.raw[chart] is not None:
                self._keep_raw(chart, rank, when, value)
        usage = values[2]
        if usage is not None and (self.peak_usage is None or usage > self.peak_usage):
            self.peak_usage = usage

    def add_rows(self, rows: Rows) -> None:
        """The decode rows of a block: a block of plain rows read by the C lane from its bytes
        (once the charts draw buckets), else from its columns (sliced, or picked in C)."""
        shape = rows.shape
        decode = [
            alt
            for alt in shape.alts
            if alt.spec.kind is EventKind.DECODE_BATCH and alt.rest_field == "_pairs"
        ]
        if rows.summary is not None and shape.lane is not None and not self._raw_wanted():
            mask = rows.summary.alternatives
            decode = [
                alt
                for alt in decode
                if mask >> alt.number & 1
                and not self._lane_block(rows, shape.lane, alt.number, alt.spec)
            ]
            if not decode:
                return
        layout = rows.layout
        cols = rows.cols
        if not all(name in layout.index for name in ("rest", "ranks")):
            layout, cols = shape.full, shape.full_columns(rows.piece)
        a, b = rows.start, rows.stop
        for alt in decode:
            witness = _part(cols[layout.witness[alt.number]], a, b)
            absent = witness.count(None)
            if absent == b - a:
                continue
            wanted = [cols[layout.index[name]] for name in ("rest", "ranks", "ts")]
            if absent:
                picked = list(compress(range(a, b), map(is_not, witness, repeat(None))))
                texts, ranks, stamps = (list(map(c.__getitem__, picked)) for c in wanted)
            else:
                texts, ranks, stamps = (_part(c, a, b) for c in wanted)
            self._block(texts, ranks, stamps, alt.spec)  # type: ignore[arg-type]

    def _lane_block(self, rows: Rows, lane: LaneTable, alt: int, spec: MessageSpec) -> bool:
        """The rows of alternative ``alt`` (of ``spec``) of a block of plain rows, read by the C lane from its bytes (no
        object per row): those of the current shape folded with numpy, the others one by
        one as :meth:`_block` reads them. ``False`` where the lane does not read the block."""
        current = self._current
        usable = current is not None and current.pattern is not None
        if usable and len(current.literals) > 1 + MAX_LANE_NUMBERS:  # type: ignore[union-attr]
            usable = False
        shape = (current.literals, current.picks) if usable else ((), ())  # type: ignore[union-attr]
        found = decode_values(rows.piece.data, lane, alt, *shape)
        if found is None:
            return False
        minute_bytes, labels, index_bytes, flags, values, misses = found
        minutes = np.frombuffer(minute_bytes, "S16")
        index = np.frombuffer(index_bytes, np.int32)
        of_shape = np.frombuffer(flags, np.bool_)
        if usable and of_shape.any():
            assert current is not None
            hits = None if len(misses) == 0 else np.flatnonzero(of_shape)
            table = np.frombuffer(values, np.float64).reshape(-1, len(current.picks))
            numbers = {s: table[:, s - 1] for s in current.slots if s is not None}
            picked = index if hits is None else index[hits]
            self._fold_minutes(
                numbers,
                _by_label(labels, picked),
                minutes if hits is None else minutes[hits],
                None,
                current.slots,
            )
        for j, text in zip(np.flatnonzero(~of_shape).tolist(), misses, strict=True):
            label = labels[index[j]]
            minute = bytes(minutes[j])
            rank = label[1:].decode("ascii") if label else "all"
            self._one(rank, minute.decode("ascii"), self._values(text, spec), minute)
        return True

    def _block(
        self, texts: list[bytes], ranks: list[bytes], stamps: list[bytes], spec: MessageSpec
    ) -> None:
        """One block's decode lines: the current shape's pattern over all of them (folded with
        numpy), the lines it does not take one by one (their own shape, or the parser)."""
        current = self._current
        read = None
        if current is not None and current.pattern is not None:
            read = _read_shape(current, texts)
        misses: Sequence[int] = range(len(texts))
        if read is not None:
            assert current is not None
            hits, numbers, misses = read
            if hits is None or hits:
                self._fold(numbers, _pick(ranks, hits), _pick(stamps, hits), current.slots)
        for j in misses:
            rank = ranks[j][1:].decode("ascii") if ranks[j] else "all"
            minute = stamps[j][:16].decode("ascii")
            self._one(rank, minute, self._values(texts[j], spec), stamps[j])

    def _raw_wanted(self) -> bool:
        return any(v is not None for v in self.raw.values())

    def _fold(
        self,
        numbers: Mapping[int, Any],
        ranks: list[bytes],
        stamps: list[bytes],
        slots: tuple[int | None, ...],
    ) -> None:
        """Rows of one shape (per slot, a numpy column of its values) into the buckets: per
        rank, per run of rows in the same minute, count, sum, min and max at once (and each
        point while few)."""
        minutes = np.array(stamps, dtype="S16")  # the time cut to its minute
        self._fold_minutes(numbers, _by_rank(ranks), minutes, stamps, slots)

    def _fold_minutes(
        self,
        numbers: Mapping[int, Any],
        by_rank: list[tuple[bytes, Any]],
        minutes: Any,
        stamps: list[bytes] | None,
        slots: tuple[int | None, ...],
    ) -> None:
        """:meth:`_fold` of rows given by rank (each label with its rows), their minutes
        (``S16``) and, while the charts keep each point, their times."""
        self.lines += len(minutes)
        if slots[2] is not None:
            peak = float(numbers[slots[2]].max())
            if self.peak_usage is None or peak > self.peak_usage:
                self.peak_usage = peak
        raw = self._raw_wanted()
        for label, chosen in by_rank:
            rank = label[1:].decode("ascii") if label else "all"
            picked = {slot: v[chosen] for slot, v in numbers.items()}
            if raw:
                assert stamps is not None
                kept = stamps if isinstance(chosen, slice) else list(compress(stamps, chosen))
                self._fold_raw(rank, picked, kept, slots)
            m = minutes[chosen]
            starts = np.flatnonzero(np.concatenate(([True], m[1:] != m[:-1])))
            counts = np.diff(np.append(starts, len(m)))
            for chart, slot in (("tokens", slots[0]), ("throughput", slots[1])):
                if slot is None or (folds := _folds_of(self.charts[chart], rank)) is None:
                    continue
                v = picked[slot]
                folds.add(
                    m[starts],
                    counts,
                    np.add.reduceat(v, starts),
                    np.minimum.reduceat(v, starts),
                    np.maximum.reduceat(v, starts),
                )

    def _fold_raw(
        self,
        rank: str,
        numbers: Mapping[int, Any],
        stamps: list[bytes],
        slots: tuple[int | None, ...],
    ) -> None:
        """Each row of one rank as its own point, while the charts keep points."""
        for chart, slot in (("tokens", slots[0]), ("throughput", slots[1])):
            if slot is None:
                continue
            for stamp, value in zip(stamps, numbers[slot].tolist(), strict=True):
                if self.raw[chart] is None:
                    break
                self._keep_raw(chart, rank, stamp, value)

    def _keep_raw(self, chart: str, rank: str, when: datetime | bytes, value: float) -> None:
        _keep_point(self.raw, self._raw_count, chart, rank, when, value)

    def _values(self, text: bytes, spec: MessageSpec) -> list[float | None]:
        """One line's chart values through its shape (made and remembered on first sight)."""
        skeleton = series_key(text)
        known = self._shapes.get(skeleton)
        if known is None and self._made < MAX_SHAPES_MADE:
            if len(self._shapes) >= MAX_SHAPES:
                self._shapes.clear()
            self._made += 1
            known = self._shapes[skeleton] = _shape_of(text, spec)
        if known is not None and known.pattern is not None:
            m = known.pattern.match(text)
            if m is not None and m[1]:
                self._current = known
                return [None if s is None else float(m[s + 1]) for s in known.slots]
        fields = spec.convert({"_pairs": text.decode("ascii")})
        return [_first_number(fields, keys) for keys in _KEYS]

    def points(self, which: str) -> dict[str, list[tuple[float, float, float, float]]]:
        """Per rank, ``(time, min, mean, max)`` per bucket in time order, at most
        :data:`MAX_BUCKETS` of them (adjacent buckets merged beyond that)."""
        return {rank: folds.points() for rank, folds in self.charts[which].items()}

    @property
    def tokens(self) -> Series:
        """The KV tokens' buckets: per rank, per minute, first seen first."""
        return {rank: folds.buckets() for rank, folds in self.charts["tokens"].items()}

    @property
    def throughput(self) -> Series:
        """The decode throughput's buckets: per rank, per minute, first seen first."""
        return {rank: folds.buckets() for rank, folds in self.charts["throughput"].items()}


def _keep_point(
    raw: dict[str, dict[str, list[tuple[float, float]]] | None],
    counts: dict[str, int],
    chart: str,
    rank: str,
    when: datetime | bytes,
    value: float,
) -> None:
    """One point of ``chart`` kept as its own, while the chart has at most
    :data:`MAX_POINTS` (beyond, ``raw[chart]`` becomes ``None``: the buckets are drawn)."""
    points = raw[chart]
    assert points is not None
    series = points.get(rank)
    if series is None:
        if len(points) >= MAX_SERIES:
            return
        series = points[rank] = []
    counts[chart] += 1
    if counts[chart] > MAX_POINTS:
        raw[chart] = None  # too many to draw one by one: the buckets are drawn
        return
    stamp = when if isinstance(when, datetime) else row_time(when)
    series.append((wall_seconds(stamp), value))


def _read_shape(
    shape: _Shape, texts: list[bytes]
) -> tuple[list[int] | None, dict[int, Any], Sequence[int]] | None:
    """The lines of ``texts`` of ``shape`` (``None``: all), per slot the numpy column of their
    values, and the other lines; ``None`` if the lines are not one match each. The C lane
    reads them where built (``shape_values``), else one ``split`` of the shape's pattern."""
    assert shape.pattern is not None
    found = None
    if len(shape.literals) <= 1 + MAX_LANE_NUMBERS:
        found = shape_values(texts, shape.literals, shape.picks)
    if found is not None:
        flags, values = found
        of_shape = np.frombuffer(flags, np.bool_)
        table = np.frombuffer(values, np.float64).reshape(-1, len(shape.picks))
        numbers = {slot: table[:, slot - 1] for slot in shape.slots if slot is not None}
        if len(table) == len(texts):
            return None, numbers, ()
        return np.flatnonzero(of_shape).tolist(), numbers, np.flatnonzero(~of_shape).tolist()
    groups = _group_columns(shape.pattern, texts)
    if groups is None:  # pragma: no cover - one match per line by design
        return None
    marker = groups[0]
    absent = marker.count(None)
    hits = None if not absent else list(compress(count(), map(is_not, marker, repeat(None))))
    numbers = {
        slot: np.fromiter(map(float, _pick(groups[slot], hits)), np.float64)
        for slot in shape.slots
        if slot is not None
    }
    misses = [j for j, m in enumerate(marker) if m is None] if absent else ()
    return hits, numbers, misses


def _group_columns(pattern: re.Pattern[bytes], texts: list[bytes]) -> list[list[Any]] | None:
    """Per group of a shape's ``pattern``, its value on each of ``texts`` (``None`` where the
    line is not of the shape): one ``split`` over the joined lines, the columns sliced from
    its flat list (no tuple per line). ``None`` if the matches are not one per line."""
    parts = pattern.split(b"\n".join(texts))
    width = pattern.groups + 1
    if len(parts) != 1 + len(texts) * width:  # pragma: no cover - one match per line by design
        return None
    return [parts[k::width] for k in range(1, width)]


def _part(column: list[Any], a: int, b: int) -> list[Any]:
    """``column[a:b]``, not copied when that is all of it (it is only read)."""
    return column if a == 0 and b == len(column) else column[a:b]


def _pick(column: list[Any], rows: list[int] | None) -> list[Any]:
    """``column`` at ``rows`` (all of it for ``None``)."""
    return column if rows is None else list(map(column.__getitem__, rows))


def _by_rank(ranks: list[bytes]) -> list[tuple[bytes, Any]]:
    """Each rank label of ``ranks`` with the rows that carry it (a slice for all, else a mask),
    in the order they first appear, as the line-by-line reading meets them."""
    labels = dict.fromkeys(ranks)  # first seen first
    if len(labels) == 1:
        return [(ranks[0], slice(None))]
    column = np.array(ranks)  # as wide as the widest label (none holds a NUL)
    return [(label, column == label) for label in labels]


def _by_label(labels: list[bytes], index: Any) -> list[tuple[bytes, Any]]:
    """:func:`_by_rank` of rows given as an index into ``labels`` (the C lane's reading)."""
    if len(labels) == 1:
        return [(labels[0], slice(None))]
    found, first = np.unique(index, return_index=True)
    return [(labels[found[i]], index == found[i]) for i in np.argsort(first, kind="stable")]


def _first_number(fields: Mapping[str, Any], keys: Iterable[str]) -> float | None:
    for key in keys:
        v = fields.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return float(v)
    return None


def _put(series: Series, rank: str, minute: str, value: float | None) -> None:
    if value is None:
        return
    minutes = series.get(rank)
    if minutes is None:
        if len(series) >= MAX_SERIES:
            return
        minutes = series[rank] = {}
    bucket = minutes.get(minute)
    if bucket is None:
        minutes[minute] = Bucket(1, value, value, value)
    else:
        bucket.count += 1
        bucket.total += value
        if value < bucket.low:
            bucket.low = value
        elif value > bucket.high:
            bucket.high = value


def _folds_of(chart: dict[str, _Folds], rank: str) -> _Folds | None:
    """``rank``'s buckets of ``chart``, new ones while it has fewer than :data:`MAX_SERIES`."""
    folds = chart.get(rank)
    if folds is None and len(chart) < MAX_SERIES:
        folds = chart[rank] = _Folds()
    return folds


def _widen(items: list[tuple[str, Bucket]]) -> list[tuple[str, Bucket]]:
    """At most :data:`MAX_BUCKETS` buckets: runs of ``k`` adjacent ones merged."""
    if len(items) <= MAX_BUCKETS:
        return items
    k = -(-len(items) // MAX_BUCKETS)
    out: list[tuple[str, Bucket]] = []
    for i in range(0, len(items), k):
        first, bucket = items[i]
        acc = Bucket(bucket.count, bucket.total, bucket.low, bucket.high)
        for _, other in items[i + 1 : i + k]:
            acc.merge(other)
        out.append((first, acc))
    return out


def _seconds(minute: str) -> float:
    """A minute (``YYYY-MM-DD HH:MM``) on the report's time line (:func:`.wall_seconds`)."""
    if len(minute) == 16 and minute[10] == " ":  # the common form, read without strptime
        return wall_seconds(datetime.fromisoformat(minute))
    return wall_seconds(datetime.strptime(minute, "%Y-%m-%d %H:%M"))


#: The per-worker charts of a report of several logs: chart → (the batch line it reads, the
#: field it draws). ``queue`` reads both kinds: a worker prints one or the other.
WORKER_VALUES: dict[str, tuple[frozenset[EventKind], str]] = {
    "prefill": (frozenset({EventKind.PREFILL_BATCH}), "input_throughput"),
    "decode": (frozenset({EventKind.DECODE_BATCH}), "gen_throughput"),
    "queue": (frozenset({EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH}), "queue_req"),
}
_BATCH_KINDS = frozenset({EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH})


class WorkerSeries:
    """A worker's prefill throughput (``Prefill batch`` lines: input throughput), decode
    throughput (``Decode batch`` lines: gen throughput) and queue depth (``#queue-req`` of
    either), per rank (DP and TP), folded per minute as :class:`ServingSeries` folds (every
    point kept too while there are at most :data:`MAX_POINTS` per chart)."""

    def __init__(self) -> None:
        self.series: dict[str, Series] = {chart: {} for chart in WORKER_VALUES}
        self.raw: dict[str, dict[str, list[tuple[float, float]]] | None] = {
            chart: {} for chart in WORKER_VALUES
        }
        self._raw_count = dict.fromkeys(WORKER_VALUES, 0)
        #: dated batch lines seen, per kind
        self.lines = dict.fromkeys(_BATCH_KINDS, 0)

    def add(self, item: Event | Rows | Blanks) -> None:
        if isinstance(item, Rows):
            self.add_rows(item)
        elif isinstance(item, Blanks):
            return  # no batch line
        elif item.kind in _BATCH_KINDS and item.timestamp is not None:
            rank = item.rank.label if item.rank else "all"
            when = item.timestamp
            self._one(item.kind, rank, f"{when:%Y-%m-%d %H:%M}", item.fields, when)

    def _one(
        self, kind: EventKind, rank: str, minute: str, fields: Mapping[str, Any], when: Any
    ) -> None:
        self.lines[kind] += 1
        for chart, (kinds, key) in WORKER_VALUES.items():
            value = _first_number(fields, (key,)) if kind in kinds else None
            if value is None:
                continue
            _put(self.series[chart], rank, minute, value)
            if self.raw[chart] is not None:
                _keep_point(self.raw, self._raw_count, chart, rank, when, value)

    def add_rows(self, rows: Rows) -> None:
        """The batch rows of a block, each line's fields read by its message's parser."""
        shape, layout, cols = rows.shape, rows.layout, rows.cols
        if not all(name in layout.index for name in ("rest", "ranks")):
            layout, cols = shape.full, shape.full_columns(rows.piece)
        a, b = rows.start, rows.stop
        texts, ranks, stamps = (cols[layout.index[n]] for n in ("rest", "ranks", "ts"))
        labels: dict[bytes, str] = {}
        for alt in shape.alts:
            kind, pairs = alt.spec.kind, alt.spec.pairs
            if kind not in _BATCH_KINDS or alt.rest_field != "_pairs" or pairs is None:
                continue
            witness = cols[layout.witness[alt.number]]
            for j in range(a, b):
                text, stamp = texts[j], stamps[j]
                if witness[j] is None or text is None or stamp is None:
                    continue
                rank = ranks[j] or b""
                label = labels.get(rank)
                if label is None:
                    label = labels[rank] = rank[1:].decode("ascii") if rank else "all"
                # the pairs only: what the message's parser reads of them (numbers, typed)
                fields = read_pairs(text.decode("ascii", "replace"), pairs)
                self._one(kind, label, stamp[:16].decode("ascii"), fields, stamp)

    def points(self, chart: str) -> dict[str, list[tuple[float, float]]]:
        """Per rank, the chart's points in time order: each line's while few, else each
        bucket's mean (at most :data:`MAX_BUCKETS`, adjacent ones merged beyond)."""
        raw = self.raw[chart]
        if raw is not None:
            return {rank: list(pts) for rank, pts in raw.items()}
        return {
            rank: [(_seconds(m), b.mean) for m, b in _widen(sorted(minutes.items()))]
            for rank, minutes in self.series[chart].items()
        }


@record
class ReportInput:
    """What ``report --html`` reads of a log, in one streamed pass: the runs (each keeping
    the check's kinds), the decode series, and the file's last events."""

    log: Log
    serving: ServingSeries
    last_events: tuple[Event, ...]
    #: the per-worker series (prefill, decode, queue) where asked for
    workers: WorkerSeries | None = None


def read_for_report(source: Source, tail: int = 20, workers: bool = False) -> ReportInput:
    """Stream ``source`` once: runs as :func:`~sglang_logscope.log.iter_runs` builds them
    (serving lines folded), decode lines folded into :class:`ServingSeries`, and the last
    ``tail`` events kept (batch rows made into events only there); with ``workers``, the
    batch lines folded into :class:`WorkerSeries` too. Memory follows the runs' startup
    events and the minutes, not the lines."""
    serving = ServingSeries()
    per_worker = WorkerSeries() if workers else None
    # a block of plain rows read lean comes with the C lane's summary (the runs fold from it)
    # and its bytes, which the decode series reads without an object per row
    fields: Fields = SERIES if workers else False
    last: deque[Event | Rows | Blanks] = deque(maxlen=max(1, tail))

    def records() -> Iterator[Event | Rows | Blanks]:
        for item in iter_records(source, fields=fields):
            serving.add(item)
            if per_worker is not None:
                per_worker.add(item)
            last.append(item)
            yield item

    runs = tuple(stream_runs(records(), CHECK_KINDS))
    events: list[Event] = []
    for item in reversed(last):
        if len(events) >= tail:
            break
        if isinstance(item, Rows):
            need = tail - len(events)
            events.extend(reversed(item.slice(max(0, len(item) - need), len(item)).events()))
        elif isinstance(item, Blanks):
            need = tail - len(events)
            events.extend(reversed(list(item.events(max(0, len(item) - need), len(item)))))
        else:
            events.append(item)
    kept = KeptEvents.chained(r.events for r in runs)
    return ReportInput(
        Log(name=describe(source), events=kept, runs=runs),
        serving,
        tuple(reversed(events[:tail])),
        per_worker,
    )
