"""The intended launch command: unwrap shell text down to the argv SGLang's argparse receives.

``parse_launch_command(text)`` reads a command as a user typed or pasted it: shell structure
(continuations, comments, ``;``/``&&``/``||``/``|``/``&``, redirections, ``VAR=value`` prefixes,
``export`` lines), launcher prefixes (``nohup``, ``env``, ``setsid``, ``timeout``, ``numactl``,
``exec``, ``stdbuf``, ``sudo``, ``taskset``) and wrappers nested to any depth (``ssh``,
``pct exec``, ``docker exec``/``run``, ``kubectl exec``, ``bash -c``/``sh -c``). The launch found
is read against SGLang's argument table (:mod:`.argtable`) exactly as its argparse would.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from .argtable import ArgTable, ArgValueError, load_arg_table
from .errors import CommandError

_MAX_DEPTH = 24
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?[dmu]?$")
_CONTINUATION = re.compile(r"\\\r?\n")
# a backslash-space before a flag: a continuation whose newline was lost in a paste
_LOST_NEWLINE = re.compile(r"\\[ \t]+(?=-)")


@dataclass(frozen=True)
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
        }


# --------------------------------------------------------------------------------------------
# Shell lexing
# --------------------------------------------------------------------------------------------


@dataclass
class _Word:
    text: str
    quoted: bool = False


@dataclass
class _Op:
    text: str


@dataclass
class _Command:
    words: list[str] = field(default_factory=list)
    stdout: str | None = None
    append: bool = False
    tee: str | None = None
    tee_append: bool = False
    piped_to: _Command | None = None


_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")", "\n")
_REDIRS = ("&>>", "&>", ">>", ">&", ">|", "<<<", "<<", "<&", "<>", ">", "<")


def _lex(text: str) -> list[_Word | _Op]:
    out: list[_Word | _Op] = []
    buf: list[str] = []
    quoted = False
    started = False
    i, n = 0, len(text)

    def flush() -> None:
        nonlocal buf, quoted, started
        if started:
            out.append(_Word("".join(buf), quoted))
        buf, quoted, started = [], False, False

    while i < n:
        c = text[i]
        if c == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise CommandError("unbalanced single quote in the command text")
            buf.append(text[i + 1 : end])
            quoted = started = True
            i = end + 1
        elif c == '"':
            i += 1
            while True:
                if i >= n:
                    raise CommandError("unbalanced double quote in the command text")
                d = text[i]
                if d == '"':
                    i += 1
                    break
                if d == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
                    if text[i + 1] != "\n":
                        buf.append(text[i + 1])
                    i += 2
                    continue
                buf.append(d)
                i += 1
            quoted = started = True
        elif c == "\\":
            if i + 1 < n:
                if text[i + 1] != "\n":
                    buf.append(text[i + 1])
                    started = True
                i += 2
            else:
                i += 1
        elif c == "#" and not started:
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c in " \t\r":
            flush()
            i += 1
        elif c == "$" and text.startswith("$(", i):
            depth, j = 0, i
            while j < n:
                if text[j] == "(":
                    depth += 1
                elif text[j] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            buf.append(text[i : j + 1])
            started = True
            i = j + 1
        elif c in "<>" or (c == "&" and text.startswith(("&>",), i)):
            fd = ""
            if started and not quoted and buf and "".join(buf).isdigit():
                fd = "".join(buf)
                buf, started = [], False
            flush()
            op = next(r for r in _REDIRS if text.startswith(r, i))
            out.append(_Op(fd + op))
            i += len(op)
        elif c in ";|&()\n":
            flush()
            op = next(o for o in _OPERATORS if text.startswith(o, i))
            out.append(_Op(op))
            i += len(op)
        else:
            buf.append(c)
            started = True
            i += 1
    flush()
    return out


def _commands(text: str) -> list[_Command]:
    """Split shell text into simple commands, with stdout redirections and ``| tee``."""
    tokens = _lex(text)
    cmds: list[_Command] = []
    cur = _Command()
    pipe_from: _Command | None = None
    i = 0

    def end(piped: bool) -> None:
        nonlocal cur, pipe_from
        if cur.words:
            if pipe_from is not None:
                pipe_from.piped_to = cur
            cmds.append(cur)
            pipe_from = cur if piped else None
        else:
            pipe_from = None
        cur = _Command()

    while i < len(tokens):
        tok = tokens[i]
        if isinstance(tok, _Word):
            cur.words.append(tok.text)
            i += 1
            continue
        op = tok.text
        if op[-1:] in "<>" or op.endswith(("&>", "&>>", ">&", ">|", "<&", "<>", "<<<", "<<")):
            target = tokens[i + 1] if i + 1 < len(tokens) else None
            tgt = target.text if isinstance(target, _Word) else None
            fd = re.match(r"\d*", op).group()  # type: ignore[union-attr]
            kind = op[len(fd) :]
            if tgt is not None:
                i += 1
                if kind in ("&>", "&>>") or (kind in (">", ">>", ">|") and fd in ("", "1")):
                    cur.stdout, cur.append = tgt, kind in (">>", "&>>")
                elif kind == ">&" and fd in ("", "1") and not tgt.isdigit() and tgt != "-":
                    cur.stdout, cur.append = tgt, False
            i += 1
            continue
        end(piped=op in ("|", "|&"))
        i += 1
    end(piped=False)
    for cmd in cmds:
        nxt = cmd.piped_to
        if nxt and nxt.words and Path(nxt.words[0]).name == "tee":
            files = [w for w in nxt.words[1:] if not w.startswith("-")]
            if files:
                cmd.tee = files[0]
                cmd.tee_append = any(w in ("-a", "--append") for w in nxt.words[1:])
    return cmds


# --------------------------------------------------------------------------------------------
# Unwrapping
# --------------------------------------------------------------------------------------------


@dataclass
class _Found:
    program: str
    argv: list[str]
    env: dict[str, str]
    wrappers: list[str]
    log_path: str | None = None
    log_append: bool = False


@dataclass
class _Ctx:
    env: dict[str, str]
    wrappers: list[str]
    depth: int = 0

    def child(self, wrapper: str | None = None) -> _Ctx:
        if self.depth >= _MAX_DEPTH:
            raise CommandError("the command text nests wrappers too deeply")
        wrappers = [*self.wrappers, wrapper] if wrapper else list(self.wrappers)
        return _Ctx(dict(self.env), wrappers, self.depth + 1)


def _skip_opts(
    words: list[str],
    i: int,
    with_value: set[str],
    long_with_value: set[str] = frozenset(),  # type: ignore[assignment]
) -> int:
    """Skip ``-x``-style options from ``i``; short options in ``with_value`` eat the next word."""
    while i < len(words):
        w = words[i]
        if w == "--":
            return i + 1
        if not w.startswith("-") or w == "-":
            return i
        if w.startswith("--"):
            i += 2 if ("=" not in w and w in long_with_value) else 1
            continue
        i += 2 if (len(w) == 2 and w in with_value) else 1
    return i


_SSH_VALUE = {f"-{c}" for c in "BbcDEeFIiJLlmOopQRSWw"}
_DOCKER_VALUE = {"-e", "-u", "-w", "-v", "-p", "-l", "-m", "-h", "-a", "-c"}
_DOCKER_LONG_VALUE = {
    "--env",
    "--user",
    "--workdir",
    "--env-file",
    "--volume",
    "--publish",
    "--name",
    "--gpus",
    "--shm-size",
    "--ipc",
    "--network",
    "--net",
    "--entrypoint",
    "--runtime",
    "--device",
    "--ulimit",
    "--cap-add",
    "--cap-drop",
    "--security-opt",
    "--mount",
    "--memory",
    "--cpus",
    "--label",
    "--restart",
    "--pull",
    "--platform",
    "--hostname",
    "--add-host",
    "--detach-keys",
    "--group-add",
    "--pid",
    "--cpuset-cpus",
    "--log-driver",
    "--log-opt",
    "--tmpfs",
    "--userns",
}
_NUMACTL_VALUE = {"-N", "-m", "-C", "-i", "-p", "-P", "-w"}
_NUMACTL_LONG = {
    "--cpunodebind",
    "--membind",
    "--physcpubind",
    "--interleave",
    "--preferred",
    "--weighted-interleave",
}


def _docker_env(words: list[str], start: int, stop: int, env: dict[str, str]) -> None:
    i = start
    while i < stop:
        w = words[i]
        val = None
        if w in ("-e", "--env") and i + 1 < stop:
            val = words[i + 1]
        elif w.startswith("--env=") or (w.startswith("-e") and len(w) > 2 and "=" in w):
            val = w.split("=", 1)[1] if w.startswith("--env=") else w[2:]
        if val and "=" in val:
            k, v = val.split("=", 1)
            env[k] = v
        i += 1


def _search_text(text: str, ctx: _Ctx) -> _Found | None:
    if ctx.depth >= _MAX_DEPTH:
        raise CommandError("the command text nests wrappers too deeply")
    text = _CONTINUATION.sub(" ", text)
    text = _LOST_NEWLINE.sub(" ", text)
    env = dict(ctx.env)
    for cmd in _commands(text):
        words = cmd.words
        if words and words[0] == "export":
            for w in words[1:]:
                if _ASSIGN.match(w):
                    k, v = w.split("=", 1)
                    env[k] = v
            continue
        found = _search_words(words, _Ctx(dict(env), list(ctx.wrappers), ctx.depth + 1))
        if found is not None:
            if found.log_path is None:
                if cmd.stdout is not None and cmd.stdout != "/dev/null":
                    found.log_path, found.log_append = cmd.stdout, cmd.append
                elif cmd.tee is not None:
                    found.log_path, found.log_append = cmd.tee, cmd.tee_append
            return found
    return None


def _search_words(words: list[str], ctx: _Ctx) -> _Found | None:
    if ctx.depth >= _MAX_DEPTH:
        raise CommandError("the command text nests wrappers too deeply")
    i = 0
    wrappers = ctx.wrappers
    env = ctx.env
    while i < len(words):
        w = words[i]
        name = Path(w).name if "/" in w else w
        if _ASSIGN.match(w):
            k, v = w.split("=", 1)
            env[k] = v
            i += 1
        elif name in ("nohup", "exec", "setsid", "time", "command", "nice", "ionice", "chrt"):
            wrappers.append(name)
            i = _skip_opts(
                words, i + 1, {"-n", "-c", "-p"} if name in ("nice", "ionice") else set()
            )
        elif name == "env":
            wrappers.append("env")
            i = _skip_opts(words, i + 1, {"-u", "-C", "-S"})
        elif name == "timeout":
            wrappers.append("timeout")
            i = _skip_opts(words, i + 1, {"-s", "-k"}, {"--signal", "--kill-after"}) + 1
        elif name == "numactl":
            wrappers.append("numactl")
            i = _skip_opts(words, i + 1, _NUMACTL_VALUE, _NUMACTL_LONG)
        elif name == "taskset":
            wrappers.append("taskset")
            i = _skip_opts(words, i + 1, set()) + 1  # options, then the mask / cpu list
        elif name == "stdbuf":
            wrappers.append("stdbuf")
            i = _skip_opts(words, i + 1, {"-i", "-o", "-e"})
        elif name in ("sudo", "doas"):
            wrappers.append(name)
            i = _skip_opts(words, i + 1, {"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"})
        elif name in ("bash", "sh", "zsh", "dash", "ksh"):
            j = i + 1
            command_string = None
            while j < len(words) and words[j].startswith("-") and words[j] != "--":
                flag = words[j]
                j += 1
                if not flag.startswith("--") and "c" in flag[1:]:
                    if j < len(words):
                        command_string = words[j]
                    break
            if command_string is None:
                return None  # bash script.sh: not something we can read
            return _search_text(command_string, ctx.child(f"{name} -c"))
        elif name == "ssh":
            j = _skip_opts(words, i + 1, _SSH_VALUE)
            if j + 1 >= len(words):
                return None
            return _search_text(" ".join(words[j + 1 :]), ctx.child("ssh"))
        elif name == "pct" and i + 1 < len(words) and words[i + 1] == "exec":
            rest = words[i + 2 :]
            if "--" not in rest:
                return None
            sub = ctx.child("pct exec")
            return _search_words(rest[rest.index("--") + 1 :], sub)
        elif name in ("docker", "podman", "nerdctl") and i + 1 < len(words):
            verb = words[i + 1]
            if verb not in ("exec", "run"):
                return None
            j = _skip_opts(words, i + 2, _DOCKER_VALUE, _DOCKER_LONG_VALUE)
            sub = ctx.child(f"{name} {verb}")
            _docker_env(words, i + 2, j, sub.env)
            return _search_words(words[j + 1 :], sub)
        elif name in ("kubectl", "oc") and i + 1 < len(words) and words[i + 1] == "exec":
            rest = words[i + 2 :]
            if "--" not in rest:
                return None
            return _search_words(rest[rest.index("--") + 1 :], ctx.child(f"{name} exec"))
        elif name in ("uv", "conda", "mamba", "micromamba", "pixi", "poetry") and (
            i + 1 < len(words) and words[i + 1] == "run"
        ):
            wrappers.append(f"{name} run")
            i = _skip_opts(
                words,
                i + 2,
                {"-n", "-p", "--name", "--prefix"},
                {"--name", "--prefix", "--with", "--python"},
            )
        elif _PYTHON.match(name):
            return _python_launch(words, i, ctx)
        elif name == "sglang" and i + 1 < len(words) and words[i + 1] == "serve":
            argv = words[i + 2 :]
            if argv and not argv[0].startswith("-"):
                argv = ["--model-path", argv[0], *argv[1:]]
            return _Found("sglang serve", argv, env, wrappers)
        else:
            return None
    return None


def _python_launch(words: list[str], i: int, ctx: _Ctx) -> _Found | None:
    j = i + 1
    while j < len(words):
        w = words[j]
        if w == "-m":
            if j + 1 < len(words) and words[j + 1].startswith("sglang"):
                module = words[j + 1]
                return _Found(module, words[j + 2 :], ctx.env, ctx.wrappers)
            return None
        if w.startswith("-m") and len(w) > 2:
            if w[2:].startswith("sglang"):
                return _Found(w[2:], words[j + 1 :], ctx.env, ctx.wrappers)
            return None
        if w in ("-X", "-W", "-Q"):
            j += 2
            continue
        if w.startswith("-"):
            j += 1
            continue
        path = w.replace("\\", "/")
        m = re.search(r"(?:^|/)sglang/((?:srt/)?[A-Za-z_]+)\.py$", path)
        if m:
            return _Found(
                "sglang." + m.group(1).replace("/", "."), words[j + 1 :], ctx.env, ctx.wrappers
            )
        return None
    return None


# --------------------------------------------------------------------------------------------
# --config and argparse
# --------------------------------------------------------------------------------------------


def _merge_config(
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
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CommandError(f"--config {raw}: cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise CommandError(f"--config {raw}: not valid YAML ({str(exc).splitlines()[0]})") from None
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
class _Parsed:
    args: dict[str, Any]
    explicit: set[str]
    unknown: list[str]
    ambiguous: dict[str, tuple[str, ...]]
    suggestions: dict[str, str]
    errors: list[str]
    flags_used: dict[str, str]


def read_argv(table: ArgTable, argv: list[str]) -> _Parsed:
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
    return _Parsed(args, explicit, unknown, ambiguous, suggestions, errors, used)


def _rewrites(table: ArgTable, args: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    out: dict[str, tuple[Any, Any]] = {}
    for rw in table.rewrites:
        value = args.get(rw.field)
        if isinstance(value, str) and value.upper() == str(rw.before).upper():
            out[rw.field] = (value, rw.after)
    return out


def parse_launch_command(
    text: str, *, sglang_version: str | None = None, base_dir: Path | None = None
) -> LaunchCommand:
    """Find the SGLang launch in ``text`` and read its arguments as SGLang would.

    Raises :class:`CommandError` for text that cannot be tokenised or holds no SGLang launch.
    """
    if not isinstance(text, str):
        raise CommandError("the command text must be a string")
    table = load_arg_table(sglang_version)
    try:
        found = _search_text(text, _Ctx({}, []))
    except RecursionError:
        raise CommandError("the command text nests too deeply") from None
    if found is None:
        raise CommandError(_nothing_found(text))
    argv, config_path = _merge_config(list(found.argv), table, base_dir)
    parsed = read_argv(table, argv)
    return LaunchCommand(
        program=found.program,
        argv=tuple(argv),
        args=MappingProxyType(parsed.args),
        explicit=frozenset(parsed.explicit),
        unknown=tuple(parsed.unknown),
        ambiguous=MappingProxyType(parsed.ambiguous),
        suggestions=MappingProxyType(parsed.suggestions),
        rewrites=MappingProxyType(_rewrites(table, parsed.args)),
        log_path=found.log_path,
        log_append=found.log_append,
        env=MappingProxyType(found.env),
        wrappers=tuple(found.wrappers),
        sglang_version=table.version,
        errors=tuple(parsed.errors),
        config_path=config_path,
        flags_used=MappingProxyType(parsed.flags_used),
    )


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
    """The text of a command file ('-' = stdin) and the folder ``--config`` is resolved against."""
    import sys

    from .errors import InputError

    if path == "-":
        return sys.stdin.read(), Path.cwd()
    p = Path(path)
    try:
        return p.read_text(encoding="utf-8", errors="replace"), p.resolve().parent
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None


def describe(cmd: LaunchCommand) -> list[str]:
    """Plain-text lines for ``logscope args``: the argv SGLang sees and every problem."""
    import shlex

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
    if cmd.rejected:
        lines.append(
            "SGLang's argparse would reject this command and exit at once (status 2) "
            "before loading anything."
        )
    return lines
