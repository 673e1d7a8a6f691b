"""A check report's sections are computed once (issue 26, item 4): ``render/check_view.py``
reads them out of the typed :class:`CheckReport`, and every renderer of a check (text, the
watch's crash summary, the report page, its Markdown, the notebook view) draws them from it.
The demo fixture (fixtures/demo, the seed story) is the report."""

from __future__ import annotations

import dataclasses
import io
import typing
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from sglang_logscope.command.fix import FixedCommand
from sglang_logscope.command.parse import LaunchCommand
from sglang_logscope.log.release import ReleaseUsed
from sglang_logscope.log.tail import Scan
from sglang_logscope.memory.budget_types import Budget, DeclinedBudget
from sglang_logscope.memory.verdict import OomReading
from sglang_logscope.render import html, live, markdown, notebook, views
from sglang_logscope.render.check_view import CheckView, FindingRow, check_view
from sglang_logscope.staleness import verdict
from sglang_logscope.staleness.process import LiveProcess
from sglang_logscope.staleness.report import FullReport, full_report
from sglang_logscope.staleness.server import LiveArgDiff, ServerEvidence
from sglang_logscope.staleness.verdict import CheckReport

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LOG = DEMO / "sglang-serve.log"
COMMAND = DEMO / "command.txt"
LAUNCHED = "2026-05-09 09:31:05"


@pytest.fixture(scope="module")
def full() -> FullReport:
    return full_report(str(LOG), COMMAND, LAUNCHED)


def _hints(cls: type) -> dict[str, Any]:
    """The resolved annotations of ``cls`` (names its module imports only for type checking
    come from the modules that define them)."""
    names = {
        **vars(verdict),
        "Budget": Budget,
        "FixedCommand": FixedCommand,
        "LaunchCommand": LaunchCommand,
        "DeclinedBudget": DeclinedBudget,
        "LiveProcess": LiveProcess,
        "OomReading": OomReading,
        "ReleaseUsed": ReleaseUsed,
        "Scan": Scan,
        "ServerEvidence": ServerEvidence,
    }
    return typing.get_type_hints(cls, globalns=names)


def _has_any(hint: object) -> bool:
    return hint is Any or any(_has_any(a) for a in typing.get_args(hint))


def test_check_report_fields_are_typed() -> None:
    hints = _hints(CheckReport)
    assert not [name for name, hint in hints.items() if _has_any(hint)]
    assert hints["process"] == LiveProcess | None
    assert hints["server"] == ServerEvidence | None


def test_the_live_evidence_keeps_its_json_keys() -> None:
    proc = LiveProcess(42, True, cmdline=("python", "-m", "sglang.launch_server"), holds_log=True)
    server = ServerEvidence(
        "http://127.0.0.1:30000", True, (LiveArgDiff("context_length", 32768, 65536),)
    )
    assert proc.to_dict() == {
        "pid": 42,
        "alive": True,
        "started_at": None,
        "cmdline": ["python", "-m", "sglang.launch_server"],
        "holds_log": True,
    }
    assert server.to_dict() == {
        "url": "http://127.0.0.1:30000",
        "reachable": True,
        "arg_diff": [{"arg": "context_length", "intended": 32768, "live": 65536}],
        "matched": [],
        "version": None,
        "error": None,
    }


def test_the_view_holds_the_reports_sections(full: FullReport) -> None:
    report = full.check
    view = check_view(report)
    assert report.cause is not None and report.oom is not None and report.run is not None
    assert view.verdict == report.verdict.value == "stale"
    assert view.cause is not None and view.cause.code == report.cause["code"]
    assert report.run.failure is not None and view.failure is not None
    assert view.failure.line == report.run.failure.line
    assert [r.arg for r in view.args.rows] == [d.arg for d in report.arg_diff]
    assert [r.intended for r in view.args.rows] == [repr(d.intended) for d in report.arg_diff]
    assert view.args.compared and view.args.matched == report.matched_args
    assert view.memory.oom_verdict == report.oom["verdict"]
    assert [f.code for f in view.findings] == [f.code for f in report.findings]
    assert view.next_steps == report.next_steps


def _outputs(report: CheckReport, full: FullReport) -> dict[str, str]:
    text, watch = io.StringIO(), io.StringIO()
    views.render_check(Console(file=text, width=200, color_system=None), report, verbose=True)
    live.render_forensics(Console(file=watch, width=200, color_system=None), report)
    return {
        "text": text.getvalue(),
        "live": watch.getvalue(),
        "html": html.render_html(full),
        "markdown": markdown.render_markdown(full),
        "notebook": notebook.check_html(report),
    }


def test_every_renderer_draws_the_view(full: FullReport, monkeypatch: pytest.MonkeyPatch) -> None:
    """A renderer that read a section from the report itself, not from the view, would not
    show what the view says."""
    planted: CheckView = dataclasses.replace(
        check_view(full.check),
        headline="HEADLINE-PLANTED",
        cause=None,
        findings=(FindingRow("LS999", "info", "planted", "FINDING-PLANTED"),),
        next_steps=("NEXT-PLANTED.",),
    )
    for module in (views, live, html, markdown, notebook):
        monkeypatch.setattr(module, "check_view", lambda _report: planted)
    shown = _outputs(full.check, full)
    expected = {
        "text": ("HEADLINE-PLANTED", "FINDING-PLANTED", "NEXT-PLANTED"),
        "live": ("NEXT-PLANTED",),
        "html": ("HEADLINE-PLANTED", "FINDING-PLANTED", "NEXT-PLANTED"),
        "markdown": ("HEADLINE-PLANTED", "FINDING-PLANTED"),
        "notebook": ("HEADLINE-PLANTED", "FINDING-PLANTED", "NEXT-PLANTED"),
    }
    for name, words in expected.items():
        assert all(w in shown[name] for w in words), name
        assert full.check.headline not in shown[name], name


def test_every_renderer_shows_the_demo_sections(full: FullReport) -> None:
    view = check_view(full.check)
    shown = _outputs(full.check, full)
    shown["markdown"] = shown["markdown"].replace("\\_", "_")  # Markdown escapes "_"
    assert view.cause is not None
    for name in ("text", "html", "markdown"):
        assert view.cause.code in shown[name], name
        assert all(f.code in shown[name] for f in view.findings), name
    for name in ("text", "live", "html", "markdown", "notebook"):
        assert all(r.arg in shown[name] for r in view.args.rows), name


def test_summary_colours_each_outcome_by_its_own_table() -> None:
    """The summary's outcome words and the first screen's headline words have their own style
    tables; a second table of the same name once hid the summary's (every outcome uncoloured)."""
    import io

    from rich.console import Console

    from sglang_logscope.render import check_screen, views

    out = io.StringIO()
    con = Console(file=out, force_terminal=True, color_system="standard", width=200)
    views.render_summary(con, {"log": "x.log", "runs": []})
    assert views._OUTCOME_STYLE["ready"] == "green"
    assert check_screen._HEADLINE_STYLE["READY"] == "bold green"
    run = {
        "index": 1, "first_line": 1, "last_line": 2, "started_at": None, "ended_at": None,
        "outcome": "ready", "failure": None, "memory": {}, "server_args": {},
    }  # fmt: skip
    views.render_summary(con, {"log": "x.log", "runs": [run]})
    assert "\x1b[32mready" in out.getvalue()
