"""A wrapper (container/journald input format) is one row of ``parse/adapters.WRAPPERS``:
detection, reader, the CLI's ``--input-format`` choices and the docs' table all follow it."""

from __future__ import annotations

from pathlib import Path

from sglang_logscope import cli
from sglang_logscope.parse import adapters, header
from sglang_logscope.parse.adapters import WRAPPERS, InputFormat, wrapper_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "user-guide.md"


def test_every_input_format_has_one_wrapper_row() -> None:
    assert sorted(w.format for w in WRAPPERS) == sorted(InputFormat)
    readers = {w.format for w in WRAPPERS if w.reader is not None}
    assert readers == set(InputFormat) - {InputFormat.auto, InputFormat.plain}
    assert readers == {w.format for w in WRAPPERS if w.sniff is not None}


def test_cli_input_format_choices_equal_the_library_list() -> None:
    # the CLI keeps a mirror so that its start-up does not import the parser
    assert [c.value for c in cli.InputFormatChoice] == [f.value for f in InputFormat]
    assert [c.name for c in cli.InputFormatChoice] == [f.name for f in InputFormat]


def test_docs_table_is_generated_from_the_wrappers() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert wrapper_table() in text, "paste parse.adapters.wrapper_table() into docs/user-guide.md"
    for wrapper in WRAPPERS:
        assert f"| `{wrapper.format.value}` |" in text


def test_header_prefixes_are_the_adapters_prefixes() -> None:
    # pinned: the lenient prefix pattern as header.py wrote it before it was derived
    old = (
        r"(?: {1,4}+(?=\[))?"
        r"(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9}+)?+Z? )?"
        r"(?:- [\w.]{1,80}+ - [A-Z]{1,8}+ - )?"
        r"(?:[A-Za-z0-9][\w.-]{0,80}+ {0,40}+\| ?)?"
        r"(?:\((?:[^()\n]{1,200}+)\) ++)?"
    )
    assert header._OUTER.pattern == old
    assert header._OUTER_TS == adapters.OUTER_TIME
    assert len(adapters.OUTER_PREFIXES) == len({what for what, _ in adapters.OUTER_PREFIXES})
