"""The C lane's grammar (``parse/_rowscan.c``) checked against the definitions it mirrors.

The regexes stay the definition: the header's time and rank patterns (``parse/header.py``), the
wrapper's outer time (``parse/adapters.OUTER_TIME``) and the access line's spec
(``parse/messages.py``). Each bound the C code hard-codes is read here *from the definition*
and looked for in the C source, both in its grammar comment and in the loop that enforces it:
a definition that changes a bound fails this test until the C lane follows (or the spec leaves
``bulk._LANE_BATCH``). ``tests/test_rowscan.py`` checks the lane's answers; this checks that
its grammar still says what the definitions say.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sglang_logscope.events import EventKind
from sglang_logscope.parse import adapters, header
from sglang_logscope.parse.messages import SPECS

C_SOURCE = (
    Path(__file__).resolve().parent.parent / "sglang_logscope" / "parse" / "_rowscan.c"
).read_text(encoding="utf-8")
ACCESS = next(s for s in SPECS if s.kind is EventKind.HTTP_ACCESS)


def _bound(definition: str, piece: str) -> int:
    """The upper bound of the quantifier right after ``piece`` in ``definition``."""
    m = re.search(re.escape(piece) + r"\{(\d+),(\d+)\}", definition)
    assert m is not None, f"{piece!r} with a bounded quantifier not in {definition!r}"
    return int(m.group(2))


#: (what, definition text, the piece the quantifier follows, the C loop enforcing the bound
#: with {n} for it, the grammar comment's text with {n})
CASES = [
    ("header time fraction", header._TS_DATE, r"\.\d", "n < {n} && is_digit(*r)",
     '"." D{{1,{n}}}'),
    ("outer time fraction", adapters.OUTER_TIME, r"[.,]\d", "n < {n} && is_digit(*q)",
     '("."|",") D{{1,{n}}}'),
    ("rank letters", header._RANK_TOKEN, "[A-Z][A-Z_]",
     "n < {n} && (is_upper(*q) || *q == '_')", "[A-Z_]{{0,{n}}}"),
    ("rank number", header._RANK_TOKEN, r"-?\d", "n < {n} && is_digit(*q)", '["-"] D{{1,{n}}}'),
    ("uvicorn level's spaces", header._UVICORN_PATTERN, r":\s", "n < {n} && (*p == ' '",
     '"INFO:" WS{{1,{n}}}'),
    ("access client", ACCESS.pattern, r"(?P<client>[\w.:\[\]%-]", "n < {n} && client_char(*p)",
     None),
    ("access method", ACCESS.pattern, "(?P<method>[A-Z]", "n < {n} && is_upper(*p)",
     "[A-Z]{{1,{n}}}"),
    ("access path", ACCESS.pattern, r"(?P<path>\S", "n < {n} && !is_space(*p)",
     "S{{1,{n}}}"),
]  # fmt: skip


@pytest.mark.parametrize(("what", "definition", "piece", "loop", "comment"), CASES)
def test_c_bounds_follow_the_definitions(
    what: str, definition: str, piece: str, loop: str, comment: str | None
) -> None:
    n = _bound(definition, piece)
    # the C loops count from 0 and stop *at* the bound (rank letters: one [A-Z] is read first)
    assert loop.format(n=n) in C_SOURCE, f"{what}: the C lane's loop does not stop at {n}"
    if comment is not None:
        assert comment.format(n=n) in C_SOURCE, f"{what}: the grammar comment does not say {n}"


def test_access_client_bound_matches_the_comment() -> None:
    # the comment counts the client after its first character: D client{0,99}
    n = _bound(ACCESS.pattern, r"(?P<client>[\w.:\[\]%-]")
    assert f"D client{{0,{n - 1}}}" in C_SOURCE


def test_a_changed_definition_is_caught() -> None:
    """The check can fail: a rank token allowing 20 letters is not what the C reads."""
    changed = header._RANK_TOKEN.replace("{0,15}", "{0,20}")
    n = _bound(changed, "[A-Z][A-Z_]")
    assert n == 20
    assert "n < 20 && (is_upper(*q) || *q == '_')" not in C_SOURCE
