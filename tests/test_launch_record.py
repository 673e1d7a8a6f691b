"""One reader of the launch record ``LOG.launch.json`` (``timing.launch_record_bytes``) serves
both the check (lenient: a bad record is ignored) and watch/launch (strict: a bad record is an
error in one line)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sglang_logscope.errors import LogscopeError
from sglang_logscope.staleness.judge import _launch_record
from sglang_logscope.timing import launch_record_bytes, launch_record_path
from sglang_logscope.watch.launch import LaunchRecord, read_record, record_path, write_record


def _record(log: Path) -> LaunchRecord:
    return LaunchRecord(
        pid=4242,
        argv=("python", "-m", "sglang.launch_server", "--model-path", "m x"),
        cwd=str(log.parent),
        env={},
        launched_at="2026-12-02T05:00:00+00:00",
        host="here",
        log=str(log),
    )


def test_check_and_watch_read_one_record_through_one_reader(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    assert launch_record_bytes(log) is None and _launch_record(str(log)) == {}
    assert read_record(log) is None
    write_record(_record(log), record_path(log))
    assert record_path(log) == launch_record_path(log) == Path(f"{log}.launch.json")
    assert launch_record_bytes(log) == record_path(log).read_bytes()
    assert read_record(log) == _record(log)
    assert _launch_record(str(log)) == {
        "pid": 4242,
        "launched_at": "2026-12-02T05:00:00+00:00",
        "command": "python -m sglang.launch_server --model-path 'm x'",
    }


def test_a_record_that_is_a_fifo_is_refused_by_both(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    os.mkfifo(launch_record_path(log))
    with pytest.raises(LogscopeError, match="not a FIFO"):
        launch_record_bytes(log)
    with pytest.raises(LogscopeError, match="not a FIFO"):
        read_record(log)
    assert _launch_record(str(log)) == {}
