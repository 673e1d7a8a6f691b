"""Headless Chromium for the HTML report: render a page, collect its console messages, take a
screenshot. ``python scripts/screenshot_report.py`` writes ``docs/img/report-demo.png`` (the
report of the bundled demo, as ``make demo`` checks it); ``tests/test_html_report.py`` uses the
same helpers."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCREENSHOT = ROOT / "docs" / "img" / "report-demo.png"
#: No network, no profile state, no background services: the page must stand alone.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--enable-logging=stderr",
    "--v=0",
)
_CONSOLE = re.compile(r":CONSOLE[:(]")


def find_chromium() -> str | None:
    """The Chromium binary on PATH (Debian's ``chromium``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(
    page: Path,
    *,
    screenshot: Path | None = None,
    dump_dom: bool = False,
    window: tuple[int, int] = (1000, 2200),
    timeout: float = 60.0,
) -> tuple[str, str]:
    """Load ``page`` (a local file) headless; returns (stdout, stderr)."""
    binary = find_chromium()
    if binary is None:
        raise FileNotFoundError("chromium is not installed")
    with tempfile.TemporaryDirectory(prefix="logscope-chromium-") as profile:
        argv = [
            binary,
            *FLAGS,
            f"--user-data-dir={profile}",
            f"--window-size={window[0]},{window[1]}",
        ]
        if screenshot is not None:
            argv.append(f"--screenshot={screenshot}")
        if dump_dom:
            argv.append("--dump-dom")
        argv.append(page.resolve().as_uri())
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={**os.environ, "HOME": profile},
        )
    return done.stdout, done.stderr


def console_messages(stderr: str) -> list[str]:
    """The page's console messages (script errors, CSP violations, failed loads) in the log."""
    return [line for line in stderr.splitlines() if _CONSOLE.search(line)]


def demo_report(out: Path) -> None:
    """The report of the bundled demo, with the log's mtime as on the server (as ``make demo``)."""
    from sglang_logscope.render.html import render_html
    from sglang_logscope.staleness.report import full_report

    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "sglang-serve.log"
        shutil.copyfile(ROOT / "fixtures" / "demo" / "sglang-serve.log", log)
        stamp = __import__("datetime").datetime(2026, 5, 9, 9, 18, 32).timestamp()
        os.utime(log, (stamp, stamp))
        page = render_html(
            full_report(log, ROOT / "fixtures" / "demo" / "command.txt", "2026-05-09 09:31:05")
        )
    out.write_text(page.replace(str(log), "sglang-serve.log"), encoding="utf-8")


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "report.html"
        demo_report(page)
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        _, err = run_chromium(page, screenshot=SCREENSHOT, window=(1000, 2600))
        problems = console_messages(err)
    if problems:
        sys.stderr.write("\n".join(problems) + "\n")
        return 1
    print(f"wrote {SCREENSHOT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
