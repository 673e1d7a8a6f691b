"""Bulk parsing (issue 6, target 2): blocks of batch and access lines parsed at once by their
shape give exactly what the line-by-line parser gives — events, runs and summaries."""

from __future__ import annotations

import io
from pathlib import Path
from unittest import mock

import pytest
from examples import examples
from fixture_logs import FIXTURE_LOGS
from hypothesis import given, settings
from hypothesis import strategies as st
from linearity import superlinear

from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import SUMMARY_KINDS
from sglang_logscope.log.runs import stream_runs
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.bulk import SERIES, BulkShape, Rows, bulk_shape
from sglang_logscope.parse.catalog import Catalog, MessageSpec
from sglang_logscope.parse.lines import iter_events, iter_records
from sglang_logscope.parse.messages import CATALOG

ROOT = Path(__file__).resolve().parent.parent
BULK_SPECS = [s for s in CATALOG.specs if s.bulk]


def _same_either_way(data: bytes) -> None:
    """Events, and runs thin or with the summary kinds, equal with and without bulk parsing."""
    line_events = list(iter_records(io.BytesIO(data), bulk=False))
    assert list(iter_events(io.BytesIO(data))) == line_events
    for keep in ((), SUMMARY_KINDS, (EventKind.DECODE_BATCH,)):
        expected = list(stream_runs(line_events, keep))
        for fields in (True, False, SERIES):
            records = iter_records(io.BytesIO(data), fields=fields)
            assert list(stream_runs(records, keep)) == expected


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_logs_parse_the_same_in_bulk(path: Path) -> None:
    _same_either_way(path.read_bytes())


@settings(max_examples=examples(6), deadline=None)
@given(seed=st.integers(0, 10_000), runs=st.integers(2, 4))
def test_generated_logs_parse_the_same_in_bulk(seed: int, runs: int) -> None:
    """The benchmark's generator: every era's batch lines on TP and DP ranks, behind
    ``docker logs -t`` too, access lines, startups, tracebacks, sigquits; and the summary JSON
    of the bulk fold equals the one of events parsed line by line."""
    import tempfile

    from benchmarks.generate import generate
    from sglang_logscope.log.reader import run_summary, summarize_source

    with tempfile.TemporaryDirectory() as tmp:
        big = generate(Path(tmp), size_mb=0.2 * runs, seed=seed, runs=runs)["big"]
        data = big.read_bytes()
        with mock.patch.object(_source, "PIECE_BYTES", 1 << 14):
            _same_either_way(data)
            rows = [r for r in iter_records(io.BytesIO(data)) if isinstance(r, Rows)]
            assert sum(len(r) for r in rows) > 500  # the serving lines of the first run
            line_runs = stream_runs(iter_records(big, bulk=False), SUMMARY_KINDS)
            expected = [run_summary(r) for r in line_runs]
            assert summarize_source(big)["runs"] == expected


def test_bulk_takes_the_serving_lines_of_a_real_log() -> None:
    """A check that can fail: the bulk path must actually engage on real batch and access
    lines (corpus 069: hybrid model on TP2, 0.5-era batch lines; 037: 0.4 era behind
    ``docker logs -t``, uvicorn access lines)."""
    for case in ("069", "037"):
        path = next((ROOT / "fixtures" / "real").glob(f"{case}*/*.log"))
        # These logs fit in one piece, startup included, and a startup message an earlier
        # catalog spec may take (' KV Cache ') sends a whole piece line by line: cut smaller.
        with mock.patch.object(_source, "PIECE_BYTES", 4096):
            records = list(iter_records(path))
        rows = [r for r in records if isinstance(r, Rows)]
        kinds = {e.kind for r in rows for e in r.events()}
        line_kinds = {
            e.kind
            for e in iter_events(path)
            if e.kind in (EventKind.DECODE_BATCH, EventKind.PREFILL_BATCH, EventKind.HTTP_ACCESS)
        }
        assert rows, case
        assert kinds == line_kinds, case


@pytest.mark.parametrize("spec", BULK_SPECS, ids=lambda s: s.name)
def test_every_bulk_sample_is_taken_in_bulk(spec: MessageSpec) -> None:
    for sample in spec.samples:
        line = sample.line.lstrip(" ")  # a pasted, indented line is the line parser's
        records = list(iter_records(io.BytesIO(line.encode() + b"\n")))
        assert len(records) == 1 and isinstance(records[0], Rows), sample.line
        (event,) = records[0].events()
        assert event.kind is spec.kind
        assert {k: event.fields[k] for k in sample.fields} == dict(sample.fields)


# ------------------------------------------------------------------ any mix, any piece size

_HEADS = [
    "[{d} {t}]",
    "[{d} {t} TP0] ",
    "[{d} {t} DP1 TP4 EP4] ",
    "[{d} {t}.123 TP1] ",
    "[{d} {t}.1234567 TP1] ",
    "2025-02-04T21:29:21.123456789Z [{d} {t} TP0] ",
    "2025-02-04 21:29:21 [{d} {t}] ",
    "[{d} {t}] INFO scheduler.py:1234: ",
    "[{d} {t}] INFO:     ",
    "[{d} {t}] WARNING:\t",
    "[{d} {t}] INFO:" + " " * 12,
    "[{d} {t}] INFO:\x0b\x0c ",
    "[{d} {t}] INFO:\x1c ",
    "[{d} {t}] TRACE:  ",
    "[{d} {t}] CRITICAL: ",
    "[{t} TP0] ",
    "[1900-01-01 {t}] ",
    "[2026-02-30 {t}] ",
    "[2024-02-29 {t}] ",
    "[2000-02-29 {t}] ",
    "[2100-02-29 {t}] ",
    "[0000-01-01 {t}] ",
    "[2026-04-31 {t}] ",
    "[2026-12-31 23:59:59.999999] ",
    "[2026-13-01 {t}] ",
    "[{d} 24:00:00] ",
    "[{d} 09:00:60] ",
    "[{d} {t}]",
    " [{d} {t}] ",
    "\x1b[32m[{d} {t}]\x1b[0m ",
    "",
]
_BODIES = [
    "Decode batch. #running-req: 1, #token: 47, token usage: 0.00, gen throughput (token/s): 94.12, #queue-req: 0, ",
    "Decode batch, #running-req: 32, #token: 9120, token usage: 0.04, accept len: 2.71, cuda graph: True",
    "Decode batch [77], #running-req: 1",
    "Decode batch [\u0661\u0662], #running-req: 1",
    "Decode batch, #running-req: 1\r",
    "Decode batch, #running-req: \x001",
    "Decode batch, café: 1",
    "Decode batch, bell\x07: 1",
    '127.0.0.1:1 - "GET /a\x1cb HTTP/1.1" 200 OK',
    '127.0.0.1:1 - "GET /a\x0bb HTTP/1.1" 200 OK',
    "Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, cache hit rate: 0.00%, #running-req: 0",
    "Prefill batch(mixed #running-req: 3). #new-seq: 1, #new-token: 64",
    "Prefill batch, #new-seq: 1, #new-token: 80, full token usage: 0.00, mamba usage: 0.05",
    '127.0.0.1:35342 - "GET /get_model_info HTTP/1.1" 200 OK',
    '2001:1aef:159::0 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    'Load-1:80 - "POST /generate HTTP/1.1" 200 OK',
    'Deco:1 - "POST /generate HTTP/1.1" 500 Internal Server Error',
    '10.0.0.1:5 - "GET / HTTP/1.1" 200  KV Cache is allocated. #tokens: 10, K size: 1 GB',
    '10.0.0.1:5 - "GET /é HTTP/1.1" 200 OK',
    "Load weight begin. avail mem=70.00 GB",
    "The server is fired up and ready to roll!",
    "server_args=ServerArgs(model_path='m', tp_size=2)",
    "Scheduler hit an exception: Traceback (most recent call last):",
    '  File "x.py", line 1, in f',
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
    "Received sigquit from a child process. It usually means the child failed.",
    "KV Cache is allocated. #tokens: 10, K size: 1 GB, V size: 1 GB",
    "Setting page_size to 64 (adjusted).",
    "plain text",
    "",
]


def _line(head: int, body: int, minute: int, second: int) -> str:
    stamp = _HEADS[head].format(d="2026-05-09", t=f"09:{minute:02d}:{second:02d}")
    return stamp + _BODIES[body]


_LINES = st.lists(
    st.tuples(
        st.integers(0, len(_HEADS) - 1),
        st.integers(0, len(_BODIES) - 1),
        st.integers(0, 20),
        st.integers(0, 59),
    ),
    max_size=60,
)


@settings(max_examples=examples(300), deadline=None)
@given(_LINES, st.sampled_from([1, 7, 64, 300, 1 << 18]), st.booleans())
def test_any_mix_parses_the_same_in_bulk(
    lines: list[tuple[int, int, int, int]], piece: int, crlf: bool
) -> None:
    """Bulk and non-bulk lines, odd headers, escapes, CR, NUL, non-ASCII, clock jumps
    forward and back, tracebacks, banners; pieces cut at any size."""
    end = "\r\n" if crlf else "\n"
    text = end.join(_line(*spec) for spec in lines)
    with mock.patch.object(_source, "PIECE_BYTES", piece):
        _same_either_way(text.encode("utf-8"))


@settings(max_examples=examples(200), deadline=None)
@given(st.binary(max_size=400), st.sampled_from([3, 50, 1 << 18]))
def test_arbitrary_bytes_parse_the_same_in_bulk(data: bytes, piece: int) -> None:
    with mock.patch.object(_source, "PIECE_BYTES", piece):
        _same_either_way(data)


def test_rows_fold_a_clock_jump_into_a_new_run() -> None:
    """A batch line more than two minutes behind the one before opens a run (logs glued
    together), inside one block of rows."""
    body = "Decode batch, #running-req: 1, #token: 9, token usage: 0.01"
    text = "\n".join(
        [f"[2026-05-09 09:10:0{i} TP0] {body}" for i in range(3)]
        + [f"[2026-05-09 09:05:0{i} TP0] {body}" for i in range(3)]
        + [""]
    )
    (rows,) = list(iter_records(io.BytesIO(text.encode())))
    assert isinstance(rows, Rows) and len(rows) == 6
    runs = list(stream_runs([rows]))
    assert [(r.first_line, r.last_line) for r in runs] == [(1, 3), (4, 6)]
    _same_either_way(text.encode())


# ------------------------------------------------------------------ the catalog's rules


def _spec(name: str, pattern: str, **kw: object) -> MessageSpec:
    return MessageSpec(
        name=name,
        kind=EventKind.DECODE_BATCH,
        pattern=pattern,
        releases="all",
        samples=(),
        **kw,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "pattern",
    [
        r"Decode batch\s(?P<_pairs>.*)",
        r"Decode [^,]+",
        r"Decode batch$",
        r"Decode (?=x)",
        r"Decode (batch|run)",
        r"Décode",
    ],
)
def test_a_bulk_pattern_that_could_span_lines_is_refused(pattern: str) -> None:
    with pytest.raises(ValueError, match="bulk spec 'x'"):
        BulkShape(Catalog([_spec("x", pattern, bulk=True)]))


def test_a_floating_bulk_spec_after_one_without_a_literal_is_refused() -> None:
    catalog = Catalog([_spec("loose", r"\w+", bulk=True), _spec("x", r"\d+ - ", bulk=True)])
    with pytest.raises(ValueError, match="'loose' before it has no literal"):
        BulkShape(catalog)


def test_an_earlier_spec_in_the_bucket_keeps_its_lines() -> None:
    """``Decode batch OOM`` before ``Decode batch`` in dispatch order: its lines stay the
    line parser's, so they keep the earlier spec."""
    catalog = Catalog(
        [
            _spec("oom", r"Decode batch OOM (?P<n>\d+)"),
            _spec("x", r"Decode batch(?P<_pairs>.*)", bulk=True),
        ]
    )
    shape = BulkShape(catalog)
    parts = list(
        shape.split(
            b"[2026-05-09 09:00:00] Decode batch OOM 3\n[2026-05-09 09:00:01] Decode batch, a: 1", 1
        )
    )
    assert parts[0] == b"[2026-05-09 09:00:00] Decode batch OOM 3"
    assert isinstance(parts[1], Rows) and parts[1].first_line == 2


def test_layout_columns_are_the_compiled_groups() -> None:
    for layout in (bulk_shape().full, bulk_shape().lean):
        assert layout.width == layout.fast.groups == layout.guarded.groups
        assert layout.index == {k: v - 1 for k, v in layout.fast.groupindex.items()}


def test_bulk_pattern_is_linear_on_adversarial_lines() -> None:
    """8x the hostile body costs at most 20x the work (a ratio, not a wall-clock limit)."""
    shape = bulk_shape()
    heads = [b"[2026-01-01 00:00:00] ", b"[2026-01-01 00:00:00", b"2026-01-01T00:00:00Z "]
    bodies = [  # (before, unit, repeats) of the original 200 kB bodies
        (b"", b" ", 200_000),
        (b"", b"[", 200_000),
        (b"", b" TP0", 50_000),
        (b"Decode batch,", b", ", 100_000),
        (b'1 - "GET ', b"/", 200_000),
        (b"INFO:", b" ", 200_000),
    ]
    patterns = (shape.full.fast, shape.full.guarded, shape.lean.fast, shape.lean.guarded)

    def split_all(data: bytes) -> None:
        for pattern in patterns:
            pattern.split(data)

    for head in heads:
        for before, unit, repeats in bodies:
            start = b"\n" + head + before
            why = superlinear(split_all, lambda n, s=start, u=unit: s + u * n, repeats // 32)
            assert why is None, (head, before, unit, why)


def test_bulk_dates_are_exactly_those_the_line_parser_dates() -> None:
    """The pattern's date check (``_VALID_TS``) takes a time iff ``datetime`` does, year 1900
    (the time-only placeholder) aside: every month, day 0-32, leap and century years."""
    import datetime

    from sglang_logscope.parse.bulk import _VALID_TS, _ascii_digits, _compile

    pattern = _compile(_ascii_digits(_VALID_TS) + "$")  # possessive: 3.10's re has none
    for year in (1, 1900, 1999, 2000, 2023, 2024, 2100, 2400, 9999, 0):
        for month in range(14):
            for day in range(33):
                for clock in ("09:00:00", "23:59:59.5", "24:00:00", "12:60:00", "12:00:60"):
                    text = f"{year:04d}-{month:02d}-{day:02d} {clock}"
                    # strptime, not fromisoformat: 3.10's takes only 0, 3 or 6 decimals
                    shape = "%Y-%m-%d %H:%M:%S" + (".%f" if "." in clock else "")
                    try:
                        valid = datetime.datetime.strptime(text, shape).year != 1900
                    except ValueError:
                        valid = False
                    assert bool(pattern.match(text)) == valid, text


def test_both_regex_engines_agree_on_ascii_classes() -> None:
    """Bulk parsing runs the bytes ``re`` engine on ASCII blocks where the line parser runs
    the ``regex`` module on text: the classes its patterns use mean the same there."""
    import re

    import regex

    for code in range(128):
        char = chr(code)
        for cls in (r"\s", r"\S", r"\w", r"\W", r"\d", r"\D", "."):
            ours = re.fullmatch(cls.encode(), bytes([code])) is not None
            theirs = regex.fullmatch(cls, char) is not None
            assert ours == theirs, (cls, hex(code))
