"""``launch`` on hostile file systems (issue 20, item 5): no symlink is followed, nothing is
overwritten, two launches onto one log cannot interleave, a full disk or a permission error
is one line — and a server whose launch could not be recorded is stopped, not left running.

The server is ``sleep 3600`` (what runs does not matter here, only the files around it)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

import pytest

from sglang_logscope.errors import LogscopeError
from sglang_logscope.watch import launch
from sglang_logscope.watch.loop import pid_alive

SLEEP = ["sleep", "3600"]  # killed by each test: no timer it could outlast on a busy machine


def _stop(started: launch.Launched) -> None:
    started.process.kill()
    started.process.wait()


def test_a_dangling_log_symlink_is_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "victim"
    (tmp_path / "elsewhere").mkdir()
    log = tmp_path / "server.log"
    log.symlink_to(target)
    with pytest.raises(LogscopeError, match="symbolic link"):
        launch.start(SLEEP, log, cwd=tmp_path)
    assert not target.exists()


def test_a_symlink_loop_is_one_line(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.symlink_to(log)  # ELOOP
    with pytest.raises(LogscopeError) as caught:
        launch.start(SLEEP, log, cwd=tmp_path)
    assert "\n" not in str(caught.value)


def test_a_symlink_planted_at_the_records_old_temporary_name_is_not_followed(
    tmp_path: Path,
) -> None:
    """The temporary name was ``.LOG.launch.json.PID.tmp``: guessable, and followed. It is
    now random and created with O_EXCL."""
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    log = tmp_path / "server.log"
    for pid in range(os.getpid() - 50, os.getpid() + 50):
        (tmp_path / f".server.log.launch.json.{pid}.tmp").symlink_to(victim)
    started = launch.start(SLEEP, log, cwd=tmp_path)
    try:
        assert victim.read_text(encoding="utf-8") == "precious\n"
        assert launch.read_record(log) is not None
    finally:
        _stop(started)


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EACCES])
def test_a_record_that_cannot_be_written_stops_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    started_pids: list[int] = []
    real_popen = launch.subprocess.Popen

    def popen(*args: object, **kwargs: object) -> object:
        process = real_popen(*args, **kwargs)  # type: ignore[call-overload]
        started_pids.append(process.pid)
        return process

    def full(*_: object, **__: object) -> tuple[int, str]:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(launch.subprocess, "Popen", popen)
    monkeypatch.setattr(tempfile, "mkstemp", full)
    with pytest.raises(LogscopeError) as caught:
        launch.start(SLEEP, tmp_path / "server.log", cwd=tmp_path)
    message = str(caught.value)
    assert "\n" not in message and os.strerror(code) in message and "stopped the server" in message
    (pid,) = started_pids
    assert not pid_alive(pid)


def test_two_launches_onto_one_log_cannot_interleave(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with launch.launch_lock(log), pytest.raises(LogscopeError, match="another logscope launch"):
        launch.start(SLEEP, log, cwd=tmp_path)
    started = launch.start(SLEEP, log, cwd=tmp_path)  # the lock is free again
    _stop(started)


def test_rotation_never_overwrites_a_log_that_appears_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gap between "log.1 is free" and the rename: another process writes log.1 there."""
    log = tmp_path / "server.log"
    log.write_text("old run\n", encoding="utf-8")
    real_link = os.link

    def racing(src: object, dst: object, **kwargs: object) -> None:
        Path(str(dst)).write_text("appeared\n", encoding="utf-8")
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", racing)
    with pytest.raises(LogscopeError, match="appeared during rotation"):
        launch.rotate(log, 3)
    assert (tmp_path / "server.log.1").read_text(encoding="utf-8") == "appeared\n"
    assert log.read_text(encoding="utf-8") == "old run\n"
