"""This host as text: ``logscope gpus`` and ``logscope preflight`` (untrusted names made
visible, no markup)."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from .._text import visible
from ..machine.gpus import GIB, NOISE_BYTES, UNATTRIBUTED_FLAG_BYTES, GpuReport, Visibility
from ..machine.preflight import Preflight


def _fmt_gib(value: int | None) -> str:
    return "?" if value is None else f"{value / GIB:.2f} GiB"


def gpus_lines(report: GpuReport) -> Iterable[str]:
    """Plain text lines (untrusted names made visible, no markup)."""
    cvd = report.cuda_visible_devices
    head = f"{len(report.gpus)} GPU(s) visible"
    if cvd is not None:
        head += f" of {report.physical_count} (CUDA_VISIBLE_DEVICES={visible(cvd)!s})"
    head += f" — via {report.source}"
    if report.driver_version:
        head += f", driver {report.driver_version}"
    yield head
    for g in report.gpus:
        yield ""
        yield (
            f"cuda:{g.cuda_index} = GPU {g.index}  {visible(g.name)}  {g.uuid}\n"
            f"  total {_fmt_gib(g.total_bytes)}  used {_fmt_gib(g.used_bytes)}  "
            f"free {_fmt_gib(g.free_bytes)}"
            + (f"  (driver reserved {_fmt_gib(g.reserved_bytes)})" if g.reserved_bytes else "")
        )
        if not g.processes:
            yield (
                "  no compute process listed"
                if g.process_list_known
                else ("  processes: the driver would not list them")
            )
        for p in g.processes:
            tag = " [SGLang]" if p.is_sglang else ""
            state = ""
            if p.visibility is Visibility.EXITING:
                state = f" [exiting, state {p.state}: memory not released yet]"
            elif p.visibility is Visibility.UNVERIFIED:
                state = " [cannot confirm it has the GPU open]"
            yield f"  pid {p.pid:>8}  {_fmt_gib(p.used_bytes):>11}  {p.label}{tag}{state}"
        un = g.unattributed_bytes
        if un is None:
            yield "  memory per process not reported by the driver"
        elif un >= UNATTRIBUTED_FLAG_BYTES:
            yield f"  {_fmt_gib(un)} used by processes that cannot be seen"
        elif un >= NOISE_BYTES:
            yield f"  {_fmt_gib(un)} used beyond the listed processes (driver, contexts)"
    if report.notes:
        yield ""
        for note in report.notes:
            yield f"note: {note}"


def preflight_lines(result: Preflight) -> list[str]:
    """Plain text lines: a verdict, then each finding with its code."""
    cmd = result.command.meant or result.command  # the plan was made for the command as meant
    plan = result.plan
    lines = [
        f"preflight: {'CLEAR' if result.clear else 'PROBLEMS'} — SGLang {cmd.sglang_version}, "
        f"tp {cmd.args.get('tp_size')} pp {cmd.args.get('pp_size')} dp {cmd.args.get('dp_size')}"
        f" -> {plan.ranks} GPU(s) cuda:{','.join(map(str, plan.ordinals))}"
        + (
            f" (CUDA_VISIBLE_DEVICES={visible(plan.cuda_visible_devices)} from {plan.cvd_origin})"
            if plan.cuda_visible_devices is not None
            else ""
        )
    ]
    if result.gpus is not None:
        for o in plan.ordinals:
            g = result.gpus.by_cuda_index(o)
            if g is not None:
                lines.append(
                    f"  cuda:{o} = GPU {g.index} {visible(g.name)}: free {_fmt_gib(g.free_bytes)} "
                    f"of {_fmt_gib(g.total_bytes)}, {len(g.processes)} process(es)"
                )
    for f in result.findings:
        lines.append(f"{f.code} {f.severity.value:<7} {f.message}")
        if f.suggestion:
            lines.append(f"        -> {f.suggestion}")
    return lines


def gpus_text(result: GpuReport) -> None:
    sys.stdout.write("\n".join(gpus_lines(result)) + "\n")


def preflight_text(result: Preflight) -> None:
    sys.stdout.write("\n".join(preflight_lines(result)) + "\n")
