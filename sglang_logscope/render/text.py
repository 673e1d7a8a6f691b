"""Console output shared by every renderer: a safe console, plain text, JSON on stdout.

Log text is untrusted: it is never interpreted as rich markup, and control characters
(terminal escapes, OSC links) are made visible before anything reaches the terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
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


def page() -> Console | PlainPage:
    """Where the check's short screen is written: :func:`console`, or on a file or pipe with
    no colour forced (rich draws none there) a :class:`PlainPage`, which writes the same text
    without loading rich's console (issue 33, 2: ~0.02 s of a check's start-up)."""
    if sys.stdout.isatty() or os.environ.get("FORCE_COLOR") or os.environ.get("TTY_COMPATIBLE"):
        return console()
    columns = os.environ.get("COLUMNS", "")
    return PlainPage(sys.stdout, int(columns) if columns.isdigit() and int(columns) >= 40 else 120)


class PlainPage:
    """The part of rich's ``Console.print`` a page without colour needs, as :func:`console`
    prints to a file or pipe: the objects joined by a space, wrapped to ``width`` by rich's
    own ``Text.wrap`` (words kept whole, a longer one folded; tabs expanded), not wrapped with
    ``soft_wrap``, each line ended by a newline; no styles. ``tests/test_startup.py`` compares it with
    the console on every fixture's check."""

    def __init__(self, stream: Any, width: int) -> None:
        self.file = stream
        self.width = width

    def print(self, *objects: Any, soft_wrap: bool = False) -> None:
        # start-up: rich's Text (not its console) only where something is written
        from rich.text import Text

        if not objects:
            self.file.write("\n")
            return
        text = Text(" ").join(o if isinstance(o, Text) else Text(str(o)) for o in objects)
        unwrapped = {"overflow": "ignore", "no_wrap": True} if soft_wrap else {}
        lines = text.wrap(cast("Console", None), self.width, **unwrapped)  # type: ignore[arg-type]
        self.file.write("".join(line.plain + "\n" for line in lines))


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
