"""A fast path past typer for the commands run before every launch (``check``, ``runs``,
``args``) and ``events`` (whose ``--format jsonl`` is timed against a plain loop, issue 18):
a plain command line becomes a direct call of the command's function.

What it saves, measured (``/usr/bin/time -f %U+%S logscope check -e fixtures/demo/command.txt
LOG``, six runs each on this 2-core machine, 2026-12-01): 0.18–0.23 s of CPU with it, 0.25–0.30 s
through typer — typer builds its click command and coerces every parameter through its
converters, about a quarter of the command's start-up. Without it ``check`` would sit at its
0.3 s budget. Anything it does not recognise goes to typer, which parses it with its own
messages; the function receives exactly what typer would pass it.
"""

from __future__ import annotations

import functools
import inspect
import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import typer
from typer.models import ArgumentInfo, OptionInfo

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


@dataclass
class _Signature:
    """What a command function accepts, in the terms :func:`direct_call` handles."""

    convert: dict[str, Callable[[str], object]] = field(default_factory=dict)
    flags: dict[str, str] = field(default_factory=dict)  # --opt / -o → parameter name
    positional: list[str] = field(default_factory=list)
    defaults: dict[str, object] = field(default_factory=dict)
    switches: set[str] = field(default_factory=set)


def _read_signature(func: Callable[..., object]) -> _Signature | None:
    """The function's typer parameters, or None when one is of a kind only typer handles."""
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
