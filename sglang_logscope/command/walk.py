"""The launch command as the shells run it: every simple command, in order, with the shell that
runs it and the wrappers around it (``ssh HOST``, ``pct exec ID``, ``docker exec C``,
``kubectl exec POD``, ``bash -c``).

:mod:`.unwrap` finds the one SGLang launch in the text; the lint (:mod:`.lint`) needs
the whole script around it — what runs before the launch, in which shell process, on which
machine — because that is where launches die before SGLang prints a line.
"""

from __future__ import annotations

import re
import shlex

from .._record import record
from ..errors import CommandError
from .shell import split_commands

_CONTINUATION = re.compile(r"\\\r?\n")
_MAX_DEPTH = 24
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
#: Prefixes that run the next word as the command (their own options are skipped).
_PREFIXES = frozenset(
    {"nohup", "setsid", "exec", "env", "time", "command", "nice", "stdbuf", "sudo", "doas"}
)
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SSH_VALUE = frozenset(f"-{c}" for c in "BbcDEeFIiJLlmOopQRSWw")
_DOCKER_VALUE = frozenset({"-e", "-u", "-w", "--env", "--user", "--workdir", "--env-file"})
_KUBECTL_VALUE = frozenset({"-c", "-n", "--container", "--namespace", "--context"})
#: Hops that enter another machine or another PID namespace.
REMOTE_KINDS = ("ssh", "pct exec", "docker exec", "kubectl exec")


@record
class Hop:
    """One wrapper on the way to a command: its kind and where it goes (host, container, pod)."""

    kind: str
    target: str = ""


@record
class Step:
    """One simple command as its shell runs it."""

    words: tuple[str, ...]  # after VAR=value and launcher prefixes
    prefixes: tuple[str, ...]  # nohup, setsid, ... in front of it
    background: bool
    redirects: tuple[str, ...]
    stdout: str | None
    hops: tuple[Hop, ...]
    shell: int  # which shell runs it (index into Walk.shells)
    position: int  # its place in that shell's list of commands
    then: str = (
        ""  # the operator after it: ``;``, ``&&``, ``||``, ``|``, ``&``, newline ("" at the end)
    )
    depth: int = 0  # 0: at the top level of its script (not inside if/while/case/{ }/( ))

    @property
    def head(self) -> str:
        return self.words[0].rsplit("/", 1)[-1] if self.words else ""

    @property
    def line(self) -> str:
        """The command as a shell line (quoted as needed), with its redirections."""
        text = " ".join([shlex.join(self.prefixes + self.words), *self.redirects])
        return text + (" &" if self.background else "")


@record
class Shell:
    """A shell process the script runs in: its command line, and how many commands it runs."""

    cmdline: str | None  # as /proc shows it (argv joined by spaces); None: the user's own shell
    text: str  # the script it runs
    hops: tuple[Hop, ...]
    size: int
    namespace: int  # shells with the same number see each other's processes
    comm: str | None = None  # its process name, when not its argv[0] (a script run by its shebang)
    parent: int = -1  # the shell whose step started it (index into Walk.shells; -1: none)


@record
class Walk:
    """The steps a command line runs and the shells that run them, in order."""

    steps: tuple[Step, ...]
    shells: tuple[Shell, ...]


class _Walker:
    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.shells: list[Shell] = []
        self.namespaces = 0

    def text(
        self, text: str, hops: tuple[Hop, ...], cmdline: str | None, ns: int, parent: int = -1
    ) -> None:
        if len(hops) >= _MAX_DEPTH:
            raise CommandError("the command text nests wrappers too deeply")
        commands = split_commands(_CONTINUATION.sub(" ", text))
        shell = len(self.shells)
        self.shells.append(Shell(cmdline, text, hops, len(commands), ns, parent=parent))
        for position, cmd in enumerate(commands):
            words, prefixes = _unprefix(cmd.words)
            step = Step(
                words,
                prefixes,
                cmd.background,
                tuple(cmd.redirects),
                cmd.stdout,
                hops,
                shell,
                position,
                cmd.then,
                cmd.depth,
            )
            self.steps.append(step)
            self.enter(step, ns)

    def enter(self, step: Step, ns: int) -> None:
        """Walk into the command a wrapper step runs."""
        words, head = list(step.words), step.head
        if head in _SHELLS:
            string = _command_string(words)
            if string is not None:
                self.text(string, (*step.hops, Hop(f"{head} -c")), " ".join(words), ns, step.shell)
        elif head == "ssh":
            j = _skip(words, 1, _SSH_VALUE)
            if j + 1 < len(words):
                remote = " ".join(words[j + 1 :])
                self.namespaces += 1
                hop = Hop("ssh", words[j])
                self.text(
                    remote, (*step.hops, hop), f"bash -c {remote}", self.namespaces, step.shell
                )
        elif head == "pct" and words[1:2] == ["exec"] and "--" in words:
            self._inner(step, Hop("pct exec", words[2] if len(words) > 2 else ""), words)
        elif head in ("docker", "podman") and words[1:2] == ["exec"]:
            j = _skip(words, 2, _DOCKER_VALUE)
            if j + 1 < len(words):
                hop = Hop(f"{head} exec", words[j])
                self._nested(step, hop, words[j + 1 :])
        elif head in ("kubectl", "oc") and words[1:2] == ["exec"] and "--" in words:
            j = _skip(words, 2, _KUBECTL_VALUE)
            self._inner(step, Hop(f"{head} exec", words[j] if j < len(words) else ""), words)

    def _inner(self, step: Step, hop: Hop, words: list[str]) -> None:
        self._nested(step, hop, words[words.index("--") + 1 :])

    def _nested(self, step: Step, hop: Hop, words: list[str]) -> None:
        """A command run in another PID namespace (a container): it sees none of our shells."""
        self.namespaces += 1
        self.text(shlex.join(words), (*step.hops, hop), None, self.namespaces, step.shell)


def _unprefix(words: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The command's own words, and the launcher prefixes (``nohup``, ``setsid -f``) before them."""
    prefixes: list[str] = []
    i = 0
    while i < len(words):
        name = words[i].rsplit("/", 1)[-1]
        if _ASSIGN.match(words[i]):
            i += 1
        elif name in _PREFIXES:
            prefixes.append(words[i])
            i += 1
            while i < len(words) and words[i].startswith("-"):
                prefixes.append(words[i])
                i += 1
        else:
            break
    return tuple(words[i:]), tuple(prefixes)


def _skip(words: list[str], i: int, with_value: frozenset[str]) -> int:
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in with_value else 1
    return i


def _command_string(words: list[str]) -> str | None:
    for j, flag in enumerate(words[1:], start=1):
        if not flag.startswith("-") or flag == "--":
            return None
        if not flag.startswith("--") and "c" in flag[1:]:
            return words[j + 1] if j + 1 < len(words) else None
    return None


def walk(text: str, script: str | None = None) -> Walk:
    """Every simple command of ``text``, nested wrappers included, in the order they run.

    ``script`` is the file the text was read from: when it starts with ``#!``, it runs as
    ``./script`` — a shell process whose command line is ``INTERPRETER script`` and whose name
    is the script's file name (what ``pkill`` without ``-f`` matches).
    """
    walker = _Walker()
    cmdline, comm = _script_shell(text, script)
    try:
        walker.text(text, (), cmdline, 0)
    except RecursionError:
        raise CommandError("the command text nests too deeply") from None
    shells = list(walker.shells)
    if comm is not None and shells:
        top = shells[0]
        shells[0] = Shell(
            top.cmdline, top.text, top.hops, top.size, top.namespace, comm, top.parent
        )
    return Walk(tuple(walker.steps), tuple(shells))


def _script_shell(text: str, script: str | None) -> tuple[str | None, str | None]:
    if script is None or not text.startswith("#!"):
        return None, None
    words = text[2:].split("\n", 1)[0].split()
    if not words:
        return None, None
    interp = words[-1] if words[0].endswith("/env") and len(words) > 1 else words[0]
    return f"{interp} {script}", script.rsplit("/", 1)[-1][:15]


def remote_hops(hops: tuple[Hop, ...]) -> tuple[Hop, ...]:
    """The hops that leave this machine or enter a container."""
    return tuple(h for h in hops if h.kind in REMOTE_KINDS or h.kind.endswith(" exec"))


def run_there(hops: tuple[Hop, ...], command: str) -> str:
    """``command`` wrapped in the same hops, so it runs where the launch runs (stdin passed)."""
    out = command
    for hop in reversed(remote_hops(hops)):
        if hop.kind == "ssh":
            out = f"ssh {hop.target} {shlex.quote(out)}"
        elif hop.kind == "pct exec":
            out = f"pct exec {hop.target} -- {out}"
        elif hop.kind.endswith("kubectl exec") or hop.kind == "oc exec":
            out = f"{hop.kind} -i {hop.target} -- {out}"
        else:
            out = f"{hop.kind} -i {hop.target} {out}"
    return out


def where(hops: tuple[Hop, ...]) -> str:
    """Where a command with these hops runs, in words: 'root@h, container 129'."""
    parts = []
    for hop in remote_hops(hops):
        if hop.kind == "ssh":
            parts.append(f"host {hop.target}")
        elif hop.kind == "pct exec":
            parts.append(f"Proxmox container {hop.target}")
        elif hop.kind.endswith("kubectl exec") or hop.kind == "oc exec":
            parts.append(f"pod {hop.target}")
        else:
            parts.append(f"container {hop.target}")
    return ", ".join(parts) or "this machine"
