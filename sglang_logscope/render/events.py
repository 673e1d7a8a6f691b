"""``logscope events`` as a table that streams: one row written as each event is parsed.

A rich ``Table`` measures every row before printing the first, so on a 300 MB log it held
millions of rows in memory and printed nothing for minutes. Here the columns have fixed
widths (the kind column fits the longest kind), each row is written at once, and a message
longer than the terminal's line wraps under the message column instead of being cut.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Iterable
from typing import TextIO

from .._text import visible
from ..events import Event, EventKind

#: Longest message shown per event (the rest: ``--format jsonl``).
MESSAGE_LIMIT = 160
_KIND_W = max(len(k.value) for k in EventKind)
_LINE_W = 7
_TIME_W = 8
_RANK_W = 7
#: Rows of events without time or rank remembered by kind and message.
_PLAIN_ROWS = 4096


def table_width(stream: TextIO) -> int:
    """The terminal's width; 120 for files and pipes (as the other tables)."""
    isatty = getattr(stream, "isatty", None)
    if callable(isatty) and isatty():
        return max(60, shutil.get_terminal_size((120, 24)).columns)
    return 120


def _row(line: str, time: str, rank: str, kind: str, message: str, width: int) -> list[str]:
    head = f"{line:>{_LINE_W}}  {time:<{_TIME_W}}  {rank:<{_RANK_W}}  {kind:<{_KIND_W}}  "
    room = max(20, width - len(head))
    pieces = textwrap.wrap(message, room, break_long_words=True, break_on_hyphens=False) or [""]
    pad = " " * len(head)
    return [head + pieces[0], *(pad + p for p in pieces[1:])]


def write_events_table(events: Iterable[Event], out: TextIO | None = None) -> int:
    """Write ``events`` as aligned rows as they come; the number of rows written."""
    stream = out if out is not None else sys.stdout
    width = table_width(stream)
    stream.write("\n".join(_row("line", "time", "rank", "kind", "message", width)) + "\n")
    count = 0
    # the rows of an event without time or rank differ only in the line number: made once per
    # kind and message (a file of millions of blank lines, issue 29), while that number fits
    plain: dict[tuple[EventKind, str], str] = {}
    for e in events:
        if e.timestamp is None and e.rank is None and len(line := str(e.line)) <= _LINE_W:
            key = (e.kind, e.message)
            rest = plain.get(key)
            if rest is None:
                rows = _row(
                    "", "", "", e.kind.value, visible(e.message, limit=MESSAGE_LIMIT), width
                )
                rest = "\n".join(rows)[_LINE_W:] + "\n"
                if len(plain) < _PLAIN_ROWS:
                    plain[key] = rest
            stream.write(line.rjust(_LINE_W) + rest)
            count += 1
            continue
        rows = _row(
            str(e.line),
            e.timestamp.strftime("%H:%M:%S") if e.timestamp else "",
            visible(e.rank.label) if e.rank else "",
            e.kind.value,
            visible(e.message, limit=MESSAGE_LIMIT),
            width,
        )
        stream.write("\n".join(rows) + "\n")
        count += 1
    return count
