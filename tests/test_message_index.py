"""The message index read from SGLang's wheels (issue 17): matching, the parser's use of it,
and its agreement with the typed catalog."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from sglang_logscope import read_log
from sglang_logscope.events import EventKind
from sglang_logscope.parse.catalog import KNOWN_RELEASES
from sglang_logscope.parse.header import split_header
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.parse.message_index import (
    HOLE,
    match_pieces,
    message_index,
    source_fields,
)
from sglang_logscope.parse.messages import SPECS

REAL = Path(__file__).resolve().parent.parent / "fixtures" / "real"

#: Typed catalog entries with sample lines SGLang's own source does not print (another
#: program's output, or an excerpt typed by hand), each with the reason.
NOT_SGLANG_SOURCE = {
    "weight_shards_progress": "tqdm bar (SGLang passes only the description)",
    "weight_multithread_progress": "tqdm bar",
    "cuda_graph_progress": "tqdm bar",
    "piecewise_cuda_graph_progress": "tqdm bar (SGLang passes only the description)",
    "uvicorn_started": "uvicorn",
    "uvicorn_waiting_startup": "uvicorn",
    "uvicorn_startup_complete": "uvicorn",
    "uvicorn_running": "uvicorn's own line (SGLang prints the multi-worker one)",
    "http_access": "uvicorn access log",
    "cuda_oom": "PyTorch's allocator",
    "traceback": "Python's traceback printer",
    "traceback_fragment": "Python's traceback printer",
    "argparse_usage": "argparse",
    "argparse_error": "argparse",
    "port_in_use_bind": "asyncio / uvicorn",
    "port_in_use_torch_store": "torch.distributed",
    "nccl_error": "torch.distributed / NCCL",
    # issue 28: launch failures other programs print
    "environment": "CPython's runpy and import system, the dynamic loader, torch, transformers",
    "aborted": "the shell, the C++ runtime's std::terminate, CPython's faulthandler",
    "port_in_use_zmq": "pyzmq",
    "port_in_use_errno": "CPython's socket module",
    "scheduler_dead": "one sample is a bracketed excerpt typed into an issue",
    "dist_init_end": "one sample is from a branch newer than 0.5.23 ('Init parallel ends' with mem usage)",
    "load_weight_end": "one sample is from a fork ('quant=fp8, fmt=e4m3')",
    "adjust_shared_experts_fusion_off": "one sample is cut short in its source (corpus/059)",
    "weights_leave_no_memory": "one sample is cut short in its source (corpus/025)",
    "prefill_batch": "the 0.2.14 'mixed' sample was assembled from notes: no release prints "
    "#running-req twice (the index has the real 0.2.14-0.3.1 form)",
}


def _sample_matches(line: str) -> bool:
    message = split_header(line.split("\n")[0]).message
    return source_fields(message) is not None


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
def test_typed_catalog_samples_are_in_the_index(spec) -> None:  # type: ignore[no-untyped-def]
    """Every sample of every typed entry is an SGLang message of the index, except in the
    listed entries, each of which has a sample that is not (so the list cannot go stale)."""
    matched = [_sample_matches(s.line) for s in spec.samples]
    if spec.name in NOT_SGLANG_SOURCE:
        assert not all(matched), f"{spec.name}: every sample matches now; drop the exemption"
    else:
        assert all(matched), [s.line for s, ok in zip(spec.samples, matched, strict=True) if not ok]


def test_index_covers_every_release_from_0_1_to_the_newest() -> None:
    index = message_index()
    assert index.releases[0].startswith("0.1.")
    assert set(KNOWN_RELEASES) <= set(index.releases)
    assert len(index) > 10_000


def test_match_pieces_reads_holes_left_to_right() -> None:
    pieces = ("Load weight end. type=", ", avail mem=", " GB")
    assert match_pieces(pieces, "Load weight end. type=Qwen3, avail mem=9.5 GB") == [
        "Qwen3",
        "9.5",
    ]
    assert match_pieces(pieces, "Load weight end. type=Qwen3, avail mem=9.5 MB") is None
    assert match_pieces(("a", "b"), "ab") == [""]
    assert match_pieces(("abc", "bcd"), "abcd") is None  # prefix and suffix may not overlap
    assert match_pieces(("exact",), "exact") == []


_TEXT = st.text(alphabet=st.sampled_from("ab :=,.{}\x00xyz"), max_size=12)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=6), st.lists(_TEXT, min_size=5, max_size=5))
def test_filled_template_matches_and_reconstructs(pieces: list[str], fills: list[str]) -> None:
    """A template filled with any values matches, and the values it reads give the line back."""
    pieces = [p.replace(HOLE, "") for p in pieces]
    fills = [f.replace(HOLE, "") for f in fills]
    line = pieces[0] + "".join(f + p for f, p in zip(fills, pieces[1:], strict=False))
    values = match_pieces(pieces, line)
    assert values is not None
    rebuilt = pieces[0] + "".join(v + p for v, p in zip(values, pieces[1:], strict=True))
    assert rebuilt == line


@settings(max_examples=examples(300), deadline=None)
@given(st.text(max_size=300))
def test_match_never_raises(text: str) -> None:
    found = message_index().match(text)
    if found is not None:
        msg, values = found
        assert len(values) == len(msg.pieces) - 1


def test_adversarial_line_costs_one_find_per_piece() -> None:
    """Holes are lazy wildcards searched forward: a line built to make a backtracking matcher
    explode is answered with one forward scan per middle piece."""
    pieces = ("alpha ", " a", " a", " a", " omega")
    line = "alpha " + " a" * 50_000 + " nope omega"
    calls = 0
    real_find = str.find

    class Counting(str):
        def find(self, *args: object) -> int:  # type: ignore[override]
            nonlocal calls
            calls += 1
            return real_find(self, *args)  # type: ignore[arg-type]

    assert match_pieces(pieces, Counting(line)) is not None
    assert calls == 3
    calls = 0
    assert match_pieces(pieces, Counting("alpha " + "a" * 100_000 + " omega")) is None
    assert calls == 1


def test_unknown_line_becomes_an_sglang_message_with_its_source() -> None:
    line = (
        "[2026-05-20 10:00:00] Sleeping 5 seconds before crash diagnostics to let GPU activity "
        "settle.\n"
    )
    (event,) = iter_events(io.StringIO(line))
    assert event.kind is EventKind.SGLANG_MESSAGE
    assert event.level == "INFO"
    assert event.fields["call"] == "logger.info"
    assert event.fields["sglang_source"].startswith("srt/managers/")
    assert event.fields["sglang_releases"].startswith("0.5.")


def test_raise_text_after_its_exception_type() -> None:
    line = "ValueError: Unknown dataset: my-set\n"
    (event,) = iter_events(io.StringIO(line))
    assert event.kind is EventKind.SGLANG_MESSAGE
    assert event.fields["exc_type"] == "ValueError"
    assert event.fields["call"] == "raise ValueError"


def test_foreign_lines_stay_unknown() -> None:
    lines = "[2026-05-20 10:00:00] my wrapper: restarting the pod in 5 s\nplain words here\n"
    kinds = [e.kind for e in iter_events(io.StringIO(lines))]
    assert kinds == [EventKind.UNKNOWN, EventKind.TEXT]


def test_real_log_lines_outside_the_catalog_are_sglang_messages() -> None:
    """fixtures/real/067 (an 0.5.12 checkout on RDNA4): the tokenizer warnings no typed entry
    covers are SGLang's, from hf_transformers/tokenizer.py, in 0.5.11-0.5.12 only."""
    log = read_log(REAL / "067" / "server.log")
    found = [e for e in log.events if e.kind is EventKind.SGLANG_MESSAGE]
    assert any(
        e.fields["sglang_source"].startswith("srt/utils/hf_transformers/tokenizer.py:")
        and e.fields["sglang_releases"] == "0.5.11-0.5.12.post1"
        for e in found
    )
    assert not [e for e in log.events if e.kind is EventKind.UNKNOWN]


def test_a_line_cut_short_by_its_source_is_still_sglangs() -> None:
    """fixtures/real/033 line 5, 'Capture cuda grap' (the compose log cut the line): the start
    of SGLang's 'Capture cuda graph ...' templates, marked cut, with how many it could be."""
    log = read_log(REAL / "033" / "server.log")
    (event,) = [e for e in log.events if e.line == 5]
    assert event.kind is EventKind.SGLANG_MESSAGE
    assert event.fields["cut"] is True and event.fields["candidates"] > 1
    assert not event.fields["call"].startswith("raise ")
    headless = list(iter_events(io.StringIO("Capture cuda grap\n")))
    assert headless[0].kind is EventKind.TEXT  # only a headed (logger) line may be cut


def test_the_anchor_table_is_the_one_its_rows_make() -> None:
    """The file's ``anchors`` table (read at load instead of built) is what the rows' anchor
    column gives, its row offsets cut out every row as a split of the file would, and an index
    built from split rows and no table gives the same lookups (issue 33, 2: format 5)."""
    import json
    from importlib import resources

    from sglang_logscope.parse.message_index import FORMAT, MessageIndex, anchor_table

    data = resources.files("sglang_logscope").joinpath("data/messages.idx").read_bytes()
    lines = data.rstrip(b"\n").split(b"\n")
    header, files, anchors_table, rows = json.loads(lines[0]), lines[1], lines[2], lines[4:]
    assert header["format"] == FORMAT
    anchors = [row.split(b"\t", 1)[0].decode() for row in rows]
    assert json.loads(anchors_table) == anchor_table(anchors)
    with_table = MessageIndex.from_bytes(data)
    assert list(with_table._rows) == rows and len(with_table) == len(rows)
    assert with_table._rows[len(rows) - 1] == rows[-1] and with_table._rows[1:3] == rows[1:3]
    with pytest.raises(IndexError):
        with_table._rows[len(rows)]
    without = MessageIndex({**header, "files": json.loads(files)}, rows)
    assert with_table.files == without.files
    for line in [
        "Load weight begin. avail mem=22.76 GB",
        "Capture cuda graph begin. This can take up to several minutes. avail mem=3.1 GB",
        "Using default HuggingFace chat template with detected content format: string",
    ]:
        found, expected = with_table.match(line), without.match(line)
        assert found is not None and expected is not None
        assert (found[0].template, found[1]) == (expected[0].template, expected[1])
        assert [m.template for m in with_table.match_all(line)] == [
            m.template for m in without.match_all(line)
        ]
