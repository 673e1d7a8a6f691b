"""Logs as container and system tools hand them over: the SGLang lines inside, and the time
the tool received each one (``received_at``).

``kubectl logs --timestamps`` / ``--prefix``, Docker's json-file (``/var/lib/docker/
containers/*/*-json.log``), ``journalctl -o short-iso`` / ``-o json`` / ``-o export`` and
``docker compose logs`` put their own prefix, or a JSON or export record, around every line,
continuation lines and traceback lines included. Left there, a traceback no longer joins
into one event and a failure reads as a bare ``exception``. The format is detected from the
first lines (:func:`detect`) or forced (``--input-format``); the reader then sees the SGLang
lines exactly as a plain log holds them, one per outer line (a Docker line split into 16 KiB
records is joined again), so line numbers count SGLang's lines.

Several containers interleaved in one file (``kubectl logs -l app=x --prefix``, ``docker
compose logs`` of two services) are several logs: :func:`containers` names them, an
:class:`AdaptedSource` (``--container``) reads one. Patterns are bounded (no nested quantifiers): linear time.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from enum import Enum
from typing import IO, Any

from .._record import record
from .._text import lazy_regex, lazy_regex_bytes
from ..errors import InputError
from ..limits import compression_of


class InputFormat(str, Enum):
    """How a log file wraps SGLang's lines (``--input-format``)."""

    auto = "auto"
    plain = "plain"
    kubectl = "kubectl"  # --timestamps and/or --prefix
    docker_json = "docker-json"
    journald_short_iso = "journald-short-iso"
    journald_json = "journald-json"
    journald_export = "journald-export"
    compose = "compose"


#: Bytes read to detect the format; lines looked at.
SNIFF_BYTES = 1 << 16
SNIFF_LINES = 20

_RFC3339 = rb"(?P<ts>\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9}+)?(?:Z|[+-]\d\d:?\d\d))"
_KUBECTL = lazy_regex_bytes(
    rb"(?:\[(?P<who>pod/[^\]\s/]{1,253}+/[^\]\s]{1,253}+)\] )?"
    rb"(?:(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9}+)?(?:Z|[+-]\d\d:\d\d))(?: |$))?"
)
_SHORT_ISO = lazy_regex_bytes(
    _RFC3339.replace(rb"(?:Z|", rb"(?:")  # journalctl prints a numeric offset, never Z
    + rb" (?P<host>[^\s\[]\S{0,253}+) (?P<who>[^\s\[:]{1,200}+)(?:\[\d{1,10}+\])?:(?: |$)"
)
_COMPOSE = lazy_regex_bytes(
    rb"(?P<who>[A-Za-z0-9][\w.-]{0,80}+) {1,40}+\| ?"
    rb"(?:(?P<ts>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9}+)?(?:Z|[+-]\d\d:\d\d))(?: |$))?"
)
_TS_PARTS = lazy_regex(
    r"(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,9}+))?(Z|[+-]\d\d:?\d\d)?"
)


def parse_rfc3339(text: str) -> datetime | None:
    """An RFC 3339 time (nanoseconds cut to microseconds, ``Z`` or ``+hhmm``), zone-aware."""
    m = _TS_PARTS.fullmatch(text)
    if m is None:
        return None
    year, month, day, hour, minute, second, frac, zone = m.groups()
    tz: timezone | None = None
    if zone == "Z":
        tz = timezone.utc
    elif zone:
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        tz = timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))
    try:
        return datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second),
            int((frac or "0").ljust(6, "0")[:6]), tzinfo=tz,
        )  # fmt: skip
    except ValueError:
        return None


def _usec(text: Any) -> datetime | None:
    try:
        return datetime.fromtimestamp(int(text) / 1e6, tz=timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


@dataclass(frozen=True, slots=True)
class Line:
    """One SGLang line out of its wrapping: the bytes, when the tool got it, from whom."""

    data: bytes
    received_at: datetime | None
    who: str | None = None


def _first_lines(head: bytes) -> list[bytes]:
    """The first lines, the last one left out when there are several: the sniff window may
    cut it, and a log copied from a thread often ends in a cut line."""
    lines = [ln.rstrip(b"\r") for ln in head.split(b"\n")[:SNIFF_LINES]]
    lines = [ln for ln in lines if ln.strip()]
    return lines[:-1] if len(lines) > 1 else lines


def _is_json_record(line: bytes, keys: tuple[bytes, ...]) -> bool:
    if not line.startswith(b"{"):
        return False
    try:
        data = json.loads(line)
    except ValueError:
        return False
    return isinstance(data, dict) and all(k.decode() in data for k in keys)


def _all_json(keys: tuple[bytes, ...]) -> Callable[[list[bytes]], bool]:
    return lambda lines: all(_is_json_record(ln, keys) for ln in lines)


def _is_export(lines: list[bytes]) -> bool:
    return lines[0].startswith((b"__CURSOR=", b"__REALTIME_TIMESTAMP="))


# Each sniff first tests what its pattern's match must start with, so that a plain log's
# lines ("[2026-05-09 ...") are told apart without compiling the pattern (issue 33, 2).


def _is_short_iso(lines: list[bytes]) -> bool:
    journal = [ln for ln in lines if not ln.startswith(b"-- ")]
    if not journal or not all(ln[:1].isdigit() for ln in journal):  # the time first
        return False
    return all(_SHORT_ISO.match(ln) for ln in journal)


def _is_kubectl(lines: list[bytes]) -> bool:
    if not all(ln[:1].isdigit() or ln.startswith(b"[pod/") for ln in lines):  # a prefix first
        return False
    kubectl = [_KUBECTL.match(ln) for ln in lines]
    return all(m is not None and m.end() > 0 for m in kubectl)


def _is_compose(lines: list[bytes]) -> bool:
    if not all(ln[:1].isalnum() for ln in lines):  # the service's name first
        return False
    return all(_COMPOSE.match(ln) for ln in lines)


def detect(head: bytes) -> InputFormat:
    """The format of a log whose first bytes are ``head``: the first wrapper of
    :data:`WRAPPERS` whose test every one of the first lines passes (journald's ``-- Boot ...
    --`` markers aside), else plain."""
    lines = _first_lines(head)
    if not lines:
        return InputFormat.plain
    for wrapper in WRAPPERS:
        if wrapper.sniff is not None and wrapper.sniff(lines):
            return wrapper.format
    return InputFormat.plain


#: An outer line (a JSON record, an export field) longer than this is cut: the rest of it is
#: skipped unread into memory, as the plain reader does.
MAX_RECORD_BYTES = 1 << 22


def _records(stream: IO[bytes]) -> Iterator[bytes]:
    """The stream's lines (newline kept), each at most :data:`MAX_RECORD_BYTES`."""
    while True:
        raw = stream.readline(MAX_RECORD_BYTES)
        if not raw:
            return
        if not raw.endswith(b"\n") and len(raw) == MAX_RECORD_BYTES:
            rest = raw
            while rest and not rest.endswith(b"\n"):
                rest = stream.readline(MAX_RECORD_BYTES)
        yield raw


def _prefixed_lines(stream: IO[bytes], pattern: re.Pattern[bytes]) -> Iterator[Line]:
    for raw in _records(stream):
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if line.endswith(b"\r"):
            line = line[:-1]
        m = pattern.match(line)
        if m is None or m.end() == 0:
            yield Line(line, None)
            continue
        ts = m.group("ts")
        who = m.group("who")
        yield Line(
            line[m.end() :],
            parse_rfc3339(ts.decode()) if ts else None,
            who.decode("utf-8", "replace") if who else None,
        )


def _short_iso_lines(stream: IO[bytes]) -> Iterator[Line]:
    for line in _prefixed_lines(stream, _SHORT_ISO):
        if line.received_at is None and line.data.startswith(b"-- "):
            continue  # "-- Boot 3f2c... --", "-- No entries --": journalctl's own markers
        yield line


def _docker_lines(stream: IO[bytes]) -> Iterator[Line]:
    parts: list[str] = []
    for raw in _records(stream):
        try:
            record = json.loads(raw)
            text = record["log"]
        except (ValueError, KeyError, TypeError):
            yield Line(raw.rstrip(b"\r\n"), None)  # not a record: kept as it is
            continue
        parts.append(str(text))
        if not str(text).endswith("\n"):
            continue  # a line over 16 KiB: Docker splits it into records without newline
        whole = "".join(parts)[:-1]
        parts = []
        when = parse_rfc3339(str(record.get("time", "")))
        yield Line(whole.encode("utf-8", "surrogateescape"), when)
    if parts:
        yield Line("".join(parts).encode("utf-8", "surrogateescape"), None)


def _message(value: Any) -> bytes | None:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, list) and all(isinstance(b, int) and 0 <= b < 256 for b in value):
        return bytes(value)  # journald's form for a message that is not valid UTF-8
    return None


def _journal_json_lines(stream: IO[bytes]) -> Iterator[Line]:
    for raw in _records(stream):
        try:
            record = json.loads(raw)
        except ValueError:
            yield Line(raw.rstrip(b"\r\n"), None)
            continue
        if not isinstance(record, dict):
            continue
        message = _message(record.get("MESSAGE"))
        if message is None:
            continue
        when = _usec(record.get("__REALTIME_TIMESTAMP"))
        for part in message.rstrip(b"\n").split(b"\n"):
            yield Line(part, when)


def _journal_export_lines(stream: IO[bytes]) -> Iterator[Line]:
    """journald's export format: ``KEY=value`` lines, a blank line after each entry; a value
    holding a newline is ``KEY``, then its length (64-bit little-endian), then the bytes."""
    fields: dict[bytes, bytes] = {}
    while True:
        raw = stream.readline(MAX_RECORD_BYTES)
        if raw in (b"", b"\n"):
            if b"MESSAGE" in fields:
                when = _usec(fields.get(b"__REALTIME_TIMESTAMP", b"").decode("ascii", "replace"))
                for part in fields[b"MESSAGE"].rstrip(b"\n").split(b"\n"):
                    yield Line(part, when)
            fields = {}
            if raw == b"":
                return
            continue
        key, eq, value = raw[:-1].partition(b"=")
        if eq:
            fields[key] = value
            continue
        size = stream.read(8)
        if len(size) < 8:
            return
        length = int.from_bytes(size, "little")
        if length > MAX_RECORD_BYTES:
            return  # not a journal export (or a corrupt one): nothing more to trust in it
        fields[key] = stream.read(length)
        stream.read(1)  # the newline after the data


@record
class Wrapper:
    """One way a tool wraps SGLang's lines: the one place a wrapper is known. ``detect``, the
    readers, the CLI's ``--input-format`` choices (a mirror, tested equal) and the table in
    ``docs/user-guide.md`` (:func:`wrapper_table`, tested) all come from :data:`WRAPPERS`."""

    format: InputFormat
    #: what it reads (the docs' table)
    reads: str
    #: the test the first lines must all pass for ``auto`` to pick it; ``None``: never detected
    sniff: Callable[[list[bytes]], bool] | None = None
    #: the SGLang lines inside, with their receive time; ``None``: the file is read as it is
    reader: Callable[[IO[bytes]], Iterator[Line]] | None = None


#: Every input format, in the order ``auto`` tries them (plain and auto last).
WRAPPERS: tuple[Wrapper, ...] = (
    Wrapper(InputFormat.journald_export, "`journalctl -o export` (binary-framed fields included)",
            _is_export, _journal_export_lines),
    Wrapper(InputFormat.docker_json,
            "Docker's json-file driver (`{\"log\": ..., \"stream\": ..., \"time\": ...}`; "
            "lines split at 16 KiB joined)",
            _all_json((b"log", b"time")), _docker_lines),
    Wrapper(InputFormat.journald_json, "`journalctl -o json`",
            _all_json((b"MESSAGE", b"__REALTIME_TIMESTAMP")), _journal_json_lines),
    Wrapper(InputFormat.journald_short_iso,
            "`journalctl -o short-iso` (`-- Boot ... --` markers skipped)",
            _is_short_iso, _short_iso_lines),
    Wrapper(InputFormat.kubectl,
            "`kubectl logs --timestamps`, `--prefix` (`[pod/NAME/CONTAINER] `), or both",
            _is_kubectl, lambda s: _prefixed_lines(s, _KUBECTL)),
    Wrapper(InputFormat.compose, "`docker compose logs` (`service-1  | `, with or without `-t`)",
            _is_compose, lambda s: _prefixed_lines(s, _COMPOSE)),
    Wrapper(InputFormat.plain, "the file as it is"),
    Wrapper(InputFormat.auto, "detected from the first lines (the default): the first above that fits, else plain"),
)  # fmt: skip
_READERS = {w.format: w.reader for w in WRAPPERS if w.reader is not None}


def wrapper_table() -> str:
    """The ``--input-format`` table of ``docs/user-guide.md``, from :data:`WRAPPERS`."""
    rows = ["| `--input-format` | what it reads |", "|---|---|"]
    rows += [f"| `{w.format.value}` | {w.reads} |" for w in WRAPPERS]
    return "\n".join(rows) + "\n"


#: ``docker logs -t`` / journald time before a line (also read by the bulk path's header).
OUTER_TIME = r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9}+)?+Z? "
#: Prefixes a tool may leave before SGLang's header on any line, whatever the input format
#: (taken leniently by ``header.py``, whose ``_OUTER`` is built from these, in this order).
OUTER_PREFIXES: tuple[tuple[str, str], ...] = (
    ("a pasted log indented by a space or two", r" {1,4}+(?=\[)"),
    ("docker logs -t, journald: the receive time", OUTER_TIME),
    ("a wrapper's Python logging: 'ts - name - LEVEL - '", r"- [\w.]{1,80}+ - [A-Z]{1,8}+ - "),
    ("docker compose 'svc-1  | '", r"[A-Za-z0-9][\w.-]{0,80}+ {0,40}+\| ?"),
    ("a Ray actor's '(Actor pid=...)'", r"\((?:[^()\n]{1,200}+)\) ++"),
)  # fmt: skip


def iter_lines(stream: IO[bytes], fmt: InputFormat) -> Iterator[Line]:
    """The SGLang lines of a ``fmt`` stream (not ``plain`` nor ``auto``)."""
    return iter(_READERS[fmt](stream))


class Unwrapped(io.RawIOBase):
    """A byte stream of the SGLang lines inside a wrapped log (one ``\\n`` after each), keeping
    each line's ``received_at`` in :attr:`received` (index: line number - 1)."""

    def __init__(
        self,
        stream: IO[bytes],
        fmt: InputFormat,
        name: str,
        container: str | None = None,
        outer: Unwrapped | None = None,
    ) -> None:
        self._stream = stream
        self._outer = outer  # a wrapping around this one (compose lines inside kubectl's)
        self._lines = iter_lines(stream, fmt)
        self._name = name
        self._container = container
        self._chosen = container is not None
        self._pending = b""
        self.received: list[datetime | None] = []

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        while not self._pending:
            line = next(self._lines, None)
            if line is None:
                return 0
            if not self._keep(line):
                continue
            when = line.received_at
            if when is None and self._outer is not None:  # prefix formats: line for line
                at = len(self.received)
                when = self._outer.received[at] if at < len(self._outer.received) else None
            self.received.append(when)
            self._pending = line.data + b"\n"
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def _keep(self, line: Line) -> bool:
        """Lines of the chosen container; without a choice, the first one seen, and a clear
        error (not a mixed-up log) when a second one appears."""
        if line.who is None or line.who == self._container:
            return True
        if self._container is None:
            self._container = line.who
            return True
        if self._chosen:
            return False
        raise InputError(
            f"{self._name}: lines of several containers interleave ({self._container}, "
            f"{line.who}, ...): read one with --container NAME"
        )

    def close(self) -> None:
        self._stream.close()
        super().close()


class AdaptedSource(os.PathLike[str]):
    """A log path with its input format forced and, for interleaved containers, the one to read."""

    def __init__(
        self, path: str, fmt: InputFormat = InputFormat.auto, container: str | None = None
    ) -> None:
        self.path = path
        self.input_format = fmt
        self.container = container

    def __fspath__(self) -> str:
        return self.path

    def __repr__(self) -> str:
        return f"AdaptedSource({self.path!r}, {self.input_format.value!r}, {self.container!r})"

    def __reduce__(self) -> tuple[Any, ...]:  # worker processes receive it whole
        return (AdaptedSource, (self.path, self.input_format, self.container))


def containers(stream: IO[bytes], fmt: InputFormat) -> dict[str, int]:
    """The containers (or compose services) in a wrapped log and their line counts."""
    counts: dict[str, int] = {}
    for line in iter_lines(stream, fmt):
        if line.who is not None:
            counts[line.who] = counts.get(line.who, 0) + 1
    return counts


def sniff_file(path: str) -> InputFormat:
    """The detected format of the file at ``path`` (plain when it cannot be read: the reader
    then raises its own one-line error)."""
    try:
        with open(path, "rb") as f:
            head = f.read(SNIFF_BYTES)
    except OSError:
        return InputFormat.plain
    return InputFormat.plain if compression_of(head) is not None else detect(head)


def format_of(source: object) -> InputFormat:
    """The input format of a path or :class:`AdaptedSource`: forced, else detected."""
    forced = getattr(source, "input_format", InputFormat.auto)
    if forced is not InputFormat.auto:
        return InputFormat(forced)
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        return sniff_file(os.fspath(source))
    return InputFormat.auto


class _Chain(io.RawIOBase):
    """``head`` (already read to detect the format), then the rest of ``stream``."""

    def __init__(self, head: bytes, stream: IO[bytes]) -> None:
        self._head = head
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(b), len(self._head))
            b[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._stream.read(len(b))
        b[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._stream.close()
        super().close()


def adapt(stream: IO[bytes], source: object, name: str) -> IO[bytes]:
    """``stream`` as the reader should see it: as it is for a plain log, else the SGLang lines
    inside (a buffered :class:`Unwrapped`, whose ``raw.received`` holds the outer times)."""
    fmt = InputFormat(getattr(source, "input_format", InputFormat.auto))
    container = getattr(source, "container", None)
    if fmt is InputFormat.auto:
        peek = getattr(stream, "peek", None)
        if isinstance(stream, io.BufferedReader) and callable(peek):
            fmt = detect(peek(SNIFF_BYTES)[:SNIFF_BYTES])
        else:
            try:
                head = stream.read(SNIFF_BYTES) or b""
            except (EOFError, OSError) as exc:  # a corrupt .gz, a device error
                raise InputError(f"{name}: read failed ({exc})") from None
            fmt = detect(head)
            stream = _Chain(head, stream)  # type: ignore[assignment]
    if fmt is InputFormat.plain:
        return stream
    detected = getattr(source, "input_format", InputFormat.auto) is InputFormat.auto
    outer = Unwrapped(stream, fmt, name, container)
    lines = io.BufferedReader(outer, 1 << 18)
    if not detected:
        return lines
    inner = detect(lines.peek(SNIFF_BYTES)[:SNIFF_BYTES])
    if inner not in _NESTED:
        return lines
    return io.BufferedReader(Unwrapped(lines, inner, name, container, outer), 1 << 18)


#: Wrappings found inside another (a compose service's lines read through kubectl or
#: journald): one line for one line, so the outer times still apply.
_NESTED = (InputFormat.kubectl, InputFormat.compose)
