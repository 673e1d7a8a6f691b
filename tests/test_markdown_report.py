"""``logscope report --markdown``: the check as GitHub Markdown, escaped and under 65,000 chars."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from sglang_logscope.command.fix import Change, FixedCommand
from sglang_logscope.render import markdown
from sglang_logscope.render.markdown import MAX_CHARS, fence, render_markdown
from sglang_logscope.staleness.report import full_report
from tests.cli_run import run_main

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
DEMO_ARGS = (
    str(DEMO / "sglang-serve.log"),
    "--expect-args",
    str(DEMO / "command.txt"),
    "--launched-at",
    "2026-05-09 09:31:05",
)

HOSTILE = """\
[2026-05-09 09:00:00] server_args=ServerArgs(model_path='/m/"><img src=x onerror=alert(1)>', served_model_name='<script>alert(2)</script>|x|', tp_size=1, mem_fraction_static=0.85)
[2026-05-09 09:00:05 TP0] Load weight begin. avail mem=47.00 GB
[2026-05-09 09:00:06 TP0] ```` fence breaker ```` and | pipe | [link](javascript:alert(1)) &amp;
[2026-05-09 09:00:10 TP0] Scheduler hit an exception: Traceback (most recent call last):
RuntimeError: <script>alert("x")</script> | a | b ``` ```
"""


def _hostile(tmp_path: Path, long_lines: int = 0) -> Path:
    log = tmp_path / "hostile.log"
    big = "".join(
        f"[2026-05-09 09:00:{7 + i:02d} TP0] {'<b>|`' * 200_000}\n" for i in range(long_lines)
    )
    head, _, tail = HOSTILE.rpartition("[2026-05-09 09:00:10")
    log.write_text(head + big + "[2026-05-09 09:00:10" + tail, encoding="utf-8")
    return log


def _outside_fences(doc: str) -> str:
    """The document without its fenced blocks (their text is code, never markup)."""
    return re.sub(r"(?ms)^(`{3,})text\n.*?\n\1$", "", doc)


def test_demo_report_holds_verdict_diff_memory_findings_tail() -> None:
    doc = run_main("report", *DEMO_ARGS, "--markdown", "-")
    assert doc.startswith("## logscope report")
    assert "### Verdict: **STALE**" in doc
    assert "**Likely cause** (LS030)" in doc
    assert "| context\\_length | 32768 | 65536 | unexplained |  |" in doc
    for part in ("weights", "draft", "state", "scratch", "KV", "reserve", "slack"):
        assert f"| {part} | " in doc
    assert "| free before weights (F0) | 47.00 |" in doc
    assert "### Findings" in doc and "| LS030 |" in doc.replace("LS030 | ", "LS030 |")
    assert "### Last lines of the checked run (from line" in doc
    assert "Not enough memory" in doc.split("### Last lines")[1]
    assert len(doc) < MAX_CHARS


def test_markdown_and_html_in_one_call(tmp_path: Path) -> None:
    md, page = tmp_path / "r.md", tmp_path / "r.html"
    run_main("report", *DEMO_ARGS, "--markdown", str(md), "--html", str(page))
    assert "### Verdict: **STALE**" in md.read_text(encoding="utf-8")
    assert "<!DOCTYPE html>" in page.read_text(encoding="utf-8")


def test_report_needs_an_output() -> None:
    run_main("report", *DEMO_ARGS, codes=(2,))


def test_hostile_log_is_escaped(tmp_path: Path) -> None:
    doc = render_markdown(full_report(_hostile(tmp_path)))
    prose = _outside_fences(doc)
    assert "<script" not in prose and "<img" not in prose and "<b>" not in prose
    assert "&lt;script&gt;" in prose
    for line in prose.splitlines():
        if line.startswith("| "):  # a table row: its pipes are the cells' only separators
            cells = re.split(r"(?<!\\)\|", line)
            assert len(cells) in (4, 6, 7), line
    assert "\\| a \\| b" in prose  # the failure's pipes, escaped in its table row
    tail = doc.split("### Last lines")[1]
    bar = re.search(r"(?m)^(`+)text$", tail)
    assert bar is not None and len(bar.group(1)) == 5  # longer than the ```` in the text
    assert '<script>alert("x")</script>' in tail  # verbatim inside the fence: code, not HTML


def test_megabyte_lines_keep_the_report_under_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    report = full_report(_hostile(tmp_path, long_lines=40))
    doc = render_markdown(report)
    assert len(doc) <= MAX_CHARS
    assert "<b>" not in _outside_fences(doc)
    assert "…" in doc.split("### Last lines")[1]  # each 1 MB line cut
    # 20 cut lines fit in 65,000; a smaller limit makes the last lines give way first
    monkeypatch.setattr(markdown, "MAX_CHARS", 20_000)
    small = render_markdown(report)
    assert len(small) <= 20_000
    assert "earlier line(s) left out to keep the report under 20,000 characters" in small
    assert "### Findings" in small
    monkeypatch.setattr(markdown, "MAX_CHARS", 1_500)
    tiny = render_markdown(report)
    assert len(tiny) <= 1_500 and tiny.endswith("characters._\n")


def test_fence_outgrows_any_backtick_run() -> None:
    assert fence("plain").startswith("```text\n")
    assert fence("a ``````` b").startswith("````````text\n")
    assert fence("x").endswith("\n```")


def test_a_fixed_command_is_shown_when_the_report_has_one() -> None:
    """The demo's check carries the corrected launch (issue 27): fenced, with each edit's
    reason; a fixed text holding backticks gets a longer fence; no changes, no section."""
    report = full_report(DEMO / "sglang-serve.log", DEMO / "command.txt", "2026-05-09 09:31:05")
    fixed = report.check.fixed_command
    assert fixed is not None and fixed.changes
    doc = render_markdown(report)
    assert "### Fixed command\n\n```text\n" + fixed.text in doc
    assert "| LS030 |" in doc
    hostile = FixedCommand("a ``` b", (Change("LS030", "x", "y", "why"),))
    doc = render_markdown(replace(report, check=replace(report.check, fixed_command=hostile)))
    assert "### Fixed command\n\n````text\na ``` b\n````" in doc
    nothing = replace(report, check=replace(report.check, fixed_command=None))
    assert "### Fixed command" not in render_markdown(nothing)


def test_log_text_is_inert_markdown() -> None:
    """Links, images, emphasis, code spans, HTML and line breaks in log text stay text."""
    text = "![i](http://x/y.png) [l](javascript:alert(1)) *a* _b_ `c` <b>d</b> e|f & \\ g\nh"
    assert markdown._md(text) == (
        "!\\[i\\](http://x/y.png) \\[l\\](javascript:alert(1)) \\*a\\* \\_b\\_ \\`c\\` "
        "&lt;b&gt;d&lt;/b&gt; e\\|f &amp; \\\\ g h"
    )
