"""``launch`` holds its log (issue 29, item 5): the server it starts inherits an exclusive
``flock`` on the log it writes, so a second launch onto that log is refused in one line while
the first server runs; and a stale rotated record never pairs with a newer log.

The server is ``sleep 3600`` (only the files around it matter here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sglang_logscope.errors import LogscopeError
from sglang_logscope.watch import launch

SLEEP = ["sleep", "3600"]  # killed by each test: no timer it could outlast on a busy machine


def _stop(started: launch.Launched) -> None:
    started.process.kill()
    started.process.wait()


def test_a_second_launch_onto_a_served_log_is_refused(tmp_path: Path) -> None:
    """The red team's R25: six launches onto one log all exited 0, shared two logs and left
    two records. Now the second finds the first server's lock and stops before any move."""
    log = tmp_path / "serve.log"
    first = launch.start(SLEEP, log, cwd=tmp_path)
    try:
        log.write_text("the first server's output\n", encoding="utf-8")
        for _ in range(5):
            with pytest.raises(LogscopeError, match="still writes this log"):
                launch.start(SLEEP, log, cwd=tmp_path)
        assert not (tmp_path / "serve.log.1").exists()  # nothing rotated
        record = json.loads(launch.record_path(log).read_text(encoding="utf-8"))
        assert record["pid"] == first.pid
    finally:
        _stop(first)
    second = launch.start(SLEEP, log, cwd=tmp_path)  # the server is gone: its lock with it
    try:
        assert (tmp_path / "serve.log.1").read_text(
            encoding="utf-8"
        ) == "the first server's output\n"
        old = json.loads(launch.record_path(tmp_path / "serve.log.1").read_text(encoding="utf-8"))
        assert old["pid"] == first.pid and second.pid != first.pid
    finally:
        _stop(second)


def test_the_cli_says_it_in_one_line(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    first = launch.start(SLEEP, log, cwd=tmp_path)
    try:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "sglang_logscope",
                "launch",
                "--log",
                str(log),
                "--force",
                "--no-watch",
                "--",
                *SLEEP,
            ],
            capture_output=True,
            text=True,
            timeout=120,  # a hang guard
            check=False,
        )
    finally:
        _stop(first)
    assert done.returncode == 2, done.stdout + done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("logscope: error: ")]
    assert (
        len(errors) == 1 and "still writes this log" in errors[0]
    )  # (after the pre-flight's note)


def test_a_stale_rotated_record_is_never_paired_with_a_newer_log(tmp_path: Path) -> None:
    """The red team's R26: an orphan ``LOG.1.launch.json`` made the rotation stop half-way with
    A's log moved to ``.1`` beside the orphan, and the next launch overwrote A's record."""
    log = tmp_path / "serve.log"
    log.write_text("A LOG\n", encoding="utf-8")
    launch.record_path(log).write_text('{"pid": 111}', encoding="utf-8")
    launch.record_path(tmp_path / "serve.log.1").write_text('{"pid": 999}', encoding="utf-8")
    assert launch.rotate(log, 5) == tmp_path / "serve.log.1"
    assert (tmp_path / "serve.log.1").read_text(encoding="utf-8") == "A LOG\n"
    assert (
        launch.record_path(tmp_path / "serve.log.1").read_text(encoding="utf-8") == '{"pid": 111}'
    )
    # the orphan moved up with its slot, still beside no log
    assert (
        launch.record_path(tmp_path / "serve.log.2").read_text(encoding="utf-8") == '{"pid": 999}'
    )
    assert not (tmp_path / "serve.log.2").exists() and not log.exists()
