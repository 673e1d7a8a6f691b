"""The shared command line of the doc generators: write the page, or ``--check`` that it is current."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def generate(out: Path, render: Callable[[], str], argv: list[str], script: str) -> int:
    """Write ``render()`` to ``out``; with ``--check``, exit 1 when ``out`` differs instead."""
    text = render()
    if "--check" in argv:
        if not out.is_file() or out.read_text(encoding="utf-8") != text:
            sys.stderr.write(f"{out} is stale: run python scripts/{script}\n")
            return 1
        return 0
    out.write_text(text, encoding="utf-8")
    return 0
