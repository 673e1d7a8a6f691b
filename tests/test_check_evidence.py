"""Issue 15: why a launch never wrote here — causes first, "not specified" evidence, logs that
are not SGLang's, launch times with zones and ambiguous dates, live processes and servers."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from sglang_logscope.cli import main
from sglang_logscope.netpolicy import NetPolicy
from sglang_logscope.staleness import server as server_mod
from sglang_logscope.staleness.argdiff import DiffStatus
from sglang_logscope.staleness.judge import check
from sglang_logscope.staleness.process import ProcTable, gather
from sglang_logscope.staleness.verdict import Verdict

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LOG = DEMO / "sglang-serve.log"
LAUNCHED = "2026-05-09 09:31:05"
REAL_055 = ROOT / "fixtures" / "real" / "055"

READY_RUN = """\
[2026-05-09 09:31:20] server_args=ServerArgs(model_path='/root/models/Qwen3.6-27B', tp_size=2, mem_fraction_static=0.88, context_length=32768, host='127.0.0.1', port=30000)
[2026-05-09 09:31:28 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-09 09:32:40] The server is fired up and ready to roll!
"""
READY_CMD = (
    "python3 -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp-size 2 "
    "--mem-fraction-static 0.88 --context-length 32768 --host 127.0.0.1 --port 30000"
)


def _codes(report: Any) -> list[str]:
    return [f.code for f in report.findings]


def _demo_copy(tmp_path: Path) -> Path:
    log = tmp_path / "sglang-serve.log"
    shutil.copyfile(LOG, log)
    stamp = datetime(2026, 5, 9, 9, 18, 32).timestamp()
    os.utime(log, (stamp, stamp))
    return log


# ------------------------------------------------------------------- causes, in their order


def test_demo_names_the_pkill_self_match_first(tmp_path: Path) -> None:
    report = check(_demo_copy(tmp_path), DEMO / "command.txt", LAUNCHED)
    assert report.verdict is Verdict.STALE
    assert report.cause is not None and report.cause["code"] == "LS030"
    assert "^/root/ml-env/bin/python3.-m.sglang.launch_server" in report.cause["fix"]
    assert report.next_steps[0].startswith("Likely root cause (LS030)")
    assert report.next_steps[1].startswith("LS031")  # the log that should be gone proves it
    assert report.next_steps[-1].startswith("Memory")
    steps = " ".join(report.next_steps)
    assert "--launched-at" not in steps and "09:18" not in steps  # given; no canned times
    assert "run the launch in the foreground" not in steps  # the lint says why instead


def test_typo_in_your_own_flag_comes_first_with_the_fixed_flag(tmp_path: Path) -> None:
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(
        "nohup python3 -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp-size 2 "
        "--mem-fracion-static 0.88 --context-length 32768 > sglang-serve.log 2>&1 &\n"
    )
    report = check(_demo_copy(tmp_path), cmd, LAUNCHED)
    assert report.cause is not None and report.cause["code"] == "LS006"
    assert report.next_steps[0].startswith("Likely root cause (LS006)")
    assert "--mem-fraction-static" in report.next_steps[0]
    assert report.next_steps[-1].startswith("Memory (for your command once its flags are fixed)")
    # The diff and the budget are of the command as meant: the typo'd flag read as fixed.
    diff = {d.arg: d for d in report.arg_diff}
    assert diff["mem_fraction_static"].intended == 0.88
    assert report.budget is not None
    assert report.budget.inputs["mem_fraction_static"] == 0.88


def test_not_specified_warning_for_a_passed_flag_is_unexplained() -> None:
    """Real log 055 says 'Attention backend not specified. Use flashinfer backend by default.'"""
    real = (REAL_055 / "command.txt").read_text()
    plain = check(REAL_055 / "server.log", "python -m sglang.launch_server --model-path m " + real)
    assert "attention_backend" not in {d.arg for d in plain.arg_diff}
    assert "LS043" not in _codes(plain)
    # The same log against a command that passes the flag (a synthetic variant of 055's command).
    passed = "python -m sglang.launch_server --attention-backend triton " + real
    report = check(REAL_055 / "server.log", passed)
    diff = next(d for d in report.arg_diff if d.arg == "attention_backend")
    assert diff.status is DiffStatus.UNEXPLAINED and diff.evidence_line is not None
    assert "not specified" in (diff.explanation or "")
    assert "LS043" in _codes(report)
    assert report.verdict is Verdict.MISMATCH


# --------------------------------------------------------------------- not an SGLang log


SYSLOG = """\
Dec  1 10:00:01 gpu-box systemd[1]: Started Session 5 of user root.
Dec  1 10:00:02 gpu-box sshd[1234]: Accepted publickey for root from 10.1.2.3 port 50022
Dec  1 10:00:03 gpu-box kernel: [ 1.234] nvidia-nvlink: Nvlink Core is being initialized
"""


@pytest.mark.parametrize(
    "content", [SYSLOG.encode(), bytes(range(256)) * 8], ids=["syslog", "binary"]
)
def test_a_file_with_no_sglang_line_is_no_run(tmp_path: Path, content: bytes) -> None:
    log = tmp_path / "x.log"
    log.write_bytes(content)
    report = check(log, DEMO / "command-multiline.txt", LAUNCHED)
    assert report.verdict is Verdict.NO_RUN and report.run is None
    assert report.budget is None and report.oom is None
    not_sglang = next(f for f in report.findings if f.code == "LS040")
    assert not_sglang.message.startswith("This does not look like an SGLang log (first lines: ")
    if content.startswith(b"Dec"):
        assert "systemd[1]" in not_sglang.message


# --------------------------------------------------------------------------------- time


@pytest.fixture
def far_zone(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This machine in a zone far from the launch's (+02:00)."""
    monkeypatch.setenv("TZ", "America/Los_Angeles")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def test_zoned_launch_time_keeps_its_wall_clock_and_says_so(far_zone: None) -> None:
    report = check(LOG, DEMO / "command-multiline.txt", "2026-05-09T09:31:05+02:00")
    assert report.verdict is Verdict.STALE  # was MISMATCH: converted to this machine's zone
    assert report.launched_at == datetime(2026, 5, 9, 9, 31, 5)
    zone = next(f for f in report.findings if f.code == "LS041")
    assert "+0200" in zone.message and "--log-tz" in zone.message
    given = check(LOG, DEMO / "command-multiline.txt", "2026-05-09T09:31:05+02:00", "UTC")
    assert given.launched_at == datetime(2026, 5, 9, 7, 31, 5) and "LS041" not in _codes(given)


def test_day_month_ambiguity_is_said() -> None:
    report = check(LOG, DEMO / "command-multiline.txt", "09.05.2026 09:31:05")
    warning = next(f for f in report.findings if f.code == "LS042")
    assert "2026-09-05" in warning.message and "2026-05-09" in warning.message
    assert "LS042" not in _codes(check(LOG, DEMO / "command-multiline.txt", "13.05.2026 09:31"))


def test_a_date_without_a_year_takes_the_runs_year() -> None:
    report = check(LOG, DEMO / "command-multiline.txt", "May 9 09:31")
    assert report.launched_at == datetime(2026, 5, 9, 9, 31)
    assert report.verdict is Verdict.STALE


@pytest.mark.parametrize("when", ["now", "-5m", "-2h"])
def test_now_and_relative_launch_times(when: str, tmp_path: Path) -> None:
    report = check(_demo_copy(tmp_path), DEMO / "command-multiline.txt", when)
    assert report.verdict is Verdict.STALE
    assert report.launched_at is not None
    assert abs((datetime.now() - report.launched_at).total_seconds()) < 3 * 3600


def test_cli_takes_a_relative_launch_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _demo_copy(tmp_path)
    cmd = str(DEMO / "command-multiline.txt")
    with pytest.raises(SystemExit) as exc:
        main(["check", "-e", cmd, "--launched-at", "-5m", "-f", "json", str(log)])
    assert exc.value.code == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "stale"


def test_without_a_launch_time_the_step_names_no_example_time() -> None:
    report = check(LOG, DEMO / "command-multiline.txt")
    steps = " ".join(report.next_steps)
    assert "--launched-at" in steps and "09:18" not in steps


# ------------------------------------------------------------------ live process evidence


def _ready_log(tmp_path: Path) -> Path:
    log = tmp_path / "serve.log"
    log.write_text(READY_RUN)
    return log


@contextlib.contextmanager
def _opened_by_a_process(log: Path, mode: str) -> Iterator[subprocess.Popen[str]]:
    """A process with ``log`` open in ``mode`` until the block ends (it waits on its stdin:
    no timer to outlast)."""
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import sys; f = open({str(log)!r}, {mode!r}); print('open', flush=True); "
            "sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "open\n"  # open now
        yield child
    finally:
        child.kill()
        child.wait()


def test_a_live_process_holding_the_log_is_named(tmp_path: Path) -> None:
    log = _ready_log(tmp_path)
    with _opened_by_a_process(log, "a") as holder:
        report = check(log, READY_CMD, "2026-05-09 09:31:05")
        assert report.process is not None and report.process.pid == holder.pid  # typed (issue 26)
        proc = report.to_dict()["process"]  # the JSON document keeps its keys
        assert proc["pid"] == holder.pid and proc["holds_log"]
        assert proc["alive"] and proc["started_at"]
        assert proc["cmdline"][0] == sys.executable
        assert f"Process {holder.pid} (" in next(
            f.message for f in report.findings if f.code == "LS044"
        )
        assert report.to_dict()["process"]["pid"] == holder.pid


def test_check_after_the_launched_process_exited(tmp_path: Path) -> None:
    log = _ready_log(tmp_path)
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    record = {
        "schema_version": 1,
        "pid": gone.pid,
        "argv": READY_CMD.split(),
        "cwd": str(tmp_path),
        "env": {},
        "launched_at": datetime(2026, 5, 9, 9, 31, 5, tzinfo=timezone.utc).isoformat(),
        "host": "here",
        "log": str(log),
    }
    (tmp_path / "serve.log.launch.json").write_text(json.dumps(record))
    report = check(log, READY_CMD, "2026-05-09 09:31:05")
    assert report.verdict is Verdict.EXITED  # issue 27: dead is never fresh
    assert report.to_dict()["verdict"] == "exited"
    assert report.headline.startswith("FRESH, EXITED")
    assert f"its process {gone.pid} (from the launch record) has exited" in report.headline
    assert report.process is not None and report.to_dict()["process"]["alive"] is False
    assert report.exit_code == 1
    assert "LS047" in _codes(report)  # nobody holds the log either


def test_proc_not_readable_is_not_visible_never_an_error(tmp_path: Path) -> None:
    evidence = gather(str(tmp_path / "x.log"), table=ProcTable(tmp_path / "no-proc"))
    assert evidence.visible is False and evidence.process is None


def test_a_process_running_your_command_elsewhere(tmp_path: Path) -> None:
    log = _ready_log(tmp_path)
    argv = [
        "-c",
        "import sys; print('up', flush=True); sys.stdin.read()",  # until killed: no timer
        "--model-path",
        "/m",
        "--zz-probe",
        str(os.getpid()),
    ]
    other = subprocess.Popen(
        [sys.executable, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:  # Popen's return is not enough: the exec can close its pipe before the kernel sets
        # the new command line (CI read it empty once, on 3.13); a line it printed is after
        assert other.stdout is not None and other.stdout.readline() == "up\n"
        ev = gather(str(log), intended_argv=tuple(argv[2:]))
        assert [p.pid for p in ev.running_intended] == [other.pid]
        assert not ev.running_intended[0].holds_log
    finally:
        other.kill()
        other.wait()


# ------------------------------------------------------------------------ the live server


class _Info(BaseHTTPRequestHandler):
    """A stand-in for SGLang's /server_info (0.5.9+) and /get_server_info (older)."""

    info: ClassVar[dict[str, Any]] = {}
    paths: ClassVar[tuple[str, ...]] = ("/server_info",)

    def do_GET(self) -> None:
        if self.path not in self.paths:
            self.send_error(404)
            return
        body = json.dumps(self.info).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[int, type[_Info]]]:
    # a server that answers is waited for however busy the machine is (issue 29: the probe's
    # 2 s is for a port that never answers, which tests/test_netpolicy.py covers)
    monkeypatch.setattr(
        server_mod, "PROBE", NetPolicy(connect_s=120, total_s=300, max_bytes=4 << 20)
    )
    handler = type("Handler", (_Info,), {"info": {}, "paths": ("/server_info",)})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd.server_address[1], handler
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("paths", [("/server_info",), ("/get_server_info",)])
def test_the_live_server_says_which_launch_is_serving(
    tmp_path: Path, server: tuple[int, type[_Info]], paths: tuple[str, ...]
) -> None:
    port, handler = server
    handler.paths = paths
    handler.info = {
        "model_path": "/root/models/Qwen3.6-27B",
        "tp_size": 2,
        "mem_fraction_static": 0.85,
        "context_length": 65536,
        "port": port,
        "version": "0.5.9",
    }
    log = _ready_log(tmp_path)
    cmd = READY_CMD.replace("--port 30000", f"--port {port}")
    report = check(log, cmd, "2026-05-09 09:31:05")
    assert report.server is not None and report.server.reachable  # typed (issue 26)
    server = report.to_dict()["server"]  # the JSON document keeps its keys
    assert server["url"] == f"http://127.0.0.1:{port}" and server["reachable"]
    assert {d["arg"] for d in server["arg_diff"]} == {
        "mem_fraction_static",
        "context_length",
    }
    assert "LS048" in _codes(report)
    handler.info = {**handler.info, "mem_fraction_static": 0.88, "context_length": 32768}
    again = check(log, cmd, "2026-05-09 09:31:05")
    assert again.server is not None and again.to_dict()["server"]["arg_diff"] == []
    assert "LS049" in _codes(again)


def test_no_server_is_not_an_error(tmp_path: Path) -> None:
    report = check(_ready_log(tmp_path), READY_CMD.replace("30000", "9"), "2026-05-09 09:31:05")
    assert report.server is not None and report.to_dict()["server"]["reachable"] is False


def test_remote_command_skips_this_machine_and_says_where(tmp_path: Path) -> None:
    report = check(_demo_copy(tmp_path), DEMO / "command.txt", LAUNCHED)
    assert report.process is None and report.server is None
    assert report.remote is not None
    assert report.remote["where"] == "host root@gpu-box, Proxmox container 129"
    assert report.remote["command"] == (
        "ssh root@gpu-box 'pct exec 129 -- logscope check --here --expect-args - /root/sglang-serve.log'"
        f" < {DEMO / 'command.txt'}"
    )


def test_a_holder_running_other_arguments_shows_them(tmp_path: Path) -> None:
    """The effective arguments are read from the holder's own command line."""
    log = _ready_log(tmp_path)
    module = f"sglang_zzholder_{os.getpid()}"
    (tmp_path / module).mkdir()
    (tmp_path / module / "__init__.py").write_text("")
    (tmp_path / module / "launch_server.py").write_text(
        f"import sys\nf = open({str(log)!r}, 'a')\nprint('open', flush=True)\nsys.stdin.read()\n"
    )
    argv = ["--model-path", "/root/models/Qwen3.6-27B", "--mem-fraction-static", "0.85"]
    holder = subprocess.Popen(
        [sys.executable, "-m", f"{module}.launch_server", *argv],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"  # it holds it now
        report = check(log, READY_CMD, "2026-05-09 09:31:05")
        held = next(f.message for f in report.findings if f.code == "LS044")
        assert f"Process {holder.pid} (" in held
        assert "mem_fraction_static=0.85 (you: 0.88)" in held
    finally:
        holder.kill()
        holder.wait()


def test_cli_server_option_asks_that_url(
    tmp_path: Path, server: tuple[int, type[_Info]], capsys: pytest.CaptureFixture[str]
) -> None:
    port, handler = server
    handler.info = {"model_path": "/root/models/Qwen3.6-27B", "tp_size": 4}
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(READY_CMD.replace("--host 127.0.0.1", "--host 10.9.8.7"))  # not local
    log = _ready_log(tmp_path)
    with pytest.raises(SystemExit):
        main(
            [
                "check",
                "-e",
                str(cmd),
                "--server",
                f"http://127.0.0.1:{port}",
                "-f",
                "json",
                str(log),
            ]
        )
    data = json.loads(capsys.readouterr().out)
    assert data["server"]["reachable"] and data["server"]["arg_diff"] == [
        {"arg": "tp_size", "intended": 2, "live": 4}
    ]
    assert check(log, cmd).server is None  # a non-local host is not asked without --server


def _fake_proc(root: Path, pid: int, argv: list[str], fds: dict[str, tuple[Path, int]]) -> None:
    """A ``/proc/PID`` with its command line and fds (target, open flags) as Linux shows them."""
    d = root / str(pid)
    (d / "fd").mkdir(parents=True)
    (d / "fdinfo").mkdir()
    (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
    for fd, (target, flags) in fds.items():
        os.symlink(target, d / "fd" / fd)
        (d / "fdinfo" / fd).write_text(f"pos:\t0\nflags:\t0{flags:o}\nmnt_id:\t1\n")


def test_only_a_process_writing_the_log_holds_it(tmp_path: Path) -> None:
    """``tail -f`` (or a pager, or another check) reading the log is no live run: LS044 names
    the writer alone, and a log that is only read is one nobody writes (LS047)."""
    log = _ready_log(tmp_path)
    root = tmp_path / "proc"
    append = os.O_WRONLY | os.O_APPEND
    _fake_proc(root, 100, ["tail", "-f", str(log)], {"3": (log, os.O_RDONLY)})
    _fake_proc(root, 101, ["python", "-m", "sglang.launch_server"], {"1": (log, append)})
    _fake_proc(root, 102, ["less", str(log)], {"4": (log, os.O_RDONLY), "5": (tmp_path, 0)})
    _fake_proc(root, 103, ["vim", str(log)], {"6": (log, os.O_RDWR)})
    evidence = gather(str(log), table=ProcTable(root))
    assert [p.pid for p in evidence.holders] == [101, 103]
    assert evidence.process is not None and evidence.process.pid == 101
    readers_only = tmp_path / "readers"
    _fake_proc(readers_only, 100, ["tail", "-f", str(log)], {"3": (log, os.O_RDONLY)})
    assert gather(str(log), table=ProcTable(readers_only)).holders == ()


def test_a_process_reading_the_log_is_not_its_holder(tmp_path: Path) -> None:
    log = _ready_log(tmp_path)
    with _opened_by_a_process(log, "r") as reader:
        report = check(log, READY_CMD, "2026-05-09 09:31:05")
        held = [f.message for f in report.findings if f.code == "LS044"]
        assert not any(f"Process {reader.pid} (" in m for m in held)
