"""Launch times and time zones: what ``--launched-at`` and ``--log-tz`` mean, and the launch
record ``logscope launch`` leaves beside a log (:func:`launch_record_bytes`, read by both
``check`` and ``watch``).

SGLang prints naive local wall-clock time. A launch time may be naive (taken as the log's
local time), time-only (``09:18`` = that time on the run's date), an epoch, or carry a zone.
"""

from __future__ import annotations

import contextlib
import os
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path

from ._record import record
from ._text import lazy_re
from .errors import LogscopeError
from .limits import read_regular

#: The launch record ``logscope launch`` writes beside the log: ``LOG.launch.json``.
LAUNCH_RECORD_SUFFIX = ".launch.json"
#: A launch record larger than this is refused (``logscope launch`` writes a few KiB).
LAUNCH_RECORD_MAX_BYTES = 1 << 20


def launch_record_path(log: str | os.PathLike[str]) -> Path:
    """Where the launch record of ``log`` is."""
    return Path(os.fspath(log) + LAUNCH_RECORD_SUFFIX)


def launch_record_bytes(log: str | os.PathLike[str]) -> bytes | None:
    """The launch record beside ``log`` as bytes: ``None`` when there is none;
    :class:`LogscopeError` when it is no regular file or too large (no FIFO, no device). What
    it holds is the reader's to validate: it is data, never code."""
    path = launch_record_path(log)
    if not os.path.lexists(path):
        return None
    return read_regular(
        path, LAUNCH_RECORD_MAX_BYTES, "a launch record", follow=False
    )  # no FIFO, no device, no link: named by untrusted input


#: A run whose start is this much before the launch time still counts as the launch
#: (clock granularity: a launch time typed to the minute, or taken on another machine).
START_TOLERANCE = timedelta(seconds=2)


@record
class LaunchTime:
    """A parsed ``--launched-at``: the value, and whether it named a date and a zone."""

    value: datetime
    has_date: bool
    has_zone: bool
    text: str
    has_year: bool = True
    #: How an ambiguous date was read (``09.05.2026``: month first), said next to the verdict.
    ambiguity: str | None = None

    def on(self, day: date | None) -> datetime:
        """The launch time, placed on ``day`` when only a time was given, in ``day``'s year
        when the date had none (``May 9 09:31``; the current year without a run date)."""
        value = self.value
        if not self.has_date and day is not None:
            value = datetime.combine(day, value.timetz())
        elif not self.has_year:
            year = day.year if day is not None else datetime.now().year
            with contextlib.suppress(ValueError):  # 29 February in a year without one
                value = value.replace(year=year)
        return value


#: ``-5m``, ``-90s``, ``-2h``, ``-1d``: that long before now.
_RELATIVE = lazy_re(r"^-(\d{1,9})\s*([smhd])$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400}
#: A numeric date whose first two fields could each be the day or the month (``09.05.2026``).
_DAY_MONTH = lazy_re(r"^(\d{1,2})[./-](\d{1,2})[./-](\d{2,4})\b")


def _relative(raw: str) -> LaunchTime | None:
    """``now`` and ``-5m``: this machine's local wall-clock time (the log's, when written here)."""
    if raw.lower() == "now":
        return LaunchTime(datetime.now(), has_date=True, has_zone=False, text=raw)
    m = _RELATIVE.match(raw)
    if m is None:
        return None
    delta = timedelta(seconds=int(m.group(1)) * _UNIT[m.group(2)])
    return LaunchTime(datetime.now() - delta, has_date=True, has_zone=False, text=raw)


def _ambiguity(raw: str, value: datetime) -> str | None:
    m = _DAY_MONTH.match(raw)
    if m is None:
        return None
    first, second = int(m.group(1)), int(m.group(2))
    if first == second or first > 12 or second > 12:
        return None
    try:
        other = value.replace(month=first if value.month == second else second, day=value.month)
    except ValueError:
        return None
    return (
        f"--launched-at {raw!r} is ambiguous: read as {value:%Y-%m-%d} ({value:%d %B}, month "
        f"first); day first it would be {other:%Y-%m-%d} ({other:%d %B}). Write the date as "
        "YYYY-MM-DD to be sure."
    )


#: What a ``--launched-at`` without a date is read onto (dateutil's ``default``): this date
#: means "no date given".
NO_DATE = datetime(1900, 1, 1)


def plain_iso(raw: str) -> datetime | None:
    """``YYYY-MM-DD HH:MM[:SS]`` (or ``T`` between), no zone — the form ``date`` and people
    write most — read by ``datetime`` as dateutil's parser reads it (a property test holds
    the two equal), without importing dateutil (issue 33, 2: a check's start-up); ``None``
    for any other text, which dateutil reads."""
    if len(raw) not in (16, 19) or not raw.isascii() or raw[10] not in " T":
        return None
    digits = raw[0:4] + raw[5:7] + raw[8:10] + raw[11:13] + raw[14:16] + raw[17:19]
    if not digits.isdigit() or raw[4] + raw[7] + raw[13] + raw[16:17] != "--::"[: len(raw) - 13]:
        return None
    try:
        return datetime.fromisoformat(raw)
    except ValueError:  # (a month 13, a 31st of April: dateutil's message says which)
        return None


def parse_launched_at(text: str) -> LaunchTime:
    """Parse ``--launched-at``: anything dateutil reads, ``HH:MM[:SS]``, an epoch (s or ms),
    ``now`` or ``-5m`` (``s``/``m``/``h``/``d`` before now)."""
    raw = text.strip()
    if not raw:
        raise LogscopeError("--launched-at is empty")
    relative = _relative(raw)
    if relative is not None:
        return relative
    if raw.replace(".", "", 1).isdigit() and len(raw.split(".")[0]) >= 9:
        seconds = float(raw)
        if seconds > 1e11:  # milliseconds
            seconds /= 1000.0
        try:
            moment = datetime.fromtimestamp(seconds, tz=timezone.utc)
        except (OverflowError, OSError, ValueError):
            raise LogscopeError(f"--launched-at {raw!r}: epoch out of range") from None
        return LaunchTime(moment, has_date=True, has_zone=True, text=raw)
    value = plain_iso(raw)
    if value is None:
        # start-up: dateutil's parser (~12 ms) only for a --launched-at of another form
        from dateutil import parser as dateparser

        try:
            value = dateparser.parse(raw, default=NO_DATE)
        except (ValueError, OverflowError) as exc:
            raise LogscopeError(f"--launched-at {raw!r}: not a date or time ({exc})") from None
    has_date = value.date() != NO_DATE.date() or any(ch in raw for ch in "-/")
    has_year = value.year != NO_DATE.year or str(NO_DATE.year) in raw
    return LaunchTime(
        value,
        has_date=has_date,
        has_zone=value.tzinfo is not None,
        text=raw,
        has_year=has_year or not has_date,
        ambiguity=_ambiguity(raw, value),
    )


def parse_tz(name: str | None) -> tzinfo | None:
    """``--log-tz``: an IANA name (``Europe/Berlin``), ``UTC``, ``local`` or an offset (``+02:00``)."""
    if name is None:
        return None
    # start-up: dateutil (~6 ms, ~12 ms with its parser) only for a --log-tz
    from dateutil import parser as dateparser
    from dateutil import tz as dateutil_tz

    if name.lower() == "local":
        return dateutil_tz.tzlocal()
    if name.startswith(("/", ".")) or ".." in name:  # a file, not a zone: never read
        raise LogscopeError(f"--log-tz {name[:60]!r}: unknown time zone (a file path is not one)")
    try:
        zone = dateutil_tz.gettz(name)
    except (ValueError, OSError, OverflowError):  # a zone file that is no zone file
        raise LogscopeError(f"--log-tz {name[:60]!r}: unknown time zone") from None
    if zone is None:
        try:
            offset = dateparser.parse(f"2000-01-01T00:00{name}").tzinfo
        except (ValueError, OverflowError):
            offset = None
        if offset is None:
            raise LogscopeError(f"--log-tz {name!r}: unknown time zone")
        return offset
    return zone


#: The origin of the report's time line (its charts, per run and per worker): naive wall
#: clocks, so a log's 09:00 is drawn at 09:00 whatever zone this machine is in (a naive
#: ``datetime.timestamp()`` reads it as this machine's local time) and every date the parser
#: accepts (years 1 to 9999) has a place on it.
WALL_EPOCH = datetime(1970, 1, 1)


def wall_seconds(value: datetime) -> float:
    """Seconds on the report's time line (an aware time placed by its wall clock)."""
    return (value.replace(tzinfo=None) - WALL_EPOCH).total_seconds()


def wall_clock(seconds: float) -> datetime | None:
    """The wall clock ``seconds`` into the report's time line; ``None`` past year 1 or 9999."""
    try:
        return WALL_EPOCH + timedelta(seconds=seconds)
    except OverflowError:
        return None


def to_log_time(moment: datetime, log_tz: tzinfo | None) -> datetime:
    """An aware moment as naive wall-clock time in the log's zone (the machine's when unknown)."""
    if moment.tzinfo is None:
        return moment
    # the machine's zone by the C library (as dateutil's tzlocal reads it, without importing
    # dateutil: ~15 ms of a check's start-up, issue 33)
    return moment.astimezone(log_tz).replace(tzinfo=None)


def file_mtime(path: str, log_tz: tzinfo | None) -> datetime | None:
    """The file's modification time as naive wall-clock time in the log's zone."""
    try:
        seconds = os.stat(path).st_mtime
    except OSError:
        return None
    return to_log_time(datetime.fromtimestamp(seconds, tz=timezone.utc), log_tz)


def whole_hour_gap(
    a: datetime, b: datetime, tolerance: timedelta = timedelta(minutes=3)
) -> int | None:
    """If ``a - b`` is within ``tolerance`` of a non-zero whole number of hours (≤ 14), return it."""
    delta = a - b
    hours = round(delta.total_seconds() / 3600)
    if hours == 0 or abs(hours) > 14:
        return None
    if abs(delta - timedelta(hours=hours)) <= tolerance:
        return hours
    return None
