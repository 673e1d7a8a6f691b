"""The launch-command lint: what bash will do with your command before SGLang prints a line.

Each rule is an entry of :data:`RULES` — its finding code (``LS030``-``LS039``, ``LS053``, documented in
``docs/findings/``), the programs it looks at, and the detector that reads the walked script
(:mod:`.walk`). A hit says what bash will do and gives the fixed line. Rules that need
the log being checked (is it the file the command writes? does it still exist although the
command deletes it?) take a :class:`LogFacts`.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Callable

from .._record import record
from .._text import lazy_re
from ..errors import CommandError
from ..findings import CODES, Finding, Severity
from .unwrap import find_launch
from .walk import Shell, Step, Walk, remote_hops, run_there, walk, where

__all__ = [
    "RULES",
    "LintHit",
    "LintRule",
    "LogFacts",
    "errexit_on",
    "launch_step",
    "lint",
    "lint_findings",
    "remote_check",
]


@record
class LogFacts:
    """What the check knows about the log: its name, and whether the launch left it untouched."""

    name: str
    untouched: bool  # the file holds no run since the launch (stale, or not modified since)


@record
class LintHit:
    """One problem: the rule's code, what bash will do, and the line that fixes it."""

    code: str
    message: str
    fix: str
    step: int  # order of the offending command in the script (earlier = happens first)
    short: str = ""  # one line for the next steps
    #: the commands it keeps from running (a shell killed here runs nothing after it)
    prevents: tuple[str, ...] = ()
    #: it stops the script where bash runs it (kills the shell, or makes the launch exit)
    stops: bool = False

    def finding(self) -> Finding:
        return Finding.of(
            self.code, f"{self.message} Fixed: {self.fix}" if self.fix else self.message
        )

    def step_text(self) -> str:
        """The next step: what happens, and the fixed line."""
        what = self.short or self.message
        return f"{what} Fixed: {self.fix}" if self.fix else what


@record
class Context:
    """What every lint rule reads: the command's walk, its launch step, and the log's facts."""

    walk: Walk
    launch: Step | None
    log: LogFacts | None


Detector = Callable[[Context], list[LintHit]]


@record
class LintRule:
    """A lint rule as data: its code, the shell words it is about (documentation, and what its
    detector looks for), its detector, and whether it needs the checked log's facts."""

    code: str
    programs: tuple[str, ...]
    detect: Detector
    needs_log: bool = False


# --------------------------------------------------------------------------------- detectors

_KILLERS = ("pkill", "pgrep", "killall")
_SIGNAL = re.compile(r"^-(9|KILL|SIGKILL|s(?:ignal)?=?(?:9|KILL|SIGKILL))$")


def _pattern(step: Step) -> tuple[str, bool] | None:
    """The pattern a pkill/pgrep/killall step matches, and whether it reads the full cmdline."""
    words = list(step.words[1:])
    if step.head == "kill":  # kill $(pgrep -f PATTERN)
        inner = next((w[2:-1] for w in words if w.startswith("$(pgrep") and w.endswith(")")), None)
        if inner is None:
            return None
        return _pattern(Step(tuple(shlex.split(inner)), (), False, (), None, (), 0, 0))
    full = False
    i = 0
    while i < len(words) and words[i].startswith("-"):
        w = words[i]
        if step.head != "killall" and (w == "-f" or (w[1:2] != "-" and "f" in w[1:])):
            full = True
        if w in ("-s", "--signal", "-u", "-g", "-P", "-t", "-U", "-G", "--session", "-n"):
            i += 1
        i += 1
    if i >= len(words):
        return None
    return words[i], full


#: The characters that make a pattern more than its own text (POSIX extended and ``regex``).
_REGEX_SYNTAX = frozenset(".^$*+?{}[]\\|()")
#: Syntax without repetition, alternation, classes or escapes (``python -m sglang.launch``).
_NO_REPEATS = frozenset(".^$")


def _matches(pattern: str, text: str) -> bool:
    """Whether a pkill/pgrep ``pattern`` (the user's: untrusted) matches ``text``, under
    ``regex``'s timeout; a pattern of plain characters (``pkill -f sglang``) is a substring,
    one with only ``.^$`` is ``re``'s (tests/test_command_lint.py proves each equal)."""
    syntax = _REGEX_SYNTAX.intersection(pattern)
    if not syntax:
        return pattern in text
    if syntax <= _NO_REPEATS:  # nothing to run away with: re reads it as regex does
        return re.search(pattern, text) is not None
    # start-up: the regex module only where a command's pattern is matched
    import regex

    try:
        return regex.search(pattern, text, timeout=0.05) is not None
    except (regex.error, TimeoutError):
        return pattern in text


def _signal_name(step: Step) -> str:
    killed = any(_SIGNAL.match(w) for w in step.words[1:])
    return (
        "SIGKILL (bash reports 'Killed', status 137)"
        if killed
        else ("SIGTERM (bash reports 'Terminated', status 143)")
    )


def _kill_pattern(launch: Step | None, shells: list[Shell], old: str) -> tuple[str, str] | None:
    """A pkill pattern that matches the server's command line and none of the shells'.

    Anchored at the interpreter as typed (a shell's command line starts with ``bash``); ``.``
    stands for each space, so the pattern needs no quotes at any nesting depth.
    """
    if launch is None:
        pattern = "python[^ ]* -m sglang[.]launch_server"
        why = "the brackets keep the pattern from matching its own text"
        return (
            None
            if any(_matches(pattern, s.cmdline or "") for s in shells)
            else (f'"{pattern}"', why)
        )
    words = list(launch.words)
    if words[:2] == ["sglang", "serve"] or words[0].endswith("/sglang"):
        pattern = "bin/sglang.serve" if words[0] == "sglang" else "^" + words[0] + ".serve"
    elif "-m" in words[:4]:
        at = words.index("-m")
        pattern = "^" + ".".join(words[: at + 2])
    else:
        pattern = "^" + ".".join(words[:2])
    server = (
        " ".join(words)
        if words[0] != "sglang"
        else "/usr/bin/python3 /usr/local/bin/" + " ".join(words)
    )
    if any(ch in pattern for ch in "'\"$`*?[] ") or not _matches(pattern, server):
        return None
    if _hits_shell(pattern, shells, old):
        return None
    why = "anchored at the interpreter, it matches no shell; `.` stands for a space, so it needs no quotes"
    return pattern, why


def _hits_shell(pattern: str, shells: list[Shell], old: str) -> bool:
    """Would ``pattern`` still match a shell once it replaces ``old`` in that shell's script?"""
    return any(_matches(pattern, (s.cmdline or "").replace(old, pattern)) for s in shells)


def _later(ctx: Context, step: Step) -> list[Step]:
    return [s for s in ctx.walk.steps if s.shell == step.shell and s.position > step.position]


def _self_match(ctx: Context) -> list[LintHit]:
    hits = []
    for step in ctx.walk.steps:
        got = _pattern(step) if step.head in ("pkill", "killall", "kill") else None
        if got is None:
            continue
        pattern, full = got
        for shell in _enclosing(ctx.walk, step):
            target = shell.cmdline or ""
            seen = target if full else shell.comm or target.split(" ", 1)[0].rsplit("/", 1)[-1]
            if not _matches(pattern, seen) or shell.size < 2:
                continue
            later = [s.line for s in _later(ctx, step)]
            skipped = later[:4]
            shells = _enclosing(ctx.walk, step)
            pattern_fix, why = _kill_pattern(ctx.launch, shells, pattern) or ("", "")
            fixed = (
                " ".join(
                    [*step.words[:-1], *(() if full else ("-f",)), pattern_fix, *step.redirects]
                )
                if step.head == "pkill"
                else f"pkill -f {pattern_fix}"
            )
            hits.append(
                LintHit(
                    "LS030",
                    f"`{step.line}` matches its own shell: the `{_short(shell.cmdline)}` "
                    + (
                        f"process has {pattern!r} in its command line"
                        if full or not shell.comm
                        else f"process (run as a script, its name is {shell.comm!r}) matches {pattern!r}"
                    )
                    + ", so it receives "
                    f"{_signal_name(step)} and nothing after it runs"
                    + (f" (not {'; '.join(f'`{s[:60]}`' for s in skipped)})" if skipped else "")
                    + ".",
                    (
                        f"`{fixed}` ({why}), or kill the server by the pid you saved at launch."
                        if pattern_fix
                        else "kill the server by the pid you saved at launch (`kill PID`)."
                    ),
                    _order(ctx, step),
                    prevents=tuple(later),
                    stops=True,
                    short=f"`{step.line}` kills its own shell (`{_short(shell.cmdline, 40)}`), so nothing after it ran"
                    + (
                        f": not {', '.join(f'`{_short(s, 40)}`' for s in _weighty(ctx, step))}"
                        if later
                        else ""
                    )
                    + ".",
                )
            )
            break
    return hits


def _weighty(ctx: Context, step: Step) -> list[str]:
    """What a shell killed at ``step`` most visibly never ran: its deletions and the launch
    (else the next two commands)."""
    later = _later(ctx, step)
    chosen = [s.line for s in later if s.head in _REMOVE or s is ctx.launch]
    return chosen[:2] or [s.line for s in later[:2]]


def _short(text: str | None, limit: int = 60) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _enclosing(w: Walk, step: Step) -> list[Shell]:
    """The shells alive while ``step`` runs that it can see (same machine and PID namespace)."""
    shell = w.shells[step.shell]
    chain = [s for s in w.shells[: step.shell + 1] if s.namespace == shell.namespace]
    return [s for s in chain if s.cmdline is not None and _is_prefix(s.hops, shell.hops)]


def _is_prefix(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return b[: len(a)] == a


def _order(ctx: Context, step: Step) -> int:
    return ctx.walk.steps.index(step)


_REMOVE = ("rm", "unlink", "truncate")


def _removed_log_still_there(ctx: Context) -> list[LintHit]:
    log = ctx.log
    if log is None or not log.untouched:
        return []
    name = _base(log.name)
    for step in ctx.walk.steps:
        targets = [w for w in step.words[1:] if not w.startswith("-")]
        deletes = step.head in _REMOVE and any(_base(t) == name for t in targets)
        truncates = step is ctx.launch and step.stdout and _base(step.stdout) == name
        if not (deletes or truncates):
            continue
        what = f"`{step.line[:80]}`" if deletes else f"the launch's `> {step.stdout}`"
        return [
            LintHit(
                "LS031",
                f"Your command {'deletes' if deletes else 'truncates'} {name} ({what}), yet the "
                "file still holds a run from before your launch and nothing has written to it: "
                "the shell never reached that line (it died or stopped before it). What stopped "
                "it comes earlier in the script; run it by hand and read `echo $?` after each line.",
                "",
                _order(ctx, step),
                short=f"{name} still exists although your command deletes it first: the shell never got that far.",
            )
        ]
    return []


def _base(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _unprotected_background(ctx: Context) -> list[LintHit]:
    launch = ctx.launch
    if launch is None or not launch.background or not remote_hops(launch.hops):
        return []
    names = {p.rsplit("/", 1)[-1] for p in launch.prefixes}
    if names & {"nohup", "setsid"} or any(s.head == "disown" for s in _later(ctx, launch)):
        return []
    kind = remote_hops(launch.hops)[-1].kind
    return [
        LintHit(
            "LS032",
            f"The launch is started with `&` inside `{kind}` without nohup/setsid/disown: it "
            f"belongs to the session, and when `{kind}` returns the session's processes can be "
            "hung up (SIGHUP) or torn down with it.",
            f"`nohup setsid {shlex.join(launch.words)} {' '.join(launch.redirects)} < /dev/null &`",
            _order(ctx, launch),
            short=f"The launch's `&` inside `{kind}` has no nohup/setsid/disown: it can die with the session.",
        )
    ]


def _pid_without_background(ctx: Context) -> list[LintHit]:
    hits = []
    for index, shell in enumerate(ctx.walk.shells):
        expanded = _unquoted_bang(shell.text)
        if expanded is None:
            continue
        steps = [s for s in ctx.walk.steps if s.shell == index]
        before = [s for s in steps if s.background and shell.text.find(s.words[0]) < expanded]
        if before:
            continue
        where = (
            f"the shell on {remote_hops(shell.hops)[-1].target or 'the remote side'}"
            if remote_hops(shell.hops)
            else "your shell"
        )
        inner = any(
            s.hops[: len(shell.hops)] == shell.hops and s.background for s in ctx.walk.steps
        )
        hits.append(
            LintHit(
                "LS033",
                f"`$!` is expanded by {where}, where nothing was started in the background"
                + (
                    " (it sits inside double quotes, so this shell expands it before the inner "
                    "`bash -c` runs)"
                    if inner
                    else ""
                )
                + ": `echo PID=$!` prints `PID=` with no pid.",
                "`echo PID=\\$!` inside double quotes (the inner shell expands it after its `&`), "
                "or single-quote the inner script.",
                ctx.walk.steps.index(steps[0]) if steps else 0,
                short=f"`$!` is expanded by {where} before anything runs in the background: "
                "`PID=` prints no pid.",
            )
        )
    return hits


def _unquoted_bang(text: str) -> int | None:
    """Where ``$!`` appears outside single quotes (so this shell expands it), else None."""
    single = double = False
    i = 0
    while i < len(text) - 1:
        c = text[i]
        if c == "\\" and not single:
            i += 2
            continue
        if c == "'" and not double:
            single = not single
        elif c == '"' and not single:
            double = not double
        elif c == "$" and text[i + 1] == "!" and not single:
            return i
        i += 1
    return None


def _redirect_order(ctx: Context) -> list[LintHit]:
    hits = []
    for step in ctx.walk.steps:
        reds = list(step.redirects)
        if "2>&1" not in reds:
            continue
        dup = reds.index("2>&1")
        files = [r for r in reds[dup + 1 :] if re.match(r"^1?>[^&]", r)]
        if not files:
            continue
        target = re.sub(r"^1?>", "", files[0])
        fixed = " ".join([shlex.join(step.prefixes + step.words), f"> {target}", "2>&1"])
        hits.append(
            LintHit(
                "LS034",
                f"`2>&1 > {target}` sends stderr where stdout went before the redirect (the "
                f"terminal or the ssh session), not into {target}: SGLang's log lines and "
                "tracebacks (stderr) never reach the file.",
                f"`{fixed}{' &' if step.background else ''}`",
                _order(ctx, step),
                short=f"`2>&1 > {target}` leaves stderr (SGLang's log lines) out of {target}.",
            )
        )
    return hits


def _other_file(ctx: Context) -> list[LintHit]:
    launch, log = ctx.launch, ctx.log
    if launch is None or log is None:
        return []
    found = find_launch(launch.line)
    target = launch.stdout or (found.log_path if found else None)
    if target is None or _base(target) == _base(log.name):
        return []
    return [
        LintHit(
            "LS035",
            f"Your command writes the server's output to {target}, but you are checking "
            f"{log.name}: this file is not where your launch writes.",
            f"`logscope check ... {target}` (or redirect the launch into the file you check).",
            _order(ctx, launch),
            short=f"Your command writes to {target}, not to {log.name}.",
        )
    ]


_WAITS = ("while", "until", "wait", "timeout", "nvidia-smi", "logscope")


def _sleep_after_kill(ctx: Context) -> list[LintHit]:
    launch = ctx.launch
    if launch is None:
        return []
    earlier = [
        s for s in ctx.walk.steps if s.shell == launch.shell and s.position < launch.position
    ]
    kills = [
        s
        for s in earlier
        if s.head in ("kill", "pkill", "killall") and any(_SIGNAL.match(w) for w in s.words[1:])
    ]
    if not kills or any(s.head in _WAITS for s in earlier if s.position > kills[-1].position):
        return []
    kill = kills[-1]
    sleeps = [s for s in earlier if s.head == "sleep" and s.position > kill.position]
    fix = (
        "wait for the GPU to be free instead: `while nvidia-smi "
        "--query-compute-apps=pid --format=csv,noheader | grep -q .; do sleep 1; done`."
    )
    if sleeps:
        what = f"`{sleeps[-1].line}` after `{kill.line}` waits a fixed time"
        short = f"`{sleeps[-1].line}` after `kill -9` is a guess"
    else:
        what = f"Nothing waits between `{kill.line}` and the launch"
        short = f"Nothing waits after `{kill.line}`"
    return [
        LintHit(
            "LS036",
            f"{what}: SIGKILL only queues the driver's teardown, and the killed server's GPU "
            "memory stays charged until its processes are gone, so the new launch can find the "
            "memory still taken.",
            fix,
            _order(ctx, sleeps[-1] if sleeps else kill),
            short=f"{short}: the GPU memory may still be held when the launch starts.",
        )
    ]


def _space_before_flag(ctx: Context) -> list[LintHit]:
    launch = ctx.launch
    if launch is None:
        return []
    spaced = [w for w in launch.words if w != w.lstrip() and w.strip()]
    blank = [w for w in launch.words if w and not w.strip()]
    if not (spaced or blank):
        return []
    meant = [w.strip() for w in launch.words if w.strip()]
    shown = ", ".join(repr(w) for w in spaced[:2])
    return [
        LintHit(
            "LS037",
            "A `\\ ` before a flag (a line break lost in a paste) is an escaped space: bash passes "
            + (f"{shown} with a leading space, which argparse takes for a value" if spaced else "")
            + (" and " if spaced and blank else "")
            + (
                f"{len(blank)} argument(s) that are only a space (a `\\ ` before `>`)"
                if blank
                else ""
            )
            + ", so SGLang exits 2 at once (unrecognized arguments).",
            f"`{' '.join([shlex.join([*launch.prefixes, *meant]), *launch.redirects])}"
            + (" &`" if launch.background else "`")
            + " (or put each `\\` at the end of its line).",
            _order(ctx, launch),
            short="`\\ ` before flags: bash passes them with a leading space and SGLang's argparse exits 2.",
            prevents=("the server itself (it exits with status 2 before its first log line)",),
            stops=True,
        )
    ]


# ------------------------------------------------- stoppers before the launch (exit, set -e, -f)


def _before_launch(ctx: Context) -> list[Step]:
    """The top-level steps bash runs before the launch in the launch's shell or a shell around it
    (a step in a sibling shell stops only that shell)."""
    launch = ctx.launch
    if launch is None:
        return []
    chain, at = set(), launch.shell
    while at >= 0:
        chain.add(at)
        at = ctx.walk.shells[at].parent
    end = ctx.walk.steps.index(launch)
    return [s for s in ctx.walk.steps[:end] if s.shell in chain and s.depth == 0]


#: How a step hands on to the next: chained by ``&&``/``||`` or piped, it stops nothing.
_CHAINED = ("&&", "||", "|", "|&")


def _unconditional(ctx: Context, step: Step) -> bool:
    """Runs whatever came before it (not after ``&&``/``||``), in the foreground."""
    before = [s for s in ctx.walk.steps if s.shell == step.shell and s.position < step.position]
    return not step.background and (not before or before[-1].then not in _CHAINED)


def _stopper(ctx: Context, step: Step, code: str, message: str, fix: str, short: str) -> LintHit:
    later = [s.line for s in _later(ctx, step)]
    kept = _weighty(ctx, step)
    return LintHit(
        code,
        message,
        fix,
        _order(ctx, step),
        short=short + (f": not {', '.join(f'`{_short(s, 40)}`' for s in kept)}." if kept else "."),
        prevents=tuple(later),
        stops=True,
    )


def _stoppers(
    ctx: Context, code: str, stops: Callable[[Step], bool], words: tuple[str, str, str]
) -> list[LintHit]:
    """A stopper hit for each step before the launch that runs whatever came before it, is not
    chained to the next, and ``stops`` the script; ``words`` (message, fix, short) name the
    step's line as ``{line}``."""
    return [
        _stopper(ctx, step, code, *(w.format(line=step.line) for w in words))
        for step in _before_launch(ctx)
        if stops(step) and step.then not in _CHAINED and _unconditional(ctx, step)
    ]


def _exit_before_launch(ctx: Context) -> list[LintHit]:
    return _stoppers(
        ctx,
        "LS038",
        lambda step: step.head in ("exit", "return", "logout"),
        (
            "`{line}` ends the shell before the launch: bash stops reading the script there, "
            "so the server is never started.",
            "drop `{line}` (or move it after the launch).",
            "`{line}` ends the shell before the launch",
        ),
    )


_ERREXIT = lazy_re(r"^-[a-zA-Z]*e[a-zA-Z]*$")
_NO_MATCH = ("pkill", "pgrep", "grep", "egrep", "fgrep", "killall")


def errexit_on(walked: Walk, step: Step) -> bool:
    """Is ``set -e`` (``set -o errexit``, ``bash -e``, ``#!/bin/bash -e``) on when ``step`` runs?"""
    shell = walked.shells[step.shell]
    first = shell.text.split("\n", 1)[0]
    argv = (shell.cmdline or "").split()
    flags = list(itertools.takewhile(lambda word: word.startswith("-"), argv[1:]))
    if first.startswith("#!"):
        flags += first.split()[1:]
    if any(_ERREXIT.match(f) for f in flags):
        return True
    on = False
    for s in walked.steps:
        if s.shell != step.shell or s.position >= step.position or s.head != "set":
            continue
        args = list(s.words[1:])
        for i, word in enumerate(args):
            if _ERREXIT.match(word) or (word == "-o" and args[i + 1 : i + 2] == ["errexit"]):
                on = True
            elif (word.startswith("+") and "e" in word) or (
                word == "+o" and args[i + 1 : i + 2] == ["errexit"]
            ):
                on = False
    return on


def _fails_under_errexit(ctx: Context) -> list[LintHit]:
    killing = {h.step for h in _self_match(ctx)}  # it matches its own shell: it does not fail
    return _stoppers(
        ctx,
        "LS039",
        lambda step: (
            step.head in _NO_MATCH
            and _order(ctx, step) not in killing
            and errexit_on(ctx.walk, step)
        ),
        (
            "Under `set -e`, `{line}` exits with status 1 when nothing matches (no such process "
            "on a clean machine, no matching line), and bash then ends the script before the "
            "launch.",
            "`{line} || true`",
            "Under `set -e`, `{line}` fails when nothing matches and ends the script",
        ),
    )


def _never_returns(step: Step) -> bool:
    head, args = step.head, step.words[1:]
    flags = [w for w in args if w.startswith("-")]
    if head == "tail":
        return any(
            w in ("-f", "-F", "--follow") or w.startswith("--follow=") for w in flags
        ) or any(w[1:2] != "-" and ("f" in w[1:] or "F" in w[1:]) for w in flags)
    if head == "sleep":
        return bool(args) and args[0] in ("infinity", "inf")
    if head == "journalctl":
        return "--follow" in flags or any(w[1:2] != "-" and "f" in w[1:] for w in flags)
    return head in ("watch", "yes")


def _blocks_before_launch(ctx: Context) -> list[LintHit]:
    return _stoppers(
        ctx,
        "LS053",
        _never_returns,
        (
            "`{line}` runs in the foreground and never returns, so bash waits on it forever and "
            "never reaches the launch.",
            "drop `{line}` (or start it in the background: `{line} &`).",
            "`{line}` never returns, so the script never gets to the launch",
        ),
    )


RULES: tuple[LintRule, ...] = (
    LintRule("LS030", ("pkill", "killall", "kill $(pgrep -f)"), _self_match),
    LintRule("LS031", ("rm", "unlink", "truncate", ">"), _removed_log_still_there, needs_log=True),
    LintRule("LS032", ("&",), _unprotected_background),
    LintRule("LS033", ("$!",), _pid_without_background),
    LintRule("LS034", ("2>&1",), _redirect_order),
    LintRule("LS035", (">", "tee"), _other_file, needs_log=True),
    LintRule("LS036", ("kill", "sleep"), _sleep_after_kill),
    LintRule("LS037", ("\\ ",), _space_before_flag),
    LintRule("LS038", ("exit", "return"), _exit_before_launch),
    LintRule("LS039", ("set -e", "pkill", "pgrep", "grep"), _fails_under_errexit),
    LintRule(
        "LS053", ("tail -f", "sleep infinity", "watch", "journalctl -f"), _blocks_before_launch
    ),
)


_WRAPPERS = frozenset({"ssh", "pct", "docker", "podman", "kubectl", "oc", "bash", "sh", "zsh"})


def launch_step(w: Walk) -> Step | None:
    """The innermost step that is the SGLang launch itself (not a wrapper around it)."""
    for step in w.steps:
        if step.words and step.head not in _WRAPPERS and find_launch(shlex.join(step.words)):
            return step
    return None


def lint(text: str, log: LogFacts | None = None, script: str | None = None) -> tuple[LintHit, ...]:
    """Every lint hit for the command ``text``, in the order the offending lines run.

    ``script``: the file ``text`` came from (a ``#!`` script runs as its own shell process).
    """
    try:
        walked = walk(text, script)
    except CommandError:
        return ()
    ctx = Context(walked, launch_step(walked), log)
    rules = [r for r in RULES if log is not None or not r.needs_log]
    hits = [hit for rule in rules for hit in rule.detect(ctx)]
    severity = {c: CODES[c].severity for c in {h.code for h in hits}}
    return tuple(sorted(hits, key=lambda h: (severity[h.code] is not Severity.ERROR, h.step)))


def lint_findings(text: str, log: LogFacts | None = None) -> list[Finding]:
    return [hit.finding() for hit in lint(text, log)]


def remote_check(text: str, command: str) -> tuple[str, str] | None:
    """Where the launch in ``text`` runs, and ``command`` wrapped to run there (None: here)."""
    try:
        launch = launch_step(walk(text))
    except CommandError:
        return None
    if launch is None or not remote_hops(launch.hops):
        return None
    return where(launch.hops), run_there(launch.hops, command)
