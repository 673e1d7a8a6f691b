"""``events -f jsonl`` with the C lane and without it, on any logs (issue 33, item 5;
docs/performance.md, "Session 15"): per file the characters each way, whether they are equal,
and how many rows the lane wrote; ``--reference`` also compares both with every event through
``Event.to_dict`` (slow: an object a line).

    python -m benchmarks.lane_equal benchmarks/out/many60/big.log benchmarks/out/long60/big.log
    python -m benchmarks.lane_equal --reference --pieces 4096 1048576 -- DIR/*/*.log

``--pieces``: the reader's piece sizes to try (small pieces make many blocks, so the lane's
learnt plans meet many rows). Exit status 1 when any file differs.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from unittest import mock

from sglang_logscope.parse import fastscan
from sglang_logscope.parse import source as _source
from sglang_logscope.parse.bulk_json import BulkJson, event_json, iter_event_json
from sglang_logscope.parse.lines import iter_events


def written(data: bytes, piece: int, lane: bool) -> tuple[str, BulkJson]:
    """The JSON lines of ``data`` (pieces of ``piece`` bytes), the lane on or off."""
    writer = BulkJson(True)
    with (
        mock.patch.object(_source, "PIECE_BYTES", piece),
        mock.patch.object(fastscan.FAST_LANE, "on", lane),
    ):
        return "\n".join(iter_event_json(io.BytesIO(data), None, True, writer)), writer


def compare(path: Path, piece: int, reference: bool) -> bool:
    data = path.read_bytes()
    on, writer = written(data, piece, True)
    off, _ = written(data, piece, False)
    same = on == off
    if reference:
        same &= on == "\n".join(event_json(e, True) for e in iter_events(io.BytesIO(data)))
    print(
        f"{path} (pieces of {piece}): {len(on):,} / {len(off):,} characters, "
        f"{'equal' if same else 'DIFFERENT'}; {writer.lane:,} of {writer.fast + writer.slow:,} "
        "rows by the lane"
    )
    return same


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("logs", nargs="+", type=Path)
    ap.add_argument("--pieces", type=int, nargs="+", default=[_source.PIECE_BYTES])
    ap.add_argument("--reference", action="store_true", help="also against every Event")
    args = ap.parse_args()
    if not fastscan.available():
        print("the C lane is not built here: nothing to compare")
        return 1
    results = [compare(p, n, args.reference) for p in args.logs if p.is_file() for n in args.pieces]
    print(f"{sum(results)} of {len(results)} equal")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
