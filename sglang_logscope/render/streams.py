"""The process's own output streams: text any terminal can take, and a quiet closed pipe.

An ASCII (or Latin-1) stdout — ``PYTHONIOENCODING=ascii``, ``LANG=C`` on old systems, a CI
runner — cannot take the arrows and dashes the renderers print: every character the stream
cannot encode becomes an ASCII stand-in (``→`` as ``->``) or ``?``, instead of a
``UnicodeEncodeError`` half-way through a verdict. JSON loses nothing: on such a stream it is
written with ``\\uXXXX`` escapes (:func:`render.text.write_json`).
"""

from __future__ import annotations

import codecs
import contextlib
import os
import sys
from typing import TextIO

#: ASCII stand-ins for the non-ASCII characters the renderers themselves print.
ASCII_STAND_INS: dict[str, str] = {
    "→": "->",
    "←": "<-",
    "↔": "<->",
    "—": "-",
    "–": "-",
    "…": "...",
    "✓": "ok",
    "✔": "ok",
    "✗": "x",
    "✘": "x",
    "×": "x",
    "≈": "~",
    "≥": ">=",
    "≤": "<=",
    "≠": "!=",
    "·": "-",
    "•": "*",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "␛": "ESC",
    "±": "+/-",
    "µ": "u",
    "█": "#",
    "░": ".",
    "▏": "|",
}

_HANDLER = "logscope-ascii"


def _stand_in(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return "".join(ASCII_STAND_INS.get(ch, "?") for ch in bad), exc.end


codecs.register_error(_HANDLER, _stand_in)


def encodes_everything(stream: TextIO) -> bool:
    """True when ``stream`` takes any character (a UTF encoding)."""
    encoding = (getattr(stream, "encoding", None) or "ascii").lower().replace("_", "-")
    return encoding.startswith("utf")


def ascii_fallback(*streams: TextIO) -> None:
    """Give each stream that cannot encode every character the ASCII stand-ins."""
    for stream in streams:
        if encodes_everything(stream):
            continue
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure):
            with contextlib.suppress(ValueError, OSError):  # closed, or not a text file
                reconfigure(errors=_HANDLER)


def quiet_closed_pipe() -> None:
    """After EPIPE (``logscope ... | head``): point stdout at /dev/null, so the flush at exit
    does not print "Exception ignored ... BrokenPipeError" to stderr."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
