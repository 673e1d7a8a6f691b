"""Parse blocks of high-volume serving lines at once, by their shape.

Most of a long-running server's log is batch lines and access lines of a few fixed shapes.
The catalog marks their specs ``bulk``; this module joins those specs' patterns, behind
SGLang's bracket header, into one bytes regex and splits a whole block of lines with it in C:
such a line costs no Python of its own. The result is :class:`Rows`, the lines' header parts
and fields as columns, one row per line (one event each). Every other line goes to the
line-by-line parser, which stays the reference: a line gets the same event either way
(``tests/test_bulk.py`` holds the two to it).

A row is only taken when the line-by-line parser would give it that spec, so:

- the header part is an atomic copy of :mod:`._header`'s patterns (full dates only), the
  uvicorn level after it only where :func:`._header.split_header` looks for one;
- lines must be printable ASCII or tab (checked per block with one ``bytes.translate``; a block
  that is not gets a per-line guard): control characters are cleaned by the line parser, and on
  ASCII the bytes engine agrees with the ``regex`` module on ``\\d``, ``\\w`` and ``\\s``;
- a spec the catalog would try before a bulk spec rules rows out: an earlier spec in the
  same dispatch bucket by its prefix (a negative lookahead); for a spec without a prefix
  (access lines), any bucket key at the message start (lookahead) and any earlier floating
  spec's required literal anywhere in the block (then the whole block goes line by line);
- bulk patterns are checked to never match a newline (no ``\\s``, negated classes, anchors
  or lookarounds), so a row is one line.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from itertools import compress, count
from typing import Any

import regex

from . import _header as H
from .catalog import KEY_LEN, Catalog, LazyFields, MessageSpec
from .events import Event, EventKind, Rank, new_event

#: Bytes that need no cleaning and mean the same to both regex engines.
_PRINTABLE = bytes(range(0x20, 0x7F)) + b"\t\n"
#: A spec pattern ending in this group leaves the rest of the line as that field.
_REST = re.compile(r"\(\?P<(?P<name>\w+)>\.\*\)$")
_GROUP = re.compile(r"\(\?P<(\w+)>")
#: Constructs that could match a newline or behave differently at a line's end.
_MULTILINE = re.compile(r"\\[sDWZAn]|\[\^|\$|\(\?[^:P>]|\(\?P=")

# Python 3.11's ``re`` has possessive quantifiers and atomic groups (and is the faster engine
# here); 3.10 gets the ``regex`` module, which has them too.
_compile: Any = re.compile if sys.version_info >= (3, 11) else regex.compile


@dataclass(frozen=True)
class _Alt:
    """One bulk spec inside the joined pattern: its body group and its fields' groups."""

    spec: MessageSpec
    body: int  # group index of the message text the spec's pattern matched
    groups: tuple[tuple[str, int], ...]  # (field name, group index)
    rest_field: str | None  # the field that takes the rest of the line, if any


class BulkShape:
    """The joined pattern of a catalog's bulk specs, and how to read its groups."""

    def __init__(self, catalog: Catalog) -> None:
        specs = [s for s in catalog.specs if s.bulk]
        bucketed = [s for s in specs if len(s.prefix) >= KEY_LEN]
        floating = [s for s in specs if len(s.prefix) < KEY_LEN]
        bodies: list[str] = []
        renamed: list[tuple[MessageSpec, str, list[tuple[str, str]], str | None]] = []
        needles: set[str] = set()
        for i, spec in enumerate(bucketed + floating):
            body, rest = _split_rest(spec)
            _check_single_line(spec.name, body)
            fields: list[tuple[str, str]] = []

            def rename(m: re.Match[str], i: int = i, fields: list[tuple[str, str]] = fields) -> str:
                fields.append((m.group(1), f"g{i}_{m.group(1)}"))
                return f"(?P<g{i}_{m.group(1)}>"

            body = _GROUP.sub(rename, body)
            guard = _guard(spec, catalog, needles)
            bodies.append(f"{guard}(?P<body{i}>{body})")
            renamed.append((spec, f"body{i}", fields, rest))
        head = (
            rf"(?P<pre>(?:{H._OUTER_TS})?"
            rf"(?>\[(?P<ts>{H._TS_DATE})(?P<ranks>(?: {H._RANK_TOKEN})*+)\] ?{H._LEVEL_SRC})"
            # split_header's uvicorn level; [\t ] is its \s on the lines bulk parsing takes.
            rf"(?(level)|(?>(?P<ulevel>{_uvicorn_levels()}):[\t ]{{1,10}}+)?))"
        )
        core = rf"{head}(?:{'|'.join(bodies)})(?P<rest>[^\n]*+)"
        self.fast = _compile(rb"\n" + core.encode("ascii"))
        self.guarded = _compile(rb"\n(?=[\t -~]*+(?:\n|\Z))" + core.encode("ascii"))
        index: dict[str, int] = self.fast.groupindex
        self.width = self.fast.groups
        self.needles = tuple(sorted(n.encode("utf-8") for n in needles))
        self.ts = index["ts"] - 1
        self.column = {
            name: index[name] - 1 for name in ("pre", "ranks", "level", "src", "ulevel", "rest")
        }
        self.alts = tuple(
            _Alt(
                spec=spec,
                body=index[body] - 1,
                groups=tuple((name, index[group] - 1) for name, group in fields),
                rest_field=rest,
            )
            for spec, body, fields, rest in renamed
        )

    def split(self, data: bytes, first_line: int) -> Iterator[bytes | Rows]:
        """Cut ``data`` (whole lines joined by ``\\n``) into :class:`Rows` and the runs of other
        lines between them (``bytes``, lines joined by ``\\n``), in order."""
        if not self.alts or any(n in data for n in self.needles):
            yield data
            return
        pattern = self.guarded if data.translate(None, _PRINTABLE) else self.fast
        parts = pattern.split(b"\n" + data)
        step = self.width + 1
        segments = parts[0::step]
        matches = len(segments) - 1
        if not matches:
            yield data
            return
        cols = [parts[j::step] for j in range(1, step)]
        line = first_line
        start = 0
        for i in compress(count(), segments):
            if i > start:
                yield Rows(self, cols, start, i, line)
                line += i - start
            segment = segments[i]
            yield segment[1:]
            line += segment.count(b"\n")
            start = i
        if start < matches:
            yield Rows(self, cols, start, matches, line)


def _uvicorn_levels() -> str:
    return "|".join(v for v in H._UVICORN_LEVELS if v[0] in H._UVICORN_AFTER_BRACKET)


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
    """The lookahead that leaves to the line parser the messages an earlier spec may take;
    collects into ``needles`` the literals whose presence sends a whole block there."""
    order = {s.name: i for i, s in enumerate(catalog.specs)}
    before = [s for s in catalog.specs if order[s.name] < order[spec.name]]
    if len(spec.prefix) >= KEY_LEN:
        rivals = [s.prefix for s in before if s.prefix[:KEY_LEN] == spec.prefix[:KEY_LEN]]
    else:
        rivals = sorted({s.prefix[:KEY_LEN] for s in catalog.specs if len(s.prefix) >= KEY_LEN})
        for s in before:
            if len(s.prefix) < KEY_LEN:
                if not s.needle:
                    raise ValueError(
                        f"bulk spec {spec.name!r}: {s.name!r} before it has no literal"
                    )
                needles.add(s.needle)
    if not rivals:
        return ""
    return "(?!" + "|".join(re.escape(r) for r in rivals) + ")"


@cache
def bulk_shape() -> BulkShape:
    from .messages import CATALOG

    return BulkShape(CATALOG)


@dataclass(frozen=True, slots=True, eq=False)
class Rows:
    """Consecutive lines of the bulk shapes: rows ``start``..``stop`` of a block's columns
    (one list per group of :attr:`BulkShape.fast`). Row ``r`` is line ``first_line + r - start``
    and one event (:meth:`events`)."""

    shape: BulkShape
    cols: Sequence[list[bytes | None]]
    start: int
    stop: int
    first_line: int

    def __len__(self) -> int:
        return self.stop - self.start

    @property
    def last_line(self) -> int:
        return self.first_line + self.stop - self.start - 1

    def slice(self, start: int, stop: int) -> Rows:
        """Rows ``start``..``stop`` of these (relative)."""
        return Rows(
            self.shape, self.cols, self.start + start, self.start + stop, self.first_line + start
        )

    def times(self) -> list[bytes]:
        """The header time of each row, as printed (all full dates: their text orders as
        their time)."""
        return self.cols[self.shape.ts][self.start : self.stop]  # type: ignore[return-value]

    def specs(self) -> list[MessageSpec]:
        """The specs present, in catalog order."""
        out = []
        for alt in self.shape.alts:
            column = self.cols[alt.body]
            if column[self.start] is not None or column[self.start : self.stop].count(None) < len(
                self
            ):
                out.append(alt.spec)
        return out

    def last_kind(self) -> EventKind:
        return self._alt(self.stop - 1).spec.kind

    def _alt(self, row: int) -> _Alt:
        for alt in self.shape.alts:
            if self.cols[alt.body][row] is not None:
                return alt
        raise AssertionError("a bulk row matched no alternative")

    def events(self) -> list[Event]:
        """Each row as the :class:`Event` the line parser makes of its line."""
        from .parse import _LEVEL_HINT

        cols = self.cols
        c = self.shape.column
        pre, ranks, level, src = cols[c["pre"]], cols[c["ranks"]], cols[c["level"]], cols[c["src"]]
        ulevel, rest = cols[c["ulevel"]], cols[c["rest"]]
        times = self.times()
        stamps = parse_times(times)
        out = []
        line = self.first_line
        for r in range(self.start, self.stop):
            alt = self._alt(r)
            spec = alt.spec
            body = _text(cols[alt.body][r]) + _text(rest[r])
            groups: dict[str, str | None] = {name: _opt(cols[i][r]) for name, i in alt.groups}
            if alt.rest_field is not None:
                groups[alt.rest_field] = _text(rest[r])
            fields: Any = (
                LazyFields(spec, groups) if spec.pairs is not None else spec.convert(groups)
            )
            rank_label = _text(ranks[r])
            out.append(
                new_event(
                    line,
                    spec.kind,
                    body,
                    line,
                    stamps[times[r - self.start]],
                    _opt(level[r]) or _opt(ulevel[r]) or _LEVEL_HINT.get(spec.kind),
                    _rank(rank_label),
                    _opt(src[r]),
                    fields,
                    _text(pre[r]) + body,
                    False,
                    spec.releases,
                )
            )
            line += 1
        return out


def _rank(label: str) -> Rank | None:
    return H.parse_rank(label[1:]) if label else None


def _text(raw: bytes | None) -> str:
    return raw.decode("ascii") if raw else ""


def _opt(raw: bytes | None) -> str | None:
    return None if raw is None else raw.decode("ascii")


def parse_times(times: Sequence[bytes]) -> dict[bytes, datetime | None]:
    """The datetimes of distinct header times (a block's rows share a few seconds)."""
    return {t: H._bracket_time(t.decode("ascii")) for t in set(times)}
