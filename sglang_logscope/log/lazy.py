"""Events held lean: the log's bytes and a few columns, each :class:`Event` made on access.

A :class:`~sglang_logscope.log.reader.Log` of a big file would hold an ``Event`` object per
line, about 1.1 KB each (its message, its text, its fields, its slots). :class:`LazyEvents`
holds instead the file's bytes, where each line starts (8 bytes a line) and per event its
first line (8 bytes) and its kind (1 byte): about the file's size plus 17 bytes an event.
Events are made again when asked for, a window of :data:`WINDOW` consecutive events at a time,
by parsing that window's bytes: every line belongs to exactly one event and an event never
depends on what came before it, so a window parsed on its own gives the same events (checked
on every window: its count and first line). Reading by kind (``iter_kind``) parses only the
windows that hold one.
"""

from __future__ import annotations

import io
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from datetime import tzinfo
from itertools import compress, repeat
from operator import is_not
from typing import Any, overload

from .._text import printed_zone
from ..events import Event, EventKind
from ..parse.adapters import InputFormat, detect
from ..parse.blanks import Blanks
from ..parse.bulk import Rows
from ..parse.lines import iter_events

#: Events parsed again at once on access (and kept: the last few windows).
WINDOW = 2048
#: How many of a log's first events :attr:`LazyEvents.printed_zone` looks at.
_ZONE_LOOKS = 64
_KEEP = 4
_KINDS = list(EventKind)
_CODE = {k: i for i, k in enumerate(_KINDS)}


class _Store:
    """The bytes and columns a :class:`LazyEvents` and its views share."""

    __slots__ = ("cache", "data", "kinds", "lines", "starts", "wrapped", "zone")

    def __init__(self, data: bytes, starts: Any, lines: array[int], kinds: bytearray) -> None:
        self.data = data
        self.starts = starts  # numpy int64: the offset of each line's first byte
        self.lines = lines  # per event, its first line (1-based)
        self.kinds = kinds  # per event, its kind's code
        self.cache: dict[int, list[Event]] = {}
        self.wrapped: bool | None = None  # (read from the first bytes when first asked)
        self.zone: tzinfo | bool | None = False  # False: not read yet

    def offset(self, index: int) -> int:
        """Where event ``index`` starts in the bytes (the end for one past the last)."""
        if index >= len(self.lines):
            return len(self.data)
        return int(self.starts[self.lines[index] - 1])

    def window(self, w: int) -> list[Event]:
        """The events of window ``w``, parsed from their bytes (cached)."""
        hit = self.cache.get(w)
        if hit is not None:
            return hit
        lo, hi = w * WINDOW, min(len(self.lines), (w + 1) * WINDOW)
        chunk = self.data[self.offset(lo) : self.offset(hi)]
        events = list(iter_events(io.BytesIO(chunk), first_line=self.lines[lo], helper=False))
        if len(events) != hi - lo or (events and events[0].line != self.lines[lo]):
            raise RuntimeError(f"lazy events: window {w} parsed into {len(events)} events")
        if len(self.cache) >= _KEEP:
            self.cache.pop(next(iter(self.cache)))
        self.cache[w] = events
        return events


class LazyEvents(Sequence[Event]):
    """A read-only sequence of a log's events (or of a run's: a view of consecutive ones),
    made on access from the log's bytes. Equal to any sequence of the same events."""

    __slots__ = ("_start", "_stop", "_store")

    def __init__(self, store: _Store, start: int = 0, stop: int | None = None) -> None:
        self._store = store
        self._start = start
        self._stop = len(store.lines) if stop is None else stop

    def __len__(self) -> int:
        return self._stop - self._start

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> LazyEvents: ...
    def __getitem__(self, index: int | slice) -> Event | LazyEvents:
        if isinstance(index, slice):
            lo, hi, step = index.indices(len(self))
            if step != 1:
                return tuple(self)[index]  # type: ignore[return-value]
            return LazyEvents(self._store, self._start + lo, self._start + max(lo, hi))
        i = index + len(self) if index < 0 else index
        if not 0 <= i < len(self):
            raise IndexError("event index out of range")
        at = self._start + i
        return self._store.window(at // WINDOW)[at % WINDOW]

    def __iter__(self) -> Iterator[Event]:
        start, stop = self._start, self._stop
        for w in range(start // WINDOW, (stop - 1) // WINDOW + 1 if stop > start else 0):
            events = self._store.window(w)
            base = w * WINDOW
            yield from events[max(0, start - base) : stop - base]

    @property
    def wrapped(self) -> bool:
        """Whether the log is a container or journald wrapping (its events may carry a receive
        time), read from its first bytes: a plain log's events need not be made to say no."""
        store = self._store
        if store.wrapped is None:
            store.wrapped = detect(store.data[:65536]) is not InputFormat.plain
        return store.wrapped

    @property
    def printed_zone(self) -> tzinfo | None:
        """The zone the log's receive times show (:func:`~sglang_logscope._text.printed_zone`),
        read once from the log's first events and the same for every view: a big log's runs
        do not each parse a window for it (a DST change within such a log is not seen)."""
        store = self._store
        if store.zone is False:
            store.zone = None
            if self.wrapped:
                hi = min(len(store.lines), _ZONE_LOOKS)
                chunk = store.data[: store.offset(hi)]
                for e in iter_events(io.BytesIO(chunk), first_line=1, helper=False):
                    if e.received_at is not None and e.has_date:
                        store.zone = printed_zone(e.timestamp, e.received_at)
                        break
        return store.zone  # type: ignore[return-value]

    def iter_kind(self, *kinds: EventKind) -> Iterator[Event]:
        """The events of these kinds, in order, parsing only the windows that hold one."""
        store = self._store
        codes = [bytes([_CODE[k]]) for k in set(kinds)]
        wanted = set(kinds)
        start, stop = self._start, self._stop
        for w in range(start // WINDOW, (stop - 1) // WINDOW + 1 if stop > start else 0):
            lo, hi = max(start, w * WINDOW), min(stop, (w + 1) * WINDOW)
            if not any(store.kinds.find(c, lo, hi) >= 0 for c in codes):
                continue
            base = w * WINDOW
            for e in store.window(w)[lo - base : hi - base]:
                if e.kind in wanted:
                    yield e

    def kind_counts(self) -> Counter[str]:
        """How many events of each kind (by its value), in the order kinds first appear: from
        the kinds column, no event made."""
        counts = Counter(self._store.kinds[self._start : self._stop])
        return Counter({_KINDS[code].value: n for code, n in counts.items()})

    def between(self, first_line: int, last_line: int) -> LazyEvents:
        """The view of the events starting on lines ``first_line``..``last_line``."""
        lines = self._store.lines
        lo = bisect_left(lines, first_line, self._start, self._stop)
        hi = bisect_right(lines, last_line, lo, self._stop)
        return LazyEvents(self._store, lo, hi)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyEvents) and other._store is self._store:
            return (self._start, self._stop) == (other._start, other._stop) or len(
                self
            ) == 0 == len(other)
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash((id(self._store), self._start, self._stop))

    def __repr__(self) -> str:
        return f"<LazyEvents: {len(self):,} events>"


class Builder:
    """Gathers the lines and kinds of a log's events as its parse streams by (``feed``), then
    makes the :class:`LazyEvents` of its bytes (``finish``)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.lines: array[int] = array("q")
        self.kinds = bytearray()

    def feed(self, records: Iterable[Event | Rows | Blanks]) -> None:
        for item in records:
            if isinstance(item, Rows):
                self.lines.extend(range(item.first_line, item.last_line + 1))
                self.kinds.extend(_row_codes(item))
            elif isinstance(item, Blanks):
                self.lines.extend(range(item.first_line, item.last_line + 1))
                if item.data is None:
                    self.kinds.extend(
                        bytes((_CODE[item.templates[item.uniform or b""].kind],)) * item.count
                    )
                else:
                    codes = {raw: _CODE[t.kind] for raw, t in item.templates.items()}
                    self.kinds.extend(map(codes.__getitem__, item.raws()))
            else:
                self.lines.append(item.line)
                self.kinds.append(_CODE[item.kind])

    def finish(self) -> LazyEvents:
        # start-up: numpy loads only when a big log is read whole
        import numpy as np

        raw = np.frombuffer(self.data, dtype=np.uint8)
        parts = [np.zeros(1, dtype=np.int64)]
        step = 1 << 22
        for lo in range(0, len(raw), step):
            hits = np.flatnonzero(raw[lo : lo + step] == 10).astype(np.int64)
            parts.append(hits + (lo + 1))
        starts = np.concatenate(parts)
        return LazyEvents(_Store(self.data, starts, self.lines, self.kinds))


def _row_codes(rows: Rows) -> bytes:
    """The kind code of each row of a block (from the columns that mark each spec's rows)."""
    n = len(rows)
    codes = bytearray(n)
    cols, layout, start = rows.cols, rows.layout, rows.start
    for alt in rows.shape.alts:
        code = _CODE[alt.spec.kind]
        column = cols[layout.witness[alt.number]][start : start + n]
        for i in compress(range(n), map(is_not, column, repeat(None))):
            codes[i] = code
    return bytes(codes)
