"""The quick banner reader (issue 30: a small log read without ``ast`` for its banner) gives
``ast``'s reading exactly, or gives up: on every fixture banner, on odd forms, and on text
made of banner pieces at random."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope import limits
from sglang_logscope.parse.banner import _parse_ast, _quick, parse_banner

ROOT = Path(__file__).resolve().parent.parent


def _banners() -> list[str]:
    out = []
    for path in sorted((ROOT / "fixtures").rglob("*")):
        if path.is_file() and path.suffix in {".log", ".txt", ""}:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                if "server_args=" in line:
                    out.append(line.partition("server_args=")[2].strip())
    return out


def _same(text: str) -> None:
    """The quick reading, where there is one, is ``ast``'s, types and order included."""
    quick = _quick(text.strip())
    if quick is not None:
        want = _parse_ast(text.strip())
        assert repr(quick) == repr(want)
        assert [type(v) for v in quick.values()] == [type(v) for v in want.values()]


def test_every_fixture_banner_reads_the_same_and_most_quickly() -> None:
    banners = _banners()
    assert len(banners) > 20
    for text in banners:
        _same(text)
    assert sum(_quick(t.strip()) is not None for t in banners) > len(banners) // 2


ODD = [
    "ServerArgs(a=1, a=2)",
    "ServerArgs(a=1,)",
    "ServerArgs(if=1)",
    "ServerArgs(None=1)",
    "ServerArgs(__type__=3, b=2)",
    "ServerArgs(a=007)",
    "ServerArgs(a=00, b=00.5, c=.5, d=-.5, e=1., f=1e5, g=-0, h=1e999)",
    "ServerArgs(a=1j, b=1_000)",
    "ServerArgs(a=-inf, b=inf, c=nan)",
    "ServerArgs(a='x' 'y')",
    "ServerArgs(a=b'x', c=r'y', d=f'z', e=u'w')",
    "ServerArgs(a='it\\'s', b=\"q\")",
    "ServerArgs(a=[1, 2,], b=[])",
    "ServerArgs(a={1: 2, True: 3})",
    "ServerArgs(a={'k': [1, {'j': None}]}, b=(1, 2))",
    "ServerArgs(a=Mode.X, b=Cfg(x=1))",
    "ServerArgs(b=Cfg(x=1, y=In(z=[1, 'a'])), c=Cfg(), d=Cfg(__type__=1), e=Cfg(1), f=if(x=1))",
    "ServerArgs(b=Cfg(x=1, x=2), c=Cfg (x=1))",
    "ServerArgs(1, a=2)",
    "ServerArgs(a=1) trailing",
    "ServerArgs(a=1",
    "ServerArgs\n(a=1)",
    "ServerArgs(a=\n1)",
    "pkg.ServerArgs(a=1)",
    "True(a=1)",
    "{'a': 1, 'b': [2, 'x'], 'c': {}}",
    "{'a': 1, 'a': 2}",
    "{1: 2}",
    "[1, 2]",
    "ServerArgs(a=12345678901234567890, b=123456789012345678)",
    "ServerArgs(a='caf\u00e9 \u2028 \x0c', b='')",
    "ServerArgs(a='\x00')",
    "ServerArgs(a=True, b=False, c=None, d=-3, e=0.9)",
    "ServerArgs(match=1, case=2, type=3, _=4)",
    "ServerArgs(\u00e9=1)",
]


@pytest.mark.parametrize("text", ODD)
def test_odd_forms_read_as_ast_reads_them(text: str) -> None:
    _same(text)
    assert parse_banner(text) == _parse_ast(text.strip()) or _quick(text.strip()) is None


PIECES = [
    "ServerArgs(", "{", "}", "[", "]", "(", ")", ", ", ",", "=", ": ", "a", "b", "if", "None",
    "True", "False", "1", "-", "0", ".", "5", "e", "7", "'x'", '"y"', "'", "\\", " ", "\n",
    "inf", "j", "_", "'\u00e9'", "Cfg(", "x=",
]  # fmt: skip


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24))
def test_random_banner_text_reads_as_ast_reads_it(pieces: list[str]) -> None:
    _same("".join(pieces))
    _same("ServerArgs(" + "".join(pieces) + ")")


@pytest.mark.parametrize(
    "value",
    [True, False, 0, -1, 2**63 - 1, 2**63, -(2**64), 0.5, float("inf"), float("nan"), "", "x",
     "y" * 65536, "y" * 65537],
)  # fmt: skip
def test_a_plain_value_is_judged_as_the_walk_judges_it(value: object) -> None:
    assert limits._plain_problem(value) == limits.shape_problem(value)
    assert limits.generic().items_max >= 1 and limits.generic().depth_max >= 0
