"""One corrected command: the launch as the user pasted it (``ssh``/``pct``/``bash -c``/docker,
one line or many), with every lint fix applied and, when given, the memory change the budget
ranks first.

The fixes are edits of the pasted text, never a re-quoted rewrite, so the wrappers and the
layout stay the user's own: a self-killing ``pkill`` gets the anchored pattern (a second one
that becomes the same line is dropped), ``$!`` that the wrong shell expands is escaped, a fixed
``sleep`` after ``kill -9`` becomes a wait for the GPU to be free (so the ``rm`` that follows
runs after the kill is confirmed), ``\\ `` before flags goes, ``2>&1 > LOG`` is reordered, a
backgrounded launch inside a remote session gets ``nohup setsid``. Each edit is one
:class:`Change` (finding code, before, after, why).

:func:`apply_fixes` is the pure text part; ``sglang_logscope.fix_command`` (in
:mod:`sglang_logscope.staleness.fixing`) adds the log's facts and the memory budget.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .._record import record
from .._text import lazy_re
from .lint import LintHit, errexit_on, lint
from .walk import Step, Walk, walk

__all__ = ["Change", "FixedCommand", "apply_fixes", "fixed_for", "flag_change"]

#: What replaces a fixed ``sleep`` after ``kill -9`` (LS036): a wait until no process holds a
#: GPU. No quotes and no ``$``: it reads the same at any nesting depth.
WAIT_FOR_GPU = (
    "while nvidia-smi --query-compute-apps=pid --format=csv,noheader | grep -q .; do sleep 1; done"
)
_LAUNCH_TOKEN = re.compile(
    r"(?:sglang\.launch_server|sglang serve|launch_server\.py)(?=[ \t]*(?:\\[ \t]*\r?\n?[ \t]*)*-)"
)


#: A step's redirections and the separator after it (what goes with a dropped step).
_TAIL = lazy_re(r"(?:[ \t]+\d?>[^ \t;\n]*)*[ \t]*(?:;|&&|\r?\n)?[ \t]*")


@record
class Change:
    """One edit of the command: the finding it fixes, the text before and after, and why."""

    code: str
    before: str
    after: str
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "before": self.before, "after": self.after, "why": self.why}


@record
class FixedCommand:
    """The whole corrected launch, in the form it was pasted, and the edits that made it."""

    text: str
    changes: tuple[Change, ...]
    #: lint codes found that no edit could fix (the reason is in the finding)
    unfixed: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "changes": [c.to_dict() for c in self.changes],
            "unfixed": list(self.unfixed),
        }


def flag_change(args: Mapping[str, Any]) -> list[tuple[str, str]] | None:
    """``--flag value`` pairs for a budget suggestion's ``args``; ``None`` when it drops flags
    (a value of ``None``) rather than setting them."""
    if not args or any(v is None for v in args.values()):
        return None
    return [("--" + k.replace("_", "-"), _word(v)) for k, v in sorted(args.items())]


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def apply_fixes(
    text: str,
    hits: tuple[LintHit, ...] | None = None,
    memory: tuple[list[tuple[str, str]], str] | None = None,
    script: str | None = None,
) -> FixedCommand:
    """``text`` with every lint fix of ``hits`` (default: its own lint) and the ``memory``
    change (``--flag value`` pairs and why) applied."""
    if hits is None:
        hits = lint(text, script=script)
    try:
        walked = walk(text, script)
    except Exception:
        return FixedCommand(text, (), tuple(sorted({h.code for h in hits})))
    fixer = _Fixer(text, walked)
    for code, fix in _FIXES:
        todo = [h for h in hits if h.code == code]
        if todo:
            fix(fixer, todo)
    if memory is not None:
        fixer.memory(*memory)
    fixed = {c.code for c in fixer.changes}
    unfixed = tuple(sorted({h.code for h in hits} - fixed - {"LS031"}))
    return FixedCommand(fixer.text, tuple(fixer.changes), unfixed)


class _Fixer:
    def __init__(self, text: str, walked: Walk) -> None:
        self.text = text
        self.walk = walked
        self.changes: list[Change] = []

    def replace(self, code: str, old: str, new: str, why: str, start: int = 0) -> int | None:
        at = self.text.find(old, start)
        if at < 0:
            return None
        self.text = self.text[:at] + new + self.text[at + len(old) :]
        self.changes.append(Change(code, old.strip(), new.strip() or "(removed)", why))
        return at

    def sub_all(self, change: Change, pattern: str, repl: str) -> None:
        """Every match of ``pattern`` becomes ``repl``; ``change`` is said once if any did."""
        edited = re.sub(pattern, repl, self.text)
        if edited != self.text:
            self.text = edited
            self.changes.append(change)

    def find_step(self, step: Step, start: int = 0) -> re.Match[str] | None:
        """Where ``step``'s words stand in the text (each maybe quoted or escaped)."""
        quote = r"[\\'\"]*"  # a word after the first may be quoted or escaped
        parts = [re.escape(step.words[0])] + [quote + re.escape(w) + quote for w in step.words[1:]]
        pattern = re.compile(r"[ \t]+".join(parts))
        if start:
            return pattern.search(self.text, start)
        index = self.walk.steps.index(step) if step in self.walk.steps else 0
        same = sum(1 for s in self.walk.steps[:index] if s.words == step.words)
        found = list(pattern.finditer(self.text))  # the same words earlier: the n-th of them
        return found[same] if same < len(found) else (found[-1] if found else None)

    def memory(self, pairs: list[tuple[str, str]], why: str) -> None:
        for flag, value in pairs:
            given = re.search(re.escape(flag) + r"(?:[ \t]+|=)([^ \t\r\n\\\"';&|]+)", self.text)
            if given is not None:
                old = given.group(0)
                new = old[: len(old) - len(given.group(1))] + value
                self.replace("LS024", old, new, why, given.start())
                continue
            tokens = list(_LAUNCH_TOKEN.finditer(self.text))
            if not tokens:
                continue
            at = tokens[-1].end()  # the last one: a pkill's pattern comes before the launch
            self.text = f"{self.text[:at]} {flag} {value}{self.text[at:]}"
            self.changes.append(Change("LS024", "(not given)", f"{flag} {value}", why))


def _fix_pkill(f: _Fixer, hits: list[LintHit]) -> None:
    seen: dict[str, int] = {}
    start = 0
    for hit in sorted(hits, key=lambda h: h.step):
        step = f.walk.steps[hit.step]
        pattern = re.search(r"`([^`]*)`", hit.fix)
        found = f.find_step(step, start)
        if pattern is None or found is None:
            continue
        new = pattern.group(1)
        old = found.group(0)
        if new in seen:  # the same line already stands earlier: this one goes
            tail = _TAIL.match(f.text, found.end())
            end = tail.end() if tail else found.end()
            removed = f.text[found.start() : end]
            f.text = f.text[: found.start()] + f.text[end:]
            f.changes.append(
                Change("LS030", removed.strip(), "(removed)", f"the same as the fixed `{new}`")
            )
            start = found.start()
            continue
        redirects = " ".join(step.redirects)
        body = new[: -len(redirects)].rstrip() if redirects and new.endswith(redirects) else new
        old_body = old  # the words only (their redirects follow in the text unchanged)
        why = "it matched its own shell, which it killed; anchored at the interpreter it matches only the server"
        if not step.redirects and step.then not in ("||", "&&") and errexit_on(f.walk, step):
            body += " || true"  # it no longer matches its shell: under set -e no match ends it
            why += " (`|| true`: under `set -e` a pkill that matches nothing ends the script)"
        at = f.replace("LS030", old_body, body, why, found.start())
        seen[new] = at or 0
        start = (at or 0) + len(body)


def _fix_bang(f: _Fixer, hits: list[LintHit]) -> None:
    why = (
        "the outer shell expanded `$!` before the inner one started anything in the "
        "background; escaped, the shell that ran the `&` expands it"
    )
    f.sub_all(Change("LS033", "$!", "\\$!", why), r"(?<!\\)\$!", r"\\$!")


def _fix_sleep(f: _Fixer, hits: list[LintHit]) -> None:
    step = f.walk.steps[hits[0].step]
    found = f.find_step(step)
    if found is None:
        return
    why = (
        "a fixed sleep is a guess; this waits until no process holds a GPU, so what follows "
        "(the `rm`, the launch) runs after the kill is confirmed"
    )
    if step.head == "sleep":
        f.replace("LS036", found.group(0), WAIT_FOR_GPU, why, found.start())
        return
    end = found.end()  # nothing waited: the wait goes right after the kill (and its redirects)
    tail = re.compile(r"(?:[ \t]+\d?>[^ \t;\n]*)*").match(f.text, end)
    end = tail.end() if tail else end
    f.text = f"{f.text[:end]}; {WAIT_FOR_GPU}{f.text[end:]}"
    f.changes.append(Change("LS036", "(nothing waited)", WAIT_FOR_GPU, why))


def _fix_spaces(f: _Fixer, hits: list[LintHit]) -> None:
    why = "a `\\ ` before a flag passes it with a leading space, which argparse rejects"
    f.sub_all(Change("LS037", "\\ --flag", "--flag", why), r"\\ (?=[ \t]*(?:-|[<>]|\d>))", "")


def _fix_redirect(f: _Fixer, hits: list[LintHit]) -> None:
    pattern = re.compile(r"2>&1([ \t]+)1?>[ \t]*([^ \t;&|\n]+)")
    for match in list(pattern.finditer(f.text))[::-1]:
        new = f"> {match.group(2)} 2>&1"
        f.replace(
            "LS034",
            match.group(0),
            new,
            "stdout goes to the file first, then stderr joins it",
            match.start(),
        )


def _fix_background(f: _Fixer, hits: list[LintHit]) -> None:
    for hit in hits:
        step = f.walk.steps[hit.step]
        found = f.find_step(step)
        if found is None:
            continue
        f.text = f"{f.text[: found.start()]}nohup setsid {f.text[found.start() :]}"
        f.changes.append(
            Change(
                "LS032",
                step.words[0],
                f"nohup setsid {step.words[0]}",
                "a backgrounded launch inside a remote session dies with the session",
            )
        )


_COMMAND_END = lazy_re(r"[ \t]*(?:;[ \t]*|\n)?")


def _drop_steps(f: _Fixer, hits: list[LintHit], code: str, why: str) -> None:
    """Remove each hit's command (and the ``;`` or newline after it) from the text."""
    for hit in hits:
        step = f.walk.steps[hit.step]
        found = None if step.redirects else f.find_step(step)
        if found is None:
            continue
        end = _COMMAND_END.match(f.text, found.end())
        stop = end.end() if end is not None else found.end()
        old = f.text[found.start() : stop]
        f.replace(code, old, "", why, found.start())


def _fix_exit(f: _Fixer, hits: list[LintHit]) -> None:
    _drop_steps(f, hits, "LS038", "an `exit` before the launch ends the script before it")


def _fix_blocking(f: _Fixer, hits: list[LintHit]) -> None:
    _drop_steps(f, hits, "LS053", "a command that never returns keeps bash from the launch")


def _fix_errexit(f: _Fixer, hits: list[LintHit]) -> None:
    for hit in hits:
        step = f.walk.steps[hit.step]
        found = None if step.redirects else f.find_step(step)
        if found is None:
            continue
        f.text = f"{f.text[: found.end()]} || true{f.text[found.end() :]}"
        f.changes.append(
            Change(
                "LS039",
                found.group(0),
                f"{found.group(0)} || true",
                "under `set -e` a no-match exit status 1 ends the script before the launch",
            )
        )


#: Lint code → its edit, in the order they are applied (a test holds every rule to a row or to
#: :data:`NO_EDIT`).
_FIXES = (
    ("LS037", _fix_spaces),
    ("LS030", _fix_pkill),
    ("LS036", _fix_sleep),
    ("LS033", _fix_bang),
    ("LS034", _fix_redirect),
    ("LS032", _fix_background),
    ("LS038", _fix_exit),
    ("LS039", _fix_errexit),
    ("LS053", _fix_blocking),
)
FIXED_CODES = tuple(code for code, _ in _FIXES)
#: Lint codes with no edit, and why: the check's log facts, or a choice only the user can make.
NO_EDIT = {
    "LS031": "it proves that an earlier line stopped the shell; fixing that line fixes it",
    "LS035": "which file to check or to write is the user's choice",
}


def fixed_for(
    text: str, hits: tuple[LintHit, ...] | None, budget: Any, script: str | None = None
) -> FixedCommand:
    """``text`` with ``hits`` fixed and, when ``budget`` does not fit, its first suggestion that
    fits on the GPUs given (and sets flags rather than dropping them)."""
    memory = None
    if budget is not None and not getattr(budget, "fits", True):
        for s in getattr(budget, "suggestions", ()):
            pairs = flag_change(s.args) if s.fits and not s.needs_more_gpus else None
            if pairs:
                memory = (pairs, f"the budget's first fix: {s.effect}")
                break
    return apply_fixes(text, hits, memory, script)
