"""The red team's attacks of issue 29, replayed (seeded, a fixed count, each run under a deadline):
the live probe against a listener that drips, streams forever, stalls or redirects; logs by
URL from such listeners, with credentials in the URL; ``s3://``/``zip://``/``reference://``
names; a ``--config`` that is a link to a secret or a copy of one; a FIFO, deep JSON or a link
planted at the scan index's name; rows dated at the calendar's ends through ``report --html``;
a file of blank lines; a second ``launch`` onto a served log; thousands of unknown flags and
option values past sense. Each run is the CLI in a child process, killed at its deadline.

A finding is an exit 3 (internal error), a hang (the deadline reached) or a secret in stdout,
stderr or a written report. Every listener is on 127.0.0.1; ``AWS_EC2_METADATA_DISABLED`` is
set for every run.

    python -m benchmarks.fuzz.attacks --runs 2 --seed 29      # what `make fuzz` runs
    python -m benchmarks.fuzz.attacks --runs 10 --seed 1      # a longer hunt

Fixed runs and a fixed seed: the same attacks every time; no figure depends on the wall clock.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "fixtures" / "demo" / "sglang-serve.log"
#: Every run ends by this deadline or counts as a hang (the tool's own deadlines are 2-10 s).
DEADLINE_S = 90
SECRET = "s3cr3tPW29"
JSON_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n"
TEXT_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
ROW = b"[2026-05-09 09:17:42 TP0] Decode batch, #running-req: 1, #token: 10, gen throughput (token/s): 1.0\n"


@dataclass(frozen=True)
class Outcome:
    attack: str
    code: int | None  # None: killed at the deadline
    echoed: bool


# -- listeners -------------------------------------------------------------------------------


def _drip(conn: socket.socket, rng: random.Random) -> None:
    conn.sendall(JSON_HEAD + b'{"a": "')
    pause = rng.choice([0.05, 0.1, 0.3])
    for _ in range(int(DEADLINE_S / pause)):
        conn.sendall(b"x")
        time.sleep(pause)


def _endless(conn: socket.socket, rng: random.Random) -> None:
    conn.sendall(rng.choice([JSON_HEAD + b'{"a": "', TEXT_HEAD]))
    block = rng.choice([b"[" * 65536, ROW * 600])
    while True:
        conn.sendall(block)


def _stall_headers(conn: socket.socket, rng: random.Random) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    time.sleep(DEADLINE_S)


def _stall_body(conn: socket.socket, rng: random.Random) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n[2026-05-09")
    time.sleep(DEADLINE_S)


def _redirect(conn: socket.socket, rng: random.Random) -> None:
    where = rng.choice(
        ["http://127.0.0.1:9/elsewhere", "http://10.0.0.1/x", "http://169.254.169.254/"]
    )
    conn.sendall(f"HTTP/1.1 302 Found\r\nLocation: {where}\r\nContent-Length: 0\r\n\r\n".encode())


LISTENERS: dict[str, Callable[[socket.socket, random.Random], None]] = {
    "drip": _drip,
    "endless": _endless,
    "stall-headers": _stall_headers,
    "stall-body": _stall_body,
    "redirect": _redirect,
}


@contextmanager
def listener(
    behaviour: Callable[[socket.socket, random.Random], None], rng: random.Random
) -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.settimeout(0.1)
    stop = threading.Event()
    seed = rng.random()

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                behaviour(conn, random.Random(seed))
            except OSError:
                pass

    def loop() -> None:
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
            except OSError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        sock.close()


# -- one run ---------------------------------------------------------------------------------


def cli(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[int | None, str]:
    """The CLI in its own process group, killed at :data:`DEADLINE_S`: (exit code or None, output)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sglang_logscope", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "NO_COLOR": "1", "AWS_EC2_METADATA_DISABLED": "true", **(env or {})},
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=DEADLINE_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        return None, out
    return proc.returncode, out


def _shown(out: str, cwd: Path) -> bool:
    written = "".join(p.read_text("utf-8", "replace") for p in cwd.glob("*.html"))
    return SECRET in out or SECRET in written


def _probe(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    name = rng.choice(["drip", "endless", "stall-headers", "redirect"])
    with listener(LISTENERS[name], rng) as port:
        (cwd / "cmd.txt").write_text(
            f"python -m sglang.launch_server --model-path /m --tp 2 --port {port}\n",
            encoding="utf-8",
        )
        return cli(["check", "-e", "cmd.txt", "-f", rng.choice(["json", "text"]), "demo.log"], cwd)


def _url(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    name = rng.choice(["drip", "endless", "stall-headers", "stall-body", "redirect"])
    env = {
        "LOGSCOPE_URL_TIMEOUT": "5",
        "LOGSCOPE_URL_CONNECT_TIMEOUT": "2",
        "LOGSCOPE_URL_MAX_MB": "8",
    }
    with listener(LISTENERS[name], rng) as port:
        url = f"http://user:{SECRET}@127.0.0.1:{port}/serve.log?sig={SECRET}"
        command = rng.choice(
            [["summary", url], ["check", url], ["report", url, "--html", "r.html"]]
        )
        return cli(command, cwd, env)


def _odd_names(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    name = rng.choice(
        [
            f"s3://AKIAEXAMPLE:{SECRET}@bucket/x.log",
            "zip://x.log::file:///etc/passwd",
            "reference://x.log",
            f"https://{SECRET}@127.0.0.1:9/x.log",
            f"ftp://user:{SECRET}@127.0.0.1:9/x.log",
        ]
    )
    return cli(["summary", name], cwd, {"AWS_ENDPOINT_URL": "http://127.0.0.1:9"})


def _config(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    (cwd / "victim.txt").write_text(f"root:{SECRET}:20228:0:99999:7:::\n", encoding="utf-8")
    target = cwd / "shadow.yaml"
    target.unlink(missing_ok=True)
    if rng.random() < 0.5:
        target.symlink_to(cwd / "victim.txt")
    else:
        shutil.copyfile(cwd / "victim.txt", target)
    (cwd / "cmd.txt").write_text(
        "python -m sglang.launch_server --model-path Q --tp 2 --config shadow.yaml\n",
        encoding="utf-8",
    )
    command = rng.choice(
        [
            ["args", "cmd.txt"],
            ["check", "-e", "cmd.txt", "-f", "json", "demo.log"],
            ["report", "demo.log", "-e", "cmd.txt", "--html", "r.html"],
        ]
    )
    return cli(command, cwd)


def _index(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    from sglang_logscope.log import scan_index

    big = cwd / "big.log"
    with big.open("wb") as f:
        f.write(DEMO.read_bytes())
        f.write(ROW * ((5 << 20) // len(ROW)))
    env = {scan_index.CACHE_ENV: str(cwd / "cache")}
    before = os.environ.get(scan_index.CACHE_ENV)
    os.environ[scan_index.CACHE_ENV] = env[scan_index.CACHE_ENV]
    try:
        entry = scan_index._entry(str(big))
    finally:
        if before is None:
            del os.environ[scan_index.CACHE_ENV]
        else:
            os.environ[scan_index.CACHE_ENV] = before
    assert entry is not None
    entry.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    if entry.exists() or entry.is_symlink():
        entry.unlink()
    kind = rng.choice(["fifo", "deep", "link"])
    if kind == "fifo":
        os.mkfifo(entry)
    elif kind == "deep":
        entry.write_text("[" * 300_000 + "]" * 300_000, encoding="utf-8")
        entry.chmod(0o600)
    else:
        entry.symlink_to("/dev/zero")
    return cli(["check", "big.log"], cwd, env)


def _dates(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    rows = rng.sample(
        [
            "9999-12-31 23:59:59",
            "0001-01-01 00:00:00",
            "2026-05-09 09:17:43",
            "1970-01-01 00:00:00",
        ],
        2,
    )
    text = '[2026-05-09 09:17:42] server_args=ServerArgs(model_path="/m", tp_size=1)\n' + "".join(
        f"[{r} TP0] Decode batch, #running-req: 1\n" for r in rows
    )
    (cwd / "y.log").write_text(text, encoding="utf-8")
    return cli(
        rng.choice(
            [
                ["report", "y.log", "--html", "y.html"],
                ["check", "y.log"],
                ["summary", "-f", "json", "y.log"],
            ]
        ),
        cwd,
    )


def _blank(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    (cwd / "nl.log").write_bytes(b"\n" * rng.choice([1 << 18, 1 << 20]))
    return cli([rng.choice(["summary", "check", "runs"]), "nl.log"], cwd)


def _launch(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    from sglang_logscope.watch import launch

    log = cwd / "serve.log"
    first = launch.start(["sleep", "60"], log, cwd=cwd)
    try:
        return cli(["launch", "--log", str(log), "--force", "--no-watch", "--", "sleep", "60"], cwd)
    finally:
        first.process.kill()
        first.process.wait()


def _flags(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    n = rng.choice([1000, 10_000])
    flags = (
        " ".join(f"--bogus-flag-{i} {i}" for i in range(n))
        if rng.random() < 0.5
        else "--mem 1 " * (n * 10)
    )
    (cwd / "flags.txt").write_text(
        f"python -m sglang.launch_server --model-path /m {flags}\n", encoding="utf-8"
    )
    return cli(["args", "flags.txt"], cwd)


def _options(rng: random.Random, cwd: Path) -> tuple[int | None, str]:
    (cwd / "cmd2.txt").write_text(
        "python -m sglang.launch_server --model-path /root/models/Qwen3.6-27B --tp 2\n",
        encoding="utf-8",
    )
    nines = "9" * rng.choice([400, 5000])
    return cli(
        rng.choice(
            [
                [
                    "check",
                    "--log-tz",
                    rng.choice(["/etc/passwd", "../../etc/passwd", "/dev/zero"]),
                    "demo.log",
                ],
                ["args", "--sglang-version", "0." + nines, "cmd2.txt"],
                ["budget", "-e", "cmd2.txt", "--gpus", nines[:20], "--gpu-memory", "h100"],
                ["budget", "-e", "cmd2.txt", "--gpus", "2", "--gpu-memory", nines + "GB"],
            ]
        ),
        cwd,
    )


ATTACKS: dict[str, Callable[[random.Random, Path], tuple[int | None, str]]] = {
    "probe": _probe,
    "url": _url,
    "odd-names": _odd_names,
    "config": _config,
    "index": _index,
    "dates": _dates,
    "blank-lines": _blank,
    "launch": _launch,
    "flags": _flags,
    "options": _options,
}


def run(runs: int, seed: int) -> list[Outcome]:
    """Each attack ``runs`` times, with variants drawn from ``seed``."""
    rng = random.Random(seed)
    outcomes: list[Outcome] = []
    for _ in range(runs):
        for name, attack in ATTACKS.items():
            with tempfile.TemporaryDirectory() as tmp:
                cwd = Path(tmp)
                shutil.copyfile(DEMO, cwd / "demo.log")
                code, out = attack(rng, cwd)
                outcomes.append(Outcome(name, code, _shown(out, cwd)))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=29)
    args = parser.parse_args(argv)
    outcomes = run(args.runs, args.seed)
    crashes = [o for o in outcomes if o.code == 3]
    hangs = [o for o in outcomes if o.code is None]
    echoed = [o for o in outcomes if o.echoed]
    for o in [*crashes, *hangs, *echoed]:
        print(f"{o.attack}: exit {o.code}, secret shown: {o.echoed}", file=sys.stderr)
    print(
        f"attacks fuzz: {len(outcomes)} runs ({len(ATTACKS)} attacks x {args.runs}, seed {args.seed}): "
        f"{len(crashes)} exit-3, {len(hangs)} hangs, {len(echoed)} echoed secrets"
    )
    return 1 if crashes or hangs or echoed else 0


if __name__ == "__main__":
    sys.exit(main())
