"""The helper process (issue 6, target 2): every other piece of a big log split in a second
process gives exactly the records, runs and summary of one process, whatever the helper
does — answers, dies, never starts, or reads other bytes than this process."""

from __future__ import annotations

import io
import os
import select
import sys
from pathlib import Path
from unittest import mock

import pytest

from benchmarks.generate import generate
from sglang_logscope.log.reader import SUMMARY_KINDS, iter_runs
from sglang_logscope.log.runs import stream_runs
from sglang_logscope.parse import _helper
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.bulk import SERIES, Fields, Rows
from sglang_logscope.parse.lines import iter_events, iter_records


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3 MB generated serving log, cut in 16 KiB pieces below: ~190 pieces."""
    return generate(tmp_path_factory.mktemp("gen"), size_mb=3, seed=7, runs=3)["big"]


@pytest.fixture(autouse=True)
def small_pieces() -> object:
    with mock.patch.object(_source, "PIECE_BYTES", 1 << 14):
        yield


STARTED: list[_helper._Worker] = []
_REAL = _helper._Worker


@pytest.fixture(autouse=True)
def ready_helpers() -> object:
    """Helpers that are up before the first piece (a 3 MB log is parsed before a helper
    starts otherwise), recorded in ``STARTED``."""

    def ready(path: str) -> _helper._Worker:
        worker = _REAL(path)
        if worker.process is not None:
            select.select([worker.process.stdout], [], [], 30)
        STARTED.append(worker)
        return worker

    STARTED.clear()
    with mock.patch.object(_helper, "_Worker", ready):
        yield


def _expected(path: Path) -> tuple[list[object], list[object]]:
    events = list(iter_records(path, bulk=False))
    return events, list(stream_runs(events, SUMMARY_KINDS))


def test_a_helper_gives_the_same_events_and_runs(big: Path) -> None:
    events, runs = _expected(big)
    sent: list[bool] = []
    real_send = _REAL.send

    def counting(self: _helper._Worker, offset: int, size: int, fields: Fields) -> bool:
        ok = real_send(self, offset, size, fields)
        sent.append(ok)
        return ok

    taken: list[int] = []
    real_receive = _REAL.receive

    def believed(self: _helper._Worker, data: bytes) -> object:
        cut = real_receive(self, data)  # raises if the helper's bytes were not these
        taken.append(1)
        return cut

    with mock.patch.object(_REAL, "send", counting), mock.patch.object(_REAL, "receive", believed):
        assert list(iter_runs(big, SUMMARY_KINDS, helper=True)) == runs
        got = [
            e
            for r in iter_records(big, helper=True)
            for e in (r.events() if isinstance(r, Rows) else [r])
        ]
    assert got == events
    assert len(STARTED) == 2
    assert sent.count(True) > 20, "the helper took few pieces"
    assert len(taken) == sent.count(True), "a cut of the helper's was not believed"
    assert all(w.process is not None and w.process.poll() is not None for w in STARTED)


def test_a_helper_splits_for_the_series_too(big: Path) -> None:
    """``fields=SERIES`` (the report's layout) through the helper: the same events, and
    the same decode rows' rank and rest columns as this process splits."""
    events, _ = _expected(big)
    got = list(iter_records(big, helper=True, fields=SERIES))
    assert [e for r in got for e in (r.events() if isinstance(r, Rows) else [r])] == events
    rows = [r for r in got if isinstance(r, Rows)]
    assert rows and all(r.layout is r.shape.series for r in rows)
    assert len(STARTED) == 1


def test_a_helper_that_dies_leaves_its_pieces_to_this_process(big: Path) -> None:
    _, runs = _expected(big)
    real_receive = _REAL.receive
    calls = []

    def dying(self: _helper._Worker, data: bytes) -> object:
        calls.append(1)
        if len(calls) == 5:
            assert self.process is not None
            self.process.kill()
            self.process.wait()
        return real_receive(self, data)

    with mock.patch.object(_REAL, "receive", dying):
        assert list(iter_runs(big, SUMMARY_KINDS, helper=True)) == runs
    assert len(calls) >= 5


def test_a_helper_reading_other_bytes_is_not_believed(big: Path) -> None:
    """A file rewritten in place meanwhile: the helper's cut is of other bytes (here: this
    side's fingerprint never matches), so every piece is cut here again."""
    _, runs = _expected(big)
    with mock.patch.object(_helper, "_fingerprint", lambda data: (-1, b"")):
        assert list(iter_runs(big, SUMMARY_KINDS, helper=True)) == runs


def test_a_helper_that_cannot_start_costs_nothing_but_time(big: Path) -> None:
    _, runs = _expected(big)
    with mock.patch.object(sys, "executable", "/nonexistent/python"):
        assert list(iter_runs(big, SUMMARY_KINDS, helper=True)) == runs


def test_leaving_early_stops_the_helper(big: Path) -> None:
    records = iter_records(big, helper=True)
    for _ in zip(range(50), records, strict=False):
        pass
    records.close()
    (worker,) = STARTED
    assert worker.process is not None and worker.process.poll() is not None


def test_streams_and_small_files_get_no_helper(big: Path) -> None:
    assert not _helper.helper_worth_it(None)
    assert not _helper.helper_worth_it(_helper.MIN_BYTES - 1)
    with mock.patch.object(sys, "frozen", True, create=True):
        assert not _helper.helper_worth_it(_helper.MIN_BYTES)
    list(iter_events(io.BytesIO(big.read_bytes())))  # a stream: no file to share
    list(iter_events(big))  # 3 MB: below MIN_BYTES
    assert not STARTED


_PLANT = "import pathlib; pathlib.Path({marker!r}).write_text('ran')\n"


def _plant(folder: Path, marker: Path) -> None:
    """A ``sglang_logscope`` package (as an unpacked log bundle could hold) that leaves
    ``marker`` behind when anything of it is imported."""
    package = folder / "sglang_logscope"
    package.mkdir()
    (package / "__init__.py").write_text(_PLANT.format(marker=str(marker)))
    (package / "parse").mkdir()
    for name in ("parse/__init__.py", "parse/_helper.py"):
        (package / name).write_text(_PLANT.format(marker=str(marker)))


@pytest.mark.parametrize("where", ["cwd", "log folder", "PYTHONPATH"])
def test_the_helper_imports_nothing_from_the_users_folders(
    big: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Issue 20, item 0: a planted ``sglang_logscope/`` in the current directory, beside the
    log or on ``PYTHONPATH`` never runs; the helper still does its work."""
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    log = bundle / "server.log"
    log.write_bytes(big.read_bytes())
    marker = tmp_path / "planted-code-ran"
    _plant(bundle, marker)
    import subprocess

    # The plant works: the old way of starting the helper, from this folder, runs it.
    old = [sys.executable, "-m", "sglang_logscope.parse._helper", str(log)]
    subprocess.run(old, cwd=bundle, input=b"", capture_output=True, timeout=60, check=False)
    assert marker.exists()
    marker.unlink()

    if where == "cwd":
        monkeypatch.chdir(bundle)
    elif where == "PYTHONPATH":
        monkeypatch.setenv("PYTHONPATH", str(bundle))
    _, runs = _expected(log)
    taken: list[int] = []
    real_receive = _REAL.receive

    def believed(self: _helper._Worker, data: bytes) -> object:
        cut = real_receive(self, data)
        taken.append(1)
        return cut

    with mock.patch.object(_REAL, "receive", believed):
        assert (
            list(iter_runs(log if where != "cwd" else "server.log", SUMMARY_KINDS, helper=True))
            == runs
        )
    assert taken, "the helper cut nothing (did it start?)"
    assert not marker.exists()


def test_no_helper_when_no_core_is_free() -> None:
    """At a load above the cores less one the helper competes for the same cores (check's
    streamed end took twice the wall time with it at load 7 on 2 cores): none is started."""
    with mock.patch.object(os, "sched_getaffinity", return_value={0, 1}, create=True):
        with mock.patch.object(os, "getloadavg", return_value=(0.5, 0.5, 0.5)):
            assert _helper.helper_worth_it(_helper.MIN_BYTES) is (os.name == "posix")
        with mock.patch.object(os, "getloadavg", return_value=(1.5, 0.5, 0.5)):
            assert not _helper.helper_worth_it(_helper.MIN_BYTES)
