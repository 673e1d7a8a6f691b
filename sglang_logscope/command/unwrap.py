"""Find the SGLang launch inside shell text: through ``VAR=value`` prefixes and ``export`` lines,
launcher prefixes (``nohup``, ``env``, ``setsid``, ``timeout``, ``numactl``, ``exec``, ``stdbuf``,
``sudo``, ``taskset``, ``uv run``, ``conda run``, ``torchrun``, ...), wrapper scripts that pass
their arguments on (``/opt/wrapper.sh /venv/bin/python3 -m sglang.launch_server ...``) and
wrappers nested to any depth (``ssh``, ``pct exec``, ``docker exec``/``run``, ``kubectl exec``,
``bash -c``/``sh -c``); exec-form lists (Dockerfile, compose, Kubernetes) via :mod:`.manifests`.
"""

from __future__ import annotations

import re
from dataclasses import field
from pathlib import Path

from .._record import record
from ..errors import CommandError
from .expand import LITERAL, expand
from .manifests import manifest_argvs
from .shell import split_commands

_MAX_DEPTH = 24
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?[dmu]?$")
_CONTINUATION = re.compile(r"\\\r?\n")


@record(frozen=False)
class Found:
    """The launch found: program, the argv it receives, env and wrappers on the way, its log."""

    program: str
    argv: list[str]
    env: dict[str, str]
    wrappers: list[str]
    log_path: str | None = None
    log_append: bool = False
    #: ``$VAR`` the text never sets, ``$(...)``, backticks: left as written (:mod:`.expand`)
    not_evaluated: list[str] = field(default_factory=list)


@record(frozen=False)
class _Ctx:
    """The environment and wrappers in force at one depth of the unwrapping."""

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
            env[k] = expand(v, env)[0]
        i += 1


def _search_text(text: str, ctx: _Ctx) -> Found | None:
    if ctx.depth >= _MAX_DEPTH:
        raise CommandError("the command text nests wrappers too deeply")
    text = _CONTINUATION.sub(" ", text.replace(LITERAL, "$"))  # an inner shell expands it
    env = dict(ctx.env)
    for cmd in split_commands(text, literals=True):
        words = cmd.words
        if words and words[0] in ("export", "declare", "local", "readonly", "typeset"):
            for w in words[1:]:
                if _ASSIGN.match(w):
                    k, v = w.split("=", 1)
                    env[k] = expand(v, env)[0]
            continue
        if words and all(_ASSIGN.match(w) for w in words):  # TP=2 on a line of its own
            for w in words:
                k, v = w.split("=", 1)
                env[k] = expand(v, env)[0]
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


#: Wrappers that run the words after them: name → (short options that take a value, long
#: options that take a value, words after the options that are not the command: timeout's
#: duration, taskset's mask or cpu list).
_PREFIX_WRAPPERS: dict[str, tuple[set[str], set[str], int]] = {
    **{n: (set(), set(), 0) for n in ("nohup", "exec", "setsid", "time", "command", "chrt")},
    "nice": ({"-n", "-c", "-p"}, set(), 0),
    "ionice": ({"-n", "-c", "-p"}, set(), 0),
    "env": ({"-u", "-C", "-S"}, set(), 0),
    "timeout": ({"-s", "-k"}, {"--signal", "--kill-after"}, 1),
    "numactl": (_NUMACTL_VALUE, _NUMACTL_LONG, 0),
    "taskset": (set(), set(), 1),
    "stdbuf": ({"-i", "-o", "-e"}, set(), 0),
    **{
        n: ({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"}, set(), 0)
        for n in ("sudo", "doas")
    },
}

#: ``NAME run …`` environment runners, and their options that take a value.
_RUNNERS = ("uv", "conda", "mamba", "micromamba", "pixi", "poetry")
_RUNNER_VALUE = {"-n", "-p", "--name", "--prefix"}
_RUNNER_LONG_VALUE = {"--name", "--prefix", "--with", "--python"}


def _search_words(words: list[str], ctx: _Ctx) -> Found | None:
    """The launch in ``words``: env assignments and prefix wrappers are read and skipped; the
    first other word decides (:func:`_at_program`)."""
    if ctx.depth >= _MAX_DEPTH:
        raise CommandError("the command text nests wrappers too deeply")
    i = 0
    while i < len(words):
        w = words[i]
        name = Path(w).name if "/" in w else w
        rule = _PREFIX_WRAPPERS.get(name)
        if _ASSIGN.match(w):
            k, v = w.split("=", 1)
            ctx.env[k] = expand(v, ctx.env)[0]
            i += 1
        elif rule is not None:
            ctx.wrappers.append(name)
            i = _skip_opts(words, i + 1, rule[0], rule[1]) + rule[2]
        elif name in _RUNNERS and words[i + 1 : i + 2] == ["run"]:
            ctx.wrappers.append(f"{name} run")
            i = _skip_opts(words, i + 2, _RUNNER_VALUE, _RUNNER_LONG_VALUE)
        else:
            return _at_program(words, i, name, ctx)
    return None


def _at_program(words: list[str], i: int, name: str, ctx: _Ctx) -> Found | None:
    """``words[i]`` (``name``) is the program: a launch, a shell, a remote or container
    hop read further, a script that passes its arguments on — or nothing to read."""
    nxt = words[i + 1] if i + 1 < len(words) else None
    if name in ("bash", "sh", "zsh", "dash", "ksh"):
        return _shell_c(words, i, name, ctx)
    if name == "ssh":
        j = _skip_opts(words, i + 1, _SSH_VALUE)
        if j + 1 >= len(words):
            return None
        return _search_text(" ".join(words[j + 1 :]), ctx.child("ssh"))
    if (name == "pct" and nxt == "exec") or (name in ("kubectl", "oc") and nxt == "exec"):
        rest = words[i + 2 :]
        if "--" not in rest:
            return None
        return _search_words(rest[rest.index("--") + 1 :], ctx.child(f"{name} exec"))
    if name in ("docker", "podman", "nerdctl") and nxt is not None:
        if nxt not in ("exec", "run"):
            return None
        j = _skip_opts(words, i + 2, _DOCKER_VALUE, _DOCKER_LONG_VALUE)
        sub = ctx.child(f"{name} {nxt}")
        _docker_env(words, i + 2, j, sub.env)
        return _search_words(words[j + 1 :], sub)
    if _PYTHON.match(name):
        return _python_launch(words, i, ctx)
    if name == "torchrun":
        return _torchrun_launch(words, i + 1, ctx.child("torchrun"))
    if name == "sglang" and nxt == "serve":
        argv = words[i + 2 :]
        if argv and not argv[0].startswith("-"):
            argv = ["--model-path", argv[0], *argv[1:]]
        return Found("sglang serve", argv, ctx.env, ctx.wrappers)
    if "/" in words[i] or name.endswith(".sh"):
        # a wrapper script or binary that passes its arguments on: look in what follows
        return _search_words(words[i + 1 :], ctx.child(name))
    return None


def _shell_c(words: list[str], i: int, name: str, ctx: _Ctx) -> Found | None:
    """``bash [-opts] -c 'TEXT'``: TEXT read as the inner shell runs it; a script file is not
    something we can read."""
    j = i + 1
    while j < len(words) and words[j].startswith("-") and words[j] != "--":
        flag = words[j]
        j += 1
        if not flag.startswith("--") and "c" in flag[1:]:
            if j < len(words):
                return _search_text(words[j], ctx.child(f"{name} -c"))
            break
    return None


#: torchrun options that take no value (every other ``--option`` takes one).
_TORCHRUN_FLAGS = {"--standalone", "--no-python", "--no_python", "--run-path", "--run_path"}


def _torchrun_launch(words: list[str], i: int, ctx: _Ctx) -> Found | None:
    """``torchrun [options] -m sglang.launch_server ...`` or ``torchrun [options] path.py``."""
    while i < len(words):
        w = words[i]
        if w in ("-m", "--module"):
            return _python_launch(["python", *words[i:]], 0, ctx)
        if w.startswith("-"):
            i += 1 if ("=" in w or w in _TORCHRUN_FLAGS) else 2
            continue
        return _python_launch(["python", *words[i:]], 0, ctx)
    return None


def _python_launch(words: list[str], i: int, ctx: _Ctx) -> Found | None:
    j = i + 1
    while j < len(words):
        w = words[j]
        if w == "-m":
            if j + 1 < len(words) and words[j + 1].startswith("sglang"):
                module = words[j + 1]
                return Found(module, words[j + 2 :], ctx.env, ctx.wrappers)
            return None
        if w.startswith("-m") and len(w) > 2:
            if w[2:].startswith("sglang"):
                return Found(w[2:], words[j + 1 :], ctx.env, ctx.wrappers)
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
            return Found(
                "sglang." + m.group(1).replace("/", "."), words[j + 1 :], ctx.env, ctx.wrappers
            )
        return None
    return None


def find_launch(text: str) -> Found | None:
    """The first SGLang launch in ``text`` with its env, wrappers and log file, if any; shell
    text first (its argv with the variables the text sets expanded, the rest in
    ``not_evaluated``), then exec-form lists (Dockerfile, compose, Kubernetes:
    :mod:`.manifests`; no shell there to expand anything)."""
    found = _search_text(text, _Ctx({}, []))
    if found is not None:
        return _expanded(found)
    for where, words in manifest_argvs(text):
        found = _search_words(words, _Ctx({}, [where]))
        if found is not None:
            return found
    return None


def _expanded(found: Found) -> Found:
    argv: list[str] = []
    for word in found.argv:
        value, unresolved = expand(word, found.env)
        argv.append(value)
        found.not_evaluated += [u for u in unresolved if u not in found.not_evaluated]
    found.argv = argv
    found.program = found.program.replace(LITERAL, "$")
    found.env = {k: v.replace(LITERAL, "$") for k, v in found.env.items()}
    if found.log_path is not None:
        found.log_path = expand(found.log_path, found.env)[0]
    return found
