"""Scenarios for `check`: every verdict, the issue-4 story, and the failure paths."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from sglang_logscope.log.runs import Outcome
from sglang_logscope.staleness.argdiff import DiffStatus
from sglang_logscope.staleness.judge import check
from sglang_logscope.staleness.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LOG = DEMO / "sglang-serve.log"
ONE_LINE = DEMO / "command.txt"
MULTI_LINE = DEMO / "command-multiline.txt"
LAUNCHED = "2026-05-09 09:31:05"

# A fresh run appended after the stale one (>>): the banner has the intended values.
FRESH_RUN = """\
[2026-05-09 09:31:20] WARNING server_args.py:1761: Disabling radix cache since speculative decoding for Qwen3_5ForConditionalGeneration is not supported with radix cache yet.
[2026-05-09 09:31:20] server_args=ServerArgs(model_path='/root/models/Qwen3.6-27B', tp_size=2, mem_fraction_static=0.88, context_length=32768, mamba_full_memory_ratio=0.5, speculative_algorithm='EAGLE', speculative_num_steps=3, speculative_eagle_topk=1, speculative_num_draft_tokens=4, max_running_requests=16, disable_radix_cache=True, host='0.0.0.0', port=30000)
[2026-05-09 09:31:28 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-09 09:32:07 TP0] Load weight end. elapsed=38.72 s, type=Qwen3_5ForConditionalGeneration, dtype=torch.bfloat16, avail mem=21.45 GB, mem usage=25.55 GB.
[2026-05-09 09:32:40] The server is fired up and ready to roll!
"""

ARGPARSE_TAIL = """\
usage: launch_server.py [-h] --model-path MODEL_PATH [--tokenizer-path TOKENIZER_PATH]
                        [--host HOST] [--port PORT]
launch_server.py: error: unrecognized arguments: --mem-fraction-statc 0.88
"""


def _copy(tmp_path: Path, extra: str = "", mtime: str | None = None) -> Path:
    target = tmp_path / "sglang-serve.log"
    shutil.copyfile(LOG, target)
    if extra:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(extra)
    if mtime is not None:
        stamp = datetime.fromisoformat(mtime).timestamp()
        os.utime(target, (stamp, stamp))
    return target


def _diff(report: object, arg: str) -> DiffStatus:
    for d in report.arg_diff:  # type: ignore[attr-defined]
        if d.arg == arg:
            return d.status  # type: ignore[no-any-return]
    raise AssertionError(f"no diff for {arg}")


@pytest.mark.parametrize("command", [ONE_LINE, MULTI_LINE], ids=["one-line-paste", "multi-line"])
def test_story_is_stale_with_launch_time(command: Path) -> None:
    report = check(LOG, expect=command, launched_at=LAUNCHED)
    assert report.verdict is Verdict.STALE
    assert report.exit_code == 1
    assert report.run is not None and report.run.started_at == datetime(2026, 5, 9, 9, 17, 42)
    assert report.outcome is Outcome.CRASHED
    assert report.run.failure is not None
    assert report.run.failure.effective == {"mem_fraction_static": 0.85}
    for arg in ("mem_fraction_static", "context_length", "mamba_full_memory_ratio"):
        assert _diff(report, arg) is DiffStatus.UNEXPLAINED
    assert _diff(report, "speculative_algorithm") is DiffStatus.EXPLAINED
    codes = {f.code for f in report.findings}
    assert "LS001" in codes and "LS003" in codes
    assert "0.85" in report.headline and "STALE" in report.headline


def test_story_without_launch_time_is_a_mismatch() -> None:
    report = check(LOG, expect=ONE_LINE)
    assert report.verdict is Verdict.MISMATCH
    assert report.exit_code == 1
    assert {f.code for f in report.findings} >= {"LS003", "LS009"}


def test_mtime_before_launch_says_nothing_was_written(tmp_path: Path) -> None:
    log = _copy(tmp_path, mtime="2026-05-09T09:18:32")
    report = check(log, expect=ONE_LINE, launched_at=LAUNCHED)
    assert report.verdict is Verdict.STALE
    assert "LS002" in {f.code for f in report.findings}


def test_appended_fresh_run_is_fresh_and_ready(tmp_path: Path) -> None:
    log = _copy(tmp_path, FRESH_RUN)
    report = check(log, expect=MULTI_LINE, launched_at=LAUNCHED)
    assert len(report.runs) == 2
    assert report.verdict is Verdict.FRESH
    assert report.outcome is Outcome.READY
    assert report.exit_code == 0
    assert not [d for d in report.arg_diff if d.status is DiffStatus.UNEXPLAINED]
    assert "LS011" in {f.code for f in report.findings}


def test_relaunch_that_died_at_argparse_is_fresh_and_crashed(tmp_path: Path) -> None:
    log = _copy(tmp_path, ARGPARSE_TAIL)
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "nohup python3 -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp-size 2 "
        "--mem-fraction-statc 0.88 > sglang-serve.log 2>&1 &\n"
    )
    report = check(log, expect=cmd)
    assert report.verdict is Verdict.FRESH
    assert report.outcome is Outcome.CRASHED
    assert report.run is not None and report.run.failure is not None
    assert report.run.failure.kind.value == "argparse_error"
    codes = {f.code for f in report.findings}
    assert {"LS006", "LS007"} <= codes
    assert report.exit_code == 1
    suggestion = " ".join(f.message for f in report.findings if f.code == "LS006")
    assert "--mem-fraction-static" in suggestion


def test_abbreviated_flags_and_env_prefix_match_the_run(tmp_path: Path) -> None:
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "CUDA_VISIBLE_DEVICES=0,1 SGLANG_LOG_MS=0 python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B "
        "--tp 2 --mem-frac 0.85 --context-len 65536 --speculative-algo NEXTN --speculative-num-steps 3 "
        "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4\n"
    )
    report = check(LOG, expect=cmd, launched_at="09:17:30")
    assert report.verdict is Verdict.FRESH
    assert set(report.matched_args) >= {"tp_size", "mem_fraction_static", "context_length"}
    assert _diff(report, "speculative_algorithm") is DiffStatus.EXPLAINED
    assert report.exit_code == 1  # fresh, but the run crashed


def test_same_args_but_older_banner_is_stale_by_time_alone(tmp_path: Path) -> None:
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp-size 2 "
        "--mem-fraction-static 0.85 --context-length 65536\n"
    )
    report = check(LOG, expect=cmd, launched_at="09:31")
    assert report.verdict is Verdict.STALE
    assert not [d for d in report.arg_diff if d.status is DiffStatus.UNEXPLAINED]


def test_whole_hour_gap_with_zoned_launch_time_is_a_timezone_question() -> None:
    # Launched 07:17:30 UTC; the server's clock is UTC+2, so its run starts 09:17:42 local.
    report = check(LOG, launched_at="2026-05-09T07:17:30+00:00")
    assert report.verdict is Verdict.INCONCLUSIVE
    assert "LS008" in {f.code for f in report.findings}
    with_zone = check(LOG, launched_at="2026-05-09T07:17:30+00:00", log_tz="+02:00")
    assert with_zone.verdict is Verdict.FRESH
    stale = check(LOG, launched_at="2026-05-09T07:31:05+00:00", log_tz="+02:00")
    assert stale.verdict is Verdict.STALE


def test_without_expect_args_still_reports_runs_and_outcome() -> None:
    report = check(LOG)
    assert report.verdict is Verdict.INCONCLUSIVE
    assert report.outcome is Outcome.CRASHED
    data = report.to_dict()
    # check schema 3 (issue 33): ``runs`` is the array of runs (it was the count, 1 here)
    assert data["run_count"] == len(data["runs"]) == 1 and data["run"]["first_line"] == 1
    assert data["runs"][0]["first_line"] == 1 and data["runs"][0]["outcome"] == "crashed"


def test_empty_log_has_no_run(tmp_path: Path) -> None:
    empty = tmp_path / "empty.log"
    empty.write_text("")
    report = check(empty, expect=ONE_LINE)
    assert report.verdict is Verdict.NO_RUN
    assert report.exit_code == 1


def test_json_interface_keys() -> None:
    data = check(LOG, expect=ONE_LINE, launched_at=LAUNCHED).to_dict()
    assert data["schema_version"] == 3  # check's own version (issue 33: runs is an array)
    for key in (
        "log",
        "verdict",
        "outcome",
        "failure",
        "runs",
        "run",
        "arg_diff",
        "findings",
        "oom",
        "budget",
    ):
        assert key in data
    assert set(data["run"]) >= {
        "index",
        "started_at",
        "ended_at",
        "first_line",
        "last_line",
        "sglang_version_hint",
    }
    assert set(data["failure"]) == {"kind", "message", "line", "effective"}
    assert set(data["arg_diff"][0]) >= {
        "arg",
        "intended",
        "effective",
        "status",
        "explanation",
        "evidence_line",
    }
    assert set(data["findings"][0]) >= {"code", "severity", "message"}
    json.dumps(data)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_cli_check_never_modifies_the_log_and_exits_1_on_stale(tmp_path: Path) -> None:
    log = _copy(tmp_path)
    before = hashlib.sha256(log.read_bytes()).hexdigest()
    mtime = log.stat().st_mtime
    result = _cli("check", "--expect-args", str(ONE_LINE), "--launched-at", LAUNCHED, str(log))
    assert result.returncode == 1, result.stderr
    assert "STALE" in result.stdout and "mem_fraction_static" in result.stdout
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before
    assert log.stat().st_mtime == mtime
    as_json = _cli(
        "check",
        "--format",
        "json",
        "--expect-args",
        str(ONE_LINE),
        "--launched-at",
        LAUNCHED,
        str(log),
    )
    assert json.loads(as_json.stdout)["verdict"] == "stale"


def test_cli_check_fresh_exits_0(tmp_path: Path) -> None:
    log = _copy(tmp_path, FRESH_RUN)
    result = _cli("check", "-e", str(MULTI_LINE), "--launched-at", LAUNCHED, str(log))
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["check", "/no/such/file.log"],
        ["check"],
        ["check", "--no-such-flag", str(LOG)],
        ["check", "--format", "yaml", str(LOG)],
        ["check", "--launched-at", "not a time at all", str(LOG)],
        ["check", "--log-tz", "Mars/Olympus", "--launched-at", "09:00", str(LOG)],
        ["check", "--expect-args", "/no/such/cmd.txt", str(LOG)],
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(args: list[str]) -> None:
    result = _cli(*args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_story_oom_is_a_ghost_and_the_intended_command_would_not_fit_either() -> None:
    report = check(LOG, expect=ONE_LINE, launched_at=LAUNCHED)
    assert report.oom is not None and report.oom["verdict"] == "ghost"
    assert report.budget is not None
    # SGLang 0.5.9 (from the error text), radix off + 48 requests + 4 draft tokens: real shortfall.
    assert report.budget.sglang_version == "0.5.9"
    assert report.budget.fits is False
    assert 1.0 < report.budget.shortfall_gib < 1.8
    assert {"LS020", "LS024"} <= {f.code for f in report.findings}
    changes = [s.change for s in report.budget.suggestions]
    assert any(c.startswith("--max-running-requests") for c in changes)


def test_banner_less_run_reveals_tp_size_and_context_length(tmp_path: Path) -> None:
    # fixtures/real/054: a real Qwen3.5-9B tp-2 log excerpt with no server_args line.
    log = ROOT / "fixtures" / "real" / "054" / "server.log"
    same = check(log, expect=ROOT / "fixtures" / "real" / "054" / "command.txt")
    assert {"tp_size", "context_length"} <= set(same.matched_args)
    assert "mem_fraction_static" in same.unverified_args
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "python -m sglang.launch_server --model-path Qwen/Qwen3.5-9B --tp-size 4 --context-length 262144\n"
    )
    other = check(log, expect=cmd)
    assert other.verdict is Verdict.MISMATCH
    assert _diff(other, "tp_size") is DiffStatus.UNEXPLAINED


def test_the_verdict_word_is_said_once_in_the_text() -> None:
    """The headline already begins with the verdict (``STALE: …``); the text view styles that
    word instead of printing a badge before it (it read ``STALE  STALE: …``)."""
    from sglang_logscope.render.check_screen import verdict_line

    assert verdict_line("stale", "STALE: the last run started x.").plain == (
        "STALE: the last run started x."
    )
    assert verdict_line("fresh", "FRESH, CRASHED: your launch failed.").plain.count("FRESH") == 1
    assert verdict_line("no_run", "No SGLang run in this log.").plain == (
        "NO_RUN  No SGLang run in this log."
    )
