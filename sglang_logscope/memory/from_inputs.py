"""The one library call behind ``logscope budget``: a budget from a command file or a log."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..command.parse import parse_launch_command, read_command_file
from ..errors import LogscopeError
from ..limits import could_not_use
from ..log.tail import CHECK_KINDS, read_last_run
from .budget import budget
from .budget_types import Budget
from .from_run import budget_for_run
from .gpus import gpu_list
from .models import resolve_model


def budget_from_inputs(
    *,
    expect_args: str | None,
    log: str | None,
    run_index: int | None,
    model_config: Path | None,
    gpus: int | None,
    gpu_memory: str | None,
    sglang_version: str | None,
    command_text: str | None = None,
) -> Budget:
    """The one library call behind ``logscope budget`` (and the agent's ``budget`` tool, which
    passes the command as ``command_text`` instead of a file)."""
    inputs = [x for x in (expect_args, command_text, log) if x is not None]
    if len(inputs) != 1:
        raise LogscopeError("give exactly one of --expect-args FILE or --log LOG")
    hardware = gpu_list(gpus, gpu_memory)
    if expect_args is not None or command_text is not None:
        text, base = (
            read_command_file(expect_args) if expect_args is not None else (command_text, None)
        )
        assert text is not None
        cmd = parse_launch_command(text, sglang_version=sglang_version, base_dir=base)
        model = resolve_model(cmd.args, model_config)
        b = budget(
            cmd.args,
            gpus=hardware,
            model=model,
            sglang_version=sglang_version or cmd.sglang_version,
            explicit=cmd.explicit,
            version_source="given" if sglang_version is not None else "assumed",
        )
        if cmd.out_of_range:
            b = replace(b, assumptions=(*could_not_use(cmd.out_of_range), *b.assumptions))
        if sglang_version is None:
            b = replace(
                b,
                assumptions=(
                    f"SGLang version not given: {cmd.sglang_version} assumed",
                    *b.assumptions,
                ),
            )
        return b
    assert log is not None
    index = -1 if run_index is None else run_index
    # The last run: read from the file's end; another: every run streamed. Either way the
    # serving lines are folded, never held (the budget reads only startup events).
    parsed = read_last_run(log, keep=CHECK_KINDS, min_bytes=None if index == -1 else 1 << 62)
    if not parsed.runs:
        raise LogscopeError(f"{parsed.name}: no runs found")
    try:
        run = parsed.runs[index]
    except IndexError:
        raise LogscopeError(f"{parsed.name}: no run {index} (it has {len(parsed.runs)})") from None
    if run.server_args is None:
        raise LogscopeError(
            f"run {run.index} of {parsed.name} has no server_args line; use --expect-args with the launch command"
        )
    # without --model-config the run's budget resolves the model itself (and, as a last
    # resort, from the log's own architecture)
    given = resolve_model(run.server_args, model_config) if model_config is not None else None
    return budget_for_run(run, gpus=hardware, model=given, sglang_version=sglang_version)
