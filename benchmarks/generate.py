"""Generate a realistic large SGLang serving log (and the small log of its last run).

Two shapes (``--shape``): ``many`` (below) and ``long``, the commonest production log: one old
run that crashed, then one run (the real 069 hybrid startup) that became ready and served for
hours, its decode lines carrying the hybrid and speculative fields (``#full token``, ``mamba
num``, ``mamba usage``, ``accept len``, ``accept rate``). Its ``small.log`` is that run's
startup and its last lines only (about what a check has to read).

The log is a sequence of runs, each built from a real startup section (``fixtures/real``:
069 = 0.5.x hybrid model with TP0/TP1, 037 = 0.4.x behind ``docker logs -t``, 065 = 0.5.x
single GPU) re-stamped to a new time, followed by serving lines of that run's release era
(prefill and decode batch lines with TP / DP prefixes, uvicorn access lines, shapes taken from
the catalog samples in :mod:`sglang_logscope.parse.messages`), and an end (a scheduler traceback, a
sigquit, or simply the next launch). The last run is the bundled demo run
(``fixtures/demo/sglang-serve.log``: a stale launch that died with ``Not enough memory``), so
``check --expect-args fixtures/demo/command.txt`` on the big log must give the same answer as
on ``small.log``, which holds only that run.

    python -m benchmarks.generate --size-mb 600 --out benchmarks/out
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}")
_FMT = "%Y-%m-%d %H:%M:%S"

#: Startup sections: fixture, the era of its serving lines, and the rank prefixes it batches on.
TEMPLATES = (("069", "hybrid", ("TP0",)), ("037", "0.4", ("TP0",)), ("065", "0.5.9", ("TP0",)))
#: The last run of the big log (the demo's stale launch).
LAST_RUN = FIXTURES / "demo" / "sglang-serve.log"
LAST_RUN_START = datetime(2026, 5, 9, 9, 17, 42)


def startup(fixture: str) -> list[str]:
    """The real lines of a fixture up to (not including) its first batch line."""
    lines = (FIXTURES / "real" / fixture / "server.log").read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if "Prefill batch" in line or "Decode batch" in line:
            return lines[:i]
    return lines


def first_bracket_stamp(lines: list[str]) -> datetime:
    for line in lines:
        m = re.search(r"\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})", line)
        if m:
            return datetime.strptime(m.group(1), _FMT)
    raise ValueError("template without a timestamp")


def restamp(lines: list[str], start: datetime) -> tuple[list[str], datetime]:
    """Shift every timestamp of ``lines`` so the first bracketed one becomes ``start``."""
    delta = start - first_bracket_stamp(lines)
    last = start

    def shift(m: re.Match[str]) -> str:
        nonlocal last
        when = datetime.strptime(m.group(0), _FMT) + delta
        last = max(last, when)
        return when.strftime(_FMT)

    return [_STAMP.sub(shift, line) for line in lines], last


class Serving:
    """Serving lines of one era: batch lines on rank prefixes and uvicorn access lines."""

    def __init__(self, era: str, ranks: tuple[str, ...], rng: random.Random) -> None:
        self.era = era
        self.ranks = ranks
        self.rng = rng
        self.outer = era == "0.4"  # docker logs -t prefix

    def _head(self, ts: datetime, rank: str | None) -> str:
        stamp = ts.strftime(_FMT)
        inner = f"[{stamp} {rank}]" if rank else f"[{stamp}]"
        if self.outer:
            return f"{(ts + timedelta(hours=16)).strftime(_FMT)} {inner}"
        return inner

    def prefill(self, ts: datetime, rank: str) -> str:
        r = self.rng
        new, cached, running, queue = r.randint(1, 8), r.randint(1, 9000), r.randint(0, 64), 0
        tokens = r.randint(16, 16384)
        if self.era == "0.4":
            body = (
                f"Prefill batch. #new-seq: {new}, #new-token: {tokens}, #cached-token: {cached}, "
                f"cache hit rate: {r.random() * 100:.2f}%, token usage: {r.random():.2f}, "
                f"#running-req: {running}, #queue-req: {queue}"
            )
        elif self.era.startswith("hybrid"):
            body = (
                f"Prefill batch, #new-seq: {new}, #new-token: {tokens}, #cached-token: {cached}, "
                f"full token usage: {r.random():.2f}, mamba usage: {r.random():.2f}, "
                f"#running-req: {running}, #queue-req: {queue}, #pending-token: 0, "
                f"cuda graph: False, input throughput (token/s): {r.random() * 9000:.2f}"
            )
        else:
            body = (
                f"Prefill batch, #new-seq: {new}, #new-token: {tokens}, #cached-token: {cached}, "
                f"token usage: {r.random():.2f}, #running-req: {running}, #queue-req: {queue}, "
                f"input throughput (token/s): {r.random() * 9000:.2f}, cuda graph: False"
            )
        return f"{self._head(ts, rank)} {body}"

    def decode(self, ts: datetime, rank: str) -> str:
        r = self.rng
        running, tokens = r.randint(1, 64), r.randint(100, 200000)
        if self.era == "0.4":
            body = (
                f"Decode batch. #running-req: {running}, #token: {tokens}, token usage: "
                f"{r.random():.2f}, gen throughput (token/s): {r.random() * 3000:.2f}, #queue-req: 0"
            )
        elif self.era == "hybrid-spec":
            body = (
                f"Decode batch, #running-req: {running}, #full token: {tokens}, full token usage: "
                f"{r.random():.2f}, mamba num: {running * 2}, mamba usage: {r.random():.2f}, "
                f"accept len: {1 + r.random() * 3:.2f}, accept rate: {r.random():.2f}, "
                f"cuda graph: True, gen throughput (token/s): {r.random() * 3000:.2f}, #queue-req: 0"
            )
        elif self.era == "hybrid":
            body = (
                f"Decode batch, #running-req: {running}, #full token: {tokens}, full token usage: "
                f"{r.random():.2f}, mamba num: {running * 2}, mamba usage: {r.random():.2f}, "
                f"cuda graph: True, gen throughput (token/s): {r.random() * 3000:.2f}, #queue-req: 0"
            )
        else:
            body = (
                f"Decode batch, #running-req: {running}, #token: {tokens}, token usage: "
                f"{r.random():.2f}, accept len: {1 + r.random() * 3:.2f}, accept rate: "
                f"{r.random():.2f}, cuda graph: True, gen throughput (token/s): "
                f"{r.random() * 3000:.2f}, #queue-req: 0"
            )
        return f"{self._head(ts, rank)} {body}"

    def access(self, ts: datetime) -> str:
        r = self.rng
        path = r.choice(("/v1/chat/completions", "/v1/completions", "/generate", "/health"))
        method = "GET" if path == "/health" else "POST"
        client = f"10.0.{r.randint(0, 255)}.{r.randint(1, 254)}:{r.randint(30000, 65000)}"
        return f'{self._head(ts, None)} INFO:     {client} - "{method} {path} HTTP/1.1" 200 OK'

    def lines(self, start: datetime, step: timedelta) -> Iterator[tuple[str, datetime]]:
        ts = start
        r = self.rng
        while True:
            ts += step
            roll = r.random()
            rank = r.choice(self.ranks)
            if roll < 0.55:
                yield self.decode(ts, rank), ts
            elif roll < 0.8:
                yield self.prefill(ts, rank), ts
            else:
                yield self.access(ts), ts


_TRACEBACK = """{head} Scheduler hit an exception: Traceback (most recent call last):
  File "/usr/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 2930, in run_scheduler_process
    scheduler.event_loop_normal()
  File "/usr/lib/python3.12/site-packages/sglang/srt/managers/scheduler.py", line 1012, in event_loop_normal
    result = self.run_batch(batch)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.06 GiB is free.
"""


def ending(kind: str, ts: datetime, head: str) -> list[str]:
    if kind == "traceback":
        return _TRACEBACK.format(head=head).splitlines()
    if kind == "sigquit":
        return [
            f"[{ts.strftime(_FMT)}] Received sigquit from a child process. It usually means the child failed."
        ]
    return []


def generate(out: Path, size_mb: float, seed: int = 0, runs: int = 6) -> dict[str, Path]:
    """Write ``big.log`` (about ``size_mb`` MB), ``small.log`` (its last run) and ``cmd.txt``."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    big, small = out / "big.log", out / "small.log"
    target = int(size_mb * 1_000_000)
    last_lines = LAST_RUN.read_text(encoding="utf-8").splitlines()
    last_bytes = sum(len(x) + 1 for x in last_lines)
    per_run = max(1, (target - last_bytes) // max(1, runs - 1))
    start = datetime(2026, 3, 1, 8, 0, 0)
    # the serving lines of all earlier runs fit before the demo run starts
    budget_s = (LAST_RUN_START - start).total_seconds() - 3600 * (runs + 1)
    approx_lines = max(1, (target - last_bytes) // 100)
    step = timedelta(seconds=max(0.001, budget_s / approx_lines))
    written = 0
    with big.open("w", encoding="utf-8", newline="\n") as f:
        when = start
        for index in range(runs - 1):
            fixture, era, ranks = TEMPLATES[index % len(TEMPLATES)]
            if index % 3 == 1:
                ranks = ("DP0 TP0", "DP1 TP4")
            lines, when = restamp(startup(fixture), when)
            chunk = "\n".join(lines) + "\n"
            f.write(chunk)
            written += len(chunk)
            goal = written + per_run - len(chunk)
            serving = Serving(era, ranks, rng)
            buf: list[str] = []
            size = 0
            for line, ts in serving.lines(when, step):
                buf.append(line)
                size += len(line) + 1
                when = ts
                if len(buf) >= 10000:
                    f.write("\n".join(buf) + "\n")
                    buf.clear()
                if written + size >= goal:
                    break
            if buf:
                f.write("\n".join(buf) + "\n")
            written += size
            end_kind = ("traceback", "sigquit", "none")[index % 3]
            tail = ending(end_kind, when, serving._head(when, "TP0"))
            if tail:
                f.write("\n".join(tail) + "\n")
                written += sum(len(x) + 1 for x in tail)
            when += timedelta(minutes=30)
        if when >= LAST_RUN_START - timedelta(minutes=10):
            raise ValueError("earlier runs overran the last run's start: lower the size")
        f.write("\n".join(last_lines) + "\n")
    small.write_text("\n".join(last_lines) + "\n", encoding="utf-8")
    cmd = out / "cmd.txt"
    shutil.copyfile(FIXTURES / "demo" / "command.txt", cmd)
    return {"big": big, "small": small, "cmd": cmd}


#: The long run's startup (real: 069, hybrid GDN, TP0) and its intended command, as typed.
LONG_RUN = "069"
LONG_CMD = (
    "python -m sglang.launch_server --model-path /data/cache/huggingface/hub/"
    "models--mattbucci--Qwen3.6-27B-AWQ/snapshots/f541031dfc1bf5da3f198b52b9bf44cbd5ceee49 "
    "--tp-size 2 --quantization awq --kv-cache-dtype fp8_e4m3 --mem-fraction-static 0.85 "
    "--context-length 262144 --chunked-prefill-size 2048 --attention-backend triton "
    "--disable-cuda-graph\n"
)
#: The long run's last lines: an orderly stop (uvicorn's shutdown lines).
_LONG_END = (
    "{head} INFO:     Shutting down",
    "{head} INFO:     Waiting for application shutdown.",
    "{head} INFO:     Application shutdown complete.",
)
TAIL_LINES = 40


def _write_serving(
    f: Any, serving: Serving, when: datetime, step: timedelta, goal: int
) -> tuple[datetime, list[str]]:
    """Serving lines from ``when`` until ``goal`` bytes are written; the time of the last one
    and the last :data:`TAIL_LINES` lines."""
    buf: list[str] = []
    size = 0
    last: list[str] = []
    for line, ts in serving.lines(when, step):
        buf.append(line)
        size += len(line) + 1
        when = ts
        if len(buf) >= 10000:
            f.write("\n".join(buf) + "\n")
            last = buf[-TAIL_LINES:]
            buf.clear()
        if size >= goal:
            break
    if buf:
        f.write("\n".join(buf) + "\n")
        last = (last + buf)[-TAIL_LINES:]
    return when, last


def generate_long(out: Path, size_mb: float, seed: int = 0, hours: float = 17.0) -> dict[str, Path]:
    """The long-last-run shape: ``big.log`` (an old crashed run, then one run serving for
    ``hours``), ``small.log`` (that run's startup and last lines) and ``cmd.txt``."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    big, small = out / "big.log", out / "small.log"
    target = int(size_mb * 1_000_000)
    old_lines, when = restamp(startup("065"), datetime(2026, 5, 24, 9, 0, 0))
    with big.open("w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(old_lines) + "\n")
        old = Serving("0.5.9", ("TP0",), rng)
        when, _ = _write_serving(f, old, when, timedelta(seconds=0.5), max(1, target // 100))
        crash = ending("traceback", when, old._head(when, "TP0"))
        f.write("\n".join(crash) + "\n")
        lines, when = restamp(startup(LONG_RUN), when + timedelta(minutes=20))
        f.write("\n".join(lines) + "\n")
        approx = max(1, target // 230)
        step = timedelta(seconds=hours * 3600 / approx)
        serving = Serving("hybrid-spec", ("TP0",), rng)
        goal = max(1, target - f.tell())
        when, last = _write_serving(f, serving, when, step, goal)
        end = [x.format(head=serving._head(when, None)) for x in _LONG_END]
        f.write("\n".join(end) + "\n")
    small.write_text("\n".join([*lines, *last, *end]) + "\n", encoding="utf-8")
    cmd = out / "cmd.txt"
    cmd.write_text(LONG_CMD, encoding="utf-8")
    return {"big": big, "small": small, "cmd": cmd}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    ap.add_argument("--runs", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--shape",
        choices=("many", "long"),
        default="many",
        help="many runs (default), or one old crashed run and one long serving run",
    )
    args = ap.parse_args()
    if args.shape == "long":
        paths = generate_long(args.out, args.size_mb, seed=args.seed)
    else:
        paths = generate(args.out, args.size_mb, seed=args.seed, runs=args.runs)
    for name, path in paths.items():
        print(f"{name}: {path} ({path.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
