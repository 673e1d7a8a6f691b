"""A launch command as text: ``logscope args``."""

from __future__ import annotations

import shlex

from .._text import SCHEMA_VERSION
from ..command.fix import FixedCommand
from ..command.parse import LaunchCommand
from .text import console, plain, write_json


def command_lines(cmd: LaunchCommand) -> list[str]:
    """Plain-text lines for ``logscope args``: the argv SGLang sees and every problem."""

    lines = [
        f"program: {cmd.program}",
        f"sglang release table: {cmd.sglang_version}",
        f"wrappers: {', '.join(cmd.wrappers) or '-'}",
        f"log: {cmd.log_path or '-'}{' (append)' if cmd.log_append else ''}",
    ]
    if cmd.env:
        lines.append("env: " + " ".join(f"{k}={shlex.quote(v)}" for k, v in cmd.env.items()))
    if cmd.config_path:
        lines.append(f"config: {cmd.config_path} (its options come first; the CLI overrides)")
    lines.append("argv SGLang sees:")
    lines.append("  " + (shlex.join(cmd.argv) or "(none)"))
    if cmd.explicit:
        lines.append("explicit args:")
        for name in sorted(cmd.explicit):
            flag = cmd.flags_used.get(name, "")
            lines.append(f"  {name} = {cmd.args[name]!r}" + (f"   (from {flag})" if flag else ""))
    for fld, (before, after) in cmd.rewrites.items():
        lines.append(f"rewrite: SGLang turns {fld}={before!r} into {after!r}")
    for flag in cmd.unknown:
        hint = cmd.suggestions.get(flag)
        lines.append(f"unrecognized flag: {flag}" + (f" (did you mean {hint}?)" if hint else ""))
    for flag, candidates in cmd.ambiguous.items():
        lines.append(f"ambiguous flag: {flag} could match {', '.join(candidates)}")
    for err in cmd.errors:
        lines.append(f"argparse error: {err}")
    for rejected in cmd.out_of_range:
        lines.append(f"value out of range: {rejected.message()}")
    if cmd.meant is not None:
        lines.append(
            "bash passes words that start with a space ('\\ ' before a flag: a line break lost"
            " in a paste); as you meant it:"
        )
        lines.append("  " + shlex.join(cmd.meant.argv))
    if cmd.not_evaluated:
        lines.append(
            "not evaluated: " + ", ".join(cmd.not_evaluated) + " (set by the launching shell or "
            "a command logscope does not run: the arguments they feed are not checked)"
        )
    if cmd.rejected:
        lines.append(
            "SGLang's argparse would reject this command and exit at once (status 2) "
            "before loading anything."
        )
    return lines


def command_text(cmd: LaunchCommand) -> None:
    con = console()
    for line in command_lines(cmd):
        con.print(plain(line))


def command_json(cmd: LaunchCommand) -> None:
    write_json({"schema_version": SCHEMA_VERSION, **cmd.to_dict()})


def fixed_text(fixed: FixedCommand) -> None:
    """``logscope fix``: the corrected command alone on stdout (to paste or to save as a
    script), and each edit on stderr."""
    # the command is the user's own text with edits: written as it is (no terminal markup),
    # control characters made visible
    out = console()
    out.print(plain(fixed.text.rstrip("\n")), soft_wrap=True)
    err = console(stderr=True)
    if not fixed.changes:
        err.print(plain("nothing to change: the command has no lint finding this tool can fix"))
    for c in fixed.changes:
        err.print(plain(f"# {c.code}: {c.before} -> {c.after} ({c.why})"), soft_wrap=True)
    for code in fixed.unfixed:
        err.print(plain(f"# {code}: not fixed here (see `logscope check`)"))
