"""The CLI as a user runs it, in a child process: stdout back, the exit code checked."""

from __future__ import annotations

import os
import subprocess
import sys


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
