"""The intended launch command: unwrap shell text down to the argv SGLang's argparse receives.

``parse_launch_command(text)`` reads a command as a user typed or pasted it: shell structure
(continuations, comments, ``;``/``&&``/``||``/``|``/``&``, redirections, ``VAR=value`` prefixes,
``export`` lines), launcher prefixes (``nohup``, ``env``, ``setsid``, ``timeout``, ``numactl``,
``exec``, ``stdbuf``, ``sudo``, ``taskset``) and wrappers nested to any depth (``ssh``,
``pct exec``, ``docker exec``/``run``, ``kubectl exec``, ``bash -c``/``sh -c``). The launch found
is read against SGLang's argument table (:mod:`.argtable`) exactly as its argparse would.

The steps live beside this module: :mod:`.shell` splits the text into simple commands,
:mod:`.unwrap` finds the launch through prefixes and wrappers, :mod:`.argv` replays argparse.
Here: the :class:`LaunchCommand` model and the entry points.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from .._record import record
from ..errors import CommandError, InputError
from ..limits import COMMAND_MAX_BYTES, Rejected, clean, read_regular
from .argtable import ArgTable, load_arg_table, table_for_program
from .argv import merge_config, read_argv
from .unwrap import Found, find_launch

__all__ = [
    "LaunchCommand",
    "parse_launch_command",
    "read_argv",
    "read_command_file",
]


@record
class LaunchCommand:
    """What SGLang would have been launched with, as read from the command text."""

    program: str
    argv: tuple[str, ...]
    args: Mapping[str, Any]
    explicit: frozenset[str]
    unknown: tuple[str, ...]
    ambiguous: Mapping[str, tuple[str, ...]]
    suggestions: Mapping[str, str]
    rewrites: Mapping[str, tuple[Any, Any]]
    log_path: str | None
    log_append: bool
    env: Mapping[str, str]
    wrappers: tuple[str, ...]
    sglang_version: str
    errors: tuple[str, ...] = ()
    config_path: str | None = None
    flags_used: Mapping[str, str] = field(default_factory=dict)
    #: The command as its author meant it, when bash passes something else: words that start
    #: with a space (``\ --tp-size`` in a flattened paste) stripped, space-only words dropped.
    meant: LaunchCommand | None = field(default=None, repr=False, compare=False)
    #: Values SGLang would not accept (issue 20), dropped from ``args`` and ``explicit``.
    out_of_range: tuple[Rejected, ...] = ()
    #: ``$VAR`` the text never sets, ``$(...)``, backticks: their values come from the
    #: launching shell, so what argparse would make of them is not known
    not_evaluated: tuple[str, ...] = ()

    @property
    def rejected(self) -> bool:
        """True when SGLang's argparse would exit at once (unknown/ambiguous flag, bad value)."""
        return bool(self.unknown or self.ambiguous or self.errors)

    def explicit_args(self) -> dict[str, Any]:
        """Only the args given on the command line or in ``--config``."""
        return {k: v for k, v in self.args.items() if k in self.explicit}

    def to_dict(self) -> dict[str, Any]:
        return {
            "program": self.program,
            "sglang_version": self.sglang_version,
            "argv": list(self.argv),
            "args": dict(self.args),
            "explicit": sorted(self.explicit),
            "unknown": list(self.unknown),
            "ambiguous": {k: list(v) for k, v in self.ambiguous.items()},
            "suggestions": dict(self.suggestions),
            "errors": list(self.errors),
            "rewrites": {k: list(v) for k, v in self.rewrites.items()},
            "log_path": self.log_path,
            "log_append": self.log_append,
            "env": dict(self.env),
            "wrappers": list(self.wrappers),
            "config_path": self.config_path,
            "meant_argv": list(self.meant.argv) if self.meant is not None else None,
            "out_of_range": [r.to_dict() for r in self.out_of_range],
            "not_evaluated": list(self.not_evaluated),
        }


def _rewrites(
    table: ArgTable, args: Mapping[str, Any], explicit: Iterable[str]
) -> dict[str, tuple[Any, Any]]:
    """The values the command gives that the table's release rewrites whatever the other
    settings are, each to its one result (one SGLang rewrites only under other settings, or
    to either of two, is left out: the check's argument diff still explains it)."""
    out: dict[str, tuple[Any, Any]] = {}
    ambiguous: set[str] = set()
    given = set(explicit)
    for rw in table.rewrites:
        if rw.conditional or rw.field not in given:
            continue
        value = args.get(rw.field)
        if isinstance(value, str) and value.upper() == str(rw.before).upper():
            if rw.field in out and out[rw.field][1] != rw.after:
                ambiguous.add(rw.field)
            out[rw.field] = (value, rw.after)
    return {k: v for k, v in out.items() if k not in ambiguous}


def parse_launch_command(
    text: str, *, sglang_version: str | None = None, base_dir: Path | None = None
) -> LaunchCommand:
    """Find the SGLang launch in ``text`` and read its arguments as SGLang would.

    Raises :class:`CommandError` for text that cannot be tokenised or holds no SGLang launch.
    """
    if not isinstance(text, str):
        raise CommandError("the command text must be a string")
    load_arg_table(sglang_version)  # a version without a table is an error before anything
    try:
        found = find_launch(text)
    except RecursionError:
        raise CommandError("the command text nests too deeply") from None
    if found is None:
        raise CommandError(_nothing_found(text))
    # an offline entry point adds its BenchArgs (of the newest release that has it, when the
    # command pins no release)
    table = table_for_program(found.program, sglang_version)
    command = _read(found, list(found.argv), table, base_dir)
    meant_argv = [a.strip() for a in found.argv if a.strip()]
    if meant_argv != found.argv:
        meant = _read(found, meant_argv, table, base_dir)
        command = replace(command, meant=meant)
    return command


def _read(found: Found, argv: list[str], table: ArgTable, base_dir: Path | None) -> LaunchCommand:
    argv, config_path = merge_config(argv, table, base_dir)
    parsed = read_argv(table, argv)
    args, out_of_range = clean(parsed.args, "launch command")
    dropped = {r.field for r in out_of_range}
    pending = tuple(found.not_evaluated)
    # what argparse says of a literal ``$TP`` is not what it said of the launch's value
    errors = tuple(e for e in parsed.errors if not _mentions(e, pending))
    unknown = tuple(u for u in parsed.unknown if not _mentions(u, pending))
    return LaunchCommand(
        program=found.program,
        argv=tuple(argv),
        args=MappingProxyType(args),
        explicit=frozenset(parsed.explicit) - dropped,
        unknown=unknown,
        ambiguous=MappingProxyType(parsed.ambiguous),
        suggestions=MappingProxyType(parsed.suggestions),
        rewrites=MappingProxyType(_rewrites(table, parsed.args, parsed.explicit)),
        log_path=found.log_path,
        log_append=found.log_append,
        env=MappingProxyType(found.env),
        wrappers=tuple(found.wrappers),
        sglang_version=table.version,
        errors=errors,
        config_path=config_path,
        flags_used=MappingProxyType(parsed.flags_used),
        out_of_range=out_of_range,
        not_evaluated=pending,
    )


def with_suggestions(cmd: LaunchCommand) -> LaunchCommand:
    """The command with each unknown flag replaced by argparse's suggestion (``--mem-fracion-static``
    → ``--mem-fraction-static``): what its author meant, for the arg diff and the budget."""
    if not cmd.suggestions:
        return cmd
    argv = []
    for a in cmd.argv:
        flag, eq, value = a.partition("=")
        fixed = cmd.suggestions.get(a) or cmd.suggestions.get(flag)
        argv.append((fixed + eq + value if eq else fixed) if fixed else a)
    table = load_arg_table(cmd.sglang_version)
    parsed = read_argv(table, argv)
    return replace(
        cmd,
        argv=tuple(argv),
        args=MappingProxyType(parsed.args),
        explicit=frozenset(parsed.explicit),
        unknown=tuple(u for u in parsed.unknown if not _mentions(u, cmd.not_evaluated)),
        ambiguous=MappingProxyType(parsed.ambiguous),
        suggestions=MappingProxyType(parsed.suggestions),
        rewrites=MappingProxyType(_rewrites(table, parsed.args, parsed.explicit)),
        errors=tuple(e for e in parsed.errors if not _mentions(e, cmd.not_evaluated)),
        flags_used=MappingProxyType(parsed.flags_used),
        meant=None,
    )


def _mentions(message: str, pending: tuple[str, ...]) -> bool:
    return any(p in message for p in pending)


def _nothing_found(text: str) -> str:
    stripped = text.strip()
    if not stripped:
        return "the command text is empty"
    first = stripped.split()[0][:40]
    if "sglang" in text:
        return (
            "no SGLang launch found (text mentions sglang, but no 'python -m sglang...' or "
            f"'sglang serve' command; it starts with {first!r})"
        )
    return f"no SGLang launch found in the command text (it starts with {first!r})"


def read_command_file(path: str) -> tuple[str, Path | None]:
    """The text of a command file ('-' = stdin) and the folder ``--config`` is resolved against.
    A ``path`` that is no file but a pasted command (it holds a space or a line break, as
    ``check -e`` accepts) is that command's text: every ``-e`` reads the same forms."""
    if path == "-":
        return sys.stdin.read(), Path.cwd()
    if _pasted_command(path):
        return path, Path.cwd()
    p = Path(path)
    raw = read_regular(p, COMMAND_MAX_BYTES, "a command file", pipes=True)  # no /dev/zero
    try:
        return raw.decode("utf-8", errors="replace"), p.resolve().parent
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def _pasted_command(text: str) -> bool:
    """A command pasted where a file name was expected: a space or line break, and no file of
    that name (a name over 4096 characters is never a file)."""
    if not any(c in text for c in " \n\t"):
        return False
    try:
        return len(text) >= 4096 or not Path(text).exists()
    except (OSError, ValueError):
        return True
