"""The one exception family: everything the CLI maps to exit code 2; and every exit code."""

from __future__ import annotations

#: Every exit code of ``logscope``, the one place they are written (docs/cli.md is made from it).
EXIT_CODES: dict[int, str] = {
    0: "ok",
    1: "the answer is bad news (stale, crashed, does not fit, problems found)",
    2: "usage or input error (one line on stderr)",
    3: "an internal error (a bug: one line asking for a report; `--debug` adds the traceback)",
    4: "not judged here: `preflight` of a command that runs on another host or in a container "
    "(it prints the command that runs the check there)",
    130: "interrupted",
}
#: ``preflight`` refused to judge this machine: the command runs elsewhere.
EXIT_ELSEWHERE = 4


class LogscopeError(Exception):
    """Base of every error logscope raises on purpose (bad input, bad usage).

    The CLI turns any ``LogscopeError`` into a one-line message on stderr and exit code 2.
    """


class InputError(LogscopeError):
    """A file or stream could not be read (missing, a directory, permission denied, ...)."""


class CommandError(LogscopeError):
    """The launch command text holds no SGLang launch or cannot be tokenised."""
