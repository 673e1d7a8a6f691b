"""Text helpers every layer may use: the JSON schema version, control characters made visible,
JSON encoding of library results, and short figure formats.

Log text is untrusted: :func:`visible` makes control characters (terminal escapes, OSC links)
visible before anything reaches a terminal, a file or a JSON document.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from enum import Enum
from typing import Any

import regex

#: The version of every ``--format json`` document (and of ``to_dict()`` views that carry it).
SCHEMA_VERSION = 1

_CONTROL = regex.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def visible(text: str, limit: int | None = None) -> str:
    """Make control characters visible (``\\x1b`` → ``␛``-style escapes) and cut to ``limit``."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


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
    """``data`` as JSON: times ISO 8601, enums by value, objects through ``to_dict()``."""
    return json.dumps(data, indent=indent, default=_default, ensure_ascii=False, allow_nan=False)


def gib(value: Any) -> str:
    return f"{value:.2f} GiB" if isinstance(value, (int, float)) else "-"


def when(value: datetime | None) -> str:
    return value.isoformat(sep=" ") if value else "-"
