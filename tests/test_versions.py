"""The one SGLang version parser: PEP 440 ordering, the three inputs the old parsers disagreed on."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sglang_logscope.errors import LogscopeError
from sglang_logscope.parse.versions import release_key

# The rows where version_tuple / _version_key / parse_version disagreed (issue 26).
# version_tuple("0.5.10post1") was (0, 5, 101): below 0.5.11 only by accident, above 0.5.100.


def test_post_without_dot_is_the_post_release() -> None:
    assert release_key("0.5.10post1") == release_key("0.5.10.post1")
    assert release_key("0.5.10") < release_key("0.5.10post1") < release_key("0.5.11")
    assert release_key("0.5.10post1")[:3] == (0, 5, 10)


def test_release_candidate_precedes_its_release() -> None:
    rc = release_key("0.5.10rc1")
    assert release_key("0.5.9.post9") < rc < release_key("0.5.10") < release_key("0.5.10.post0")
    assert release_key("0.5.10rc0") < rc < release_key("0.5.10rc2")
    assert release_key("0.5.10a1") < release_key("0.5.10b1") < rc


def test_two_numbers_with_post() -> None:
    assert release_key("0.5.post1") == release_key("0.5.0.post1")
    assert release_key("0.5") < release_key("0.5.post1") < release_key("0.5.1")


def test_final_release_is_its_numbers() -> None:
    """Compares with literal tuples as every caller does (``>= (0, 5, 17)``)."""
    assert release_key("0.5.17") == (0, 5, 17)
    assert release_key("v0.5") == (0, 5, 0)
    assert release_key("0.5.9.0") == (0, 5, 9)
    assert release_key("0.5.17.post1") >= (0, 5, 17)
    assert release_key("0.5.10.post1+cu128") == release_key("0.5.10.post1")


@pytest.mark.parametrize("text", ["", "abc", "0.5.x", "1!0.5", "0.5.9 junk", "0..5", "0.5.9-cu124"])
def test_unreadable_is_an_error(text: str) -> None:
    with pytest.raises(LogscopeError, match="cannot read SGLang version"):
        release_key(text)


_SEP = st.sampled_from(["", "."])
_VERSIONS = st.builds(
    lambda release, pre, post, dev: release + pre + post + dev,
    st.lists(st.integers(0, 30), min_size=1, max_size=5).map(lambda r: ".".join(map(str, r))),
    st.one_of(
        st.just(""),
        st.builds(
            lambda s, p, n: f"{s}{p}{n}", _SEP, st.sampled_from(["a", "b", "rc"]), st.integers(0, 9)
        ),
    ),
    st.one_of(st.just(""), st.builds(lambda s, n: f"{s}post{n}", _SEP, st.integers(0, 9))),
    st.one_of(st.just(""), st.builds(lambda n: f".dev{n}", st.integers(0, 9))),
)


@given(_VERSIONS, _VERSIONS)
def test_ordering_agrees_with_packaging(a: str, b: str) -> None:
    version = pytest.importorskip("packaging.version").Version
    va, vb = version(a), version(b)
    ka, kb = release_key(a), release_key(b)
    assert (ka < kb, ka == kb, ka > kb) == (va < vb, va == vb, va > vb)


_ORDERED = [
    "0.4.0", "0.4.0.post1", "0.4.10.post2", "0.5.0rc0", "0.5.0", "0.5.2", "0.5.10rc1",
    "0.5.10", "0.5.10.post1", "0.5.10.1", "0.5.11", "0.5.23",
]  # fmt: skip


@given(st.sampled_from(_ORDERED), st.sampled_from(_ORDERED))
def test_ordering_agrees_with_the_written_list(a: str, b: str) -> None:
    """Without ``packaging``: a hand-ordered list of real-looking releases."""
    i, j = _ORDERED.index(a), _ORDERED.index(b)
    assert (release_key(a) < release_key(b)) == (i < j)
