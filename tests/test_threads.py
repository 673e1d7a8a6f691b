"""Issue 33 item 5: a big plain file's pieces read (``os.pread``) and cut (the C lane) on a
thread pool give exactly the runs and summary of one thread, and the threads are really used
and gone once the read ends, early or not."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from benchmarks.generate import generate
from sglang_logscope.log.reader import SUMMARY_KINDS, iter_runs, summarize_file
from sglang_logscope.parse import source as _source
from sglang_logscope.parse import threads as _threads
from sglang_logscope.parse.bulk import SERIES, BulkShape, Rows, fast_lane_ready
from sglang_logscope.parse.lines import iter_records
from sglang_logscope.parse.threads import THREADS


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3 MB generated serving log, cut in 16 KiB pieces below: ~190 pieces."""
    return generate(tmp_path_factory.mktemp("gen"), size_mb=3, seed=11, runs=3)["big"]


@pytest.fixture(autouse=True)
def small_pieces() -> Iterator[None]:
    with (
        mock.patch.object(_source, "PIECE_BYTES", 1 << 14),
        mock.patch.object(_threads, "MIN_BYTES", 0),
    ):
        yield


def _with_threads(count: int) -> Any:
    return mock.patch.object(THREADS, "count", count)


def _cut_threads() -> tuple[Any, set[str]]:
    """A patch of ``BulkShape.cut`` that records the names of the threads it runs on."""
    names: set[str] = set()
    real = BulkShape.cut

    def cut(self: BulkShape, data: bytes, fields: Any) -> Any:
        names.add(threading.current_thread().name)
        return real(self, data, fields)

    return mock.patch.object(BulkShape, "cut", cut), names


def _reading_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("logscope-read")]


def test_the_fast_lane_is_built_here() -> None:
    assert fast_lane_ready()  # else nothing below runs on threads


@pytest.mark.parametrize("count", [2, 4, 8])
def test_summary_on_threads_is_the_summary_of_one_thread(big: Path, count: int) -> None:
    with _with_threads(1):
        one = summarize_file(big)
    patch, names = _cut_threads()
    with _with_threads(count), patch:
        many = summarize_file(big)
    assert json.dumps(many, sort_keys=True) == json.dumps(one, sort_keys=True)
    assert one["runs"] and max(r["last_line"] for r in one["runs"]) > 10_000
    assert names and all(n.startswith("logscope-read") for n in names)
    assert not _reading_threads()


def test_one_thread_reads_in_this_thread(big: Path) -> None:
    patch, names = _cut_threads()
    with _with_threads(1), patch:
        summarize_file(big)
    assert names == {threading.current_thread().name}


@pytest.mark.parametrize("fields", [False, SERIES])
def test_records_on_threads_are_the_records_of_one_thread(big: Path, fields: Any) -> None:
    def records(count: int) -> tuple[list[Any], int]:
        """Each line's event (pieces are cut larger on threads: compared line by line)."""
        with _with_threads(count):
            out, rows = [], 0
            for r in iter_records(big, fields=fields, helper=False):
                if isinstance(r, Rows):
                    rows += len(r)
                    out.extend((e.line, e.kind, e.timestamp, dict(e.fields)) for e in r.events())
                else:
                    out.append((r.line, r.kind, r.text))
            return out, rows

    one, rows = records(1)
    assert rows > 10_000
    assert records(4) == (one, rows)


def test_runs_on_threads_are_the_runs_of_one_thread(big: Path) -> None:
    with _with_threads(1):
        one = list(iter_runs(big, SUMMARY_KINDS, helper=False))
    with _with_threads(4):
        many = list(iter_runs(big, SUMMARY_KINDS, helper=False))
    assert many == one and len(one) >= 3


def test_a_read_stopped_early_leaves_no_thread(big: Path) -> None:
    with _with_threads(4):
        records = iter_records(big, fields=False, helper=False)
        for _ in range(5):
            next(records)
        assert _reading_threads()
        records.close()
    assert not _reading_threads()


def test_small_files_are_read_in_one_thread() -> None:
    with mock.patch.object(_threads, "MIN_BYTES", 16 << 20), _with_threads(8):
        assert THREADS.for_size(1 << 20) == 1
        assert THREADS.for_size(None) == 1
        assert THREADS.for_size(16 << 20) == 8
