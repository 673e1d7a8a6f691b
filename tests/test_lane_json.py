"""``events -f jsonl`` by the C lane (``parse/_rowjson.h``, issue 33 item 5): a block of
plain serving rows is written in C from each shape's checked plan, the same bytes as every
event through ``Event.to_dict`` -- for any value text, time, rank, client and path -- and the
lane really takes the rows; with the lane off, the Python writer gives the same."""

from __future__ import annotations

import io
from unittest import mock

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.events import EventKind
from sglang_logscope.parse import bulk_json, fastscan
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.bulk import bulk_shape
from sglang_logscope.parse.bulk_json import BulkJson, event_json, iter_event_json
from sglang_logscope.parse.lines import iter_events

pytestmark = pytest.mark.skipif(not fastscan.available(), reason="the C lane is not built")

BATCH = {EventKind.DECODE_BATCH, EventKind.PREFILL_BATCH}


def _written(data: bytes, kinds: set[EventKind] | None, piece: int) -> tuple[list[str], BulkJson]:
    writer = BulkJson(True, kinds)
    with mock.patch.object(_source, "PIECE_BYTES", piece):
        text = "\n".join(iter_event_json(io.BytesIO(data), kinds, True, writer))
    return (text.split("\n") if text else []), writer


def _reference(data: bytes, kinds: set[EventKind] | None) -> list[str]:
    events = iter_events(io.BytesIO(data))
    return [event_json(e, True) for e in events if kinds is None or e.kind in kinds]


def _same(data: bytes, piece: int = 512) -> BulkJson:
    """Every kind, and the batch kinds only: the reference's lines; returns the writer."""
    for kinds in (BATCH, None):
        lines, writer = _written(data, kinds, piece)
        assert lines == _reference(data, kinds)
    return writer


def _decode(i: int, usage: str = "0.50", rank: str = " TP0", fraction: str = "") -> str:
    return (
        f"[2026-05-09 09:{i // 60 % 60:02d}:{i % 60:02d}{fraction}{rank}] Decode batch, "
        f"#running-req: {i % 97}, #token: {i * 31}, token usage: {usage}, "
        f"gen throughput (token/s): {i % 1000}.25, #queue-req: 0"
    )


def _access(i: int, client: str = "10.0.0.7", path: str = "/generate", status: str = "200") -> str:
    return f'[2026-05-09 09:00:{i % 60:02d}] INFO:     {client}:{i} - "POST {path} HTTP/1.1" {status} OK'


def test_plain_rows_go_the_lane_and_write_the_reference() -> None:
    """A check that can fail: after each shape's first block, the lane writes the rows."""
    lines = [_decode(i) if i % 3 else _access(i) for i in range(3000)]
    writer = _same(("\n".join(lines) + "\n").encode(), piece=1 << 14)
    assert writer.lane > 2500 and writer.slow == 0
    assert sorted(map(len, writer.lane_plans.values())) == [1, 1]  # decode and access


def test_the_lane_off_writes_the_same_without_it() -> None:
    data = ("\n".join(_decode(i) for i in range(2000)) + "\n").encode()
    on, lane = _written(data, None, 1 << 12)
    with mock.patch.object(fastscan.FAST_LANE, "on", False):
        off, python = _written(data, None, 1 << 12)
    assert on == off == _reference(data, None)
    assert lane.lane > 1500 and python.lane == 0


_NUMBER = st.one_of(
    st.from_regex(r"\A[0-9]{1,20}(\.[0-9]{0,20})?\Z"),
    st.sampled_from(["0.50", "1.00", "0.00001", "0.0001", "0.0010", "007", "0", "0.0", "00.5"]),
    st.sampled_from(["123456789.123456", "1234567890.5", "0.1230", "0.000100", "5.0000000000000"]),
    st.floats(0, 1e18, allow_nan=False).map(lambda x: f"{x:.2f}"),
)
_FRACTION = st.sampled_from(["", ".5", ".05", ".123", ".1000", ".00000", ".123456", ".000001"])


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.tuples(_NUMBER, _FRACTION, st.sampled_from(["", " TP0", " DP1 TP4"])), max_size=40)
)
def test_any_value_time_and_rank_the_lane_writes_as_the_reference(
    rows: list[tuple[str, str, str]],
) -> None:
    """One shape learnt on plain values, then any value text in its float slot (trailing
    and leading zeros, 20 digits, ``00.5``), any header fraction and ranks: each row written
    as the reference writes it, by the lane or (not fitting) the reference way."""
    learn = [_decode(i) for i in range(40)]
    odd = [_decode(i, usage, rank, fraction) for i, (usage, fraction, rank) in enumerate(rows)]
    _same(("\n".join(learn + odd) + "\n").encode(), piece=256)


_PATH = st.text(
    st.characters(
        min_codepoint=0x01, max_codepoint=0x7F, blacklist_characters=" \t\n\r\x0b\x0c\x1b"
    ),
    min_size=1,
    max_size=12,
)
_CLIENT = st.sampled_from(
    ["10.0.0.7", "127.0.0.1", "2001:db8::1", "[::1]", "9host-a.b%eth0", "1_x"]
)


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.tuples(_CLIENT, _PATH, st.sampled_from(["200", "099", "000", "503"])), max_size=30)
)
def test_any_access_line_the_lane_writes_as_the_reference(rows: list[tuple[str, str, str]]) -> None:
    """Clients of every form the lane reads, paths with quotes, backslashes, DEL and control
    characters, statuses with leading zeros."""
    learn = [_access(i) for i in range(30)]
    odd = [_access(i, client, path, status) for i, (client, path, status) in enumerate(rows)]
    _same(("\n".join(learn + odd) + "\n").encode(), piece=256)


def test_a_shape_whose_check_fails_is_not_kept() -> None:
    """A plan is kept only when the lane writes its shape's first row as the reference
    does: a plan that writes otherwise (here: a key misspelt) leaves the shape to Python."""
    made = bulk_json._lane_shape

    def misspelt(*args: object) -> object:
        shape = made(*args)  # type: ignore[arg-type]
        if shape is None:
            return None
        literals, points, pieces = shape
        wrong = tuple(
            p.replace(b'"line"', b'"lime"') if isinstance(p, bytes) else p for p in pieces
        )
        return literals, points, wrong

    data = ("\n".join(_decode(i) for i in range(500)) + "\n").encode()
    with mock.patch.object(bulk_json, "_lane_shape", misspelt):
        lines, writer = _written(data, None, 1 << 12)
    assert lines == _reference(data, None)
    assert writer.lane == 0 and writer.lane_tried and not any(writer.lane_plans.values())


def test_bad_plans_are_refused() -> None:
    shape = bulk_shape()
    table = shape.lane
    assert table is not None
    alts = len(shape.alts)
    line = _decode(1).encode()
    none: tuple[None, ...] = (None,) * alts
    assert fastscan.json_lines(line, table, 1, b" ", none, {}) == ("", 0, [])
    with pytest.raises(ValueError):
        fastscan.json_lines(line, table, 1, b" ", none[:-1], {})
    with pytest.raises(ValueError):
        fastscan.json_lines(line, table, 1, b"  ", none, {})
    decode = next(a.number for a in shape.alts if a.spec.kind is EventKind.DECODE_BATCH)
    bad = tuple(((((), b"", (7,)),) if a == decode else None) for a in range(alts))
    with pytest.raises(ValueError):
        fastscan.json_lines(line, table, 1, b" ", bad, {})
    groups = tuple(((((b"x",), b"", (-10,)),) if a == decode else None) for a in range(alts))
    with pytest.raises(ValueError):  # a batch row has no access groups to read
        fastscan.json_lines(line, table, 1, b" ", groups, {})
    misfit = tuple(((((b"x",), b"", (-1,)),) if a == decode else None) for a in range(alts))
    assert fastscan.json_lines(line, table, 5, b" ", misfit, {}) == ("", 1, [(0, 0)])
    assert fastscan.json_lines(b"not a row", table, 1, b" ", none, {}) is None


def test_shapes_tried_are_bounded() -> None:
    """Past the bound no shape is tried for a plan (memory stays bounded), still exact."""
    lines = [_decode(i) if i % 2 else _access(i) for i in range(400)]
    data = ("\n".join(lines) + "\n").encode()
    with mock.patch.object(bulk_json, "_LANE_TRIED", 1):
        out, writer = _written(data, None, 1 << 12)
    assert out == _reference(data, None)
    assert len(writer.lane_tried) == 1


def test_the_slot_numbers_are_the_c_writers() -> None:
    """One reading of a plan: the slot numbers ``bulk_json`` writes are the ones
    ``_rowjson.h`` defines (and its bound on plans an alternative), and the access groups are
    in the order its grammar reads them."""
    import re
    from pathlib import Path

    header = (Path(bulk_json.__file__).parent / "_rowjson.h").read_text(encoding="utf-8")
    defined = {m[1]: int(m[2]) for m in re.finditer(r"#define (SLOT_\w+) \((-?\d+)\)", header)}
    shapes = re.search(r"#define MAX_LANE_SHAPES (\d+)", header)
    assert shapes is not None and int(shapes[1]) == bulk_json._LANE_SHAPES
    slots = {f"SLOT_{name.upper()}": code for name, code in bulk_json._LANE_SLOTS.items()}
    assert slots.items() <= defined.items()
    types = {"str": "SLOT_GROUP_TEXT", "int": "SLOT_GROUP_INT"}
    assert {types[t]: code for t, code in bulk_json._LANE_TYPES.items()}.items() <= defined.items()
    scan = (Path(bulk_json.__file__).parent / "_rowscan.c").read_text(encoding="utf-8")
    order = re.search(r"spans of its groups \(([a-z, ]+)", scan)
    assert order is not None and tuple(order[1].split(", ")) == bulk_json._LANE_GROUPS


_BOUNDS = ("INT_DIGITS", "WHOLE_DIGITS", "KEPT_DIGITS", "SMALL_ZEROS", "SMALL_DIGITS")


def test_the_number_bounds_are_the_c_writers() -> None:
    """One fact: the bounds of a value number whose text is its JSON are ``shapes``' names,
    and ``_rowjson.h`` defines the same names with the same values."""
    import re
    from pathlib import Path

    from sglang_logscope.parse import shapes

    header = (Path(bulk_json.__file__).parent / "_rowjson.h").read_text(encoding="utf-8")
    names = (*_BOUNDS, "TRAILING_ZEROS")
    defined = {m[1]: int(m[2]) for m in re.finditer(r"#define ([A-Z_]+) (\d+)\n", header)}
    assert {n: defined.get(n) for n in names} == {n: getattr(shapes, n) for n in names}


def _float_texts() -> list[str]:
    """Float slot texts at each bound of ``shapes`` and one past it, in every dimension:
    whole digits (and a leading 0), then after the point leading zeros, digits (the first and
    last not 0, with and without inner zeros) and trailing zeros."""
    from sglang_logscope.parse import shapes as s

    wholes = [
        lead + "7" * (n - 1) for n in {1, 2, s.WHOLE_DIGITS, s.WHOLE_DIGITS + 1} for lead in "10"
    ]
    counts = {0, 1, 2, s.SMALL_DIGITS, s.SMALL_DIGITS + 1, s.KEPT_DIGITS, s.KEPT_DIGITS + 1}
    digits = {
        "",
        *("3" * n for n in counts if n),
        *("4" + "0" * (n - 2) + "5" for n in counts if n > 1),
    }
    out = []
    for whole in wholes:
        for zeros in {0, 1, s.SMALL_ZEROS, s.SMALL_ZEROS + 1}:
            for d in sorted(digits):
                for trailing in {
                    0,
                    1,
                    s.TRAILING_ZEROS,
                    s.TRAILING_ZEROS + 1,
                    s.TRAILING_ZEROS + 2,
                }:
                    out.append(f"{whole}.{'0' * zeros}{d}{'0' * trailing}")
    return sorted(set(out))


def test_the_lane_takes_a_number_where_its_pattern_does() -> None:
    """At every bound and one past it, the C slots take a value exactly where
    ``shapes.JSON_SLOTS`` does (a row either fits and is written as the reference, or is a
    miss): a bound changed on one side only fails here."""
    import re

    from sglang_logscope.parse import shapes as s

    ints = [lead + "7" * (n - 1) for n in {1, 2, s.INT_DIGITS, s.INT_DIGITS + 1} for lead in "10"]
    ints += ["7.5", "0.0"]
    floats = _float_texts()
    values = [(i, "0.50") for i in ints] + [("5", f) for f in floats]

    def row(n: int, running: str, usage: str) -> str:
        return (
            f"[2026-05-09 09:00:{n % 60:02d}] Decode batch, #running-req: {running}, "
            f"#token: 31, token usage: {usage}, gen throughput (token/s): 1.25, #queue-req: 0"
        )

    _, writer = _written(("\n".join(_decode(i) for i in range(40)) + "\n").encode(), None, 1 << 12)
    shape = bulk_shape()
    assert shape.lane is not None and writer.lane > 0
    plans = tuple(tuple(writer.lane_plans.get(a.number, ())) for a in shape.alts)
    block = "\n".join(row(n, r, u) for n, (r, u) in enumerate(values))
    found = fastscan.json_lines(
        block.encode(), shape.lane, 1, writer.time_sep.encode(), plans, writer.ranks
    )
    assert found is not None
    text, entries, misses = found
    fits = [
        re.fullmatch(s.JSON_SLOTS[False], r) is not None
        and re.fullmatch(s.JSON_SLOTS[True], u) is not None
        for r, u in values
    ]
    assert entries == len(values)
    assert sorted(r for r, _ in misses) == [n for n, ok in enumerate(fits) if not ok]
    assert 50 < fits.count(True) < len(values) - 50  # both sides of every bound are tried
    reference = _reference((block + "\n").encode(), None)
    written = text.split("\n")
    assert [written[n] for n, ok in enumerate(fits) if ok] == [
        reference[n] for n, ok in enumerate(fits) if ok
    ]
