"""``summary`` of one big file with the C cut on a thread pool (issue 33, item 5): does a
pool around :meth:`~sglang_logscope.parse.bulk.BulkShape.cut` speed up a warm read?

    python -m benchmarks.summary_threads LOG [--threads 0 1 2] [--depth 2 4] [--repeat 5]

A prototype, not the library: ``cut_pieces`` is replaced in this process by one that cuts the
next ``depth`` pieces on ``threads`` threads while this thread folds (order kept; ``0``
threads: the library's own path), and ``summarize_source(LOG, helper=False)`` is timed warm,
best of ``repeat``, for each setting. The summaries are checked equal to the library's.
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from sglang_logscope.log.reader import summarize_source
from sglang_logscope.parse import _helper, lines


def pooled(threads: int, depth: int) -> Any:
    """A ``cut_pieces`` that cuts ahead on a pool of ``threads`` (``depth`` pieces ahead)."""

    def cut_pieces(pieces: Any, shape: Any, fields: Any, helper: bool) -> Iterator[Any]:
        with ThreadPoolExecutor(threads) as pool:
            ahead: deque[tuple[Any, Future[Any] | None]] = deque()
            source = iter(pieces)

            def submit() -> None:
                item = next(source, None)
                if item is not None:
                    cut = pool.submit(shape.cut, item[0], fields) if item[2] else None
                    ahead.append((item, cut))

            for _ in range(depth):
                submit()
            while ahead:
                item, cut = ahead.popleft()
                submit()
                yield item, None if cut is None else cut.result()

    return cut_pieces


def best(path: str, repeat: int) -> tuple[float, dict[str, Any]]:
    summarize_source(path, helper=False)  # warm: patterns compiled, the file cached
    times, doc = [], {}
    for _ in range(repeat):
        start = time.perf_counter()
        doc = summarize_source(path, helper=False)
        times.append(time.perf_counter() - start)
    return min(times), doc


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("--threads", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--depth", type=int, nargs="+", default=[2, 4])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    own = _helper.cut_pieces
    reference: dict[str, Any] | None = None
    for threads, depth in itertools.product(args.threads, args.depth):
        if threads == 0 and depth != args.depth[0]:
            continue  # (no pool: the depth means nothing)
        setattr(lines, "cut_pieces", pooled(threads, depth) if threads else own)  # noqa: B010
        try:
            seconds, doc = best(args.log, args.repeat)
        finally:
            setattr(lines, "cut_pieces", own)  # noqa: B010
        reference = reference if reference is not None else doc
        assert doc == reference, "the pooled summary differs from the library's"
        label = "library (no pool)" if threads == 0 else f"{threads} thread(s), {depth} ahead"
        print(f"{label}: {seconds:.4f} s", flush=True)


if __name__ == "__main__":
    main()
