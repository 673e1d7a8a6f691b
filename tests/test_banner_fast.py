"""The banner's item-by-item reading (``banner._plain_banner``) gives the full parse's answer
whenever it gives one: on Hypothesis banners of any literal values, on those banners mutated
(quotes, backslashes, comments, brackets, keywords and repeated names put in), and on every
real banner of the fixtures -- most of which it reads."""

from __future__ import annotations

import keyword
import re
from pathlib import Path
from typing import Any
from unittest import mock

from examples import examples
from fixture_logs import FIXTURE_LOGS
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.parse import banner
from sglang_logscope.parse.banner import format_banner, parse_banner


def _full(text: str) -> dict[str, Any]:
    """The full parse alone (the definition)."""
    with mock.patch.object(banner, "_plain_banner", lambda text: None):
        return parse_banner(text)


def _agrees(text: str) -> bool:
    """Whether the item reading answered (it must then be the full parse's answer)."""
    plain = banner._plain_banner(text.strip())
    if plain is not None:
        assert plain == _full(text), text
        assert parse_banner(text) == plain
    return plain is not None


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=12),
    st.text(st.sampled_from("ab'\"\\#,=()[]{} \t\n\x00é"), max_size=8),
    st.sampled_from(["a, b=1", "x)", "it's", '"', "#", "\\", "ServerArgs(a=1)"]),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
_NAMES = st.one_of(
    st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True),
    st.sampled_from(["None", "if", "lambda", "match", "_", "x"]),
)
_ARGS = st.dictionaries(_NAMES, _VALUES, max_size=10)


@settings(max_examples=examples(400), deadline=None)
@given(_ARGS)
def test_any_banner_is_read_as_the_full_parse_reads_it(args: dict[str, Any]) -> None:
    _agrees(format_banner(args))


_PLAIN_TEXT = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="'\\\"#")
)
_PLAIN_VALUES = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=False, allow_infinity=False),
        _PLAIN_TEXT,
    ),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_PLAIN_TEXT, inner, max_size=3),
    max_leaves=6,
)
_PLAIN_NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True).filter(
    lambda name: not keyword.iskeyword(name)
)


@settings(max_examples=examples(200), deadline=None)
@given(st.dictionaries(_PLAIN_NAMES, _PLAIN_VALUES, min_size=1, max_size=10))
def test_a_banner_of_plain_values_is_read_item_by_item(args: dict[str, Any]) -> None:
    """A check that can fail: strings without quote, backslash or ``#``, numbers, constants
    and bracketed literals of them are always read item by item, as the full parse reads
    them."""
    assert _agrees(format_banner(args))


@settings(max_examples=examples(400), deadline=None)
@given(
    _ARGS,
    st.lists(
        st.tuples(
            st.integers(0, 10_000), st.text(st.sampled_from("'\"\\#,=()[]{} -.e09aN\n"), max_size=4)
        ),
        max_size=3,
    ),
    st.integers(0, 10_000),
)
def test_a_mutated_banner_is_read_as_the_full_parse_reads_it(
    args: dict[str, Any], edits: list[tuple[int, str]], cut: int
) -> None:
    text = format_banner(args)
    for at, insert in edits:
        at %= len(text) + 1
        text = text[:at] + insert + text[at:]
    _agrees(text)
    _agrees(text[: cut % (len(text) + 1)])


def test_names_the_full_parse_refuses_are_left_to_it() -> None:
    """A repeated or reserved name makes the whole call a syntax error there: not read here."""
    assert banner._plain_banner("ServerArgs(a=1, a=2)") is None
    assert banner._plain_banner("ServerArgs(a=1, if=2)") is None
    assert _full("ServerArgs(a=1, a=2)") == {"a": 2}  # the scanner, after the syntax error
    assert banner._plain_banner("ServerArgs(a=1, b=[1, 2], c='x, d=3', e=-1.5e-05)") == {
        "a": 1,
        "b": [1, 2],
        "c": "x, d=3",
        "e": -1.5e-05,
    }


def test_the_real_banners_are_read_item_by_item() -> None:
    """A check that can fail: the fixtures' banners, each the full parse's answer, and
    nearly every whole one (not cut off mid-way: those go to the scanner) read item by item."""
    banners = [
        m[1]
        for path in FIXTURE_LOGS
        for m in re.finditer(r"server_args=(.*)", Path(path).read_text("utf-8", "replace"))
    ]
    read = [_agrees(text) for text in banners]
    whole = [r for text, r in zip(banners, read, strict=True) if text.rstrip().endswith(")")]
    assert len(whole) > 10 and sum(whole) > 0.9 * len(whole), (sum(whole), len(whole))
