"""`launch` and `watch` end to end, with the stand-in server (tests/fake_sglang_server.py).

The stand-in is started the way a real server is, ``python -m sglang.launch_server ...``,
through a small ``sglang`` package shim on PYTHONPATH. Every process a test starts is killed
(by process group) when the test ends.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from stand_ins import stand_in_env

from sglang_logscope.errors import LogscopeError
from sglang_logscope.staleness.judge import check
from sglang_logscope.watch.launch import (
    REDACTED,
    LaunchRecord,
    read_record,
    record_path,
    relevant_env,
    rotate,
)
from sglang_logscope.watch.loop import pid_alive, prepare
from tests.test_watch_schema import records

ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
OLD_LOG = """\
[2026-05-09 09:17:42] server_args=ServerArgs(model_path='/m', tp_size=2, mem_fraction_static=0.85)
[2026-05-09 09:17:50 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-09 09:18:30 TP0] Scheduler hit an exception: Traceback (most recent call last):
RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.85

[2026-05-09 09:18:32] Received sigquit from a child process. It usually means the child failed.
"""
FAST = ["--poll-interval", "0.05", "--timeout", "15s"]


# ------------------------------------------------------------------------------ fixtures


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """An environment where ``python -m sglang.launch_server`` is the stand-in server."""
    out = stand_in_env(tmp_path)
    out.update(
        SGLANG_TEST_SETTING="1",
        SGLANG_API_KEY="do-not-record-me",
        NCCL_DEBUG="WARN",
        NO_COLOR="1",
        COLUMNS="200",
    )
    return out


@pytest.fixture
def model(tmp_path: Path) -> Path:
    path = tmp_path / "model"
    path.mkdir()
    (path / "config.json").write_text("{}")
    return path


class Procs:
    """Processes to end when the test ends: server sessions and our own subprocesses."""

    def __init__(self) -> None:
        self.groups: list[int] = []
        self.popens: list[subprocess.Popen[str]] = []

    def server(self, pid: int) -> int:
        self.groups.append(pid)
        return pid

    def cleanup(self) -> None:
        for proc in self.popens:
            if proc.poll() is None:
                proc.kill()
                proc.wait(5)
        for pgid in self.groups:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pgid, signal.SIGKILL)
        deadline = time.monotonic() + 5
        for pgid in self.groups:
            while pid_alive(pgid) and time.monotonic() < deadline:
                time.sleep(0.02)


@pytest.fixture
def procs() -> Iterator[Procs]:
    p = Procs()
    try:
        yield p
    finally:
        p.cleanup()


def server_cmd(model: Path | str, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "sglang.launch_server",
        "--model-path",
        str(model),
        "--tp",
        "2",
        *extra,
    ]


def logscope(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def jsonl(stdout: str) -> list[dict[str, Any]]:
    """The records a ``--format jsonl`` run wrote, each checked against the watch schema."""
    return records(stdout)


def launch(
    tmp_path: Path,
    env: dict[str, str],
    procs: Procs,
    model: Path,
    *extra: str,
    mode: str = "ready",
    failure: str = "",
) -> tuple[subprocess.CompletedProcess[str], Path]:
    env = dict(env, LOGSCOPE_FAKE_MODE=mode, LOGSCOPE_FAKE_FAILURE=failure)
    log = tmp_path / "serve.log"
    result = logscope(
        "launch", "--log", str(log), "--force", "--alive-after", "0.2", "--format", "jsonl", *FAST, *extra,
        "--", *server_cmd(model, "--mem-fraction-static", "0.88"),
        env=env, cwd=tmp_path,
    )  # fmt: skip
    record = read_record(log)
    if record is not None:
        procs.server(record.pid)
    return result, log


# ------------------------------------------------------------------------------ launch


def test_launch_ready_keeps_old_log_and_records_the_launch(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path
) -> None:
    log = tmp_path / "serve.log"
    log.write_text(OLD_LOG)
    old_record = {
        "launched_at": "2026-05-09T09:17:40+00:00",
        "argv": ["python", "-m", "sglang.launch_server"],
    }
    record_path(log).write_text(json.dumps(old_record))
    before = datetime.now().astimezone()
    result, log = launch(tmp_path, env, procs, model)
    assert result.returncode == 0, result.stdout + result.stderr
    rows = jsonl(result.stdout)
    assert rows[-1]["event"] == "result" and rows[-1]["outcome"] == "ready"
    assert [r["phase"] for r in rows if r["event"] == "phase"] == [
        "args", "dist_init", "weights", "pools", "cuda_graph", "ready",
    ]  # fmt: skip
    # The old log and its record were kept, byte for byte.
    assert (tmp_path / "serve.log.1").read_text() == OLD_LOG
    assert json.loads((tmp_path / "serve.log.1.launch.json").read_text()) == old_record
    assert "kept the previous log" in result.stderr
    # The record: valid, complete, secrets redacted.
    raw = json.loads(record_path(log).read_text())
    record = LaunchRecord.from_dict(raw)
    assert record.argv == tuple(server_cmd(model, "--mem-fraction-static", "0.88"))
    assert record.cwd == str(tmp_path) and record.host == socket.gethostname()
    assert record.log == str(log) and record.rotated_to == str(tmp_path / "serve.log.1")
    when = record.launch_time
    assert when.tzinfo is not None and abs((when - before).total_seconds()) < 10
    assert record.env == {
        "CUDA_VISIBLE_DEVICES": "0,1",
        "NCCL_DEBUG": "WARN",
        "SGLANG_API_KEY": REDACTED,
        "SGLANG_TEST_SETTING": "1",
    }
    # The server outlives the launch, in a session of its own.
    assert pid_alive(record.pid) and os.getsid(record.pid) == record.pid
    # check reads the record: the last run is this launch, and it is ready.
    checked = check(str(log))
    assert checked.verdict.value == "fresh" and checked.exit_code == 0, checked.headline


@pytest.mark.parametrize("failure", ["not_enough_memory", "cuda_oom", "argparse_error"])
def test_launch_crash_gives_the_forensic_summary(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path, failure: str
) -> None:
    result, _log = launch(tmp_path, env, procs, model, mode="crash", failure=failure)
    assert result.returncode == 1, result.stdout + result.stderr
    final = jsonl(result.stdout)[-1]
    assert final["outcome"] == "crashed"
    assert final["failure"]["kind"] == failure
    assert isinstance(final["arg_diff"], list) and final["findings"]
    if failure != "argparse_error":
        assert final["phases"]["phase"] in ("weights", "cuda_graph")


def test_launch_crash_text_summary(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path
) -> None:
    env = dict(env, LOGSCOPE_FAKE_MODE="crash", LOGSCOPE_FAKE_FAILURE="not_enough_memory")
    log = tmp_path / "serve.log"
    result = logscope(
        "launch", "--log", str(log), "--force", "--alive-after", "0.2", *FAST,
        "--", *server_cmd(model, "--mem-fraction-static", "0.88"), env=env, cwd=tmp_path,
    )  # fmt: skip
    record = read_record(log)
    assert record is not None
    procs.server(record.pid)
    assert result.returncode == 1
    out = result.stdout
    assert "CRASHED" in out and "Failure not_enough_memory" in out
    assert "Current value" in out and "effective: mem_fraction_static=0.85" in out


def test_launch_never_writes(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path
) -> None:
    result, _log = launch(
        tmp_path, env, procs, model, "--timeout", "1s", "--quiet-after", "0.3s", mode="silent"
    )
    assert result.returncode == 1
    rows = jsonl(result.stdout)
    quiet = [r for r in rows if r["event"] == "quiet"]
    assert quiet and "nothing has started writing" in quiet[0]["message"]
    assert rows[-1]["outcome"] == "stale" and rows[-1]["elapsed_s"] >= 1.0


def test_launch_that_exits_at_once(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path
) -> None:
    result, _log = launch(tmp_path, env, procs, model, "--alive-after", "3", mode="exit")
    assert result.returncode == 1
    assert "exited at once" in result.stderr
    assert jsonl(result.stdout)[-1]["outcome"] == "exited"


def test_preflight_errors_stop_the_launch(
    tmp_path: Path, env: dict[str, str], procs: Procs
) -> None:
    log = tmp_path / "serve.log"
    log.write_text(OLD_LOG)
    result = logscope(
        "launch", "--log", str(log), "--alive-after", "0.2", *FAST,
        "--", *server_cmd(tmp_path / "no-such-model"), env=env, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    assert "PF009" in result.stderr and "nothing was launched" in result.stderr
    assert log.read_text() == OLD_LOG and not (tmp_path / "serve.log.1").exists()
    assert not record_path(log).exists()


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run the CLI in-process (for usage errors: nothing is started); exit code and stderr."""
    from sglang_logscope.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(args)
    code = exit_info.value.code
    return int(code) if isinstance(code, int) else 1, capsys.readouterr().err


def test_launch_usage_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, err = cli(["launch", "--log", str(tmp_path / "x.log")], capsys)
    assert code == 2 and "after '--'" in err
    code, err = cli(["launch", "--force", "--", "no-such-program-xyz"], capsys)
    assert code == 2 and "not found" in err
    code, err = cli(["launch", "--", sys.executable, "-c", "pass"], capsys)
    assert code == 2 and "--force" in err
    code, err = cli(["launch", "--keep", "2", "--timeout", "soon", "--", sys.executable], capsys)
    assert code == 2 and "--timeout" in err
    assert list(tmp_path.iterdir()) == []  # nothing was written or started


# ------------------------------------------------------------------------------ watch


def test_watch_uses_the_launch_record(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path
) -> None:
    result, log = launch(tmp_path, env, procs, model, "--no-watch")
    assert result.returncode == 0, result.stderr
    assert "follow it with: logscope watch" in result.stderr
    watched = logscope("watch", str(log), "--format", "jsonl", *FAST, env=env, cwd=tmp_path)
    assert watched.returncode == 0, watched.stdout + watched.stderr
    rows = jsonl(watched.stdout)
    assert rows[0]["event"] == "info" and "launch record" in rows[0]["message"]
    assert rows[-1]["outcome"] == "ready"


def test_watch_ignores_stale_content_then_follows_the_new_run(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path
) -> None:
    log = tmp_path / "serve.log"
    log.write_text(OLD_LOG)
    watcher = subprocess.Popen(
        [sys.executable, "-m", "sglang_logscope", "watch", str(log), "--format", "jsonl", *FAST],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    procs.popens.append(watcher)
    first = _read_until(watcher, "ignoring")
    assert any(r["event"] == "waiting" for r in first)
    with open(log, "ab") as out:  # a relaunch appending to the same file (>>)
        server = subprocess.Popen(
            server_cmd(model), stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )
    procs.server(server.pid)
    stdout, stderr = watcher.communicate(timeout=30)
    assert watcher.returncode == 0, stdout + stderr
    rows = jsonl(stdout)
    started = [r for r in rows if r["event"] == "run_started"]
    assert started and started[0]["line"] == OLD_LOG.count("\n") + 1
    assert rows[-1]["outcome"] == "ready"


def test_watch_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "serve.log"
    log.write_text("")
    for args in (["--timeout", "soon"], ["--quiet-after", "0"], ["--launched-at", "not a time"],
                 ["--expect-args", str(tmp_path / "missing.txt")], ["--log-tz", "Mars/Base"]):  # fmt: skip
        code, err = cli(["watch", str(log), *args], capsys)
        assert code == 2, args
        assert err.startswith("logscope: error:") and "Traceback" not in err


@pytest.mark.parametrize("command", ["launch", "watch"])
def test_ctrl_c_stops_watching_and_leaves_the_server_running(
    tmp_path: Path, env: dict[str, str], procs: Procs, model: Path, command: str
) -> None:
    log = tmp_path / "serve.log"
    env = dict(env, LOGSCOPE_FAKE_MODE="silent")
    if command == "launch":
        argv = ["launch", "--log", str(log), "--force", "--alive-after", "0.2", "--format", "jsonl", *FAST,
                "--", *server_cmd(model)]  # fmt: skip
    else:
        started = logscope(
            "launch", "--log", str(log), "--force", "--no-watch", "--alive-after", "0.2",
            "--", *server_cmd(model), env=env, cwd=tmp_path,
        )  # fmt: skip
        record = read_record(log)
        assert record is not None
        procs.server(record.pid)
        assert started.returncode == 0, started.stderr
        argv = ["watch", str(log), "--format", "jsonl", *FAST]
    proc = subprocess.Popen(
        [sys.executable, "-m", "sglang_logscope", *argv],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_sigint_as_from_a_shell,
    )  # fmt: skip
    procs.popens.append(proc)
    _read_until(proc, "waiting")
    record = read_record(log)
    assert record is not None
    procs.server(record.pid)
    proc.send_signal(signal.SIGINT)
    _stdout, stderr = proc.communicate(timeout=15)
    assert proc.returncode == 130
    lines = [ln for ln in stderr.splitlines() if ln.startswith("logscope:")]
    assert len(lines) == 1 and "keeps running" in lines[0], stderr
    assert "Traceback" not in stderr
    time.sleep(0.1)
    assert pid_alive(record.pid), "the server must survive Ctrl-C in the watch"


def _sigint_as_from_a_shell() -> None:
    """The child as a shell starts it: SIGINT at its default and not blocked. Under pytest-xdist
    a worker can hand its children SIGINT ignored or blocked (seen: both Ctrl-C tests waited out
    their 15 s in a full ``-n 2`` run), and SIGINT is what this test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _read_until(
    proc: subprocess.Popen[str], event: str, timeout: float = 15
) -> list[dict[str, Any]]:
    """JSON rows from ``proc``'s stdout up to the first one of ``event`` (read in a thread)."""
    assert proc.stdout is not None
    rows: list[dict[str, Any]] = []
    found = threading.Event()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            row = json.loads(line)
            rows.append(row)
            if row["event"] == event:
                found.set()
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    if not found.wait(timeout):
        raise AssertionError(f"no {event!r} row; got {rows}")
    return rows


# ------------------------------------------------------------------------------ rotation, record


def test_rotate_shifts_and_never_deletes(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    assert rotate(log, 3) is None  # nothing to keep
    log.write_text("")
    assert rotate(log, 3) is None and log.exists()  # empty: nothing lost by reusing it
    for n in range(3):
        log.write_text(f"run {n}\n")
        record_path(log).write_text(f'{{"n": {n}}}')
        assert rotate(log, 3) == tmp_path / "s.log.1"
        assert not log.exists()
    assert [(tmp_path / f"s.log.{i}").read_text() for i in (1, 2, 3)] == [
        "run 2\n",
        "run 1\n",
        "run 0\n",
    ]
    assert json.loads((tmp_path / "s.log.3.launch.json").read_text()) == {"n": 0}
    log.write_text("run 3\n")
    with pytest.raises(LogscopeError, match="never deleted"):
        rotate(log, 3)
    assert log.read_text() == "run 3\n" and (tmp_path / "s.log.3").read_text() == "run 0\n"
    assert rotate(log, 4) == tmp_path / "s.log.1"
    assert (tmp_path / "s.log.4").read_text() == "run 0\n"


def test_rotate_fills_a_gap_without_moving_more_than_needed(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    (tmp_path / "s.log.1").write_text("one\n")
    (tmp_path / "s.log.3").write_text("three\n")
    log.write_text("now\n")
    rotate(log, 3)
    assert [(tmp_path / f"s.log.{i}").read_text() for i in (1, 2, 3)] == [
        "now\n",
        "one\n",
        "three\n",
    ]


def test_rotate_rejects_bad_input(tmp_path: Path) -> None:
    with pytest.raises(LogscopeError):
        rotate(tmp_path / "x.log", 0)
    (tmp_path / "d.log").mkdir()
    with pytest.raises(LogscopeError, match="not a regular file"):
        rotate(tmp_path / "d.log", 2)


def _record(**over: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema_version": 1, "pid": 123, "argv": ["python", "-m", "sglang.launch_server"], "cwd": "/",
        "env": {}, "launched_at": "2026-05-09T09:31:05.120+02:00", "host": "h", "log": "/x.log", "rotated_to": None,
    }  # fmt: skip
    data.update(over)
    return data


@pytest.mark.parametrize(
    "bad",
    [
        {"pid": "123"},
        {"pid": True},
        {"argv": []},
        {"argv": "python -m x"},
        {"argv": ["python", 3]},
        {"launched_at": "yesterday"},
        {"launched_at": "2026-05-09T09:31:05"},  # no offset
        {"env": {"A": 1}},
        {"host": None},
        {"schema_version": 2},
        {"rotated_to": 5},
    ],
)
def test_record_is_validated(bad: dict[str, Any]) -> None:
    LaunchRecord.from_dict(_record())
    with pytest.raises(LogscopeError):
        LaunchRecord.from_dict(_record(**bad))


def test_bad_record_is_ignored_by_watch_with_a_note(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    record_path(log).write_text("{not json")
    with pytest.raises(LogscopeError, match="not valid JSON"):
        read_record(log)
    prepared = prepare(log)
    assert prepared.options.launched_at is None
    assert any("launch record ignored" in n for n in prepared.notes)
    record_path(log).write_text(json.dumps(_record(host="elsewhere")))
    prepared = prepare(log)
    assert (
        prepared.options.launched_at is not None and prepared.options.pid is None
    )  # not this host


def test_relevant_env() -> None:
    env = {"PATH": "/bin", "HOME": "/root", "CUDA_VISIBLE_DEVICES": "1", "NCCL_IB_DISABLE": "1",
           "SGLANG_HF_TOKEN": "x", "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True", "SGLANGX": "no"}  # fmt: skip
    assert relevant_env(env) == {
        "CUDA_VISIBLE_DEVICES": "1",
        "NCCL_IB_DISABLE": "1",
        "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
        "SGLANG_HF_TOKEN": REDACTED,
    }


def test_record_of_a_dead_server_does_not_end_the_watch(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    log = tmp_path / "serve.log"
    record_path(log).write_text(json.dumps(_record(pid=gone.pid, host=socket.gethostname())))
    prepared = prepare(log)
    assert prepared.options.alive is None and prepared.options.pid == gone.pid
    assert any(f"pid {gone.pid}) is not running" in n for n in prepared.notes)
    me = _record(pid=os.getpid(), host=socket.gethostname())
    record_path(log).write_text(json.dumps(me))
    prepared = prepare(log)
    assert prepared.options.alive is not None and prepared.options.alive()
