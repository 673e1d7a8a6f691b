"""Shell text as ``sh`` would split it: words (quotes, escapes, ``$(...)``, comments),
a ``$`` that quotes or a backslash keep from expansion marked (:data:`.expand.LITERAL`),
operators (``;``/``&&``/``||``/``|``/``&``) and redirections, grouped into simple commands with
where their stdout goes (``> log``, ``>> log``, ``&> log``, ``| tee log``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CommandError
from .expand import literal


@dataclass
class _Word:
    text: str
    quoted: bool = False


@dataclass
class _Op:
    text: str


@dataclass
class ShellCommand:
    """One simple command's words, where its stdout goes, and the command it pipes into."""

    words: list[str] = field(default_factory=list)
    stdout: str | None = None
    append: bool = False
    tee: str | None = None
    tee_append: bool = False
    piped_to: ShellCommand | None = None
    background: bool = False  # ended by ``&``
    redirects: list[str] = field(default_factory=list)  # in order: ``2>&1``, ``>log``


_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")", "\n")
_REDIRS = ("&>>", "&>", ">>", ">&", ">|", "<<<", "<<", "<&", "<>", ">", "<")


def _lex(text: str, literals: bool) -> list[_Word | _Op]:
    keep = literal if literals else str
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
            buf.append(keep(text[i + 1 : end]))  # no expansion inside single quotes
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
                        buf.append(keep(text[i + 1]))
                    i += 2
                    continue
                buf.append(d)
                i += 1
            quoted = started = True
        elif c == "\\":
            if i + 1 < n:
                if text[i + 1] != "\n":
                    buf.append(keep(text[i + 1]))
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
        elif c == "`":  # a command substitution: one piece of the word, not evaluated
            end = text.find("`", i + 1)
            end = n - 1 if end < 0 else end
            buf.append(text[i : end + 1])
            started = True
            i = end + 1
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


def split_commands(text: str, literals: bool = False) -> list[ShellCommand]:
    """Split shell text into simple commands, with stdout redirections and ``| tee``;
    ``literals``: a ``$`` that quotes or a backslash keep from expansion as :data:`.expand.LITERAL`."""
    tokens = _lex(text, literals)
    cmds: list[ShellCommand] = []
    cur = ShellCommand()
    pipe_from: ShellCommand | None = None
    i = 0

    def end(piped: bool, background: bool = False) -> None:
        nonlocal cur, pipe_from
        cur.background = background
        if cur.words:
            if pipe_from is not None:
                pipe_from.piped_to = cur
            cmds.append(cur)
            pipe_from = cur if piped else None
        else:
            pipe_from = None
        cur = ShellCommand()

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
            cur.redirects.append(op + (tgt or ""))
            if tgt is not None:
                i += 1
                if kind in ("&>", "&>>") or (kind in (">", ">>", ">|") and fd in ("", "1")):
                    cur.stdout, cur.append = tgt, kind in (">>", "&>>")
                elif kind == ">&" and fd in ("", "1") and not tgt.isdigit() and tgt != "-":
                    cur.stdout, cur.append = tgt, False
            i += 1
            continue
        end(piped=op in ("|", "|&"), background=op == "&")
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
