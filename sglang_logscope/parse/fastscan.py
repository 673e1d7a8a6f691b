"""C-speed scans of a log's bytes (``parse/_rowscan.c``), where they were built.

Two scans: the bulk path's fast lane (:func:`rows_summary`: is every line of a block a plain
serving row, and what does folding them need; :func:`series_columns`: the report's columns of
such a block) and the byte pass's marks of a block
(:func:`block_marks`: newlines, argparse ``usage:`` lines, ``server_args=`` banners). Both
are optional: a build without a C compiler has neither, and every caller then takes its
Python path, to the same answers (tests compare the two ways). ``LOGSCOPE_NO_FAST_LANE=1``,
or ``FAST_LANE.on = False``, makes every caller take the Python path here too.
"""

from __future__ import annotations

import os
from typing import Final

try:  # platform: the C scans are optional (a build without a compiler has none)
    from . import _rowscan
except ImportError:  # pragma: no cover - built wherever the tests run
    _rowscan = None  # type: ignore[assignment]

#: (prefix, alternative) of each batch line the lane reads, and the access line's alternative.
LaneTable = tuple[tuple[tuple[bytes, int], ...], int]
LaneReading = tuple[int, bytes, bytes, bool, int, int]


class _FastLane:
    """Whether the C scans are used (off: every caller takes its Python path)."""

    def __init__(self) -> None:
        self.on = os.environ.get("LOGSCOPE_NO_FAST_LANE", "") in ("", "0")


FAST_LANE: Final = _FastLane()


def available() -> bool:
    """Whether the C scans are built here and switched on."""
    return _rowscan is not None and FAST_LANE.on


def rows_summary(data: bytes, table: LaneTable) -> LaneReading | None:
    """The fast lane's reading of a block (see ``_rowscan.c``), ``None`` when a line of it is
    not a plain serving row or the lane is off."""
    if not available():
        return None
    return _rowscan.rows_summary(data, *table)


SeriesColumns = tuple[list[bytes], list[bytes], tuple[list[bytes | None], ...], list[bytes]]


def series_columns(data: bytes, table: LaneTable, alternatives: int) -> SeriesColumns | None:
    """The series layout's columns of a block of plain serving rows, as the regex's split
    gives them (times, ranks, each alternative's witness, rests); ``None`` as
    :func:`rows_summary` gives it."""
    if not available():
        return None
    return _rowscan.series_columns(data, *table, alternatives)


def block_marks(data: bytes, skip: int) -> tuple[int, list[int], list[int]] | None:
    """The newlines in ``data[skip:]``, the offsets of lines starting ``usage: `` (after a
    newline of ``data``) and of each ``server_args=``; ``None`` when the scans are off."""
    if not available():
        return None
    return _rowscan.block_marks(data, skip)
