"""Measure the five scale targets of issue 6 and print their ratios.

    python -m benchmarks.generate --size-mb 600            # benchmarks/out/big.log, small.log
    python -m benchmarks.run [--parse-mb 60]

Targets 1 (check) and 2 (summary and every-field parse vs the naive loop and grep) run on the
whole big log; an Event object per line (``iter_events``) and the memory figures run on its
first ``--parse-mb`` MB, and ``--full-summary`` adds summary's peak RSS on the whole log.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "out"
LOGSCOPE = [sys.executable, "-m", "sglang_logscope"]


#: Children run with their bytecode cached (as an installed package has it), in
#: benchmarks/out/pycache: this machine's shell sets PYTHONDONTWRITEBYTECODE=1, which would
#: recompile every module of the package on every start.
CHILD_ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": str(OUT / "pycache"),
}
#: As this machine's shell runs it: the package compiled from source on every start.
NO_PYC_ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONPYCACHEPREFIX"},
    "PYTHONDONTWRITEBYTECODE": "1",
}


def wall(cmd: list[str], repeat: int = 3, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Median wall time of ``repeat`` runs (after one warm-up) and the peak RSS (KiB) of the
    children."""
    env = CHILD_ENV if env is None else env
    times = []
    for i in range(repeat + 1):
        t = time.perf_counter()
        subprocess.run(
            cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env
        )
        if i:
            times.append(time.perf_counter() - t)
    return statistics.median(times), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def peak_rss(cmd: list[str]) -> float:
    """Peak RSS in MB of one run of ``cmd`` (GNU time)."""
    r = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
        env=CHILD_ENV,
    )
    return int(r.stderr.strip().splitlines()[-1]) / 1024


def snippet(code: str, path: Path, rss: bool = False) -> tuple[list[str], float]:
    """Run a measuring snippet on ``path`` in a child: the words it prints and, with ``rss``,
    its peak RSS in MB (GNU time)."""
    cmd = [sys.executable, "-c", code, str(path)]
    r = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd] if rss else cmd,
        capture_output=True,
        text=True,
        check=True,
        env=CHILD_ENV,
    )
    peak = int(r.stderr.strip().splitlines()[-1]) / 1024 if rss else 0.0
    return r.stdout.split(), peak


def lines_per_s(code: str, path: Path) -> tuple[int, float]:
    (n, secs), _ = snippet(code, path)
    return int(n), float(secs)


NAIVE = """
import sys, time
from sglang_logscope.parse.header import _FAST as HEADER_RE
t = time.perf_counter(); n = 0
with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
    for line in f:
        HEADER_RE.match(line); n += 1
print(n, time.perf_counter() - t)
"""
FULL = """
import sys, time
from sglang_logscope.parse.lines import iter_events
t = time.perf_counter(); n = 0
for e in iter_events(sys.argv[1]):
    n += e.line_count
print(n, time.perf_counter() - t)
"""
#: Every line parsed with all its fields (header parts, each spec's groups; batch and access
#: lines as columns of bulk rows), nothing folded or dropped.
RECORDS = """
import sys, time
from sglang_logscope.parse.bulk import Rows
from sglang_logscope.parse.lines import iter_records
t = time.perf_counter(); n = 0
for r in iter_records(sys.argv[1]):
    n += len(r) if r.__class__ is Rows else r.line_count
print(n, time.perf_counter() - t)
"""
#: A DataFrame of the batch events straight from a log (streamed, no Log held).
STREAM_FRAME = """
import sys
from sglang_logscope import EventKind, events_frame
df = events_frame(sys.argv[1], [EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH], messages=False)
print(len(df), df.memory_usage(deep=True).sum() / 1e6)
"""
#: summary's work in this process alone (no helper process), without the CLI's start-up.
SERIAL = """
import sys, time
from sglang_logscope.log.reader import summarize_source
t = time.perf_counter()
runs = summarize_source(sys.argv[1], helper=False)["runs"]
print(sum(r["last_line"] - r["first_line"] + 1 for r in runs), time.perf_counter() - t)
"""
FRAME = """
import sys, time
from sglang_logscope.events import EventKind
from sglang_logscope.log.reader import read_log
log = read_log(sys.argv[1])
kinds = [EventKind.PREFILL_BATCH, EventKind.DECODE_BATCH]
df = log.to_dataframe(kinds=kinds)
lean = log.to_dataframe(kinds=kinds, messages=False)
print(len(df), df.memory_usage(deep=True).sum() / 1e6, lean.memory_usage(deep=True).sum() / 1e6)
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parse-mb", type=float, default=60.0)
    ap.add_argument("--repeat", type=int, default=10, help="runs per check timing (median)")
    ap.add_argument(
        "--big-repeat", type=int, default=3, help="runs of summary on the big log (median)"
    )
    ap.add_argument(
        "--full-summary",
        action="store_true",
        help="also measure summary's peak RSS on the whole big log (about a minute)",
    )
    ap.add_argument(
        "--package-root",
        help="measure the sglang_logscope of another checkout (e.g. a `git worktree` of an "
        "earlier commit): put first on the children's PYTHONPATH",
    )
    args = ap.parse_args()
    if args.package_root:
        root = str(Path(args.package_root).resolve())
        for env in (CHILD_ENV, NO_PYC_ENV):
            env["PYTHONPATH"] = root
        CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(OUT / "pycache-other")
        os.chdir(root)  # `python -m` / `-c` put the working directory first on sys.path
    big, small, cmd = OUT / "big.log", OUT / "small.log", OUT / "cmd.txt"
    if not big.exists():
        sys.exit("run `python -m benchmarks.generate --size-mb 600` first")
    part = OUT / f"part{int(args.parse_mb)}.log"
    if not part.exists():
        with big.open("rb") as src, part.open("wb") as dst:
            chunk = src.read(int(args.parse_mb * 1e6))
            dst.write(chunk[: chunk.rfind(b"\n") + 1])
    rows: list[tuple[str, str, str]] = []
    size_mb = big.stat().st_size / 1e6

    # 1. check cost follows the last run
    check_small = [*LOGSCOPE, "check", "--expect-args", str(cmd), str(small)]
    t_small, _ = wall(check_small, args.repeat)
    t_big, _ = wall([*LOGSCOPE, "check", "--expect-args", str(cmd), str(big)], args.repeat)
    rows.append(
        (
            f"1. check, {size_mb:.0f} MB log vs its last run alone",
            f"{t_big:.3f} s vs {t_small:.3f} s",
            f"ratio {t_big / t_small:.2f} (target <= 2; median of {args.repeat})",
        )
    )

    # 2. parsing throughput, all on the big log
    t = time.perf_counter()
    out = subprocess.run(["grep", "-c", "", str(big)], capture_output=True, text=True, check=True)
    grep_lps = int(out.stdout) / (time.perf_counter() - t)
    n, secs = lines_per_s(NAIVE, big)
    naive_lps = n / secs
    t_summary, _ = wall([*LOGSCOPE, "summary", "-f", "json", str(big)], repeat=args.big_repeat)
    summary_lps = n / t_summary
    _, secs = lines_per_s(SERIAL, big)
    serial_lps = n / secs
    n_rec, secs = lines_per_s(RECORDS, big)
    records_lps = n_rec / secs
    n_full, secs = lines_per_s(FULL, part)
    full_lps = n_full / secs
    rows.append(("2. grep -c '' (I/O ceiling)", f"{grep_lps:,.0f} lines/s", ""))
    rows.append(("2. naive HEADER_RE loop", f"{naive_lps:,.0f} lines/s", "reference"))
    rows.append(
        (
            "2. logscope summary (incl. start-up)",
            f"{summary_lps:,.0f} lines/s",
            f"ratio to naive {summary_lps / naive_lps:.2f} (target >= 1; "
            f"{t_summary:.2f} s, median of {args.big_repeat})",
        )
    )
    rows.append(
        (
            "2. summary in one process (no helper)",
            f"{serial_lps:,.0f} lines/s",
            f"ratio to naive {serial_lps / naive_lps:.2f}",
        )
    )
    rows.append(
        (
            "2. iter_records (every field)",
            f"{records_lps:,.0f} lines/s",
            f"ratio to naive {records_lps / naive_lps:.2f}",
        )
    )
    rows.append(
        (
            f"2. iter_events ({part.stat().st_size / 1e6:.0f} MB; an Event object per line)",
            f"{full_lps:,.0f} lines/s",
            f"ratio to naive {full_lps / naive_lps:.2f}",
        )
    )

    # 3. memory
    part_mb = part.stat().st_size / 1e6
    rss_summary = peak_rss([*LOGSCOPE, "summary", "-f", "json", str(part)])
    rss_events = peak_rss([*LOGSCOPE, "events", "-f", "jsonl", str(part)])
    if args.full_summary:
        t = time.perf_counter()
        (nrows, frame_mb), frame_rss = snippet(STREAM_FRAME, big, rss=True)
        rows.append(
            (
                f"3. events_frame of the batch events ({size_mb:.0f} MB log, messages=False)",
                f"{int(nrows):,} rows, {float(frame_mb):.0f} MB",
                f"peak RSS {frame_rss:.0f} MB ({time.perf_counter() - t:.0f} s)",
            )
        )
        t = time.perf_counter()
        rss_big = peak_rss([*LOGSCOPE, "summary", "-f", "json", str(big)])
        rows.append(
            (
                f"3. summary peak RSS ({size_mb:.0f} MB log)",
                f"{rss_big:.0f} MB ({time.perf_counter() - t:.0f} s)",
                "target < 250 MB",
            )
        )
    rows.append(
        (
            f"3. summary peak RSS ({part_mb:.0f} MB log)",
            f"{rss_summary:.0f} MB",
            "target < 250 MB at 600 MB",
        )
    )
    rows.append(
        (
            f"3. events --format jsonl peak RSS ({part_mb:.0f} MB)",
            f"{rss_events:.0f} MB",
            "target < 250 MB at 600 MB",
        )
    )
    (nrows, frame_mb, lean_mb), _ = snippet(FRAME, part)
    for label, mb in (("", frame_mb), (", messages=False", lean_mb)):
        rows.append(
            (
                f"3. DataFrame of batch events{label}",
                f"{int(nrows):,} rows, {float(mb):.0f} MB",
                f"{float(mb) * 1e6 / int(nrows):.0f} B/row -> 3M rows ~ "
                f"{float(mb) / int(nrows) * 3e6 / 1e3:.2f} GB",
            )
        )

    # 4. start-up
    rows.append(
        (
            "4. check on the small log (wall)",
            f"{t_small:.3f} s",
            f"target < 0.3 s (median of {args.repeat}, bytecode cached)",
        )
    )
    demo = [
        *LOGSCOPE,
        "check",
        "--expect-args",
        str(ROOT / "fixtures" / "demo" / "command.txt"),
        str(ROOT / "fixtures" / "demo" / "sglang-serve.log"),
    ]
    t_demo, _ = wall(demo, args.repeat)
    t_demo_nopyc, _ = wall(demo, args.repeat, env=NO_PYC_ENV)
    rows.append(
        (
            "4. check on fixtures/demo (wall)",
            f"{t_demo:.3f} s ({t_demo_nopyc:.3f} s no .pyc)",
            f"target < 0.3 s (median of {args.repeat})",
        )
    )

    # 5. several files
    files = [str(part), str(part)]
    t1, _ = wall([*LOGSCOPE, "summary", "-f", "json", files[0]], repeat=1)
    t2, _ = wall([*LOGSCOPE, "summary", "-f", "json", *files], repeat=1)
    rows.append(
        (
            "5. summary of 2 files vs 1 (2 cores)",
            f"{t2:.2f} s vs {t1:.2f} s",
            f"ratio {t2 / t1:.2f} (serial = 2)",
        )
    )

    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:<28} {note}")


if __name__ == "__main__":
    main()
