"""Reading sources: paths, gzip, streams, stdin-like objects, odd bytes, huge lines."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest
from linearity import superlinear

from sglang_logscope.errors import InputError
from sglang_logscope.events import EventKind
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.source import (
    MAX_LINE_BYTES,
    Source,
    decode_line,
    iter_raw_lines,
    strip_ansi,
)

LINES = [
    "[2025-12-29 18:33:03 TP0] Load weight begin. avail mem=15.33 GB",
    "[2025-12-29 18:33:03 TP0] Memory pool end. avail mem=2.43 GB",
]
TEXT = "\n".join(LINES) + "\n"


def _kinds(source: Source) -> list[EventKind]:
    return [e.kind for e in iter_events(source)]


def test_path_gzip_text_and_binary_streams_agree(tmp_path: Path) -> None:
    plain = tmp_path / "server.log"
    plain.write_text(TEXT, encoding="utf-8")
    packed = tmp_path / "server.log.gz"
    packed.write_bytes(gzip.compress(TEXT.encode()))
    disguised = tmp_path / "server.txt"  # gzip is recognised by its magic, not its name
    disguised.write_bytes(gzip.compress(TEXT.encode()))
    expected = [EventKind.LOAD_WEIGHT_BEGIN, EventKind.MEMORY_POOL_END]
    assert _kinds(plain) == expected
    assert _kinds(str(packed)) == expected
    assert _kinds(disguised) == expected
    assert _kinds(io.StringIO(TEXT)) == expected
    assert _kinds(io.BytesIO(TEXT.encode())) == expected
    with open(plain, encoding="utf-8") as handle:
        assert _kinds(handle) == expected


def test_crlf_and_missing_final_newline() -> None:
    events = list(iter_events(io.BytesIO("\r\n".join(LINES).encode())))
    assert [e.kind for e in events] == [EventKind.LOAD_WEIGHT_BEGIN, EventKind.MEMORY_POOL_END]
    assert all(not e.text.endswith("\r") for e in events)
    assert events[1].fields["avail_gib"] == 2.43


def test_invalid_utf8_is_replaced_and_nul_dropped() -> None:
    raw = b"[2025-12-29 18:33:03 TP0] caf\xe9 \xff\xfe\x00 ok\n"
    event = next(iter_events(io.BytesIO(raw)))
    assert event.kind is EventKind.UNKNOWN
    assert "\ufffd" in event.message and "\x00" not in event.message
    assert decode_line(b"a\x00b") == "ab"


def test_ansi_colours_are_stripped() -> None:
    raw = b"\x1b[32m[2025-10-06 12:00:21]\x1b[0m \x1b[1mINFO\x1b[0m:     \x1b]8;;http://x\x07link\x1b]8;;\x07 Started server process [7]\n"
    event = next(iter_events(io.BytesIO(raw)))
    assert "\x1b" not in event.text
    assert strip_ansi("\x1b[1;33mwarn\x1b[0m") == "warn"
    assert strip_ansi("no escapes") == "no escapes"


def test_line_over_limit_is_truncated_flagged_and_followed() -> None:
    long_line = b"[2025-10-06 12:00:21] " + b"x" * (MAX_LINE_BYTES + 10)
    raw = long_line + b"\n" + LINES[1].encode() + b"\n"
    pieces = list(iter_raw_lines(io.BytesIO(raw)))
    assert [flag for _, flag in pieces] == [True, False]
    assert len(pieces[0][0]) == MAX_LINE_BYTES
    events = list(iter_events(io.BytesIO(raw)))
    assert events[0].truncated and not events[1].truncated
    assert events[1].kind is EventKind.MEMORY_POOL_END and events[1].line == 2


def test_line_over_limit_at_end_of_file() -> None:
    raw = b"y" * (3 * MAX_LINE_BYTES)
    pieces = list(iter_raw_lines(io.BytesIO(raw)))
    assert len(pieces) == 1 and pieces[0][1] is True


def test_missing_file_and_directory_are_input_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(iter_events(tmp_path / "nope.log"))
    with pytest.raises(InputError, match="directory"):
        list(iter_events(tmp_path))


def test_corrupt_gzip_is_an_input_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.log.gz"
    bad.write_bytes(gzip.compress(TEXT.encode())[:-12] + b"\x00" * 4)
    with pytest.raises(InputError, match="read failed"):
        list(iter_events(bad))


def test_many_lines_stream_in_constant_time_per_line() -> None:
    line = b"[2026-05-25 17:43:55 TP0] Decode batch, #running-req: 1, #full token: 89, full token usage: 0.00, mamba num: 2, mamba usage: 0.05, cuda graph: False, gen throughput (token/s): 0.97, #queue-req: 0\n"
    raw = line * 20000
    count = sum(1 for _ in iter_events(io.BytesIO(raw)))
    assert count == 20000
    # linear by this thread's CPU time, not under a wall-clock limit (issue 29: no test's
    # result depends on how busy the machine is)
    assert (
        superlinear(lambda n: sum(1 for _ in iter_events(io.BytesIO(line * n))), int, 2500) is None
    )
