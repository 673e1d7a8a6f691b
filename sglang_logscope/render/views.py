"""Text renderings that need more than a table: the summary view, event selection."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text

from .. import _text
from .._text import lazy_regex
from ..staleness.verdict import CheckReport
from . import text as report
from .check_view import ArgRow, ArgSection, CheckView, MemorySection, check_view
from .text import console, page, release_text, unreadable_lines

if TYPE_CHECKING:  # start-up: the check's text does not load the listings
    from rich.console import Console

    from ..log.select import Summaries
    from .text import PlainPage

    #: Where the check's short screen is written: rich's console, or a page without colour.
    Page = Console | PlainPage

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
    if not verbose:
        _check_short(con, view, data)
        return
    _check_header(con, view, data, said)
    _check_runs(con, data)
    _check_args(con, view.args)
    _check_live(con, data)
    _check_failure(con, view, said)
    _check_fixed(con, data)
    _check_findings(con, view, said)


def _check_short(con: Page, view: CheckView, data: dict[str, Any]) -> None:
    """At most about 25 lines at 100 columns for the seed story (tests/test_first_screen.py)."""
    con.print(_verdict_line(view.verdict, view.headline, view.expected))
    _assumed(con, view, data)
    cause, fixed = view.cause, data.get("fixed_command")
    if cause:
        parts: list[Any] = [
            ("Cause ", "bold"),
            f"({cause.code}): ",
            report.plain(cause.message, limit=400),
        ]
        if not fixed:
            parts += [("  fixed: ", "bold"), report.plain(cause.fix, limit=400)]
        con.print(Text.assemble(*parts))
    failure = view.failure
    if failure and view.memory.oom_verdict is None and not view.headline.startswith("CRASHED"):
        con.print(Text.assemble(
            ("Failure ", "bold"), (failure.kind, "red"), f" at line {failure.line}: ",
            report.plain(" ".join(failure.message.split()), limit=160),
        ))  # fmt: skip
    _process_line(con, data)
    memory = _memory_line(view.memory)
    if memory is not None:
        con.print(memory)
    _check_fixed(con, data)
    _remote_line(con, data)
    shown = [
        f"{len(data.get('earlier_runs', [])) + (1 if data.get('run') else 0)} run(s)",
        f"{len(view.args.rows)} argument difference(s)" if view.args.rows else "",
        f"{len(view.findings)} finding(s)",
        f"{len(view.next_steps)} next step(s)" if view.next_steps else "",
    ]
    con.print(Text.assemble(("more: --verbose ", "dim"), f"({', '.join(s for s in shown if s)})"))


def _memory_line(mem: MemorySection) -> Text | None:
    """The memory verdict in one paragraph, with the confidence the budget (or the verdict)
    states, whatever it holds."""
    if mem.oom_verdict is not None:
        head: list[Any] = [
            ("Memory: ", "bold"),
            (mem.oom_verdict, "red"),
            " — ",
            report.plain(mem.oom_explanation, limit=500),
        ]
    elif mem.budget_words is not None:
        fits = "fits" if mem.budget_fits else "does NOT fit"
        head = [
            ("Your command's memory: ", "bold"),
            fits,
            report.plain(f" ({mem.budget_basis})", limit=300),
        ]
    else:
        return None
    if mem.confidence:
        head += [" ", ("Confidence ", "bold"), report.plain(mem.confidence, limit=200)]
    return Text.assemble(*head)


def _check_fixed(con: Page, data: dict[str, Any]) -> None:
    fixed = data.get("fixed_command")
    if not fixed:
        return
    codes = ", ".join(dict.fromkeys(c["code"] for c in fixed["changes"]))
    con.print(Text.assemble(
        ("Corrected command ", "bold"), f"({codes}; each edit and why: logscope fix -e CMD LOG):",
    ))  # fmt: skip
    body = "\n".join(line for line in fixed["text"].splitlines() if not line.startswith("#"))
    con.print(report.plain(body), soft_wrap=True)


def _assumed(con: Page, view: CheckView, data: dict[str, Any]) -> None:
    for f in view.findings:
        if f.code in ("LS041", "LS042", "LS120"):  # what was assumed, next to the verdict
            con.print(Text.assemble(("Assumed: ", "yellow"), report.plain(f.message)))
    index = (data.get("scan") or {}).get("index")
    if index:  # the run's middle was not read this time: say so next to the verdict
        con.print(Text.assemble(("Index: ", "dim"), report.plain(str(index["note"]), limit=400)))


def _remote_line(con: Page, data: dict[str, Any]) -> None:
    remote = data.get("remote")
    if remote:
        con.print(
            Text.assemble(
                ("Runs on ", "bold"),
                report.plain(remote["where"]),
                "; the same check there: ",
                report.plain(remote["command"]),
            )
        )


def _verdict_line(verdict: str, headline: str, expected: bool = True) -> Text:
    """The headline with its verdict word styled; a badge before it only where the headline
    does not begin with the verdict (``NO_RUN  No SGLang run…``), so no word is said twice."""
    style = _VERDICT_STYLE.get(verdict, "bold")
    label, colon, rest = headline.partition(":")
    word = label.split(" ", 1)[0].rstrip(",")
    if colon and not expected:  # the outcome first: READY / CRASHED / STOPPED ...
        return Text.assemble(
            (label + colon, _HEADLINE_STYLE.get(word, "bold red")), report.plain(rest)
        )
    if colon and verdict.upper() in label.upper():
        return Text.assemble((label + colon, style), report.plain(rest))
    return Text.assemble((verdict.upper(), style), "  ", report.plain(headline))


def _check_header(con: Console, view: CheckView, data: dict[str, Any], said: set[str]) -> None:
    con.print(_verdict_line(view.verdict, view.headline, view.expected))
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
    _assumed(con, view, data)
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
    _remote_line(con, data)


def _check_runs(con: Console, data: dict[str, Any]) -> None:
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


def _check_args(con: Console, args: ArgSection) -> None:
    if args.rows:
        con.print()
        con.print(arg_diff_table(args.rows))
    if args.matched:
        matched = ", ".join(args.matched)
        con.print(Text.assemble(("Matching your command: ", "dim"), report.plain(matched)))
    if args.unverified:
        unseen = ", ".join(args.unverified)
        con.print(Text.assemble(("Not visible in this run: ", "dim"), report.plain(unseen)))


def _check_live(con: Console, data: dict[str, Any]) -> None:
    _process_line(con, data)
    server = data.get("server")
    if server and server.get("reachable"):
        differs = len(server.get("arg_diff") or [])
        verdict = f"{differs} argument(s) differ from yours" if differs else "runs your arguments"
        con.print(
            Text.assemble(("Live server ", "bold"), report.plain(server["url"]), f": {verdict}")
        )


def _process_line(con: Page, data: dict[str, Any]) -> None:
    proc = data.get("process")
    if proc:
        state = "alive" if proc["alive"] else "exited"
        holds = ", holds this log" if proc.get("holds_log") else ""
        started = f", started {proc['started_at']}" if proc.get("started_at") else ""
        cmd = " ".join(proc.get("cmdline") or [])
        con.print(
            Text.assemble(
                ("Process ", "bold"),
                f"{proc['pid']} {state}{started}{holds}",
                ("  " if cmd else ""),
                report.plain(cmd, limit=200),
            )
        )


def _check_failure(con: Console, view: CheckView, said: set[str]) -> None:
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


def _check_findings(con: Console, view: CheckView, said: set[str]) -> None:
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


def check_text(result: CheckReport, verbose: bool = False) -> None:
    if verbose:
        render_check(console(), result, verbose)
    else:  # the short screen, on a page without rich's console where no colour is drawn
        _check_short(page(), check_view(result), result.to_dict())
