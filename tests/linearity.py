"""Linearity checks without a wall-clock limit (issue 20): the work a function does on an input
eight times larger may be at most twenty times the work on the smaller one (linear: ~8x,
quadratic: ~64x), in CPU time of this thread (other processes on a loaded machine do not count),
best of two, plus 5 ms of clock granularity."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def cpu(run: Callable[[T], object], arg: T, repeats: int = 2) -> float:
    """Best-of-``repeats`` CPU seconds of this thread for ``run(arg)``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        run(arg)
        best = min(best, time.thread_time() - start)
    return best


def superlinear(run: Callable[[T], object], make: Callable[[int], T], small: int) -> str | None:
    """Why ``run`` is not linear on ``make(small)`` vs ``make(8 * small)`` (``None``: it is)."""
    little, big = cpu(run, make(small)), cpu(run, make(8 * small))
    if big > 20 * little + 0.005:
        return f"{little:.4f}s -> {big:.4f}s of CPU for 8x the input"
    return None
