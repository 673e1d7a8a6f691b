"""The ``logscope`` command: parse options, call one library function, render.

Every ``LogscopeError`` becomes one line on stderr and exit code 2 (in :func:`main`, the one
place that maps errors to exit codes). Results go to stdout; messages to stderr.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ._direct import (
    InputFormatChoice,
    check_command,
    direct_call,
    guarded,
    plain_check,
)
from ._direct import adapted as _adapted
from ._direct import log_paths as _log_paths
from .errors import LogscopeError
from .events import EventKind
from .limits import refuse_overwriting
from .meter import input_size
from .render import text as report
from .render.emit import Format, emit, format_choices
from .render.progress import working

if TYPE_CHECKING:
    from rich.console import Console

    from .command.parse import LaunchCommand
    from .watch.launch import Launched

# Start-up matters (``logscope check`` before every launch): every import that only some
# commands need (rich tables, the parser, pandas, the memory arithmetic, ...) lives inside
# the command that needs it.

app = typer.Typer(
    name="logscope",
    help="Forensics for SGLang server logs: runs, stale-log detection, memory budgets.",
    add_completion=True,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

#: Set by ``--debug`` (or ``LOGSCOPE_DEBUG=1``): internal errors show their traceback.
_debug = bool(os.environ.get("LOGSCOPE_DEBUG"))


def _version() -> str:
    # start-up: importlib.metadata only for --version
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("sglang-logscope")
    except PackageNotFoundError:  # run from a source tree that is not installed
        # start-up: the package's own version only when not installed
        from . import __version__

        return __version__


def _print_version(value: bool) -> None:
    if value:
        # start-up: the lane's state only for --version
        from .parse.fastscan import describe

        sys.stdout.write(f"logscope {_version()} ({describe()})\n")
        raise typer.Exit(0)


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            help="Print the version and exit.",
            is_eager=True,
            callback=_print_version,
        ),
    ] = False,
    debug: Annotated[
        bool, typer.Option("--debug", help="On an internal error, print its traceback.")
    ] = False,
) -> None:
    """Forensics for SGLang server logs: runs, stale-log detection, memory budgets."""
    global _debug
    _debug = _debug or debug


LogArg = Annotated[
    str, typer.Argument(help="SGLang log file ('-' for stdin; .gz, .xz, .bz2 accepted).")
]
LogsArg = Annotated[
    list[str],
    typer.Argument(
        help="SGLang log file(s) ('-' for stdin; .gz, .xz, .bz2 accepted), directories, globs or URL "
        "prefixes; several are grouped into launches."
    ),
]
RecursiveOpt = Annotated[
    bool, typer.Option("--recursive", "-r", help="Directories and URL prefixes: descend.")
]


# Each command's --format: an Enum of its row of render.emit.COMMAND_FORMATS (one table of
# format names; tests/test_formats.py walks the app against it), members named as Format's.
if TYPE_CHECKING:
    EventsFormat = Format
    RunsFormat = Format
    SummaryFormat = Format
    GpusFormat = Format
    CheckFormat = Format
    ArgsFormat = Format
    FixFormat = Format
    BudgetFormat = Format
    PreflightFormat = Format
    WatchFormat = Format
    LaunchFormat = Format
else:
    EventsFormat, RunsFormat, SummaryFormat, GpusFormat, CheckFormat = map(
        format_choices, ("events", "runs", "summary", "gpus", "check")
    )
    ArgsFormat, FixFormat, BudgetFormat, PreflightFormat, WatchFormat, LaunchFormat = map(
        format_choices, ("args", "fix", "budget", "preflight", "watch", "launch")
    )

#: Options shared by several commands, declared once.
_FORMAT = typer.Option("--format", "-f", help="Output format.")
LogTzOpt = Annotated[
    str | None,
    typer.Option(
        "--log-tz", help="Time zone of the log's timestamps (SGLang prints naive local time)."
    ),
]
RedactOpt = Annotated[
    bool,
    typer.Option(
        "--redact",
        help="Replace host names, IP addresses, container ids, home directories, tokens and URL "
        "credentials in the output by consistent placeholders (host-1, ip-1, ...).",
    ),
]


InputFormatOpt = Annotated[
    InputFormatChoice,
    typer.Option(
        "--input-format",
        help="How the file wraps SGLang's lines (kubectl --timestamps/--prefix, Docker "
        "json-file, journalctl -o short-iso/json/export, docker compose); auto: detected.",
    ),
]
ContainerOpt = Annotated[
    str | None,
    typer.Option(
        "--container",
        help="Of several containers interleaved in one file (kubectl --prefix, compose), "
        "the one to read: pod/NAME/CONTAINER or the compose service prefix.",
    ),
]


@app.command()
def events(
    log: LogArg,
    kind: Annotated[
        list[str] | None,
        typer.Option("--kind", "-k", help="Only events of this kind (repeatable)."),
    ] = None,
    run: Annotated[
        int | None, typer.Option("--run", help="Only events of run N (0-based; -1 = last).")
    ] = None,
    fmt: Annotated[
        EventsFormat, typer.Option("--format", "-f", help="Output format (table: text's old name).")
    ] = EventsFormat.TEXT,
    input_format: InputFormatOpt = InputFormatChoice.auto,
    container: ContainerOpt = None,
) -> None:
    """List the events of a log."""
    # start-up: each command loads only the library and renderer it needs
    from .log.select import select_events

    selected = select_events(_adapted(log, input_format, container), kinds=_kinds(kind), run=run)
    with working(f"reading {log}", total=input_size([log]), streaming=True):
        emit(selected, fmt)  # (the events are read as they are written)


@app.command()
def runs(
    log: LogsArg,
    fmt: Annotated[
        RunsFormat, typer.Option("--format", "-f", help="Output format (table: text's old name).")
    ] = RunsFormat.TEXT,
    input_format: InputFormatOpt = InputFormatChoice.auto,
    container: ContainerOpt = None,
    recursive: RecursiveOpt = False,
) -> None:
    """List the runs (launches) a log holds and how each ended; of several logs, the launches
    their runs make (nodes, prefill and decode servers) and the evidence joining each."""
    # start-up: each command loads only the library and renderer it needs
    from .log.launches import read_launches
    from .log.select import list_runs

    paths = _log_paths(log, recursive)
    if len(paths) > 1:
        with working(f"reading {len(paths)} files", total=input_size(paths)):
            emit(read_launches([_adapted(p, input_format, container) for p in paths]), fmt)
        return
    with working(f"reading {paths[0]}", total=input_size(paths)):
        result = list_runs(_adapted(paths[0], input_format, container))
    emit(result, fmt)


@app.command()
def summary(
    log: Annotated[
        list[str],
        typer.Argument(
            help="SGLang log file(s) ('-' for stdin; .gz, .xz, .bz2 accepted); several run in parallel."
        ),
    ],
    fmt: Annotated[SummaryFormat, _FORMAT] = SummaryFormat.TEXT,
    input_format: InputFormatOpt = InputFormatChoice.auto,
    container: ContainerOpt = None,
    recursive: RecursiveOpt = False,
    launches: Annotated[
        bool,
        typer.Option(
            "--launches",
            help="Group the logs' runs into launches (multi-node, PD) and show each launch: "
            "its evidence, roles, timeline, outcome and first failure.",
        ),
    ] = False,
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            help="Run on Dask, a batch of files per task: a scheduler's address, or 'local' (a "
            "local cluster); JSON lines stream as batches complete, then the fleet table.",
        ),
    ] = None,
    parquet: Annotated[
        Path | None,
        typer.Option("--parquet", help="Write the fleet table (one row per launch) as Parquet."),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Processes to use (default: the free cores): several files share them; one "
            "big plain file is cut into that many ranges, parsed side by side. 1: this one only.",
        ),
    ] = None,
) -> None:
    """Per run: times, outcome, failure, key memory figures and the arguments that matter.

    With several files (processed in parallel), JSON output is one summary per line (JSON lines).
    Directories, globs and URL prefixes (``s3://bucket/prefix/``) name the logs in them.
    """
    # start-up: each command loads only the library and renderer it needs
    from .log.launches import read_launches
    from .log.select import summaries

    paths = _log_paths(log, recursive)
    if dask is not None or parquet is not None:
        _fleet([_adapted(p, input_format, container) for p in paths], dask, parquet, fmt)
        return
    if launches:
        with working(f"reading {len(paths)} file(s)", total=input_size(paths)):
            emit(read_launches([_adapted(p, input_format, container) for p in paths]), fmt)
        return
    several = len(paths) > 1  # (several: read by other processes, each counted as it ends)
    with working(
        f"summarizing {len(paths)} files" if several else f"summarizing {paths[0]}",
        total=input_size(paths),
    ):
        result = summaries([_adapted(one, input_format, container) for one in paths], jobs)
    emit(result, fmt)


def _fleet(paths: list[Any], dask: str | None, parquet: Path | None, fmt: SummaryFormat) -> None:
    """``summary --dask`` / ``--parquet``: the fleet read (on Dask, or here), rendered, the
    table written; an error only when no file could be read."""
    # start-up: the fleet helpers load only for a fleet
    from .log.fleet import read_fleet, write_parquet

    if parquet is not None:
        refuse_overwriting(parquet, *paths)
    fleet = read_fleet(paths, dask)
    emit(fleet, fmt)
    if not fleet.read:
        raise LogscopeError(f"no log could be read ({len(paths)} given)")
    if parquet is not None:
        write_parquet(fleet.table(), str(parquet))


class GpuSource(str, Enum):
    auto = "auto"
    nvml = "nvml"
    nvidia_smi = "nvidia-smi"


@app.command()
def gpus(
    fmt: Annotated[GpusFormat, _FORMAT] = GpusFormat.TEXT,
    source: Annotated[
        GpuSource, typer.Option("--source", help="Read through NVML, nvidia-smi, or auto.")
    ] = GpuSource.auto,
) -> None:
    """Per GPU (under CUDA_VISIBLE_DEVICES): memory, and the processes holding it."""
    # start-up: each command loads only the library and renderer it needs
    from .machine.gpus import GpuReadError, read_gpus, reader_for, unread_gpus

    try:
        emit(read_gpus(reader=reader_for(source.value)), fmt)
    except GpuReadError as exc:
        if fmt != Format.JSON:
            raise
        emit(unread_gpus(exc, source.value), fmt)  # JSON still: no GPUs, and why
        sys.stderr.write(f"logscope: error: {exc}\n")
        raise typer.Exit(2) from None


# The options of `check`, declared apart so that its signature reads as a list of them.
_CheckExpectArgs = Annotated[
    list[str] | None,
    typer.Option(
        "--expect-args",
        "-e",
        help="File holding the launch command you intended (as typed or pasted). Of several "
        "logs, one per role: prefill=p.txt, decode=d.txt, node1=n1.txt (repeatable).",
    ),
]
_CheckLaunchedAt = Annotated[
    str | None,
    typer.Option(
        "--launched-at",
        help="When you launched: '2026-05-09 09:31', '09:31' (the run's date), an epoch, or ISO with zone.",
    ),
]
_CheckVersion = Annotated[
    str | None,
    typer.Option("--sglang-version", help="SGLang release whose argument table reads the command."),
]
_CheckServer = Annotated[
    str | None,
    typer.Option(
        "--server",
        help="http:// URL on a loopback address of the live server to ask for its arguments (default: the command's port on 127.0.0.1).",
    ),
]
_CheckHere = Annotated[
    bool,
    typer.Option(
        "--here", help="The command runs on this machine (even through ssh/pct/docker/kubectl)."
    ),
]


@app.command()
def check(
    log: LogsArg,
    expect_args: _CheckExpectArgs = None,
    launched_at: _CheckLaunchedAt = None,
    log_tz: LogTzOpt = None,
    sglang_version: _CheckVersion = None,
    fmt: Annotated[CheckFormat, _FORMAT] = CheckFormat.TEXT,
    server: _CheckServer = None,
    here: _CheckHere = False,
    input_format: InputFormatOpt = InputFormatChoice.auto,
    container: ContainerOpt = None,
    recursive: RecursiveOpt = False,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose",
            "-v",
            help="Text: everything (runs, argument table, findings, next steps), not the short screen.",
        ),
    ] = False,
    redact: RedactOpt = False,
) -> None:
    """Is this log (its last run) the launch you intended? Without one: how did the last run end?
    Exit 0 fresh (or, nothing expected, ready/stopped), 1 otherwise.

    Of several logs: each file, and the launches they make (a node from an older launch is stale).
    """
    raise typer.Exit(
        check_command(
            log, expect_args, launched_at, log_tz, sglang_version, fmt, server, here,
            input_format, container, recursive, verbose, redact,
        )
    )  # fmt: skip


@app.command("report")
def report_command(
    log: LogsArg,
    html_out: Annotated[
        Path | None,
        typer.Option(
            "--html", help="Write the self-contained HTML report to this file ('-': stdout)."
        ),
    ] = None,
    expect_args: Annotated[
        Path | None,
        typer.Option("--expect-args", "-e", help="File holding the launch command you intended."),
    ] = None,
    launched_at: Annotated[
        str | None,
        typer.Option("--launched-at", help="When you launched (as for `logscope check`)."),
    ] = None,
    log_tz: LogTzOpt = None,
    sglang_version: Annotated[
        str | None,
        typer.Option("--sglang-version", help="SGLang release whose tables and arithmetic to use."),
    ] = None,
    markdown_out: Annotated[
        Path | None,
        typer.Option(
            "--markdown",
            help="Write a GitHub-flavoured Markdown report (under 65,000 characters) to this "
            "file ('-': stdout).",
        ),
    ] = None,
    redact: RedactOpt = False,
) -> None:
    """One self-contained HTML page (verdict, runs, arg diff, memory, serving) to attach to an issue.

    --markdown: the check as GitHub Markdown (under 65,000 characters) to paste into one.

    Of several logs: the launches they make, each file's check and per-worker serving series.
    """
    # start-up: each command loads only the library and renderer it needs
    from .render.html import render_html
    from .render.launch_html import render_launch_html
    from .render.markdown import render_markdown
    from .staleness.report import full_report, launch_report

    if redact:
        # start-up: the redactor (its patterns: ~8 ms) only for --redact
        from ._redact import redact_text

    paths = _log_paths(log, False)
    if html_out is None and markdown_out is None:
        raise LogscopeError("report needs --html OUT or --markdown OUT ('-': stdout)")
    if markdown_out is not None and len(paths) > 1:
        raise LogscopeError("--markdown reports one log (--html reports several)")
    for out in (html_out, markdown_out):
        if out is not None and str(out) != "-":
            refuse_overwriting(out, *paths, expect_args)
    if len(paths) > 1:
        expects: dict[str | None, str] = {None: str(expect_args)} if expect_args else {}
        with working(f"reporting on {len(paths)} files"):
            several = launch_report(
                paths, expects, launched_at, log_tz, sglang_version=sglang_version
            )
            pages = {html_out: render_launch_html(several)}
    else:
        with working(f"reporting on {paths[0]}", total=input_size(paths)):
            result = full_report(
                paths[0], expect_args, launched_at, log_tz, sglang_version=sglang_version
            )
            pages = {html_out: render_html(result) if html_out else ""}
            if markdown_out is not None:
                pages[markdown_out] = render_markdown(result)
    for out, page in pages.items():
        if out is not None:
            _write_page(out, redact_text(page) if redact else page, paths, expect_args)


def _write_page(out: Path, page: str, paths: list[str], expect_args: Path | None) -> None:
    """``page`` to ``out`` ('-': stdout), never over one of the inputs."""
    if str(out) == "-":  # as for LOG: '-' is the standard stream
        sys.stdout.write(page)
        return
    refuse_overwriting(out, *paths, expect_args)  # (again: a link made meanwhile)
    try:
        out.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise LogscopeError(f"cannot write {out}: {exc.strerror or exc}") from None
    sys.stderr.write(f"wrote {out} ({len(page.encode('utf-8')):,} bytes)\n")


@app.command("args")
def args_command(
    file: Annotated[str, typer.Argument(help="File holding the launch command ('-' for stdin).")],
    sglang_version: Annotated[
        str | None,
        typer.Option("--sglang-version", help="SGLang release whose argument table to use."),
    ] = None,
    fmt: Annotated[ArgsFormat, _FORMAT] = ArgsFormat.TEXT,
) -> None:
    """The arguments SGLang would receive from a launch command (exit 1 if argparse rejects it)."""
    # start-up: each command loads only the library and renderer it needs
    from .command.parse import parse_launch_command, read_command_file

    text, base_dir = read_command_file(file)
    cmd = parse_launch_command(text, sglang_version=sglang_version, base_dir=base_dir)
    emit(cmd, fmt)
    if cmd.rejected:
        raise typer.Exit(1)


@app.command("fix")
def fix_command_cli(
    expect_args: Annotated[
        str,
        typer.Option(
            "--expect-args", "-e", help="File holding the launch command ('-' for stdin)."
        ),
    ],
    log: Annotated[
        str | None,
        typer.Argument(help="The log the command was checked against (its memory figures)."),
    ] = None,
    fmt: Annotated[FixFormat, _FORMAT] = FixFormat.TEXT,
) -> None:
    """The whole corrected launch, in the form pasted: every lint fix, and the budget's first memory fix (with LOG). Exit 1 if an error stays."""
    # start-up: each command loads only the library and renderer it needs
    from .command.lint import lint
    from .command.parse import read_command_file
    from .findings import CODES, Severity
    from .staleness.fixing import fix_command

    if expect_args == "-":
        text, _ = read_command_file("-")
        fixed = fix_command(text, log)
    else:
        read_command_file(expect_args)  # one clear line for a missing or unreadable file
        fixed = fix_command(Path(expect_args), log)
    emit(fixed, fmt)
    errors = [h for h in lint(fixed.text) if CODES[h.code].severity is Severity.ERROR]
    raise typer.Exit(1 if errors else 0)


@app.command("budget")
def budget_command(
    expect_args: Annotated[
        str | None, typer.Option("--expect-args", "-e", help="File holding the launch command.")
    ] = None,
    log: Annotated[
        str | None, typer.Option("--log", help="SGLang log: use a run's own numbers.")
    ] = None,
    run: Annotated[
        int | None, typer.Option("--run", help="Run N of --log (0-based; -1 = last).")
    ] = None,
    model_config: Annotated[
        Path | None,
        typer.Option("--model-config", help="Hugging Face config.json (or its folder)."),
    ] = None,
    gpus: Annotated[int | None, typer.Option("--gpus", help="Number of GPUs.")] = None,
    gpu_memory: Annotated[
        str | None,
        typer.Option(
            "--gpu-memory",
            help="Per-GPU memory (48GB, 48GiB, 49152MiB) or a preset (a6000, h100, ...).",
        ),
    ] = None,
    sglang_version: Annotated[
        str | None, typer.Option("--sglang-version", help="SGLang release whose arithmetic to use.")
    ] = None,
    fmt: Annotated[BudgetFormat, _FORMAT] = BudgetFormat.TEXT,
    assume_model: Annotated[
        str | None,
        typer.Option(
            "--assume-model",
            help="Price an unknown model with this bundled profile's shapes (said in the verdict).",
        ),
    ] = None,
) -> None:
    """SGLang's startup memory budget for a launch command or a log's run (exit 1: does not fit).

    With both, the command against the run's measured free memory and release; exit 2 and no
    figure when the model's shapes are not known (pass --model-config DIR)."""
    # start-up: each command loads only the library and renderer it needs
    from .memory.from_inputs import budget_from_inputs

    result = budget_from_inputs(
        expect_args=expect_args,
        log=log,
        run_index=run,
        model_config=model_config,
        gpus=gpus,
        gpu_memory=gpu_memory,
        sglang_version=sglang_version,
        assume_model=assume_model,
    )
    if result.fits is None:  # no figure: the JSON document says why, stderr one line, exit 2
        if fmt == Format.JSON:
            emit(result, fmt)
        raise LogscopeError(str(result.to_dict()["declined"]))
    emit(result, fmt)
    if not result.fits:
        raise typer.Exit(1)


@app.command()
def preflight(
    expect_args: Annotated[
        Path,
        typer.Option("--expect-args", "-e", help="File holding the launch command you will run."),
    ],
    fmt: Annotated[PreflightFormat, _FORMAT] = PreflightFormat.TEXT,
    sglang_version: Annotated[
        str | None, typer.Option("--sglang-version", help="SGLang release of the launch.")
    ] = None,
    source: Annotated[
        GpuSource, typer.Option("--source", help="Read GPUs through NVML, nvidia-smi, or auto.")
    ] = GpuSource.auto,
    here: Annotated[
        bool,
        typer.Option(
            "--here",
            help="Judge this machine even for a command run through ssh/pct/docker/kubectl.",
        ),
    ] = False,
) -> None:
    """Check the machine before a launch (GPUs, memory, port, model, log). Exit 1 on problems,
    4 when the command runs elsewhere (it prints the command that runs the check there)."""
    # start-up: each command loads only the library and renderer it needs
    from .command.parse import read_command_file
    from .machine.gpus import reader_for
    from .machine.preflight import preflight as run_preflight

    text, base_dir = read_command_file(str(expect_args))
    result = run_preflight(
        text,
        sglang_version=sglang_version,
        base_dir=base_dir,
        reader=reader_for(source.value),
        here=here,
        command_file=None if str(expect_args) == "-" else str(expect_args),
    )
    emit(result, fmt)
    raise typer.Exit(result.exit_code)


_WatchTimeout = Annotated[
    str, typer.Option("--timeout", help="Give up after this long: 20m, 90s, 1h or seconds.")
]
_WatchQuiet = Annotated[
    str,
    typer.Option("--quiet-after", help="Say plainly that nothing writes after this long (60s)."),
]
_LIVE_FORMAT = typer.Option("--format", "-f", help="text (live view on a terminal) or jsonl.")
_WatchFmt = Annotated[WatchFormat, _LIVE_FORMAT]
_LaunchFmt = Annotated[LaunchFormat, _LIVE_FORMAT]
_WatchPoll = Annotated[
    float,
    typer.Option("--poll-interval", help="Seconds between reads of the log.", min=0.01, max=60),
]


def _in_range(option: str, value: float, low: float, high: float) -> float:
    """``value`` if finite and within [low, high] (click's ranges let NaN through)."""
    if not low <= value <= high:  # NaN fails both comparisons
        raise LogscopeError(f"{option} {value}: must be a number from {low:g} to {high:g}")
    return value


def _watch_run(log: str, prepared: object, fmt: WatchFormat, poll: float, pid: int | None) -> None:
    """Run a watch to its end; Ctrl-C stops watching (exit 130) and leaves the server running."""
    # start-up: each command loads only the library and renderer it needs
    from .render.live import make_sink
    from .watch.loop import Prepared
    from .watch.loop import watch as run_watch

    assert isinstance(prepared, Prepared)
    sink = make_sink(fmt.value, report.console())
    try:
        result = run_watch(log, prepared.options, sink, poll_interval=poll, preamble=prepared.notes)
    except KeyboardInterrupt:
        who = f"pid {pid}" if pid else "the server"
        sys.stderr.write(f"logscope: stopped watching {log}; {who} keeps running\n")
        raise typer.Exit(130) from None
    raise typer.Exit(result.exit_code)


@app.command()
def watch(
    log: Annotated[str, typer.Argument(help="SGLang log file to follow (it may not exist yet).")],
    expect_args: Annotated[
        Path | None,
        typer.Option("--expect-args", "-e", help="File holding the launch command you intended."),
    ] = None,
    launched_at: Annotated[
        str | None,
        typer.Option(
            "--launched-at",
            help="When you launched (as for check); default: the launch record, else now.",
        ),
    ] = None,
    log_tz: LogTzOpt = None,
    timeout: _WatchTimeout = "20m",
    quiet_after: _WatchQuiet = "60s",
    fmt: _WatchFmt = WatchFormat.TEXT,
    poll: _WatchPoll = 0.5,
) -> None:
    """Follow a launch in LOG until it is ready (exit 0) or crashed / timed out / stale (exit 1)."""
    # start-up: each command loads only the library and renderer it needs
    from .watch.loop import parse_duration, prepare, settle_for

    poll = _in_range("--poll-interval", poll, 0.01, 60)
    prepared = prepare(
        log,
        expect_args=expect_args,
        launched_at=launched_at,
        log_tz=log_tz,
        timeout=parse_duration(timeout, "--timeout"),
        quiet_after=parse_duration(quiet_after, "--quiet-after"),
        settle=settle_for(poll),
    )
    _watch_run(log, prepared, fmt, poll, prepared.options.pid)


@app.command()
def launch(
    command: Annotated[
        list[str] | None,
        typer.Argument(help="The server command, after '--'.", show_default=False),
    ] = None,
    log: Annotated[
        str, typer.Option("--log", help="Log file for stdout and stderr.")
    ] = "sglang-serve.log",
    keep: Annotated[
        int,
        typer.Option(
            "--keep", help="Keep up to N old logs (LOG.1 .. LOG.N); never deletes.", min=1, max=1000
        ),
    ] = 5,
    no_watch: Annotated[bool, typer.Option("--no-watch", help="Start it and return.")] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Launch even when the pre-flight finds errors.")
    ] = False,
    alive_after: Annotated[
        float, typer.Option("--alive-after", help="Seconds to wait before confirming it is alive.")
    ] = 1.0,
    here: Annotated[
        bool,
        typer.Option("--here", help="Pre-flight this machine even for an ssh/pct/docker command."),
    ] = False,
    timeout: _WatchTimeout = "20m",
    quiet_after: _WatchQuiet = "60s",
    fmt: _LaunchFmt = LaunchFormat.TEXT,
    poll: _WatchPoll = 0.5,
) -> None:
    """Pre-flight, keep the old log, start the server detached, record the launch, watch it."""
    # start-up: each command loads only the library and renderer it needs
    from .watch import launch as launcher
    from .watch.loop import parse_duration

    poll = _in_range("--poll-interval", poll, 0.01, 60)
    alive_after = _in_range("--alive-after", alive_after, 0, 600)
    wait_s = parse_duration(timeout, "--timeout")
    quiet_s = parse_duration(quiet_after, "--quiet-after")
    err = report.console(stderr=True)
    cwd, env, command = Path.cwd(), dict(os.environ), list(command or [])
    launcher.resolve_program(command, env, cwd)
    intended = _launch_preflight(command, env, cwd, force=force, err=err, here=here)
    started = launcher.start(command, log, keep=keep, env=env, cwd=cwd)
    code = _confirm_started(started, alive_after, err)
    if no_watch:
        if code is None:
            err.print(report.plain(f"follow it with: logscope watch {started.log}"))
        raise typer.Exit(0 if code is None else 1)
    _watch_started(started, intended, wait_s, quiet_s, fmt, poll)


def _watch_started(
    started: Launched,
    intended: LaunchCommand | None,
    wait_s: float,
    quiet_s: float,
    fmt: WatchFormat,
    poll: float,
) -> None:
    """Watch the server ``launch`` just started (:func:`~.watch.loop.started_options`)."""
    # start-up: each command loads only the library and renderer it needs
    from .watch.loop import Prepared, settle_for, started_options

    options = started_options(
        started, intended, timeout=wait_s, quiet_after=quiet_s, settle=settle_for(poll)
    )
    _watch_run(str(started.log), Prepared(options), fmt, poll, started.pid)


def _launch_preflight(
    command: list[str],
    env: dict[str, str],
    cwd: Path,
    *,
    force: bool,
    err: Console,
    here: bool = False,
) -> LaunchCommand | None:
    """The pre-flight of ``logscope launch``: its lines on stderr; exit 1 on errors unless
    ``--force``. Returns the command as SGLang reads it (None when it is not an SGLang launch)."""
    # start-up: each command loads only the library and renderer it needs
    from .errors import CommandError
    from .render.machine import preflight_lines
    from .watch import launch as launcher

    try:
        checked = launcher.run_preflight(command, env, cwd, here=here)
    except CommandError as exc:
        if not force:
            raise LogscopeError(
                f"not an SGLang launch, so no pre-flight: {exc} (--force launches it anyway)"
            ) from None
        err.print(report.plain(f"pre-flight skipped: {exc}"))
        return None
    for line in preflight_lines(checked):
        err.print(report.plain(line))
    if launcher.preflight_blocks(checked):
        if not force:
            err.print(
                report.plain(
                    "logscope: the pre-flight found errors; nothing was launched (--force launches anyway)"
                )
            )
            raise typer.Exit(1)
        err.print(report.plain("pre-flight errors ignored (--force)"))
    return checked.command


def _confirm_started(started: Launched, alive_after: float, err: Console) -> int | None:
    """Say what was started; the exit code when the server died at once (with its log's end)."""
    # start-up: each command loads only the library and renderer it needs
    from .watch import launch as launcher

    if started.rotated_to is not None:
        err.print(report.plain(f"kept the previous log as {started.rotated_to}"))
    err.print(
        report.plain(f"started pid {started.pid}; log {started.log}; record {started.record_file}")
    )
    code = launcher.confirm_alive(started, wait=alive_after)
    if code is not None:
        err.print(
            report.plain(f"the server exited at once (exit code {code}); the end of its log:")
        )
        for line in launcher.tail(started.log):
            err.print(report.plain(f"  {line}"))
    return code


@app.command("mcp")
def mcp_command() -> None:
    """Serve logscope's tools to an AI agent over MCP on stdin/stdout (docs/agents.md); needs
    pip install 'sglang-logscope[agent]'."""
    # start-up: the agent layer and the MCP SDK load only for this command
    from .agent.server import serve

    serve()


schema_app = typer.Typer(
    help="The JSON Schema of each --format json document (and of watch / launch's JSON lines), and a check of a document.",
    no_args_is_help=True,
)
app.add_typer(schema_app, name="schema")

SchemaName = Annotated[
    str,
    typer.Argument(
        help="Document: events, runs, summary, check, args, budget, gpus, preflight, watch "
        "(the --format jsonl records of watch and launch); of several logs: launches (summary "
        "--launches, runs), launch_check (check) or fleet (summary --dask/--parquet)."
    ),
]


@schema_app.command("show")
def schema_show(name: SchemaName) -> None:
    """Print the JSON Schema of a document (shipped in the package)."""
    # start-up: each command loads only the library and renderer it needs
    from ._text import to_json
    from .render.schema import load_schema

    sys.stdout.write(to_json(load_schema(name)) + "\n")


@schema_app.command("check")
def schema_check(
    name: SchemaName,
    file: Annotated[
        str, typer.Argument(help="The JSON (or JSON lines) document ('-' for stdin).")
    ] = "-",
) -> None:
    """Check a --format json document against its schema (exit 1 with each problem)."""
    # start-up: each command loads only the library and renderer it needs
    from ._text import visible
    from .render.schema import check_text

    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except OSError as exc:
        raise LogscopeError(f"cannot read {file}: {exc.strerror or exc}") from None
    problems = check_text(name, text)
    for problem in problems:
        sys.stdout.write(visible(problem) + "\n")
    if problems:
        raise typer.Exit(1)
    sys.stdout.write(f"ok: a valid {name} document\n")


def _kinds(names: list[str] | None) -> set[EventKind] | None:
    if not names:
        return None
    out: set[EventKind] = set()
    for name in names:
        for part in name.split(","):
            try:
                out.add(EventKind(part.strip()))
            except ValueError:
                valid = ", ".join(k.value for k in EventKind)
                raise LogscopeError(f"unknown event kind {part!r} (valid: {valid})") from None
    return out


def main(argv: list[str] | None = None) -> None:
    """Entry point through typer (``logscope``'s own, :mod:`.__main__`, takes a plain ``check``
    without it): outcomes map to exit codes in :func:`._direct.guarded`, typer's own here."""
    guarded(lambda: _run(argv), sys.argv[1:] if argv is None else argv, debug=lambda: _debug,
            other=_typer_outcome)  # fmt: skip


def _run(argv: list[str] | None) -> None:
    args = sys.argv[1:] if argv is None else argv
    check_kwargs = plain_check(args)
    if check_kwargs is not None:  # as the entry point runs it (cli.main is called in-process)
        raise typer.Exit(check_command(**check_kwargs))
    direct = direct_call(app, args)
    if direct is not None:
        direct()
        return
    # with standalone_mode=False, click returns typer.Exit's code instead of raising it
    code = app(args=argv, standalone_mode=False)
    if isinstance(code, int) and code:
        raise typer.Exit(code)


def _typer_outcome(exc: Exception) -> int | None:
    """typer's exit (its code), abort (130) and click's usage errors (2); else None."""
    if isinstance(exc, typer.Exit):
        return exc.exit_code
    if isinstance(exc, typer.Abort):
        sys.stderr.write("logscope: interrupted\n")
        return 130
    return _usage_error(exc)


def _usage_error(exc: Exception) -> int | None:
    """Exit code 2 for click's usage errors (a bare ``logscope``: the help, on stdout, 0)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    if "NoArgsIsHelpError" in names:
        ctx = getattr(exc, "ctx", None)
        if ctx is not None:
            sys.stdout.write(ctx.get_help() + "\n")
            return 0
        return 2
    if "ClickException" in names:
        formatter = getattr(exc, "format_message", None)
        message = formatter() if callable(formatter) else str(exc)
        # typer coerces through pydantic, whose wording ("Value error, ...") is not ours
        message = str(message).replace("Value error, ", "")
        sys.stderr.write(f"logscope: error: {' '.join(message.split())}\n")
        return 2
    return None


_ = Path  # re-exported for command modules that type paths
