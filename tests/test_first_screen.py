"""Issue 27: the first screen of ``logscope check`` — the right culprit, the outcome first, dead is
not fresh, one corrected command, a short default."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sglang_logscope.staleness.judge import check

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
STORY = DEMO / "command-story.txt"  # three pkills in one `bash -c` (the reviewer's form A)
LAUNCHED = "2026-05-09 09:31:05"


@pytest.fixture()
def stale_log(tmp_path: Path) -> Path:
    log = tmp_path / "sglang-serve.log"
    log.write_bytes((DEMO / "sglang-serve.log").read_bytes())
    stamp = 1778318312  # 2026-05-09 09:18:32 UTC: before the launch whatever the zone offset
    os.utime(log, (stamp, stamp))
    return log


# ---------------------------------------------------------------- item 2: the culprit


def test_the_cause_is_the_first_pkill_that_kills_the_shell(stale_log: Path) -> None:
    report = check(stale_log, STORY, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS030"
    assert report.cause["message"].startswith("`pkill -9 -f sglang 2>/dev/null`")
    prevents = report.cause["prevents"]
    assert prevents[0] == "pkill -9 -f launch_server 2>/dev/null"  # the later pkills never ran
    assert "rm -f /root/sglang-serve.log" in prevents
    assert any("sglang.launch_server" in p and p.startswith("nohup") for p in prevents)
    first = report.next_steps[0]
    assert first.startswith("Likely root cause (LS030): `pkill -9 -f sglang 2>/dev/null`")
    # the later self-killing pkills are findings, not next steps; no step is said twice
    assert sum(s.count("LS030") for s in report.next_steps) == 1
    assert len(set(report.next_steps)) == len(report.next_steps)
    assert [f.code for f in report.findings].count("LS030") == 3


def test_a_backslash_space_paste_does_not_steal_the_cause(stale_log: Path) -> None:
    """The demo's `\\ ` before each flag would make the launch exit 2, but the pkill before it
    already killed the shell: the launch never ran, so the pkill is the cause."""
    report = check(stale_log, DEMO / "command.txt", LAUNCHED)
    codes = [f.code for f in report.findings]
    assert "LS037" in codes and "LS030" in codes
    assert report.cause is not None and report.cause["code"] == "LS030"
    assert report.to_dict()["cause"]["code"] == "LS030"
    assert not any(s.startswith("Likely root cause (LS037)") for s in report.next_steps)


def test_without_a_killer_the_paste_is_the_cause(stale_log: Path) -> None:
    text = (DEMO / "command.txt").read_text().replace("pkill -9 -f sglang 2>/dev/null;", "")
    report = check(stale_log, text, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS037"
    assert report.cause["prevents"] and "status 2" in report.cause["prevents"][0]
