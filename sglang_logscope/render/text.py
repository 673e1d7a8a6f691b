"""Console output shared by every renderer: a safe console, plain text, JSON on stdout.

Log text is untrusted: it is never interpreted as rich markup, and control characters
(terminal escapes, OSC links) are made visible before anything reaches the terminal.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from itertools import pairwise
from typing import TYPE_CHECKING, Any, cast

from .._text import to_json, visible
from .streams import encodes_everything

if TYPE_CHECKING:  # rich is imported when something is rendered, not for JSON output
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text


def plain(text: str, style: str = "", limit: int | None = None) -> Text:
    """A rich ``Text`` holding ``text`` literally (no markup is ever parsed from log content)."""
    # start-up: rich loads only for text output (JSON never needs it)
    from rich.text import Text

    return Text(visible(text, limit), style=style)


def console(stderr: bool = False) -> Console:
    """A console honouring ``NO_COLOR`` (and no colour when not a terminal)."""
    # start-up: rich loads only for text output (JSON never needs it)
    from rich.console import Console

    no_color = bool(os.environ.get("NO_COLOR"))
    stream = sys.stderr if stderr else sys.stdout
    width = None
    if not stream.isatty():  # files and pipes: a wide page rather than rich's 80 columns
        # a stream may say its width (the output --redact holds: unwrapped), else COLUMNS
        said = getattr(stream, "columns", None)
        columns = str(said) if isinstance(said, int) else os.environ.get("COLUMNS", "")
        width = int(columns) if columns.isdigit() and int(columns) >= 40 else 120
    return Console(
        file=stream,
        width=width,
        no_color=no_color,
        highlight=False,
        markup=False,
        emoji=False,
        soft_wrap=False,
    )


def page() -> PlainPage | RichPage:
    """Where the check's short screen is written: :func:`console` (through :class:`RichPage`),
    or on a file or pipe with no colour forced (rich draws none there) a :class:`PlainPage`,
    which writes the same text without rich (issue 33, 2: rich's ``Text`` alone is ~80 M
    instructions of a check's start-up)."""
    if sys.stdout.isatty() or os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE"):
        return RichPage(console())
    columns = os.environ.get("COLUMNS", "")
    return PlainPage(sys.stdout, int(columns) if columns.isdigit() and int(columns) >= 40 else 120)


class Styled(tuple[tuple[str, str], ...]):
    """A line as ``(text, style)`` pieces, as rich's ``Text.assemble`` takes them: what the
    check's screens say, written by :class:`PlainPage` without rich, or by rich's console
    through :class:`RichPage`. Build one with :func:`styled`; log text goes in by
    :func:`piece`, made visible as :func:`plain` makes it."""

    __slots__ = ()

    @property
    def plain(self) -> str:
        return "".join(text for text, _ in self)


def styled(*parts: str | tuple[str, str]) -> Styled:
    """``Text.assemble(*parts)`` without rich: a ``str`` is a piece with no style."""
    return Styled((part, "") if isinstance(part, str) else part for part in parts)


def piece(text: str, style: str = "", limit: int | None = None) -> tuple[str, str]:
    """Log text as a piece of :class:`Styled`: :func:`plain`'s text, without rich."""
    return (visible(text, limit), style)


class RichPage:
    """rich's console for the check's screens: a :class:`Styled` line is printed as rich's
    ``Text.assemble`` of its pieces; anything else (a table, a ``Text``) as it is."""

    def __init__(self, con: Console) -> None:
        self.console = con

    def print(self, *objects: Any, soft_wrap: bool | None = None) -> None:
        # start-up: rich's Text, loaded with the console already, is named only here
        from rich.text import Text

        shown = (Text.assemble(*o) if isinstance(o, Styled) else o for o in objects)
        self.console.print(*shown, soft_wrap=soft_wrap)


class PlainPage:
    """The part of rich's ``Console.print`` a page without colour needs, as :func:`console`
    prints to a file or pipe: the objects joined by a space, wrapped to ``width`` as rich's
    ``Text.wrap`` wraps (words kept whole, a longer one folded; tabs expanded), not wrapped
    with ``soft_wrap``, each line ended by a newline; no styles. Printable ASCII (nearly every
    page: :func:`one_cell`) is wrapped here (:func:`ascii_lines`); other text by rich's own
    ``Text.wrap``.
    ``tests/test_startup.py`` compares it with the console on every fixture's check, and
    :func:`ascii_lines` with rich on any printable ASCII."""

    def __init__(self, stream: Any, width: int) -> None:
        self.file = stream
        self.width = width

    def print(self, *objects: Any, soft_wrap: bool = False) -> None:
        if not objects:
            self.file.write("\n")
            return
        text = " ".join(o.plain if isinstance(o, Styled) else _plain_of(o) for o in objects)
        if wraps_plainly(text, self.width, soft_wrap):
            lines = ascii_lines(text, self.width, soft_wrap)
        else:
            lines = rich_lines(text, self.width, soft_wrap)
        self.file.write("".join(line + "\n" for line in lines))


def _plain_of(thing: Any) -> str:
    """A printed object's text: a rich ``Text``'s plain text, else ``str``."""
    plain_text = getattr(thing, "plain", None)
    return plain_text if isinstance(plain_text, str) else str(thing)


def rich_lines(text: str, width: int, soft_wrap: bool) -> list[str]:
    """The lines rich's console writes ``text`` as (no styles), by rich's ``Text.wrap``."""
    # start-up: rich's Text only for text that is not printable ASCII
    from rich.text import Text

    unwrapped = {"overflow": "ignore", "no_wrap": True} if soft_wrap else {}
    lines = Text(text).wrap(cast("Console", None), width, **unwrapped)  # type: ignore[arg-type]
    return [line.plain for line in lines]


#: The characters past ASCII the tool's own wording uses (arrows, dashes, the ellipsis, ...):
#: one cell each in rich (tests/test_startup.py checks every one), and not space to its wrap.
ONE_CELL = frozenset("→←↔—–…·•≤≥≠≈×“”‘’")


def one_cell(text: str) -> bool:
    """Whether :func:`ascii_lines` wraps ``text`` as rich does: printable, one cell a
    character (ASCII or :data:`ONE_CELL`), lines joined by newlines."""
    if not text.replace("\n", "").isprintable():
        return False
    return text.isascii() or all(c.isascii() or c in ONE_CELL for c in text)


def wraps_plainly(text: str, width: int, soft_wrap: bool) -> bool:
    """Whether :func:`ascii_lines` writes ``text`` as every rich release does: :func:`one_cell`
    text, and unwrapped (``soft_wrap``) only where no line past ``width`` ends in a space
    (rich 13 drops those spaces, rich 15 keeps them)."""
    if not one_cell(text):
        return False
    return not soft_wrap or not any(
        len(line) > width and line.endswith(" ") for line in text.split("\n")
    )


#: A word as rich's wrap reads one (``rich._wrap.re_word``), where a space is the only blank.
_WORD = re.compile(r" *[^ ]+ *")


def ascii_lines(text: str, width: int, soft_wrap: bool) -> list[str]:
    """:func:`rich_lines` of :func:`one_cell` text (printable, one cell a character, no tab,
    nothing rich strips), without rich: each line cut where ``rich._wrap.divide_line`` cuts it (a word that
    fits stays whole, a longer one is folded), the spaces past ``width`` at a piece's end
    dropped, the piece cropped to ``width``."""
    if soft_wrap:
        return text.split("\n")
    out: list[str] = []
    for line in text.split("\n"):
        bounds = [0, *_breaks(line, width), len(line)]
        for a, b in pairwise(bounds):
            cut = line[a:b]
            if len(cut) > width:
                spaces = len(cut) - len(cut.rstrip(" "))
                cut = cut[: len(cut) - min(spaces, len(cut) - width)]
            out.append(cut[:width])
    return out


def _breaks(line: str, width: int) -> list[int]:
    """Where ``rich._wrap.divide_line(line, width, fold=True)`` breaks a one-cell line."""
    breaks: list[int] = []
    offset = 0
    for match in _WORD.finditer(line):
        start, word = match.start(), match.group()
        length = len(word.rstrip(" "))
        if width - offset >= length:
            offset += len(word)
        elif length > width:  # folded into pieces of ``width``
            folds = [word[i : i + width] for i in range(0, len(word), width)]
            for fold in folds[:-1]:
                if start:
                    breaks.append(start)
                start += len(fold)
            if start:
                breaks.append(start)
            offset = len(folds[-1])
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    return breaks


def table(*headers: str, **options: Any) -> Table:
    """A rich table whose cells wrap and fold long words: on a narrow terminal an argument name
    (``mem_fraction_static``) breaks across lines instead of being cut to ``mem_fraction_stat…``."""
    # start-up: rich loads only for text output (JSON never needs it)
    from rich.table import Table

    made = Table(*headers, **options)
    for column in made.columns:
        column.overflow = "fold"
    return made


def write_json(data: Any, *, parsed: bool = False) -> None:
    out = sys.stdout
    out.write(to_json(data, parsed=parsed, ascii_only=not encodes_everything(out)) + "\n")


def write_jsonl(rows: Iterable[Any], *, parsed: bool = False) -> None:
    out = sys.stdout
    ascii_only = not encodes_everything(out)  # escapes, not stand-ins: JSON loses nothing
    for row in rows:
        out.write(to_json(row, indent=None, parsed=parsed, ascii_only=ascii_only) + "\n")


def unreadable_lines(unreadable: Iterable[tuple[str, str]]) -> None:
    """One line on stderr per file that could not be read (the others were answered)."""
    for file, why in unreadable:
        named = why if file in why else f"{file}: {why}"  # the reader's message names most
        sys.stderr.write(f"logscope: unreadable: {visible(named)}\n")


def release_text(row: dict[str, Any]) -> str:
    """The run's pinned release range (``*``: its lines disagree, the majority is shown; a
    source checkout between two releases says so), else the older message-based hint, else
    ``-``."""
    pin = row.get("sglang_release")
    if pin:
        span = pin["min"] if pin["min"] == pin["max"] else f"{pin['min']}-{pin['max']}"
        if pin.get("source_checkout"):
            span = f"checkout {span}"
        return span if pin.get("agreeing") == pin.get("pieces") else f"{span}*"
    return str(row.get("sglang_version_hint") or "-")
