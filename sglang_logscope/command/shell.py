"""Shell text as ``sh`` would split it: words (quotes, escapes, ``$(...)``, comments),
a ``$`` that quotes or a backslash keep from expansion marked (:data:`.expand.LITERAL`),
operators (``;``/``&&``/``||``/``|``/``&``) and redirections, grouped into simple commands with
where their stdout goes (``> log``, ``>> log``, ``&> log``, ``| tee log``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from .._record import record
from ..errors import CommandError
from .expand import PLACEHOLDER, literal


@record(frozen=False)
class _Word:
    """A shell word as read, and whether any of it was quoted."""

    text: str
    quoted: bool = False


@record(frozen=False)
class _Op:
    """A shell operator between words (``|``, ``&&``, ``;``, a redirection)."""

    text: str


@record(frozen=False)
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
    then: str = ""  # the operator that ends it (``;``, ``&&``, ``||``, ``|``, ``&``, newline)
    depth: int = 0  # how deep in ``if``/``while``/``case``/``{ }``/``( )`` it sits (0: top level)


_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")", "\n")
_REDIRS = ("&>>", "&>", ">>", ">&", ">|", "<<<", "<<", "<&", "<>", ">", "<")


def _lex(text: str, literals: bool) -> list[_Word | _Op]:
    """Words and operators, as bash's tokenizer cuts them (quotes removed, nothing expanded)."""
    return _Lexer(text, literal if literals else str).run()


class _Lexer:
    """One left-to-right pass; each ``_…`` method reads one construct at ``i`` and returns the
    index after it."""

    def __init__(self, text: str, keep: Callable[[str], str]) -> None:
        self.text, self.keep = text, keep
        self.out: list[_Word | _Op] = []
        self.buf: list[str] = []
        self.quoted = self.started = False

    def run(self) -> list[_Word | _Op]:
        text, i, n = self.text, 0, len(self.text)
        while i < n:
            c = text[i]
            if c == "'":
                i = self._single(i)
            elif c == '"':
                i = self._double(i + 1)
            elif c == "\\":
                i = self._escape(i)
            elif c == "#" and not self.started:
                end = text.find("\n", i)
                i = n if end < 0 else end
            elif c in " \t\r":
                self._flush()
                i += 1
            elif c == "$" and text.startswith("$(", i):
                i = self._piece(i, _matching_paren(text, i))
            elif c == "`":  # a command substitution: one piece of the word, not evaluated
                end = text.find("`", i + 1)
                i = self._piece(i, n - 1 if end < 0 else end)
            elif c == "<" and (m := PLACEHOLDER.match(text, i)) is not None:
                self.buf.append(m.group())  # a placeholder word, not a redirection (issue 28)
                self.started = True
                i = m.end()
            elif c in "<>" or (c == "&" and text.startswith("&>", i)):
                i = self._redirect(i)
            elif c in ";|&()\n":
                self._flush()
                op = next(o for o in _OPERATORS if text.startswith(o, i))
                self.out.append(_Op(op))
                i += len(op)
            else:
                self.buf.append(c)
                self.started = True
                i += 1
        self._flush()
        return self.out

    def _flush(self) -> None:
        if self.started:
            self.out.append(_Word("".join(self.buf), self.quoted))
        self.buf, self.quoted, self.started = [], False, False

    def _single(self, i: int) -> int:
        end = self.text.find("'", i + 1)
        if end < 0:
            raise CommandError("unbalanced single quote in the command text")
        self.buf.append(self.keep(self.text[i + 1 : end]))  # no expansion inside single quotes
        self.quoted = self.started = True
        return end + 1

    def _double(self, i: int) -> int:
        text, n = self.text, len(self.text)
        while True:
            if i >= n:
                raise CommandError("unbalanced double quote in the command text")
            d = text[i]
            if d == '"':
                break
            if d == "\\" and i + 1 < n and text[i + 1] in '$`"\\\n':
                if text[i + 1] != "\n":
                    self.buf.append(self.keep(text[i + 1]))
                i += 2
                continue
            self.buf.append(d)
            i += 1
        self.quoted = self.started = True
        return i + 1

    def _escape(self, i: int) -> int:
        if i + 1 >= len(self.text):
            return i + 1
        if self.text[i + 1] != "\n":  # a backslash-newline joins lines
            self.buf.append(self.keep(self.text[i + 1]))
            self.started = True
        return i + 2

    def _piece(self, i: int, end: int) -> int:
        """``$(...)`` or a backquoted command, kept verbatim as part of the word."""
        self.buf.append(self.text[i : end + 1])
        self.started = True
        return end + 1

    def _redirect(self, i: int) -> int:
        fd = ""
        if self.started and not self.quoted and self.buf and "".join(self.buf).isdigit():
            fd = "".join(self.buf)
            self.buf, self.started = [], False
        self._flush()
        op = next(r for r in _REDIRS if self.text.startswith(r, i))
        self.out.append(_Op(fd + op))
        return i + len(op)


def _matching_paren(text: str, i: int) -> int:
    """The index of the ``)`` closing the ``(`` after ``$`` at ``i`` (the last index if none)."""
    depth, j, n = 0, i, len(text)
    while j < n:
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                break
        j += 1
    return j


_OPENS = frozenset({"if", "case", "while", "until", "for", "select", "{"})
_CLOSES = frozenset({"fi", "esac", "done", "}"})


class _Nesting:
    """How deep the next command sits in compound commands (keywords and parentheses)."""

    def __init__(self) -> None:
        self.keywords = self.parens = 0

    def command(self, head: str) -> int:
        """The depth of a command starting with ``head`` (an opener counts as inside)."""
        if head in _CLOSES:
            self.keywords = max(0, self.keywords - 1)
            return self.keywords + self.parens + 1
        if head in _OPENS:
            self.keywords += 1
        return self.keywords + self.parens

    def paren(self, op: str) -> None:
        if op == "(":
            self.parens += 1
        elif op == ")":
            self.parens = max(0, self.parens - 1)


def split_commands(text: str, literals: bool = False) -> list[ShellCommand]:
    """Split shell text into simple commands, with stdout redirections and ``| tee``;
    ``literals``: a ``$`` that quotes or a backslash keep from expansion as :data:`.expand.LITERAL`."""
    tokens = _lex(text, literals)
    cmds: list[ShellCommand] = []
    cur = ShellCommand()
    pipe_from: ShellCommand | None = None
    i = 0
    nest = _Nesting()

    def end(piped: bool, background: bool = False, op: str = "") -> None:
        nonlocal cur, pipe_from
        cur.background, cur.then = background, op
        if cur.words:
            cur.depth = nest.command(cur.words[0])
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
        end(piped=op in ("|", "|&"), background=op == "&", op=op)
        nest.paren(op)
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
