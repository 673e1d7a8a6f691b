"""A long last run: ``check`` folds its serving lines and still gives the full scan's answer.

Generated logs of both shapes (:mod:`benchmarks.generate`: many runs, and one old crashed run
followed by one long serving run), with a crash in the middle of the long run followed by more
lines, a run that starts without a banner (time going backwards, the banner removed), and an
argparse launch at the end.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from examples import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generate import _TRACEBACK, generate, generate_long
from sglang_logscope.events import EventKind
from sglang_logscope.log import tail
from sglang_logscope.log.reader import read_log
from sglang_logscope.log.tail import CHECK_KINDS, TailLog, read_last_run
from sglang_logscope.memory.from_inputs import budget_from_inputs
from sglang_logscope.memory.from_run import budget_for_run
from sglang_logscope.memory.models import ModelUnknown
from sglang_logscope.staleness.judge import check

ARGPARSE = (
    "usage: launch_server.py [-h] --model-path MODEL_PATH [--tp-size TP_SIZE]\n"
    "launch_server.py: error: unrecognized arguments: --mem-fraction-statc 0.88\n"
)
VARIANTS = ("plain", "crash_mid", "no_banner", "backwards", "argparse")


def _make(tmp: Path, shape: str, seed: int, variant: str) -> tuple[Path, Path]:
    out = tmp / f"{shape}-{seed}-{variant}"
    if out.exists():
        shutil.rmtree(out)
    if shape == "long":
        paths = generate_long(out, size_mb=0.3, seed=seed, hours=2.0)
    else:
        paths = generate(out, size_mb=0.25 * (2 + seed % 3), seed=seed, runs=2 + seed % 3)
    big = paths["big"]
    lines = big.read_text(encoding="utf-8").splitlines()
    rng = random.Random(seed)
    banner = max(i for i, x in enumerate(lines) if "server_args=" in x)
    serving = [i for i, x in enumerate(lines) if "Decode batch" in x and i > banner + 50]
    if variant == "crash_mid" and serving:
        at = rng.choice(serving[: len(serving) // 2 or 1])
        head = lines[at].split("]", 1)[0] + "]"
        lines[at + 1 : at + 1] = _TRACEBACK.format(head=head).splitlines()
    elif variant == "no_banner":
        del lines[banner]
    elif variant == "backwards" and serving:
        at = rng.choice(serving)
        stamp = lines[at][1:20]
        earlier = stamp[:11] + ("00" if stamp[11:13] != "00" else "23") + stamp[13:]
        lines.insert(at + 1, lines[at].replace(stamp, earlier, 1))
    text = "\n".join(lines) + "\n"
    if variant == "argparse":
        text += ARGPARSE
    big.write_text(text, encoding="utf-8")
    return big, paths["cmd"]


def _answer(report: Any) -> dict[str, Any]:
    """The check's JSON without what a tail read knows less precisely by design: the earlier
    runs' outcomes (from their banner only) and the finding that lists them. (Checks here run
    with ``live=False``: this machine's processes and servers are not the log's to compare.)"""
    data = report.to_dict()
    data.pop("earlier_runs")
    data["runs"] = data["runs"][-1:]  # check schema 3: the earlier runs are in runs too
    data.pop("log")
    scan = data.pop("scan")
    assert scan["whole_run_read"]
    data["findings"] = [f for f in data["findings"] if f["code"] != "LS011"]
    return data


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    shape=st.sampled_from(["long", "many"]),
    seed=st.integers(0, 10_000),
    variant=st.sampled_from(VARIANTS),
    window=st.sampled_from([300, 4096, 65536]),
)
def test_check_on_a_long_run_equals_the_full_scan(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    shape: str,
    seed: int,
    variant: str,
    window: int,
) -> None:
    big, cmd = _make(tmp_path, shape, seed, variant)
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(tail, "WINDOW", window)
    full = read_log(big)
    fast = read_last_run(big, keep=CHECK_KINDS, window=window)
    assert len(fast.runs) == len(full.runs)
    a, b = full.runs[-1], fast.runs[-1]
    assert a.to_dict() == b.to_dict()
    assert (a.failure, a.server_args) == (b.failure, b.server_args)
    assert b.events == tuple(e for e in a.events if e.kind in CHECK_KINDS)
    assert _answer(check(big, cmd, live=False)) == _answer(
        check(big, cmd, full_scan=True, live=False)
    )


def test_the_long_run_is_folded_not_built(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The serving lines of the long run become no events: only the others are kept."""
    big, _ = _make(tmp_path, "long", 3, "plain")
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    fast = read_last_run(big, keep=CHECK_KINDS, window=4096)
    assert isinstance(fast, TailLog)
    assert fast.scanned_from_line > 1
    run = fast.runs[-1]
    serving = {EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH, EventKind.HTTP_ACCESS}
    full = read_log(big).runs[-1]
    folded = sum(1 for e in full.events if e.kind in serving)
    assert folded > 500
    assert not any(e.kind in serving for e in run.events)
    assert len(run.events) == len(full.events) - folded


@pytest.mark.parametrize("run", [None, 0])
def test_budget_of_a_logs_run_is_the_full_scans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: int | None
) -> None:
    big, _ = _make(tmp_path, "long", 11, "plain")
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    full = read_log(big).runs[-1 if run is None else run]
    if full.server_args is None:
        pytest.skip("run without a banner")
    got = budget_from_inputs(
        expect_args=None,
        log=str(big),
        run_index=run,
        model_config=None,
        gpus=None,
        gpu_memory=None,
        sglang_version=None,
    )
    if got.fits is None:  # issue 32: a model without evidence is declined, by both paths
        with pytest.raises(ModelUnknown):
            budget_for_run(full)
        return
    assert got.to_dict() == budget_for_run(full).to_dict()


def test_check_says_how_it_read_the_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big, cmd = _make(tmp_path, "long", 4, "plain")
    monkeypatch.setattr(tail, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(tail, "WINDOW", 4096)
    fast = check(big, cmd, live=False).to_dict()["scan"]
    assert fast["parsed_from_line"] > 1 and fast["serving_lines"].startswith("folded")
    assert "starter lines" in fast["earlier_runs"]
    full = check(big, cmd, full_scan=True, live=False).to_dict()["scan"]
    assert full["parsed_from_line"] == 1 and full["serving_lines"] == "kept as events"
