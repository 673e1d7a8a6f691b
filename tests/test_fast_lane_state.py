"""Whether the C fast lane is in use is said, never silent (issue 33): ``logscope --version``
names the lane's state, and where the module is not built (the pure ``py3-none-any`` wheel)
the first caller that would have used it gets one :class:`SlowPathWarning`, once per process."""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

import pytest

from sglang_logscope.parse import fastscan

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "demo" / "sglang-serve.log"

#: Runs the CLI in a fresh interpreter; ``BLOCK`` first makes the C module unimportable, as in
#: an install of the pure wheel.
BLOCK = "import sys; sys.modules['sglang_logscope.parse._rowscan'] = None; "
RUN = "from sglang_logscope.cli import main; main(sys.argv[1:])"


def _cli(*args: str, built: bool = True) -> subprocess.CompletedProcess[str]:
    code = ("import sys; " if built else BLOCK) + RUN
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=ROOT, check=False
    )


def test_version_says_the_lane_is_on_where_built() -> None:
    out = _cli("--version")
    assert out.returncode == 0
    assert out.stdout.startswith(f"logscope {version('sglang-logscope')} (C fast lane: on (")
    assert "_rowscan." in out.stdout


def test_version_says_the_lane_is_missing_in_a_pure_install() -> None:
    out = _cli("--version", built=False)
    assert out.returncode == 0
    assert "(C fast lane: not built (pure Python; big logs read slower))" in out.stdout


def test_the_slow_path_is_announced_once_per_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastscan, "_rowscan", None)
    monkeypatch.setattr(fastscan.FAST_LANE, "announced", False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        answers = [fastscan.available() for _ in range(3)]
        assert fastscan.rows_summary(b"x", (((b"Decode batch", 0),), -1)) is None
        assert fastscan.block_marks(b"x\n", 0) is None
    assert answers == [False, False, False]
    slow = [w for w in seen if issubclass(w.category, fastscan.SlowPathWarning)]
    assert len(slow) == 1 and str(slow[0].message) == fastscan.SLOW_PATH_NOTE


def test_switching_the_lane_off_is_not_announced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fastscan.FAST_LANE, "on", False)
    monkeypatch.setattr(fastscan.FAST_LANE, "announced", False)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert not fastscan.available()
    assert fastscan.describe() == "C fast lane: off (LOGSCOPE_NO_FAST_LANE)"
    assert not [w for w in seen if issubclass(w.category, fastscan.SlowPathWarning)]


def test_a_pure_install_gives_the_same_answer_and_says_so_once() -> None:
    fast, slow = (
        _cli("summary", "-f", "json", str(LOG)),
        _cli("summary", "-f", "json", str(LOG), built=False),
    )
    assert fast.returncode == slow.returncode == 0
    assert fast.stdout == slow.stdout
    assert fastscan.SLOW_PATH_NOTE not in fast.stderr
    assert slow.stderr.count(fastscan.SLOW_PATH_NOTE) == 1
