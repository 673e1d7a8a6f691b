"""``python -m sglang_logscope`` and the ``logscope`` command (issue 33, 2: start-up).

A plain ``check`` command line runs here without importing typer or the CLI module
(:func:`._direct.plain_check`, :func:`._direct.check_command`); anything else goes through
``cli.main``. Both map outcomes to exit codes in one place (:func:`._direct.guarded`).
"""

from __future__ import annotations

import functools
import os
import sys

from ._direct import check_command, guarded, plain_check


def main(argv: list[str] | None = None) -> None:
    """The ``logscope`` command line ``argv`` (default: the process's), run; exits."""
    args = sys.argv[1:] if argv is None else argv
    kwargs = plain_check(args)
    if kwargs is None:
        # start-up: typer and every command's declaration only where the fast path stops
        from .cli import main as typer_main

        typer_main(argv)
        return
    guarded(
        functools.partial(check_command, **kwargs),
        args,
        debug=lambda: bool(os.environ.get("LOGSCOPE_DEBUG")),
    )


if __name__ == "__main__":
    main()
