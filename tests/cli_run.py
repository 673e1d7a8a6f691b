"""The CLI as a user runs it, in a child process (or in this one: :func:`run_main`): stdout
back, the exit code checked."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest


def run_cli(*args: str, codes: tuple[int, ...] = (0, 1)) -> str:
    """``python -m sglang_logscope ARGS`` with NO_COLOR; its stdout, after asserting the exit
    code is one of ``codes`` (stderr shown when it is not)."""
    out = subprocess.run(
        [sys.executable, "-m", "sglang_logscope", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    assert out.returncode in codes, out.stderr
    return out.stdout


def run_main(*args: str, codes: tuple[int, ...] = (0, 1)) -> str:
    """:func:`run_cli` in this process: the same entry point (``main``) and stdout, without an
    interpreter start-up per call (for tests that run the CLI over every fixture log)."""
    done = completed(*args)
    assert done.returncode in codes, done.stderr
    return done.stdout


def completed(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``main(args)`` in this process (in ``cwd`` where given), answered as
    ``subprocess.run`` answers :func:`run_cli`'s child: exit code, stdout, stderr. For tests
    of what the CLI says and exits with, where a child interpreter adds only its start-up."""
    # test helper: the CLI only where a test asks for it in-process
    from sglang_logscope.cli import main

    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            main(list(args))
    except SystemExit as exc:
        code = exc.code
    finally:
        os.chdir(here)
    returncode = code if isinstance(code, int) else (0 if code is None else 1)
    return subprocess.CompletedProcess(list(args), returncode, out.getvalue(), err.getvalue())


def run_captured(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``main(argv)`` in this process, its output taken by pytest's ``capsys``: (exit code,
    stdout, stderr); a return without ``SystemExit`` is exit 0."""
    # test helper: the CLI only where a test asks for it in-process
    from sglang_logscope import cli

    code = 0
    try:
        cli.main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err
