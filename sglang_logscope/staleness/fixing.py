"""``fix_command``: the whole corrected launch for a command (and, when given, the log it was
checked against): every lint fix, and the memory change the budget ranks first when the
command would not fit (:mod:`sglang_logscope.command.fix` makes the edits)."""

from __future__ import annotations

import os

from ..command.fix import FixedCommand, apply_fixes
from ..command.lint import lint
from ..limits import COMMAND_MAX_BYTES, read_regular

__all__ = ["fix_command"]


def fix_command(
    command: str | os.PathLike[str], log: str | os.PathLike[str] | None = None
) -> FixedCommand:
    """The corrected launch for ``command`` (its text, or a path to a file holding it), in the
    form it was pasted. With ``log``, the command is checked against it first (as
    ``logscope check --expect-args``): the log's facts feed the lint and its measured memory
    the budget, whose first fix is applied when the command would not fit."""
    script = None
    text = str(command)
    if isinstance(command, os.PathLike) or ("\n" not in text and os.path.isfile(text)):
        script = os.fspath(command)
        raw = read_regular(script, COMMAND_MAX_BYTES, "the command file", pipes=True)
        text = raw.decode("utf-8", "replace")
    if log is None:
        return apply_fixes(text, lint(text, script=script), None, script)
    # start-up: the check (and the memory model) load only when a log is given
    from .judge import check

    expect: str | os.PathLike[str] = os.fspath(command) if script else text
    report = check(os.fspath(log), expect, live=False)
    if isinstance(report.fixed_command, FixedCommand):
        return report.fixed_command
    return apply_fixes(text, lint(text, script=script), None, script)
