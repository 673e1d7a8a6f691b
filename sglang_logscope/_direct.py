"""A fast path past typer for the commands run before every launch (``check``, ``runs``,
``args``) and ``events`` (whose ``--format jsonl`` is timed against a plain loop, issue 18):
a plain command line becomes a direct call of the command's function.

What it saves, measured (``/usr/bin/time -f %U+%S logscope check -e fixtures/demo/command.txt
LOG``, six runs each on this 2-core machine, 2026-12-01): 0.18–0.23 s of CPU with it, 0.25–0.30 s
through typer — typer builds its click command and coerces every parameter through its
converters, about a quarter of the command's start-up. Anything it does not recognise goes to
typer, which parses it with its own messages; the function receives exactly what typer would
pass it.

``check`` goes further (issue 33, 2: a check of a small log within 0.15 s of CPU beyond a bare
Python start): a plain ``check`` command line never imports typer or the CLI module at all —
:data:`CHECK` is its signature (``tests/test_startup.py`` keeps it equal to what typer reads
off ``cli.check``), :func:`check_command` its body, and :func:`guarded` the one mapping of
outcomes to exit codes that ``cli.main`` uses too.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import types
import typing
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from ._record import record
from .errors import LogscopeError
from .meter import input_size
from .render.emit import Format, emit, format_choices
from .render.progress import working
from .render.streams import ascii_fallback, quiet_closed_pipe

if TYPE_CHECKING:
    import typer

    CheckFormat = Format
else:
    CheckFormat = format_choices("check")


class InputFormatChoice(str, Enum):
    """``--input-format``: the values of :class:`~.parse.adapters.InputFormat` (kept here so
    that the CLI's start-up does not import the parser; ``tests/test_wrappers.py`` keeps the
    two lists equal)."""

    auto = "auto"
    plain = "plain"
    kubectl = "kubectl"
    docker_json = "docker-json"
    journald_short_iso = "journald-short-iso"
    journald_json = "journald-json"
    journald_export = "journald-export"
    compose = "compose"


#: Commands that :func:`direct_call` may run without typer's argument parsing.
_DIRECT = ("check", "runs", "args", "events")


def direct_call(app: typer.Typer, argv: list[str]) -> Callable[[], object] | None:
    """A plain command line of a ``_DIRECT`` command, as a call of its function; else None.

    typer coerces every parameter through pydantic (~0.1 s to import and build) — a third of
    ``logscope check``'s start-up on a small log. A plain command line needs none of that: the
    command name, then long/short options declared on the command (each at most once, as
    ``--opt value`` or ``--opt=value``) of type str, Path, int or an Enum (by value), a
    repeatable str option given once, on/off flags (bool, no value), and its one positional
    argument. Anything else (``--help``, a repeated or
    unknown option, a value that starts with ``-``, a bad choice, a missing argument) returns
    None: typer parses it, with its own messages. The function receives exactly what typer
    would pass it.
    """
    if not argv or argv[0] not in _DIRECT:
        return None
    func = next(
        c.callback
        for c in app.registered_commands
        if (c.name or (c.callback.__name__ if c.callback else "")) == argv[0]
    )
    assert func is not None
    signature = _read_signature(func)
    if signature is None:
        return None
    given = _read_tokens(signature, iter(argv[1:]))
    if given is None:
        return None
    values = _convert(signature, given)
    return None if values is None else functools.partial(func, **values)


@record(frozen=False)
class _Signature:
    """What a command function accepts, in the terms :func:`direct_call` handles."""

    convert: dict[str, Callable[[str], object]] = field(default_factory=dict)
    flags: dict[str, str] = field(default_factory=dict)  # --opt / -o → parameter name
    positional: list[str] = field(default_factory=list)
    defaults: dict[str, object] = field(default_factory=dict)
    switches: set[str] = field(default_factory=set)


def _read_signature(func: Callable[..., object]) -> _Signature | None:
    """The function's typer parameters, or None when one is of a kind only typer handles."""
    # typer's parameter models load only here, where a typer command is read
    # start-up: a plain check is read by CHECK, without typer
    from typer.models import ArgumentInfo, OptionInfo

    hints = typing.get_type_hints(func, include_extras=True)
    sig = _Signature()
    for name, param in inspect.signature(func).parameters.items():
        hint = _annotated(hints[name])
        if hint is None:
            return None
        info = hint.__metadata__[0]
        origin = hint.__origin__
        union = typing.get_origin(origin) in (typing.Union, types.UnionType)
        kinds = [t for t in typing.get_args(origin) if t is not type(None)] if union else [origin]
        base = kinds[0] if len(kinds) == 1 else origin
        if base is bool:  # an on/off flag such as --here: it takes no value
            sig.switches.add(name)
        elif base is int or (typing.get_args(base) == (str,) and typing.get_origin(base) is list):
            pass  # a number (``--run``), a repeatable option given once (``--kind``)
        elif not (
            base is str or base is Path or (isinstance(base, type) and issubclass(base, Enum))
        ):
            return None
        sig.convert[name] = _one_item if typing.get_origin(base) is list else base
        if isinstance(info, ArgumentInfo):
            sig.positional.append(name)
        elif isinstance(info, OptionInfo):
            for decl in [info.default, *(info.param_decls or ())]:
                if not isinstance(decl, str):
                    return None
                sig.flags[decl] = name
            if param.default is not inspect.Parameter.empty:
                sig.defaults[name] = param.default
        else:
            return None
    return sig if len(sig.positional) == 1 else None


def _one_item(text: str) -> list[str]:
    """A repeatable option given once, as typer passes it."""
    return [text]


def _annotated(hint: typing.Any) -> typing.Any:
    """The ``Annotated[...]`` hint itself; on 3.10 ``Annotated[X | None, ...] = None`` comes
    wrapped in ``Optional``, so the one annotated member is taken. None if there is not one."""
    if hasattr(hint, "__metadata__"):
        return hint
    inner = [a for a in typing.get_args(hint) if hasattr(a, "__metadata__")]
    return inner[0] if len(inner) == 1 else None


def _read_tokens(sig: _Signature, rest: Iterator[str]) -> dict[str, str] | None:
    """The parameter → text each token gives, or None for anything but a plain command line."""
    given: dict[str, str] = {}
    positional = sig.positional[0]
    for token in rest:
        if not token.startswith("-") or token == "-":
            if positional in given:
                return None
            given[positional] = token
            continue
        flag, eq, value = token.partition("=")
        target = sig.flags.get(flag)
        if target is None or target in given or (eq and not flag.startswith("--")):
            return None
        if target in sig.switches:
            if eq:
                return None
            given[target] = "on"
            continue
        if not eq:
            value = next(rest, "-")
        if value.startswith("-"):
            return None
        given[target] = value
    return given if positional in given else None


def _convert(sig: _Signature, given: dict[str, str]) -> dict[str, object] | None:
    """The keyword arguments typer would pass: defaults, then each given value converted."""
    values = dict(sig.defaults)
    for name, text in given.items():
        if name in sig.switches:
            values[name] = True
            continue
        try:
            values[name] = sig.convert[name](text)
        except ValueError:
            return None
    return values


#: ``check``'s parameters as :func:`_read_signature` reads them off ``cli.check`` (the typer
#: declaration is the source; ``tests/test_startup.py`` fails when the two differ), so that a
#: plain ``check`` line is read without importing typer.
CHECK = _Signature(
    convert={
        "log": _one_item,
        "expect_args": _one_item,
        "launched_at": str,
        "log_tz": str,
        "sglang_version": str,
        "fmt": CheckFormat,
        "server": str,
        "here": bool,
        "input_format": InputFormatChoice,
        "container": str,
        "recursive": bool,
        "verbose": bool,
        "redact": bool,
    },
    flags={
        "--expect-args": "expect_args",
        "-e": "expect_args",
        "--launched-at": "launched_at",
        "--log-tz": "log_tz",
        "--sglang-version": "sglang_version",
        "--format": "fmt",
        "-f": "fmt",
        "--server": "server",
        "--here": "here",
        "--input-format": "input_format",
        "--container": "container",
        "--recursive": "recursive",
        "-r": "recursive",
        "--verbose": "verbose",
        "-v": "verbose",
        "--redact": "redact",
    },
    positional=["log"],
    defaults={
        "expect_args": None,
        "launched_at": None,
        "log_tz": None,
        "sglang_version": None,
        "fmt": CheckFormat.TEXT,
        "server": None,
        "here": False,
        "input_format": InputFormatChoice.auto,
        "container": None,
        "recursive": False,
        "verbose": False,
        "redact": False,
    },
    switches={"here", "recursive", "verbose", "redact"},
)


def plain_check(argv: list[str]) -> dict[str, Any] | None:
    """The keyword arguments typer would pass :func:`check_command` for a plain ``check``
    command line (as :func:`direct_call` reads one); None for anything else."""
    if not argv or argv[0] != "check":
        return None
    given = _read_tokens(CHECK, iter(argv[1:]))
    return None if given is None else _convert(CHECK, given)


def check_command(
    log: list[str],
    expect_args: list[str] | None = None,
    launched_at: str | None = None,
    log_tz: str | None = None,
    sglang_version: str | None = None,
    fmt: Format = Format.TEXT,
    server: str | None = None,
    here: bool = False,
    input_format: InputFormatChoice = InputFormatChoice.auto,
    container: str | None = None,
    recursive: bool = False,
    verbose: bool = False,
    redact: bool = False,
) -> int:
    """``logscope check``'s body (its options: ``cli.check``): the answer on stdout, its exit
    code returned (0 fresh, or ready/stopped with nothing expected; 1 otherwise)."""
    # start-up: the check's library loads when a check runs (not for reading its options)
    from .staleness.judge import check as run_check

    paths = log_paths(log, recursive)
    specs = list(expect_args or [])
    if specs or len(paths) > 1:
        # start-up: the roles of several commands and logs only where some are given
        from .staleness.launch_check import check_launch, parse_expects
    if len(paths) > 1:
        with working(f"checking {len(paths)} files"):
            launch = check_launch(
                [adapted(p, input_format, container) for p in paths],
                parse_expects(specs),
                launched_at,
                log_tz,
                sglang_version=sglang_version,
                here=here,
            )
        with redacting(redact):
            emit(launch, fmt)
        return launch.exit_code
    expect: Path | str | None = None
    if specs == ["-"]:
        expect = sys.stdin.read()  # the command on stdin (the remote check logscope prints)
    elif specs:
        expects = parse_expects(specs)
        expect = Path(expects.get(None) or next(iter(expects.values())))
    with working(f"checking {paths[0]}", total=input_size(paths)):
        result = run_check(
            adapted(paths[0], input_format, container),
            expect=expect,
            launched_at=launched_at,
            log_tz=log_tz,
            sglang_version=sglang_version,
            server=server,
            here=here,
        )
    with redacting(redact):
        emit(result, fmt, **({"verbose": True} if verbose and fmt == Format.TEXT else {}))
    return result.exit_code


def adapted(log: str, fmt: InputFormatChoice, container: str | None) -> Any:
    """``log`` as the readers take it: the path itself unless a format or container is given."""
    if fmt is InputFormatChoice.auto and container is None:
        return log
    # start-up: the adapters only when asked for by an option
    from .parse.adapters import AdaptedSource, InputFormat

    return AdaptedSource(log, InputFormat(fmt.value), container)


#: Entries left out of a listing named one by one on stderr (the rest counted).
_SKIPS_SHOWN = 5


def log_paths(names: list[str], recursive: bool = False) -> list[str]:
    """The logs a command given several reads: directories, globs and URL prefixes expanded
    (:func:`~.log.listing.expand_sources`); one clear error when none is left."""
    # start-up: the listing helpers load only for a command given logs
    from .log.listing import list_sources

    paths, skipped = list_sources(names, recursive)
    if skipped:
        shown = ", ".join(f"{path} ({what})" for path, what in skipped[:_SKIPS_SHOWN])
        more = f" and {len(skipped) - _SKIPS_SHOWN} more" if len(skipped) > _SKIPS_SHOWN else ""
        sys.stderr.write(
            f"logscope: note: not read, as not regular files (links are not followed): "
            f"{shown}{more}\n"
        )
    if not paths:
        raise LogscopeError(f"{' '.join(names)}: no log files found")
    return paths


def redacting(enabled: bool) -> AbstractContextManager[None]:
    """``--redact``: stdout held and written redacted (:func:`._redact.redacted_stdout`)."""
    if not enabled:
        return contextlib.nullcontext()
    # start-up: the redactor (its patterns: ~8 ms) only for --redact
    from ._redact import redacted_stdout

    return redacted_stdout()


def guarded(
    run: Callable[[], object],
    argv: list[str],
    *,
    debug: Callable[[], bool],
    other: Callable[[Exception], int | None] = lambda exc: None,
) -> NoReturn:
    """Run ``run`` (a command line ``argv``) and exit: the one place that maps outcomes to
    exit codes: 0/1 the answer, 2 usage or input errors (one line), 3 an internal error (one
    line; ``debug()``: traceback), 130 interrupted; a closed pipe (``logscope ... | head``)
    ends quietly with 0. ``other`` gives the code of an exception of the front end's own
    (typer's exit, abort and usage errors: ``cli.main``); None: an internal error."""
    ascii_fallback(sys.stdout, sys.stderr)
    _quiet_url_backends(argv)
    warnings.showwarning = _show_note
    try:
        code = run()
    except LogscopeError as exc:
        sys.stderr.write(f"logscope: error: {exc}\n")
        sys.exit(2)
    except KeyboardInterrupt:
        sys.stderr.write("logscope: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        quiet_closed_pipe()
        sys.exit(0)
    except SystemExit as exc:  # click turns EPIPE into exit 1, which reads as "stale"
        if isinstance(exc.__context__, BrokenPipeError):
            quiet_closed_pipe()
            sys.exit(0)
        raise
    except Exception as exc:
        known = other(exc)
        if known is None:
            internal_error(exc, debug())
            known = 3
        sys.exit(known)
    try:
        sys.stdout.flush()  # a pipe closed after the last write: still a quiet 0
    except BrokenPipeError:
        quiet_closed_pipe()
        sys.exit(0)
    sys.exit(code if isinstance(code, int) else 0)


_python_showwarning = warnings.showwarning


def _show_note(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """logscope's own warnings (the slow path's note: parse/fastscan.py) as one line on
    stderr; any other library's as Python shows them."""
    if category.__module__.startswith("sglang_logscope."):
        sys.stderr.write(f"logscope: note: {message}\n")
    else:
        _python_showwarning(message, category, filename, lineno, file, line)


def _quiet_url_backends(argv: list[str]) -> None:
    """fsspec's backends (gcsfs retrying, aiohttp) log warnings and tracebacks through Python's
    last-resort handler; for a URL, stderr keeps logscope's one-line error instead."""
    # start-up: the URL test loads where it is asked
    from .parse.urls import is_url

    if any(is_url(arg) for arg in argv):
        # start-up: logging only when a URL is read
        import logging

        logging.getLogger().addHandler(logging.NullHandler())


def internal_error(exc: BaseException, debug: bool) -> None:
    """One line saying it is logscope's fault, not the log's; the traceback with ``debug``."""
    if debug:
        # start-up: traceback only for --debug
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    where = ""
    tb = exc.__traceback__
    while tb is not None:
        where = f" at {Path(tb.tb_frame.f_code.co_filename).name}:{tb.tb_lineno}"
        tb = tb.tb_next
    text = " ".join(str(exc).split())[:300]
    sys.stderr.write(
        f"logscope: internal error: {type(exc).__name__}: {text}{where}; please report it "
        f"with `logscope --version` and the command line"
        f"{'' if debug else ' (--debug shows the traceback)'}\n"
    )
