"""Read SGLang's ``server_args=`` banner into a dict, safely and tolerant of truncation.

The banner is ``ServerArgs(name=repr, ...)`` (0.2 → 0.5.15) or ``{'name': repr, ...}``
(0.5.23). Values are Python literals, except nested records such as ``CudaGraphConfig(...)``,
which become dicts with a ``__type__`` key. Nothing is ever evaluated: a full parse uses
``ast.parse`` + ``ast.literal_eval`` per value; a truncated or odd banner falls back to a
linear scanner that keeps every complete ``name=value`` pair it can read.

The usual banner -- printable ASCII, every value a quoted string without a backslash, a
number, ``None``/``True``/``False`` or a bracketed literal -- is read item by item first
(:func:`_plain_banner`: a third of the full parse's time, most of a small log's reading in a
fleet), to the full parse's answer (``tests/test_banner_fast.py``); anything else, or any
doubt, goes the full way.
"""

from __future__ import annotations

import ast
import keyword
from typing import Any

from .._text import lazy_re

_MAX_BANNER = 4 << 20


def parse_banner(text: str, skipped: list[tuple[str, str]] | None = None) -> dict[str, Any]:
    """Parse the text after ``server_args=`` into ``{arg: value}``. Never raises.

    ``skipped`` receives ``(name, text)`` of each complete item whose value is no literal
    (``10**30``, ``-inf``, a call with ``*args``): left out, never evaluated."""
    text = text.strip()
    if not text or len(text) > _MAX_BANNER:
        return {}
    plain = _plain_banner(text)
    if plain is not None:
        return plain
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


#: One ``name=value`` item of a ``ServerArgs(...)`` banner, up to the next item or the end:
#: a quoted string without backslash, a constant, an int as Python writes one, a float, or a
#: bracketed or double-quoted value (read by ``ast`` alone: no ``#`` or backslash in it).
_ITEM = lazy_re(  # compiled on first use: not at import (a check's start-up)
    r"""([A-Za-z_][A-Za-z0-9_]*)=(?:'([^'\\]*)'|(None|True|False)|(-?(?:0|[1-9][0-9]*))"""
    r"""|(-?[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+))|([\[{("][^#\\]*?))"""
    r"""(?=, [A-Za-z_][A-Za-z0-9_]*=|\)\Z)"""
)
_CONSTANTS = {"None": None, "True": True, "False": False}
_OPENING = "ServerArgs("


def _plain_banner(text: str) -> dict[str, Any] | None:
    """A ``ServerArgs(name=value, ...)`` banner read item by item, as the full parse reads
    it; ``None`` where it is anything else (the full parse then decides)."""
    if not (text.startswith(_OPENING) and text.isascii() and text.isprintable()):
        return None
    out: dict[str, Any] = {}
    at, end = len(_OPENING), len(text)
    while at < end:  # anchored at each item: one failed match ends it (never a search)
        m = _ITEM.match(text, at)
        if m is None:
            return None
        name, quoted, constant, whole, point, other = m.groups()
        if name in out or keyword.iskeyword(name):
            return None  # a repeated or reserved name: the full parse says what it is
        if quoted is not None:
            out[name] = quoted
        elif constant is not None:
            out[name] = _CONSTANTS[constant]
        elif whole is not None:
            out[name] = int(whole)
        elif point is not None:
            out[name] = float(point)
        else:
            try:
                out[name] = _node_value(ast.parse(other, mode="eval").body)
            except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
                return None
        at = m.end() + 2  # past ", " (or the closing parenthesis)
    return out if at == len(text) + 1 else None


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
