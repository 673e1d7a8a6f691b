"""Which SGLang release to read a run with (issue 17): for its argument table, its memory era
and the wording of what is suggested.

Two readings of the run's lines exist: the **pinning** (:mod:`.pinning`: every message and
``file.py:LINE`` against the message index extracted from each release's wheel) and the
**hint** (``sglang_version_hint``: the release ranges written on the typed catalog entries).
The pinning is generated from SGLang's source, so it wins; the hint narrows it where both
agree. Where they disagree, or where the pinning's own evidence disagrees (a source checkout
or a fork between releases), the note says which was used and why.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

from .._record import record
from ..parse.catalog import parse_release_range
from ..parse.message_index import message_index
from ..parse.versions import release_key
from .pinning import ReleasePin

if TYPE_CHECKING:
    from .runs import Run

#: The oldest release with an argument table (``data/args/releases.jsonl``).
FIRST_TABLE = (0, 4, 0)


class ReleaseUsed(TypedDict):
    """What a run was read with, JSON-ready (``sglang_release_used`` of ``check``)."""

    min: str
    max: str
    source: str
    arg_table: str | None
    note: str


@record
class ReleaseChoice:
    """The releases a run is read with: ``low``..``high``; ``table`` for its argument table
    (the newest of the range: a flag of the run's own banner exists there), ``era`` for its
    memory arithmetic (the oldest), ``source`` what decided, ``note`` the one line to show."""

    low: str
    high: str
    source: str  # "pinned", "pinned+hint", "hint", "mixed" (evidence disagrees), "checkout"
    note: str

    @property
    def table(self) -> str | None:
        """The argument table's release (``None``: older than every table, the newest is
        read, and :attr:`note` says so)."""
        return self.high if release_key(self.high) >= FIRST_TABLE else None

    @property
    def era(self) -> str:
        """A source checkout runs the code of the release it precedes (its lines are that
        release's); otherwise the oldest release of the range."""
        return self.high if self.source == "checkout" else self.low

    def to_dict(self) -> ReleaseUsed:
        return {
            "min": self.low,
            "max": self.high,
            "source": self.source,
            "arg_table": self.table,
            "note": self.note,
        }


def choose_release(run: Run | None) -> ReleaseChoice | None:
    """The release range to read ``run`` with, and why (``None``: its lines name none)."""
    if run is None:
        return None
    return release_choice(run.sglang_release, run.release_hint)


def release_choice(pin: ReleasePin | None, hint: str | None) -> ReleaseChoice | None:
    """:func:`choose_release` from the two readings themselves."""
    hint_range = _hint_range(hint) if hint else None
    if pin is None:
        if hint_range is None or hint is None or hint.startswith(">="):
            return None  # an open-ended hint names no release to read with
        return _finish(hint_range[0], hint_range[1], "hint", "from the typed messages' hint")
    low, high = pin.low, pin.high
    lines = f"{pin.agreeing} of {pin.pieces}" if not pin.consistent else f"{pin.pieces}"
    plural = "line" if pin.pieces == 1 else "lines"
    said = f"{lines} {plural} read against SGLang's source per release"
    if pin.source_checkout:
        dated = next((e.text for e in pin.evidence if e.kind == "date"), "")
        why = f"a source checkout between {low} and {high}: {said}; {dated.split(':')[0]}"
        return _finish(low, high, "checkout", why)
    if not pin.consistent:
        why = f"pinned by {said}; the others disagree: a source checkout or fork between releases"
        return _finish(low, high, "mixed", why)
    both = _overlap((low, high), hint_range) if hint_range is not None else (low, high)
    if both is None:
        why = f"pinned by {said}; the typed messages' hint {hint} disagrees: the pinning is used"
        return _finish(low, high, "pinned", why)
    if both == (low, high):
        return _finish(low, high, "pinned", f"pinned by {said}")
    why = f"pinned to {pin} by {said}, narrowed by the typed messages' hint {hint}"
    return _finish(both[0], both[1], "pinned+hint", why)


def _finish(low: str, high: str, source: str, why: str) -> ReleaseChoice:
    span = low if low == high else f"{low}-{high}"
    if release_key(high) < FIRST_TABLE:
        table = "no argument table before 0.4.0: the newest is read"
    else:
        table = f"argument table {high}"
    return ReleaseChoice(low, high, source, f"SGLang {span} ({why}); {table}")


def _hint_range(hint: str) -> tuple[str, str] | None:
    """The index releases within a hint (``0.5.9``, ``0.5.9-0.5.12``, ``>=0.5.3``)."""
    lo, hi = parse_release_range(hint[2:] + "-" if hint.startswith(">=") else hint)
    names = [r for r in message_index().releases if lo <= release_key(r)[: len(hi)] <= hi]
    names = [r for r in names if release_key(r) >= lo]
    return (names[0], names[-1]) if names else None


def _overlap(a: tuple[str, str], b: tuple[str, str]) -> tuple[str, str] | None:
    low = max(a[0], b[0], key=release_key)
    high = min(a[1], b[1], key=release_key)
    return (low, high) if release_key(low) <= release_key(high) else None
