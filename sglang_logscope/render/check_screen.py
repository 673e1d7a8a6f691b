"""The check's short screen, the five-second read, as :class:`~.text.Styled` lines: written
without rich to a file or pipe (:class:`~.text.PlainPage`), by rich's console on a terminal.
Its lines are shared with the verbose screen (:mod:`.views`, which loads rich's tables)."""

from __future__ import annotations

from typing import Any

from .check_view import CheckView, MemorySection
from .text import PlainPage, RichPage, Styled, piece, styled

#: Where the check's screens are written.
Page = PlainPage | RichPage

_VERDICT_STYLE = {
    "fresh": "bold green",
    "stale": "bold red",
    "mismatch": "bold red",
    "no_run": "bold red",
    "inconclusive": "bold yellow",
    "exited": "bold red",
}
#: The first word of an outcome-first headline (nothing expected) and its style.
_HEADLINE_STYLE = {"READY": "bold green", "STOPPED": "bold", "COMPLETED": "bold"}
"""The first screen's outcome words (upper case); the summary's runs use ``_OUTCOME_STYLE``."""


def check_short(con: Page, view: CheckView, data: dict[str, Any]) -> None:
    """At most about 25 lines at 100 columns for the seed story (tests/test_first_screen.py)."""
    con.print(verdict_line(view.verdict, view.headline, view.expected))
    assumed(con, view, data)
    cause, fixed = view.cause, data.get("fixed_command")
    if cause:
        parts: list[Any] = [
            ("Cause ", "bold"),
            f"({cause.code}): ",
            piece(cause.message, limit=400),
        ]
        if not fixed:
            parts += [("  fixed: ", "bold"), piece(cause.fix, limit=400)]
        con.print(styled(*parts))
    failure = view.failure
    if failure and view.memory.oom_verdict is None and not view.headline.startswith("CRASHED"):
        con.print(styled(
            ("Failure ", "bold"), (failure.kind, "red"), f" at line {failure.line}: ",
            piece(" ".join(failure.message.split()), limit=160),
        ))  # fmt: skip
    process_line(con, data)
    memory = memory_line(view.memory)
    if memory is not None:
        con.print(memory)
    fixed_lines(con, data)
    remote_line(con, data)
    shown = [
        f"{len(data.get('earlier_runs', [])) + (1 if data.get('run') else 0)} run(s)",
        f"{len(view.args.rows)} argument difference(s)" if view.args.rows else "",
        f"{len(view.findings)} finding(s)",
        f"{len(view.next_steps)} next step(s)" if view.next_steps else "",
    ]
    con.print(styled(("more: --verbose ", "dim"), f"({', '.join(s for s in shown if s)})"))


def memory_line(mem: MemorySection) -> Styled | None:
    """The memory verdict in one paragraph, with the confidence the budget (or the verdict)
    states, whatever it holds."""
    if mem.oom_verdict is not None:
        head: list[Any] = [
            ("Memory: ", "bold"),
            (mem.oom_verdict, "red"),
            " — ",
            piece(mem.oom_explanation, limit=500),
        ]
    elif mem.budget_words is not None:
        fits = "fits" if mem.budget_fits else "does NOT fit"
        head = [
            ("Your command's memory: ", "bold"),
            fits,
            piece(f" ({mem.budget_basis})", limit=300),
        ]
    else:
        return None
    if mem.confidence:
        head += [" ", ("Confidence ", "bold"), piece(mem.confidence, limit=200)]
    return styled(*head)


def fixed_lines(con: Page, data: dict[str, Any]) -> None:
    """The corrected command, unwrapped (to copy), with the codes of its edits."""
    fixed = data.get("fixed_command")
    if not fixed:
        return
    codes = ", ".join(dict.fromkeys(c["code"] for c in fixed["changes"]))
    con.print(styled(
        ("Corrected command ", "bold"), f"({codes}; each edit and why: logscope fix -e CMD LOG):",
    ))  # fmt: skip
    body = "\n".join(line for line in fixed["text"].splitlines() if not line.startswith("#"))
    con.print(styled(piece(body)), soft_wrap=True)


def assumed(con: Page, view: CheckView, data: dict[str, Any]) -> None:
    """What was assumed, and a run's middle not read this time, next to the verdict."""
    for f in view.findings:
        if f.code in ("LS041", "LS042", "LS120"):
            con.print(styled(("Assumed: ", "yellow"), piece(f.message)))
    index = (data.get("scan") or {}).get("index")
    if index:
        con.print(styled(("Index: ", "dim"), piece(str(index["note"]), limit=400)))


def remote_line(con: Page, data: dict[str, Any]) -> None:
    remote = data.get("remote")
    if remote:
        con.print(styled(
            ("Runs on ", "bold"), piece(remote["where"]), "; the same check there: ",
            piece(remote["command"]),
        ))  # fmt: skip


def verdict_line(verdict: str, headline: str, expected: bool = True) -> Styled:
    """The headline with its verdict word styled; a badge before it only where the headline
    does not begin with the verdict (``NO_RUN  No SGLang run…``), so no word is said twice."""
    style = _VERDICT_STYLE.get(verdict, "bold")
    label, colon, rest = headline.partition(":")
    word = label.split(" ", 1)[0].rstrip(",")
    if colon and not expected:  # the outcome first: READY / CRASHED / STOPPED ...
        return styled((label + colon, _HEADLINE_STYLE.get(word, "bold red")), piece(rest))
    if colon and verdict.upper() in label.upper():
        return styled((label + colon, style), piece(rest))
    return styled((verdict.upper(), style), "  ", piece(headline))


def process_line(con: Page, data: dict[str, Any]) -> None:
    proc = data.get("process")
    if proc:
        state = "alive" if proc["alive"] else "exited"
        holds = ", holds this log" if proc.get("holds_log") else ""
        started = f", started {proc['started_at']}" if proc.get("started_at") else ""
        cmd = " ".join(proc.get("cmdline") or [])
        con.print(styled(
            ("Process ", "bold"), f"{proc['pid']} {state}{started}{holds}", ("  " if cmd else ""),
            piece(cmd, limit=200),
        ))  # fmt: skip
