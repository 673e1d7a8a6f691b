"""The scaling curve: each command at several log sizes, on both log shapes, measured so the
figures reproduce on a loaded machine.

    python -m benchmarks.curve [--sizes 6 60 600] [--shapes many long] [--repeat 5]

For each shape and size it generates the log once (``benchmarks/out/<shape><MB>/``: see
:mod:`benchmarks.generate`), then runs every command ``--repeat`` times *interleaved* (one
run of each command in turn, so a burst of load hits all of them alike) and prints per
command the median wall time with its min–max, the median CPU time (user + system of the
child and its children), the peak RSS and the 1-minute load average seen during its runs.
Ratios between commands are what carry over from one machine (or one load) to another.

Commands: ``check`` on the big log and on its small log (the checked run's startup and last
lines) — on the big log as a first check (an empty scan index) and as a check of a log checked
before (the index the previous round left; ``--extra grown``: a copy of the log checked when
it was 1 % shorter, then grown back) —, ``summary`` (CLI, default helper process) and the same summary in one process, the
naive ``HEADER_RE.match`` loop, ``lnav`` counting the lines when it is installed (the peer to
beat; ``apt-get install lnav``), and optionally ``events --format jsonl``, ``report --html``,
``read_log`` and ``events_frame`` (``--extra``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.generate import generate, generate_long
from benchmarks.run import CHILD_ENV, NAIVE, OUT, SERIAL

LOGSCOPE = [sys.executable, "-m", "sglang_logscope"]
READ_LOG = """
import sys
from sglang_logscope import read_log
log = read_log(sys.argv[1])
print(len(log.events))
"""
STREAM_FRAME = """
import sys
from sglang_logscope import EventKind, events_frame
df = events_frame(sys.argv[1], [EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH], messages=False)
print(len(df))
"""


@dataclass
class Sample:
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    load: list[float] = field(default_factory=list)


def measure(cmd: Sequence[str], stdout: Path | None = None) -> tuple[float, float, float]:
    """Wall and CPU seconds (user + system, the child's whole tree: wait4 counts the children
    it reaped) and peak RSS (MB, GNU time's ``%M`` of the command itself: a forked child's own
    count would start at this process's size) of one run of ``cmd``."""
    rss_file = OUT / "curve-rss.txt"
    wrapped = ["/usr/bin/time", "-f", "%M", "-o", str(rss_file), *cmd]
    out = stdout.open("wb") if stdout else subprocess.DEVNULL
    try:
        t = time.perf_counter()
        proc = subprocess.Popen(wrapped, stdout=out, stderr=subprocess.DEVNULL, env=CHILD_ENV)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        if stdout:
            out.close()  # type: ignore[union-attr]
    text = rss_file.read_text().split()
    rss = int(text[-1]) / 1024 if text and text[-1].isdigit() else float("nan")
    return wall, usage.ru_utime + usage.ru_stime, rss


def ensure(shape: str, size_mb: float) -> dict[str, Path]:
    """The generated logs of one shape and size (made once; ``benchmarks/out`` is ignored)."""
    out = OUT / f"{shape}{size_mb:g}"
    paths = {"big": out / "big.log", "small": out / "small.log", "cmd": out / "cmd.txt"}
    if all(p.exists() for p in paths.values()):
        return paths
    sys.stderr.write(f"generating {out} ...\n")
    if shape == "long":
        return generate_long(out, size_mb)
    return generate(out, size_mb)


#: ``check``'s scan index (log/scan_index.py): kept between the rounds (a log checked before),
#: emptied before every run (the first check of a file), and for the grown copy.
INDEX_DIR = OUT / "curve-index"
FIRST_DIR = OUT / "curve-index-first"
GROWN_DIR = OUT / "curve-index-grown"
#: The grown case: the index was written when the log was this much shorter.
GROWN_SHARE = 0.01


def _with_index(where: Path, cmd: list[str]) -> list[str]:
    return ["/usr/bin/env", f"LOGSCOPE_CACHE_DIR={where}", *cmd]


def commands(paths: dict[str, Path], extra: Sequence[str]) -> dict[str, list[str]]:
    big, small, cmd = (str(paths[k]) for k in ("big", "small", "cmd"))
    py = sys.executable
    check = [*LOGSCOPE, "check", "-e", cmd]
    out: dict[str, list[str]] = {
        "check small": _with_index(INDEX_DIR, [*check, small, "-f", "json"]),
        "check big, first check": _with_index(FIRST_DIR, [*check, big, "-f", "json"]),
        "check big, checked before": _with_index(INDEX_DIR, [*check, big, "-f", "json"]),
        "naive loop": [py, "-c", NAIVE, big],
        "summary (CLI)": [*LOGSCOPE, "summary", big, "-f", "json"],
        "summary, one process": [py, "-c", SERIAL, big],
    }
    lnav = shutil.which("lnav")
    if lnav:
        out["lnav (count lines)"] = [lnav, "-n", "-c", ";SELECT count(*) FROM all_logs", big]
    if "events" in extra:
        out["events --format jsonl"] = [*LOGSCOPE, "events", "-f", "jsonl", big]
    if "report" in extra:
        html = str(OUT / "curve-report.html")
        out["report --html"] = [*LOGSCOPE, "report", big, "--html", html, "-e", cmd]
    if "read_log" in extra:
        out["read_log"] = [py, "-c", READ_LOG, big]
    if "frame" in extra:
        out["events_frame (batch)"] = [py, "-c", STREAM_FRAME, big]
    if "grown" in extra:
        grown = str(paths["big"].with_name("grown.log"))
        out[f"check big, grown {GROWN_SHARE:.0%} since"] = _with_index(
            GROWN_DIR, [*check, grown, "-f", "json"]
        )
    return out


def before_run(name: str, paths: dict[str, Path]) -> None:
    """Untimed set-up of one run: an empty index for a first check; for the grown case, the
    log copy cut short, checked (the index written), then grown back to the big log."""
    if name == "check big, first check":
        shutil.rmtree(FIRST_DIR, ignore_errors=True)
    if not name.startswith("check big, grown"):
        return
    big = paths["big"]
    grown = big.with_name("grown.log")  # our own copy: the benchmark log itself is only read
    if not grown.exists() or grown.stat().st_size != big.stat().st_size:
        shutil.copyfile(big, grown)
    size = big.stat().st_size
    cut = int(size * (1 - GROWN_SHARE))
    os.truncate(grown, cut)
    cmd = _with_index(GROWN_DIR, [*LOGSCOPE, "check", str(grown), "-f", "json"])
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=CHILD_ENV)
    with big.open("rb") as src, grown.open("ab") as dst:
        src.seek(cut)
        shutil.copyfileobj(src, dst)


def run_interleaved(
    cmds: dict[str, list[str]], repeat: int, paths: dict[str, Path]
) -> dict[str, Sample]:
    """Every command once per round (after one warm-up round), ``repeat`` rounds."""
    samples = {name: Sample() for name in cmds}
    for round_ in range(repeat + 1):
        for name, cmd in cmds.items():
            before_run(name, paths)
            load = os.getloadavg()[0]
            wall, cpu, rss = measure(cmd)
            if round_:
                s = samples[name]
                s.wall.append(wall)
                s.cpu.append(cpu)
                s.rss_mb.append(rss)
                s.load.append(max(load, os.getloadavg()[0]))
    return samples


def line(name: str, s: Sample, base: Sample | None, loop: Sample | None) -> str:
    med = statistics.median(s.wall)
    ratio = f"x{med / statistics.median(base.wall):.2f} small" if base else ""
    vs_loop = f"x{med / statistics.median(loop.wall):.2f} loop" if loop else ""
    return (
        f"  {name:<24} wall {med:8.3f} s ({min(s.wall):.3f}-{max(s.wall):.3f})  "
        f"cpu {statistics.median(s.cpu):8.3f} s  rss {max(s.rss_mb):6.0f} MB  "
        f"load {min(s.load):.1f}-{max(s.load):.1f}  {ratio} {vs_loop}"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=float, nargs="+", default=[6, 60, 600])
    ap.add_argument("--shapes", nargs="+", choices=("many", "long"), default=["many", "long"])
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds (median, min-max)")
    ap.add_argument(
        "--extra",
        nargs="*",
        default=[],
        choices=("events", "report", "read_log", "frame", "grown"),
        help="also time these (slow on big logs)",
    )
    ap.add_argument("--only", nargs="*", default=None, help="only the commands named so")
    args = ap.parse_args()
    print(f"{os.cpu_count()} CPUs; Python {sys.version.split()[0]}; repeat {args.repeat}")
    for shape in args.shapes:
        for size in args.sizes:
            paths = ensure(shape, size)
            cmds = commands(paths, args.extra)
            if args.only is not None:
                cmds = {k: v for k, v in cmds.items() if k in args.only or k == "check small"}
            samples = run_interleaved(cmds, args.repeat, paths)
            mb = paths["big"].stat().st_size / 1e6
            with paths["big"].open("rb") as f:
                lines = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 24), b""))
            print(f"{shape} {mb:.0f} MB ({lines:,} lines):")
            base = samples.get("check small")
            loop = samples.get("naive loop")
            for name, s in samples.items():
                print(
                    line(
                        name,
                        s,
                        base if name.startswith("check big") else None,
                        loop if name != "naive loop" else None,
                    )
                )
            sys.stdout.flush()


if __name__ == "__main__":
    main()
