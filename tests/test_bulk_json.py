"""``events --format jsonl`` written from bulk rows (issue 18, target 5): the same bytes as
every event through ``Event.to_dict`` and ``to_json`` — on real fixture logs, on both
generated shapes and on hypothesis mixes of batch lines of any values — and the fast path
really takes the rows."""

from __future__ import annotations

import io
import json
import re
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from examples import examples
from fixture_logs import FIXTURE_LOGS
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from sglang_logscope.cli import app
from sglang_logscope.events import EventKind
from sglang_logscope.parse import bulk_json, shapes
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.bulk_json import BulkJson, event_json, iter_event_json
from sglang_logscope.parse.lines import iter_events

ROOT = Path(__file__).resolve().parent.parent


def _fast(data: bytes, kinds: set[EventKind] | None = None, ascii_only: bool = True) -> list[str]:
    writer = BulkJson(ascii_only, kinds)
    text = "\n".join(iter_event_json(io.BytesIO(data), kinds, ascii_only, writer))
    return text.split("\n") if text else []


def _reference(
    data: bytes, kinds: set[EventKind] | None = None, ascii_only: bool = True
) -> list[str]:
    return [
        event_json(e, ascii_only)
        for e in iter_events(io.BytesIO(data))
        if kinds is None or e.kind in kinds
    ]


def _same(data: bytes) -> None:
    for ascii_only in (True, False):
        assert _fast(data, None, ascii_only) == _reference(data, None, ascii_only)
    batch = {EventKind.DECODE_BATCH, EventKind.PREFILL_BATCH}
    assert _fast(data, batch) == _reference(data, batch)


@pytest.mark.parametrize("path", FIXTURE_LOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fixture_logs_write_the_same_json_lines(path: Path) -> None:
    with mock.patch.object(_source, "PIECE_BYTES", 4096):  # real logs fit in one piece
        _same(path.read_bytes())


@settings(max_examples=examples(4), deadline=None)
@given(seed=st.integers(0, 10_000), long=st.booleans())
def test_generated_logs_write_the_same_json_lines(seed: int, long: bool) -> None:
    """Both benchmark shapes (many runs of every era on TP and DP ranks, ``docker logs -t``;
    one long run with the hybrid decode fields), and nearly every row written fast."""
    from benchmarks.generate import generate, generate_long

    with tempfile.TemporaryDirectory() as tmp:
        make = generate_long if long else generate
        data = make(Path(tmp), 0.4, seed=seed)["big"].read_bytes()
    with mock.patch.object(_source, "PIECE_BYTES", 1 << 15):
        _same(data)
        writer = BulkJson(True)
        for _ in iter_event_json(io.BytesIO(data), None, True, writer):
            pass
    assert writer.fast > 1000
    # the docker-wrapped runs carry receive times: those rows go the reference way
    assert writer.slow <= writer.fast


_NUMBER = st.one_of(
    st.from_regex(r"\A[0-9]{1,20}(\.[0-9]{0,20})?\Z"),
    st.sampled_from(["0.50", "1.00", "0.00001", "0.0001", "007", "0", "0.0", "12345678901.5"]),
    st.floats(0, 1e18, allow_nan=False).map(lambda x: f"{x:.2f}"),
)
_UNIT = st.sampled_from(["", "", "", " GB", "%", "s", " MiB"])
_LABEL = st.sampled_from(
    [
        "#running-req",
        "#token",
        "token usage",
        "accept len",
        "#full token",
        "mamba usage",
        "gen throughput (token/s)",
        "cuda graph",
    ]
    * 3
    + [
        "max_total_tokens",  # a server argument: its value is checked by the limits
        'we"ird\\label',
        "del\x7f",
    ]
)
_HEAD = st.sampled_from(
    ["Decode batch,", "Decode batch.", "Decode batch [12],", "Prefill batch,",
     "Prefill batch(mixed #running-req: 3),"]
)  # fmt: skip


@st.composite
def _batch_lines(draw: st.DrawFn) -> str:
    """A few shapes, each repeated with other values (the templates are reused)."""
    shapes = draw(
        st.lists(
            st.tuples(_HEAD, st.lists(st.tuples(_LABEL, _UNIT), min_size=1, max_size=5)),
            min_size=1,
            max_size=3,
        )
    )
    lines = []
    for second in range(draw(st.integers(1, 30))):
        head, pairs = shapes[draw(st.integers(0, len(shapes) - 1))]
        values = []
        for label, unit in pairs:
            odd = draw(st.integers(0, 19)) == 0  # mostly numbers: shapes repeat
            value = draw(st.sampled_from(["True", "[1, 2]", "x"]) if odd else _NUMBER)
            values.append(f"{label}: {value}{unit}")
        rank = draw(st.sampled_from(["", " TP0", " DP1 TP4"]))
        lines.append(f"[2026-05-09 09:00:{second % 60:02d}{rank}] {head} " + ", ".join(values))
    return "\n".join(lines) + "\n"


@settings(max_examples=examples(300), deadline=None)
@given(_batch_lines(), st.sampled_from([64, 1 << 18]))
def test_any_batch_values_write_the_same_json_lines(text: str, piece: int) -> None:
    """Any value text (trailing zeros, leading zeros, exponents, 20 digits, units, bools,
    lists), labels with quotes, backslashes and DEL, optional groups, ranks."""
    with mock.patch.object(_source, "PIECE_BYTES", piece):
        _same(text.encode("ascii"))


def test_repeated_shapes_go_the_fast_way() -> None:
    """A check that can fail: rows of a repeated shape are written from their templates,
    whatever their values (trailing zeros, 20 digits, exponents go through the split)."""
    import random

    rng = random.Random(7)
    values = ["0.50", "1.00", "0.00001", "007", "0", "12345678901234567890", "3.25", "845.51"]
    lines = [
        f"[2026-05-09 09:00:{i % 60:02d} TP0] Decode batch, #running-req: {rng.randint(0, 99)}, "
        f"token usage: {rng.choice(values)}, gen throughput (token/s): {rng.choice(values)}"
        for i in range(2000)
    ]
    data = ("\n".join(lines) + "\n").encode()
    writer = BulkJson(True)
    with mock.patch.object(_source, "PIECE_BYTES", 1 << 14):
        out = "\n".join(iter_event_json(io.BytesIO(data), None, True, writer)).split("\n")
        assert out == _reference(data)
    assert writer.fast == 2000 and writer.slow == 0


@settings(max_examples=examples(100), deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_write_the_same_json_lines(data: bytes) -> None:
    _same(data)


@given(st.from_regex(r"\A[0-9]{1,19}(\.[0-9]{1,19})?\Z"))
def test_a_plain_number_is_its_own_json(text: str) -> None:
    """What the number patterns take as JSON text is what ``json.dumps`` writes for the
    value :func:`..catalog.read_pairs` makes (float with a point, else int)."""
    value = float(text) if "." in text else int(text)
    if re.fullmatch(shapes.PLAIN_NUMBER, text):
        assert json.dumps(value) == text
    for slot in shapes.JSON_SLOTS.values():  # a shape's pattern: int, or with a point
        m = re.fullmatch(slot, text)
        if m:
            assert json.dumps(value) == m.group(1)


def test_hostile_text_stays_escaped() -> None:
    """Quotes, backslashes, DEL and control characters in a bulk row's text come out as
    JSON escapes (the line parses back to the text), never raw."""
    line = '[2026-05-09 09:00:00] 10.0.0.1:5 - "GET /a"\\\x7f\x01b HTTP/1.1" 200 OK\n'
    (out,) = _fast(line.encode())
    assert "\x7f" not in out and "\x01" not in out
    assert json.loads(out)["message"] == line[22:-1]
    assert [out] == _reference(line.encode())


def test_the_cli_writes_the_fast_lines(tmp_path: Path) -> None:
    """``logscope events -f jsonl`` goes the fast way and writes what the reference writes."""
    from benchmarks.generate import generate_long

    big = generate_long(tmp_path, 0.3)["big"]
    result = CliRunner().invoke(app, ["events", "-f", "jsonl", str(big)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == _reference(big.read_bytes(), ascii_only=False)
    with mock.patch.object(bulk_json.BulkJson, "lines", side_effect=AssertionError("slow")):
        assert CliRunner().invoke(app, ["events", "-f", "jsonl", str(big)]).exit_code != 0
    picked = CliRunner().invoke(app, ["events", "-f", "jsonl", "-k", "decode_batch", str(big)])
    decode = {EventKind.DECODE_BATCH}
    assert picked.stdout.splitlines() == _reference(big.read_bytes(), decode, False)


def test_the_line_layout_follows_event_to_dict() -> None:
    """The layout is read from the reference's own output: a time written with ``T`` and a
    new key (as an RFC 3339 change of ``to_dict`` would make) keep the fast path exact."""
    from sglang_logscope.events import Event

    original = Event.to_dict

    def rfc3339(self: Event) -> dict[str, object]:
        data = original(self)
        out: dict[str, object] = {}
        for key, value in data.items():
            out[key] = (
                self.timestamp.isoformat() if key == "timestamp" and self.timestamp else value
            )
            if key == "timestamp":
                out["time_zone"] = None
        return out

    lines = [
        f"[2026-05-09 09:00:{i % 60:02d}.5 DP0 TP1] Decode batch, #running-req: {i}, "
        f"token usage: 0.{i % 10}5"
        for i in range(300)
    ]
    data = ("\n".join(lines) + "\n").encode()
    with mock.patch.object(Event, "to_dict", rfc3339):
        writer = BulkJson(True)
        out = "\n".join(iter_event_json(io.BytesIO(data), None, True, writer)).split("\n")
        assert out == _reference(data)
    assert '"timestamp": "2026-05-09T09:00:00.500000", "time_zone": null' in out[0]
    assert writer.fast == 300


@given(
    st.datetimes(min_value=__import__("datetime").datetime(1901, 1, 1)),
    st.sampled_from([0, 1, 2, 3, 4, 5, 6]),
    st.sampled_from([" ", "T"]),
)
def test_a_row_time_is_written_as_isoformat_writes_it(when: object, digits: int, sep: str) -> None:
    """The header time's JSON made from its text equals ``isoformat`` of the parsed time."""
    from sglang_logscope.parse.bulk import row_time

    text = when.strftime("%Y-%m-%d %H:%M:%S")  # type: ignore[attr-defined]
    if digits:
        text += "." + f"{when.microsecond:06d}"[:digits]  # type: ignore[attr-defined]
    raw = text.encode()
    assert bulk_json._time_json(raw, sep) == json.dumps(row_time(raw).isoformat(sep))


_ROW_TEXT = st.text(st.characters(max_codepoint=0x7F, blacklist_characters="\n"), max_size=30)


@given(st.lists(_ROW_TEXT, max_size=8))
def test_texts_are_encoded_as_json_dumps_encodes_each(texts: list[str]) -> None:
    """The one-call encoding of a block's texts (newlines mark the rows) equals one
    ``json.dumps`` per text, backslashes, quotes and control characters included; a text
    found plain is its JSON between quotes."""
    assert bulk_json.encode_texts(texts) == [json.dumps(t) for t in texts]
    joined = "\n".join(texts).encode("ascii")
    if bulk_json._plain(joined):
        assert [f'"{t}"' for t in texts] == [json.dumps(t) for t in texts]


@given(
    st.lists(
        st.datetimes(min_value=__import__("datetime").datetime(1901, 1, 1)), min_size=1, max_size=5
    ),
    st.booleans(),
    st.sampled_from([" ", "T"]),
)
def test_a_block_of_times_is_written_as_each_time_is(
    times: list[object], whole: bool, sep: str
) -> None:
    """:func:`bulk_json._times_json` of a block (whole seconds: the quick way; else per
    distinct time) equals :func:`bulk_json._time_json` of each."""
    fmt = "%Y-%m-%d %H:%M:%S" if whole else "%Y-%m-%d %H:%M:%S.%f"
    raw = [t.strftime(fmt).encode() for t in times]  # type: ignore[attr-defined]
    assert bulk_json._times_json(raw, sep) == [bulk_json._time_json(r, sep) for r in raw]


_PIECE = st.text(st.sampled_from('ab{}"\\: '), max_size=6)


@given(
    st.lists(_PIECE, min_size=8, max_size=8),
    st.lists(st.sampled_from([None, "k", "{x}"]), min_size=6, max_size=6),
    st.lists(_PIECE, min_size=1, max_size=4),
    st.lists(st.lists(_PIECE, min_size=9, max_size=9), min_size=1, max_size=3),
)
def test_a_composed_template_writes_what_the_two_formats_write(
    literals: list[str], fixed: list[str | None], inner: list[str], rows: list[list[str]]
) -> None:
    """A row written through :func:`bulk_json._compose` and :func:`bulk_json._fill` equals
    ``layout.format(*columns, template.format(*values))``: braces in the literals and in
    the constants, constants written in, the fields numbered after the varying columns."""

    def esc(text: str) -> str:
        return text.replace("{", "{{").replace("}", "}}")

    fixed[0] = None  # the line number always varies
    layout = "".join(esc(lit) + f"{{{i}}}" for i, lit in enumerate(literals[:7])) + esc(literals[7])
    width = len(inner) - 1
    template = "".join(esc(lit) + f"{{{j}}}" for j, lit in enumerate(inner[:-1])) + esc(inner[-1])
    columns = [[row[i] for row in rows] for i in range(6)]
    for i, value in enumerate(fixed):
        if value is not None:
            columns[i] = [value] * len(rows)
    values = [[row[6 + j] for row in rows] for j in range(width)]
    expected = [
        layout.format(*(c[r] for c in columns), template.format(*(v[r] for v in values)))
        for r in range(len(rows))
    ]
    varying = [c for c, value in zip(columns, fixed, strict=True) if value is None]
    plan = bulk_json._plan(bulk_json._compose(layout, tuple(fixed), template))
    assert bulk_json._fill(plan, [*varying, *values], len(rows)) == expected
