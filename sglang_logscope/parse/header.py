"""Split one physical log line into its header (time, rank, level, source) and message.

Every line format SGLang has printed is accepted: no timestamp (0.1-0.2, with ``[gpu_id=N]``),
time-only ``[16:53:16 TP0]``, ``[YYYY-mm-dd HH:MM:SS(.mmm) RANKS]``, the ``LEVEL file.py:LINE:``
form after the time seen in real deployments, uvicorn's ``INFO:     `` prefix, Python's default
``WARNING:logger:`` format, and outer prefixes added by docker (``svc-1  | ``, ``docker logs -t``
timestamps) or Ray (``(Actor pid=1, ip=...)``). All patterns are bounded: no backtracking blow-up.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import NamedTuple

from .._text import lazy_regex, own_pattern
from ..events import Rank
from .adapters import OUTER_PREFIXES, OUTER_TIME

#: The header time with its date (the other forms are time-only or month-day).
_TS_DATE = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?"
_TS = rf"{_TS_DATE}|\d{{2}}:\d{{2}}:\d{{2}}|\d{{2}}-\d{{2}} \d{{2}}:\d{{2}}:\d{{2}}"
_RANK_TOKEN = r"(?:[A-Z][A-Z_]{0,15}+-?\d{1,6}+|encode_server|encode_dp_worker\[\d{1,6}+\])"
#: ``INFO file.py:123: `` after the bracket (the logging format seen in real deployments).
_LEVEL_SRC_ONE = (
    r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<src>[\w.-]{1,120}?\.py:\d{1,7}+): "
)
_LEVEL_SRC = rf"(?:{_LEVEL_SRC_ONE})?"
_BRACKET = rf"\[(?P<ts>{_TS})(?P<ranks>(?: {_RANK_TOKEN})*+)\] ?{_LEVEL_SRC}"
#: ``docker logs -t`` / journald time before the line.
_OUTER_TS = OUTER_TIME
_FAST = own_pattern(_BRACKET)
#: The lenient prefixes of ``adapters.OUTER_PREFIXES``, each optional, in order.
_OUTER = own_pattern("".join(f"(?:{pattern})?" for _, pattern in OUTER_PREFIXES))
#: docker compose's service prefix on any line, headed or not ('sglang-1  | ', 'svc |').
_COMPOSE = own_pattern(r"[A-Za-z0-9][\w.-]{0,80}+ {1,40}+\| ?")
#: A header glued after other text on one physical line (a tqdm bar without its newline).
_GLUED = own_pattern(r"\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
_OLD_GPU = lazy_regex(r"\[gpu(?:_id)?=(?P<gpu>\d{1,6}+)\] ?")
_UVICORN_LEVELS = ("INFO", "WARNING", "ERROR", "DEBUG", "CRITICAL", "TRACE")
#: The definition (the C lane's grammar test reads its bound from this text).
_UVICORN_PATTERN = rf"(?P<level>{'|'.join(_UVICORN_LEVELS)}):\s{{1,10}}+"
_UVICORN = own_pattern(_UVICORN_PATTERN)
#: After a bracket header, uvicorn's level prefix is looked for only when the message starts
#: with one of these (so ``CRITICAL:``/``TRACE:`` stay in the message there).
_UVICORN_AFTER_BRACKET = "IWED"
_PYLOGGING = lazy_regex(r"(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL):(?P<src>[\w.]{1,120}+):")
_RANK_PART = own_pattern(r"([A-Z][A-Z_]*?)(-?\d+)$")
_RANK_FIELDS = {
    "DP": "dp",
    "PP": "pp",
    "TP": "tp",
    "EP": "ep",
    "ATTN_CP": "attn_cp",
    "MOE_DP": "moe_dp",
}

_rank_cache: dict[str, Rank] = {}
_ts_cache: dict[str, datetime | None] = {}


class Header(NamedTuple):
    """What precedes the message on a line. ``headed`` says a new record starts here."""

    headed: bool
    timestamp: datetime | None
    rank: Rank | None
    level: str | None
    source: str | None
    message: str


def parse_rank(label: str) -> Rank:
    """Parse a rank prefix such as ``DP0 PP1 TP3 EP3`` (any order, any subset)."""
    cached = _rank_cache.get(label)
    if cached is not None:
        return cached
    values: dict[str, int] = {}
    for token in label.split():
        m = _RANK_PART.match(token)
        if m and m.group(1) in _RANK_FIELDS:
            values[_RANK_FIELDS[m.group(1)]] = int(m.group(2))
        elif token.startswith("encode_dp_worker["):
            values["dp"] = int(token[len("encode_dp_worker[") : -1])
    rank = Rank(label=label, **values)
    if len(_rank_cache) < 4096:
        _rank_cache[label] = rank
    return rank


def parse_timestamp(text: str) -> datetime | None:
    """Parse SGLang's header time. Time-only stamps get the date 1900-01-01."""
    cached = _ts_cache.get(text)
    if cached is not None or text in _ts_cache:
        return cached
    try:
        if len(text) == 8:  # HH:MM:SS
            value: datetime | None = datetime(
                1900, 1, 1, int(text[0:2]), int(text[3:5]), int(text[6:8])
            )
        elif text[2] == "-":  # mm-dd HH:MM:SS (diffusion server)
            value = datetime(
                1900,
                int(text[0:2]),
                int(text[3:5]),
                int(text[6:8]),
                int(text[9:11]),
                int(text[12:14]),
            )
        else:
            micro = 0
            if len(text) > 19:
                frac = text[20:]
                micro = int(frac.ljust(6, "0")[:6])
            value = datetime(
                int(text[0:4]), int(text[5:7]), int(text[8:10]),
                int(text[11:13]), int(text[14:16]), int(text[17:19]), micro,
            )  # fmt: skip
    except ValueError:
        value = None
    if len(_ts_cache) > 8192:
        _ts_cache.clear()
    _ts_cache[text] = value
    return value


def split_header(line: str) -> Header:
    """Split ``line`` into header parts and message. Never raises."""
    m = _FAST.match(line)
    if m is None and line and line[0] != "[" and _may_have_outer(line):
        outer = _OUTER.match(line)
        if outer is not None and outer.end() > 0:
            m = _FAST.match(line, outer.end())
    if m is not None:
        return _bracketed(line, m)
    return _split_headless(line)


def _bracket_time(text: str) -> datetime | None:
    """:func:`parse_timestamp` of a header's time; the full dates (the header pattern's
    ``YYYY-mm-dd HH:MM:SS`` with 0, 3 or 6 decimals: one C call) without the cache."""
    if len(text) in (19, 23, 26):
        try:
            return _fromisoformat(text)
        except ValueError:
            return None
    return parse_timestamp(text)


_fromisoformat = datetime.fromisoformat

#: Parsed bracket headers by their text (lines of one second and rank share one).
_head_cache: dict[str, tuple[datetime | None, Rank | None, str | None, str | None]] = {}


def _bracketed(line: str, m: re.Match[str]) -> Header:
    end = m.end()
    head = line[m.start() : end]
    parts = _head_cache.get(head)
    if parts is None:
        ts, ranks, level, src = m.group("ts", "ranks", "level", "src")
        parts = (_bracket_time(ts), parse_rank(ranks[1:]) if ranks else None, level, src)
        if len(_head_cache) >= 4096:
            _head_cache.clear()
        _head_cache[head] = parts
    message = line[end:]
    level = parts[2]
    if level is None and message[:1] in _UVICORN_AFTER_BRACKET:
        u = _UVICORN.match(message)
        if u is not None:
            level = u.group("level")
            message = message[u.end() :]
    return Header(True, parts[0], parts[1], level, parts[3], message)


def _may_have_outer(line: str) -> bool:
    """Can :data:`_OUTER` take anything at the start of ``line``? Each of its parts begins
    with a space, a digit, ``-`` or ``(``, but for compose's service prefix, which needs a
    ``|`` (a headless line without one, the common case, skips two patterns)."""
    first = line[0]
    return first in " -(" or first.isdigit() or "|" in line


def _split_headless(line: str, nested: bool = False) -> Header:
    first = line[:1]
    if not nested and first not in " \t":
        compose = _COMPOSE.match(line) if "|" in line else None
        if compose is not None:
            inner = line[compose.end() :]
            m = _FAST.match(inner)
            if m is not None:
                return _bracketed(inner, m)
            header = _split_headless(inner, True)
            return header if header.headed else header._replace(message=inner)
        if "[" in line:
            glued = _GLUED.search(line, 1)
            if glued is not None:
                m = _FAST.match(line, glued.start())
                if m is not None:
                    return _bracketed(line, m)
    if first == "[":
        g = _OLD_GPU.match(line)
        if g is not None:
            gpu = g.group("gpu")
            return Header(True, None, parse_rank(f"TP{gpu}"), None, None, line[g.end() :])
    elif first in "IWEDCT":
        p = _PYLOGGING.match(line)
        if p is not None:
            return Header(True, None, None, p.group("level"), p.group("src"), line[p.end() :])
        u = _UVICORN.match(line)
        if u is not None:
            return Header(True, None, None, u.group("level"), None, line[u.end() :])
    return Header(False, None, None, None, None, line)
