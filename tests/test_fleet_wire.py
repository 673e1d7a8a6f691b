"""What a fleet task sends back (issue 30's performance target): each file's summary as its
JSON line and its runs as the fleet table reads them — the header keys grouping reads, the
release clues that are evidence, the release made where the file was read — and the same
table, summaries and JSON lines as the whole runs give; the fleet table groups without
evidence or notes (it shows neither), to the same launches."""

from __future__ import annotations

import io
import json
import pickle
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fleet_scale import RUNS, VARIANT, _variant

from sglang_logscope._text import _CONTROL, _escape, to_json, visible
from sglang_logscope.log import launches as L
from sglang_logscope.log.fleet import (
    FLEET_KINDS,
    TABLE_KEYS,
    Fleet,
    FleetItem,
    fleet_item,
    fleet_table,
    release_of,
)
from sglang_logscope.log.launches import group_launches
from sglang_logscope.log.listing import expand_sources
from sglang_logscope.log.pinning import clues_of, telling_clues
from sglang_logscope.log.reader import iter_runs, summarize_source
from sglang_logscope.log.runs import Run
from sglang_logscope.render.launches import fleet_json

ROOT = Path(__file__).resolve().parent.parent
LOGS = expand_sources([str(ROOT / "fixtures" / "launches")], recursive=True)
REAL = sorted((ROOT / "fixtures" / "real").glob("*/server.log"))[::6]


def _full(path: str) -> tuple[Run, ...]:
    return tuple(iter_runs(path, FLEET_KINDS, helper=False))


@pytest.mark.parametrize("path", LOGS + [str(p) for p in REAL])
def test_a_fleet_item_is_lean_and_says_what_the_whole_runs_say(path: str) -> None:
    item, full = fleet_item(path), _full(path)
    assert item.summary == summarize_source(path)  # the JSON line, parsed when asked
    assert item.summary_json == to_json(summarize_source(path), indent=None)
    assert "\n" not in (item.summary_json or "")
    assert item.releases == tuple(release_of(r) for r in full)
    assert len(item.runs) == len(full)
    for lean, run in zip(item.runs, full, strict=True):
        assert lean.events == ()
        assert lean.sglang_release == run.sglang_release  # the clues that are evidence suffice
        clues = run.release_clues or clues_of(run.events)  # (gathered from every event)
        assert lean.release_clues == telling_clues(clues)
        assert len(lean.release_clues) <= len(clues)
        if run.server_args is None:
            assert lean.server_args is None
            continue
        kept = {k: v for k, v in run.server_args.items() if k in TABLE_KEYS}
        assert lean.server_args == (kept or run.server_args)
        assert (lean.started_at, lean.ended_at, lean.outcome) == (
            run.started_at,
            run.ended_at,
            run.outcome,
        )
        assert lean.failure == run.failure


def test_the_lean_items_are_a_fraction_of_the_whole_and_give_the_same_table() -> None:
    lean = [fleet_item(p) for p in LOGS]
    whole = [FleetItem(i.source, None, _full(i.source)) for i in lean]
    assert fleet_table(lean) == fleet_table(whole)  # (releases made here from whole runs)
    assert fleet_table(lean) == fleet_table([replace(i, releases=()) for i in lean])
    runs_lean = sum(len(pickle.dumps(i.runs)) for i in lean)
    runs_whole = sum(len(pickle.dumps(i.runs)) for i in whole)
    assert runs_lean * 4 < runs_whole


class _Recording(dict[str, Any]):
    """A header that notes every key read of it."""

    read: ClassVar[set[str]] = set()

    def get(self, key: str, default: Any = None) -> Any:
        self.read.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> Any:
        self.read.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.read.add(str(key))
        return super().__contains__(key)


def test_grouping_and_the_table_read_no_header_key_but_the_kept_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _Recording.read = set()
    monkeypatch.setattr(L.Member, "args", property(lambda m: _Recording(m.run.server_args or {})))
    files = [(p, _full(p)) for p in LOGS]
    for launch in group_launches(files):
        launch.to_dict()
    fleet_table([FleetItem(p, None, runs) for p, runs in files])
    assert _Recording.read and _Recording.read <= set(TABLE_KEYS)
    assert {"dist_init_addr", "node_rank", "disaggregation_mode", "tp_size"} <= _Recording.read


def _trimmed(run: Run) -> Run:
    args = run.server_args
    kept = None if args is None else {k: args[k] for k in TABLE_KEYS if k in args} or args
    return replace(run, server_args=kept)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(RUNS) - 1), VARIANT, st.sampled_from([0, 0, 1, 30])),
        min_size=1,
        max_size=14,
    )
)
def test_headers_cut_to_the_kept_keys_group_alike_and_why_false_keeps_the_launches(
    picks: list[tuple[int, dict[str, Any], int]],
) -> None:
    files = [(f"f{i}.log", (_variant(RUNS[n], how, h),)) for i, (n, how, h) in enumerate(picks)]
    cut = [(name, tuple(_trimmed(r) for r in runs)) for name, runs in files]
    full = group_launches(files)
    assert [x.to_dict() for x in group_launches(cut)] == [x.to_dict() for x in full]
    bare = group_launches(files, why=False)
    assert [x.members for x in bare] == [x.members for x in full]
    assert all(x.evidence == () and x.notes == () for x in bare)


def test_json_lines_to_an_ascii_stdout_escape_what_the_line_carries_raw(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = {"schema_version": 2, "log": "/logs/nœud-é.log", "note": "bidi \u202e, del \x7f"}
    item = FleetItem("/logs/nœud-é.log", to_json(doc, indent=None), ())
    assert not (item.summary_json or "").isascii()  # made with the characters as they are
    for encoding, want in (("utf-8", False), ("ascii", True)):
        raw = io.BytesIO()
        out = io.TextIOWrapper(raw, encoding=encoding, write_through=True)
        monkeypatch.setattr(sys, "stdout", out)
        fleet_json(Fleet(iter([item])))
        first = raw.getvalue().decode(encoding).splitlines()[0]
        assert first == to_json(doc, indent=None, ascii_only=want)
        assert json.loads(first) == doc


@given(st.text())
def test_visible_skips_the_regex_only_where_it_would_change_nothing(text: str) -> None:
    assert visible(text) == _CONTROL.sub(_escape, text)
