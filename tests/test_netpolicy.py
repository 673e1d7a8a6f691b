"""The network policy (issue 29, items 1-2), against real servers on 127.0.0.1: a listener that
drips one byte at a time, one that streams forever, one that stalls its headers or its body,
one that redirects. Each read ends by its deadline or its cap, with one line (exit 2) for a URL
and a finding (LS052, the check goes on) for ``check``'s live probe; no redirect is followed;
credentials in a URL are never shown. The subprocess ``timeout=`` is a hang guard only: no
assertion compares a wall-clock figure."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sglang_logscope import netpolicy
from sglang_logscope.errors import InputError
from sglang_logscope.netpolicy import NetPolicy, NetTimeout, http_get_loopback, redact, url_policy

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
JSON_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
#: A small policy so that each deadline is reached quickly (the values are not asserted on).
QUICK = NetPolicy(connect_s=0.5, total_s=1.0, max_bytes=1 << 20)
#: For a server that answers: its answer is waited for however busy the machine is (issue 29).
AMPLE = NetPolicy(connect_s=120, total_s=300, max_bytes=1 << 20)


def _serve(behaviour: Callable[[socket.socket], None]) -> Iterator[int]:
    """A TCP listener on 127.0.0.1 that runs ``behaviour`` for each connection, in a thread."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    stop = threading.Event()

    def loop() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=_run, args=(conn,), daemon=True).start()

    def _run(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                behaviour(conn)
            except OSError:
                pass

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        listener.close()


def _drip(conn: socket.socket) -> None:
    conn.sendall(JSON_HEAD + b'{"a": "')
    for _ in range(600):  # one byte every 0.1 s: a minute, far past any deadline
        conn.sendall(b"x")
        time.sleep(0.1)


def _endless(conn: socket.socket) -> None:
    conn.sendall(JSON_HEAD + b'{"a": "')
    while True:
        conn.sendall(b"[" * 65536)


def _header_stall(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    time.sleep(60)


def _redirect_to(port: int) -> Callable[[socket.socket], None]:
    def answer(conn: socket.socket) -> None:
        conn.sendall(
            f"HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:{port}/elsewhere\r\n"
            "Content-Length: 0\r\n\r\n".encode()
        )

    return answer


def _info(conn: socket.socket) -> None:
    body = json.dumps({"model_path": "/elsewhere", "tp_size": 8}).encode()
    conn.sendall(
        JSON_HEAD.replace(b"\r\n\r\n", f"\r\nContent-Length: {len(body)}\r\n\r\n".encode()) + body
    )


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[socket.socket], None]], int]]:
    opened: list[Iterator[int]] = []

    def start(behaviour: Callable[[socket.socket], None]) -> int:
        it = _serve(behaviour)
        opened.append(it)
        return next(it)

    yield start
    for it in opened:
        for _ in it:
            pass


@pytest.mark.parametrize("behaviour", [_drip, _endless, _header_stall])
def test_the_probe_ends_by_its_deadline_or_cap(
    serve: Callable[[Callable[[socket.socket], None]], int],
    behaviour: Callable[[socket.socket], None],
) -> None:
    port = serve(behaviour)
    with pytest.raises(NetTimeout, match=r"did not answer in 1 s|sent more than 1 MiB"):
        http_get_loopback("127.0.0.1", port, "/server_info", QUICK)


def test_the_probe_follows_no_redirect_and_asks_loopback_only(
    serve: Callable[[Callable[[socket.socket], None]], int],
) -> None:
    target = serve(_info)
    port = serve(_redirect_to(target))
    answer = http_get_loopback("127.0.0.1", port, "/server_info", AMPLE)
    assert answer.status == 302 and answer.body == b""
    assert http_get_loopback("127.0.0.1", target, "/server_info", AMPLE).status == 200
    for host in ("10.0.0.1", "localhost", "169.254.169.254", "example.com"):
        with pytest.raises(ValueError, match="not a loopback address"):
            http_get_loopback(host, port, "/", QUICK)


READY_CMD = "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp-size 2 --port {port}\n"


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        timeout=120,  # a hang guard, not a measurement
        check=False,
    )


@pytest.mark.parametrize("behaviour", ["drip", "redirect"])
def test_check_says_the_port_did_not_answer_and_goes_on(
    tmp_path: Path, serve: Callable[[Callable[[socket.socket], None]], int], behaviour: str
) -> None:
    """The red team's N13/N14: a drip hung ``check`` for good, a redirect's target was reported
    as the server answering. Now each is LS052 and the verdict comes as without a server."""
    port = serve(_drip) if behaviour == "drip" else serve(_redirect_to(serve(_info)))
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(READY_CMD.format(port=port))
    log = tmp_path / "demo.log"
    shutil.copyfile(DEMO / "sglang-serve.log", log)
    done = _cli("check", "-e", str(cmd), "-f", "json", str(log))
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    codes = [f["code"] for f in data["findings"]]
    assert "LS052" in codes and "LS048" not in codes and "LS049" not in codes
    (silent,) = [f for f in data["findings"] if f["code"] == "LS052"]
    expect = "did not answer in 2 s" if behaviour == "drip" else "redirects are not followed"
    assert f"http://127.0.0.1:{port}" in silent["message"] and expect in silent["message"]
    assert data["server"]["reachable"] is False


def test_a_server_option_off_this_machine_is_not_asked(tmp_path: Path) -> None:
    cmd = tmp_path / "cmd.txt"
    cmd.write_text(READY_CMD.format(port=30000))
    log = tmp_path / "demo.log"
    shutil.copyfile(DEMO / "sglang-serve.log", log)
    done = _cli(
        "check", "-e", str(cmd), "--server", "http://user:pw@10.1.2.3:30000", "-f", "json", str(log)
    )
    data = json.loads(done.stdout)
    assert data["server"]["reachable"] is False and "loopback" in data["server"]["error"]
    assert "pw" not in done.stdout and data["server"]["url"] == "http://user:***@10.1.2.3:30000"


# -- logs by URL -----------------------------------------------------------------------------


def _http_log_server(
    body_behaviour: Callable[[socket.socket], None],
) -> Callable[[socket.socket], None]:
    return body_behaviour


def _endless_log(conn: socket.socket) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
    row = b"[2026-05-09 09:17:42 TP0] Decode batch, #running-req: 1, #token: 10, gen throughput (token/s): 1.0\n"
    while True:
        conn.sendall(row * 600)


def _body_stall(conn: socket.socket) -> None:
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\nContent-Type: text/plain\r\n\r\n[2026-05-09"
    )
    time.sleep(60)


@pytest.mark.parametrize(
    ("behaviour", "env", "said"),
    [
        (_endless_log, {"LOGSCOPE_URL_MAX_MB": "1"}, "more than 1 MiB; LOGSCOPE_URL_MAX_MB"),
        (_endless_log, {"LOGSCOPE_URL_TIMEOUT": "2", "LOGSCOPE_URL_MAX_MB": "100000"}, ""),
        (_body_stall, {"LOGSCOPE_URL_CONNECT_TIMEOUT": "1"}, ""),
        (_header_stall, {"LOGSCOPE_URL_CONNECT_TIMEOUT": "1"}, ""),
        (
            _redirect_to(9),
            {},
            "HTTP 302: redirected to http://127.0.0.1:9/elsewhere; redirects are not followed",
        ),
    ],
)
@pytest.mark.parametrize("command", ["summary", "check"])
def test_a_url_log_ends_with_one_line_by_its_deadline_or_cap(
    serve: Callable[[Callable[[socket.socket], None]], int],
    behaviour: Callable[[socket.socket], None],
    env: dict[str, str],
    said: str,
    command: str,
) -> None:
    """The red team's N19: each of these hung ``summary`` and ``check`` past 60 s."""
    pytest.importorskip("aiohttp", reason="dev dependency aiohttp (fsspec's HTTP backend)")
    port = serve(behaviour)
    done = _cli(command, f"http://user:s3cr3tPW@127.0.0.1:{port}/serve.log", env=env)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("logscope: error: ")
    assert "http://user:***@127.0.0.1" in done.stderr and said in done.stderr
    assert "s3cr3tPW" not in done.stdout + done.stderr


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "1e999", "lots"])
def test_policy_values_out_of_range_are_one_line(value: str) -> None:
    with pytest.raises(InputError, match="LOGSCOPE_URL_TIMEOUT must be a number from 1 to 86400"):
        url_policy({"LOGSCOPE_URL_TIMEOUT": value})
    assert url_policy({"LOGSCOPE_URL_MAX_MB": "2"}).max_bytes == 2 << 20
    assert url_policy({}) == netpolicy.URL


@pytest.mark.parametrize(
    ("shown", "masked"),
    [
        ("http://user:s3cr3t@h:1/x.log", "http://user:***@h:1/x.log"),
        ("s3://AKIAEXAMPLE:s3cr3tKEY@bucket/x.log", "s3://AKIAEXAMPLE:***@bucket/x.log"),
        ("https://ghp_TOKEN123@host/x", "https://***@host/x"),
        (
            "error: https://b.s3.amazonaws.com/x?X-Amz-Signature=abc123&X-Amz-Date=1",
            "error: https://b.s3.amazonaws.com/x?X-Amz-Signature=***&X-Amz-Date=1",
        ),
        (
            "https://a.blob.core.windows.net/c/x?sv=1&sig=abcd%2F",
            "https://a.blob.core.windows.net/c/x?sv=1&sig=***",
        ),
        ("/var/log/user:pw@x.log", "/var/log/user:pw@x.log"),  # a path, not a URL
        ("http://host/path", "http://host/path"),
    ],
)
def test_redact_masks_credentials(shown: str, masked: str) -> None:
    assert redact(shown) == masked
    assert redact(redact(shown)) == masked


def test_credentials_never_reach_stderr_stdout_or_the_report(tmp_path: Path) -> None:
    """The red team's N17/N18: the password went to stderr, stdout and twice into the HTML
    report; an s3 URL with a key in it ended in an internal error that echoed it."""
    pytest.importorskip("aiohttp", reason="dev dependency aiohttp (fsspec's HTTP backend)")
    import http.server

    handler = type(
        "H",
        (http.server.SimpleHTTPRequestHandler,),
        {"log_message": lambda *a: None, "__init__": _rooted(str(DEMO))},
    )
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://user:s3cr3tPW@127.0.0.1:{httpd.server_address[1]}"
    try:
        report = tmp_path / "r.html"
        runs = [
            _cli("summary", f"{url}/missing.log"),
            _cli("check", "-v", f"{url}/sglang-serve.log"),  # the long form names the log
            _cli("check", "-f", "json", f"{url}/sglang-serve.log"),
            _cli("summary", "-f", "json", f"{url}/sglang-serve.log"),
            _cli("report", f"{url}/sglang-serve.log", "--html", str(report)),
            _cli(
                "summary", "s3://AKIAEXAMPLE:s3cr3tPW@bucket/x.log", env={"AWS_ENDPOINT_URL": url}
            ),
        ]
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert [r.returncode for r in runs] == [2, 1, 1, 0, 0, 2], [r.stderr for r in runs]
    for r in runs:
        assert "s3cr3tPW" not in r.stdout + r.stderr
    assert "user:***@" in runs[1].stdout and "user:***@" in runs[0].stderr
    html = report.read_text(encoding="utf-8")
    assert "s3cr3tPW" not in html and "user:***@" in html


def _rooted(directory: str) -> Callable[..., None]:
    import http.server

    def init(self: http.server.SimpleHTTPRequestHandler, *args: object, **kwargs: object) -> None:
        http.server.SimpleHTTPRequestHandler.__init__(self, *args, directory=directory, **kwargs)  # type: ignore[arg-type]

    return init


def test_the_suite_refuses_a_socket_off_this_machine() -> None:
    """The conftest guard (item 2): a test that connects past loopback fails at once."""
    with socket.socket() as sock, pytest.raises(AssertionError, match="tests stay on loopback"):
        sock.connect(("169.254.169.254", 80))
    assert os.environ["AWS_EC2_METADATA_DISABLED"] == "true"


def test_a_child_process_is_held_to_loopback_too(tmp_path: Path) -> None:
    """``tests/netguard/sitecustomize.py``: the CLI in a child is refused past loopback, and
    the refusal is written where the suite's fixture reads it (here: a file of this test's)."""
    where = tmp_path / "seen.txt"
    code = "import socket; socket.socket().connect(('169.254.169.254', 80))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, "LOGSCOPE_NETGUARD_FILE": str(where)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "tests stay on loopback" in done.stderr
    assert "169.254.169.254" in where.read_text(encoding="utf-8")


def test_a_child_notes_its_cpu_and_test_where_asked(tmp_path: Path) -> None:
    """``LOGSCOPE_CHILD_CPU_FILE``: each Python the suite starts appends its CPU seconds and
    the test that started it (how docs/performance.md counts the suite's child starts)."""
    where = tmp_path / "cpu.tsv"
    env = {**os.environ, "LOGSCOPE_CHILD_CPU_FILE": str(where)}
    for _ in range(2):
        subprocess.run([sys.executable, "-c", "pass"], env=env, timeout=60, check=True)
    lines = where.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    for line in lines:
        seconds, test = line.split("\t")
        assert float(seconds) >= 0
        assert test.startswith("tests/test_netpolicy.py::test_a_child_notes_its_cpu")
