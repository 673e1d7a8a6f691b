"""A plain value (``str``, ``int``, ``float``, ``bool``: most of a 325-key banner's) is judged
without :func:`~sglang_logscope.limits.shape_problem`'s walk, with the walk's answer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_logscope import limits


@pytest.mark.parametrize(
    "value",
    [True, False, 0, -1, 2**63 - 1, 2**63, -(2**64), 0.5, float("inf"), float("nan"), "", "x",
     "y" * 65536, "y" * 65537],
)  # fmt: skip
def test_a_plain_value_is_judged_as_the_walk_judges_it(value: object) -> None:
    assert limits._plain_problem(value) == limits.shape_problem(value)
    assert limits.generic().items_max >= 1 and limits.generic().depth_max >= 0


@given(
    st.one_of(
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=70_000),
    )
)
def test_any_plain_value_is_judged_as_the_walk_judges_it(value: object) -> None:
    assert limits._plain_problem(value) == limits.shape_problem(value)
