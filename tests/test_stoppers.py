"""Issue 27 item 2, the three last stoppers: an ``exit`` before the launch (LS038), a command
that fails on no match under ``set -e`` (LS039), a command that never returns (LS053).

Each stops the script where bash runs it; the cause is the first stopper in bash order. The
commands are shaped like the story's (ssh → pct exec → bash -c, docs/reviews/newcomer.md) and
like the scripts in fixtures/commands; the behaviour claimed is checked in a real bash where
that needs no other process and no timing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sglang_logscope import fix_command
from sglang_logscope.command.lint import lint
from sglang_logscope.command.walk import walk
from sglang_logscope.findings import CODES, Severity
from sglang_logscope.staleness.judge import check

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LAUNCHED = "2026-05-09 09:31:05"
LAUNCH = (
    "nohup /root/ml-env/bin/python3 -m sglang.launch_server --model-path /root/models/Qwen3.6-27B "
    "--tp-size 2 --port 30000 > /root/sglang-serve.log 2>&1 &"
)


def _stops(text: str) -> list[tuple[str, str]]:
    """(code, the offending line's start) of each stopping hit, in bash order."""
    hits = sorted((h for h in lint(text) if h.stops), key=lambda h: h.step)
    steps = walk(text).steps
    return [(h.code, steps[h.step].line) for h in hits]


def _story(script: str) -> str:
    return f"ssh root@gpu-box 'pct exec 129 -- bash -c \"{script}\"'"


# ------------------------------------------------------------------ the cause is the first one


def test_an_exit_before_a_self_killing_pkill_is_the_cause(stale_log: Path) -> None:
    text = _story(f"exit 0; pkill -f sglang; {LAUNCH}")
    report = check(stale_log, text, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS038"
    assert report.cause["message"].startswith("`exit 0` ends the shell before the launch")
    assert report.cause["prevents"][0] == "pkill -f sglang"
    assert any(p.startswith("nohup") for p in report.cause["prevents"])
    assert {"LS030", "LS038"} <= {f.code for f in report.findings}  # the pkill stays a finding


def test_a_self_killing_pkill_before_an_exit_is_the_cause(stale_log: Path) -> None:
    text = _story(f"pkill -f sglang; exit; {LAUNCH}")
    report = check(stale_log, text, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS030"
    assert report.cause["prevents"][0] == "exit"
    assert "LS038" in {f.code for f in report.findings}
    assert report.to_dict()["cause"]["code"] == "LS030"


def test_set_e_and_a_pkill_that_matches_nothing(stale_log: Path) -> None:
    """`pkill -9 python3` (no -f: process names) does not match the shell (`bash`)."""
    text = _story(f"set -e; pkill -9 python3; {LAUNCH}")
    report = check(stale_log, text, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS039"
    assert report.cause["message"].startswith("Under `set -e`, `pkill -9 python3`")
    assert report.cause["fix"] == "`pkill -9 python3 || true`"
    assert len(report.cause["prevents"]) == 1 and "launch_server" in report.cause["prevents"][0]


def test_a_tail_f_before_the_launch_is_the_cause(stale_log: Path) -> None:
    text = _story(f"tail -f /root/sglang-serve.log; {LAUNCH}")
    report = check(stale_log, text, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS053"
    assert report.cause["prevents"] == [LAUNCH.replace("> ", ">")]


# ---------------------------------------------------------------------- each form bash reads


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"exit 1\n{LAUNCH}", [("LS038", "exit 1")]),
        (f"#!/bin/bash\nreturn 0 2>/dev/null\n{LAUNCH}", [("LS038", "return 0 2>/dev/null")]),
        (f"bash -ec 'pgrep -f sglang.launch_server; {LAUNCH}'", [("LS039", "pgrep")]),
        (f"set -o errexit\ngrep -q gpu /etc/hosts\n{LAUNCH}", [("LS039", "grep")]),
        (f"#!/bin/bash -e\npkill -9 python3\n{LAUNCH}", [("LS039", "pkill")]),
        (f'ssh gpu1 "set -euo pipefail; killall -q python3; {LAUNCH}"', [("LS039", "killall")]),
        (f"sleep infinity; {LAUNCH}", [("LS053", "sleep infinity")]),
        (f"watch -n1 nvidia-smi\n{LAUNCH}", [("LS053", "watch -n1 nvidia-smi")]),
        (f"journalctl -fu sglang\n{LAUNCH}", [("LS053", "journalctl -fu sglang")]),
        (f"tail -F /var/log/syslog\n{LAUNCH}", [("LS053", "tail -F /var/log/syslog")]),
    ],
)
def test_each_stopper_is_found(text: str, expected: list[tuple[str, str]]) -> None:
    got = _stops(text)
    assert [(c, line.split(" ")[0]) for c, line in got] == [
        (c, line.split(" ")[0]) for c, line in expected
    ]
    hit = next(h for h in lint(text) if h.stops)
    assert CODES[hit.code].severity is Severity.ERROR
    assert any("launch_server" in p for p in hit.prevents)


@pytest.mark.parametrize(
    "text",
    [
        f'[ -n "$MODEL" ] || exit 1; {LAUNCH}',  # a guard: exits only when it fails
        f'if [ -z "$MODEL" ]; then\n  echo no model\n  exit 1\nfi\n{LAUNCH}',
        f"usage() {{\n  echo usage\n  exit 2\n}}\n{LAUNCH}",
        f"(cd /root && exit 0)\n{LAUNCH}",  # exits the subshell only
        f"bash -c 'exit 0'; {LAUNCH}",  # ends that shell, not the one that launches
        f"{LAUNCH}\necho PID=$!\nexit 0",  # after the launch
        f"set -e; pkill -f sglang.launch_server || true; {LAUNCH}",
        f"set -e; pgrep -f sglang.launch_server && exit 1; {LAUNCH}",
        f"set -e; if pgrep -f sglang.launch_server; then echo running; fi; {LAUNCH}",
        f"set -e; set +e; pkill -f sglang.launch_server; {LAUNCH}",
        f"pkill -f sglang.launch_server; {LAUNCH}",  # no set -e: its status 1 is ignored
        f"set -e; ps aux | grep sglang; {LAUNCH}",  # a pipeline's status is its last command's
        f"tail -f /tmp/old.log &\n{LAUNCH}",
        f"timeout 60 tail -f /tmp/old.log | grep -m1 ready\n{LAUNCH}",
        f"sleep 5; {LAUNCH}",
        f"{LAUNCH}\ntail -f /root/sglang-serve.log",  # following the log after the launch
        "python3 -m sglang.launch_server --model-path m --port 30000\necho done",
    ],
)
def test_no_stopper_where_bash_goes_on(text: str) -> None:
    assert [c for c, _ in _stops(text) if c in ("LS038", "LS039", "LS053")] == []


def test_no_new_stopper_in_any_fixture_command() -> None:
    """Every real and demo command in fixtures/: none has an exit, a set -e failure or a wait
    before its launch — except run_sglang.sh, whose `set -ex` then `pkill -9 sglang` really
    does end the script on a machine with no sglang process (checked in bash below)."""
    paths = [
        *sorted((ROOT / "fixtures" / "commands").glob("*.txt")),
        *sorted((ROOT / "fixtures" / "commands").glob("*.sh")),
        *sorted((ROOT / "fixtures" / "commands" / "scripts").glob("*.sh")),
        *sorted(DEMO.glob("command*.txt")),
    ]
    assert len(paths) >= 10
    flagged = {
        p.name for p in paths for h in lint(p.read_text()) if h.code in ("LS038", "LS039", "LS053")
    }
    assert flagged == {"run_sglang.sh"}


# ------------------------------------------------------------------------ what bash really does


def _bash(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=20, check=False
    )


def test_bash_stops_where_the_lint_says() -> None:
    tag = f"zz{os.getpid()}nomatch"
    launch = "python3 -m sglang.launch_server --model-path m > /dev/null 2>&1 &"
    for script, code in [
        (f"exit 0; echo reached; {launch}", "LS038"),
        (f"set -e; grep -q {tag} /dev/null; echo reached; {launch}", "LS039"),
    ]:
        done = _bash(script.replace(launch, "echo launched"))
        assert "reached" not in done.stdout and "launched" not in done.stdout
        assert [c for c, _ in _stops(script)] == [code]
    fixed = fix_command(f"set -e; grep -q {tag} /dev/null; echo reached; {launch}")
    assert "reached" in _bash(fixed.text.replace(launch, "echo launched")).stdout


# ----------------------------------------------------------------------------------- the fixes


@pytest.mark.parametrize(
    ("text", "code", "fixed"),
    [
        (_story(f"exit 0; {LAUNCH}"), "LS038", _story(LAUNCH)),
        (f"exit 1\n{LAUNCH}\n", "LS038", f"{LAUNCH}\n"),
        (
            f"set -e\npkill -f sglang.launch_server\n{LAUNCH}",
            "LS039",
            f"set -e\npkill -f sglang.launch_server || true\n{LAUNCH}",
        ),
        (f"tail -f /root/old.log\n{LAUNCH}", "LS053", LAUNCH),
    ],
)
def test_the_fix_applies_each(text: str, code: str, fixed: str) -> None:
    result = fix_command(text)
    assert result.text == fixed
    assert code in {c.code for c in result.changes} and code not in result.unfixed
    assert [c for c, _ in _stops(result.text)] == []


def test_a_stopper_with_a_redirect_is_listed_unfixed() -> None:
    result = fix_command(f"set -e\ngrep -q sglang /etc/hosts > /dev/null\n{LAUNCH}")
    assert "LS039" in result.unfixed and result.text.startswith("set -e\ngrep -q sglang")


def test_a_self_killing_pkill_under_set_e_gets_or_true() -> None:
    """The fixed pattern no longer matches the shell; under set -e on a clean machine it would
    then match nothing and end the script, so the fix adds `|| true`."""
    text = f"bash -c 'set -e; pkill -f sglang; {LAUNCH}'"
    assert [c for c, _ in _stops(text)] == ["LS030"]
    result = fix_command(text)
    assert "|| true" in result.text and [c for c, _ in _stops(result.text)] == []
    assert "LS030" in {c.code for c in result.changes}
