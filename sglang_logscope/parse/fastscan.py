"""C-speed scans of a log's bytes (``parse/_rowscan.c``), where they were built.

The scans: the bulk path's fast lane (:func:`rows_summary`: is every line of a block a plain
serving row, and what does folding them need; :func:`series_columns`: the report's columns of
such a block) and the byte pass's marks of a block
(:func:`block_marks`: newlines, argparse ``usage:`` lines, ``server_args=`` banners); and
the report's decode values of a block's lines of one shape (:func:`shape_values`); the
JSON lines of such a block (:func:`json_lines`). All
are optional: a build without a C compiler has none, and every caller then takes its
Python path, to the same answers (tests compare the two ways). ``LOGSCOPE_NO_FAST_LANE=1``,
or ``FAST_LANE.on = False``, makes every caller take the Python path here too.

Where the module is not built (the pure ``py3-none-any`` wheel, or an sdist built without a
compiler), the first caller that would have used it gets one :class:`SlowPathWarning` per
process (the CLI shows it as one line on stderr); :func:`describe` says which way it is
(``logscope --version``).
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from typing import Final

try:  # platform: the C scans are optional (a build without a compiler has none)
    from . import _rowscan
except ImportError:  # pragma: no cover - built wherever the tests run
    _rowscan = None  # type: ignore[assignment]

#: (prefix, alternative) of each batch line the lane reads, and the access line's alternative.
LaneTable = tuple[tuple[tuple[bytes, int], ...], int]
LaneReading = tuple[int, bytes, bytes, bool, int, int]


class SlowPathWarning(UserWarning):
    """The C fast lane is not built here: big logs are read at Python speed (same answers)."""


#: What :class:`SlowPathWarning` says (once per process).
SLOW_PATH_NOTE: Final = (
    "the C fast lane is not built for this Python: big logs are read at Python speed "
    "(same answers); install a wheel built for this platform (cp310-abi3) for the fast lane"
)


class _FastLane:
    """Whether the C scans are used (off: every caller takes its Python path), and whether
    the missing build was announced."""

    def __init__(self) -> None:
        self.on = os.environ.get("LOGSCOPE_NO_FAST_LANE", "") in ("", "0")
        self.announced = False


FAST_LANE: Final = _FastLane()


def available() -> bool:
    """Whether the C scans are built here and switched on (not built: announced once)."""
    if _rowscan is None and FAST_LANE.on and not FAST_LANE.announced:
        FAST_LANE.announced = True
        warnings.warn(SlowPathWarning(SLOW_PATH_NOTE), stacklevel=2)
    return _rowscan is not None and FAST_LANE.on


def describe() -> str:
    """Which way the scans go here, in words (``logscope --version``)."""
    if _rowscan is None:
        return "C fast lane: not built (pure Python; big logs read slower)"
    if not FAST_LANE.on:
        return "C fast lane: off (LOGSCOPE_NO_FAST_LANE)"
    return f"C fast lane: on ({os.path.basename(_rowscan.__file__ or '_rowscan')})"


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


#: Numbers in a line shape the C lane reads (:func:`shape_values`); a shape of more goes
#: through its regex.
MAX_LANE_NUMBERS: Final = 64


def shape_values(
    texts: list[bytes], literals: tuple[bytes, ...], picks: tuple[int, ...]
) -> tuple[bytes, bytes] | None:
    """Which of ``texts`` are ``literals`` with a number between each two (a byte 1 or 0 per
    line) and, of those, the numbers at ``picks`` (float64 bytes, ``len(picks)`` a line), as
    the shape's regex and ``float`` read them (``log/series.py``); ``None`` when the lane is
    off."""
    if not available():
        return None
    return _rowscan.shape_values(texts, literals, picks)


DecodeValues = tuple[bytes, list[bytes], bytes, bytes, bytes, list[bytes]]


def decode_values(
    data: bytes, table: LaneTable, alt: int, literals: tuple[bytes, ...], picks: tuple[int, ...]
) -> DecodeValues | None:
    """Of a block of plain serving rows, its rows of alternative ``alt``: their minutes (16
    bytes each), rank labels (first seen first) and each row's label (int32 bytes), which are
    of the shape ``literals`` (a byte each; no literals: none), the numbers at ``picks`` of
    those (float64 bytes) and the rest of line of the others; ``None`` as
    :func:`rows_summary` gives it (or over 256 labels)."""
    if not available():
        return None
    return _rowscan.decode_values(data, *table, alt, literals, picks)


#: What :func:`json_lines` writes a block as: its text (lines joined by newlines, a missed
#: row's line empty), how many lines, and each missed row with its line's index in the text.
LaneJson = tuple[str, int, list[tuple[int, int]]]
#: A row's JSON line as :func:`json_lines` writes it: (literals, points, pieces) per shape
#: (``_rowjson.h`` says what each holds).
LaneShape = tuple[tuple[bytes, ...], bytes, tuple[bytes | int, ...]]


def json_lines(
    data: bytes,
    table: LaneTable,
    first_line: int,
    sep: bytes,
    plans: tuple[tuple[LaneShape, ...] | None, ...],
    ranks: Mapping[bytes, bytes],
) -> LaneJson | None:
    """The JSON lines of a block of plain serving rows (``events -f jsonl``), written from
    the checked plans of their shapes (``_rowjson.h``); ``None`` as :func:`rows_summary`
    gives it."""
    if not available():
        return None
    return _rowscan.json_lines(data, *table, first_line, sep, plans, ranks)


def block_marks(data: bytes, skip: int) -> tuple[int, list[int], list[int]] | None:
    """The newlines in ``data[skip:]``, the offsets of lines starting ``usage: `` (after a
    newline of ``data``) and of each ``server_args=``; ``None`` when the scans are off."""
    if not available():
        return None
    return _rowscan.block_marks(data, skip)
