"""Rendering shared by every command: a safe console, JSON output, and text helpers.

Log text is untrusted: it is never interpreted as rich markup, and control characters
(terminal escapes, OSC links) are made visible before anything reaches the terminal.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from datetime import date, datetime
from enum import Enum
from typing import TYPE_CHECKING, Any

import regex

if TYPE_CHECKING:  # rich is imported when something is rendered, not for JSON output
    from rich.console import Console
    from rich.text import Text

SCHEMA_VERSION = 1

_CONTROL = regex.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str, limit: int | None = None) -> str:
    """Make control characters visible (``\\x1b`` → ``␛``-style escapes) and cut to ``limit``."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def plain(text: str, style: str = "", limit: int | None = None) -> Text:
    """A rich ``Text`` holding ``text`` literally (no markup is ever parsed from log content)."""
    from rich.text import Text

    return Text(visible(text, limit), style=style)


def console(stderr: bool = False) -> Console:
    """A console honouring ``NO_COLOR`` (and no colour when not a terminal)."""
    from rich.console import Console

    no_color = bool(os.environ.get("NO_COLOR"))
    stream = sys.stderr if stderr else sys.stdout
    width = None
    if not stream.isatty():  # files and pipes: a wide page rather than rich's 80 columns
        columns = os.environ.get("COLUMNS", "")
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


def _default(value: Any) -> Any:
    if isinstance(value, (datetime, date)):
        return value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


def to_json(data: Any, indent: int | None = 2) -> str:
    return json.dumps(data, indent=indent, default=_default, ensure_ascii=False, allow_nan=False)


def write_json(data: Any) -> None:
    sys.stdout.write(to_json(data) + "\n")


def write_jsonl(rows: Iterable[Any]) -> None:
    out = sys.stdout
    for row in rows:
        out.write(to_json(row, indent=None) + "\n")


def gib(value: Any) -> str:
    return f"{value:.2f} GiB" if isinstance(value, (int, float)) else "-"


def when(value: datetime | None) -> str:
    return value.isoformat(sep=" ") if value else "-"
