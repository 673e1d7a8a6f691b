"""Parse blocks of high-volume serving lines at once, by their shape.

Most of a long-running server's log is batch lines and access lines of a few fixed shapes.
The catalog marks their specs ``bulk``; this module joins those specs' patterns, behind
SGLang's bracket header, into one bytes regex and splits a whole block of lines with it in C:
such a line costs no Python of its own. The result is :class:`Rows`, the lines' header parts
and fields as columns, one row per line (one event each). Every other line goes to the
line-by-line parser, which stays the reference: a line gets the same event either way
(``tests/test_bulk.py`` holds the two to it).

A row is only taken when the line-by-line parser would give it that spec, so:

- the header part is an atomic copy of :mod:`._header`'s patterns (valid full dates only), the
  uvicorn level after it only where :func:`._header.split_header` looks for one;
- a block is taken as it is when it is ASCII without NUL, escape or CR (the bytes the line
  parser cleans; on ASCII the bytes engine agrees with the ``regex`` module on ``\\d``, ``\\w``
  and ``\\s``); any other block gets a per-line guard that leaves its lines with other bytes than
  printable ASCII and tab to the line parser;
- a spec the catalog would try before a bulk spec rules rows out: an earlier spec in the
  same dispatch bucket by its prefix (a negative lookahead); for a spec without a prefix
  (access lines), any bucket key at the message start (lookahead) and any earlier floating
  spec's required literal anywhere in the block (then the whole block goes line by line);
- bulk patterns are checked to never match a newline (no ``\\s``, negated classes, anchors
  or lookarounds), so a row is one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache, cached_property
from itertools import compress, count, repeat
from operator import is_not
from typing import Any, Final, Literal, NamedTuple, cast

from .._record import record
from .._text import own_pattern
from ..events import Event, EventKind, Rank, new_event
from . import header as H
from .catalog import KEY_LEN, Catalog, LazyFields, MessageSpec
from .fastscan import LaneTable, available, rows_summary, series_columns
from .levels import LEVEL_HINT
from .messages import CATALOG


def _clean(data: bytes) -> bool:
    """Lines the line parser takes as they are (no NUL, escape or CR to clean) and that mean
    the same to both regex engines (ASCII: ``\\s``, ``\\w``, ``\\d`` agree there)."""
    return data.isascii() and b"\r" not in data and b"\x1b" not in data and b"\x00" not in data


#: A spec pattern ending in this group leaves the rest of the line as that field.
_REST = re.compile(r"\(\?P<(?P<name>\w+)>\.\*\)$")
_GROUP = re.compile(r"\(\?P<(\w+)>")
#: Constructs that could match a newline or behave differently at a line's end, and
#: unnamed groups (the columns are the named groups, in order).
_MULTILINE = re.compile(r"\\[sDWZAn]|\[\^|\$|\(\?[^:P>]|\(\?P=|(?<!\\)\((?!\?)")

#: Python 3.11's ``re`` (possessive quantifiers, atomic groups; the faster engine here), 3.10's
#: ``regex``: :func:`~sglang_logscope._text.own_pattern`.
_compile: Any = own_pattern

#: ``fields=SERIES``: the lean layout plus each row's rank label and rest of line (what a
#: decode series reads), the full columns on demand.
SERIES: Final = "series"
#: ``fields=LANE``: every field, except that a block of plain serving rows is left to the C
#: lane (its full columns split on demand): what ``events -f jsonl`` reads.
LANE: Final = "lane"
#: What a split captures: every field (``True``), the lean layout (``False``), ``SERIES``
#: or ``LANE``.
Fields = bool | Literal["series", "lane"]


@record
class _Alt:
    """One bulk spec inside the joined pattern: its body group and its fields' groups."""

    spec: MessageSpec
    body: int  # column of the message text the spec's pattern matched (full layout)
    groups: tuple[tuple[str, int], ...]  # (field name, column)
    rest_field: str | None  # the field that takes the rest of the line, if any
    number: int  # its place in the pattern: column ``layout.witness[number]`` marks its rows


#: The header date and time as a pattern that only takes valid ones, so a row's time always
#: parses (``_header._TS_DATE`` with month, day, leap day, hour, minute and second ranges;
#: year 1900 stands for time-only stamps, year 0 is no date: both left to the line parser).
_VALID_DATE = (
    r"(?!1900-|0000-)\d{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)"
    r"|(?:0[13578]|1[02])-31|02-29(?<=(?:[02468][048]|[13579][26])00-02-29|"
    r"\d\d(?:0[48]|[2468][048]|[13579][26])-02-29))"
)
_VALID_TS = rf"{_VALID_DATE} (?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{{1,6}})?+"


def _ascii_digits(pattern: str) -> str:
    """``\\d`` as ``[0-9]`` (``0-9`` inside a class): the same on ASCII lines, and a plain
    range is the cheaper test for the bytes engine."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            out.append(("0-9" if in_class else "[0-9]") if pair == "\\d" else pair)
            i += 2
            continue
        if ch == "[" and not in_class:
            in_class = True
        elif ch == "]" and in_class and pattern[i - 1] != "[":
            in_class = False
        out.append(ch)
        i += 1
    return "".join(out)


class BulkShape:
    """The joined pattern of a catalog's bulk specs, and how to read its groups.

    Layouts of one pattern: ``full`` captures every header part and field (for events),
    ``lean`` only the time and which spec matched (for folding rows into runs), ``series``
    the lean groups and the rank and rest of line; the same lines match all, so a lean
    block's rows are found again in its full split.
    """

    def __init__(self, catalog: Catalog) -> None:
        specs = [s for s in catalog.specs if s.bulk]
        bucketed = [s for s in specs if len(s.prefix) >= KEY_LEN]
        floating = [s for s in specs if len(s.prefix) < KEY_LEN]
        bodies: list[str] = []
        renamed: list[tuple[MessageSpec, list[tuple[str, str]], str | None]] = []
        needles: set[str] = set()
        guarded: set[str] = set()  # the specs behind a lookahead (the fast lane reads none)
        for i, spec in enumerate(bucketed + floating):
            body, rest = _split_rest(spec)
            _check_single_line(spec.name, body)
            fields: list[tuple[str, str]] = []

            def rename(m: re.Match[str], i: int = i, fields: list[tuple[str, str]] = fields) -> str:
                fields.append((m.group(1), f"g{i}_{m.group(1)}"))
                return f"(?P<g{i}_{m.group(1)}>"

            body = _GROUP.sub(rename, body)
            guard = _guard(spec, catalog, needles)
            if guard:
                guarded.add(spec.name)
            bodies.append(f"{guard}(?P<body{i}>{body})(?P<k{i}>)")
            renamed.append((spec, fields, rest))
        # ... then the level (see _LEVEL), in the atomic group, then a spec's body
        head = rf"(?P<pre>(?:{H._OUTER_TS})?+(?>\[(?P<ts>{_VALID_TS})(?P<ranks>(?: {H._RANK_TOKEN})*+)\] ?"
        tail = rf"))(?:{'|'.join(bodies)})(?P<rest>[^\n]*+)"
        core = head + _LEVEL + tail
        # The layouts that capture no level take it by its first letter (the same lines).
        uncaptured = head + _by_first_letter(_LEVEL_ALTERNATIVES) + tail
        lean = _GROUP.sub(lambda m: m.group() if _lean_group(m.group(1)) else "(?:", uncaptured)
        series = _GROUP.sub(
            lambda m: m.group() if _lean_group(m.group(1)) or m.group(1) in _SERIES else "(?:",
            uncaptured,
        )
        self.full = _Layout(core)
        self.lean = _Layout(lean)
        self.series = _Layout(series)
        self.needles = tuple(sorted(n.encode("utf-8") for n in needles))
        index = self.full.index
        self.alts = tuple(
            _Alt(
                spec=spec,
                body=index[f"body{i}"],
                groups=tuple((name, index[group]) for name, group in fields),
                rest_field=rest,
                number=i,
            )
            for i, (spec, fields, rest) in enumerate(renamed)
        )
        self.lane = _lane_table(self.alts, guarded, catalog)

    def split(self, data: bytes, first_line: int, fields: Fields = True) -> Iterator[bytes | Rows]:
        """Cut ``data`` (whole lines joined by ``\\n``) into :class:`Rows` and the runs of other
        lines between them (``bytes``, lines joined by ``\\n``), in order. ``fields=False``
        captures only what folding rows into runs needs (their full columns on demand)."""
        return self.assemble(data, self.cut(data, fields), first_line)

    def layout(self, fields: Fields) -> _Layout:
        """The layout a split with ``fields`` captures."""
        return self.series if fields == SERIES else self.full if fields else self.lean

    def cut(self, data: bytes, fields: Fields) -> Cut | None:
        """The regex work of :meth:`split` (all of its cost; picklable, so another process
        can do it): ``None`` when no line of ``data`` is taken in bulk."""
        if not self.alts or any(n in data for n in self.needles):
            return None
        guarded = not _clean(data)
        if (fields is False or fields == LANE) and not guarded and self.lane is not None:
            summary = rows_summary(data, self.lane)
            if summary is not None:  # every line a plain serving row: no split needed
                return Cut(fields, guarded, None, LaneSummary(*summary))
        elif fields == SERIES and not guarded and self.lane is not None:
            columns = self._series_columns(data)
            if columns is not None:
                return Cut(fields, guarded, None, columns=columns)
        layout = self.layout(fields)
        parts = layout.pattern(guarded).split(b"\n" + data)
        if len(parts) == 1:
            return None
        return Cut(fields, guarded, parts)

    def _series_columns(self, data: bytes) -> list[list[bytes | None]] | None:
        """The series layout's columns of a block of plain serving rows, from the C lane."""
        assert self.lane is not None
        found = series_columns(data, self.lane, len(self.alts))
        if found is None:
            return None
        ts, ranks, witness, rest = found
        by_name: dict[str, list[bytes | None]] = {"ts": ts, "ranks": ranks, "rest": rest}  # type: ignore[dict-item]
        by_name.update((f"k{i}", column) for i, column in enumerate(witness))
        return [by_name[name] for name in self.series.index]

    def assemble(self, data: bytes, cut: Cut | None, first_line: int) -> Iterator[bytes | Rows]:
        """:meth:`split`'s result from :meth:`cut`'s."""
        if cut is None:
            yield data
            return
        piece = _Piece(data, cut.guarded)
        layout = self.layout(cut.fields)
        if cut.columns is not None:  # the C lane's columns: every line a row
            yield Rows(self, layout, cut.columns, piece, 0, len(cut.columns[0]), first_line)
            return
        if cut.summary is not None:
            lane = _LaneColumns(layout, piece)
            yield Rows(
                self, layout, lane, piece, 0, cut.summary.rows, first_line, summary=cut.summary
            )
            return
        parts = cut.parts
        assert parts is not None
        step = layout.width + 1
        segments = parts[0::step]
        matches = len(segments) - 1
        cols = [parts[j::step] for j in range(1, step)]
        if layout is self.full:
            piece.full = cols
        line = first_line
        start = 0
        if segments.count(b"") == len(segments):  # rows only (a serving piece): no search
            yield Rows(self, layout, cols, piece, 0, matches, line)
            return
        for i in compress(count(), segments):
            if i > start:
                yield Rows(self, layout, cols, piece, start, i, line)
                line += i - start
            segment = segments[i]
            yield segment[1:]  # type: ignore[index]
            line += segment.count(b"\n")  # type: ignore[union-attr]
            start = i
        if start < matches:
            yield Rows(self, layout, cols, piece, start, matches, line)

    def full_columns(self, piece: _Piece) -> Sequence[list[bytes | None]]:
        """The full layout's columns of a piece split lean (split again, once)."""
        if piece.full is None:
            piece.full = self.full.columns(piece)
        return piece.full


def _is_witness(name: str) -> bool:
    return name[:1] == "k" and name[1:].isdigit()


#: The groups the series layout keeps beside the lean ones.
_SERIES = ("ranks", "rest")


def _lean_group(name: str) -> bool:
    """The groups the lean layout keeps: the time and each spec's empty witness ``k<i>``."""
    return name == "ts" or _is_witness(name)


class _Layout:
    """One compiled layout of the joined pattern: for clean blocks and, with a per-line
    guard, for blocks with other bytes."""

    def __init__(self, core: str) -> None:
        self.core = core
        groups = _GROUP.findall(core)
        self.width = core.count("(?P<")
        self.index = {name: i for i, name in enumerate(groups)}
        self.witness = tuple(
            self.index[f"k{i}"] for i in range(len([k for k in self.index if _is_witness(k)]))
        )

    @cached_property
    def text(self) -> bytes:
        """The pattern as compiled (made on first use: most runs compile one layout)."""
        return _ascii_digits(self.core).encode("ascii")

    @cached_property
    def fast(self) -> Any:
        """For a clean block (compiled on first use: a few ms each)."""
        return _compile(rb"\n" + self.text)

    @cached_property
    def guarded(self) -> Any:
        """For any other block: lines of other bytes than printable ASCII and tab are left."""
        return _compile(rb"\n(?=[\t -~]*+(?:\n|\Z))" + self.text)

    def pattern(self, guarded: bool) -> Any:
        return self.guarded if guarded else self.fast

    def columns(self, piece: _Piece) -> list[list[bytes | None]]:
        """This layout's columns of a piece: its rows' groups, one split (the text between rows
        is left out)."""
        parts = self.pattern(piece.guarded).split(b"\n" + piece.data)
        step = self.width + 1
        return [parts[j::step] for j in range(1, step)]


class Cut(NamedTuple):
    """A block split by the joined pattern: ``re.split``'s list (the text between rows, then
    each row's groups) and how it was split; or, for a block of plain serving rows only, what
    the C fast lane read of it instead (``parts`` is then ``None``)."""

    fields: Fields
    guarded: bool
    parts: list[bytes | None] | None
    summary: LaneSummary | None = None
    #: the series layout's columns the C lane read (``parts`` is then ``None``)
    columns: list[list[bytes | None]] | None = None


class LaneSummary(NamedTuple):
    """What :func:`.fastscan.rows_summary` read of a block of plain serving rows: what folding
    them into a run needs (see ``parse/_rowscan.c``)."""

    rows: int
    first_time: bytes
    last_time: bytes
    in_order: bool
    alternatives: int  # bit ``i``: some row matched alternative ``i``
    last_alternative: int


def fast_lane_ready() -> bool:
    """Whether lean blocks of plain serving rows go through the C fast lane here."""
    return available() and bulk_shape().lane is not None


class _LaneColumns(Sequence[list[bytes | None]]):
    """A fast-lane block's columns of its layout, split on first use (a slice of the rows,
    their events): the fold itself never asks."""

    def __init__(self, layout: _Layout, piece: _Piece) -> None:
        self._layout = layout
        self._piece = piece
        self._cols: list[list[bytes | None]] | None = None

    def _split(self) -> list[list[bytes | None]]:
        if self._cols is None:
            self._cols = self._layout.columns(self._piece)
        return self._cols

    def __getitem__(self, i: int) -> list[bytes | None]:  # type: ignore[override]
        return self._split()[i]

    def __len__(self) -> int:
        return self._layout.width


class _Piece:
    """The bytes a block of rows came from, and their full columns once split so."""

    __slots__ = ("data", "full", "guarded")

    def __init__(self, data: bytes, guarded: bool) -> None:
        self.data = data
        self.guarded = guarded
        self.full: Sequence[list[bytes | None]] | None = None


def _uvicorn_levels() -> str:
    return "|".join(v for v in H._UVICORN_LEVELS if v[0] in H._UVICORN_AFTER_BRACKET)


_UVICORN_SPACE = r":[\t\x0b\x0c ]{1,10}+"
#: After the bracket: the level and source, else split_header's uvicorn level (whose \s is
#: this class on the lines bulk parsing takes), else neither: the first that matches, as there.
_LEVEL = rf"(?:{H._LEVEL_SRC_ONE}|(?P<ulevel>{_uvicorn_levels()}){_UVICORN_SPACE}|)"


def _level_alternatives() -> list[str]:
    """:data:`_LEVEL` as its alternatives in order, each beginning with its level's name
    (captures dropped), the empty one last."""
    m = re.fullmatch(r"\(\?P<level>([A-Z|]+)\)(.+)", H._LEVEL_SRC_ONE)
    assert m is not None, "the header's level-and-source pattern changed shape"
    names, source = m.group(1).split("|"), _GROUP.sub("(?:", m.group(2))
    uvicorn = _uvicorn_levels().split("|")
    return [n + source for n in names] + [n + _UVICORN_SPACE for n in uvicorn] + [""]


_LEVEL_ALTERNATIVES = _level_alternatives()


def _by_first_letter(alternatives: Sequence[str]) -> str:
    """Regex ``alternatives``, each beginning with a letter (the empty one last), as one
    alternation grouped by that letter: the same language and, within a letter, the same
    order (alternatives of different letters never match the same text), and the engine
    tests each letter once instead of entering every alternative in turn."""
    groups: dict[str, list[str]] = {}
    for alternative in alternatives:
        if alternative:
            assert alternative[0].isalpha(), alternative
            groups.setdefault(alternative[0], []).append(alternative[1:])
    out = [
        first + (rests[0] if len(rests) == 1 else f"(?:{'|'.join(rests)})")
        for first, rests in groups.items()
    ]
    return f"(?:{'|'.join(out)}|)" if "" in alternatives else f"(?:{'|'.join(out)})"


def _split_rest(spec: MessageSpec) -> tuple[str, str | None]:
    m = _REST.search(spec.pattern)
    if m is None:
        return spec.pattern, None
    return spec.pattern[: m.start()], m.group("name")


def _check_single_line(name: str, pattern: str) -> None:
    bad = _MULTILINE.search(pattern)
    if bad is not None or not pattern.isascii():
        raise ValueError(
            f"bulk spec {name!r}: {bad.group() if bad else 'non-ASCII'} in its pattern"
        )


def _guard(spec: MessageSpec, catalog: Catalog, needles: set[str]) -> str:
    """The lookahead that leaves to the line parser the messages a spec tried before ``spec``
    may take; collects into ``needles`` the literals whose presence sends a whole block there."""
    if len(spec.prefix) >= KEY_LEN:
        bucket = catalog.buckets[spec.prefix[:KEY_LEN]]
        rivals = [s.prefix for s in bucket[: bucket.index(spec)]]
    else:
        rivals = sorted(catalog.buckets)
        floating = catalog.floating
        for s in floating[: floating.index(spec)]:
            if not s.needle:
                raise ValueError(f"bulk spec {spec.name!r}: {s.name!r} before it has no literal")
            needles.add(s.needle)
    if not rivals:
        return ""
    return "(?!" + _by_first_char(rivals) + ")"


def _by_first_char(literals: Sequence[str]) -> str:
    """The alternation of ``literals`` with those of one first character grouped behind it
    (``A(?:ppl|uto)|B...``): the same language, and a line's first character is tested once
    per group, not once per literal (the engine tries the branches in turn)."""
    groups: dict[str, list[str]] = {}
    for literal in literals:
        groups.setdefault(literal[:1], []).append(literal[1:])
    out = []
    for first, rests in groups.items():
        tails = [re.escape(r) for r in rests]
        out.append(re.escape(first) + (tails[0] if len(tails) == 1 else f"(?:{'|'.join(tails)})"))
    return "|".join(out)


#: The rows the C fast lane reads (``parse/_rowscan.c``): these batch lines by their prefix
#: (then ``,`` or ``.``) and the access line; their patterns there are tested against the
#: joined regex (``tests/test_rowscan.py``).
_LANE_BATCH = ("prefill_batch", "decode_batch")
_LANE_ACCESS = "http_access"


def _lane_table(alts: Sequence[_Alt], guarded: set[str], catalog: Catalog) -> LaneTable | None:
    """The fast lane's arguments: (prefix, alternative) of each batch line it reads, and the
    access line's alternative (-1: none). A batch spec behind a lookahead is left out; so is
    the access line when a catalog prefix could start with the digit its client starts with
    (``_rowscan.c`` reads clients from a digit on, past the lookahead's rivals)."""
    batch = tuple(
        (a.spec.prefix.encode("ascii"), a.number)
        for a in alts
        if a.spec.name in _LANE_BATCH and a.spec.prefix and a.spec.name not in guarded
    )
    access = next((a.number for a in alts if a.spec.name == _LANE_ACCESS), -1)
    if any(key[:1].isdigit() for key in catalog.buckets):
        access = -1
    return (batch, access) if batch or access >= 0 else None


@cache
def bulk_shape() -> BulkShape:
    return BulkShape(CATALOG)


@dataclass(frozen=True, slots=True, eq=False)
class Rows:
    """Consecutive lines of the bulk shapes: rows ``start``..``stop`` of a block's columns
    (one list per group of the layout it was split with). Row ``r`` is line
    ``first_line + r - start`` and one event (:meth:`events`)."""

    shape: BulkShape
    layout: _Layout
    cols: Sequence[list[bytes | None]]
    piece: _Piece
    start: int
    stop: int
    first_line: int
    #: a wrapped log's outer times by line (:mod:`.adapters`) and the line number of index 0
    received: Sequence[datetime | None] | None = None
    received_base: int = 1
    #: the fast lane's reading of the whole block (its rows only: a slice has none)
    summary: LaneSummary | None = None

    def __len__(self) -> int:
        return self.stop - self.start

    @classmethod
    def folded(cls, shape: BulkShape, first_line: int, summary: LaneSummary) -> Rows:
        """Rows known by the fast lane's reading alone (a block another process split:
        :mod:`.split`): what folding them into a run reads (their count, lines, kinds and
        times in order), without their columns, so without their events."""
        return cls(
            shape, shape.lean, (), cast(_Piece, None), 0, summary.rows, first_line, summary=summary
        )

    @property
    def last_line(self) -> int:
        return self.first_line + self.stop - self.start - 1

    def slice(self, start: int, stop: int) -> Rows:
        """Rows ``start``..``stop`` of these (relative)."""
        return Rows(
            self.shape,
            self.layout,
            self.cols,
            self.piece,
            self.start + start,
            self.start + stop,
            self.first_line + start,
            self.received,
            self.received_base,
        )

    def time_bounds(self) -> tuple[bytes, bytes] | None:
        """The first and last row's time where the rows are known in time order without their
        time column (the fast lane read them so), else ``None``: see :meth:`times`."""
        s = self.summary
        return (s.first_time, s.last_time) if s is not None and s.in_order else None

    def times(self) -> list[bytes]:
        """The header time of each row as printed: a valid date and time (the pattern takes no
        other), so the text orders as the time does."""
        return self.cols[self.layout.index["ts"]][self.start : self.stop]  # type: ignore[return-value]

    def specs(self) -> list[MessageSpec]:
        """The specs present, in the pattern's order."""
        if self.summary is not None:
            mask = self.summary.alternatives
            return [alt.spec for alt in self.shape.alts if mask >> alt.number & 1]
        out = []
        start, stop = self.start, self.stop
        whole = start == 0 and stop == len(self.cols[0])  # a block of rows only: no copy
        for alt in self.shape.alts:
            column = self.cols[self.layout.witness[alt.number]]
            if (
                column[start] is not None
                or (column if whole else column[start:stop]).count(None) < stop - start
            ):
                out.append(alt.spec)
        return out

    def lane_reading(self) -> LaneSummary | None:
        """What the fast lane reads of these rows (:class:`LaneSummary`), from their columns
        where it did not read them; ``None`` when their times are out of order (folding them
        then needs each row's time and kind)."""
        if self.summary is not None or not len(self):
            return self.summary
        times = self.times()
        if sorted(times) != times:
            return None
        present = self.specs()
        mask = sum(1 << alt.number for alt in self.shape.alts if alt.spec in present)
        last = self._alt(self.cols, self.layout, self.stop - 1).number
        return LaneSummary(len(self), times[0], times[-1], True, mask, last)

    def last_kind(self) -> EventKind:
        if self.summary is not None:
            return self.shape.alts[self.summary.last_alternative].spec.kind
        return self._alt(self.cols, self.layout, self.stop - 1).spec.kind

    def _alt(self, cols: Sequence[list[bytes | None]], layout: _Layout, row: int) -> _Alt:
        for alt in self.shape.alts:
            if cols[layout.witness[alt.number]][row] is not None:
                return alt
        raise AssertionError("a bulk row matched no alternative")

    def events(self) -> list[Event]:
        """Each row as the :class:`Event` the line parser makes of its line (columns decoded
        a block at a time: the short ones through their few distinct values)."""
        shape = self.shape
        full = shape.full
        cols = self.cols if self.layout is full else shape.full_columns(self.piece)
        a, b = self.start, self.stop
        c = full.index
        pre = _texts(cols[c["pre"]][a:b])
        rest = _texts(cols[c["rest"]][a:b])
        ranks = _distinct(cols[c["ranks"]][a:b], _rank)
        level = _distinct(cols[c["level"]][a:b])
        ulevel = _distinct(cols[c["ulevel"]][a:b])
        src = _distinct(cols[c["src"]][a:b])
        times: list[bytes] = cols[c["ts"]][a:b]  # type: ignore[assignment]
        stamps = parse_times(times)
        which, body, fields = self._alternatives(cols)
        out = []
        line = self.first_line
        for r in range(b - a):
            alt = which[r]
            spec = alt.spec
            message = body[r] + rest[r]
            groups = {name: column[r] for name, column in fields[alt.number]}
            if alt.rest_field is not None:
                groups[alt.rest_field] = rest[r]
            out.append(
                new_event(
                    line,
                    spec.kind,
                    message,
                    line,
                    stamps[times[r]],
                    level[r] or ulevel[r] or LEVEL_HINT.get(spec.kind),
                    ranks[r],
                    src[r],
                    LazyFields(spec, groups) if spec.pairs is not None else spec.convert(groups),
                    pre[r] + message,
                    False,
                    spec.releases,
                )
            )
            line += 1
        if self.received is not None:
            times_by_line, base = self.received, self.received_base
            for e in out:
                at = e.line - base
                when = times_by_line[at] if 0 <= at < len(times_by_line) else None
                object.__setattr__(e, "received_at", when)  # a fresh event, not shared yet
        return out

    def _alternatives(
        self, cols: Sequence[list[bytes | None]]
    ) -> tuple[list[_Alt], list[str], dict[int, list[tuple[str, list[str | None]]]]]:
        """Per row of the full columns ``cols``: its alternative and the message text its
        pattern matched; per alternative present, its fields' columns (name, values)."""
        shape, a, b = self.shape, self.start, self.stop
        which: list[_Alt] = [shape.alts[0]] * (b - a)
        body: list[str] = [""] * (b - a)
        fields: dict[int, list[tuple[str, list[str | None]]]] = {}
        for alt in shape.alts:
            column = cols[shape.full.witness[alt.number]][a:b]
            rows = list(compress(range(b - a), map(is_not, column, repeat(None))))
            if not rows:
                continue
            texts = _distinct([cols[alt.body][a + r] for r in rows])
            for r, text in zip(rows, texts, strict=True):
                which[r] = alt
                body[r] = text
            fields[alt.number] = [(name, _distinct(cols[i][a:b])) for name, i in alt.groups]
        return which, body, fields


def _texts(column: list[bytes | None]) -> list[str]:
    """A column of ASCII text (never ``None``: ``pre`` and ``rest`` always match), decoded in
    one call: rows are single lines, so the newline can join and split them."""
    return b"\n".join(column).decode("ascii").split("\n")  # type: ignore[arg-type]


def _distinct(column: list[bytes | None], make: Any = None) -> list[Any]:
    """A column of few distinct values, each decoded (and made into ``make(text)``) once."""
    seen: dict[bytes | None, Any] = {}
    for raw in set(column):
        if raw is None:
            seen[raw] = None
        else:
            text = raw.decode("ascii")
            seen[raw] = make(text) if make is not None else text
    return list(map(seen.__getitem__, column))


def _rank(label: str) -> Rank | None:
    return H.parse_rank(label[1:]) if label else None


def row_time(raw: bytes) -> datetime:
    """A row's header time (valid by the pattern: see ``_VALID_TS``)."""
    return H._bracket_time(raw.decode("ascii"))  # type: ignore[return-value]


def parse_times(times: Iterable[bytes]) -> dict[bytes, datetime]:
    """The datetimes of distinct header times (rows' times are valid: see ``_VALID_TS``)."""
    return {t: H._bracket_time(t.decode("ascii")) for t in set(times)}  # type: ignore[misc]


def row_times(times: list[bytes]) -> list[datetime]:
    """The datetime of each row's header time: a block of whole seconds (every time 19
    characters: the pattern takes no shorter one) by one decode and a ``fromisoformat``
    each, others once per distinct time (:func:`parse_times`)."""
    joined = b"\n".join(times)
    if len(joined) == 20 * len(times) - 1:
        try:
            return list(map(datetime.fromisoformat, joined.decode("ascii").split("\n")))
        except ValueError:  # pragma: no cover - the pattern takes valid times only
            pass
    stamps = parse_times(times)
    return list(map(stamps.__getitem__, times))
