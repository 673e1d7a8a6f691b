"""Parameter expansion as ``sh`` does it, from the variables the command text itself sets.

``export TP=2`` then ``--tp $TP``: the launch received ``--tp 2``. ``$VAR``, ``${VAR}``,
``${VAR:-default}`` / ``${VAR-default}`` and ``${VAR:=default}`` expand from the assignments
and ``export`` lines before the launch (and ``-e`` of ``docker run``). What the text cannot
tell — a variable it never sets (it came from the launching shell), ``$(...)`` and backticks
(commands logscope does not run) — is left as written and reported as *not evaluated*, never
as an argparse rejection of the literal ``$TP``.

A ``$`` the shell would not expand (single quotes, ``\\$``) reaches here as :data:`LITERAL`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .._text import lazy_regex

#: Stands for a literal ``$`` (quoted or escaped) until expansion is done. A lone high
#: surrogate: no decoded text holds one (UTF-8 decoding cannot make it, surrogateescape makes only
#: U+DC80–U+DCFF), so a command's own characters never read as the marker — a private-use
#: character such as U+E000 could be in the command and turned into ``$``.
LITERAL = "\ud800"

_REF = lazy_regex(
    r"\$(?:\{(?P<braced>[A-Za-z_][A-Za-z0-9_]{0,200}+)(?:(?P<op>:?[-=])(?P<default>[^}]{0,1000}+))?\}"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]{0,200}+)"
    r"|(?P<special>[0-9#?@*!$-]))"
)
_BACKTICK = lazy_regex(r"`[^`]{0,2000}+`?")


def _substitution_end(text: str, start: int) -> int:
    """The end of the ``$(...)`` at ``start`` (balanced; the text's end if unclosed)."""
    depth = 0
    for i in range(start + 1, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


#: A ``<placeholder>`` of a command pasted from documentation (``--node-rank <node-rank>``):
#: a word the user fills in, not a redirection (issue 28); like ``$VAR``, not evaluated.
PLACEHOLDER = lazy_regex(r"<[A-Za-z_][\w.-]{0,80}+>")


def expand(word: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """``word`` with the variables of ``env`` expanded, and the references left unexpanded
    (``<placeholder>`` words among them)."""
    holes = PLACEHOLDER.findall(word) if "<" in word else []
    if "$" not in word and "`" not in word:
        return word.replace(LITERAL, "$"), holes
    unresolved: list[str] = holes
    out: list[str] = []
    i = 0
    while i < len(word):
        c = word[i]
        if c == "`":
            m = _BACKTICK.match(word, i)
            assert m is not None  # a backtick always matches
            unresolved.append(m.group())
            out.append(m.group())
            i = m.end()
        elif c == "$" and word.startswith("$(", i):
            end = _substitution_end(word, i)
            unresolved.append(word[i:end])
            out.append(word[i:end])
            i = end
        elif c == "$" and (m := _REF.match(word, i)) is not None:
            out.append(_variable(m, env, unresolved))
            i = m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out).replace(LITERAL, "$"), unresolved


def _variable(m: re.Match[str], env: Mapping[str, str], unresolved: list[str]) -> str:
    name = m.group("braced") or m.group("name")
    if name is None:  # $1, $$, $@: the script's own arguments, not known from the text
        unresolved.append(m.group())
        return m.group()
    value = env.get(name)
    op = m.group("op")
    if op is not None and (value is None or (op.startswith(":") and value == "")):
        value, inner = expand(m.group("default") or "", env)
        unresolved += inner
        return value
    if value is None:
        unresolved.append(m.group())
        return m.group()
    # a value that holds what could not be evaluated itself (MODEL=$(pwd)/m): still unknown
    unresolved += expand(value, {})[1] if ("$" in value or "`" in value) else []
    return value


def literal(text: str) -> str:
    """``text`` with every ``$`` kept as written (single quotes, ``\\$``)."""
    return text.replace("$", LITERAL)
