"""One call renders any result: :func:`emit` (result, format) → stdout.

Every command of the CLI hands its library result to :func:`emit` with the ``--format`` it was
given; what each format does with each kind of result is the table :data:`RENDERERS` below
(pip-audit's one-call formats). ``json`` falls back to the result's ``to_dict()``. The renderer
modules are imported when their result is first emitted (start-up: ``logscope check`` must
not load the HTML report, the live view or pandas).
"""

from __future__ import annotations

import enum
import functools
import importlib
from collections.abc import Callable
from typing import Any, cast

from ..errors import LogscopeError
from .text import write_json


class Format(str, enum.Enum):
    """The one vocabulary of output formats (issue 33): every command's ``--format`` offers a
    subset (:data:`COMMAND_FORMATS`), and ``report`` names its files by the last two."""

    TEXT = "text"
    TABLE = "table"  # an alias of TEXT (events' and runs' name for it before issue 33)
    JSON = "json"
    JSONL = "jsonl"
    CSV = "csv"
    MARKDOWN = "markdown"  # report --markdown
    HTML = "html"  # report --html


#: Names kept for what they were (flags are interfaces): each is rendered as its target.
ALIASES: dict[Format, Format] = {Format.TABLE: Format.TEXT}

#: What each command's ``--format`` offers, its default first: the choices the CLI builds
#: (:func:`format_choices`); ``tests/test_formats.py`` walks the app against this table.
COMMAND_FORMATS: dict[str, tuple[Format, ...]] = {
    "events": (Format.TEXT, Format.TABLE, Format.JSON, Format.JSONL, Format.CSV),
    "runs": (Format.TEXT, Format.TABLE, Format.JSON),
    "summary": (Format.TEXT, Format.JSON),
    "gpus": (Format.TEXT, Format.JSON),
    "check": (Format.TEXT, Format.JSON),
    "args": (Format.TEXT, Format.JSON),
    "fix": (Format.TEXT, Format.JSON),
    "budget": (Format.TEXT, Format.JSON),
    "preflight": (Format.TEXT, Format.JSON),
    "watch": (Format.TEXT, Format.JSONL),
    "launch": (Format.TEXT, Format.JSONL),
}


def format_choices(command: str) -> type[Format]:
    """``command``'s ``--format`` type: an Enum of its row of :data:`COMMAND_FORMATS`, each
    member named and valued as in :class:`Format` (and equal to it: both are ``str``)."""
    return _choices(COMMAND_FORMATS[command])


@functools.cache
def _choices(row: tuple[Format, ...]) -> type[Format]:
    """One Enum per distinct row (start-up: seven commands offer text and json alike)."""
    members = [(f.name, f.value) for f in row]
    name = "Format_" + "_".join(f.value for f in row)
    return cast(type[Format], enum.Enum(name, members, type=str, module=__name__))


def canonical(fmt: Format | str) -> Format:
    """``fmt`` as a :class:`Format`, an alias as its target (``table`` → ``text``)."""
    one = Format(getattr(fmt, "value", fmt))
    return ALIASES.get(one, one)


#: (result type name, format) → ``module:function`` under ``sglang_logscope.render``; each
#: function takes the result and writes it to stdout.
RENDERERS: dict[tuple[str, Format], str] = {
    ("EventSelection", Format.TEXT): "tables:events_table",
    ("EventSelection", Format.JSON): "tables:events_json",
    ("EventSelection", Format.JSONL): "tables:events_jsonl",
    ("EventSelection", Format.CSV): "tables:events_csv",
    ("RunList", Format.TEXT): "tables:runs_table",
    ("Summaries", Format.TEXT): "views:summaries_text",
    ("Summaries", Format.JSON): "tables:summaries_json",
    ("CheckReport", Format.TEXT): "check_page:check_text",
    ("GpuReport", Format.TEXT): "machine:gpus_text",
    ("Preflight", Format.TEXT): "machine:preflight_text",
    ("LaunchCommand", Format.TEXT): "command:command_text",
    ("LaunchCommand", Format.JSON): "command:command_json",
    ("FixedCommand", Format.TEXT): "command:fixed_text",
    ("Budget", Format.TEXT): "budget:budget_text",
    ("Launches", Format.TEXT): "launches:launches_text",
    ("LaunchCheck", Format.TEXT): "launches:launch_check_text",
    ("Fleet", Format.TEXT): "launches:fleet_text",
    ("Fleet", Format.JSON): "launches:fleet_json",
}


def renderer(result: object, fmt: Format | str) -> Callable[[Any], None]:
    """The function that writes ``result`` in ``fmt``."""
    fmt = canonical(fmt)
    name = type(result).__name__
    where = RENDERERS.get((name, fmt))
    if where is None:
        if fmt is Format.JSON and hasattr(result, "to_dict"):
            return _json
        raise LogscopeError(f"{name} has no {fmt.value} form")
    module, func = where.split(":")
    return cast(
        Callable[[Any], None], getattr(importlib.import_module(f"{__package__}.{module}"), func)
    )


def emit(result: object, fmt: Format | str, **options: Any) -> None:
    """Write ``result`` to stdout in ``fmt``: the one rendering call of every command.
    ``options`` go to the renderer (``verbose`` for the check's text)."""
    renderer(result, fmt)(result, **options)


def _json(result: Any) -> None:
    write_json(result.to_dict())
