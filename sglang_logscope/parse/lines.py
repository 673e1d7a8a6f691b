"""Stream a log into :class:`~sglang_logscope.events.Event` records, in constant memory.

Each physical line is split into header and message (:mod:`._header`), matched against the
message catalog (:mod:`.messages`), and turned into an event. Multi-line records — Python
tracebacks (``Scheduler hit an exception: Traceback ...``), argparse usage blocks — are
gathered into one event attached to the line that opened them, and the exception they end
with is classified through the same catalog (so ``RuntimeError: Not enough memory ...`` inside
a scheduler traceback becomes a ``not_enough_memory`` event).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from .._text import lazy_regex, own_pattern
from ..events import Event, EventKind, new_event
from ..limits import clean, unreadable
from ._helper import cut_pieces, helper_worth_it
from .banner import parse_banner
from .blanks import Blanks, Template, blank_run, split_blank_runs
from .bulk import LANE, SERIES, Fields, Rows, bulk_shape, fast_lane_ready
from .catalog import MessageSpec
from .extent import CHAIN, TRACEBACK, chained, exception_line, foreign_record
from .header import Header, split_header
from .levels import CONTINUES_TRACEBACK, FAILURE_PRIORITY, LEVEL_HINT
from .message_index import source_fields
from .messages import CATALOG
from .source import (
    RawPieces,
    Source,
    decode_line,
    finish_line,
    iter_raw_lines,
    iter_raw_pieces,
)

_match = CATALOG.match_lazy

#: Ray's prefix on every line an actor prints (``(WorkerDict pid=26103) ``).
_RAY_PREFIX = lazy_regex(r"\([A-Za-z_][\w.:-]{0,80}+ pid=\d{1,9}+(?:, ip=[\w.:-]{1,64}+)?\) ")
#: A traceback block is closed after this many lines, whatever follows (bounded memory).
MAX_BLOCK_LINES = 5000

#: ``SomeError: `` or ``pkg.mod.SomeError: `` at the start of a line outside any traceback.
_EXC_PREFIX = own_pattern(r"(?:[A-Za-z_]\w{0,60}+\.){0,8}+[A-Z]\w{0,80}+: ")


def iter_events(
    source: Source, *, first_line: int = 1, helper: bool | None = None
) -> Iterator[Event]:
    """Yield every event of ``source`` (a path, ``-``, a compressed file or an open file).

    Every input line belongs to exactly one event. Never raises on odd content; raises
    :class:`~sglang_logscope.errors.InputError` only when the source cannot be read.
    ``first_line`` numbers the first line read (an open file positioned mid-way); ``helper``
    as for :func:`iter_records` (a second process for a big file).
    """
    for record in iter_records(source, first_line=first_line, helper=helper):
        if record.__class__ is Event:
            yield record
        else:
            yield from record.events()  # type: ignore[union-attr]


def iter_records(
    source: Source,
    *,
    first_line: int = 1,
    bulk: bool = True,
    fields: Fields = True,
    helper: bool | None = None,
    start: int = 0,
    ready: bool = False,
    stop: int | None = None,
) -> Iterator[Event | Rows | Blanks]:
    """:func:`iter_events`, except that blocks of batch and access lines come as
    :class:`~sglang_logscope.parse.bulk.Rows` (their events as columns, parsed in bulk), and
    runs of whitespace-only lines outside any record as :class:`~.blanks.Blanks`, for readers
    that fold them without an object per line. ``fields=False`` leaves the rows' fields to be
    captured when their events are asked for (runs and summaries never ask), ``fields=SERIES``
    captures the lean columns and each row's rank and rest of line (the report's series);
    ``bulk=False`` parses every line on its own: the reference the bulk path is tested against. ``helper``
    splits every other piece in a second process (default: for a file of 64 MB or more, when
    a second core is free; see :mod:`._helper`). ``start``: read a plain file from that byte
    offset (a line start; ``first_line`` numbers it), bulk only; ``stop``: up to that offset (a
    line start), bulk only; ``ready``: whether the run read up to ``start`` said it was ready
    (how a later traceback is read)."""
    if helper is None:
        size = _size(source)
        # the C fast lane reads a lean, series or lane block in less time than a helper takes
        # to be sent it
        helper = (
            bulk
            and not ((fields is False or fields in (SERIES, LANE)) and fast_lane_ready())
            and helper_worth_it(None if size is None else size - start)
        )
    if (start or stop is not None) and not bulk:
        raise ValueError("iter_records: start and stop need bulk=True")
    pieces = iter_raw_pieces(source, start, stop)
    for record in _records(pieces, first_line, bulk, fields, helper, ready):
        received = pieces.received  # set once reading starts: the outer times of a wrapped log
        if received is None:
            yield record
        elif isinstance(record, Rows):
            yield replace(record, received=received, received_base=first_line)
        elif isinstance(record, Blanks):  # each line has its own outer time: line by line
            for event in record.events():
                yield _received(event, received, first_line)
        else:
            yield _received(record, received, first_line)


def _received(event: Event, received: list[datetime | None], first_line: int) -> Event:
    """``event`` with the outer time of its first line (a wrapped log: :mod:`.adapters`)."""
    at = event.line - first_line
    return replace(event, received_at=received[at] if 0 <= at < len(received) else None)


#: How many headless lines :func:`_records` remembers the event of, and up to what length:
#: a server started again prints the plain lines of its startup again (a model's weight
#: listing, warnings), and each distinct one is parsed once (at most about 4.5 MB held).
SEEN_LINES = 8192
SEEN_CHARS = 400


def _records(
    source: RawPieces, first_line: int, bulk: bool, fields: Fields, helper: bool, ready: bool
) -> Iterator[Event | Rows | Blanks]:
    # ``ready``: the current run said it is ready (a later frameless-of-SGLang traceback is foreign)
    block: _Block | None = None
    # A headless line's event without fields, by its text (bulk only: the line-by-line parse
    # stays the reference): kind, message, level, releases.
    seen: dict[str, tuple[EventKind, str, str | None, str | None]] = {}
    remember = bulk
    back: list[Blanks] = []  # a run of blank lines met inside a record: read line by line
    blanks = _BlankRuns()
    for item in _with_pushback(_lines(source, first_line, bulk, fields, helper), back):
        if item.__class__ is Blanks:
            run = None if block is not None else blanks.ready(item)
            if run is None:
                back.append(item)
                continue
            yield from blanks.add(run)
            continue
        if blanks.held is not None:
            yield blanks.held
            blanks.held = None
        if item.__class__ is not tuple:
            if block is not None:
                yield from _closed(block, ready)
                block = None
            yield item  # type: ignore[misc]
            continue
        lineno, text, truncated = item
        if block is None and not truncated:
            known = seen.get(text)
            if known is not None:
                kind, message, level, rel = known
                yield new_event(
                    lineno, kind, message, lineno, None, level, None, None, {}, text, False, rel
                )
                continue
        visible = _last_redraw(text) if "\r" in text else text
        header = split_header(visible)
        if block is not None:
            # a redrawn line whose first draw was headed ends the block too (its last draw may
            # be a bare "0": what a terminal shows is the header overwritten in part)
            headed = header.headed or (visible is not text and split_header(text).headed)
            content = None if headed else block.own_line(visible, header.message)
            if content is not None and block.accepts(content):
                block.add(lineno, text, content, truncated)
                if block.size >= MAX_BLOCK_LINES:
                    yield from _closed(block, ready)
                    block = None
                continue
            yield from _closed(block, ready)
            block = None
        opened = _event_or_block(lineno, text, header, truncated)
        if isinstance(opened, _Block):
            block = opened
            continue
        event = opened
        if event.kind is EventKind.SERVER_READY:
            ready = True
        elif event.kind is EventKind.SERVER_ARGS:
            ready = False
        elif remember and not header.headed and _plain(event) and len(text) <= SEEN_CHARS:
            seen[text] = (event.kind, event.message, event.level, event.releases)
            remember = len(seen) < SEEN_LINES
        yield event
    if blanks.held is not None:
        yield blanks.held
    if block is not None:
        yield from _closed(block, ready)


def _with_pushback(
    items: Iterator[tuple[int, str, bool] | Rows | Blanks], back: list[Blanks]
) -> Iterator[tuple[int, str, bool] | Rows | Blanks]:
    """``items``, and after each one the runs of blank lines the reader handed ``back``
    (met inside a multi-line record, which may take them): their first
    :data:`MAX_BLOCK_LINES` lines one by one (the record closes within them), the rest as a
    run again."""
    for item in items:
        yield item
        while back:
            run = back.pop()
            n = min(run.count, MAX_BLOCK_LINES)
            yield from _text_lines(b"\n".join(run.raws(0, n)), run.first_line - 1)
            if n < run.count:
                yield run.slice(n, run.count)


#: Distinct blank lines whose event is remembered (beyond, each run works its own out).
BLANK_TEMPLATES = 4096


class _BlankRuns:
    """The runs of blank lines outside any record: each distinct line's event made by the
    line parser (:class:`~.blanks.Template`), and runs that repeat one line joined into one
    (``held`` until the next item)."""

    __slots__ = ("held", "known")

    def __init__(self) -> None:
        self.known: dict[bytes, Template | None] = {}
        self.held: Blanks | None = None

    def ready(self, run: Blanks) -> Blanks | None:
        """``run`` with its templates; ``None`` where a line's event is more than its text
        (then the line parser reads it line by line)."""
        raws = [run.uniform] if run.data is None else set(run.raws())
        templates = {}
        for raw in raws:
            assert raw is not None
            template = self.known.get(raw, _UNSEEN)
            if template is _UNSEEN:
                template = _blank_template(raw)
                if len(self.known) < BLANK_TEMPLATES:
                    self.known[raw] = template
            if template is None:
                return None
            templates[raw] = template
        return replace(run, templates=templates)

    def add(self, run: Blanks) -> Iterator[Blanks]:
        """Hold ``run`` (joined to the one held where both repeat one line); yield the one
        held before when they cannot be joined."""
        held = self.held
        if held is not None:
            joined = held.joined(run)
            if joined is not None:
                self.held = joined
                return
            yield held
        self.held = run


_UNSEEN: Any = object()


def _blank_template(raw: bytes) -> Template | None:
    """The event of the whitespace-only line ``raw`` outside any record, by the line parser
    (``None``: it opens a record or is more than its text)."""
    text = _decode(finish_line(raw))
    visible = _last_redraw(text) if "\r" in text else text
    opened = _event_or_block(0, text, split_header(visible), False)
    if isinstance(opened, _Block) or not _plain(opened) or opened.kind in _STATE_KINDS:
        return None
    return Template(opened.kind, opened.message, opened.level, opened.releases, opened.text)


#: Kinds that change how later lines are read (never a blank line's: checked all the same).
_STATE_KINDS = (EventKind.SERVER_READY, EventKind.SERVER_ARGS)


def _event_or_block(lineno: int, text: str, header: Header, truncated: bool) -> Event | _Block:
    """A line outside any block: its event, or the multi-line record it opens (a traceback,
    an argparse usage block, a warning with its indented lines)."""
    hit = _match(header.message)
    if hit is None:
        hit = _match_after_exception_type(header.message)
    if hit is not None and hit[0].block is not None:
        return _Block(lineno, text, header, hit[0], dict(hit[1]), truncated)
    event = _make_event(lineno, text, header, hit, truncated)
    if hit is not None and _cut_allocator_text(event):
        # issue 28: the allocator's figures follow on lines of their own
        return _Block(lineno, text, header, _allocator_spec(hit[0]), dict(event.fields), truncated)
    warning = _warning_spec(event, hit[0] if hit else None)
    if warning is not None:
        # Python prints a warning's source line (and the rest of its text) indented below
        return _Block(lineno, text, header, warning, dict(event.fields), truncated)
    return event


#: An OOM message cut after its first sentences, the allocator's figures still to come
#: (``CUDA out of memory.`` / ``... Tried to allocate 672.00 MiB.`` at the end of the line).
_CUT_ALLOCATOR = lazy_regex(
    r"out of memory\.(?: Tried to allocate [\d.]{1,20}+ [KMGTP]?i?B\.)?\s{0,8}+$"
)
#: A line of PyTorch's allocator text (c10/cuda/CUDACachingAllocator.cpp, the XPU and NPU
#: allocators) that the OOM message printed on a line of its own.
ALLOCATOR_LINE = lazy_regex(
    r"\s{0,8}+(?:Tried to allocate |GPU \d{1,4}+ has a total capac|Process \d{1,10}+ has "
    r"|Including non-PyTorch memory, |Of the allocated memory |with [\d.]{1,20}+ \w{1,3}+ "
    r"allocated in private pools|and [\d.]{1,20}+ \w{1,3}+ is reserved by PyTorch"
    r"|If reserved but unallocated memory is large|See documentation for Memory Management)"
)


def _cut_allocator_text(event: Event) -> bool:
    """An OOM event whose figures are not on its line (PyTorch's text split over lines)."""
    return (
        event.kind is EventKind.CUDA_OOM
        and "capacity" not in event.fields
        and _CUT_ALLOCATOR.search(event.message[-200:]) is not None
    )


def _allocator_spec(spec: MessageSpec) -> MessageSpec:
    """The OOM spec, gathering the allocator lines that follow it."""
    return replace(spec, block="allocator")


def allocator_fields(lines: list[str]) -> dict[str, Any]:
    """The OOM figures of PyTorch's allocator text split over ``lines`` (the first one holds
    ``out of memory``), read by the catalog from the lines joined; ``{}`` when none."""
    joined = " ".join(line.strip() for line in lines if line.strip())
    hit = CATALOG.match(joined[:20000])
    if hit is None or hit[0].kind is not EventKind.CUDA_OOM:
        return {}
    return dict(hit[1])


def _allocator_tail(message: str, following: list[str]) -> str:
    """An exception message cut after ``out of memory.`` with the allocator lines that
    follow it in the traceback joined on (issue 28); any other message as it is."""
    if _CUT_ALLOCATOR.search(message[-200:]) is None:
        return message
    tail: list[str] = []
    for line in following:
        if line.strip() and ALLOCATOR_LINE.match(line) is None:
            break
        tail.append(line.strip())
    return " ".join([message, *(t for t in tail if t)])


def _plain(event: Event) -> bool:
    """An event that a line's text alone makes (no fields, time, rank, source or cut)."""
    return not (event.fields or event.truncated) and (
        event.timestamp is None and event.rank is None and event.source is None
    )


def _closed(block: _Block, ready: bool) -> Iterator[Event]:
    """The block's event, then the blank lines it ended with as events of their own: a
    traceback's extent stops at its last line of text."""
    blanks = block.drop_trailing_blanks()
    yield block.close(ready)
    for offset, text in enumerate(blanks, block.last + 1):
        yield _make_event(offset, text, split_header(text), None, False)


#: An SGLang ``warnings.warn`` line (``.../sglang/.../x.py:N: UserWarning: text``) with the
#: indented lines Python prints under it: its source line, the rest of a multi-line text.
WARNING_SPEC = MessageSpec(
    name="python_warning",
    kind=EventKind.SGLANG_MESSAGE,
    pattern=r"(?P<path>[^\s:]{1,800}+):\d{1,7}+: (?P<category>[A-Z]\w{0,60}+): ",
    releases="",
    samples=(),
    level="WARNING",
    block="indented",
)


def _warning_spec(event: Event, typed: MessageSpec | None) -> MessageSpec | None:
    """The block spec for a warnings line printed from SGLang's source (``None``: not one):
    the typed entry's kind where the catalog knows the text, else an ``sglang_message``."""
    if event.kind is EventKind.SGLANG_MESSAGE:
        if event.fields.get("call") != "warnings.warn":
            return None
        typed = None
    elif typed is None or typed.block is not None or "sglang/" not in event.message[:800]:
        return None
    m = WARNING_SPEC.compiled.match(event.message)
    if m is None or not m.group("category").endswith("Warning"):
        return None
    path = m.group("path").replace("\\", "/")
    if not path.endswith(".py") or "sglang/" not in path:
        return None
    return WARNING_SPEC if typed is None else replace(typed, block="indented")


def _lines(
    source: RawPieces, first_line: int, bulk: bool, fields: Fields, helper: bool
) -> Iterator[tuple[int, str, bool] | Rows | Blanks]:
    """The numbered, decoded and cleaned lines of ``source``; with ``bulk``, blocks of the
    catalog's bulk shapes as :class:`Rows` and runs of whitespace-only lines as
    :class:`~.blanks.Blanks` (templates to come) instead of their lines."""
    lineno = first_line - 1
    if not bulk:
        for raw, truncated in iter_raw_lines(source):
            lineno += 1
            yield lineno, _decode(raw), truncated
        return
    shape = bulk_shape()
    for (data, truncated, piece), cut in cut_pieces(source, shape, fields, helper):
        if not piece:
            lineno += 1
            yield lineno, _decode(data), truncated
            continue
        for part in shape.assemble(data, cut, lineno + 1):
            if part.__class__ is not bytes:
                lineno += len(part)
                yield part  # type: ignore[misc]
                continue
            for text, blank in split_blank_runs(part):
                if blank:
                    run = blank_run(lineno + 1, text)
                    lineno += run.count
                    yield run
                    continue
                yield from _text_lines(text, lineno)
                lineno += text.count(b"\n") + 1


def _text_lines(part: bytes, lineno: int) -> Iterator[tuple[int, str, bool]]:
    """The lines of ``part`` (lines joined by ``\\n``) after line ``lineno``, decoded."""
    if b"\r" in part or b"\x00" in part or b"\x1b" in part:
        for raw in part.split(b"\n"):
            lineno += 1
            yield lineno, _decode(finish_line(raw)), False
        return
    # nothing to clean: decoded at once (a newline ends any bad UTF-8 before it)
    for text in part.decode("utf-8", "replace").split("\n"):
        lineno += 1
        yield lineno, text, False


def _size(source: Source | RawPieces) -> int | None:
    """The size of a file named by ``source`` (``None`` for streams and stdin)."""
    if isinstance(source, RawPieces):
        source = source.source
    if isinstance(source, (str, os.PathLike)) and os.fspath(source) != "-":
        try:
            return os.stat(source).st_size
        except OSError:
            return None
    return None


def _decode(raw: bytes) -> str:
    text = raw.decode("utf-8", "replace")
    if "\x00" in text or "\x1b" in text:
        return decode_line(raw)
    return text


def _match_after_exception_type(message: str) -> tuple[MessageSpec, dict[str, Any]] | None:
    """``ValueError: Loaded weights leave ...`` printed outside a traceback: classify the text
    after the exception type, but only as a failure (never as an ordinary message)."""
    m = _EXC_PREFIX.match(message)
    if m is None:
        return None
    hit = CATALOG.match(message[m.end() :])
    if hit is None or hit[0].kind not in FAILURE_PRIORITY:
        return None
    fields = dict(hit[1])
    fields["exc_type"] = message[: m.end() - 2]
    fields["exc_message"] = message[m.end() :].strip()
    return hit[0], fields


def _last_redraw(text: str) -> str:
    """tqdm redraws a bar with ``\\r``: the last non-empty segment is what a terminal shows,
    unless an earlier segment is a failure glued to the bar (an NCCL watchdog abort or a
    ``terminate called ...`` written between two redraws, issue 28): the failure is kept."""
    if any(n in text for n in _GLUED_NEEDLES):
        parts = [p for p in text.split("\r") if p.strip()]
        for part in parts[:-1]:
            hit = CATALOG.match(split_header(part).message)
            if hit is not None and hit[0].kind in _GLUED_KINDS:
                return part
    for part in reversed(text.split("\r")):
        if part.strip():
            return part
    return ""


#: Text a failure glued by ``\\r`` to a progress bar contains (a cheap test before any match).
_GLUED_NEEDLES = ("terminate called", "Watchdog", "NCCL", "Fatal Python error", "Killed", "Abort")
_GLUED_KINDS = frozenset(FAILURE_PRIORITY) | {EventKind.ABORTED}  # issue 28


def _make_event(
    lineno: int,
    text: str,
    header: Header,
    hit: tuple[MessageSpec, Mapping[str, Any]] | None,
    truncated: bool,
) -> Event:
    fields: Mapping[str, Any]
    level = header.level
    if hit is None:
        releases = None
        found = source_fields(header.message, cut=header.headed)
        if found is None:
            kind = EventKind.UNKNOWN if header.headed else EventKind.TEXT
            fields = {}
        else:
            kind = EventKind.SGLANG_MESSAGE
            fields, source_level = found
            level = level or source_level
    else:
        spec, fields = hit
        kind = spec.kind
        releases = spec.releases
        if kind is EventKind.SERVER_ARGS:
            raw = dict(fields).pop("_repr", "")
            fields = _banner_fields(raw or _after_equals(header.message))
    return new_event(
        lineno,
        kind,
        header.message,
        lineno,
        header.timestamp,
        level or (LEVEL_HINT.get(kind) if hit else None),
        header.rank,
        header.source,
        fields,
        text,
        truncated,
        releases,
    )


def _banner_fields(text: str) -> dict[str, Any]:
    """The banner's usable values; those out of range or not literals (issue 20) under
    ``rejected``."""
    skipped: list[tuple[str, str]] = []
    kept, rejected = clean(parse_banner(text, skipped), "server_args banner")
    if skipped:
        rejected = (*rejected, *(unreadable(k, v, "server_args banner") for k, v in skipped))
    return {"args": kept, "rejected": rejected} if rejected else {"args": kept}


def _after_equals(message: str) -> str:
    return message.partition("=")[2]


class _Block:
    """An open multi-line record (traceback or indented block) being gathered."""

    __slots__ = (
        "content",
        "ended",
        "fields",
        "first",
        "framed",
        "header",
        "last",
        "lines",
        "mode",
        "outer",
        "spec",
        "truncated",
    )

    def __init__(
        self,
        lineno: int,
        text: str,
        header: Header,
        spec: MessageSpec,
        fields: dict[str, Any],
        truncated: bool,
    ) -> None:
        self.first = lineno
        self.last = lineno
        self.lines = [text]
        self.content = [header.message]
        self.header = header
        self.spec = spec
        self.fields = fields
        self.truncated = truncated
        self.mode = spec.block
        # a 'File "..."' frame line was seen (a fragment's first line is one)
        self.framed = header.message.lstrip().startswith('File "')
        ray = _RAY_PREFIX.match(text)
        self.outer = ray.group() if ray is not None else ""  # each line of it carries this
        self.ended = False  # ... and then the exception line that ends a traceback

    def own_line(self, visible: str, message: str) -> str | None:
        """The text of a headerless line for this block's grammar: after the Ray actor prefix
        its first line had (``(WorkerDict pid=26103) ``; ``None``: another process's line,
        which ends the block — processes interleave in one file)."""
        if not self.outer:
            return message
        if not visible.startswith(self.outer):
            return None
        return visible[len(self.outer) :]

    @property
    def size(self) -> int:
        return len(self.lines)

    def accepts(self, line: str) -> bool:
        """Does this headerless line continue the block? (:mod:`.extent` says where a
        traceback ends.)"""
        if self.mode == "indented":
            return line[:1] in (" ", "\t")
        if self.mode == "allocator":
            return not line.strip() or ALLOCATOR_LINE.match(line) is not None
        if not line.strip() or line[:1] in (" ", "\t") or line.startswith(CHAIN):
            return True
        if line.startswith(TRACEBACK):
            return chained(self.content)
        hit = CATALOG.match(line)
        # A known record of its own (tqdm bar, usage block, ...) ends the traceback.
        if hit is not None:
            return hit[0].kind in CONTINUES_TRACEBACK
        if foreign_record(line):
            return False
        if self.ended:
            # after its exception line, a message SGLang prints on its own (not an exception
            # text) is no part of the traceback
            own = source_fields(line)
            return own is None or str(own[0].get("call", "")).startswith("raise ")
        # frames without their exception line yet: only the exception line may follow (a
        # traceback cut short ends at the first other unindented line)
        return not self.framed or exception_line(line) is not None

    def add(self, lineno: int, text: str, content: str, truncated: bool) -> None:
        if self.mode == "traceback":
            if content.lstrip().startswith('File "'):
                self.framed = True
            elif content.startswith(TRACEBACK):
                self.framed = self.ended = False  # the next traceback of a chain
            elif self.framed and exception_line(content) is not None:
                self.ended = True
        self.lines.append(text)
        self.content.append(content)
        self.last = lineno
        self.truncated = self.truncated or truncated

    def drop_trailing_blanks(self) -> list[str]:
        """Take the blank lines at the block's end off it (never its first line)."""
        keep = len(self.content)
        while keep > 1 and not self.content[keep - 1].strip():
            keep -= 1
        dropped = self.lines[keep:]
        del self.lines[keep:], self.content[keep:]
        self.last -= len(dropped)
        return dropped

    def close(self, after_ready: bool = False) -> Event:
        kind = self.spec.kind
        fields = dict(self.fields)
        if self.mode == "traceback":
            kind, fields = _classify_traceback(kind, fields, self.content)
            if kind is EventKind.EXCEPTION and (
                _harness(self.content) or (after_ready and _foreign(self.content))
            ):
                kind = EventKind.FOREIGN_TRACEBACK
        elif self.mode == "allocator":
            fields.update(allocator_fields(self.content))
        elif kind is EventKind.ARGPARSE_USAGE:
            fields["usage"] = " ".join(part.strip() for part in self.content)[:20000]
        return Event(
            line=self.first,
            end_line=self.last,
            kind=kind,
            message=self.header.message,
            timestamp=self.header.timestamp,
            level=self.header.level or self.spec.level,
            rank=self.header.rank,
            source=self.header.source,
            fields=fields,
            text="\n".join(self.lines),
            truncated=self.truncated,
            releases=self.spec.releases,
        )


def _foreign(lines: list[str]) -> bool:
    """A traceback none of whose frames is in SGLang (a test harness or multiprocessing's
    resource tracker writing to the same file): not the server's own failure."""
    frames = [line for line in lines if line.lstrip().startswith('File "')]
    return bool(frames) and not any("sglang" in line for line in frames)


#: A test runner's frame: unittest, pytest, or SGLang's own test package and test tree
#: (``.../sglang/test/...``: ``popen_launch_server``, the nightly suites).
_RUNNER_FRAME = lazy_regex(r'/unittest/|/_pytest/|[/"]sglang/test/')
#: A frame of the server's own code (helpers under ``sglang/srt/utils/`` excepted: the test
#: package calls them too, ``retry`` among them).
_SERVER_FRAME = lazy_regex(r"sglang/srt/(?!utils/)")


def _harness(lines: list[str]) -> bool:
    """A test harness's traceback (a failed assertion, its launch timeout): it runs through a
    test runner and through none of the server's code. It never is the server's failure, not
    even before ready (the server runs in a process of its own)."""
    frames = [line for line in lines if line.lstrip().startswith('File "')]
    return any(_RUNNER_FRAME.search(f) for f in frames) and not any(
        _SERVER_FRAME.search(f) for f in frames
    )


def _classify_traceback(
    kind: EventKind, fields: dict[str, Any], lines: list[str]
) -> tuple[EventKind, dict[str, Any]]:
    """Find the exceptions a traceback ends with and let the most specific one name the event."""
    exceptions: list[tuple[str, str]] = []
    first = fields.get("first")
    candidates = lines[1:]
    if first and not str(first).startswith("Traceback"):
        candidates = [str(first), *candidates]  # 'X hit an exception: <message>' on one line
    texts: list[str] = []  # each exception's text with the allocator lines that follow it
    for i, line in enumerate(candidates):
        found = exception_line(line)
        if found is not None:
            exceptions.append(found)
            texts.append(f"{found[0]}: {_allocator_tail(found[1], candidates[i + 1 : i + 40])}")
    fields.pop("first", None)
    if exceptions:
        fields["exc_type"], fields["exc_message"] = exceptions[-1]
        if len(exceptions) > 1:
            fields["exceptions"] = [f"{t}: {m}" for t, m in exceptions[-10:]]
    best: tuple[int, EventKind, dict[str, Any]] | None = None
    for (exc_type, message), full in zip(exceptions, texts, strict=True):
        for text in (full, f"{exc_type}: {message}", message):
            hit = CATALOG.match(text)
            if hit is None or hit[0].kind not in FAILURE_PRIORITY:
                continue
            rank = FAILURE_PRIORITY.index(hit[0].kind)
            if best is None or rank < best[0]:
                best = (rank, hit[0].kind, hit[1])
            break
    if best is not None:
        fields.update(best[2])
        return best[1], fields
    return kind, fields
