"""SGLang's argparse, replayed: merge a ``--config`` YAML into the argv as SGLang does, then read
the argv against a release's argument table, collecting every problem argparse would exit on."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import CommandError
from .argtable import ArgTable, ArgValueError
from .config_yaml import load_config


def merge_config(
    argv: list[str], table: ArgTable, base_dir: Path | None
) -> tuple[list[str], str | None]:
    """SGLang's ConfigArgumentMerger: YAML keys become ``--key value``, prepended to the CLI."""
    if not table.has_config_option() or "--config" not in argv:
        return argv, None
    if argv.count("--config") > 1:
        raise CommandError("--config is given more than once (SGLang allows only one)")
    idx = argv.index("--config")
    if idx == len(argv) - 1:
        raise CommandError("--config is given without a file")
    raw = argv[idx + 1]
    path = Path(raw)
    if path.suffix.lower() not in (".yaml", ".yml"):
        raise CommandError(f"--config {raw}: SGLang reads only .yaml/.yml config files")
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    data = load_config(path, raw)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CommandError(f"--config {raw}: the YAML root must be a mapping")
    store_true = {
        o.dest for o in table.options if o.action in ("store_true", "deprecated_store_true")
    }
    extra: list[str] = []
    for key, value in data.items():
        key = str(key)
        if isinstance(value, bool):
            if key.replace("-", "_") in store_true:
                if value:
                    extra.append(f"--{key}")
            else:
                extra.extend([f"--{key}", str(value).lower()])
        elif isinstance(value, list):
            if value:
                extra.append(f"--{key}")
                extra.extend(str(v) for v in value)
        elif isinstance(value, dict):
            extra.extend([f"--{key}", json.dumps(value)])
        else:
            extra.extend([f"--{key}", str(value)])
    return extra + argv[:idx] + argv[idx + 2 :], str(path)


@dataclass
class ParsedArgv:
    """What :func:`read_argv` read: every field's value, which were given, and each problem."""

    args: dict[str, Any]
    explicit: set[str]
    unknown: list[str]
    ambiguous: dict[str, tuple[str, ...]]
    suggestions: dict[str, str]
    errors: list[str]
    flags_used: dict[str, str]


def read_argv(table: ArgTable, argv: list[str]) -> ParsedArgv:
    """Read ``argv`` the way SGLang's ``parser.parse_args`` would, collecting every problem."""
    args = table.defaults()
    explicit: set[str] = set()
    unknown: list[str] = []
    ambiguous: dict[str, tuple[str, ...]] = {}
    suggestions: dict[str, str] = {}
    errors: list[str] = []
    used: dict[str, str] = {}
    kinds: list[str] = []
    after_dashes = False
    for a in argv:
        if after_dashes:
            kinds.append("A")
        elif a == "--":
            kinds.append("-")
            after_dashes = True
        else:
            kinds.append("A" if table.match(a).positional else "O")
    extras: list[str] = []
    i = 0
    while i < len(argv):
        a, kind = argv[i], kinds[i]
        if kind != "O":
            if kind == "A":
                extras.append(a)
            i += 1
            continue
        m = table.match(a)
        i += 1
        if m.option is None:
            if m.candidates:
                ambiguous[a] = m.candidates
            else:
                unknown.append(a)
                hint = table.suggest(a)
                if hint:
                    suggestions[a] = hint
            while i < len(argv) and kinds[i] == "A":  # its values
                i += 1
            continue
        opt, flag = m.option, m.flag or a
        if opt.action == "help":
            errors.append(f"{flag}: argparse prints the help text and exits")
            continue
        values: list[str]
        if m.value is not None:
            if opt.nargs == 0:
                errors.append(
                    f"argument {'/'.join(opt.flags)}: ignored explicit argument {m.value!r}"
                )
                continue
            values = [m.value]
        else:
            avail = 0
            while i + avail < len(argv) and kinds[i + avail] == "A":
                avail += 1
            nargs = opt.nargs
            if nargs is None:
                want, need = 1, 1
            elif nargs == "?":
                want, need = min(avail, 1), 0
            elif nargs == "*":
                want, need = avail, 0
            elif nargs == "+":
                want, need = avail, 1
            elif isinstance(nargs, int):
                want, need = nargs, nargs
            else:
                want, need = 1, 1
            if avail < need:
                what = (
                    "expected one argument"
                    if nargs is None
                    else "expected at least one argument"
                    if nargs == "+"
                    else f"expected {need} arguments"
                )
                errors.append(f"argument {'/'.join(opt.flags)}: {what}")
                continue
            values = argv[i : i + want]
            i += want
        try:
            args[opt.field] = opt.stored(values, flag)
        except ArgValueError as exc:
            errors.append(
                f"argument {'/'.join(opt.flags)}: {exc}"
                if not str(exc).startswith("argument")
                else str(exc)
            )
            continue
        explicit.add(opt.field)
        used[opt.field] = flag
    if extras:
        errors.append(f"unrecognized arguments: {' '.join(extras)}")
    missing = [o.primary for o in table.options if o.required and o.field not in explicit]
    if missing:
        errors.append(f"the following arguments are required: {', '.join(missing)}")
    return ParsedArgv(args, explicit, unknown, ambiguous, suggestions, errors, used)
