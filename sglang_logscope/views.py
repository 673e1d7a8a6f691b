"""Text renderings that need more than a table: the summary view, event selection."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.text import Text

from . import report
from .errors import LogscopeError
from .events import Event, EventKind
from .log import read_log
from .parse import iter_events

_ARGS_THAT_MATTER = (
    "model_path", "tp_size", "dp_size", "pp_size", "ep_size", "mem_fraction_static",
    "context_length", "max_running_requests", "max_total_tokens", "chunked_prefill_size",
    "kv_cache_dtype", "dtype", "quantization", "attention_backend", "disable_radix_cache",
    "speculative_algorithm", "speculative_num_steps", "speculative_eagle_topk",
    "speculative_num_draft_tokens", "mamba_full_memory_ratio", "max_mamba_cache_size",
    "mamba_ssm_dtype", "page_size", "cuda_graph_max_bs", "disable_cuda_graph",
)  # fmt: skip


def select_events(source: str, kinds: set[EventKind] | None, run: int | None) -> Iterable[Event]:
    """Events of ``source`` filtered by kind and run; streams when no run is asked for."""
    if run is None:
        stream = iter_events(source)
        return (e for e in stream if kinds is None or e.kind in kinds)
    log = read_log(source)
    if not log.runs:
        raise LogscopeError(f"{log.name}: holds no run")
    try:
        chosen = log.runs[run]
    except IndexError:
        raise LogscopeError(f"{log.name}: no run {run} (the log holds {len(log.runs)})") from None
    return [e for e in chosen.events if kinds is None or e.kind in kinds]


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
            f"  {run['started_at'] or '?'} → {run['ended_at'] or '?'}  ",
            (run["outcome"], _OUTCOME_STYLE.get(run["outcome"], "")),
        )
        if run.get("sglang_version_hint"):
            head.append(f"  sglang {run['sglang_version_hint']}")
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
            ("free before weights", report.gib(mem.get("free_before_weights_gib"))),
            ("weights", report.gib(mem.get("weights_gib"))),
            ("free after weights", report.gib(mem.get("free_after_weights_gib"))),
            ("KV tokens", str(mem.get("kv_tokens") or "-")),
            ("KV pool", report.gib(mem.get("kv_gib"))),
            ("mamba slots", str(mem.get("mamba_slots") or "-")),
            ("free after pools", report.gib(mem.get("free_after_pools_gib"))),
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


_OUTCOME_STYLE = {"ready": "green", "crashed": "red", "starting": "yellow", "stopped": "cyan"}
