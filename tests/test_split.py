"""One big file parsed in ranges on several processes (issue 33, item 5): the runs, and so the
summary, are those of one parse, whatever the ranges; a range read on the wrong ready guess,
or whose process failed, is read again here; only what can be cut is cut.

Most tests read the ranges in this process (``fork=False``: the same hand-over, each payload
pickled and unpickled as the pipe carries it); the forks themselves run in a child Python
(this test process runs threads: pytest-xdist's, so the library rightly refuses to fork here).
"""

from __future__ import annotations

import gzip
import json
import os
import pickle
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate, generate_long
from sglang_logscope.events import EventKind
from sglang_logscope.log import reader
from sglang_logscope.log.reader import SUMMARY_KINDS, iter_runs, summarize_source
from sglang_logscope.log.runs import Run, stream_runs
from sglang_logscope.parse import source as _source
from sglang_logscope.parse import split
from sglang_logscope.parse.bulk import bulk_shape, fast_lane_ready
from sglang_logscope.parse.fastscan import FAST_LANE
from sglang_logscope.parse.lines import iter_records

ROOT = Path(__file__).resolve().parent.parent
ALL = frozenset(EventKind)

pytestmark = pytest.mark.skipif(not fast_lane_ready(), reason="the C fast lane is not built")


@pytest.fixture(autouse=True)
def _carried(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each in-process batch goes through pickle, as the pipe from a child carries it."""
    own = split._Inline.batches

    def carried(self: split._Inline) -> Iterator[split.Batch]:
        for batch in own(self):
            yield pickle.loads(pickle.dumps(batch))

    monkeypatch.setattr(split._Inline, "batches", carried)


def _one(path: Path, keep: frozenset[EventKind]) -> list[Run]:
    return list(stream_runs(iter_records(path, fields=False, helper=False), keep))


def _ranged(path: Path, keep: frozenset[EventKind], workers: int) -> list[Run]:
    records = split.split_records(path, keep, workers, fork=False)
    assert records is not None, "the file was not cut"
    return list(stream_runs(records, keep))


@pytest.mark.parametrize("shape", ["many", "long"])
@pytest.mark.parametrize("workers", [2, 3, 7])
def test_ranges_give_the_runs_of_one_parse(tmp_path: Path, shape: str, workers: int) -> None:
    paths = (
        generate_long(tmp_path, 0.5, seed=3) if shape == "long" else generate(tmp_path, 0.6, 5, 4)
    )
    big = paths["big"]
    cuts = split.plan(big, workers, fork=False)
    assert cuts is not None and 3 <= len(cuts) <= workers + 1  # (two shares may meet one row)
    for keep in (frozenset(SUMMARY_KINDS), ALL):
        assert _ranged(big, keep, workers) == _one(big, keep)
    ranged = summarize_source(big, helper=False) == _summary_in_ranges(big, workers)
    assert ranged


def _summary_in_ranges(path: Path, workers: int) -> dict[str, Any]:
    from sglang_logscope.log.reader import summary_document
    from sglang_logscope.parse.source import describe

    return summary_document(describe(path), _ranged(path, frozenset(SUMMARY_KINDS), workers))


def test_each_range_starts_at_a_serving_row(tmp_path: Path) -> None:
    big = generate(tmp_path, 0.6, 2, 3)["big"]
    data = big.read_bytes()
    cuts = split.plan(big, 5, fork=False)
    assert cuts is not None and cuts[0] == 0 and cuts[-1] == len(data)
    shape = bulk_shape()
    for at in cuts[1:-1]:
        assert data[at - 1 : at] == b"\n"
        line = data[at : data.index(b"\n", at)]
        cut = shape.cut(line, False)
        assert cut is not None and cut.summary is not None, line  # a plain serving row


#: Lines of every sort around the cuts: serving rows (in order, or a restart's jump back),
#: banners and ready lines (the parser's ready state), tracebacks of SGLang's frames and of
#: none (read differently after ready), warnings with their indented lines, blank runs.
_ROW = "[2026-05-09 {t}] Decode batch, #running-req: 1, #token: 47, token usage: 0.00, gen throughput (token/s): 9.10, #queue-req: 0"
_ACCESS = '[2026-05-09 {t}] INFO:     127.0.0.1:35342 - "GET /health HTTP/1.1" 200 OK'
_BLOCKS = [
    ["[2026-05-09 {t}] server_args=ServerArgs(model_path='m', tp_size=1, port=30000)"],
    ["[2026-05-09 {t}] The server is fired up and ready to roll!"],
    [
        "Traceback (most recent call last):",
        '  File "/usr/lib/python3.12/threading.py", line 9, in run',
        "ValueError: a harness thread failed",
    ],
    [
        "[2026-05-09 {t} TP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/x/sglang/srt/managers/scheduler.py", line 9, in f',
        "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.",
    ],
    ["/x/sglang/srt/utils.py:54: UserWarning: this is deprecated", "  warnings.warn("],
    ["", "   ", ""],
    ["plain text from a script", "Killed"],
    ["[2026-05-09 {t}] Load weight begin. avail mem=78.00 GB"],
    ["[2026-05-09 {t}] Received sigquit from a child process. It usually means the child failed."],
    [],  # rows a few seconds back: a block out of time order
    [],  # rows two hours back: a new run without a banner
]
#: How each block moves the clock (seconds; a banner sets it).
_STEP = {9: -3, 10: -7200}


def _log(picks: list[tuple[int, int]]) -> bytes:
    lines, seconds = [], 20000
    for block, rows in picks:
        seconds = 20000 if block == 0 else seconds + _STEP.get(block, 1)  # (a banner: again)
        seconds = max(seconds, 0)
        stamp = f"{9 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        lines += [line.format(t=stamp) for line in _BLOCKS[block]]
        for r in range(rows):
            lines.append((_ACCESS if r % 5 == 4 else _ROW).format(t=stamp))
    return ("\n".join(lines) + "\n").encode()


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(_BLOCKS) - 1), st.integers(0, 40)), min_size=2, max_size=30
    ),
    st.integers(2, 6),
    st.sampled_from([64, 1 << 18]),
    st.booleans(),
    st.sampled_from([1, 7, split.BATCH_ITEMS]),
)
def test_any_cuts_give_the_runs_of_one_parse(
    tmp_path_factory: pytest.TempPathFactory,
    picks: list[tuple[int, int]],
    workers: int,
    piece: int,
    keep_all: bool,
    batch: int,
) -> None:
    path = tmp_path_factory.mktemp("split") / "server.log"
    path.write_bytes(_log(picks))
    keep = ALL if keep_all else frozenset(SUMMARY_KINDS)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_source, "PIECE_BYTES", piece)
        mp.setattr(split, "BATCH_ITEMS", batch)
        records = split.split_records(path, keep, workers, fork=False)
        if records is None:  # no serving row after any even share: nothing to cut
            return
        assert list(stream_runs(records, keep)) == _one(path, keep)


@pytest.mark.parametrize("batch", [5, split.BATCH_ITEMS])
def test_a_range_read_on_the_wrong_ready_guess_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, batch: int
) -> None:
    """A banner, rows, then a traceback with no SGLang frame before any ready line: one parse
    reads it as the run's exception (not ready yet); the range that starts among the rows
    guessed ready (a foreign traceback) and is read again here, from the batch that read the
    guess on (with small batches, those before it are joined as they came)."""
    path = tmp_path / "server.log"
    path.write_bytes(_log([(0, 700), (2, 100)]))
    guessed: list[bool] = []
    own = split._batches

    def batches(*args: Any) -> Iterator[split.Batch]:
        for got in own(*args):
            guessed.append(got[3])
            yield got

    monkeypatch.setattr(split, "_batches", batches)
    monkeypatch.setattr(split, "BATCH_ITEMS", batch)
    runs = _ranged(path, frozenset(SUMMARY_KINDS), 2)
    assert True in guessed and (batch == split.BATCH_ITEMS or guessed[0] is False)
    assert runs == _one(path, frozenset(SUMMARY_KINDS))
    kinds = {e.kind for r in _ranged(path, ALL, 2) for e in r.events}
    assert EventKind.EXCEPTION in kinds and EventKind.FOREIGN_TRACEBACK not in kinds


def test_a_child_holds_one_batch_not_its_range(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A range of text lines is as many events: they leave in batches of ``BATCH_ITEMS``
    records, so a child's memory follows a batch (the pipe waits for the reader)."""
    path = tmp_path / "server.log"
    path.write_bytes(_log([(6, 300)] * 40 + [(0, 300)] * 2 + [(6, 2)] * 1500 + [(7, 300)]))
    sizes: list[int] = []
    own = split._batches

    def batches(*args: Any) -> Iterator[split.Batch]:
        for got in own(*args):
            sizes.append(len(got[0]))
            yield got

    monkeypatch.setattr(split, "_batches", batches)
    monkeypatch.setattr(split, "BATCH_ITEMS", 100)
    assert _ranged(path, ALL, 3) == _one(path, ALL)
    assert len(sizes) > 20 and max(sizes) < 100 + 300  # (a batch ends after a whole record)


@pytest.mark.parametrize("after", [0, 1, 3])
def test_a_range_whose_reader_failed_is_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: int
) -> None:
    """A child that fails before its first batch, or after some: the rest is read here."""
    big = generate(tmp_path, 0.6, 1, 3)["big"]
    own = split._batches

    def failing(name: str, lo: int, *rest: Any) -> Iterator[split.Batch]:
        for i, got in enumerate(own(name, lo, *rest)):
            if i == after:
                raise MemoryError("a child that died")
            yield got

    monkeypatch.setattr(split, "_batches", failing)
    monkeypatch.setattr(split, "BATCH_ITEMS", 3)
    for keep in (frozenset(SUMMARY_KINDS), ALL):
        assert _ranged(big, keep, 4) == _one(big, keep)


def test_only_a_plain_local_file_with_the_lane_in_one_thread_is_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = generate(tmp_path, 0.6, 1, 3)["big"]
    assert split.plan(big, 3, fork=False) is not None
    packed = tmp_path / "big.log.gz"
    packed.write_bytes(gzip.compress(big.read_bytes()))
    docker = tmp_path / "docker.log"
    docker.write_text(
        "".join(
            f"2026-05-09T09:00:{i % 60:02d}.000000000Z {line}\n"
            for i, line in enumerate(big.read_text().splitlines()[:3000])
        )
    )
    for refused in (packed, docker, "-", "s3://bucket/big.log"):
        assert split.plan(refused, 3, fork=False) is None, refused
    assert split.plan(big, None, fork=False) is None  # auto: 0.6 MB is below a range's least
    assert split.plan(big, 1, fork=False) is None
    monkeypatch.setattr(split, "process_threads", lambda seen=1: 2)
    assert split.plan(big, 3) is None  # a fork beside another thread can deadlock
    assert split.plan(big, 3, fork=False) is not None
    monkeypatch.setattr(FAST_LANE, "on", False)
    assert split.plan(big, 3, fork=False) is None


def test_helper_false_and_one_worker_read_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = generate(tmp_path, 0.6, 1, 3)["big"]
    monkeypatch.setattr(split, "process_threads", lambda seen=1: 1)  # (as a CLI process)

    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("cut")

    monkeypatch.setattr(reader, "split_records", never)  # (the name iter_runs calls)
    assert list(iter_runs(big, helper=False, workers=4)) == list(iter_runs(big, workers=1))
    with pytest.raises(AssertionError, match="cut"):
        list(iter_runs(big, workers=4))  # (the patch is where iter_runs looks)


_FORKED = textwrap.dedent(
    """
    import json, os, sys
    from sglang_logscope.log.reader import summarize_source
    from sglang_logscope.parse import split
    parent, started, here = os.getpid(), [], []
    own_start, own_batches, own_read = split._Child.start, split._batches, split._read

    def read(name, lo, *rest):
        if os.getpid() == parent and lo > 0:
            here.append(lo)  # a range (the rest of one) read in this process
        return own_read(name, lo, *rest)

    def start(*args):
        child = own_start(*args)
        started.append(child is not None)
        return child

    def batches(name, lo, *rest):
        for i, batch in enumerate(own_batches(name, lo, *rest)):
            if sys.argv[2] == "fail" and os.getpid() != parent and i == 1:
                os._exit(9)  # a child that dies without a word, after its first batch
            yield batch

    split._Child.start, split._batches, split._read = start, batches, read
    split.BATCH_ITEMS = 8
    doc = summarize_source(sys.argv[1], workers=3)
    print(json.dumps({"doc": doc, "started": started, "here": here}, default=str))
    """
)


@pytest.mark.parametrize("mode", ["ok", "fail"])
def test_forked_ranges_give_the_summary_of_one_process(tmp_path: Path, mode: str) -> None:
    big = generate(tmp_path, 0.6, 6, 4)["big"]
    done = subprocess.run(
        [sys.executable, "-c", _FORKED, str(big), mode],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "AWS_EC2_METADATA_DISABLED": "true"},
    )
    got = json.loads(done.stdout)
    assert got["started"] == [True, True]  # two children forked (this process reads the first)
    assert bool(got["here"]) is (mode == "fail")
    one = json.loads(json.dumps(summarize_source(big, helper=False), default=str))
    assert got["doc"] == one


def test_summary_jobs_on_the_cli_prints_what_one_process_prints(tmp_path: Path) -> None:
    big = generate_long(tmp_path, 0.5, seed=8)["big"]
    out = [
        subprocess.run(
            [
                sys.executable,
                "-m",
                "sglang_logscope",
                "summary",
                "-j",
                jobs,
                str(big),
                "-f",
                "json",
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "AWS_EC2_METADATA_DISABLED": "true", "NO_COLOR": "1"},
        )
        for jobs in ("1", "4")
    ]
    assert [o.returncode for o in out] == [0, 0]
    assert out[0].stdout == out[1].stdout and json.loads(out[0].stdout)["runs"]
