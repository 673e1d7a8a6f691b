"""Find the SGLang launch inside shell text: through ``VAR=value`` prefixes and ``export`` lines,
launcher prefixes (``nohup``, ``env``, ``setsid``, ``timeout``, ``numactl``, ``exec``, ``stdbuf``,
``sudo``, ``taskset``, ``uv run``, ``conda run``, ``torchrun``, ...), wrapper scripts that pass
their arguments on (``/opt/wrapper.sh /venv/bin/python3 -m sglang.launch_server ...``) and
wrappers nested to any depth (``ssh``, ``pct exec``, ``docker exec``/``run``, ``kubectl exec``,
``bash -c``/``sh -c``); exec-form lists (Dockerfile, compose, Kubernetes) via :mod:`.manifests`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CommandError
from .expand import LITERAL, expand
from .manifests import manifest_argvs
from .shell import split_commands

_MAX_DEPTH = 24
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?[dmu]?$")
_CONTINUATION = re.compile(r"\\\r?\n")


@dataclass
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


def _search_words(words: list[str], ctx: _Ctx) -> Found | None:
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
            env[k] = expand(v, env)[0]
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
        elif name == "torchrun":
            return _torchrun_launch(words, i + 1, ctx.child("torchrun"))
        elif name == "sglang" and i + 1 < len(words) and words[i + 1] == "serve":
            argv = words[i + 2 :]
            if argv and not argv[0].startswith("-"):
                argv = ["--model-path", argv[0], *argv[1:]]
            return Found("sglang serve", argv, env, wrappers)
        elif "/" in w or name.endswith(".sh"):
            # a wrapper script or binary that passes its arguments on: look in what follows
            return _search_words(words[i + 1 :], ctx.child(name))
        else:
            return None
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
