"""Read SGLang's ``server_args=`` banner into a dict, safely and tolerant of truncation.

The banner is ``ServerArgs(name=repr, ...)`` (0.2 → 0.5.15) or ``{'name': repr, ...}``
(0.5.23). Values are Python literals, except nested records such as ``CudaGraphConfig(...)``,
which become dicts with a ``__type__`` key. Nothing is ever evaluated: a full parse uses
``ast.parse`` + ``ast.literal_eval`` per value; a truncated or odd banner falls back to a
linear scanner that keeps every complete ``name=value`` pair it can read.
"""

from __future__ import annotations

import ast
import keyword
import re
from typing import Any

_MAX_BANNER = 4 << 20


def parse_banner(text: str, skipped: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Parse the text after ``server_args=`` into ``{arg: value}``. Never raises.

    ``skipped`` receives ``(name, text)`` of each complete item whose value is no literal
    (``10**30``, ``-inf``, a call with ``*args``): left out, never evaluated."""
    text = text.strip()
    if not text or len(text) > _MAX_BANNER:
        return {}
    quick = _quick(text)
    return quick if quick is not None else _parse_ast(text, skipped)


def _parse_ast(text: str, skipped: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """:func:`parse_banner` by ``ast`` (any banner; the quick reader's reference)."""
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return _scan(text, skipped)
    try:
        value = _node_value(tree.body)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _scan(text, skipped)
    if isinstance(value, dict):
        value.pop("__type__", None)
        return {str(k): v for k, v in value.items()}
    return _scan(text, skipped)


def _node_value(node: ast.AST) -> Any:
    """Literal value of ``node``; ``Name(args)`` calls become dicts; bare names become strings."""
    if node.__class__ is ast.Constant:  # most values: what ``literal_eval`` returns for one
        return node.value
    if isinstance(node, ast.Call):
        out: dict[str, Any] = {}
        if isinstance(node.func, (ast.Name, ast.Attribute)):
            out["__type__"] = ast.unparse(node.func)
        for i, arg in enumerate(node.args):
            out[f"_{i}"] = _node_value(arg)
        for kw in node.keywords:
            if kw.arg is not None:
                out[kw.arg] = _node_value(kw.value)
        return out
    if isinstance(node, ast.Dict):
        return {
            (_node_value(k) if k is not None else "**"): _node_value(v)
            for k, v in zip(node.keys, node.values, strict=False)
        }
    if isinstance(node, ast.List):
        return [_node_value(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_node_value(e) for e in node.elts)
    if isinstance(node, ast.Set):
        return [_node_value(e) for e in node.elts]
    if isinstance(node, (ast.Name, ast.Attribute)):
        return ast.unparse(node)  # e.g. an enum repr such as <Mode.X: 1> is not literal; keep text
    return ast.literal_eval(node)


# The quick reader (:func:`_quick`): a banner of plain literals read without ``ast``, whose
# parse makes a node object per token (a 325-key banner: 0.70 ms against 0.93 ms, a tenth
# of reading a small log in issue 30's fleet; docs/performance.md).
# Only the forms below; anything else (escapes, tuples, positional arguments, names, prefixes,
# a trailing comma) gives up, and the banner is read by ``ast`` as before.
_TOKEN = re.compile(
    r"""[ \t]*(?:'([^'\\\n\r\x00]*)'|"([^"\\\n\r\x00]*)"|"""
    r"(-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*)|([\[\]{}(),:=])|(.))",
    re.DOTALL,
)
_WORDS: dict[str, Any] = {"None": None, "True": True, "False": False}
_QUICK_DEPTH = 32


class _GiveUp(Exception):
    """The quick reader met a form it does not read."""


def _quick(text: str) -> dict[str, Any] | None:
    """``parse_banner``'s result for a banner of plain literals (strings without escapes,
    numbers, ``None``/``True``/``False``, lists, dicts and ``Record(k=v)`` of them) as ``Name(k=v, ...)`` or
    ``{'k': v, ...}``, without ``ast``; ``None`` for any other text (read by ``ast``)."""
    if "\n" in text:
        return None  # one line, as SGLang prints it (else ast decides where a line may break)
    try:
        tokens = _tokens(text)
        if tokens[0][0] == "name" and tokens[1] == ("op", "("):
            if keyword.iskeyword(tokens[0][1]):
                return None
            out, end = _call_args(tokens, 2, 0)
        else:
            value, end = _value(tokens, 0, 0)
            if not isinstance(value, dict):
                return None
            out = value
    except (_GiveUp, IndexError):
        return None
    if end != len(tokens):
        return None
    out.pop("__type__", None)
    return {str(k): v for k, v in out.items()}


def _tokens(text: str) -> list[tuple[str, Any]]:
    """``text`` as (kind, value) tokens; :class:`_GiveUp` on any character they do not cover
    (the pattern's last group takes any other character, so the matches cover the text)."""
    out: list[tuple[str, Any]] = []
    append = out.append
    for m in _TOKEN.finditer(text):
        group = m.lastindex
        if group == 5:
            append(("op", m.group(5)))
        elif group == 4:
            append(("name", m.group(4)))
        elif group == 3:
            append(("value", _number(m.group(3))))
        elif group is not None and group < 3:
            append(("value", m.group(group)))
        else:
            raise _GiveUp
    return out


def _number(token: str) -> int | float:
    digits = token.lstrip("-")
    if any(c in digits for c in ".eE"):
        return float(token)
    if (len(digits) > 1 and digits[0] == "0") or len(digits) > 18:
        raise _GiveUp  # Python rejects 007; long ones: ast's digit limit decides
    return int(token)


def _value(tokens: list[tuple[str, Any]], i: int, depth: int) -> tuple[Any, int]:
    """The value starting at token ``i``, and the index after it."""
    kind, token = tokens[i]
    if depth > _QUICK_DEPTH:
        raise _GiveUp
    if kind == "value":
        return token, i + 1
    if kind == "name":
        if token in _WORDS:
            return _WORDS[token], i + 1
        if tokens[i + 1] != ("op", "(") or keyword.iskeyword(token):
            raise _GiveUp  # a bare name: ast's reading
        args, end = _call_args(tokens, i + 2, depth + 1)  # a record: CudaGraphConfig(...)
        if "__type__" in args:
            raise _GiveUp
        return {"__type__": token, **args}, end
    if token == "[":
        items: list[Any] = []
        i += 1
        while tokens[i] != ("op", "]"):
            if items:
                i = _expect(tokens, i, ",")
            item, i = _value(tokens, i, depth + 1)
            items.append(item)
        return items, i + 1
    if token == "{":
        out: dict[Any, Any] = {}
        i += 1
        while tokens[i] != ("op", "}"):
            if out:
                i = _expect(tokens, i, ",")
            key, i = _value(tokens, i, depth + 1)
            if isinstance(key, (list, dict)):
                raise _GiveUp
            value, i = _value(tokens, _expect(tokens, i, ":"), depth + 1)
            if key in out:
                raise _GiveUp
            out[key] = value
        return out, i + 1
    raise _GiveUp


def _call_args(tokens: list[tuple[str, Any]], i: int, depth: int) -> tuple[dict[str, Any], int]:
    """The ``k=v`` arguments after ``Name(``, and the index after the ``)``."""
    out: dict[str, Any] = {}
    while tokens[i] != ("op", ")"):
        if out:
            i = _expect(tokens, i, ",")
        kind, name = tokens[i]
        if kind != "name" or name in out or keyword.iskeyword(name):
            raise _GiveUp
        out[name], i = _value(tokens, _expect(tokens, i + 1, "="), depth + 1)
    return out, i + 1


def _expect(tokens: list[tuple[str, Any]], i: int, op: str) -> int:
    if tokens[i] != ("op", op):
        raise _GiveUp
    return i + 1


_OPEN = {"(": ")", "[": "]", "{": "}"}


def _scan(text: str, skipped: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Best-effort linear scan of ``ServerArgs(a=1, b='x', ...`` or ``{'a': 1, ...``.

    Splits top-level items respecting quotes and brackets, keeps each item whose value parses
    as a literal. Used for truncated banners (the line cut off mid-way) and odd reprs.
    """
    start = text.find("(")
    brace = text.find("{")
    if brace != -1 and (start == -1 or brace < start):
        start = brace
    if start == -1:
        return {}
    out: dict[str, Any] = {}
    for item in _split_items(text, start + 1):
        key, sep, value = _split_key(item)
        if not sep:
            continue
        try:
            tree = ast.parse(value.strip(), mode="eval")
            out[key] = _node_value(tree.body)
        except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
            if skipped is not None:
                skipped.append((key, value.strip()))
            continue
    return out


def _split_items(text: str, i: int) -> list[str]:
    items: list[str] = []
    depth: list[str] = []
    quote = ""
    begin = i
    n = len(text)
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in _OPEN:
            depth.append(_OPEN[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif not depth and ch in ",)}":
            items.append(text[begin:i])
            begin = i + 1
            if ch != ",":
                return items
        i += 1
    return items  # the unfinished tail (truncation) is dropped


def _split_key(item: str) -> tuple[str, bool, str]:
    item = item.strip()
    if item and item[0] in "'\"":
        q = item[0]
        end = item.find(q, 1)
        if end == -1:
            return "", False, ""
        key = item[1:end]
        rest = item[end + 1 :].lstrip()
        if rest.startswith(":"):
            return key, True, rest[1:]
        return "", False, ""
    name, sep, value = item.partition("=")
    name = name.strip()
    if sep and name.isidentifier():
        return name, True, value
    return "", False, ""


def format_banner(args: dict[str, Any]) -> str:
    """The ``ServerArgs(...)`` repr SGLang would print for ``args`` (used by tests and tools)."""
    return "ServerArgs(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")"
