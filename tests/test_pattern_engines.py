"""Our own patterns compile with ``re`` on Python 3.11+ (``_text.own_pattern``: the ``regex``
module's import and its compiler were ~90 M instructions of a small check's start-up, issue
33, 2); ``regex`` compiled them before, and still does on 3.10. The two engines differ only on
characters no SGLang log line has been seen with (``re``'s ``\\s`` takes ``\\x1c``-``\\x1f``,
its ``\\w`` no combining mark): on every line of every log in ``fixtures/`` they read the same
header and the same catalog match (spec and fields) of each message."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path
from typing import Any

import pytest
import regex
from fixture_logs import FIXTURE_LOGS

from sglang_logscope import _text
from sglang_logscope.parse import catalog, header
from sglang_logscope.parse.catalog import ALIAS, Catalog, MessageSpec
from sglang_logscope.parse.messages import CATALOG, SPECS

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 compiles with regex")


ROOT = Path(__file__).resolve().parent.parent


def _lines() -> list[str]:
    """Every distinct line of the fixture logs (the heldout ones too)."""
    seen: dict[str, None] = {}
    for path in [*FIXTURE_LOGS, *sorted((ROOT / "fixtures" / "heldout").glob("*/log"))]:
        text = Path(path).read_bytes().decode("utf-8", errors="replace")
        seen.update(dict.fromkeys(text.splitlines()))
    return list(seen)


LINES = _lines()


def _by_regex(pattern: Any) -> Any:
    return regex.compile(pattern.pattern, pattern.flags & ~re.UNICODE)


def test_own_patterns_compile_with_re_and_regex_only_where_re_cannot() -> None:
    assert isinstance(_text.own_pattern(r"\d{1,9}+"), re.Pattern)
    assert isinstance(_text.own_pattern(rb"\d{1,9}+"), re.Pattern)
    behind = _text.own_pattern(r"(?<=a|bc)d")  # a variable-width look-behind
    assert isinstance(behind, regex.Pattern) and behind.search("bcd") is not None
    for spec in SPECS:  # every catalog pattern is re's (the aliases stand for duplicate names)
        assert isinstance(spec.compiled, re.Pattern), spec.name


def test_a_space_is_regexs_space_in_and_out_of_classes() -> None:
    """``re``'s ``\\s`` takes ``\\x1c``-``\\x1f``; ours (``regex``'s, the bytes lane's) not."""
    for pattern in (r"a\s+b", r"a[\s,]+b", r"a[^\S]+b", r"a[^\s:]b", r"a\Sb"):
        if pattern == r"a[^\S]+b":  # \S in a class: regex's own
            assert not isinstance(_text.own_pattern(pattern), re.Pattern)
            continue
        ours, theirs = _text.own_pattern(pattern), regex.compile(pattern)
        for text in ("a b", "a\x1cb", "a\u3000b", "a\x85b", "a:b", "a,b", "axb", "a\x1fb"):
            assert (ours.match(text) is None) == (theirs.match(text) is None), (pattern, text)
    assert _text.own_pattern(r"\\s").match("\\s") is not None  # an escaped backslash, then s


def test_the_header_split_is_the_same_with_either_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    with_re = [header.split_header(line) for line in LINES]
    for name, value in vars(header).items():
        if isinstance(value, re.Pattern) or type(value).__name__ == "_Lazy":
            monkeypatch.setattr(header, name, _by_regex(value))
    header._ts_cache.clear()
    with_regex = [header.split_header(line) for line in LINES]
    assert with_re == with_regex
    assert sum(h.headed for h in with_re) > 10_000


def _regex_catalog(monkeypatch: pytest.MonkeyPatch) -> Catalog:
    """The catalog with every spec compiled by ``regex`` (fresh copies: a spec caches its
    compiled pattern)."""
    monkeypatch.setattr(catalog, "own_pattern", regex.compile)
    return Catalog([dataclasses.replace(spec) for spec in SPECS])


def _matched(found: tuple[MessageSpec, Any] | None) -> tuple[str, dict[str, Any]] | None:
    return None if found is None else (found[0].name, dict(found[1]))


def test_every_message_matches_the_same_with_either_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    messages = list(dict.fromkeys(header.split_header(line).message for line in LINES))
    with_re = [_matched(CATALOG.match(m)) for m in messages]
    by_regex = _regex_catalog(monkeypatch)
    with_regex = [_matched(by_regex.match(m)) for m in messages]
    differ = [(m, a, b) for m, a, b in zip(messages, with_re, with_regex, strict=True) if a != b]
    assert not differ, differ[:3]
    assert sum(found is not None for found in with_re) > 10_000


def test_an_alias_is_its_field_in_the_place_the_field_first_has() -> None:
    spec = next(s for s in SPECS if s.name == "aborted")
    assert spec.aliased and f"signal{ALIAS}2" in spec.pattern
    fields = spec.convert(spec.compiled.match("Fatal Python error: Aborted").groupdict())
    assert fields == {"signal": "Aborted"}
    fields = spec.convert(spec.compiled.match("/bin/sh: line 1:  42 Killed  python x").groupdict())
    assert list(fields) == ["shell", "pid", "signal", "command"] and fields["signal"] == "Killed"
    assert not next(s for s in SPECS if s.name == "nccl_error").aliased


def test_an_alias_is_a_field_and_its_number_only() -> None:
    """``name__2`` holds field ``name``; a name with ``__`` and no number after it is its own
    field, and every alias in the catalog names a field the same pattern has first."""
    import re

    from sglang_logscope.parse.catalog import _field_of
    from sglang_logscope.parse.messages import SPECS

    assert _field_of(f"free{ALIAS}3") == "free"
    assert _field_of(f"a{ALIAS}b") == f"a{ALIAS}b" and _field_of(f"{ALIAS}2") == f"{ALIAS}2"
    for spec in SPECS:
        groups = re.findall(r"\(\?P<(\w+)>", spec.pattern)
        for group in groups:
            field_name = _field_of(group)
            assert field_name == group or groups.index(field_name) < groups.index(group), group
