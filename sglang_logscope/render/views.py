"""Text renderings that need more than a table: the summary view, event selection."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from .. import _text
from .._text import lazy_regex
from ..staleness.verdict import CheckReport
from . import text as report
from .check_screen import (
    assumed,
    check_short,
    fixed_lines,
    process_line,
    remote_line,
    verdict_line,
)
from .check_view import ArgRow, ArgSection, CheckView, MemorySection, check_view
from .text import RichPage, console, release_text, unreadable_lines

if TYPE_CHECKING:  # start-up: the check's text does not load the listings
    from rich.console import Console

    from ..log.select import Summaries

_ARGS_THAT_MATTER = (
    "model_path", "tp_size", "dp_size", "pp_size", "ep_size", "mem_fraction_static",
    "context_length", "max_running_requests", "max_total_tokens", "chunked_prefill_size",
    "kv_cache_dtype", "dtype", "quantization", "attention_backend", "disable_radix_cache",
    "speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk",
    "speculative_num_draft_tokens", "mamba_full_memory_ratio", "max_mamba_cache_size",
    "mamba_ssm_dtype", "page_size", "cuda_graph_max_bs", "disable_cuda_graph",
)  # fmt: skip


def _shown(time: object, missing: str = "?") -> str:
    """A JSON document's RFC 3339 time as text shows times: a space between date and time."""
    return str(time).replace("T", " ", 1) if time else missing


def render_summary(con: Console, data: dict[str, Any]) -> None:
    runs = data["runs"]
    con.print(
        Text.assemble(("log ", "bold"), report.plain(str(data["log"])), f"  —  {len(runs)} run(s)")
    )
    for run in runs:
        con.print()
        head = Text.assemble(
            (f"run {run['index']}", "bold"),
            f"  lines {run['first_line']}-{run['last_line']}",
            f"  {_shown(run['started_at'])} → {_shown(run['ended_at'])}  ",
            (run["outcome"], _OUTCOME_STYLE.get(run["outcome"], "")),
        )
        if run.get("sglang_release") or run.get("sglang_version_hint"):
            head.append(f"  sglang {release_text(run)}")
        con.print(head)
        failure = run["failure"]
        if failure:
            con.print(
                Text.assemble(
                    "  failure: ", (failure["kind"], "red"), f" (line {failure['line']}) "
                )
            )
            con.print(Text.assemble("    ", report.plain(failure["message"], limit=300)))
            if failure["effective"]:
                eff = ", ".join(f"{k}={v}" for k, v in failure["effective"].items())
                con.print(f"    effective: {eff}")
        mem = run["memory"]
        figures = [
            ("free before weights", _text.gib(mem.get("free_before_weights_gib"))),
            ("weights", _text.gib(mem.get("weights_gib"))),
            ("free after weights", _text.gib(mem.get("free_after_weights_gib"))),
            ("KV tokens", str(mem.get("kv_tokens") or "-")),
            ("KV pool", _text.gib(mem.get("kv_gib"))),
            ("mamba slots", str(mem.get("mamba_slots") or "-")),
            ("free after pools", _text.gib(mem.get("free_after_pools_gib"))),
        ]
        shown = [f"{k}: {v}" for k, v in figures if v not in ("-",)]
        if shown:
            con.print("  memory: " + "; ".join(shown))
        args = run["server_args"]
        if args:
            picked = [
                f"{k}={args[k]!r}" for k in _ARGS_THAT_MATTER if k in args and args[k] is not None
            ]
            con.print(Text.assemble("  args: ", report.plain(", ".join(picked), limit=600)))
        elif args is None:
            con.print("  args: (no server_args banner in this run)")
        for adj in run.get("adjustments", [])[:10]:
            sets = ", ".join(f"{k}={v!r}" for k, v in adj["sets"].items())
            con.print(Text.assemble(f"  adjusted (line {adj['line']}): ", report.plain(sets)))


_OUTCOME_STYLE = {
    "ready": "green",
    "crashed": "red",
    "starting": "yellow",
    "stopped": "cyan",
    "completed": "blue",
}


_SEVERITY_STYLE = {"error": "red", "warning": "yellow", "info": "dim"}


def render_check(con: Console, result: CheckReport, verbose: bool = False) -> None:
    """The five-second read: the answer, the cause, memory with its confidence, the corrected
    command, where to run the check, "more: --verbose". ``verbose``: everything — runs, the
    argument table, the live evidence, failure and memory options, findings, next steps — each
    sentence once (a finding or step already said above is not repeated). The sections are
    :func:`~.check_view.check_view`'s; the runs, the live evidence and the corrected command
    are read from the JSON document, as ``--format json`` shows them."""
    said: set[str] = set()
    view, data = check_view(result), result.to_dict()
    screen = RichPage(con)
    if not verbose:
        check_short(screen, view, data)
        return
    _check_header(screen, view, data, said)
    _check_runs(screen, data)
    _check_args(screen, view.args)
    _check_live(screen, data)
    _check_failure(screen, view, said)
    fixed_lines(screen, data)
    _check_findings(screen, view, said)


def _check_header(con: RichPage, view: CheckView, data: dict[str, Any], said: set[str]) -> None:
    con.print(verdict_line(view.verdict, view.headline, view.expected))
    cause = view.cause
    if cause:
        said.update(sentences(cause.message) + sentences(cause.fix))
        con.print(
            Text.assemble(
                ("Likely cause ", "bold"),
                f"({cause.code}): ",
                report.plain(cause.message, limit=600),
                ("\n  fixed: ", "bold"),
                report.plain(cause.fix, limit=600),
            )
        )
    assumed(con, view, data)
    used = data.get("sglang_release_used")
    if used and used.get("source") != "given":  # what the tables were read with, and why
        con.print(Text.assemble(("Read as ", "dim"), report.plain(str(used["note"]), limit=400)))
    con.print(
        Text.assemble(
            ("log ", "dim"),
            report.plain(str(data["log"])),
            ("  runs in file: ", "dim"),
            str(data["run_count"]),
        )
    )
    if data.get("launched_at") or data.get("log_mtime"):
        con.print(Text.assemble(
            ("launched at ", "dim"), _shown(data.get("launched_at"), "-"),
            ("   log last modified ", "dim"), _shown(data.get("log_mtime"), "-"),
        ))  # fmt: skip
    remote_line(con, data)


def _check_runs(con: RichPage, data: dict[str, Any]) -> None:
    runs = [*data.get("earlier_runs", []), *([data["run"]] if data.get("run") else [])]
    if not runs:
        return
    con.print()
    table = report.table(
        "run",
        "started",
        "ended",
        "lines",
        "outcome",
        "release",
        title="Runs in this file",
        title_justify="left",
        box=None,
        header_style="bold",
    )
    for run in runs:
        last = run is runs[-1]
        table.add_row(
            f"{run['index']}{' (checked)' if last else ''}",
            _shown(run["started_at"], "-"),
            _shown(run["ended_at"], "-"),
            f"{run['first_line']}-{run['last_line']}",
            run["outcome"],
            release_text(run),  # the pinned range (issue 17), else the hint
        )
    con.print(table)


def _check_args(con: RichPage, args: ArgSection) -> None:
    if args.rows:
        con.print()
        con.print(arg_diff_table(args.rows))
    if args.matched:
        matched = ", ".join(args.matched)
        con.print(Text.assemble(("Matching your command: ", "dim"), report.plain(matched)))
    if args.unverified:
        unseen = ", ".join(args.unverified)
        con.print(Text.assemble(("Not visible in this run: ", "dim"), report.plain(unseen)))


def _check_live(con: RichPage, data: dict[str, Any]) -> None:
    process_line(con, data)
    server = data.get("server")
    if server and server.get("reachable"):
        differs = len(server.get("arg_diff") or [])
        verdict = f"{differs} argument(s) differ from yours" if differs else "runs your arguments"
        con.print(
            Text.assemble(("Live server ", "bold"), report.plain(server["url"]), f": {verdict}")
        )


def _check_failure(con: RichPage, view: CheckView, said: set[str]) -> None:
    failure, mem = view.failure, view.memory
    if failure:
        con.print()
        con.print(
            Text.assemble(("Failure ", "bold"), (failure.kind, "red"), f" at line {failure.line}")
        )
        said.update(sentences(failure.message))
        con.print(Text.assemble("  ", report.plain(failure.message, limit=400)))
    if mem.oom_verdict is not None:
        said.update(sentences(mem.oom_explanation))
    for line in memory_texts(mem, oom_limit=600):
        con.print(line)


def memory_texts(
    mem: MemorySection, *, oom_limit: int, change: Callable[[str], str] = str
) -> list[Text]:
    """The out-of-memory verdict, the intended command's budget in words and up to five
    changes that each make it fit, a line each (``check -v`` and the watch's crash summary)."""
    out = []
    if mem.oom_verdict is not None:
        out.append(
            Text.assemble(
                ("Out of memory: ", "bold"),
                (mem.oom_verdict, "red"),
                " — ",
                report.plain(mem.oom_explanation, limit=oom_limit),
            )
        )
    if mem.budget_words is not None:
        out.append(
            Text.assemble(
                ("Your command's memory budget: ", "bold"),
                report.plain(mem.budget_words, limit=600),
            )
        )
        out.extend(
            Text.assemble("  try ", (change(name), "bold"), " — ", report.plain(effect, limit=200))
            for name, effect in mem.suggestions[:5]
        )
    return out


_SENTENCE = lazy_regex(r"(?<=[.])\s+(?=\S)")


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (after a full stop and a space)."""
    return [s for s in _SENTENCE.split(" ".join(text.split())) if s]


def _fresh(text: str, said: set[str]) -> str:
    """``text`` without the sentences already printed (each sentence once on the screen);
    ``""`` when nothing new is left. What is returned counts as said."""
    kept = [s for s in sentences(text) if s not in said and s.removeprefix("Fixed: ") not in said]
    said.update(kept)
    said.update(s.removeprefix("Fixed: ") for s in kept)
    return " ".join(kept)


def _step_core(step: str) -> str:
    """A next step without its ``CODE:``/``Memory:``/``Likely root cause (CODE):`` label."""
    head, colon, rest = step.partition(": ")
    return rest if colon and len(head) < 40 and head[:1].isupper() else step


def _check_findings(con: RichPage, view: CheckView, said: set[str]) -> None:
    con.print()
    con.print(Text("Findings", style="bold"))
    for f in view.findings:
        message = _fresh(f.message, said) or "(said above)"
        con.print(
            Text.assemble(
                "  ",
                (f"{f.code} {f.severity:<7}", _SEVERITY_STYLE.get(f.severity, "")),
                " ",
                report.plain(message, limit=700),
            )
        )
    steps = []
    for step in view.next_steps:
        core = _step_core(step)
        new = _fresh(core, said)
        if new:
            steps.append(step[: len(step) - len(core)] + new)
    if steps:
        con.print()
        con.print(Text("Next", style="bold"))
        for step in steps:
            con.print(Text.assemble("  → ", report.plain(step, limit=900)))


def arg_diff_table(rows: Iterable[ArgRow]) -> Any:
    """The argument-difference table (the check view's rows), log text kept literal.

    On a terminal too narrow for the five columns, one block per argument instead: the name
    on its own line, whole, and the rest wrapped under it (a table would cut the names).
    """
    return _ArgDiffView(list(rows))


class _ArgDiffView:
    """Chooses table or blocks by the width rich offers when it renders."""

    def __init__(self, rows: list[ArgRow]) -> None:
        self.rows = rows

    def __rich_console__(self, console: Console, options: Any) -> Iterable[Any]:
        name_w = max((len(d.arg) for d in self.rows), default=8)
        if options.max_width >= name_w + 70:
            yield self._table()
            return
        yield Text("Argument differences")
        for d in self.rows:
            yield Text.assemble(
                " ",
                report.plain(d.arg, style="bold"),
                "  ",
                Text(d.status, style=_status_style(d)),
            )
            yield Text.assemble(
                "    you intended ",
                report.plain(d.intended, limit=60),
                ", the run had ",
                report.plain(d.effective, limit=60),
            )
            if d.why:
                yield Text.assemble("    ", report.plain(d.why, limit=160))

    def _table(self) -> Any:
        table = report.table(
            "argument",
            "you intended",
            "the run had",
            "status",
            "why",
            title="Argument differences",
            title_justify="left",
            box=None,
            header_style="bold",
        )
        for d in self.rows:
            table.add_row(
                report.plain(d.arg),
                report.plain(d.intended, limit=60),
                report.plain(d.effective, limit=60),
                Text(d.status, style=_status_style(d)),
                report.plain(d.why, limit=160),
            )
        return table


def _status_style(d: ArgRow) -> str:
    return "green" if d.explained else "red"


def summaries_text(result: Summaries) -> None:
    for data in result.items:
        render_summary(console(), data)
    unreadable_lines(result.unreadable)
