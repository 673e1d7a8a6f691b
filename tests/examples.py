"""How many examples a property test tries in this suite (issue 33, item 6).

The suite is derandomized (``conftest.py``): every run tries the same examples, so the matrix
suites (Python 3.10 and 3.13, the lowest dependency floors) would repeat the examples the main
suite already tried, on another interpreter. What they are for is that interpreter and those
dependencies, so ``make test`` runs them with ``LOGSCOPE_EXAMPLE_SHARE=0.25``: each property
tries a quarter of its examples there (never fewer than ``FLOOR``), drawn from the same
derandomized seed. The main suite (``make pytest``) and a plain ``pytest`` run take every
example; ``HYPOTHESIS_PROFILE=explore`` searches further.
"""

from __future__ import annotations

import math
import os

#: The fewest examples a property tries at any share.
FLOOR = 10


def _share() -> float:
    text = os.environ.get("LOGSCOPE_EXAMPLE_SHARE", "1")
    try:
        share = float(text)
    except ValueError:
        raise SystemExit(
            f"LOGSCOPE_EXAMPLE_SHARE must be a number in (0, 1], not {text!r}"
        ) from None
    if not 0 < share <= 1:
        raise SystemExit(f"LOGSCOPE_EXAMPLE_SHARE must be in (0, 1], not {share}")
    return share


SHARE = _share()


def examples(count: int) -> int:
    """The examples a property of ``count`` examples tries in this suite."""
    if SHARE == 1:
        return count
    return min(count, max(FLOOR, math.ceil(count * SHARE)))
