"""The message catalog: every sample parses to its kind and fields through the full parser."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import regex
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope.events import EventKind
from sglang_logscope.parse.catalog import (
    KEY_LEN,
    KNOWN_RELEASES,
    Catalog,
    MessageSpec,
    Sample,
    literal_prefix,
    parse_release_range,
    read_pairs,
)
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.messages import CATALOG, SPECS
from sglang_logscope.parse.versions import release_key

ROOT = Path(__file__).resolve().parent.parent

SAMPLES = [
    pytest.param(spec, sample, id=f"{spec.name}[{i}]")
    for spec in SPECS
    for i, sample in enumerate(spec.samples)
]

#: Kinds the parser assigns itself; every other kind must have at least one catalog entry.
NO_SPEC = {
    EventKind.UNKNOWN,
    EventKind.TEXT,
    EventKind.SGLANG_MESSAGE,
    EventKind.FOREIGN_TRACEBACK,
}


def subset(expected: Any, actual: Any) -> bool:
    """``expected`` is contained in ``actual`` (dicts recursively, everything else equal)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            k in actual and subset(v, actual[k]) for k, v in expected.items()
        )
    if isinstance(expected, float) and isinstance(actual, float):
        return abs(expected - actual) < 1e-9
    return bool(expected == actual) and type(expected) is type(actual)


@pytest.mark.parametrize(("spec", "sample"), SAMPLES)
def test_sample_parses_to_its_kind_and_fields(spec: MessageSpec, sample: Sample) -> None:
    events = list(iter_events(io.StringIO(sample.line + "\n")))
    assert len(events) == 1, events
    event = events[0]
    assert event.kind is spec.kind, (event.kind, event.message)
    assert subset(dict(sample.fields), dict(event.fields)), dict(event.fields)
    assert event.line == 1 and event.end_line == 1
    if spec.sets:
        assert set(event.fields["sets"]) == set(spec.sets)


@pytest.mark.parametrize(("spec", "sample"), SAMPLES)
def test_sample_is_claimed_by_its_own_entry(spec: MessageSpec, sample: Sample) -> None:
    """No earlier entry shadows this one (checked on the message, as the parser sees it)."""
    event = next(iter_events(io.StringIO(sample.line + "\n")))
    hit = CATALOG.match(event.message)
    if hit is None:  # 'ValueError: <known failure>' outside a traceback, or a traceback block
        assert event.fields.get("exc_type") or spec.block is not None
        return
    if spec.block is None and not event.fields.get("exc_type"):
        assert hit[0].name == spec.name


def test_every_sample_has_a_source() -> None:
    for spec in SPECS:
        assert spec.samples, spec.name
        for sample in spec.samples:
            assert sample.source.strip(), spec.name
            # issue 28: real lines kept in fixtures/ (their source in its README), and the
            # wording of the shell and transformers, which print some launch failures
            assert sample.source.startswith(
                (
                    "corpus/",
                    "sglang ",
                    "python",
                    "torch",
                    "uvicorn",
                    "fixtures/",
                    "bash ",
                    "transformers ",
                )
            )


def test_every_kind_that_needs_an_entry_has_one() -> None:
    missing = [k for k in EventKind if k not in NO_SPEC and not CATALOG.by_kind(k)]
    assert missing == []


def test_names_are_unique_and_duplicates_are_refused() -> None:
    assert len({s.name for s in SPECS}) == len(SPECS)
    with pytest.raises(ValueError, match="duplicate"):
        Catalog([SPECS[0], SPECS[0]])


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_releases_parse_to_a_sane_range(spec: MessageSpec) -> None:
    low, high = parse_release_range(spec.releases)
    assert low <= high, spec.releases
    for bound in (low, high):
        assert bound in ((0,), (999,)) or any(release_key(v) == bound for v in KNOWN_RELEASES)


def test_release_ranges() -> None:
    assert parse_release_range("all") == ((0,), (999,))
    assert parse_release_range("0.5.9") == ((0, 5, 9), (0, 5, 9))
    assert parse_release_range("0.4.6-0.5.3") == ((0, 4, 6), (0, 5, 3))
    assert parse_release_range("0.5.15-") == ((0, 5, 15), (999,))
    assert parse_release_range("-0.2.0") == ((0,), (0, 2, 0))


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_patterns_compile_and_captures_have_known_types(spec: MessageSpec) -> None:
    compiled = regex.compile(spec.pattern)
    names = set(compiled.groupindex)
    assert set(spec.fields) <= names, set(spec.fields) - names
    if spec.pairs is not None:
        assert "_pairs" in names


def test_floating_entries_are_few() -> None:
    """Entries without a literal prefix are tried on every unmatched line: keep them rare."""
    floating = [s for s in SPECS if len(s.prefix) < KEY_LEN]
    assert len(floating) <= 20, [s.name for s in floating]
    assert sum(s.anywhere for s in SPECS) <= 3


def test_literal_prefix() -> None:
    assert (
        literal_prefix(r"Load weight begin\. avail mem=(?P<x>\d+)")
        == "Load weight begin. avail mem="
    )
    assert literal_prefix(r"abc?d") == "ab"
    assert literal_prefix(r"\d+ x") == ""
    assert literal_prefix(r"(?P<a>x)") == ""


def test_read_pairs_splits_sentences_and_commas() -> None:
    pairs = read_pairs(" Time elapsed: 1.01 s. mem usage=0.03 GB. avail mem=2.39 GB.", {})
    assert pairs == {"time_elapsed": 1.01, "mem_usage": 0.03, "avail_mem": 2.39}
    pairs = read_pairs(" This can take up to several minutes. avail mem=2.42 GB", {})
    assert pairs == {"avail_mem": 2.42}
    assert read_pairs(", bs=[1, 2, 4], cuda graph: True", {}) == {
        "bs": [1, 2, 4],
        "cuda_graph": True,
    }


def test_unrecognised_headed_lines_stay_unknown() -> None:
    text = "[2026-05-25 17:43:21 TP0] no SGLang release prints this line\nplain words\n"
    kinds = [e.kind for e in iter_events(io.StringIO(text))]
    assert kinds == [EventKind.UNKNOWN, EventKind.TEXT]


def test_auto_adjust_entries_say_what_they_set() -> None:
    for spec in CATALOG.by_kind(EventKind.ARGS_ADJUSTED):
        if spec.name != "kv_pool_below_context_length":
            assert spec.sets, spec.name


def _load_generator() -> ModuleType:
    path = ROOT / "scripts" / "gen_event_kinds.py"
    module_spec = importlib.util.spec_from_file_location("gen_event_kinds", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


def test_event_kinds_doc_is_in_sync() -> None:
    generator = _load_generator()
    doc = (ROOT / "docs" / "event-kinds.md").read_text(encoding="utf-8")
    assert doc == generator.render(), "run: python scripts/gen_event_kinds.py"
    for spec in SPECS:
        assert f"### {spec.name}\n" in doc


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [
        (r"(?P<b>A|B) only supports a page_size of (?P<p>\d+)", " only supports a page_size of "),
        (r"(?:The DSV4 )?SWA pool cap \((?P<n>\d+) tokens", "SWA pool cap ("),
        (r"(?P<p>\w+) hit an exception: ?(?P<f>.*)", " hit an exception:"),
        (r"[Oo]ut of memory\. Tried", "ut of memory. Tried"),
        (r"(?:NCCL error|ncclInternalError)", ""),
        (r"abc|def", ""),
        (r"x{1,3}yz", "yz"),
    ],
)
def test_required_literal(pattern: str, needle: str) -> None:
    from sglang_logscope.parse.catalog import required_literal

    assert required_literal(pattern) == needle


def test_every_sample_contains_its_specs_needle() -> None:
    """The needle prefilter may only skip messages the regex could never match."""
    from sglang_logscope.parse.header import split_header

    for spec in CATALOG.specs:
        for sample in spec.samples:
            message = split_header(sample.line).message
            assert spec.needle in message or spec.needle in sample.line, (spec.name, spec.needle)


def test_bulk_entries_tried_first_change_no_samples_match() -> None:
    """The catalog tries its bulk entries before the other floating ones (access lines are
    the commonest): for every sample message, and for each bulk entry's samples against every
    other floating pattern, the match is the one of plain catalog order."""
    import dataclasses

    from sglang_logscope.parse.header import split_header

    plain = Catalog([dataclasses.replace(s, bulk=False) for s in SPECS])
    assert [s.name for s in CATALOG.floating][:1] == ["http_access"]
    for spec in SPECS:
        for sample in spec.samples:
            message = split_header(sample.line.lstrip(" ")).message
            ours, theirs = CATALOG.match(message), plain.match(message)
            assert (ours and ours[0].name) == (theirs and theirs[0].name), sample.line
    for bulk in (s for s in SPECS if s.bulk):
        for sample in bulk.samples:
            message = split_header(sample.line.lstrip(" ")).message
            for other in CATALOG.floating:
                if other is not bulk:
                    assert other.compiled.match(message) is None, (bulk.name, other.name)


@settings(max_examples=examples(2000), deadline=None)
@given(
    st.one_of(
        st.text(max_size=12),
        st.from_regex(r"\s?-?[0-9]{0,6}(\.[0-9]{0,4})?\.{0,2}( ?(GB|MB|%|s))?\s?", fullmatch=True),
        st.sampled_from(["0.05", "47", "1.", "1..", ".5", "5.", "00.50", "٣", "1" * 5000, "0.00%"]),
    )
)
def test_auto_value_fast_path_keeps_the_rules(text: str) -> None:
    """``auto_value`` answers plain counts and decimals before its rules: the same value and
    type as the rules give."""
    from sglang_logscope.parse.catalog import _typed_value, auto_value

    ours, rules = auto_value(text), _typed_value(text)
    assert type(ours) is type(rules) and (ours == rules or ours != ours), (text, ours, rules)
