"""The one library call behind ``logscope budget``: a budget from a command file or a log."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..command.parse import parse_launch_command, read_command_file
from ..errors import LogscopeError
from ..limits import could_not_use
from ..log.runs import Run
from ..log.tail import CHECK_KINDS, read_last_run
from .budget import budget
from .budget_types import Budget, DeclinedBudget, declined_budget
from .from_run import budget_for_run, measured_for_command, version_for_run
from .gpus import gpu_list
from .log_gpus import gpu_from_run
from .models import ModelUnknown, resolve_model

_MEANT = (
    "command read as meant: words starting with a space ('\\ --flag' in a flattened paste) "
    "stripped; typed as is, bash passes them with the space and SGLang's argparse refuses them "
    "(`logscope args` and `preflight` say so)"
)


def budget_from_inputs(
    *,
    expect_args: str | None,
    log: str | None,
    run_index: int | None,
    model_config: Path | None,
    gpus: int | None,
    gpu_memory: str | None,
    sglang_version: str | None,
    assume_model: str | None = None,
    command_text: str | None = None,
) -> Budget | DeclinedBudget:
    """The one library call behind ``logscope budget``: the command's budget (``expect_args``,
    or ``command_text`` from the agent's ``budget`` tool), a run's own (``log``), or the
    command's against the run's measured free memory and release (both). Without evidence of
    the model's shapes the budget is declined, never guessed."""
    if expect_args is not None and command_text is not None:
        raise LogscopeError("give the command as a file or as text, not both")
    command = read_command_file(expect_args) if expect_args is not None else None
    if command_text is not None:
        command = (command_text, None)
    if command is None and log is None:
        raise LogscopeError("give --expect-args FILE, --log LOG, or both")
    hardware = gpu_list(gpus, gpu_memory)
    run = _run_of(log, run_index) if log is not None else None
    try:
        if command is None:
            assert run is not None
            return _run_budget(run, hardware, model_config, sglang_version, assume_model)
        return _command_budget(command, run, hardware, model_config, sglang_version, assume_model)
    except ModelUnknown as exc:
        return declined_budget(exc)


def _run_of(log: str, run_index: int | None) -> Run:
    index = -1 if run_index is None else run_index
    # The last run: read from the file's end; another: every run streamed. Either way the
    # serving lines are folded, never held (the budget reads only startup events).
    parsed = read_last_run(log, keep=CHECK_KINDS, min_bytes=None if index == -1 else 1 << 62)
    if not parsed.runs:
        raise LogscopeError(f"{parsed.name}: no runs found")
    try:
        return parsed.runs[index]
    except IndexError:
        raise LogscopeError(f"{parsed.name}: no run {index} (it has {len(parsed.runs)})") from None


def _command_budget(
    command: tuple[str, Path | None],
    run: Run | None,
    hardware: Any,
    model_config: Path | None,
    sglang_version: str | None,
    assume_model: str | None,
) -> Budget:
    """The command's budget; with a run, against its measured free memory and its release."""
    text, base = command
    typed = parse_launch_command(text, sglang_version=sglang_version, base_dir=base)
    cmd = typed.meant or typed  # '\\ --tp 2' in a flattened paste: as its author meant it
    model = resolve_model(cmd.args, model_config, assume_model=assume_model)
    from_log = version_for_run(run, None)[0] if run is not None and not sglang_version else None
    version = sglang_version or from_log or cmd.sglang_version
    source = "given" if sglang_version else ("log" if from_log else "assumed")
    measured = measured_for_command(run, cmd.args) if run is not None else None
    if hardware is None and run is not None:  # the log's own GPU before any default
        hardware = gpu_from_run(run)
    b = budget(
        cmd.args,
        gpus=hardware,
        model=model,
        sglang_version=version,
        explicit=cmd.explicit,
        measured=measured,
        version_source=source,
    )
    if cmd.out_of_range:
        b = replace(b, assumptions=(*could_not_use(cmd.out_of_range), *b.assumptions))
    if typed.meant is not None:
        b = replace(b, assumptions=(_MEANT, *b.assumptions))
    if source == "assumed":
        b = replace(
            b,
            assumptions=(f"SGLang version not given: {cmd.sglang_version} assumed", *b.assumptions),
        )
    return b


def _run_budget(
    run: Run,
    hardware: Any,
    model_config: Path | None,
    sglang_version: str | None,
    assume_model: str | None,
) -> Budget:
    if run.server_args is None:
        raise LogscopeError(
            f"run {run.index} has no server_args line; add --expect-args FILE with the launch "
            "command (it is budgeted against this run's free memory and release)"
        )
    given = (
        resolve_model(run.server_args, model_config, assume_model=assume_model)
        if model_config is not None or assume_model is not None
        else None
    )
    return budget_for_run(run, gpus=hardware, model=given, sglang_version=sglang_version)
