"""Runs of whitespace-only lines as one record (issue 29).

A file of millions of empty lines is a text event per line to the line parser, each costing
microseconds of Python in every reader. Outside any multi-line record such a line's event
depends on its text alone (a ``text`` event, no time, rank or fields), so a run of them is
one :class:`Blanks`: where it starts, how many lines, their bytes (or the one line they all
repeat) and, per distinct line, the event the line parser makes of it (:class:`Template`,
computed by that parser: :mod:`.lines`). Readers fold a run at once (a run count, the line
range, the kinds); :meth:`Blanks.events` gives the same events line by line where one is
asked for. ``tests/test_blanks.py`` holds every reader to the line-by-line reading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from ..events import Event, EventKind, new_event

#: Two or more whitespace-only lines (spaces, tabs, CRs), each with its newline, from a line
#: start: linear (a line that is not blank ends the repetition where it starts).
_RUN = re.compile(rb"(?m)^(?:[ \t\r]*\n){2,}")


class Template(NamedTuple):
    """The event the line parser makes of one whitespace-only line, its line number apart."""

    kind: EventKind
    message: str
    level: str | None
    releases: str | None
    text: str


@dataclass(frozen=True, slots=True, eq=False)
class Blanks:
    """Lines ``first_line`` .. ``first_line + count - 1``, each whitespace-only: ``data``
    (their bytes joined by ``\\n``, CRs kept) or, when every line is the same, ``uniform``
    (that line; ``data`` is then ``None``). ``templates``: each distinct line's event."""

    first_line: int
    count: int
    data: bytes | None
    uniform: bytes | None
    templates: Mapping[bytes, Template]

    @property
    def last_line(self) -> int:
        return self.first_line + self.count - 1

    def __len__(self) -> int:
        return self.count

    def raws(self, lo: int = 0, hi: int | None = None) -> list[bytes]:
        """The raw lines ``lo`` .. ``hi`` (relative)."""
        hi = self.count if hi is None else hi
        if self.data is None:
            assert self.uniform is not None
            return [self.uniform] * (hi - lo)
        return self.data.split(b"\n")[lo:hi]

    def distinct(self, lo: int = 0, hi: int | None = None) -> list[tuple[int, Template]]:
        """Per distinct line among ``lo`` .. ``hi``, in order of first appearance: the line
        number where it first appears and its event's template."""
        hi = self.count if hi is None else hi
        if hi <= lo:
            return []
        if self.data is None:
            assert self.uniform is not None
            return [(self.first_line + lo, self.templates[self.uniform])]
        raws = self.raws(lo, hi)
        return [
            (self.first_line + lo + raws.index(raw), self.templates[raw])
            for raw in dict.fromkeys(raws)
        ]

    def kinds(self) -> set[EventKind]:
        """The kinds of the run's events."""
        return {t.kind for t in self.templates.values()}

    def events(self, lo: int = 0, hi: int | None = None) -> Iterator[Event]:
        """The events of lines ``lo`` .. ``hi`` (relative), as the line parser makes them."""
        hi = self.count if hi is None else hi
        line = self.first_line + lo
        if self.data is None:
            assert self.uniform is not None
            kind, message, level, releases, text = self.templates[self.uniform]
            for n in range(line, line + max(0, hi - lo)):
                yield new_event(
                    n, kind, message, n, None, level, None, None, {}, text, False, releases
                )
            return
        templates = self.templates
        for n, raw in enumerate(self.raws(lo, hi), line):
            kind, message, level, releases, text = templates[raw]
            yield new_event(n, kind, message, n, None, level, None, None, {}, text, False, releases)

    def slice(self, lo: int, hi: int) -> Blanks:
        """Lines ``lo`` .. ``hi`` of these (relative)."""
        if self.data is None:
            return Blanks(self.first_line + lo, hi - lo, None, self.uniform, self.templates)
        return Blanks(
            self.first_line + lo, hi - lo, b"\n".join(self.raws(lo, hi)), None, self.templates
        )

    def joined(self, other: Blanks) -> Blanks | None:
        """This run and ``other`` (which follows it) as one, where both repeat one line."""
        if (
            self.data is None
            and other.data is None
            and self.uniform == other.uniform
            and other.first_line == self.first_line + self.count
        ):
            templates = (
                self.templates
                if self.templates is other.templates
                else {
                    **self.templates,
                    **other.templates,
                }
            )
            return Blanks(self.first_line, self.count + other.count, None, self.uniform, templates)
        return None


def blank_run(first_line: int, data: bytes) -> Blanks:
    """A run of the whitespace-only lines ``data`` (joined by ``\\n``), templates to come."""
    count = data.count(b"\n") + 1
    if not data.strip(b"\n"):
        return Blanks(first_line, count, None, b"", {})
    first = data[: data.find(b"\n")]
    if data == b"\n".join((first,) * count):  # (a short line: a cheap comparison)
        return Blanks(first_line, count, None, first, {})
    return Blanks(first_line, count, data, None, {})


def split_blank_runs(part: bytes) -> Iterator[tuple[bytes, bool]]:
    """``part`` (whole lines joined by ``\\n``) cut into its runs of two or more
    whitespace-only lines (``True``) and the text between them (``False``), in order, each
    as lines joined by ``\\n``."""
    at = 0
    for m in _RUN.finditer(part + b"\n"):
        start, end = m.span()
        if start > at:
            yield part[at : start - 1], False
        yield part[start : end - 1], True
        at = end
    if at <= len(part):
        yield part[at:], False
