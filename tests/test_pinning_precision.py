"""Issue 17, pinning precision on the real corpus logs (fixtures/real): a line belongs to the
releases of every template it matches; Python ``warnings`` lines give their ``file.py:LINE``;
a run dated before the release its lines pin to ran a source checkout, said so."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from benchmarks.corpus_targets import NOT_SGLANG, measure, stated_release
from sglang_logscope.log.pinning import release_dates
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.release import choose_release
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.message_index import message_index
from sglang_logscope.parse.versions import release_key

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"
LOGS = sorted(p for p in REAL.iterdir() if (p / "server.log").is_file())
STATED = [p for p in LOGS if stated_release(json.loads((p / "meta.json").read_text("utf-8")))]


def test_053_is_a_source_checkout_between_two_releases() -> None:
    """fixtures/real/053: ``pip show`` says 0.5.6.post2 (a branch checkout); its lines are
    0.5.7's (``Disabling overlap schedule since mamba no_buffer ...`` first printed by 0.5.7),
    its date 2025-12-29 three days before 0.5.7 was on PyPI (2026-01-01): between 0.5.6.post2
    and 0.5.7, a source checkout — read with 0.5.7's table and era."""
    pin = read_log(REAL / "053" / "server.log").runs[-1].sglang_release
    assert pin is not None and pin.source_checkout and pin.consistent
    assert (pin.low, pin.high) == ("0.5.6.post2", "0.5.7")
    assert str(pin) == "0.5.6.post2-0.5.7 (source checkout)"
    date = pin.to_dict()["evidence"][0]
    assert date["kind"] == "date" and "2025-12-29" in date["text"] and "2026-01-01" in date["text"]
    chosen = choose_release(read_log(REAL / "053" / "server.log").runs[-1])
    assert chosen is not None and chosen.source == "checkout"
    assert (chosen.table, chosen.era) == ("0.5.7", "0.5.7")
    assert "a source checkout between 0.5.6.post2 and 0.5.7" in chosen.note


@pytest.mark.parametrize("folder", STATED, ids=lambda p: p.name)
def test_every_stated_release_is_in_its_pinned_range(folder: Path) -> None:
    """Each corpus log whose meta.json states its release exactly: the last run's range holds
    it (issue 17's target; 6 logs, 021 has no range)."""
    row = measure(folder)
    assert row.pin_ok is not False, (row.stated, row.pinned)


def test_seven_logs_state_a_release() -> None:
    """021 states 0.5.13 but none of its lines is dated by the index: no range, not scored."""
    assert [p.name for p in STATED] == ["010", "018", "021", "022", "024", "053", "055"]
    assert measure(REAL / "021").pinned is None


def test_a_line_belongs_to_every_template_it_matches() -> None:
    """fixtures/real/055 (a 0.5.15 wheel): before, one line was dated by its most specific
    template alone and disagreed (7 of 8); every matching template's releases make all 8
    agree, and the range still holds 0.5.15."""
    pin = read_log(REAL / "055" / "server.log").runs[-1].sglang_release
    assert pin is not None and pin.consistent and pin.pieces == 8
    assert release_key(pin.low) <= (0, 5, 15) <= release_key(pin.high)


def test_a_warnings_line_pins_by_its_file_and_line() -> None:
    """fixtures/real/006 (Ascend, 2025-11-07): ``.../sglang/srt/layers/quantization/awq.py:73:
    UserWarning: Only CUDA, HIP and XPU support AWQ currently.`` is where 0.5.4.post1-0.5.5.post2
    call it: with the ``server_args.py:1082`` header the range narrows from 0.4.9-0.5.6."""
    pin = read_log(REAL / "006" / "server.log").runs[-1].sglang_release
    assert pin is not None and (pin.low, pin.high) == ("0.5.4.post1", "0.5.5.post2")
    places = [e.text for e in pin.evidence if e.kind == "source_line"]
    assert any(t.startswith("awq.py:73: Only CUDA, HIP and XPU") for t in places)


def test_no_other_corpus_run_is_called_a_checkout() -> None:
    """Only 053's date precedes its range: every other dated corpus run is not a checkout."""
    called = [
        p.name
        for p in LOGS
        if (runs := read_log(p / "server.log").runs)
        and runs[-1].sglang_release is not None
        and runs[-1].sglang_release.source_checkout
    ]
    assert called == ["053"]


def test_release_dates_cover_the_index_in_order() -> None:
    dates = release_dates()
    releases = message_index().releases
    assert set(releases) <= set(dates)
    assert all(dates[a] <= dates[b] for a, b in itertools.pairwise(releases))


def test_every_headed_unknown_line_is_explained() -> None:
    """Item 4: the headed lines of fixtures/real still read as ``unknown`` are exactly those
    docs/support-matrix.md explains as not SGLang's (a fork's message, CUTLASS's logger)."""
    left = {(p.name, line) for p in LOGS for line, _ in measure(p).unknown_lines}
    assert left == set(NOT_SGLANG)


def test_the_lines_python_prints_under_an_sglang_warning_join_it() -> None:
    """Item 4, headerless lines of SGLang's origin: a ``warnings.warn`` from SGLang's source is
    printed as ``path.py:N: UserWarning: text`` with its source line (and the rest of a
    multi-line text) indented below; they are one event, not ``text`` lines. fixtures/real/006
    (awq.py:73, gguf.py:46) and 065 (launch_server.py:54, its 'Example: sglang serve' line)."""
    events = {e.line: e for e in iter_events(REAL / "006" / "server.log")}
    assert (events[7].end_line, events[9].end_line) == (8, 10)
    assert events[7].fields["call"] == "warnings.warn"
    assert events[7].text.split("\n")[1].strip().startswith("warnings.warn(")
    events = {e.line: e for e in iter_events(REAL / "065" / "server.log")}
    assert events[3].end_line == 5 and "Example: sglang serve" in events[3].text
    assert 4 not in events and 5 not in events


def test_a_raise_in_sglang_pins_by_its_frame() -> None:
    """fixtures/real/015 (a /sgl-workspace source tree, Apr 2025): no line of it pinned before;
    its traceback's last frame is ``cuda_graph_runner.py", line 269`` raising ``Capture cuda
    graph failed: ...``, which 0.4.4.post4-0.4.5 raise from that very line."""
    pin = read_log(REAL / "015" / "server.log").runs[-1].sglang_release
    assert pin is not None and (pin.low, pin.high) == ("0.4.4.post4", "0.4.5")
    (place,) = [e for e in pin.evidence if e.kind == "source_line"]
    assert place.text.startswith("cuda_graph_runner.py:269: Capture cuda graph failed:")
