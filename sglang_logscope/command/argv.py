"""SGLang's argparse, replayed: merge a ``--config`` YAML into the argv as SGLang does, then read
the argv against a release's argument table, collecting every problem argparse would exit on."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._record import record
from ..errors import CommandError
from .argtable import ArgOption, ArgTable, ArgValueError


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
    # start-up: PyYAML (~15 ms) only for a command that names a --config
    from .config_yaml import load_config

    data = load_config(path, raw)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise CommandError(f"--config {raw}: the YAML root must be a mapping")
    strangers = sum(1 for key in data if not _an_option(table, str(key)))
    if strangers:  # not a config of options (a link to /etc/shadow, ...): its text is not shown
        raise CommandError(
            f"--config {raw}: refused, {strangers} of its {len(data)} keys are not SGLang option "
            "names (not shown)"
        )
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


def _an_option(table: ArgTable, key: str) -> bool:
    """Is ``key`` an option's name, spelt with ``-`` or ``_`` (SGLang itself takes ``--key``
    only; a ``_`` spelling is read on, and reported as the unknown flag it is)?"""
    dashed = key.replace("_", "-")
    return (
        table.option(f"--{dashed}") is not None or table.by_field(key.replace("-", "_")) is not None
    )


@record(frozen=False)
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
    return _ArgvReader(table, argv).read()


def _token_kinds(table: ArgTable, argv: list[str]) -> list[str]:
    """argparse's first pass: ``O`` an option string, ``A`` a value, ``-`` the ``--`` marker."""
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
    return kinds


def _wanted(nargs: int | str | None, avail: int) -> tuple[int, int]:
    """How many of ``avail`` following values argparse consumes for ``nargs``, and the fewest
    it needs."""
    if nargs == "?":
        return min(avail, 1), 0
    if nargs == "*":
        return avail, 0
    if nargs == "+":
        return avail, 1
    if isinstance(nargs, int):
        return nargs, nargs
    return 1, 1


def _too_few(nargs: int | str | None, need: int) -> str:
    if nargs is None:
        return "expected one argument"
    if nargs == "+":
        return "expected at least one argument"
    return f"expected {need} arguments"


class _ArgvReader:
    """One pass over an argv, in argparse's order, filling a :class:`ParsedArgv`."""

    def __init__(self, table: ArgTable, argv: list[str]) -> None:
        self.table, self.argv = table, argv
        self.kinds = _token_kinds(table, argv)
        self.out = ParsedArgv(table.defaults(), set(), [], {}, {}, [], {})
        self.extras: list[str] = []
        self.i = 0

    def read(self) -> ParsedArgv:
        while self.i < len(self.argv):
            a, kind = self.argv[self.i], self.kinds[self.i]
            self.i += 1
            if kind == "O":
                self._option(a)
            elif kind == "A":
                self.extras.append(a)
        out, table = self.out, self.table
        if self.extras:
            out.errors.append(f"unrecognized arguments: {' '.join(self.extras)}")
        missing = [o.primary for o in table.options if o.required and o.field not in out.explicit]
        if missing:
            out.errors.append(f"the following arguments are required: {', '.join(missing)}")
        return out

    def _option(self, a: str) -> None:
        m = self.table.match(a)
        if m.option is None:
            self._unmatched(a, m.candidates)
            return
        opt, flag = m.option, m.flag or a
        if opt.action == "help":
            self.out.errors.append(f"{flag}: argparse prints the help text and exits")
            return
        values = self._values(opt, m.value)
        if values is None:
            return
        try:
            self.out.args[opt.field] = opt.stored(values, flag)
        except ArgValueError as exc:
            text = str(exc)
            self.out.errors.append(
                text if text.startswith("argument") else f"argument {'/'.join(opt.flags)}: {text}"
            )
            return
        self.out.explicit.add(opt.field)
        self.out.flags_used[opt.field] = flag

    def _unmatched(self, a: str, candidates: tuple[str, ...]) -> None:
        """An ambiguous prefix or an unknown flag; its values are skipped with it."""
        if candidates:
            self.out.ambiguous[a] = candidates
        else:
            self.out.unknown.append(a)
            hint = self.table.suggest(a)
            if hint:
                self.out.suggestions[a] = hint
        while self.i < len(self.argv) and self.kinds[self.i] == "A":
            self.i += 1

    def _values(self, opt: ArgOption, inline: str | None) -> list[str] | None:
        """The option's values (after ``=`` or the following value tokens); None on an error."""
        name = "/".join(opt.flags)
        if inline is not None:
            if opt.nargs == 0:
                self.out.errors.append(f"argument {name}: ignored explicit argument {inline!r}")
                return None
            return [inline]
        avail = 0
        while self.i + avail < len(self.argv) and self.kinds[self.i + avail] == "A":
            avail += 1
        want, need = _wanted(opt.nargs, avail)
        if avail < need:
            self.out.errors.append(f"argument {name}: {_too_few(opt.nargs, need)}")
            return None
        values = self.argv[self.i : self.i + want]
        self.i += want
        return values
