"""``parse/shapes.py``, the one definition of a serving row's shape for the bulk paths
(issue 26, item 5): a known shape's own row pattern gives each row the value numbers the
general split gives it; a shape's field layout fills the fields the parser makes; a plan
that fails its first-row check goes the reference way and stays so; and the series' shape
key, literals and pattern (``log/series.py`` reads its decode lines by them) read a line's
numbers back."""

from __future__ import annotations

import re

from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bulk_json import _LABEL, _NUMBER, _UNIT

from sglang_logscope.log import series
from sglang_logscope.parse.bulk import bulk_shape
from sglang_logscope.parse.catalog import read_pairs
from sglang_logscope.parse.shapes import (
    SERIES_NUMBER,
    NumberJson,
    NumberValues,
    ShapeCache,
    Shaped,
    ShapeReader,
    field_layout,
    sample_pattern,
    series_key,
    series_literals,
    split_pairs,
)

DECODE = next(alt for alt in bulk_shape().alts if alt.spec.name == "decode_batch")
REAL = (
    "#running-req: 62, #full token: 93960, full token usage: 0.58, mamba num: 124, "
    "mamba usage: 0.91, cuda graph: True, gen throughput (token/s): 1514.06, #queue-req: 0"
)


@st.composite
def _pairs_texts(draw: st.DrawFn) -> list[str]:
    """Rows of a few pairs shapes, mostly numbers (shapes repeat), now and then a value
    that is no value number."""
    shapes = draw(st.lists(st.lists(st.tuples(_LABEL, _UNIT), min_size=1, max_size=4), min_size=1, max_size=3))  # fmt: skip
    rows = []
    for _ in range(draw(st.integers(1, 25))):
        pairs = shapes[draw(st.integers(0, len(shapes) - 1))]
        values = [
            f"{label}: {draw(st.sampled_from(['True', 'x']) if draw(st.integers(0, 19)) == 0 else _NUMBER)}{unit}"
            for label, unit in pairs
        ]  # fmt: skip
        rows.append(", ".join(values))
    return rows


def _by_row(shaped: list[Shaped], n: int) -> list[tuple[str, list[str]]]:
    """Each row's pairs key and value number texts, from the shapes of a block."""
    out: list[tuple[str, list[str]] | None] = [None] * n
    for s in shaped:
        for i, k in enumerate(s.ks):
            out[k] = (s.key[2], [column[i] for column in s.numbers])
    assert None not in out
    return out  # type: ignore[return-value]


def _alone(text: str, convert: object) -> tuple[str, list[str]]:
    keys, plain, other = split_pairs([text])
    return keys[0], [p if p is not None else convert(o) for p, o in zip(plain, other, strict=True)]  # type: ignore[operator]


@settings(max_examples=examples(200), deadline=None)
@given(_pairs_texts())
def test_a_known_shape_gives_the_numbers_the_split_gives(rows: list[str]) -> None:
    """Per row, the key and value numbers (JSON texts for the JSON writer, texts whose
    values are the same for the frame) are those of the row split alone, whether the
    rows were split or taken by the patterns learnt from the first block."""
    values = NumberValues()
    for convert in (NumberJson().__getitem__, None):
        reader = ShapeReader(convert)
        first = reader.shapes(DECODE, len(rows), [], rows)
        for s in first:
            reader.learn(DECODE.number, s)
        second = reader.shapes(DECODE, len(rows), [], rows)
        for got in (_by_row(first, len(rows)), _by_row(second, len(rows))):
            for text, (key, numbers) in zip(rows, got, strict=True):
                want_key, want = _alone(text, convert or str)
                assert key == want_key
                if convert is None:
                    assert [values[x] for x in numbers] == [values[x] for x in want]
                else:
                    assert numbers == want


def test_the_patterns_take_a_real_block() -> None:
    """A check that can fail: after its first block, a real decode shape's rows are taken
    by the shape's pattern, not the general split."""
    rows = [REAL.replace("62", str(n)).replace("0.58", f"0.{n:02d}") for n in range(10, 60)]
    reader = ShapeReader()
    (shaped,) = reader.shapes(DECODE, len(rows), [], rows)
    reader.learn(DECODE.number, shaped)
    assert reader.shapes(DECODE, len(rows), [], rows)[0].ks == list(range(len(rows)))
    assert reader.by_pattern == len(rows)


@given(st.sampled_from([REAL, REAL.replace("0.58", "0.50"), "#running-req: 3, token usage: 0.00"]))
def test_a_layout_fills_the_fields_the_parser_reads(text: str) -> None:
    """The layout of a shape, filled from a row's value numbers, is ``read_pairs`` of it."""
    layout = field_layout(DECODE, (), text)
    assert layout is not None
    _, plain, other = split_pairs([text])
    numbers = [p if p is not None else o for p, o in zip(plain, other, strict=True)]
    values = NumberValues()
    filled = {
        name: values[numbers[arg]] if how == "n" else arg for name, how, arg in layout
    }  # fmt: skip
    want = read_pairs(text, DECODE.spec.pairs or {})
    assert list(filled.items()) == list(want.items())
    assert [type(v) for v in filled.values()] == [type(v) for v in want.values()]


def test_a_list_value_is_laid_out_the_reference_way() -> None:
    assert field_layout(DECODE, (), "#running-req: 3, ids: [1, 2]") is None


def test_a_plan_that_differs_goes_the_reference_way_once_checked() -> None:
    cache: ShapeCache[str] = ShapeCache()
    checks: list[str] = []

    def check(plan: str) -> bool:
        checks.append(plan)
        return plan == "good"

    assert cache.known("a") == (False, None)
    assert cache.settle("a", "bad", check) is None
    assert cache.known("a") == (True, None)  # remembered: not made or checked again
    assert cache.settle("b", "good", check) == "good"
    assert cache.known("b") == (True, "good")
    assert cache.settle("c", None, check) is None  # nothing to check
    assert checks == ["bad", "good"]


_FIELD = st.lists(
    st.tuples(
        st.sampled_from([b"#running-req: ", b", #token: ", b", token usage: ", b", gen throughput (token/s): ", b" x "]),
        st.one_of(st.integers(0, 10**6).map(lambda n: str(n).encode()), st.sampled_from([b"0.10", b"12.5", b"3.000"])),
    ),
    min_size=1,
    max_size=6,
)  # fmt: skip


@given(_FIELD, st.data())
def test_a_series_shape_reads_its_own_numbers_and_literals(
    parts: list[tuple[bytes, bytes]], data: st.DataObject
) -> None:
    """The series' reading of a decode line's field text (``log/series.py`` takes it from
    here): the key is the text less its numbers, the literals with the numbers between them
    give the text back, and the pattern picks exactly the numbers asked for, on the sample
    and on a line of the same shape with other numbers; a line of another shape matches
    empty."""
    sample = b"#" + b"".join(label + number for label, number in parts)
    numbers = [m[0] for m in SERIES_NUMBER.finditer(sample)]
    literals = series_literals(sample)
    assert len(literals) == len(numbers) + 1
    woven = [piece for pair in zip(literals, [*numbers, b""], strict=True) for piece in pair]
    assert b"".join(woven) == sample
    assert series_key(sample) == b"".join(literals)
    wanted = sorted(data.draw(st.sets(st.sampled_from(range(len(numbers))))))
    pattern = series._compile(sample_pattern(sample, wanted), re.M)  # regex on 3.10: possessive
    match = pattern.match(sample)
    assert match is not None and match[1] == b"#"
    assert list(match.groups()[1:]) == [numbers[i] for i in wanted]
    other = [str(len(n) * 7 + i).encode() for i, n in enumerate(numbers)]
    twin = b"".join(piece for pair in zip(literals, [*other, b""], strict=True) for piece in pair)
    match = pattern.match(twin)
    assert match is not None and list(match.groups()[1:]) == [other[i] for i in wanted]
    stranger = pattern.match(b"?" + sample[1:])  # another shape: the marker group is empty
    assert stranger is not None and stranger[1] is None


def test_the_series_pattern_of_a_real_line_picks_its_chart_values() -> None:
    """``series._shape_of`` on a real decode line: its pattern (``sample_pattern``) gives the
    tokens in use, the throughput and the usage the parser reads."""
    sample = REAL.encode()
    shape = series._shape_of(sample, DECODE.spec)
    assert shape.pattern is not None
    fields = read_pairs(sample.decode(), DECODE.spec.pairs or {})
    match = shape.pattern.match(sample)
    assert match is not None
    for keys, slot in zip(series._KEYS, shape.slots, strict=True):
        want = series._first_number(fields, keys)
        assert (want is None) == (slot is None)
        if slot is not None:
            assert float(match[1 + slot]) == want
