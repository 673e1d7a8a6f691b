"""A lean Log (bytes and columns, events made on access) equals the eager one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.generate import generate, generate_long
from sglang_logscope.events import EventKind
from sglang_logscope.log import lazy, reader
from sglang_logscope.log.lazy import LazyEvents
from sglang_logscope.log.reader import read_log, summarize

ROOT = Path(__file__).resolve().parent.parent
REAL = sorted((ROOT / "fixtures" / "real").glob("*/server.log"))[::4]
KINDS = [EventKind.DECODE_BATCH, EventKind.TOKEN_SUMMARY, EventKind.SCHEDULER_EXCEPTION]


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[reader.Log, reader.Log]:
    monkeypatch.setattr(reader, "LEAN_MIN_BYTES", 1 << 60)
    eager = read_log(path, helper=False)
    monkeypatch.setattr(reader, "LEAN_MIN_BYTES", 0)
    lean = read_log(path)
    assert isinstance(lean.events, LazyEvents) and isinstance(eager.events, tuple)
    return eager, lean


def _same(eager: reader.Log, lean: reader.Log) -> None:
    assert len(lean.events) == len(eager.events)
    assert list(lean.events) == list(eager.events)
    assert lean.runs == eager.runs
    assert summarize(lean) == summarize(eager)
    assert lean._repr_html_() == eager._repr_html_()
    assert list(lean.iter_kind(*KINDS)) == list(eager.iter_kind(*KINDS))
    for run_a, run_b in zip(eager.runs, lean.runs, strict=True):
        assert run_b.of_kind(EventKind.LOAD_WEIGHT_BEGIN) == run_a.of_kind(
            EventKind.LOAD_WEIGHT_BEGIN
        )
        assert run_b.first(EventKind.SERVER_ARGS) == run_a.first(EventKind.SERVER_ARGS)
    n = len(eager.events)
    for i in (0, n // 3, n - 1, -1, -n):
        assert lean.events[i] == eager.events[i]
    assert list(lean.events[n // 4 : n // 2]) == list(eager.events[n // 4 : n // 2])
    with pytest.raises(IndexError):
        lean.events[n]


@pytest.mark.parametrize("window", [7, 2048])
@pytest.mark.parametrize("shape", ["long", "many"])
def test_lean_log_equals_the_eager_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, window: int
) -> None:
    monkeypatch.setattr(lazy, "WINDOW", window)
    out = tmp_path / shape
    paths = generate_long(out, 0.5, seed=2) if shape == "long" else generate(out, 0.6, seed=2)
    big = paths["big"]
    with big.open("a", encoding="utf-8") as f:  # a traceback, CRLF, NUL and no final newline
        f.write("Traceback (most recent call last):\n  File 'x.py', line 1\nValueError: bad\r\n")
        f.write("[2026-05-25 17:43:55 TP0] nul \x00 here\nlast line without newline")
    eager, lean = _both(big, monkeypatch)
    _same(eager, lean)
    frame = lean.to_dataframe([EventKind.DECODE_BATCH], messages=False)
    assert frame.equals(eager.to_dataframe([EventKind.DECODE_BATCH], messages=False))
    shutil.rmtree(out)


@pytest.mark.parametrize("path", REAL, ids=[p.parent.name for p in REAL])
def test_lean_log_equals_the_eager_one_on_real_logs(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lazy, "WINDOW", 64)
    _same(*_both(path, monkeypatch))
