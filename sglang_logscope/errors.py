"""The one exception family: everything the CLI maps to exit code 2."""

from __future__ import annotations


class LogscopeError(Exception):
    """Base of every error logscope raises on purpose (bad input, bad usage).

    The CLI turns any ``LogscopeError`` into a one-line message on stderr and exit code 2.
    """


class InputError(LogscopeError):
    """A file or stream could not be read (missing, a directory, permission denied, ...)."""


class CommandError(LogscopeError):
    """The launch command text holds no SGLang launch or cannot be tokenised."""
