"""Pre-flight: check the machine before a launch, in one report. It never kills or changes anything.

``preflight(text)`` reads the intended launch command (:func:`.command.parse_launch_command`) and
checks, with finding codes ``PF001``... (rows of the one registry ``findings.PF_CODES``, pages generated in ``docs/findings/``):
argparse would accept every flag; the GPUs the ranks will use exist (``tp x pp x dp``,
``CUDA_VISIBLE_DEVICES`` from the command's env or this environment, ``--base-gpu-id``,
``--gpu-id-step``); who holds memory on them (an earlier SGLang run above all); imbalance between
them (SGLang's "memory capacity is unbalanced"); the memory budget (:func:`.memory.budget.budget`)
with the live free memory as F0; the host/port can be bound; the model path; and what the
redirection will do to an existing log.
"""

from __future__ import annotations

import errno
import os
import socket
from collections.abc import Callable, Mapping
from dataclasses import field
from datetime import datetime
from pathlib import Path
from typing import Any

from .._record import record
from .._text import SCHEMA_VERSION, rfc3339, visible
from ..command.lint import lint, remote_check
from ..command.parse import LaunchCommand, parse_launch_command
from ..errors import EXIT_ELSEWHERE, LogscopeError
from ..findings import PF_CODES, Severity, code_of, finding_dict
from ..memory.budget import budget
from ..memory.budget_types import Budget, MeasuredFigures
from ..memory.gpus import GpuSpec
from .gpus import (
    GIB,
    MIB,
    UNATTRIBUTED_FLAG_BYTES,
    Gpu,
    GpuProcess,
    GpuReader,
    GpuReport,
    ProcFs,
    Visibility,
    inspect_gpus,
)
from .gpus import AutoReader as _AutoReader

#: GPU memory a fresh rank takes before SGLang measures F0 ("Load weight begin. avail mem"): its
#: CUDA context. Measured on an H200 (driver 580, torch 2.11): a process holding 20 GiB showed
#: 20.60 GiB in NVML (fixtures/gpus/h200x2/nvml-holder.json).
CONTEXT_GIB = 0.6
#: SGLang refuses tp > 1 when a rank's free memory is below this share of another's.
BALANCE_RATIO = 0.9


#: The pre-flight's own codes (PF): rows of the one registry, ``findings.PF_CODES``.
CODES = PF_CODES


@record
class Finding:
    """One statement of the pre-flight: a finding of the one registry (PF codes, and the launch
    lint's LS030-LS037), with the GPU it concerns, a suggestion and its figures."""

    code: str
    message: str
    gpu: int | None = None  # the CUDA ordinal concerned
    suggestion: str | None = None
    data: Mapping[str, Any] = field(default_factory=dict, compare=False)

    @property
    def severity(self) -> Severity:
        return code_of(self.code).severity

    @property
    def name(self) -> str:
        return code_of(self.code).name

    def to_dict(self) -> dict[str, Any]:
        return {
            **finding_dict(self.code, self.message),
            "gpu": self.gpu,
            "suggestion": self.suggestion,
            "data": dict(self.data),
        }


@record
class GpuPlan:
    """Which GPUs this node's ranks will use, as SGLang picks them."""

    ranks: int  # GPUs on this node: tp x pp (x dp without dp-attention) / nnodes
    ordinals: tuple[int, ...]  # CUDA ordinals: base_gpu_id + i x gpu_id_step
    cuda_visible_devices: str | None
    cvd_origin: str  # "command", "environment" or "unset"

    def to_dict(self) -> dict[str, Any]:
        return {
            "ranks": self.ranks,
            "cuda_ordinals": list(self.ordinals),
            "cuda_visible_devices": self.cuda_visible_devices,
            "cuda_visible_devices_from": self.cvd_origin,
        }


@record
class Preflight:
    """A command judged against this machine's GPUs before it is launched."""

    command: LaunchCommand
    plan: GpuPlan
    gpus: GpuReport | None
    findings: tuple[Finding, ...]
    budget: Mapping[str, Any] | None = None
    live_f0_gib: float | None = None
    empty_f0_gib: float | None = None
    #: Where the command runs when not here: ``{"where", "command"}`` (the check was refused).
    remote: Mapping[str, str] | None = None

    @property
    def clear(self) -> bool:
        return not any(f.severity in (Severity.ERROR, Severity.WARNING) for f in self.findings)

    @property
    def exit_code(self) -> int:
        """0 clear, 1 problems, 4 (``EXIT_ELSEWHERE``) refused: the command runs elsewhere
        (see ``remote``); 2 stays usage and input errors."""
        if self.remote is not None:
            return EXIT_ELSEWHERE
        return 0 if self.clear else 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "clear": self.clear,
            "findings": [f.to_dict() for f in self.findings],
            "plan": self.plan.to_dict(),
            "live_f0_gib": _r(self.live_f0_gib),
            "empty_f0_gib": _r(self.empty_f0_gib),
            "budget": dict(self.budget) if self.budget is not None else None,
            "command": self.command.to_dict(),
            "gpus": self.gpus.to_dict() if self.gpus is not None else None,
            "remote": dict(self.remote) if self.remote is not None else None,
        }


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def _gib(n: float) -> str:
    return f"{n / GIB:.2f} GiB"


# --------------------------------------------------------------------------- checks

PortProbe = Callable[[str, int], "str | None"]
#: What :func:`probe_port` says of a host name (it probes addresses only).
NOT_RESOLVED = "not resolved"


def probe_port(host: str, port: int) -> str | None:
    """Try to bind ``host:port`` as uvicorn would (SO_REUSEADDR); close at once.

    Returns None when it binds, else why not (``"in use"``, ``"address unavailable"``, ...).
    """
    if host == "localhost":
        host = "127.0.0.1"
    try:  # numeric only: a name from a command file is never sent to DNS (issue 20)
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
        )
    except socket.gaierror as exc:
        if exc.errno == socket.EAI_NONAME and host:
            return NOT_RESOLVED
        return f"address unavailable: cannot resolve {host!r}: {exc.strerror}"
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return "in use"
            if exc.errno == errno.EADDRNOTAVAIL:
                return "address unavailable: not an address of this machine"
            return f"cannot bind: {exc.strerror or exc}"
    return None


def plan_gpus(command: LaunchCommand, env: Mapping[str, str]) -> GpuPlan:
    args = command.args
    tp = int(args.get("tp_size") or 1)
    pp = int(args.get("pp_size") or 1)
    dp = int(args.get("dp_size") or 1)
    if args.get("enable_dp_attention"):
        dp = 1  # dp attention ranks live inside the tp group
    nnodes = max(int(args.get("nnodes") or 1), 1)
    ranks = max((tp * pp * dp) // nnodes, 1)
    base = int(args.get("base_gpu_id") or 0)
    step = int(args.get("gpu_id_step") or 1)
    if "CUDA_VISIBLE_DEVICES" in command.env:
        cvd: str | None = command.env["CUDA_VISIBLE_DEVICES"]
        origin = "command"
    elif "CUDA_VISIBLE_DEVICES" in env:
        cvd, origin = env["CUDA_VISIBLE_DEVICES"], "environment"
    else:
        cvd, origin = None, "unset"
    return GpuPlan(ranks, tuple(base + i * step for i in range(ranks)), cvd, origin)


def _holder_text(p: GpuProcess) -> str:
    return f"pid {p.pid} holds {_gib(p.used_bytes) if p.used_bytes else '? GiB'}: {p.label}"


def _gpu_findings(gpu: Gpu, ordinal: int) -> list[Finding]:
    out: list[Finding] = []
    where = f"cuda:{ordinal} (GPU {gpu.index})"
    for p in gpu.processes:
        data = p.to_dict()
        if p.is_sglang:
            out.append(
                Finding(
                    "PF003",
                    f"{where}: {_holder_text(p)}: an SGLang process, an earlier run still alive"
                    + (" and exiting" if p.visibility is Visibility.EXITING else ""),
                    ordinal,
                    f"stop that run yourself (check `ps -o pid,ppid,cmd -p {p.pid}` first), "
                    "or launch on other GPUs",
                    data,
                )
            )
        else:
            out.append(Finding("PF004", f"{where}: {_holder_text(p)}", ordinal, None, data))
    hidden = gpu.unattributed_bytes
    if hidden is not None and hidden >= UNATTRIBUTED_FLAG_BYTES:
        out.append(
            Finding(
                "PF015",
                f"{where}: {_gib(hidden)} used by processes that cannot be seen "
                "(another container, or the driver still freeing a killed process)",
                ordinal,
                "wait a few seconds and check again (`logscope gpus`)",
                {"unattributed_bytes": hidden},
            )
        )
    return out


def _balance(
    used: list[tuple[int, Gpu]], command: LaunchCommand, env: Mapping[str, str]
) -> Finding | None:
    tp = int(command.args.get("tp_size") or 1)
    if tp <= 1 or len(used) < 2:
        return None
    lo_ord, lo = min(used, key=lambda x: x[1].free_bytes)
    hi_ord, hi = max(used, key=lambda x: x[1].free_bytes)
    if lo.free_bytes >= BALANCE_RATIO * hi.free_bytes:
        return None
    merged = {**env, **command.env}
    off = merged.get("SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK", "").lower() in ("1", "true")
    off |= merged.get("SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK", "").lower() in ("0", "false")
    msg = (
        f"free memory is unbalanced: cuda:{lo_ord} has {_gib(lo.free_bytes)} free, cuda:{hi_ord} "
        f"{_gib(hi.free_bytes)} (< {BALANCE_RATIO} x): SGLang stops with 'The memory capacity "
        "is unbalanced. Some GPUs may be occupied by other processes.'"
    )
    if off:
        msg += " (the check is turned off in the environment: only a warning, F0 is the minimum)"
    return Finding(
        "PF005",
        msg,
        lo_ord,
        "free the memory held on the emptier GPU's holders, or choose GPUs with equal free memory",
        {
            "min_free_gib": _r(lo.free_bytes / GIB),
            "max_free_gib": _r(hi.free_bytes / GIB),
            "check_disabled": off,
        },
    )


def _model_findings(command: LaunchCommand, base: Path) -> list[Finding]:
    raw = command.args.get("model_path")
    if not raw:
        return []
    text = str(raw)
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = base / path
    looks_local = text.startswith(("/", "./", "../", "~")) or path.exists()
    if not looks_local:
        return [Finding("PF016", f"--model-path {text!r} is not a local path: not checked")]
    if not path.exists():
        return [
            Finding(
                "PF009", f"--model-path {visible(text)} does not exist", None,
                "check the path (and the mount, inside a container)",
            )
        ]  # fmt: skip
    if path.is_dir() and not (path / "config.json").is_file():
        return [Finding("PF010", f"--model-path {visible(text)} has no config.json")]
    return []


def _log_findings(command: LaunchCommand, base: Path) -> list[Finding]:
    if not command.log_path:
        return []
    path = Path(command.log_path).expanduser()
    if not path.is_absolute():
        path = base / path
    try:
        st = path.stat()
    except OSError:
        return []
    if st.st_size == 0:
        return []
    modified = datetime.fromtimestamp(int(st.st_mtime)).astimezone()  # this machine's zone
    when = f"{modified:%Y-%m-%d %H:%M:%S}"
    keep = f"keep it first: mv {command.log_path} {command.log_path}.{int(st.st_mtime)}"
    data = {"path": str(path), "bytes": st.st_size, "modified": rfc3339(modified)}
    if command.log_append:
        return [
            Finding(
                "PF012",
                f"'>> {command.log_path}' appends to an existing log ({st.st_size} bytes, last "
                f"written {when}): this run will be mixed with the earlier ones",
                None,
                f"{keep}, or read it with `logscope runs` (it splits runs)",
                data,
            )
        ]
    return [
        Finding(
            "PF011",
            f"'> {command.log_path}' will truncate an existing log ({st.st_size} bytes, last "
            f"written {when}): the previous run's log is lost",
            None,
            keep,
            data,
        )
    ]


def _port_findings(command: LaunchCommand, probe: PortProbe) -> list[Finding]:
    host = str(command.args.get("host") or "127.0.0.1")
    port = command.args.get("port")
    if port is None:
        return []
    why = probe(host, int(port))
    if why is None:
        return []
    if why == NOT_RESOLVED:
        return [Finding("LS081", f"--host {host}: a name; port {port} not probed", None, None)]
    if why.startswith("address unavailable"):
        return [Finding("PF008", f"--host {host}: {why}", None, None, {"host": host})]
    return [
        Finding(
            "PF007",
            f"{host}:{port} {why}: an earlier server may still be running",
            None,
            f"find it with `ss -ltnp 'sport = :{port}'`; or pick another --port",
            {"host": host, "port": int(port)},
        )
    ]


def _budget_findings(
    command: LaunchCommand,
    used: list[tuple[int, Gpu]],
    sglang_version: str | None,
) -> tuple[list[Finding], dict[str, Any] | None, float | None, float | None]:
    """The budget on the launch's GPUs as they are now (F0 = least free memory minus the CUDA
    context), and, when it does not fit, whether the same GPUs emptied would fit."""
    specs = [GpuSpec(g.name, g.total_bytes / MIB, "live") for _, g in used]
    live = min(g.free_bytes for _, g in used) / GIB - CONTEXT_GIB
    # the same GPUs emptied of every holder: what is free plus what is used now
    empty = min(g.free_bytes + g.used_bytes for _, g in used) / GIB - CONTEXT_GIB

    def run(f0: float, origin: str) -> Budget:
        return budget(
            command.args,
            gpus=specs,
            sglang_version=sglang_version,
            measured=MeasuredFigures(f0_gib=f0, origin=origin),
            explicit=command.explicit,
        )

    try:
        b = run(live, f"live: min free of the launch's GPUs - {CONTEXT_GIB} GiB context")
    except LogscopeError as exc:
        return [Finding("PF014", f"memory budget not computed: {exc}")], None, live, empty
    if b.fits:
        pg = b.per_gpu
        msg = (
            f"F0 {live:.2f} GiB (free now - {CONTEXT_GIB} GiB context): weights "
            f"{pg.weights_gib:.2f} GiB, KV cache {pg.kv_gib:.2f} GiB ({pg.kv_tokens} tokens) "
            f"per GPU{_release_said(b)}"
        )
        return [Finding("PF017", msg, None, None, {"f0_gib": _r(live)})], b.to_dict(), live, empty
    empty_fits = run(empty, "live, GPUs emptied").fits if empty > live + 0.01 else False
    return [_does_not_fit(b, used, live, empty, empty_fits)], b.to_dict(), live, empty


def _release_said(b: Budget) -> str:
    return f" (SGLang {b.sglang_version} {b.sources.get('sglang_version', 'given')})"


def _does_not_fit(
    b: Budget, used: list[tuple[int, Gpu]], live: float, empty: float, empty_fits: bool
) -> Finding:
    """PF006: how much is missing on the fullest GPU, and whether its holders are the cause."""
    need = live + b.shortfall_gib
    worst = min(used, key=lambda x: x[1].free_bytes)
    msg = (
        f"does not fit: F0 {live:.2f} GiB (free now on cuda:{worst[0]} - {CONTEXT_GIB} GiB "
        f"context); it needs about {need:.2f} GiB ({b.shortfall_gib:.2f} GiB more)"
    )
    if b.failure_kind is not None:
        msg += f" [{b.failure_kind.value}]"
    msg += _release_said(b)
    suggestion: str | None
    if empty_fits:
        msg += (
            f"; on empty GPUs (F0 {empty:.2f} GiB) it fits: the {_gib(worst[1].used_bytes)} "
            f"held on cuda:{worst[0]} is what makes it fail"
        )
        suggestion = "free the memory named above, then launch"
    else:
        suggestion = "; ".join(f"{s.change} ({s.effect})" for s in b.suggestions[:3]) or None
    extra = {"need_f0_gib": _r(need), "empty_fits": empty_fits}
    return Finding("PF006", msg, worst[0], suggestion, extra)


def preflight(
    text: str,
    *,
    sglang_version: str | None = None,
    base_dir: Path | None = None,
    reader: GpuReader | None = None,
    env: Mapping[str, str] | None = None,
    procfs: ProcFs | None = None,
    port_probe: PortProbe = probe_port,
    cwd: Path | None = None,
    here: bool = False,
    command_file: str | None = None,
) -> Preflight:
    """Check the machine for the launch in ``text``. Raises :class:`.errors.CommandError` when
    the text holds no SGLang launch (a usage error); everything else is a finding.

    A command that runs on another host or in a container is not judged against this machine
    (its GPUs, ports and paths) unless ``here``: the result says where it runs and the command
    that runs the same pre-flight there.
    """
    env = os.environ if env is None else env
    cwd = cwd or Path.cwd()
    command = parse_launch_command(text, sglang_version=sglang_version, base_dir=base_dir)
    findings = [
        Finding(h.code, visible(h.message), None, visible(h.fix))
        for h in lint(text, script=command_file)
    ]
    remote = None if here else remote_check(text, "logscope preflight --here --expect-args -")
    if command.rejected:
        parts = [f"unknown {u}" for u in command.unknown]
        parts += [f"ambiguous {k} ({', '.join(v)})" for k, v in command.ambiguous.items()]
        parts += list(command.errors)
        hints = "; ".join(f"{k} -> {v}" for k, v in command.suggestions.items())
        findings.append(
            Finding(
                "PF001",
                f"SGLang {command.sglang_version}'s argparse would exit at once: "
                + "; ".join(visible(p) for p in parts),
                None,
                hints or None,
            )
        )
    meant = command.meant or command  # '\\ --tp 2' read as meant (PF001/LS037 say the rest)
    plan = plan_gpus(meant, env)
    if remote is not None:
        return _elsewhere(command, plan, findings, remote, command_file)
    report, gpu_findings, budget_data, live_f0, empty_f0 = _gpu_checks(
        meant, plan, env, reader, procfs, sglang_version
    )
    findings.extend(gpu_findings)
    findings.extend(_port_findings(meant, port_probe))
    findings.extend(_model_findings(meant, cwd))
    findings.extend(_log_findings(meant, cwd))
    order = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
    findings.sort(key=lambda f: (order[f.severity], f.code))
    return Preflight(command, plan, report, tuple(findings), budget_data, live_f0, empty_f0)


def _gpu_checks(
    command: LaunchCommand,
    plan: GpuPlan,
    env: Mapping[str, str],
    reader: GpuReader | None,
    procfs: ProcFs | None,
    sglang_version: str | None,
) -> tuple[GpuReport | None, list[Finding], dict[str, Any] | None, float | None, float | None]:
    """The GPUs the launch will use: missing ones, holders, balance, and the memory budget."""
    out: list[Finding] = []
    report: GpuReport | None = None
    budget_data: dict[str, Any] | None = None
    live_f0 = empty_f0 = None
    try:
        reading = (reader or _AutoReader()).read()
    except LogscopeError as exc:
        out.append(Finding("PF013", str(exc)))
    else:
        report = inspect_gpus(
            reading, cuda_visible_devices=plan.cuda_visible_devices, procfs=procfs
        )
        used = [(o, g) for o in plan.ordinals if (g := report.by_cuda_index(o)) is not None]
        missing = [o for o in plan.ordinals if report.by_cuda_index(o) is None]
        if missing:
            cvd = plan.cuda_visible_devices
            out.append(
                Finding(
                    "PF002",
                    f"the launch uses {plan.ranks} GPU(s), cuda:{','.join(map(str, plan.ordinals))}"
                    f", but only {len(report.gpus)} are visible"
                    + (f" (CUDA_VISIBLE_DEVICES={visible(cvd)} from {plan.cvd_origin})" if cvd is not None else "")
                    + f": cuda:{','.join(map(str, missing))} missing",
                    None,
                    None,
                    {"missing": missing},
                )
            )  # fmt: skip
        for ordinal, gpu in used:
            out.extend(_gpu_findings(gpu, ordinal))
        balance = _balance(used, command, env)
        if balance is not None:
            out.append(balance)
        if report.foreign_pids:
            out.append(Finding("PF018", report.notes[-1] if report.notes else "host PIDs"))
        if used:
            extra, budget_data, live_f0, empty_f0 = _budget_findings(command, used, sglang_version)
            out.extend(extra)
    return report, out, budget_data, live_f0, empty_f0


def _elsewhere(
    command: LaunchCommand,
    plan: GpuPlan,
    findings: list[Finding],
    remote: tuple[str, str],
    command_file: str | None,
) -> Preflight:
    """The refused pre-flight of a command that runs elsewhere: where, and what to run there."""
    where, there = remote
    stdin = visible(command_file) if command_file else "YOUR_COMMAND_FILE"
    run = f"{there} < {stdin}"
    findings.append(
        Finding(
            "PF019",
            f"the command runs on {where}: this machine's GPUs, ports and paths are not the ones "
            "it will use, so they are not checked",
            None,
            f"run the same pre-flight there: {run}   (or pass --here to check this machine)",
        )
    )
    return Preflight(command, plan, None, tuple(findings), remote={"where": where, "command": run})
