"""Fuzz the C fast lane (``sglang_logscope/parse/_rowscan.c``) under AddressSanitizer and
UndefinedBehaviorSanitizer: a sanitized copy is built in a temporary folder, loaded with the
sanitizer runtimes preloaded, and fed seeded mutations of real serving lines (bytes changed,
inserted, cut; blocks cut anywhere). Each reading it accepts is checked against the joined
regex's (the report's decode values against a line shape's regex and ``float``, the JSON
lines of ``_rowjson.h`` against the reference's), so a memory error or a disagreement ends
the run with a report.

    python -m benchmarks.fuzz.rowscan_asan --runs 300000 --seed 2

Needs gcc with its sanitizer runtimes (skipped, and says so, where there are none); fixed
runs and seed: the same inputs every time. ``make fuzz`` (part of ``make test``) runs it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "sglang_logscope" / "parse" / "_rowscan.c"

CHILD = r"""
import random, sys
sys.path.insert(0, sys.argv[1])
import _rowscan
from sglang_logscope.parse.bulk import LaneSummary, bulk_shape

shape = bulk_shape()
layout = shape.lean
step = layout.width + 1
lines = [
    b"[2026-05-24 09:00:59 TP0] Decode batch, #running-req: 21, #token: 91798",
    b"2026-03-09 04:32:23.5Z [2024-02-29 23:59:59.123456 DP0 TP1] Prefill batch. #new-seq: 1",
    b'[2026-03-01 08:00:32] INFO:     127.0.0.1:39132 - "GET /model_info HTTP/1.1" 200 OK',
]
import struct
from sglang_logscope.events import EventKind
from sglang_logscope.log.series import _template as template
from sglang_logscope.parse.shapes import SERIES_NUMBER as NUMBER

import io
from sglang_logscope.parse.bulk import LANE, _clean
from sglang_logscope.parse.bulk_json import BulkJson, event_json
from sglang_logscope.parse.lines import iter_events, iter_records

learner = BulkJson(True)  # the lane plans of the seed lines' shapes, checked (the built module)
for record in iter_records(io.BytesIO(b"\n".join(lines * 3) + b"\n"), fields=LANE):
    learner.text(record)
plans = learner._plans(record)
assert any(plans), "no lane plan learnt"
sep = learner.time_sep.encode()

DECODE = [
    a.number for a in shape.alts if a.spec.kind is EventKind.DECODE_BATCH and a.rest_field == "_pairs"
]
rng = random.Random(int(sys.argv[3]))
taken = 0
for _ in range(int(sys.argv[2])):
    block = [bytearray(rng.choice(lines)) for _ in range(rng.randrange(1, 4))]
    for line in block:
        for _ in range(rng.randrange(0, 3)):
            op, k = rng.randrange(3), rng.randrange(len(line) + 1)
            if op == 0 and k < len(line):
                line[k] = rng.randrange(128)
            elif op == 1:
                line[k:k] = bytes([rng.choice(b"0123456789 ]-.:,[")])
            elif line:
                del line[k : k + rng.randrange(1, 5)]
    data = b"\n".join(bytes(line) for line in block)
    if rng.random() < 0.2:
        data = data[: rng.randrange(len(data) + 1)]
    _rowscan.block_marks(data, rng.randrange(len(data) + 1))
    found = _rowscan.rows_summary(data, *shape.lane)
    columns = _rowscan.series_columns(data, *shape.lane, len(shape.alts))
    assert (found is None) == (columns is None), data
    if found is None:
        continue
    taken += 1
    parts = layout.fast.split(b"\n" + data)
    times = parts[1 + layout.index["ts"] :: step]
    assert not any(parts[0::step]) and LaneSummary(*found)[:3] == (len(times), times[0], times[-1]), data
    series = shape.series
    cols = series.fast.split(b"\n" + data)
    width = series.width + 1
    ts, ranks, witness, rest = columns
    assert cols[1 + series.index["rest"] :: width] == rest and cols[1 + series.index["ts"] :: width] == ts, data
    if _clean(data) and rng.random() < 0.3:  # JSON lines (of blocks the lane is given)
        text, count, missed = _rowscan.json_lines(data, *shape.lane, 7, sep, plans, learner.ranks)
        got = text.split("\n")
        ref = [event_json(e, True) for e in iter_events(io.BytesIO(data + b"\n"), first_line=7)]
        assert count == len(got) == len(ref), data
        skip = {at for _, at in missed}
        assert all(g == r for k, (g, r) in enumerate(zip(got, ref)) if k not in skip), data
    for alt in DECODE:  # the report's decode values of the block (shape_values, decode_values)
        rows = [j for j, w in enumerate(witness[alt]) if w is not None]
        texts = [rest[j] for j in rows]
        literals, picks, pattern = (), (), None
        shaped = [t for t in texts if t[:1] and not t[:1].isdigit() and NUMBER.search(t)]
        if shaped and rng.random() < 0.8:
            sample = rng.choice(shaped)
            count = len(NUMBER.findall(sample))
            picks = tuple(sorted(rng.sample(range(count), min(count, 2))))
            pattern, literals = template(sample, picks)
        got = _rowscan.decode_values(data, *shape.lane, alt, literals, picks)
        assert got is not None, data
        minutes, labels, index, flags, values, misses = got
        assert minutes == b"".join(ts[j][:16].ljust(16, b"\0") for j in rows), data
        assert [labels[k] for k in struct.unpack(f"{len(rows)}i", index)] == [ranks[j] for j in rows]
        assert misses == [t for t, f in zip(texts, flags) if not f], data
        if pattern is None:
            assert not any(flags), data
            continue
        assert _rowscan.shape_values(texts, literals, picks) == (flags, values), data
        parts = pattern.split(b"\n".join(texts))
        groups = [parts[k :: pattern.groups + 1] for k in range(1, pattern.groups + 1)]
        assert [m is not None for m in groups[0]] == [f == 1 for f in flags], data
        read = [float(g[j]) for j in range(len(texts)) if groups[0][j] is not None for g in groups[1:]]
        assert list(struct.unpack(f"{len(read)}d", values)) == read, data
print(f"rowscan under ASan/UBSan: {sys.argv[2]} blocks, {taken} read by the lane, no error")
"""


def build(folder: Path) -> None:
    include = sysconfig.get_paths()["include"]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    out = folder / f"_rowscan{suffix}"
    flags = ["-O1", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
    cmd = ["gcc", *flags, "-shared", "-fPIC", f"-I{include}", str(SOURCE), "-o", str(out)]
    subprocess.run(cmd, check=True)


def runtime(name: str) -> str:
    return subprocess.run(
        ["gcc", f"-print-file-name={name}"], capture_output=True, text=True, check=True
    ).stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=300_000)
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args()
    libs = [runtime(n) for n in ("libasan.so", "libubsan.so")] if shutil.which("gcc") else []
    if not libs or not all(os.path.isabs(lib) for lib in libs):
        print("rowscan under ASan/UBSan: skipped (no gcc with its sanitizer runtimes here)")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        build(Path(tmp))
        env = {
            **os.environ,
            "LD_PRELOAD": ":".join(libs),
            "PYTHONMALLOC": "malloc",  # every object its own allocation, with redzones
            "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
            "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
        }
        argv = [sys.executable, "-c", CHILD, tmp, str(args.runs), str(args.seed)]
        return subprocess.run(argv, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
