"""What a read of a log's end gives (:class:`TailLog`) and keeps (:data:`CHECK_KINDS`): apart
from :mod:`.tail` so that :mod:`.tail_end`, which that module loads for big files only, needs
nothing from it (issue 33, 2: start-up)."""

from __future__ import annotations

from .._record import record
from ..events import kinds_where
from .reader import Log


@record
class TailLog(Log):
    """A :class:`Log` of which only the end was parsed: ``events`` are those of the parsed
    window's last runs; ``runs`` holds every run counted (earlier ones from their starter line
    only). ``scanned_from_line`` is the first line parsed (1 = the whole file was)."""

    scanned_from_line: int = 1
    folded: bool = False  # serving lines folded into their runs (no event kept for them)
    first_parsed_run: int = 0  # runs before this index are known from their starter line only
    resumed_from_line: int = 0  # an earlier check's index let the parse go on from here


#: The kinds the check keeps of the parsed runs: every kind but the serving lines (batch and
#: access lines, folded in as counts and times). Lines the catalog does not know are kept:
#: a file of nothing but such lines is named by its first ones (LS040).
CHECK_KINDS = kinds_where(lambda r: not r.serving_row)
