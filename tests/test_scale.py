"""The fast paths give the full scan's answers (property tests over generated logs)."""

from __future__ import annotations

import io
import random
import shutil
from pathlib import Path

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import generate
from sglang_logscope.log import tail
from sglang_logscope.log.reader import read_log, summarize, summarize_file
from sglang_logscope.log.starters import scan_starters
from sglang_logscope.log.tail import TailLog, read_last_run
from sglang_logscope.parse.catalog import LazyFields
from sglang_logscope.parse.lines import iter_events
from sglang_logscope.staleness.judge import check

ROOT = Path(__file__).resolve().parent.parent
DEMO_CMD = ROOT / "fixtures" / "demo" / "command.txt"
ARGPARSE = (
    "usage: launch_server.py [-h] --model-path MODEL_PATH [--tp-size TP_SIZE]\n"
    "launch_server.py: error: unrecognized arguments: --mem-fraction-statc 0.88\n"
)


def _log(tmp: Path, seed: int, runs: int, extra: str = "") -> Path:
    out = tmp / f"gen{seed}-{runs}"
    if out.exists():
        shutil.rmtree(out)
    paths = generate(out, size_mb=0.25 * runs, seed=seed, runs=runs)
    big = paths["big"]
    if extra:
        with big.open("a", encoding="utf-8") as f:
            f.write(extra)
    return big


def _same_last_run(path: Path, window: int) -> None:
    full = read_log(path)
    fast = read_last_run(path, min_bytes=0, window=window)
    assert len(fast.runs) == len(full.runs)
    a, b = full.runs[-1], fast.runs[-1]
    assert (a.index, a.first_line, a.last_line) == (b.index, b.first_line, b.last_line)
    assert (a.started_at, a.ended_at, a.outcome, a.failure) == (
        b.started_at,
        b.ended_at,
        b.outcome,
        b.failure,
    )
    assert a.server_args == b.server_args
    assert a.events == b.events
    assert a.release_hint == b.release_hint


@settings(
    max_examples=examples(12),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    seed=st.integers(0, 10_000),
    runs=st.integers(1, 5),
    window=st.sampled_from([200, 4096, 65536]),
    tail=st.sampled_from(["", ARGPARSE]),
)
def test_fast_last_run_equals_full_scan(
    tmp_path: Path, seed: int, runs: int, window: int, tail: str
) -> None:
    _same_last_run(_log(tmp_path, seed, runs, tail), window)


def test_fast_path_really_skips_the_start(tmp_path: Path) -> None:
    path = _log(tmp_path, 1, 4)
    fast = read_last_run(path, min_bytes=0, window=4096)
    assert isinstance(fast, TailLog)
    assert fast.scanned_from_line > 1000
    assert all(r.outcome.value == "unknown" for r in fast.runs[:-1])
    assert fast.runs[-1].outcome.value == "crashed"


def test_starters_match_the_full_scans_banners(tmp_path: Path) -> None:
    path = _log(tmp_path, 2, 4, ARGPARSE)
    banners = [
        e.line for e in iter_events(path) if e.kind.value in ("server_args", "argparse_usage")
    ]
    assert [s.line for s in scan_starters(str(path))] == banners


@pytest.mark.parametrize("seed", [3, 4])
def test_check_verdict_is_the_same(
    tmp_path: Path, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _log(tmp_path, seed, 3)
    args = {"expect": DEMO_CMD, "launched_at": "2026-05-09 09:31:05"}
    full = check(path, full_scan=True, **args).to_dict()  # type: ignore[arg-type]
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    fast = check(path, **args).to_dict()  # type: ignore[arg-type]
    assert len(fast["earlier_runs"]) == 2 and fast["earlier_runs"][0]["outcome"] == "unknown"
    for d in (full, fast):
        d.pop("earlier_runs")
        d["runs"] = d["runs"][-1:]  # check schema 3: the earlier runs are in runs too
        d.pop("scan")  # says how each was read
        d["findings"] = [f for f in d["findings"] if f["code"] != "LS011"]
    assert fast == full


def test_small_files_and_streams_take_the_full_scan(tmp_path: Path) -> None:
    path = _log(tmp_path, 5, 2)
    assert not isinstance(read_last_run(path), TailLog)  # under FAST_MIN_BYTES
    with path.open("rb") as f:
        assert not isinstance(read_last_run(f, min_bytes=0), TailLog)  # type: ignore[arg-type]


def test_lazy_fields_equal_eager_fields() -> None:
    line = (
        "[2026-02-23 10:00:25 TP0] Decode batch, #running-req: 32, #token: 9120, token usage: 0.04"
    )
    event = next(iter_events(io.StringIO(line + "\n")))
    assert isinstance(event.fields, LazyFields)
    assert event.fields == {"running_req": 32, "token": 9120, "token_usage": 0.04}
    assert event.to_dict()["fields"]["token"] == 9120


def test_summarize_file_is_the_summary(tmp_path: Path) -> None:
    path = _log(tmp_path, 6, 2)
    assert summarize_file(str(path)) == summarize(read_log(path))
    random.seed(0)
