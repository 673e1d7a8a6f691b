"""The check's text on stdout: the short screen (:mod:`.check_screen`) on a page without rich
where no colour is drawn, the verbose screen (:mod:`.views`) with rich's tables. Apart from both
so that neither imports the other."""

from __future__ import annotations

from ..staleness.verdict import CheckReport
from .check_screen import check_short
from .check_view import check_view
from .text import console, page


def check_text(result: CheckReport, verbose: bool = False) -> None:
    if verbose:
        # start-up: rich's console and tables load only for the verbose screen
        from .views import render_check

        render_check(console(), result, verbose)
    else:
        check_short(page(), check_view(result), result.to_dict())
