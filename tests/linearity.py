"""Linearity checks without a wall-clock limit (issue 20): the work a function does on an input
eight times larger may be at most twenty times the work on the smaller one (linear: ~8x,
quadratic: ~64x), in CPU time of this thread (other processes on a loaded machine do not count),
best of two, plus 5 ms of clock granularity; the smaller input is grown until its work is
measurable, and a failing ratio is measured again before it fails."""

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


#: The smaller input grows (doubling, up to this factor) until its work is at least
#: ``_MEASURABLE`` seconds of CPU, so a millisecond of cache or scheduler noise is not a ratio.
_GROWTH, _MEASURABLE = 16, 0.02
#: A failing ratio is measured again this many times (the big input's best): a quadratic fails
#: every time (~64x), a noisy sample does not.
_RETRIES = 3


def superlinear(run: Callable[[T], object], make: Callable[[int], T], small: int) -> str | None:
    """Why ``run`` is not linear on ``make(n)`` vs ``make(8 * n)`` (``None``: it is), ``n`` from
    ``small`` doubled until the work on it is measurable."""
    n, little = small, cpu(run, make(small))
    while little < _MEASURABLE and n < small * _GROWTH:
        n *= 2
        little = cpu(run, make(n))
    big_input = make(8 * n)
    big = cpu(run, big_input)
    for _ in range(_RETRIES):
        if big <= 20 * little + 0.005:
            return None
        big = min(big, cpu(run, big_input))
    if big <= 20 * little + 0.005:
        return None
    return f"{little:.4f}s -> {big:.4f}s of CPU for 8x the input ({n} -> {8 * n})"
