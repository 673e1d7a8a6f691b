"""Text helpers every layer may use: the JSON schema version, control characters made visible,
JSON encoding of library results, the one time format of JSON documents, and short figure
formats.

Log text is untrusted: :func:`visible` makes control characters (terminal escapes, OSC links)
visible before anything reaches a terminal, a file or a JSON document.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone, tzinfo
from enum import Enum
from typing import Any, AnyStr, cast

from .limits import json_ready

#: The version of every ``--format json`` document (and of ``to_dict()`` views that carry it).
#: 2: times are RFC 3339 (``T`` between date and time, the UTC offset when the zone is known).
SCHEMA_VERSION = 2
#: The ``check`` document's version (issue 33): 3: ``runs`` is the array of the runs, each as
#: ``logscope runs`` lists it (in 2 it was their count; ``run_count`` is the count, in both).
CHECK_SCHEMA_VERSION = 3


class _Lazy:
    """A compiled pattern made on its first use (issue 33, 2: a check of a small log pays
    only for the patterns it uses; a module's patterns at import were 40 ms of its start-up).
    The first attribute read compiles it and copies the pattern's methods and attributes onto
    this object, so every later ``.match`` or ``.sub`` is one attribute lookup, as on the
    compiled pattern itself."""

    def __init__(self, make: Callable[[], Any]) -> None:
        self._make = make

    def __getattr__(self, name: str) -> Any:  # only for a name not yet set: the first use
        if name.startswith("__") or name == "_make":  # copy, pickle and repr probes
            raise AttributeError(name)
        compiled = self._make()
        for attr in dir(compiled):
            if not attr.startswith("_"):
                setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


#: Python 3.11's ``re`` has the possessive quantifiers and atomic groups that bound the work
#: of every pattern of ours; 3.10's has not.
_RE_POSSESSIVE = sys.version_info >= (3, 11)


#: ``\s`` as the ``regex`` module reads it (Unicode's White_Space): ``re``'s also takes
#: ``\x1c``-``\x1f``, which our patterns never meant (the bytes lane's ASCII ``\s`` has
#: them not either), so :func:`own_pattern` spells ``\s`` and ``\S`` out with these.
SPACE = r"\t\n\x0b\x0c\r\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
#: A pattern's character classes and escapes (``[...]``, ``\x``), one token each.
_TOKEN: re.Pattern[str] = cast(
    Any, _Lazy(lambda: re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*+\]|\\.", re.S))
)
_ESCAPE: re.Pattern[str] = cast(Any, _Lazy(lambda: re.compile(r"\\.", re.S)))


def _spelled(token: re.Match[str]) -> str:
    text = token.group()
    if text == "\\s":
        return r"[^\S\x1c-\x1f]"  # as SPACE, in fewer items for re's parser
    if text == "\\S":
        return r"[\S\x1c-\x1f]"
    if text[0] == "[" and "\\" in text:
        return _ESCAPE.sub(_in_class, text)
    return text


def _in_class(escape: re.Match[str]) -> str:
    if escape.group() == "\\S":  # not inside a class: no pattern of ours has one there
        raise re.error("\\S in a character class")
    return SPACE if escape.group() == "\\s" else escape.group()


def _as_regex_reads(pattern: AnyStr) -> AnyStr:
    """A str ``pattern`` with ``\\s`` and ``\\S`` spelled as :data:`SPACE` (bytes as they are:
    both engines' ASCII ``\\s`` is the same)."""
    if isinstance(pattern, str) and ("\\s" in pattern or "\\S" in pattern):
        return _TOKEN.sub(_spelled, pattern)
    return pattern


def own_pattern(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """One of this package's own patterns (bounded: possessive quantifiers, no nested
    repeats), compiled by ``re`` on Python 3.11+ where ``re`` takes it (``\\s`` spelled as
    ``regex`` reads it: :data:`SPACE`), else by the ``regex`` module (Python 3.10; a
    variable-width look-behind). Both engines read ``\\w`` and ``\\d`` alike on ASCII; past it
    ``re``'s ``\\w`` takes no combining mark and ``\\d`` the digits of an older Unicode
    (tests/test_pattern_engines.py: no line of the real logs reads differently). ``regex``'s
    import and its compiler, written in Python, were ~90 M instructions of a small check's
    start-up (issue 33, 2). A pattern from input never comes here: those are ``regex``'s,
    under its timeout."""
    if _RE_POSSESSIVE:
        try:
            return re.compile(_as_regex_reads(pattern), flags)
        except re.error:
            pass
    # start-up: the regex module only where re cannot take a pattern of ours
    import regex

    return cast("re.Pattern[AnyStr]", regex.compile(pattern, flags))


def lazy_regex(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """:func:`own_pattern` of ``pattern`` on first use (:class:`_Lazy`)."""
    return cast("re.Pattern[str]", _Lazy(lambda: own_pattern(pattern, flags)))


def lazy_regex_bytes(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]:
    """:func:`own_pattern` of a bytes pattern on first use (:class:`_Lazy`)."""
    return cast("re.Pattern[bytes]", _Lazy(lambda: own_pattern(pattern, flags)))


def lazy_re(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)`` on first use (:class:`_Lazy`)."""
    return cast("re.Pattern[str]", _Lazy(lambda: re.compile(pattern, flags)))


def lazy_re_bytes(pattern: bytes, flags: int = 0) -> re.Pattern[bytes]:
    """``re.compile(pattern, flags)`` of a bytes pattern on first use (:class:`_Lazy`)."""
    return cast("re.Pattern[bytes]", _Lazy(lambda: re.compile(pattern, flags)))


#: Control characters, and the bidi overrides/isolates and line separators that make a
#: terminal show text in another order than it is (issue 20: "Trojan source" in a log).
_CONTROL = lazy_regex(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]"
)
#: What ``json.dumps(ensure_ascii=False)`` leaves raw that a terminal or an editor acts on:
#: DEL and C1 controls, bidi overrides and isolates, line/paragraph separators, BOM.
_JSON_UNSAFE = lazy_regex("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, limit: int | None = None) -> str:
    """Make control and bidi characters visible (``\\x1b``, ``\\u202e``) and cut to ``limit``."""
    if not (text.isascii() and text.isprintable()):  # (printable ASCII: nothing to escape)
        text = _CONTROL.sub(_escape, text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def rfc3339(value: datetime | None, zone: tzinfo | None = None) -> str | None:
    """The one time format of every JSON document: RFC 3339 (``2026-05-09T09:31:05.120``).

    An aware time, or a naive one whose zone is known (``zone``: the log's, from ``--log-tz``
    or a container's receive time), carries its UTC offset (``...+02:00``). A naive time of
    unknown zone (SGLang prints local wall-clock time without one) is written without an
    offset, and the document's ``time_zone`` says ``null``: an offset would be invented."""
    if value is None:
        return None
    if value.tzinfo is None and zone is not None:
        value = value.replace(tzinfo=zone)
    return value.isoformat()


class ZoneSource(str, Enum):
    """Where a document's ``time_zone`` comes from (its ``time_zone_source``)."""

    #: the log's own receive times (a container runtime's or journald's stamps)
    LOG = "log"
    #: given: ``--log-tz`` (the library's ``log_tz``)
    LOG_TZ = "--log-tz"
    #: none known, and the check compared the log's times with this machine's clock as if
    #: the log were written in its zone (``time_zone`` stays ``null``: no offset is invented)
    ASSUMED_LOCAL = "assumed-local"
    #: none known, and nothing assumed
    UNKNOWN = "unknown"


def zone_name(zone: tzinfo | None, text: str | None = None) -> str | None:
    """What a document's ``time_zone`` says: the zone as it was named (``Europe/Berlin``,
    ``+02:00``), else its offset (``+00:00``); ``None``: unknown."""
    if zone is None:
        return None
    if text:
        return text
    key = getattr(zone, "key", None)  # zoneinfo.ZoneInfo
    if isinstance(key, str):
        return key
    offset = zone.utcoffset(None)
    return _offset_text(offset) if offset is not None else str(zone.tzname(None))


def _offset_text(offset: timedelta) -> str:
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


#: A printed time and its receive time differ by the zone's offset (a multiple of 15 minutes,
#: at most 14 hours) plus at most this much (the line's trip to the container runtime).
_RECEIVE_SLACK = timedelta(minutes=2)


def printed_zone(printed: datetime | None, received: datetime | None) -> timezone | None:
    """The zone of a naive printed time, read from the aware time the line was received at
    (kubectl, Docker, journald): their difference rounded to a quarter hour, when it lies that
    close to one; ``None`` when either is missing or the two are too far apart to say."""
    if printed is None or received is None or printed.tzinfo is not None:
        return None
    if received.tzinfo is None or printed.year == 1900:  # a time-only stamp has no date
        return None
    try:
        gap = printed - received.astimezone(timezone.utc).replace(tzinfo=None)
    except OverflowError:  # a receive time at the edge of the calendar (year 1 or 9999)
        return None
    quarters = round(gap / timedelta(minutes=15))
    if abs(quarters) > 14 * 4 or abs(gap - quarters * timedelta(minutes=15)) > _RECEIVE_SLACK:
        return None
    return timezone(quarters * timedelta(minutes=15))


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return rfc3339(value)
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "to_dict"):
        return value.to_dict()
    return str(value)


def to_json(
    data: Any, indent: int | None = 2, *, parsed: bool = False, ascii_only: bool = False
) -> str:
    """``data`` as JSON: times RFC 3339 (:func:`rfc3339`), enums by value, objects through
    ``to_dict()``; no NaN, infinity or unbounded int (:func:`.limits.json_ready`); control,
    bidi and line-separator characters as ``\\uXXXX`` (the same string to a JSON reader,
    inert on a terminal).

    ``parsed``: the data are events as the parser made them, whose ints are bounded where
    they enter (the catalog's 18-digit numbers, banner values through :mod:`.limits`), so
    the scan for long digit runs (as costly as the encoding itself) is skipped. ``ascii_only``:
    every non-ASCII character escaped too (a stdout that cannot encode them loses nothing)."""
    try:  # fast path: the C encoder; NaN/infinity raise, a long digit run is looked for
        text = json.dumps(
            data, indent=indent, default=_default, ensure_ascii=ascii_only, allow_nan=False
        )
        if not parsed and _LONG_DIGITS.search(text) is not None:
            raise ValueError("maybe an unbounded int")
    except ValueError:  # (or a digit run inside a string: the same result, slower)
        plain = json_ready(data, _default)
        text = json.dumps(plain, indent=indent, ensure_ascii=ascii_only, allow_nan=False)
    if text.isascii() and "\x7f" not in text:  # the common case, at C speed
        return text
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: More digits in a row than any int within 2**63 has.
_LONG_DIGITS = lazy_regex(r"\d{20}")


def gib(value: Any) -> str:
    return f"{value:.2f} GiB" if isinstance(value, (int, float)) else "-"


def when(value: datetime | None) -> str:
    return value.isoformat(sep=" ") if value else "-"


def moment(value: datetime | None) -> str:
    """A moment to the second (a clock time alone where the log printed no date: year 1900),
    for the check's sections; here, not in :mod:`._html`, so the text check does not load
    ``html`` (issue 33, 2: start-up)."""
    if value is None:
        return "-"
    if value.year == 1900:
        return value.strftime("%H:%M:%S")
    return value.isoformat(sep=" ", timespec="seconds")
